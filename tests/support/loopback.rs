//! Serving an axum app on a loopback port of its own, on a thread of its own, until the
//! test process ends: how the in-process fakes that need no shutdown run.

use axum::Router;

/// Starts `app` on `127.0.0.1` and returns its port; the app is serving when this returns
/// (the listener is bound first).
pub fn serve(app: Router, what: &str) -> u16 {
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind {what}: {e}"));
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("local addr").port();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let _ = axum::serve(listener, app).await;
        });
    });
    port
}
