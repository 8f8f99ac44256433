//! Git repositories served over loopback smart HTTP by the real `git http-backend`
//! (shipped with git) as a CGI program, for module tests and for real Terraform.
//!
//! [`GitServer::start`] serves every bare repository under its root at
//! `http://127.0.0.1:PORT/<name>.git`. [`GitServer::repo`] makes one with a work tree
//! beside it; [`Repo::commit`] commits the work tree and pushes every branch and tag to
//! the served copy. Each request is recorded and classified (ref advertisement,
//! `ls-refs`, `fetch`), so tests can count how often a repository was fetched.
//!
//! Git runs hermetically here: no global or system configuration, a fixed author and
//! date, so commit ids are stable across runs.

use std::collections::BTreeMap;
use std::future::IntoFuture as _;
use std::io::Read as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::response::Response;
use axum::Router;
use tempfile::TempDir;
use tokio::io::AsyncWriteExt as _;

/// The environment that makes git hermetic, for the fixtures and for tfsum's own git.
pub fn hermetic_git_env() -> Vec<(String, String)> {
    vec![
        ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
        ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        ("GIT_AUTHOR_NAME".into(), "tfsum test".into()),
        ("GIT_AUTHOR_EMAIL".into(), "test@example.invalid".into()),
        ("GIT_COMMITTER_NAME".into(), "tfsum test".into()),
        ("GIT_COMMITTER_EMAIL".into(), "test@example.invalid".into()),
        ("GIT_AUTHOR_DATE".into(), "2021-07-28T00:00:00Z".into()),
        ("GIT_COMMITTER_DATE".into(), "2021-07-28T00:00:00Z".into()),
    ]
}

/// Runs `git ARGS` in `dir` hermetically; panics with its output on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(hermetic_git_env())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running git {args:?}: {e}"));
    assert!(
        output.status.success(),
        "git {args:?} in {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// What a smart-HTTP request asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GitRequest {
    /// `GET …/info/refs?service=git-upload-pack`
    Advertisement,
    /// protocol v2 `command=ls-refs` for every ref (what `ls-remote` asks)
    ListRefs,
    /// `command=ls-refs` with `ref-prefix` arguments (what `fetch <ref>` asks first)
    RefLookup,
    /// protocol v2 `command=fetch`, or any protocol v0 upload-pack POST
    Fetch,
    Other,
}

#[derive(Clone, Debug)]
pub struct SeenGit {
    /// The repository name (`vpc` for `/vpc.git/…`).
    pub repo: String,
    pub kind: GitRequest,
    /// The `Authorization` header, as sent.
    pub authorization: Option<String>,
}

