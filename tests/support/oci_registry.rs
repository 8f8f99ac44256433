//! OCI registries for the tests, all on 127.0.0.1:
//!
//! - [`Registry`]: Debian's `docker-registry` (CNCF distribution 2.8.2), unpacked into
//!   `target/tools/docker-registry` by `scripts/fetch-docker-registry.sh` (`make test`
//!   runs it), started per test on a free port with its storage in a temporary
//!   directory, deletes off, and optionally TLS with the test certificate
//!   (`testdata/registry/tls/`) and the htpasswd user of `testdata/oci/` ([`USER`],
//!   [`PASSWORD`]); killed on drop.
//! - [`BearerFront`]: what distribution cannot do without an external JWT service: a
//!   token service (the distribution token `GET` and the OAuth2 refresh-token `POST`)
//!   and, in front of a [`Registry`] without auth, a registry that answers 401 with a
//!   `Bearer realm=…,service=…,scope=…` challenge unless a token it issued grants the
//!   request's repository and action. Both HTTPS with the test certificate; both log
//!   what they were asked.
//!
//! Where the binary is: `TFSUM_TEST_DOCKER_REGISTRY` (`make test` sets it, and then a
//! missing binary fails the test), else `target/tools/docker-registry/usr/bin/docker-registry`;
//! when neither exists [`binary`] says so and the tests that need it are skipped.
//!
//! Shared by the `it` binary (`tests/support/mod.rs`) and the OCI client's unit tests
//! (`src/net/oci/test_support.rs` includes this file); both put `tls_listener` beside it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use base64::Engine as _;

use super::tls_listener::TlsListener;

/// The htpasswd user's name and password (`testdata/oci/README.md`).
pub const USER: &str = "tfsum";
pub const PASSWORD: &str = "tfsum-test-password";

const HTPASSWD: &str = include_str!("../../testdata/oci/htpasswd");
// Written beside the registry's configuration, as the htpasswd file is: the crates that
// include this file (tfsum-net's unit tests) have their own CARGO_MANIFEST_DIR.
const SERVER_PEM: &str = include_str!("../../testdata/registry/tls/server.pem");
const SERVER_KEY: &str = include_str!("../../testdata/registry/tls/server.key");

/// The registry binary, or `None` (with a note on stderr) when it is not installed and
/// `TFSUM_TEST_DOCKER_REGISTRY` does not name it.
pub fn binary() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os("TFSUM_TEST_DOCKER_REGISTRY") {
        let path = PathBuf::from(named);
        assert!(
            path.is_file(),
            "TFSUM_TEST_DOCKER_REGISTRY={} does not exist: run scripts/fetch-docker-registry.sh",
            path.display()
        );
        return Some(path);
    }
    // The workspace's root (the one with Cargo.lock), from the root package or a crate.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
    let path = root.join("target/tools/docker-registry/usr/bin/docker-registry");
    if path.is_file() {
        return Some(path);
    }
    eprintln!(
        "skipped: no docker-registry at {} (run scripts/fetch-docker-registry.sh; make test does)",
        path.display()
    );
    None
}

/// How a [`Registry`] is started.
#[derive(Debug, Clone, Copy, Default)]
pub struct RegistryOptions {
    /// HTTPS with the test certificate (for `127.0.0.1` and `localhost`).
    pub tls: bool,
    /// The htpasswd user; without it anyone may push and pull.
    pub htpasswd: bool,
    /// `Location` headers relative to the request (`http.relativeurls`).
    pub relative_urls: bool,
}

/// A running distribution registry; stopped on drop.
pub struct Registry {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
    options: RegistryOptions,
}

impl Registry {
    /// Starts one; `None` when the binary is not installed (see [`binary`]).
    pub fn start(options: RegistryOptions) -> Option<Registry> {
        let binary = binary()?;
        let dir = tempfile::TempDir::new().expect("registry directory");
        let config = dir.path().join("config.yml");
        let log = dir.path().join("registry.log");
        // A port taken between probing and binding makes the registry exit: try another.
        for attempt in 1..=5 {
            let port = free_port();
            std::fs::write(&config, config_yaml(&dir, port, options)).expect("registry config");
            let output = std::fs::File::create(&log).expect("registry log");
            let mut child = Command::new(&binary)
                .arg("serve")
                .arg(&config)
                .stdin(Stdio::null())
                .stdout(output.try_clone().expect("registry log"))
                .stderr(output)
                .spawn()
                .unwrap_or_else(|e| panic!("start {}: {e}", binary.display()));
            if wait_until_listening(&mut child, port, &log) {
                return Some(Registry {
                    child,
                    dir,
                    port,
                    options,
                });
            }
            assert!(
                attempt < 5,
                "docker-registry exited:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        None
    }

    /// `127.0.0.1:<port>`: the registry part of a repository address.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `https://127.0.0.1:<port>` (or `http://` without TLS).
    pub fn base_url(&self) -> String {
        let scheme = if self.options.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.host())
    }

    /// What the registry logged (warnings and errors), for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
    }
}

