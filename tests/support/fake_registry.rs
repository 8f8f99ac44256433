//! An in-process provider registry that speaks the real `providers.v1` protocol (spec §5)
//! over loopback HTTP, for integration tests, conformance runs against real Terraform and
//! the benchmark.
//!
//! [`FakeRegistry::builder`] declares providers, versions and platforms; [`RegistryBuilder::start`]
//! builds every package zip, each release's `SHA256SUMS` (zips plus `manifest.json`, as
//! real releases list) and its binary detached signature made with the test key
//! (`testdata/keys/`), then serves them from a background thread with its own tokio runtime,
//! so blocking code (`std::process::Command`) and async code can both use it.
//!
//! Endpoints:
//!
//! - `GET /.well-known/terraform.json` — service discovery (§5.1)
//! - `GET /v1/providers/:ns/:type/versions` — version list (§5.2)
//! - `GET /v1/providers/:ns/:type/:version/download/:os/:arch` — package metadata (§5.3)
//! - `GET /files/:ns/:type/:version/:filename` — zips, `SHA256SUMS`, `.sig`, `manifest.json`
//! - `GET /mirror/:host/:ns/:type/index.json`, `…/:version.json` and `…/:zip` — the same
//!   packages as a network mirror (§6) for any `:host`, laid out as `terraform providers
//!   mirror` writes them (relative archive URLs, an `h1:` per archive)
//!
//! Switches for other protocol shapes: [`RegistryHandle::set_packages_map`] adds OpenTofu's
//! `packages` map (§10) to the download JSON; [`RegistryBuilder::tls`] serves https with
//! the test CA in `testdata/registry/tls/` (Terraform requires https for `-net-mirror`);
//! [`UrlStyle::OtherHost`] points downloads at `localhost:PORT`, another host as far as
//! credentials go.
//!
//! Real Terraform discovers services only over https, so tests reach the fake through the
//! CLI configuration `host` block that [`RegistryHandle::write_cli_config`] writes (§8).
//!
//! Everything observable or switchable at runtime lives on [`RegistryHandle`]: the recorded
//! requests (and how many were being answered at once, [`RegistryHandle::max_in_flight`]),
//! a provider's `warnings`, and faults (status codes, 429 + `Retry-After`, dropped connections, delays, a
//! bandwidth limit, corrupt zips, bad signatures, a `shasum` that disagrees with
//! `SHA256SUMS`, missing platforms, a required token). [`FakeRegistry`] derefs to it, and
//! [`RegistryHandle`] is a cheap clone that can move to another thread.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::IntoFuture as _;
use std::net::SocketAddr;
use std::ops::Deref;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::dirhash;
use super::go_zip::{self, ZipEntry, ZipStyle};
use super::signing;

/// Platforms of a version when the builder is not told otherwise.
pub const DEFAULT_PLATFORMS: &[&str] = &["linux_amd64"];
/// Plugin protocols of a version when the builder is not told otherwise.
pub const DEFAULT_PROTOCOLS: &[&str] = &["5.0"];

/// The content of one file inside a package zip.
#[derive(Clone, Debug)]
pub enum Content {
    /// A short text naming the provider, version and platform, so that every platform's
    /// package (and so its `h1:`) differs.
    Platform,
    /// The same bytes on every platform (a LICENSE, say).
    Bytes(Vec<u8>),
    /// `len` bytes from a deterministic generator seeded by provider, version, platform and
    /// file name; about as compressible as a real binary. For benchmarks.
    Generated(usize),
}

#[derive(Clone, Debug)]
struct FileSpec {
    /// `None` means the conventional binary name, `terraform-provider-TYPE_vVERSION_x5`.
    name: Option<String>,
    content: Content,
}

#[derive(Clone, Debug)]
struct VersionSpec {
    version: String,
    platforms: Vec<String>,
    protocols: Vec<String>,
    files: Vec<FileSpec>,
    zip_style: ZipStyle,
    /// Bytes served as every platform's zip instead of a built one.
    raw_zip: Option<Vec<u8>>,
}

#[derive(Clone, Debug)]
struct ProviderSpec {
    namespace: String,
    type_: String,
    versions: Vec<VersionSpec>,
}

/// How the download JSON spells `download_url`, `shasums_url` and `shasums_signature_url`.
/// Terraform resolves all three against the JSON document's URL (§5.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UrlStyle {
    /// `http://127.0.0.1:PORT/files/…`, like registry.terraform.io (which points elsewhere).
    #[default]
    Absolute,
    /// `/files/…`
    RootRelative,
    /// `../../../../../../../files/…`, relative to `…/download/:os/:arch`.
    PathRelative,
    /// `http://localhost:PORT/files/…`: the same server under another hostname, so
    /// downloads go to a host no credentials are configured for.
    OtherHost,
}

/// Declares the registry's content, then starts it.
///
/// The builder works like a cursor: [`provider`](Self::provider) selects (or adds) a
/// provider, [`version`](Self::version) adds a version to it, and the per-version settings
/// that follow ([`platforms`](Self::platforms), [`protocols`](Self::protocols),
/// [`file`](Self::file), …) apply to that latest version.
///
/// ```ignore
/// let registry = FakeRegistry::builder()
///     .provider("hashicorp", "null")
///     .version("3.2.1").platforms(&["linux_amd64", "darwin_arm64"])
///     .version("3.2.0")
///     .provider("hashicorp", "random")
///     .version("3.6.0").binary().file("LICENSE", "MPL-2.0\n")
///     .start();
/// ```
#[derive(Debug, Default)]
pub struct RegistryBuilder {
    providers: Vec<ProviderSpec>,
    url_style: UrlStyle,
    tls: bool,
}

