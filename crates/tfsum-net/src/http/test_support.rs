//! Loopback test servers for the network unit tests: plain HTTP for registry endpoints
//! reached through a forced `host` block, and HTTPS (with the test CA in
//! `testdata/registry/tls/`) for discovery, which is always https. Every request's path
//! and headers are recorded so tests can check what was sent where.
#![cfg_attr(not(test), allow(dead_code))]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use tokio::net::TcpListener;

use tfsum_vocab::addr::Hostname;

use super::transport::{HttpConfig, Trust};
use crate::cliconfig::Env;
use crate::retry::RetryPolicy;

const CA_PEM: &[u8] = include_bytes!("../../../../testdata/registry/tls/ca.pem");

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    /// Path and query.
    pub path: String,
    pub headers: HeaderMap,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Log(Arc<Mutex<Vec<Seen>>>);

impl Log {
    pub(crate) fn all(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }

    pub(crate) fn count(&self, path: &str) -> usize {
        self.all().iter().filter(|s| s.path == path).count()
    }
}

async fn record(State(log): State<Log>, request: Request, next: Next) -> Response {
    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    log.0.lock().unwrap().push(Seen {
        path,
        headers: request.headers().clone(),
    });
    next.run(request).await
}

fn recorded(router: Router) -> (Router, Log) {
    let log = Log::default();
    let router = router.layer(axum::middleware::from_fn_with_state(log.clone(), record));
    (router, log)
}

/// Serves `router` over plain HTTP on 127.0.0.1; returns its address and request log.
pub(crate) async fn serve(router: Router) -> (SocketAddr, Log) {
    let (router, log) = recorded(router);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (addr, log)
}

#[path = "../../../../tests/support/tls_listener.rs"]
#[allow(unreachable_pub)]
pub(crate) mod tls_listener;
use tls_listener::TlsListener;

/// Serves `router` over HTTPS for `localhost:<port>`; returns the hostname (with port)
/// and the request log.
pub(crate) async fn serve_tls(router: Router) -> (Hostname, Log) {
    let (router, log) = recorded(router);
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = tcp.local_addr().unwrap().port();
    let listener = TlsListener::new(tcp);
    tokio::spawn(async move { axum::serve(listener, router).await });
    (Hostname::parse(&format!("localhost:{port}")).unwrap(), log)
}

/// Short delays and timeouts, and only the test CA trusted (besides the built-in roots).
pub fn test_config() -> HttpConfig {
    HttpConfig {
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
            max_retry_after: Duration::from_secs(5),
        },
        connect_timeout: Duration::from_secs(5),
        request_timeout: Duration::from_secs(5),
        stream_idle_timeout: Duration::from_secs(5),
        download_deadline: Duration::from_secs(60),
        min_download_rate: 1024,
        per_host: 6,
        user_agent: "tfsum-test".to_string(),
        trust: Trust {
            cert_file: None,
            cert_dirs: None,
            system: false,
            extra_pem: vec![CA_PEM.to_vec()],
        },
        proxies: Default::default(),
    }
}

pub(crate) fn env(vars: &[(&str, &str)]) -> Env {
    Env {
        vars: vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        home: None,
        opentofu: false,
    }
}