/// Until the port accepts connections (the registry binds it once it serves); false if
/// the process ended first.
fn wait_until_listening(child: &mut Child, port: u16, log: &std::path::Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        if let Ok(Some(_)) = child.try_wait() {
            return false;
        }
        assert!(
            Instant::now() < deadline,
            "docker-registry did not listen on port {port} within 30 s:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn config_yaml(dir: &tempfile::TempDir, port: u16, options: RegistryOptions) -> String {
    let root = dir.path().join("storage");
    let mut yaml = format!(
        "version: 0.1\n\
         log:\n  level: warn\n  accesslog:\n    disabled: true\n\
         storage:\n  filesystem:\n    rootdirectory: {root}\n  delete:\n    enabled: false\n  \
         maintenance:\n    uploadpurging:\n      enabled: false\n\
         http:\n  addr: 127.0.0.1:{port}\n  secret: tfsum-test-secret\n  relativeurls: {relative}\n",
        root = root.display(),
        relative = options.relative_urls,
    );
    if options.tls {
        let (pem, key) = (dir.path().join("server.pem"), dir.path().join("server.key"));
        std::fs::write(&pem, SERVER_PEM).expect("server.pem");
        std::fs::write(&key, SERVER_KEY).expect("server.key");
        yaml.push_str(&format!(
            "  tls:\n    certificate: {}\n    key: {}\n",
            pem.display(),
            key.display()
        ));
    }
    if options.htpasswd {
        let htpasswd = dir.path().join("htpasswd");
        std::fs::write(&htpasswd, HTPASSWD).expect("htpasswd");
        yaml.push_str(&format!(
            "auth:\n  htpasswd:\n    realm: tfsum-test\n    path: {}\n",
            htpasswd.display()
        ));
    }
    yaml
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// Whom the token service serves.
#[derive(Debug, Clone)]
pub struct TokenPolicy {
    /// The user and password the distribution token endpoint accepts as Basic auth.
    pub user: String,
    pub password: String,
    /// The refresh token the OAuth2 endpoint accepts.
    pub refresh_token: String,
    /// An access token the front accepts for everything without it being issued (a
    /// configured `access_token`).
    pub access_token: String,
    /// Whether anonymous token requests get pull access.
    pub anonymous_pull: bool,
}

impl Default for TokenPolicy {
    fn default() -> TokenPolicy {
        TokenPolicy {
            user: USER.to_string(),
            password: PASSWORD.to_string(),
            refresh_token: "tfsum-test-refresh-token".to_string(),
            access_token: "tfsum-test-access-token".to_string(),
            anonymous_pull: true,
        }
    }
}

/// One request the front saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub method: String,
    /// Path and query.
    pub path: String,
    /// The scheme of its `Authorization`, if any ("Basic", "Bearer").
    pub authorization: Option<String>,
    /// The status the front answered with.
    pub status: u16,
}

/// One token the token service was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRequest {
    /// "anonymous", "basic" (distribution `GET`) or "refresh" (OAuth2 `POST`).
    pub grant: String,
    pub service: String,
    /// The scopes asked for, as sent.
    pub scopes: Vec<String>,
    /// OAuth2's `client_id`.
    pub client_id: Option<String>,
    /// Whether a token was issued.
    pub issued: bool,
}

/// Actions per repository.
type Grant = BTreeMap<String, BTreeSet<String>>;

struct FrontState {
    policy: TokenPolicy,
    backend: String,
    realm: Mutex<String>,
    tokens: Mutex<HashMap<String, Grant>>,
    issued: AtomicUsize,
    seen: Mutex<Vec<Seen>>,
    token_requests: Mutex<Vec<TokenRequest>>,
    client: reqwest::Client,
}

/// A Bearer-token registry in front of a [`Registry`] without auth, and its token
/// service; both run until the test process ends.
pub struct BearerFront {
    /// `127.0.0.1:<port>` of the front.
    pub host: String,
    /// The token service's URL, as the challenges name it.
    pub realm: String,
    state: Arc<FrontState>,
}