impl RegistryBuilder {
    /// Selects the provider `namespace/type_`, adding it when new.
    pub fn provider(mut self, namespace: &str, type_: &str) -> Self {
        let existing = self
            .providers
            .iter()
            .position(|p| p.namespace == namespace && p.type_ == type_);
        match existing {
            Some(index) => {
                let provider = self.providers.remove(index);
                self.providers.push(provider);
            }
            None => self.providers.push(ProviderSpec {
                namespace: namespace.to_owned(),
                type_: type_.to_owned(),
                versions: Vec::new(),
            }),
        }
        self
    }

    /// Adds `version` to the current provider, with [`DEFAULT_PLATFORMS`],
    /// [`DEFAULT_PROTOCOLS`] and one binary of [`Content::Platform`] until told otherwise.
    pub fn version(mut self, version: &str) -> Self {
        let provider = self
            .providers
            .last_mut()
            .expect("FakeRegistry builder: call provider() before version()");
        provider.versions.push(VersionSpec {
            version: version.to_owned(),
            platforms: DEFAULT_PLATFORMS.iter().map(|s| s.to_string()).collect(),
            protocols: DEFAULT_PROTOCOLS.iter().map(|s| s.to_string()).collect(),
            files: Vec::new(),
            zip_style: ZipStyle::default(),
            raw_zip: None,
        });
        self
    }

    /// The platforms (`os_arch`) the current version is published for.
    pub fn platforms(mut self, platforms: &[&str]) -> Self {
        self.current_version().platforms = platforms.iter().map(|s| s.to_string()).collect();
        self
    }

    /// The plugin protocol versions the current version declares (`["5.0"]` by default).
    pub fn protocols(mut self, protocols: &[&str]) -> Self {
        self.current_version().protocols = protocols.iter().map(|s| s.to_string()).collect();
        self
    }

    /// Adds the conventional binary, `terraform-provider-TYPE_vVERSION_x5`, with
    /// [`Content::Platform`]. Only needed when adding other files too.
    pub fn binary(self) -> Self {
        self.push_file(None, Content::Platform)
    }

    /// Adds the conventional binary with `len` generated bytes ([`Content::Generated`]).
    pub fn payload(self, len: usize) -> Self {
        self.push_file(None, Content::Generated(len))
    }

    /// Adds a file with the same content on every platform.
    pub fn file(self, name: &str, content: impl Into<Vec<u8>>) -> Self {
        self.push_file(Some(name.to_owned()), Content::Bytes(content.into()))
    }

    /// The zip layout of the current version's packages.
    pub fn zip_style(mut self, style: ZipStyle) -> Self {
        self.current_version().zip_style = style;
        self
    }

    /// Serves `zip` as the package of every platform of the current version, verbatim:
    /// for malformed archives the zip writer cannot produce. SHA256SUMS, `shasum` and the
    /// signature cover these bytes, so only tfsum's own zip checks can object.
    /// ([`RegistryHandle::expected_h1`] does not apply to such a version.)
    pub fn raw_zip(mut self, zip: impl Into<Vec<u8>>) -> Self {
        self.current_version().raw_zip = Some(zip.into());
        self
    }

    /// Registry-wide: how the download JSON spells its URLs (changeable later with
    /// [`RegistryHandle::set_url_style`]).
    pub fn url_style(mut self, style: UrlStyle) -> Self {
        self.url_style = style;
        self
    }

    /// Serve https with `testdata/registry/tls/server.pem` (valid for `127.0.0.1` and
    /// `localhost`), signed by the test CA ([`test_ca_path`]).
    pub fn tls(mut self) -> Self {
        self.tls = true;
        self
    }

    fn current_version(&mut self) -> &mut VersionSpec {
        self.providers
            .last_mut()
            .and_then(|p| p.versions.last_mut())
            .expect("FakeRegistry builder: call provider() and version() first")
    }

    fn push_file(mut self, name: Option<String>, content: Content) -> Self {
        self.current_version()
            .files
            .push(FileSpec { name, content });
        self
    }

    /// Builds and signs every package and starts serving on `127.0.0.1:0`.
    pub fn start(self) -> FakeRegistry {
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("fake registry: bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("fake registry: set_nonblocking");
        let addr = listener.local_addr().expect("fake registry: local_addr");

        let releases = build_releases(&self.providers);

        let shared = Arc::new(Shared {
            addr,
            tls: self.tls,
            releases,
            state: Mutex::new(Mutable {
                url_style: self.url_style,
                discovery: json!({ "providers.v1": "/v1/providers/" }),
                ..Mutable::default()
            }),
            arrivals: Mutex::default(),
        });

        let (shutdown, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
        let server_state = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("fake-registry-{}", addr.port()))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("fake registry: tokio runtime");
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener)
                        .expect("fake registry: tokio listener");
                    let tls = server_state.tls;
                    let app = Router::new().fallback(serve).with_state(server_state);
                    if tls {
                        let listener = super::tls_listener::TlsListener::new(listener);
                        tokio::select! {
                            result = axum::serve(listener, app).into_future() => {
                                result.expect("fake registry: server failed");
                            }
                            _ = shutdown_rx => {}
                        }
                    } else {
                        tokio::select! {
                            result = axum::serve(listener, app).into_future() => {
                                result.expect("fake registry: server failed");
                            }
                            _ = shutdown_rx => {}
                        }
                    }
                });
            })
            .expect("fake registry: spawn server thread");

        FakeRegistry {
            handle: RegistryHandle { shared },
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }
}

/// A running fake registry. Stops when dropped. Derefs to [`RegistryHandle`].
pub struct FakeRegistry {
    handle: RegistryHandle,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl FakeRegistry {
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// A clonable, `Send` handle for switching faults or reading counts from elsewhere.
    pub fn handle(&self) -> RegistryHandle {
        self.handle.clone()
    }
}

impl Deref for FakeRegistry {
    type Target = RegistryHandle;

