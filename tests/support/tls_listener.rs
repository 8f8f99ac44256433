//! An axum listener that terminates TLS with the test certificate in
//! `testdata/registry/tls/`. Shared by the integration tests' fake registry and the
//! network unit tests (`src/net/http/test_support.rs` includes this file);
//! [`tls_front`] puts the same certificate in front of any plain TCP server.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

const SERVER_PEM: &[u8] = include_bytes!("../../testdata/registry/tls/server.pem");
const SERVER_KEY: &[u8] = include_bytes!("../../testdata/registry/tls/server.key");

pub struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
}

impl TlsListener {
    pub fn new(tcp: TcpListener) -> TlsListener {
        TlsListener {
            tcp,
            acceptor: acceptor(),
        }
    }
}

/// A TLS server with the test certificate (signed by the test CA, for `localhost`,
/// `127.0.0.1` and `registry.test`).
fn acceptor() -> TlsAcceptor {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(SERVER_PEM)
        .collect::<Result<_, _>>()
        .expect("test TLS: certificate");
    let key = PrivateKeyDer::from_pem_slice(SERVER_KEY).expect("test TLS: key");
    let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("test TLS: protocol versions")
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .expect("test TLS: server config");
    TlsAcceptor::from(Arc::new(config))
}

/// HTTPS in front of the plain server at `upstream`, on a loopback port of its own (a
/// store emulator as the cloud serves it); runs until the test process ends.
#[allow(dead_code)] // Not used by the registry client's unit tests.
pub fn tls_front(upstream: SocketAddr) -> SocketAddr {
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").expect("bind TLS front");
    tcp.set_nonblocking(true).expect("TLS front: nonblocking");
    let addr = tcp.local_addr().expect("TLS front address");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("TLS front runtime");
        runtime.block_on(async move {
            let tcp = TcpListener::from_std(tcp).expect("TLS front listener");
            let acceptor = acceptor();
            while let Ok((client, _)) = tcp.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let (Ok(mut tls), Ok(mut plain)) = (
                        acceptor.accept(client).await,
                        TcpStream::connect(upstream).await,
                    ) else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                });
            }
        });
    });
    addr
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, addr)) = self.tcp.accept().await else {
                continue;
            };
            // A client that fails the handshake (an untrusting Terraform, say) must
            // not stop the server.
            if let Ok(tls) = self.acceptor.accept(tcp).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}