/// The `service` the challenges name.
pub const SERVICE: &str = "tfsum-test-registry";

impl BearerFront {
    /// Fronts `backend` (which should run without TLS and auth, with relative URLs).
    pub fn start(backend: &Registry, policy: TokenPolicy) -> BearerFront {
        let state = Arc::new(FrontState {
            policy,
            backend: backend.base_url(),
            realm: Mutex::new(String::new()),
            tokens: Mutex::new(HashMap::new()),
            issued: AtomicUsize::new(0),
            seen: Mutex::new(Vec::new()),
            token_requests: Mutex::new(Vec::new()),
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("front's client"),
        });
        let token_port = serve_tls(
            Router::new()
                .route("/token", axum::routing::get(token_get).post(token_post))
                .with_state(state.clone()),
        );
        let realm = format!("https://127.0.0.1:{token_port}/token");
        *state.realm.lock().unwrap() = realm.clone();
        let front_port = serve_tls(Router::new().fallback(front).with_state(state.clone()));
        BearerFront {
            host: format!("127.0.0.1:{front_port}"),
            realm,
            state,
        }
    }

    /// Every request the front saw, in order.
    pub fn requests(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }

    /// Every token request, in order.
    pub fn token_requests(&self) -> Vec<TokenRequest> {
        self.state.token_requests.lock().unwrap().clone()
    }
}

/// Serves `app` over HTTPS on a loopback port of its own, on a thread of its own.
fn serve_tls(app: Router) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("local addr").port();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let tcp = tokio::net::TcpListener::from_std(listener).expect("listener");
            let _ = axum::serve(TlsListener::new(tcp), app).await;
        });
    });
    port
}

/// `repository:<name>:<a,b>` → (name, actions).
fn parse_scope(scope: &str) -> Option<(String, BTreeSet<String>)> {
    let rest = scope.strip_prefix("repository:")?;
    let (name, actions) = rest.rsplit_once(':')?;
    Some((
        name.to_string(),
        actions
            .split(',')
            .filter(|a| !a.is_empty())
            .map(str::to_string)
            .collect(),
    ))
}

fn issue(state: &FrontState, scopes: &[String], pull_only: bool) -> String {
    let mut grant = Grant::new();
    for (name, actions) in scopes.iter().filter_map(|s| parse_scope(s)) {
        let actions = actions.into_iter().filter(|a| !pull_only || a == "pull");
        grant.entry(name).or_default().extend(actions);
    }
    let token = format!("issued-{}", state.issued.fetch_add(1, Ordering::SeqCst));
    state.tokens.lock().unwrap().insert(token.clone(), grant);
    token
}

fn json(status: StatusCode, value: serde_json::Value) -> Response {
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}

/// The distribution token endpoint: Basic credentials, or anonymous.
async fn token_get(State(state): State<Arc<FrontState>>, request: Request) -> Response {
    let pairs = query_pairs(request.uri().query());
    let service = pairs
        .iter()
        .find(|(k, _)| k == "service")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let scopes: Vec<String> = pairs
        .iter()
        .filter(|(k, _)| k == "scope")
        .map(|(_, v)| v.clone())
        .collect();
    let basic = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .map(|b| String::from_utf8_lossy(&b).to_string());
    let (grant, allowed, pull_only) = match &basic {
        Some(pair) => (
            "basic",
            *pair == format!("{}:{}", state.policy.user, state.policy.password),
            false,
        ),
        None => ("anonymous", state.policy.anonymous_pull, true),
    };
    state.token_requests.lock().unwrap().push(TokenRequest {
        grant: grant.to_string(),
        service,
        scopes: scopes.clone(),
        client_id: None,
        issued: allowed,
    });
    if !allowed {
        return json(
            StatusCode::UNAUTHORIZED,
            serde_json::json!({"errors": [{"code": "UNAUTHORIZED", "message": "bad credentials"}]}),
        );
    }
    let token = issue(&state, &scopes, pull_only);
    json(
        StatusCode::OK,
        serde_json::json!({"token": token, "expires_in": 300}),
    )
}