    fn deref(&self) -> &RegistryHandle {
        &self.handle
    }
}

impl Drop for FakeRegistry {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            // The server may already be gone after a panic; nothing to do then.
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One request as the fake saw it, before any fault applied.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Header names are lowercase; values that are not UTF-8 are replaced lossily.
    pub headers: Vec<(String, String)>,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A fault applied to every request whose path ends with a given suffix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Respond with this status and a small JSON error body.
    Status(u16),
    /// Respond `429 Too Many Requests` with `Retry-After: <secs>`.
    TooManyRequests { retry_after_secs: u64 },
    /// Send the headers with the full `Content-Length`, then close the connection after
    /// this many body bytes.
    DropAfter(usize),
    /// Wait this long before responding.
    Delay(Duration),
    /// Hold each request until `parties` requests for the same path have arrived (or
    /// `timeout` passed): proof that that many clients asked at the same time.
    Rendezvous { parties: usize, timeout: Duration },
}

#[derive(Clone, Debug)]
struct FaultRule {
    suffix: String,
    fault: Fault,
    /// `None`: every matching request; `Some(n)`: only the next `n`.
    remaining: Option<usize>,
}

/// The built content of one (namespace, type, version).
#[derive(Debug)]
struct Release {
    namespace: String,
    type_: String,
    version: String,
    protocols: Vec<String>,
    files: Vec<FileSpec>,
    packages: BTreeMap<String, Package>,
    shasums: Bytes,
    signature: Bytes,
    manifest: Bytes,
}

#[derive(Debug)]
struct Package {
    filename: String,
    zip: Bytes,
    sha256: String,
}

#[derive(Debug)]
struct Shared {
    addr: SocketAddr,
    tls: bool,
    releases: BTreeMap<String, Release>,
    state: Mutex<Mutable>,
    /// Requests so far per path, for [`Fault::Rendezvous`].
    arrivals: Mutex<HashMap<String, tokio::sync::watch::Sender<usize>>>,
}

#[derive(Debug, Default)]
struct Mutable {
    requests: Vec<RecordedRequest>,
    rules: Vec<FaultRule>,
    bandwidth: Option<u64>,
    corrupt_zips: HashSet<String>,
    shasum_mismatches: HashSet<String>,
    removed_platforms: HashSet<String>,
    bad_signatures: HashSet<String>,
    token: Option<String>,
    url_style: UrlStyle,
    discovery: Value,
    packages_map: bool,
    /// Leave `signing_keys.gpg_public_keys` empty, as OpenTofu's registry does for some
    /// providers.
    no_signing_keys: bool,
    /// `h1:` values the `packages` map claims instead of the true ones, by package key.
    forged_map_h1: HashMap<String, String>,
    /// The `warnings` of a provider's version list, by `ns/type`.
    warnings: HashMap<String, Vec<String>>,
    /// When each request arrived and when its answer was ready (or the request was
    /// dropped), since the last reset.
    answered: Vec<(String, std::time::Instant, std::time::Instant)>,
}

/// Shared access to a running fake registry: addresses, expectations, recorded requests
/// and fault switches.
#[derive(Clone, Debug)]
pub struct RegistryHandle {
    shared: Arc<Shared>,
}

impl RegistryHandle {
    // ---- addresses --------------------------------------------------------------------

    /// `http://127.0.0.1:PORT` (`https://` with [`RegistryBuilder::tls`])
    pub fn base_url(&self) -> String {
        self.shared.base_url()
    }

    /// `http://127.0.0.1:PORT/mirror/`, the base URL of the network mirror the fake
    /// also is (`https://` with [`RegistryBuilder::tls`]).
    pub fn mirror_url(&self) -> String {
        format!("{}/mirror/", self.base_url())
    }

    /// `127.0.0.1:PORT`, the registry host as it appears in provider source addresses.
    pub fn host(&self) -> String {
        self.shared.addr.to_string()
    }

    /// `http://127.0.0.1:PORT/v1/providers/`, the `providers.v1` service URL.
    pub fn providers_url(&self) -> String {
        format!("{}/v1/providers/", self.base_url())
    }

    /// `127.0.0.1:PORT/NAMESPACE/TYPE`, for `source` attributes.
    pub fn source(&self, namespace: &str, type_: &str) -> String {
        format!("{}/{namespace}/{type_}", self.host())
    }

    /// A Terraform CLI configuration whose `host` block points `providers.v1` of this
    /// registry's host at it (§8).
    pub fn cli_config(&self) -> String {
        format!(
            "host \"{host}\" {{\n  services = {{\n    \"providers.v1\" = \"{url}\"\n  }}\n}}\n",
            host = self.host(),
            url = self.providers_url(),
        )
    }

    /// [`cli_config`](Self::cli_config) plus a `credentials` block with `token`.
    pub fn cli_config_with_token(&self, token: &str) -> String {
        format!(
            "{}\ncredentials \"{}\" {{\n  token = \"{token}\"\n}}\n",
            self.cli_config(),
            self.host()
        )
    }

    /// Writes [`cli_config`](Self::cli_config) to `path` (for `TF_CLI_CONFIG_FILE`).
    pub fn write_cli_config(&self, path: &Path) {
        std::fs::write(path, self.cli_config())
            .unwrap_or_else(|e| panic!("writing CLI config {}: {e}", path.display()));
    }

    /// Writes [`cli_config_with_token`](Self::cli_config_with_token) to `path`.
    pub fn write_cli_config_with_token(&self, path: &Path, token: &str) {
        std::fs::write(path, self.cli_config_with_token(token))
            .unwrap_or_else(|e| panic!("writing CLI config {}: {e}", path.display()));
    }

    // ---- what the registry serves (for expectations) ------------------------------------

    /// The package zip as built (before [`corrupt_zip`](Self::corrupt_zip)).
    pub fn zip(&self, namespace: &str, type_: &str, version: &str, platform: &str) -> Bytes {
        self.package(namespace, type_, version, platform)
            .zip
            .clone()
    }

    /// `terraform-provider-TYPE_VERSION_OS_ARCH.zip`
    pub fn zip_filename(
        &self,
        namespace: &str,
        type_: &str,
        version: &str,
        platform: &str,
    ) -> String {
        self.package(namespace, type_, version, platform)
            .filename
            .clone()
    }