/// A running smart-HTTP git server; stops when dropped.
pub struct GitServer {
    root: TempDir,
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<SeenGit>>>,
    failures: Arc<Mutex<Vec<u16>>>,
    credentials: Arc<Mutex<Option<String>>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

struct ServerState {
    root: PathBuf,
    seen: Arc<Mutex<Vec<SeenGit>>>,
    /// Requests left to answer with a status instead of serving them.
    failures: Arc<Mutex<Vec<u16>>>,
    /// The `Authorization` header every request must carry, when set.
    credentials: Arc<Mutex<Option<String>>>,
}

impl GitServer {
    pub fn start() -> GitServer {
        let root = TempDir::new().expect("git server root");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("git server: bind");
        listener
            .set_nonblocking(true)
            .expect("git server: nonblocking");
        let addr = listener.local_addr().expect("git server: addr");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let failures = Arc::new(Mutex::new(Vec::new()));
        let credentials = Arc::new(Mutex::new(None));
        let state = Arc::new(ServerState {
            root: root.path().join("served"),
            seen: Arc::clone(&seen),
            failures: Arc::clone(&failures),
            credentials: Arc::clone(&credentials),
        });
        std::fs::create_dir_all(&state.root).expect("git server: served dir");
        let (shutdown, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("git-http-{}", addr.port()))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("git server: runtime");
                runtime.block_on(async move {
                    let listener =
                        tokio::net::TcpListener::from_std(listener).expect("git server: listener");
                    let app = Router::new().fallback(cgi).with_state(state);
                    tokio::select! {
                        result = axum::serve(listener, app).into_future() => {
                            result.expect("git server failed");
                        }
                        _ = shutdown_rx => {}
                    }
                });
            })
            .expect("git server: spawn");
        GitServer {
            root,
            addr,
            seen,
            failures,
            credentials,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT/<name>.git`
    pub fn url(&self, name: &str) -> String {
        format!("http://{}/{name}.git", self.addr)
    }

    /// A new repository `name` (served bare, with a work tree for commits).
    pub fn repo(&self, name: &str) -> Repo {
        let work = self.root.path().join("work").join(name);
        let bare = self.root.path().join("served").join(format!("{name}.git"));
        std::fs::create_dir_all(&work).expect("work tree");
        git(&work, &["init", "-q", "-b", "main"]);
        let bare_path = bare.to_str().expect("utf-8 path");
        git(
            self.root.path(),
            &["init", "-q", "--bare", "-b", "main", bare_path],
        );
        // GitHub lets clients fetch any reachable commit by id; so does this server.
        git(
            &bare,
            &["config", "uploadpack.allowReachableSHA1InWant", "true"],
        );
        Repo { work, bare }
    }

    /// The handle of a repository made earlier by [`repo`](Self::repo).
    pub fn existing(&self, name: &str) -> Repo {
        Repo {
            work: self.root.path().join("work").join(name),
            bare: self.root.path().join("served").join(format!("{name}.git")),
        }
    }

    pub fn requests(&self) -> Vec<SeenGit> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Requests of `kind` for repository `name`.
    pub fn count(&self, name: &str, kind: GitRequest) -> usize {
        self.requests()
            .iter()
            .filter(|s| s.repo == name && s.kind == kind)
            .count()
    }

    /// The next `count` requests answer `status` (a flaky server).
    pub fn fail_next(&self, count: usize, status: u16) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        failures.extend(std::iter::repeat_n(status, count));
    }

    /// From now on every request must authenticate as `user` with `password` (HTTP
    /// Basic, as a private forge asks); others get 401 and a `Basic` challenge.
    pub fn require_basic(&self, user: &str, password: &str) {
        use base64::Engine as _;
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        *self.credentials.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(format!("Basic {encoded}"));
    }

    pub fn reset_counts(&self) {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

impl Drop for GitServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A repository: its work tree and its served bare copy.
pub struct Repo {
    pub work: PathBuf,
    pub bare: PathBuf,
}

impl Repo {
    pub fn write(&self, path: &str, content: &str) -> &Repo {
        let file = self.work.join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(file, content).expect("write");
        self
    }

    /// Commits everything and publishes branches and tags; returns the commit id.
    pub fn commit(&self, message: &str) -> String {
        git(&self.work, &["add", "-A"]);
        git(
            &self.work,
            &["commit", "-q", "--allow-empty", "-m", message],
        );
        self.publish();
        git(&self.work, &["rev-parse", "HEAD"])
    }

    /// A lightweight tag at `HEAD`.
    pub fn tag(&self, name: &str) -> &Repo {
        git(&self.work, &["tag", "-f", name]);
        self.publish();
        self
    }

    /// An annotated tag at `HEAD`.
    pub fn annotated_tag(&self, name: &str) -> &Repo {
        git(&self.work, &["tag", "-f", "-a", "-m", name, name]);
        self.publish();
        self
    }

    /// A branch at `HEAD` (the work tree stays where it is).
    pub fn branch(&self, name: &str) -> &Repo {
        git(&self.work, &["branch", "-f", name]);
        self.publish();
        self
    }

    pub fn checkout(&self, name: &str) -> &Repo {
        git(&self.work, &["checkout", "-q", name]);
        self
    }

    fn publish(&self) {
        let bare = self.bare.to_str().expect("utf-8 path");
        git(&self.work, &["push", "-q", "--force", "--mirror", bare]);
    }
}

/// Bridges one HTTP request to `git http-backend` (RFC 3875 CGI).
async fn cgi(State(state): State<Arc<ServerState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_string();
    let query = parts.uri.query().unwrap_or("").to_string();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let body = to_bytes(body, 64 << 20).await.unwrap_or_default();
    let repo = path
        .trim_start_matches('/')
        .split_once(".git")
        .map_or(String::new(), |(name, _)| name.to_string());
    let kind = classify(&path, &body, header("content-encoding").as_deref());
    let authorization = header("authorization");
    state
        .seen
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(SeenGit {
            repo,
            kind,
            authorization: authorization.clone(),
        });
    let required = state
        .credentials
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    if required.is_some_and(|r| authorization.as_deref() != Some(r.as_str())) {
        return Response::builder()
            .status(401)
            .header("WWW-Authenticate", "Basic realm=\"git\"")
            .body(Body::empty())
            .unwrap_or_default();
    }
    let failure = state
        .failures
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .pop();
    if let Some(code) = failure {
        return status(code);
    }

    let mut command = tokio::process::Command::new("git");
    command
        .arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(hermetic_git_env())
        .env("GIT_PROJECT_ROOT", &state.root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("PATH_INFO", &path)
        .env("QUERY_STRING", &query)
        .env("REQUEST_METHOD", parts.method.as_str())
        .env("REMOTE_ADDR", "127.0.0.1")
        .env("CONTENT_LENGTH", body.len().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(content_type) = header("content-type") {
        command.env("CONTENT_TYPE", content_type);
    }
    if let Some(encoding) = header("content-encoding") {
        command.env("HTTP_CONTENT_ENCODING", encoding);
    }
    if let Some(protocol) = header("git-protocol") {
        command.env("GIT_PROTOCOL", protocol);
    }
    let Ok(mut child) = command.spawn() else {
        return status(500);
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&body).await;
    }
    let Ok(output) = child.wait_with_output().await else {
        return status(500);
    };
    cgi_response(&output.stdout)
}

fn classify(path: &str, body: &[u8], encoding: Option<&str>) -> GitRequest {
    if path.ends_with("/info/refs") {
        return GitRequest::Advertisement;
    }
    if !path.ends_with("/git-upload-pack") {
        return GitRequest::Other;
    }
    let mut plain = body.to_vec();
    if encoding == Some("gzip") {
        let mut decoded = Vec::new();
        if flate2::read::GzDecoder::new(body)
            .read_to_end(&mut decoded)
            .is_ok()
        {
            plain = decoded;
        }
    }
    let contains = |needle: &[u8]| plain.windows(needle.len()).any(|w| w == needle);
    if contains(b"command=ls-refs") && contains(b"ref-prefix") {
        GitRequest::RefLookup
    } else if contains(b"command=ls-refs") {
        GitRequest::ListRefs
    } else {
        GitRequest::Fetch
    }
}

fn status(code: u16) -> Response {
    Response::builder()
        .status(code)
        .body(Body::empty())
        .unwrap_or_default()
}

/// A CGI response: header lines, a blank line, the body; `Status:` sets the status.
fn cgi_response(stdout: &[u8]) -> Response {
    let split = stdout
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| stdout.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let Some((end, sep)) = split else {
        return status(502);
    };
    let head = String::from_utf8_lossy(&stdout[..end]);
    let mut code = 200;
    let mut headers = BTreeMap::new();
    for line in head.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().to_string();
        if name.eq_ignore_ascii_case("status") {
            code = value
                .split(' ')
                .next()
                .and_then(|c| c.parse().ok())
                .unwrap_or(500);
        } else {
            headers.insert(name.to_string(), value);
        }
    }
    let mut builder = Response::builder().status(code);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    builder
        .body(Body::from(stdout[end + sep..].to_vec()))
        .unwrap_or_default()
}