/// The OAuth2 endpoint: the refresh-token grant only.
async fn token_post(State(state): State<Arc<FrontState>>, body: axum::body::Bytes) -> Response {
    let pairs: BTreeMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let get = |k: &str| pairs.get(k).cloned().unwrap_or_default();
    let scopes: Vec<String> = get("scope")
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let allowed = get("grant_type") == "refresh_token"
        && get("refresh_token") == state.policy.refresh_token
        && !get("client_id").is_empty();
    state.token_requests.lock().unwrap().push(TokenRequest {
        grant: "refresh".to_string(),
        service: get("service"),
        scopes: scopes.clone(),
        client_id: pairs.get("client_id").cloned(),
        issued: allowed,
    });
    if !allowed {
        return json(
            StatusCode::BAD_REQUEST,
            serde_json::json!({"error": "invalid_grant"}),
        );
    }
    let token = issue(&state, &scopes, false);
    json(StatusCode::OK, serde_json::json!({"access_token": token}))
}

/// The repository and the actions a registry request needs.
fn needs(method: &str, path: &str) -> Option<(String, &'static [&'static str])> {
    let rest = path.strip_prefix("/v2/")?;
    let end = ["/tags/", "/manifests/", "/blobs/"]
        .iter()
        .filter_map(|marker| rest.rfind(marker))
        .min()?;
    let actions: &'static [&'static str] = match method {
        "GET" | "HEAD" => &["pull"],
        _ => &["pull", "push"],
    };
    Some((rest[..end].to_string(), actions))
}

/// The registry front: checks the bearer token, then forwards to the backend.
async fn front(State(state): State<Arc<FrontState>>, request: Request) -> Response {
    let method = request.method().as_str().to_string();
    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let headers = request.headers().clone();
    let authorization = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = axum::body::to_bytes(request.into_body(), 256 << 20)
        .await
        .unwrap_or_default();
    let response = answer(
        &state,
        &method,
        &path,
        &headers,
        authorization.as_deref(),
        body,
    )
    .await;
    state.seen.lock().unwrap().push(Seen {
        method,
        path,
        authorization: authorization.and_then(|a| a.split(' ').next().map(str::to_string)),
        status: response.status().as_u16(),
    });
    response
}

async fn answer(
    state: &FrontState,
    method: &str,
    path: &str,
    headers: &HeaderMap,
    authorization: Option<&str>,
    body: axum::body::Bytes,
) -> Response {
    let realm = state.realm.lock().unwrap().clone();
    let grant = authorization
        .and_then(|a| a.strip_prefix("Bearer "))
        .and_then(|token| {
            if token == state.policy.access_token {
                return Some(None);
            }
            state.tokens.lock().unwrap().get(token).cloned().map(Some)
        });
    let bare_path = path.split('?').next().unwrap_or_default();
    let (challenge, allowed) = match needs(method, bare_path) {
        Some((repository, actions)) => {
            let allowed = match &grant {
                Some(None) => true,
                Some(Some(grant)) => grant
                    .get(&repository)
                    .is_some_and(|have| actions.iter().all(|a| have.contains(*a))),
                None => false,
            };
            let scope = format!("repository:{repository}:{}", actions.join(","));
            (
                format!(r#"Bearer realm="{realm}",service="{SERVICE}",scope="{scope}""#),
                allowed,
            )
        }
        // `/v2/` and anything else: any valid token will do.
        None => (
            format!(r#"Bearer realm="{realm}",service="{SERVICE}""#),
            grant.is_some(),
        ),
    };
    if !allowed {
        let mut response = json(
            StatusCode::UNAUTHORIZED,
            serde_json::json!({"errors": [{"code": "UNAUTHORIZED", "message": "authentication required"}]}),
        );
        response.headers_mut().insert(
            axum::http::header::WWW_AUTHENTICATE,
            HeaderValue::from_str(&challenge).expect("challenge header"),
        );
        return response;
    }
    forward(state, method, path, headers, body).await
}

async fn forward(
    state: &FrontState,
    method: &str,
    path: &str,
    headers: &HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
    let mut request = state
        .client
        .request(method, format!("{}{path}", state.backend));
    for (name, value) in headers {
        let skip = ["host", "authorization", "content-length", "connection"];
        if !skip.contains(&name.as_str()) {
            request = request.header(name.as_str(), value.as_bytes());
        }
    }
    let Ok(upstream) = request.body(body).send().await else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    let status = StatusCode::from_u16(upstream.status().as_u16()).expect("status");
    let mut response_headers = HeaderMap::new();
    for (name, value) in upstream.headers() {
        if !["connection", "transfer-encoding"].contains(&name.as_str()) {
            response_headers.append(
                axum::http::HeaderName::from_bytes(name.as_str().as_bytes()).expect("header name"),
                HeaderValue::from_bytes(value.as_bytes()).expect("header value"),
            );
        }
    }
    let bytes = upstream.bytes().await.unwrap_or_default();
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    *response.headers_mut() = response_headers;
    response
}