    /// The files inside a package zip, (name, content), in zip order.
    pub fn package_files(
        &self,
        namespace: &str,
        type_: &str,
        version: &str,
        platform: &str,
    ) -> Vec<(String, Vec<u8>)> {
        let release = self.release(namespace, type_, version);
        assert!(
            release.packages.contains_key(platform),
            "fake registry has no package {namespace}/{type_} {version} {platform}"
        );
        package_files(release, platform)
    }

    /// The `h1:` Terraform records for a package, computed from its files by the
    /// independent [`dirhash`] implementation.
    pub fn expected_h1(
        &self,
        namespace: &str,
        type_: &str,
        version: &str,
        platform: &str,
    ) -> String {
        dirhash::h1(&self.package_files(namespace, type_, version, platform))
    }

    /// The release's SHA256SUMS document.
    pub fn shasums(&self, namespace: &str, type_: &str, version: &str) -> String {
        let release = self.release(namespace, type_, version);
        String::from_utf8(release.shasums.to_vec()).expect("SHA256SUMS is ASCII")
    }

    /// One `zh:` per SHA256SUMS line, in file order (zips and `manifest.json`).
    pub fn expected_zh(&self, namespace: &str, type_: &str, version: &str) -> Vec<String> {
        self.shasums(namespace, type_, version)
            .lines()
            .map(|line| format!("zh:{}", &line[..64]))
            .collect()
    }

    /// The binary detached signature of SHA256SUMS, as built (before
    /// [`bad_signature`](Self::bad_signature)).
    pub fn signature(&self, namespace: &str, type_: &str, version: &str) -> Bytes {
        self.release(namespace, type_, version).signature.clone()
    }

    // ---- observation ------------------------------------------------------------------

    /// Every request received since the start or the last [`reset_counts`](Self::reset_counts).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state().requests.clone()
    }

    /// How many requests had a path ending with `path_suffix`.
    pub fn count(&self, path_suffix: &str) -> usize {
        self.state()
            .requests
            .iter()
            .filter(|r| r.path.ends_with(path_suffix))
            .count()
    }

    /// Forgets the recorded requests.
    pub fn reset_counts(&self) {
        let mut state = self.state();
        state.requests.clear();
        state.answered.clear();
    }

    /// The most requests whose path ends with `path_suffix` that were being answered at
    /// the same moment: from arrival (before any injected delay) until the response
    /// started. What a client's concurrency limits bound, seen from the server.
    pub fn max_in_flight(&self, path_suffix: &str) -> usize {
        let mut events: Vec<(std::time::Instant, i32)> = Vec::new();
        for (path, start, end) in &self.state().answered {
            if path.ends_with(path_suffix) {
                events.push((*start, 1));
                events.push((*end, -1));
            }
        }
        // At the same instant an end comes before a start: touching is not overlapping.
        events.sort();
        let (mut now, mut max) = (0i32, 0i32);
        for (_, step) in events {
            now += step;
            max = max.max(now);
        }
        usize::try_from(max).unwrap_or(0)
    }

    // ---- faults -----------------------------------------------------------------------

    /// Applies `fault` to every request whose path ends with `path_suffix`.
    pub fn inject(&self, path_suffix: &str, fault: Fault) {
        self.push_rule(path_suffix, fault, None);
    }

    /// Applies `fault` to the next `times` requests whose path ends with `path_suffix`.
    pub fn inject_times(&self, path_suffix: &str, fault: Fault, times: usize) {
        self.push_rule(path_suffix, fault, Some(times));
    }

    /// Removes every injected [`Fault`] and every content fault below; keeps the token
    /// requirement, bandwidth limit and URL style.
    pub fn clear_faults(&self) {
        let mut state = self.state();
        state.rules.clear();
        state.corrupt_zips.clear();
        state.shasum_mismatches.clear();
        state.removed_platforms.clear();
        state.bad_signatures.clear();
    }

    /// Limits each response body to `bytes_per_sec` (`None`: unlimited). Every connection
    /// carries one response at a time, so this is a per-connection limit.
    pub fn set_bandwidth(&self, bytes_per_sec: Option<u64>) {
        assert!(bytes_per_sec != Some(0), "bandwidth must be positive");
        self.state().bandwidth = bytes_per_sec;
    }

    /// Serves the zip with one byte flipped (after SHA256SUMS and `shasum` were computed).
    pub fn corrupt_zip(&self, namespace: &str, type_: &str, version: &str, platform: &str) {
        self.package(namespace, type_, version, platform);
        let key = package_key(namespace, type_, version, platform);
        self.state().corrupt_zips.insert(key);
    }

    /// Serves a signature that does not verify (one byte of the RSA value flipped).
    pub fn bad_signature(&self, namespace: &str, type_: &str, version: &str) {
        self.release(namespace, type_, version);
        let key = release_key(namespace, type_, version);
        self.state().bad_signatures.insert(key);
    }

    /// Makes the download JSON's `shasum` disagree with SHA256SUMS (and with the zip).
    pub fn shasum_mismatch(&self, namespace: &str, type_: &str, version: &str, platform: &str) {
        self.package(namespace, type_, version, platform);
        let key = package_key(namespace, type_, version, platform);
        self.state().shasum_mismatches.insert(key);
    }

    /// Withdraws a platform: its download JSON answers 404 and the version list omits it.
    /// SHA256SUMS still lists its zip, as it would for a package pulled after release.
    pub fn remove_platform(&self, namespace: &str, type_: &str, version: &str, platform: &str) {
        self.package(namespace, type_, version, platform);
        let key = package_key(namespace, type_, version, platform);
        self.state().removed_platforms.insert(key);
    }

    /// Requires `Authorization: Bearer <token>` on `/v1/` endpoints (401 otherwise);
    /// `None` lifts the requirement. Files and discovery never require it.
    pub fn require_token(&self, token: Option<&str>) {
        self.state().token = token.map(str::to_owned);
    }

