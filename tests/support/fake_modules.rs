//! An in-process module registry speaking `modules.v1` over loopback HTTP, plus a plain
//! file server for archives and `X-Terraform-Get` pages, for tfsum's module tests and for
//! real Terraform (docs/spec/modules.md §2).
//!
//! Endpoints:
//!
//! - `GET /.well-known/terraform.json` — `{"modules.v1": "/v1/modules/"}`
//! - `GET /v1/modules/:ns/:name/:system/versions` — the version list
//! - `GET /v1/modules/:ns/:name/:system/:version/download` — 204 with `X-Terraform-Get`,
//!   spelled as the version's [`Location`] says (relative, absolute, or any address)
//! - `GET /archives/:ns/:name/:system/:version.(tar.gz|zip)` — the built package
//! - any path registered with [`ModuleRegistryHandle::serve`] — fixed bytes and headers
//!
//! Every request is recorded (path and headers) for counting. The server runs on its own
//! thread and runtime, so blocking tests and Terraform runs can use it.

use std::collections::BTreeMap;
use std::future::IntoFuture as _;
use std::io::Write as _;
use std::net::SocketAddr;
use std::ops::Deref;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::Response;
use axum::Router;
use serde_json::json;

/// Replaced in package files by the registry's own host when it starts.
pub const SELF_PLACEHOLDER: &str = "{{MODULES}}";

/// How a package is packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    TarGz,
    Zip,
    /// A `.tar.gz` whose files sit in one top-level directory (as GitHub tarballs do),
    /// reached with the `//*` glob in the location.
    TarGzTopDir,
}

/// How the download endpoint spells `X-Terraform-Get`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// `/archives/…` (resolved against the request URL).
    RootRelative,
    /// `./…`-style, relative to `…/:version/download`.
    PathRelative,
    /// `http://127.0.0.1:PORT/archives/…`.
    Absolute,
    /// Exactly this go-getter address (a git URL, say).
    Given(String),
}

#[derive(Clone, Debug)]
struct VersionSpec {
    version: String,
    files: Vec<(String, Vec<u8>)>,
    symlinks: Vec<(String, String)>,
    packing: Packing,
    location: Location,
    raw_archive: Option<Vec<u8>>,
}

#[derive(Clone, Debug)]
struct ModuleSpec {
    namespace: String,
    name: String,
    system: String,
    versions: Vec<VersionSpec>,
}

/// Declares modules and versions, cursor-style like the provider fake's builder.
#[derive(Default, Debug)]
pub struct ModuleRegistryBuilder {
    modules: Vec<ModuleSpec>,
}

impl ModuleRegistryBuilder {
    pub fn module(mut self, namespace: &str, name: &str, system: &str) -> Self {
        self.modules.push(ModuleSpec {
            namespace: namespace.into(),
            name: name.into(),
            system: system.into(),
            versions: Vec::new(),
        });
        self
    }

    /// Adds a version (with a `main.tf` naming it) to the current module.
    pub fn version(mut self, version: &str) -> Self {
        let module = self.modules.last_mut().expect("module() before version()");
        let main = format!(
            "# {}/{}/{} {version}\n",
            module.namespace, module.name, module.system
        );
        module.versions.push(VersionSpec {
            version: version.into(),
            files: vec![("main.tf".into(), main.into_bytes())],
            symlinks: Vec::new(),
            packing: Packing::TarGz,
            location: Location::RootRelative,
            raw_archive: None,
        });
        self
    }

    fn current(&mut self) -> &mut VersionSpec {
        self.modules
            .last_mut()
            .and_then(|m| m.versions.last_mut())
            .expect("version() first")
    }

    /// A file of the current version (replaces one of the same name).
    pub fn file(mut self, path: &str, content: &str) -> Self {
        let files = &mut self.current().files;
        files.retain(|(p, _)| p != path);
        files.push((path.into(), content.as_bytes().to_vec()));
        self
    }

