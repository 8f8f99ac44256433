//! An axum listener that terminates TLS with the test certificate in
//! `testdata/registry/tls/`. Shared by the integration tests' fake registry and the
//! registry client's unit tests (`src/registry/test_support.rs` includes this file).

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
        TlsListener {
            tcp,
            acceptor: TlsAcceptor::from(Arc::new(config)),
        }
    }
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