    pub fn set_url_style(&self, style: UrlStyle) {
        self.state().url_style = style;
    }

    /// Adds OpenTofu's `packages` map (every platform's `h1:`, `zh:` and size) to the
    /// download JSON (§10), or stops sending it.
    pub fn set_packages_map(&self, on: bool) {
        self.state().packages_map = on;
    }

    /// Makes the `packages` map claim `h1` for one platform's package: a registry that
    /// lies about a package tfsum would not download.
    pub fn forge_packages_map_h1(
        &self,
        namespace: &str,
        type_: &str,
        version: &str,
        platform: &str,
        h1: &str,
    ) {
        let key = package_key(namespace, type_, version, platform);
        self.state().forged_map_h1.insert(key, h1.to_string());
    }

    /// Sends download documents without any signing key (§10), or with the test key.
    pub fn set_no_signing_keys(&self, on: bool) {
        self.state().no_signing_keys = on;
    }

    /// Adds `message` to the `warnings` of the provider's version list (a registry's
    /// deprecation notice, say).
    pub fn warn(&self, namespace: &str, type_: &str, message: &str) {
        self.state()
            .warnings
            .entry(format!("{namespace}/{type_}"))
            .or_default()
            .push(message.to_string());
    }

    // ---- internals --------------------------------------------------------------------

    fn state(&self) -> MutexGuard<'_, Mutable> {
        self.shared.state()
    }

    fn push_rule(&self, suffix: &str, fault: Fault, remaining: Option<usize>) {
        self.state().rules.push(FaultRule {
            suffix: suffix.to_owned(),
            fault,
            remaining,
        });
    }

    fn release(&self, namespace: &str, type_: &str, version: &str) -> &Release {
        self.shared
            .releases
            .get(&release_key(namespace, type_, version))
            .unwrap_or_else(|| panic!("fake registry has no release {namespace}/{type_} {version}"))
    }

    fn package(&self, namespace: &str, type_: &str, version: &str, platform: &str) -> &Package {
        self.release(namespace, type_, version)
            .packages
            .get(platform)
            .unwrap_or_else(|| {
                panic!("fake registry has no package {namespace}/{type_} {version} {platform}")
            })
    }
}

// ---- building releases ----------------------------------------------------------------

fn release_key(namespace: &str, type_: &str, version: &str) -> String {
    format!("{namespace}/{type_}/{version}")
}

/// A release's packages that are currently served (not removed by
/// [`RegistryHandle::remove_platform`]), each with the `h1:` it unpacks to.
fn published<'r>(
    state: &'r Mutable,
    release: &'r Release,
) -> impl Iterator<Item = (&'r String, &'r Package, String)> + 'r {
    release
        .packages
        .iter()
        .filter(move |(p, _)| {
            !state.removed_platforms.contains(&package_key(
                &release.namespace,
                &release.type_,
                &release.version,
                p,
            ))
        })
        .map(move |(p, pkg)| (p, pkg, dirhash::h1(&package_files(release, p))))
}

fn package_key(namespace: &str, type_: &str, version: &str, platform: &str) -> String {
    format!("{namespace}/{type_}/{version}/{platform}")
}

/// Builds every release, spreading them over the available cores: the benchmark's
/// multi-megabyte packages take seconds each to generate and deflate.
fn build_releases(providers: &[ProviderSpec]) -> BTreeMap<String, Release> {
    let work: Vec<(&ProviderSpec, &VersionSpec)> = providers
        .iter()
        .flat_map(|p| p.versions.iter().map(move |v| (p, v)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(work.len().max(1));
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut built = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((provider, version)) = work.get(index) else {
                            return built;
                        };
                        let key =
                            release_key(&provider.namespace, &provider.type_, &version.version);
                        built.push((index, key, build_release(provider, version)));
                    }
                })
            })
            .collect();
        let mut built: Vec<_> = workers
            .into_iter()
            // Re-raise a builder's panic as is, so its message (a bad platform…) reaches the test.
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            })
            .collect();
        // In declaration order, so a version declared twice keeps its last declaration.
        built.sort_by_key(|(index, _, _)| *index);
        built
            .into_iter()
            .map(|(_, key, release)| (key, release))
            .collect()
    })
}

fn build_release(provider: &ProviderSpec, version: &VersionSpec) -> Release {
    let (ty, ver) = (&provider.type_, &version.version);
    let mut release = Release {
        namespace: provider.namespace.clone(),
        type_: ty.clone(),
        version: ver.clone(),
        protocols: version.protocols.clone(),
        files: if version.files.is_empty() {
            vec![FileSpec {
                name: None,
                content: Content::Platform,
            }]
        } else {
            version.files.clone()
        },
        packages: BTreeMap::new(),
        shasums: Bytes::new(),
        signature: Bytes::new(),
        manifest: Bytes::new(),
    };

    for platform in &version.platforms {
        assert!(
            platform.split('_').count() == 2,
            "platform {platform:?} is not os_arch"
        );
        let files = package_files(&release, platform);
        let entries: Vec<ZipEntry<'_>> = files
            .iter()
            .map(|(name, content)| ZipEntry {
                name,
                content,
                executable: name.starts_with("terraform-provider-"),
            })
            .collect();
        let zip = match &version.raw_zip {
            Some(raw) => raw.clone(),
            None => go_zip::write_zip(&entries, version.zip_style),
        };
        let package = Package {
            filename: format!("terraform-provider-{ty}_{ver}_{platform}.zip"),
            sha256: hex::encode(Sha256::digest(&zip)),
            zip: Bytes::from(zip),
        };
        release.packages.insert(platform.clone(), package);
    }

    // The shape of HashiCorp's release manifests; only its hash matters to lock files.
    let protocols: Vec<&str> = version.protocols.iter().map(String::as_str).collect();
    let manifest = format!(
        "{{\n  \"version\": 1,\n  \"metadata\": {{\n    \"protocol_versions\": {}\n  }}\n}}\n",
        serde_json::to_string(&protocols).expect("strings serialize")
    );
    let manifest_name = format!("terraform-provider-{ty}_{ver}_manifest.json");

    // `shasum -a 256` style, sorted by file name like goreleaser's checksum file.
    let mut lines: Vec<(String, String)> = release
        .packages
        .values()
        .map(|p| (p.filename.clone(), p.sha256.clone()))
        .collect();
    lines.push((
        manifest_name,
        hex::encode(Sha256::digest(manifest.as_bytes())),
    ));
    lines.sort();
    let shasums: String = lines
        .iter()
        .map(|(name, sha)| format!("{sha}  {name}\n"))
        .collect();

    release.signature = Bytes::from(signing::sign_detached(shasums.as_bytes()));
    release.shasums = Bytes::from(shasums);
    release.manifest = Bytes::from(manifest);
    release
}