    /// Replaces the current version's files with those under `dir` (relative paths),
    /// each `(placeholder, value)` replaced in their content.
    pub fn files_from(mut self, dir: &Path, replacements: &[(&str, String)]) -> Self {
        let mut files = Vec::new();
        for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let entry = entry.unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
            if !entry.file_type().is_file() {
                continue;
            }
            let mut text = std::fs::read_to_string(entry.path())
                .unwrap_or_else(|e| panic!("reading {}: {e}", entry.path().display()));
            for (placeholder, value) in replacements {
                text = text.replace(placeholder, value);
            }
            let relative = entry.path().strip_prefix(dir).expect("below dir");
            files.push((
                relative.to_string_lossy().replace('\\', "/"),
                text.into_bytes(),
            ));
        }
        self.current().files = files;
        self
    }

    /// A symlink entry in the current version's archive.
    pub fn symlink(mut self, path: &str, target: &str) -> Self {
        self.current().symlinks.push((path.into(), target.into()));
        self
    }

    pub fn packing(mut self, packing: Packing) -> Self {
        self.current().packing = packing;
        self
    }

    pub fn location(mut self, location: Location) -> Self {
        self.current().location = location;
        self
    }

    /// Serve these bytes as the current version's archive instead of a built one.
    pub fn raw_archive(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.current().raw_archive = Some(bytes.into());
        self
    }

    /// Binds `127.0.0.1:0`, replaces [`SELF_PLACEHOLDER`] in every package file with
    /// the registry's own `127.0.0.1:PORT` (modules calling modules of the same
    /// registry), builds the archives and starts serving.
    pub fn start(mut self) -> FakeModuleRegistry {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("fake modules: bind");
        listener
            .set_nonblocking(true)
            .expect("fake modules: nonblocking");
        let addr = listener.local_addr().expect("fake modules: local_addr");
        let own = addr.to_string();
        for module in &mut self.modules {
            for version in &mut module.versions {
                for (_, content) in &mut version.files {
                    let text = String::from_utf8_lossy(content).replace(SELF_PLACEHOLDER, &own);
                    *content = text.into_bytes();
                }
            }
        }
        let mut files = BTreeMap::new();
        for module in &self.modules {
            for version in &module.versions {
                let path = archive_path(module, version);
                let bytes = match &version.raw_archive {
                    Some(raw) => raw.clone(),
                    None => build_archive(version),
                };
                files.insert(path, Served::bytes(bytes));
            }
        }
        let shared = Arc::new(Shared {
            addr,
            modules: self.modules,
            state: Mutex::new(Mutable {
                files,
                ..Mutable::default()
            }),
        });
        let (shutdown, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
        let server = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("fake-modules-{}", addr.port()))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("fake modules: runtime");
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener)
                        .expect("fake modules: listener");
                    let app = Router::new().fallback(serve).with_state(server);
                    tokio::select! {
                        result = axum::serve(listener, app).into_future() => {
                            result.expect("fake modules: server failed");
                        }
                        _ = shutdown_rx => {}
                    }
                });
            })
            .expect("fake modules: spawn");
        FakeModuleRegistry {
            handle: ModuleRegistryHandle { shared },
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }
}

/// The hostile fan-out of issue 34: module `acme/fan/aws` at versions `1.0.0` …
/// `1.0.{n-1}`, each the same one-line package (built once: building thousands is slow
/// in a test build).
pub fn fan_out_registry(n: usize) -> FakeModuleRegistry {
    let package = build_archive(&VersionSpec {
        version: String::new(),
        files: vec![("main.tf".into(), b"# acme/fan/aws\n".to_vec())],
        symlinks: Vec::new(),
        packing: Packing::TarGz,
        location: Location::RootRelative,
        raw_archive: None,
    });
    let mut builder = FakeModuleRegistry::builder().module("acme", "fan", "aws");
    for i in 0..n {
        builder = builder
            .version(&format!("1.0.{i}"))
            .raw_archive(package.clone());
    }
    builder.start()
}

/// A root module calling `acme/fan/aws` of `registry` `n` times, call `i` at exactly
/// version `1.0.{i}`.
pub fn fan_out_root(registry: &ModuleRegistryHandle, n: usize) -> String {
    let source = registry.source("acme", "fan", "aws");
    (0..n)
        .map(|i| {
            format!("module \"m{i}\" {{\n  source  = \"{source}\"\n  version = \"1.0.{i}\"\n}}\n")
        })
        .collect()
}

fn archive_path(module: &ModuleSpec, version: &VersionSpec) -> String {
    let ext = match version.packing {
        Packing::Zip => "zip",
        Packing::TarGz | Packing::TarGzTopDir => "tar.gz",
    };
    format!(
        "/archives/{}/{}/{}/{}.{ext}",
        module.namespace, module.name, module.system, version.version
    )
}