fn binary_name(type_: &str, version: &str) -> String {
    format!("terraform-provider-{type_}_v{version}_x5")
}

fn package_files(release: &Release, platform: &str) -> Vec<(String, Vec<u8>)> {
    let (ty, ver) = (&release.type_, &release.version);
    release
        .files
        .iter()
        .map(|file| {
            let name = file.name.clone().unwrap_or_else(|| binary_name(ty, ver));
            let content = match &file.content {
                Content::Platform => format!(
                    "fake provider {}/{ty} v{ver} for {platform} (tfsum tests)\n",
                    release.namespace
                )
                .into_bytes(),
                Content::Bytes(bytes) => bytes.clone(),
                Content::Generated(len) => generated(
                    &format!("{}/{ty}/{ver}/{platform}/{name}", release.namespace),
                    *len,
                ),
            };
            (name, content)
        })
        .collect()
}

/// `len` deterministic bytes: xorshift64* seeded from an FNV-1a hash of `seed`, keeping four
/// random bits per byte so deflate shrinks it to roughly half, like a real binary.
fn generated(seed: &str, len: usize) -> Vec<u8> {
    let mut state = seed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    }) | 1;
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let word = state.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes();
        let take = (len - out.len()).min(word.len());
        out.extend(word[..take].iter().map(|b| 0x40 | (b & 0x0f)));
    }
    out
}

// ---- serving ----------------------------------------------------------------------------

impl Shared {
    fn base_url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    fn state(&self) -> MutexGuard<'_, Mutable> {
        // A panicking test thread must not hide the registry from the others.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What the fault rules decided for one request.
#[derive(Default)]
struct Admission {
    delay: Option<Duration>,
    rendezvous: Option<(usize, Duration)>,
    early: Option<Response>,
    drop_after: Option<usize>,
    bandwidth: Option<u64>,
}

impl Shared {
    /// Waits until `parties` requests for `path` have arrived in all, or `timeout`.
    async fn rendezvous(&self, path: &str, parties: usize, timeout: Duration) {
        let mut arrived = {
            let mut all = self
                .arrivals
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let sender = all
                .entry(path.to_owned())
                .or_insert_with(|| tokio::sync::watch::channel(0).0);
            sender.send_modify(|n| *n += 1);
            sender.subscribe()
        };
        let _ = tokio::time::timeout(timeout, arrived.wait_for(|n| *n >= parties)).await;
    }

    /// Records the request and consumes the fault rules that match it.
    fn admit(&self, method: &str, path: &str, headers: &HeaderMap) -> Admission {
        let mut state = self.state();
        state.requests.push(RecordedRequest {
            method: method.to_owned(),
            path: path.to_owned(),
            headers: headers
                .iter()
                .map(|(name, value)| {
                    (
                        name.as_str().to_owned(),
                        String::from_utf8_lossy(value.as_bytes()).into_owned(),
                    )
                })
                .collect(),
        });

        let mut admission = Admission {
            bandwidth: state.bandwidth,
            ..Admission::default()
        };
        for rule in state.rules.iter_mut() {
            if !path.ends_with(&rule.suffix) || rule.remaining == Some(0) {
                continue;
            }
            if let Some(n) = rule.remaining.as_mut() {
                *n -= 1;
            }
            match &rule.fault {
                Fault::Delay(d) => admission.delay = Some(admission.delay.unwrap_or_default() + *d),
                Fault::DropAfter(n) => admission.drop_after = Some(*n),
                Fault::Rendezvous { parties, timeout } => {
                    admission.rendezvous = Some((*parties, *timeout))
                }
                Fault::Status(status) if admission.early.is_none() => {
                    let status = StatusCode::from_u16(*status).expect("valid HTTP status");
                    admission.early = Some(error_response(status, "fault injected"));
                }
                Fault::TooManyRequests { retry_after_secs } if admission.early.is_none() => {
                    let mut response =
                        error_response(StatusCode::TOO_MANY_REQUESTS, "fault injected: slow down");
                    response.headers_mut().insert(
                        header::RETRY_AFTER,
                        retry_after_secs.to_string().parse().expect("digits"),
                    );
                    admission.early = Some(response);
                }
                Fault::Status(_) | Fault::TooManyRequests { .. } => {}
            }
        }
        admission
    }

    fn route(&self, path: &str, headers: &HeaderMap) -> Reply {
        if path == "/.well-known/terraform.json" {
            return Reply::json(StatusCode::OK, &self.state().discovery);
        }
        if let Some(rest) = path.strip_prefix("/v1/providers/") {
            if let Some(reply) = self.check_token(headers) {
                return reply;
            }
            let segments: Vec<&str> = rest.split('/').collect();
            return match segments.as_slice() {
                [ns, ty, "versions"] => self.versions(ns, ty),
                [ns, ty, ver, "download", os, arch] => self.download(ns, ty, ver, os, arch),
                _ => Reply::not_found(),
            };
        }
        if let Some(rest) = path.strip_prefix("/mirror/") {
            let segments: Vec<&str> = rest.split('/').collect();
            if let [_host, ns, ty, leaf] = segments.as_slice() {
                if leaf.ends_with(".json") {
                    if let Some(reply) = self.check_token(headers) {
                        return reply;
                    }
                }
                return self.mirror(ns, ty, leaf);
            }
            return Reply::not_found();
        }
        if let Some(rest) = path.strip_prefix("/files/") {
            if let [ns, ty, ver, filename] = rest.split('/').collect::<Vec<_>>().as_slice() {
                return self.file(ns, ty, ver, filename);
            }
        }
        Reply::not_found()
    }

    fn check_token(&self, headers: &HeaderMap) -> Option<Reply> {
        let state = self.state();
        let token = state.token.as_ref()?;
        let expected = format!("Bearer {token}");
        let given = headers.get(header::AUTHORIZATION).map(|v| v.as_bytes());
        (given != Some(expected.as_bytes())).then(|| {
            Reply::json(
                StatusCode::UNAUTHORIZED,
                &json!({ "errors": ["Unauthorized"] }),
            )
        })
    }

    fn versions(&self, ns: &str, ty: &str) -> Reply {
        let state = self.state();
        let versions: Vec<Value> = self
            .releases
            .values()
            .filter(|r| r.namespace == ns && r.type_ == ty)
            .map(|r| {
                let platforms: Vec<Value> = r
                    .packages
                    .keys()
                    .filter(|p| {
                        !state
                            .removed_platforms
                            .contains(&package_key(ns, ty, &r.version, p))
                    })
                    .map(|p| {
                        let (os, arch) = p.split_once('_').expect("checked at build");
                        json!({ "os": os, "arch": arch })
                    })
                    .collect();
                json!({ "version": r.version, "protocols": r.protocols, "platforms": platforms })
            })
            .collect();
        if versions.is_empty() {
            return Reply::not_found();
        }
        let warnings = state.warnings.get(&format!("{ns}/{ty}"));
        Reply::json(
            StatusCode::OK,
            &json!({ "id": format!("{ns}/{ty}"), "versions": versions, "warnings": warnings }),
        )
    }

    fn download(&self, ns: &str, ty: &str, ver: &str, os: &str, arch: &str) -> Reply {
        let platform = format!("{os}_{arch}");
        let key = package_key(ns, ty, ver, &platform);
        let Some(release) = self.releases.get(&release_key(ns, ty, ver)) else {
            return Reply::not_found();
        };
        let Some(package) = release.packages.get(&platform) else {
            return Reply::not_found();
        };
        let state = self.state();
        if state.removed_platforms.contains(&key) {
            return Reply::not_found();
        }
        let url = |file: &str| match state.url_style {
            UrlStyle::Absolute => format!("{}/files/{ns}/{ty}/{ver}/{file}", self.base_url()),
            UrlStyle::OtherHost => format!(
                "{}://localhost:{}/files/{ns}/{ty}/{ver}/{file}",
                if self.tls { "https" } else { "http" },
                self.addr.port()
            ),
            UrlStyle::RootRelative => format!("/files/{ns}/{ty}/{ver}/{file}"),
            UrlStyle::PathRelative => format!("../../../../../../../files/{ns}/{ty}/{ver}/{file}"),
        };
        let shasums_name = format!("terraform-provider-{ty}_{ver}_SHA256SUMS");
        let mut shasum = package.sha256.clone();
        if state.shasum_mismatches.contains(&key) {
            let first = if shasum.starts_with('0') { "1" } else { "0" };
            shasum.replace_range(0..1, first);
        }
        let mut document = json!({
                "protocols": release.protocols,
                "os": os,
                "arch": arch,
                "filename": package.filename,
                "download_url": url(&package.filename),
                "shasums_url": url(&shasums_name),
                "shasums_signature_url": url(&format!("{shasums_name}.sig")),
                "shasum": shasum,
                "signing_keys": {
                    "gpg_public_keys": [{
                        "key_id": signing::KEY_ID,
                        "ascii_armor": signing::PUBLIC_KEY_ARMOR,
                        "trust_signature": "",
                        "source": "tfsum tests",
                        "source_url": "https://tfsum.invalid/test-signing-key",
                    }]
                }
        });
        if state.no_signing_keys {
            document["signing_keys"] = json!({ "gpg_public_keys": [] });
        }
        if state.packages_map {
            let packages: serde_json::Map<String, Value> = published(&state, release)
                .map(|(p, pkg, h1)| {
                    let key = package_key(&release.namespace, &release.type_, &release.version, p);
                    let h1 = state.forged_map_h1.get(&key).cloned().unwrap_or(h1);
                    let entry = json!({
                        "hashes": [h1, format!("zh:{}", pkg.sha256)],
                        "package_size": pkg.zip.len(),
                    });
                    (p.clone(), entry)
                })
                .collect();
            document["packages"] = Value::Object(packages);
        }
        Reply::json(StatusCode::OK, &document)
    }

    /// The network mirror view (§6) of the releases, for any hostname.
    fn mirror(&self, ns: &str, ty: &str, leaf: &str) -> Reply {
        let state = self.state();
        let releases: Vec<&Release> = self
            .releases
            .values()
            .filter(|r| r.namespace == ns && r.type_ == ty)
            .collect();
        if leaf == "index.json" {
            if releases.is_empty() {
                return Reply::not_found();
            }
            let versions: serde_json::Map<String, Value> = releases
                .iter()
                .map(|r| (r.version.clone(), json!({})))
                .collect();
            return Reply::json(StatusCode::OK, &json!({ "versions": versions }));
        }
        if let Some(ver) = leaf.strip_suffix(".json") {
            let Some(release) = releases.iter().find(|r| r.version == ver) else {
                return Reply::not_found();
            };
            let archives: serde_json::Map<String, Value> = published(&state, release)
                .map(|(p, pkg, h1)| (p.clone(), json!({ "url": pkg.filename, "hashes": [h1] })))
                .collect();
            return Reply::json(StatusCode::OK, &json!({ "archives": archives }));
        }
        for release in releases {
            for (platform, package) in &release.packages {
                if package.filename == leaf {
                    let mut zip = package.zip.clone();
                    let key = package_key(ns, ty, &release.version, platform);
                    if state.corrupt_zips.contains(&key) {
                        zip = flip_byte(&zip, zip.len() / 2);
                    }
                    return Reply::bytes("application/zip", zip);
                }
            }
        }
        Reply::not_found()
    }