/// A `.tar.gz` or `.zip` of the version's files (and symlinks).
fn build_archive(version: &VersionSpec) -> Vec<u8> {
    let prefix = if version.packing == Packing::TarGzTopDir {
        "acme-module-0123abc/"
    } else {
        ""
    };
    match version.packing {
        Packing::Zip => {
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            let options = zip::write::SimpleFileOptions::default();
            for (path, content) in &version.files {
                zip.start_file(format!("{prefix}{path}"), options)
                    .expect("zip entry");
                zip.write_all(content).expect("zip write");
            }
            for (path, target) in &version.symlinks {
                zip.add_symlink(format!("{prefix}{path}"), target, options)
                    .expect("zip symlink");
            }
            zip.finish().expect("zip finish").into_inner()
        }
        Packing::TarGz | Packing::TarGzTopDir => {
            let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            let mut tar = tar::Builder::new(gz);
            for (path, content) in &version.files {
                let mut header = tar::Header::new_gnu();
                header.set_size(content.len() as u64);
                header.set_mode(0o644);
                header.set_cksum();
                tar.append_data(&mut header, format!("{prefix}{path}"), content.as_slice())
                    .expect("tar entry");
            }
            for (path, target) in &version.symlinks {
                let mut header = tar::Header::new_gnu();
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_size(0);
                header.set_mode(0o777);
                // Raw names, so that hostile targets reach the reader unchanged.
                let full = format!("{prefix}{path}");
                header.as_old_mut().name[..full.len()].copy_from_slice(full.as_bytes());
                header.as_old_mut().linkname[..target.len()].copy_from_slice(target.as_bytes());
                header.set_cksum();
                tar.append(&header, std::io::empty()).expect("tar symlink");
            }
            tar.into_inner()
                .expect("tar finish")
                .finish()
                .expect("gzip finish")
        }
    }
}

/// A running fake module registry; stops when dropped.
pub struct FakeModuleRegistry {
    handle: ModuleRegistryHandle,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FakeModuleRegistry {
    pub fn builder() -> ModuleRegistryBuilder {
        ModuleRegistryBuilder::default()
    }

    pub fn handle(&self) -> ModuleRegistryHandle {
        self.handle.clone()
    }
}

impl Deref for FakeModuleRegistry {
    type Target = ModuleRegistryHandle;

    fn deref(&self) -> &ModuleRegistryHandle {
        &self.handle
    }
}

impl Drop for FakeModuleRegistry {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One recorded request.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
    pub terraform_version: Option<String>,
}

#[derive(Clone, Debug)]
struct Served {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Served {
    fn bytes(body: Vec<u8>) -> Served {
        Served {
            status: 200,
            headers: Vec::new(),
            body,
        }
    }
}

#[derive(Debug, Default)]
struct Mutable {
    seen: Vec<Seen>,
    files: BTreeMap<String, Served>,
    required_token: Option<String>,
}

#[derive(Debug)]
struct Shared {
    addr: SocketAddr,
    modules: Vec<ModuleSpec>,
    state: Mutex<Mutable>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, Mutable> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Addresses, recorded requests and switches of a running fake.
#[derive(Clone, Debug)]
pub struct ModuleRegistryHandle {
    shared: Arc<Shared>,
}

impl ModuleRegistryHandle {
    /// `127.0.0.1:PORT`, the registry host in module source addresses.
    pub fn host(&self) -> String {
        self.shared.addr.to_string()
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.shared.addr)
    }

    /// `127.0.0.1:PORT/ns/name/system`, for `source` attributes.
    pub fn source(&self, namespace: &str, name: &str, system: &str) -> String {
        format!("{}/{namespace}/{name}/{system}", self.host())
    }

    pub fn modules_url(&self) -> String {
        format!("{}/v1/modules/", self.base_url())
    }

    /// A CLI configuration `host` block pointing this host's `modules.v1` at the fake.
    pub fn cli_config(&self) -> String {
        format!(
            "host \"{}\" {{\n  services = {{\n    \"modules.v1\" = \"{}\"\n  }}\n}}\n",
            self.host(),
            self.modules_url()
        )
    }

    /// Serves `body` at `path` with the given status and headers (for `X-Terraform-Get`
    /// pages and plain archives).
    pub fn serve(
        &self,
        path: &str,
        status: u16,
        headers: &[(&str, &str)],
        body: impl Into<Vec<u8>>,
    ) {
        self.shared.state().files.insert(
            path.to_string(),
            Served {
                status,
                headers: headers
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                body: body.into(),
            },
        );
    }