    fn file(&self, ns: &str, ty: &str, ver: &str, filename: &str) -> Reply {
        let Some(release) = self.releases.get(&release_key(ns, ty, ver)) else {
            return Reply::not_found();
        };
        let prefix = format!("terraform-provider-{ty}_{ver}_");
        let state = self.state();
        match filename.strip_prefix(&prefix) {
            Some("SHA256SUMS") => {
                Reply::bytes("text/plain; charset=utf-8", release.shasums.clone())
            }
            Some("SHA256SUMS.sig") => {
                let mut signature = release.signature.clone();
                if state.bad_signatures.contains(&release_key(ns, ty, ver)) {
                    signature = flip_byte(&signature, signature.len() - 1);
                }
                Reply::bytes("application/octet-stream", signature)
            }
            Some("manifest.json") => Reply::bytes("application/json", release.manifest.clone()),
            _ => {
                let found = release
                    .packages
                    .iter()
                    .find(|(_, p)| p.filename == filename);
                let Some((platform, package)) = found else {
                    return Reply::not_found();
                };
                let mut zip = package.zip.clone();
                if state
                    .corrupt_zips
                    .contains(&package_key(ns, ty, ver, platform))
                {
                    zip = flip_byte(&zip, zip.len() / 2);
                }
                Reply::bytes("application/zip", zip)
            }
        }
    }
}

fn flip_byte(bytes: &Bytes, index: usize) -> Bytes {
    let mut copy = bytes.to_vec();
    copy[index] ^= 0xff;
    Bytes::from(copy)
}

/// A complete response body, before faults shape how it is sent.
struct Reply {
    status: StatusCode,
    content_type: &'static str,
    body: Bytes,
}

impl Reply {
    fn json(status: StatusCode, value: &Value) -> Self {
        Reply {
            status,
            content_type: "application/json",
            body: Bytes::from(serde_json::to_vec(value).expect("JSON serializes")),
        }
    }

    fn bytes(content_type: &'static str, body: Bytes) -> Self {
        Reply {
            status: StatusCode::OK,
            content_type,
            body,
        }
    }

    fn not_found() -> Self {
        Reply::json(StatusCode::NOT_FOUND, &json!({ "errors": ["Not Found"] }))
    }
}

fn error_response(status: StatusCode, message: &str) -> Response {
    let reply = Reply::json(status, &json!({ "errors": [message] }));
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() = reply.status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(reply.content_type),
    );
    response
}

/// Records a request's time in flight when it is answered or dropped.
struct InFlight {
    shared: Arc<Shared>,
    path: String,
    since: std::time::Instant,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let interval = (
            std::mem::take(&mut self.path),
            self.since,
            std::time::Instant::now(),
        );
        self.shared.state().answered.push(interval);
    }
}

async fn serve(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let method = request.method().as_str().to_owned();
    let _in_flight = InFlight {
        shared: Arc::clone(&shared),
        path: path.clone(),
        since: std::time::Instant::now(),
    };
    let admission = shared.admit(&method, &path, request.headers());
    if let Some(delay) = admission.delay {
        tokio::time::sleep(delay).await;
    }
    if let Some((parties, timeout)) = admission.rendezvous {
        shared.rendezvous(&path, parties, timeout).await;
    }
    if let Some(response) = admission.early {
        return response;
    }
    let reply = shared.route(&path, request.headers());
    let len = reply.body.len();
    let body = if admission.drop_after.is_some() || admission.bandwidth.is_some() {
        shaped_body(reply.body, admission.drop_after, admission.bandwidth)
    } else {
        Body::from(reply.body)
    };
    let mut response = Response::new(body);
    *response.status_mut() = reply.status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(reply.content_type),
    );
    // Explicit even for streamed bodies, so a dropped connection is a short read.
    headers.insert(header::CONTENT_LENGTH, header::HeaderValue::from(len));
    response
}

/// Streams `body` in chunks, pacing them to `bandwidth` bytes/s, and fails the stream
/// (which makes hyper close the connection) once `drop_after` bytes have gone out.
fn shaped_body(body: Bytes, drop_after: Option<usize>, bandwidth: Option<u64>) -> Body {
    const MAX_CHUNK: usize = 64 * 1024;
    let limit = drop_after.map_or(body.len(), |n| n.min(body.len()));
    let truncate = limit < body.len();
    let chunk = bandwidth.map_or(MAX_CHUNK, |bps| {
        usize::try_from(bps / 20)
            .unwrap_or(MAX_CHUNK)
            .clamp(1, MAX_CHUNK)
    });
    let start = tokio::time::Instant::now();
    let stream = futures::stream::unfold((0usize, false), move |(sent, done)| {
        let body = body.clone();
        async move {
            if done {
                return None;
            }
            if sent >= limit {
                if truncate {
                    // Let hyper flush what was sent so far; it drops buffered bytes when the
                    // body fails while it still holds them.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let error = std::io::Error::new(
                        std::io::ErrorKind::ConnectionAborted,
                        "fake registry: connection dropped by fault",
                    );
                    return Some((Err(error), (sent, true)));
                }
                return None;
            }
            if let Some(bps) = bandwidth {
                let due = start + Duration::from_secs_f64(sent as f64 / bps as f64);
                tokio::time::sleep_until(due).await;
            }
            let end = (sent + chunk).min(limit);
            Some((Ok(body.slice(sent..end)), (end, false)))
        }
    });
    Body::from_stream(stream)
}

/// The test CA that signed the fake's TLS certificate, for `SSL_CERT_FILE`.
pub fn test_ca_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/registry/tls/ca.pem")
}