    /// The bytes served at `path` (an archive, say).
    pub fn served(&self, path: &str) -> Vec<u8> {
        self.shared
            .state()
            .files
            .get(path)
            .unwrap_or_else(|| panic!("fake modules serves nothing at {path}"))
            .body
            .clone()
    }

    /// Registry endpoints answer 401 unless this bearer token comes with the request.
    pub fn require_token(&self, token: Option<&str>) {
        self.shared.state().required_token = token.map(str::to_string);
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.shared.state().seen.clone()
    }

    /// Requests whose path ends with `suffix`.
    pub fn count(&self, suffix: &str) -> usize {
        self.requests()
            .iter()
            .filter(|s| s.path.ends_with(suffix))
            .count()
    }

    /// Requests for any archive (`/archives/…`) or served file.
    pub fn downloads(&self) -> usize {
        self.requests()
            .iter()
            .filter(|s| !s.path.starts_with("/v1/") && !s.path.starts_with("/.well-known/"))
            .count()
    }

    pub fn reset_counts(&self) {
        self.shared.state().seen.clear();
    }

    /// Writes [`cli_config`](Self::cli_config) plus `extra` to `path`.
    pub fn write_cli_config(&self, path: &Path, extra: &str) {
        std::fs::write(path, format!("{}{extra}", self.cli_config()))
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }
}

fn respond(status: u16, headers: &[(String, String)], body: Vec<u8>) -> Response {
    let mut builder = Response::builder().status(status);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    builder.body(Body::from(body)).unwrap_or_else(|_| {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        r
    })
}

async fn serve(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let authorization = header("authorization");
    {
        let mut state = shared.state();
        state.seen.push(Seen {
            path: path.clone(),
            authorization: authorization.clone(),
            terraform_version: header("x-terraform-version"),
        });
        if path.starts_with("/v1/") {
            if let Some(token) = &state.required_token {
                if authorization.as_deref() != Some(&format!("Bearer {token}")) {
                    return respond(401, &[], Vec::new());
                }
            }
        }
        if let Some(served) = state.files.get(&path) {
            return respond(served.status, &served.headers, served.body.clone());
        }
    }
    let json = |value: serde_json::Value| {
        respond(
            200,
            &[(
                header::CONTENT_TYPE.to_string(),
                "application/json".to_string(),
            )],
            value.to_string().into_bytes(),
        )
    };
    if path == "/.well-known/terraform.json" {
        return json(json!({ "modules.v1": "/v1/modules/" }));
    }
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let find = |ns: &str, name: &str, system: &str| {
        shared.modules.iter().find(|m| {
            m.namespace.eq_ignore_ascii_case(ns)
                && m.name.eq_ignore_ascii_case(name)
                && m.system.eq_ignore_ascii_case(system)
        })
    };
    match parts[..] {
        ["v1", "modules", ns, name, system, "versions"] => match find(ns, name, system) {
            Some(module) => json(json!({
                "modules": [{
                    "source": format!("{ns}/{name}/{system}"),
                    "versions": module.versions.iter().map(|v| json!({"version": v.version})).collect::<Vec<_>>(),
                }]
            })),
            None => respond(404, &[], Vec::new()),
        },
        ["v1", "modules", ns, name, system, version, "download"] => {
            let Some(module) = find(ns, name, system) else {
                return respond(404, &[], Vec::new());
            };
            let Some(spec) = module.versions.iter().find(|v| v.version == version) else {
                return respond(404, &[], Vec::new());
            };
            let archive = archive_path(module, spec);
            let glob = if spec.packing == Packing::TarGzTopDir {
                "//*"
            } else {
                ""
            };
            let location = match &spec.location {
                Location::RootRelative => format!("{archive}{glob}"),
                Location::PathRelative => {
                    let file = archive.rsplit('/').next().unwrap_or_default();
                    format!(
                        "../../../../../../archives/{}/{}/{}/{file}{glob}",
                        module.namespace, module.name, module.system
                    )
                }
                Location::Absolute => format!("http://{}{archive}{glob}", shared.addr),
                Location::Given(address) => address.clone(),
            };
            respond(
                204,
                &[("X-Terraform-Get".to_string(), location)],
                Vec::new(),
            )
        }
        _ => respond(404, &[], Vec::new()),
    }
}
