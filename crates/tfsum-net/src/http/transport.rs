//! HTTP for what tfsum fetches from registries, mirrors and remote module sources: one
//! connection pool per run, the TLS roots and proxies Terraform would use, timeouts,
//! body-size caps, the retry loop and a bound on concurrent requests per host. The
//! registry protocol (`crate::registry::client`), service discovery, network mirrors, package
//! downloads and module archives all go through [`Http`]; none of them build a request
//! of their own. The shared cache's object store (`crate::shared_store`) is the one
//! other client: `object_store` drives it with its own deadlines and retries, but it is
//! built from the same [`HttpConfig::client_builder`], so it has the same user agent,
//! trust roots, proxies and connect timeout.
//!
//! - **Trust** ([`Trust`]): the Mozilla roots built into tfsum, plus what a Go program
//!   such as Terraform trusts: `SSL_CERT_FILE` (else the operating system's store: the
//!   usual bundle files on Linux, the keychain on macOS, the system store on Windows)
//!   and every certificate file in the `SSL_CERT_DIR` directories (else the usual
//!   directories). That is where companies install the CA of a TLS-inspecting proxy.
//! - **Proxies** ([`Proxies`]): `HTTPS_PROXY`/`HTTP_PROXY` with `NO_PROXY`, matched the
//!   way Go's `httpproxy` package matches them (loopback is never proxied).
//! - **Concurrency**: at most `per_host` requests to one host are in flight at once
//!   (`--per-host`), whichever part of tfsum sends them; a streamed body keeps its
//!   permit until it has been read.
//!
//! The client is built on first use, so a run that needs no network (everything cached)
//! pays nothing for loading certificate stores.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, RETRY_AFTER};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use url::Url;

use super::error::{HttpError, Status, TransportKind, TriedCredential};
use crate::cliconfig::{CredentialSource, Token};
use crate::retry::{self, is_transient_status, RetryPolicy};
use tfsum_vocab::addr::Hostname;
use tfsum_vocab::url::SafeUrl;

/// The `X-Terraform-Version` tfsum sends to registry and mirror JSON endpoints.
///
/// Registries use the header for statistics only; the protocol tfsum speaks does not
/// depend on it. 1.5.7 is the last Terraform release under the MPL, and its lock files
/// and registry requests are the ones tfsum reproduces, so it is an honest stand-in.
pub(crate) const TERRAFORM_VERSION_HEADER: &str = "1.5.7";

/// How tfsum talks HTTP: plain values, resolved from flags and the environment by
/// `crate::commands::settings`.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub retry: RetryPolicy,
    /// Time to set up a TCP + TLS connection.
    pub connect_timeout: Duration,
    /// Whole-request limit for JSON documents, SHA256SUMS and signatures, body included
    /// (Terraform: 10 s, `TF_REGISTRY_CLIENT_TIMEOUT`), and the limit for a streaming
    /// download's response headers.
    pub request_timeout: Duration,
    /// A streaming download fails when no body bytes arrive for this long, so a stalled
    /// connection ends in a retryable error instead of a hang; also the window over
    /// which `min_download_rate` is measured.
    pub stream_idle_timeout: Duration,
    /// The longest one download (a provider zip, a module archive) may take, retries
    /// included (`crate::download`).
    pub download_deadline: Duration,
    /// Bytes per second a download must keep up over each `stream_idle_timeout` window,
    /// so a server sending a byte now and then cannot hold it open.
    pub min_download_rate: u64,
    /// Requests to one host in flight at once (`--per-host`).
    pub per_host: usize,
    pub user_agent: String,
    pub trust: Trust,
    pub proxies: Proxies,
}

impl Default for HttpConfig {
    fn default() -> HttpConfig {
        HttpConfig {
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            stream_idle_timeout: Duration::from_secs(30),
            download_deadline: Duration::from_secs(600),
            min_download_rate: 1024,
            per_host: 6,
            user_agent: concat!("tfsum/", env!("CARGO_PKG_VERSION")).to_string(),
            trust: Trust::default(),
            proxies: Proxies::default(),
        }
    }
}

impl HttpConfig {
    /// A client builder with the run's user agent, connect timeout, proxies and trust
    /// roots: every client tfsum builds starts here (the registry's, the shared cache's),
    /// so a request that works behind a company's proxy works for all of them.
    pub(crate) fn client_builder(&self) -> Result<reqwest::ClientBuilder, String> {
        let proxies = self.proxies.clone();
        let mut builder = reqwest::Client::builder()
            .user_agent(self.user_agent.clone())
            .connect_timeout(self.connect_timeout)
            // Proxies are ours to decide (Go's rules), not reqwest's reading of the
            // environment.
            .no_proxy()
            .proxy(reqwest::Proxy::custom(move |url| proxies.proxy_for(url)));
        for pem in self.trust.pem_bundles()? {
            // A bundle may hold many certificates; a file that holds none is skipped,
            // as Go skips non-certificate files in a certificate directory.
            let Ok(certs) = reqwest::Certificate::from_pem_bundle(&pem) else {
                continue;
            };
            for cert in certs {
                builder = builder.add_root_certificate(cert);
            }
        }
        Ok(builder)
    }
}

/// Which root certificates are trusted, besides the bundled Mozilla roots.
#[derive(Debug, Clone)]
pub struct Trust {
    /// `SSL_CERT_FILE`: a PEM bundle used instead of the system store.
    pub cert_file: Option<PathBuf>,
    /// `SSL_CERT_DIR` (colon-separated): directories whose certificate files are
    /// trusted, instead of the system's usual directories.
    pub cert_dirs: Option<Vec<PathBuf>>,
    /// Read the operating system's store (off in tests, for reproducibility).
    pub system: bool,
    /// PEM bundles given directly (tests, and embedders).
    pub extra_pem: Vec<Vec<u8>>,
}

impl Default for Trust {
    fn default() -> Trust {
        Trust {
            cert_file: None,
            cert_dirs: None,
            system: true,
            extra_pem: Vec::new(),
        }
    }
}

/// Where Go's `crypto/x509` looks on Linux when `SSL_CERT_FILE` is unset: the first of
/// these that exists (`root_linux.go`).
#[cfg(all(unix, not(target_os = "macos")))]
const SYSTEM_CERT_FILES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/tls/cacert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// …and these directories when `SSL_CERT_DIR` is unset.
#[cfg(all(unix, not(target_os = "macos")))]
const SYSTEM_CERT_DIRS: &[&str] = &[
    "/etc/ssl/certs",
    "/etc/pki/tls/certs",
    "/system/etc/security/cacerts",
];

impl Trust {
    /// The extra roots as PEM bundles: `SSL_CERT_FILE` or the system store, then the
    /// certificate directories, then `extra_pem`. An unreadable `SSL_CERT_FILE` is an
    /// error (the user asked for it); unreadable system locations are skipped.
    fn pem_bundles(&self) -> Result<Vec<Vec<u8>>, String> {
        let mut bundles = Vec::new();
        match &self.cert_file {
            Some(file) => bundles.push(
                std::fs::read(file)
                    .map_err(|e| format!("cannot read SSL_CERT_FILE {}: {e}", file.display()))?,
            ),
            None if self.system => bundles.extend(system_store()),
            None => {}
        }
        let dirs: Vec<PathBuf> = match &self.cert_dirs {
            Some(dirs) => dirs.clone(),
            None if self.system => default_cert_dirs(),
            None => Vec::new(),
        };
        for dir in dirs {
            bundles.extend(pem_files_in(&dir));
        }
        bundles.extend(self.extra_pem.iter().cloned());
        Ok(bundles)
    }
}

#[cfg(all(unix, not(target_os = "macos")))]
fn system_store() -> Vec<Vec<u8>> {
    SYSTEM_CERT_FILES
        .iter()
        .find_map(|file| std::fs::read(file).ok())
        .into_iter()
        .collect()
}

/// The keychain (macOS) or the system store (Windows), through rustls-native-certs.
#[cfg(not(all(unix, not(target_os = "macos"))))]
fn system_store() -> Vec<Vec<u8>> {
    use base64::Engine as _;
    let found = rustls_native_certs::load_native_certs();
    found
        .certs
        .iter()
        .map(|der| {
            let b64 = base64::engine::general_purpose::STANDARD.encode(der.as_ref());
            format!("-----BEGIN CERTIFICATE-----\n{b64}\n-----END CERTIFICATE-----\n").into_bytes()
        })
        .collect()
}

#[cfg(all(unix, not(target_os = "macos")))]
fn default_cert_dirs() -> Vec<PathBuf> {
    SYSTEM_CERT_DIRS.iter().map(PathBuf::from).collect()
}

#[cfg(not(all(unix, not(target_os = "macos"))))]
fn default_cert_dirs() -> Vec<PathBuf> {
    Vec::new()
}

/// Every regular file of `dir` (following links, as Go does), read whole; Go takes each
/// file in the directory whatever its name, and skips what is not a certificate.
fn pem_files_in(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    names
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

/// Proxy settings: `HTTPS_PROXY` for https URLs, `HTTP_PROXY` for http, `NO_PROXY`
/// exceptions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Proxies {
    pub https: Option<Url>,
    pub http: Option<Url>,
    /// `NO_PROXY` entries, as given (comma-separated in the variable).
    pub no_proxy: Vec<String>,
}

impl Proxies {
    /// The proxy for `url`, by Go's `httpproxy.Config.ProxyFunc` rules: never for
    /// `localhost` or a loopback address; `*` in `NO_PROXY` disables proxies; an entry
    /// matches a host (and its subdomains; a leading `.` means subdomains only), an IP
    /// address or a CIDR block, and an entry with a port only that port.
    pub fn proxy_for(&self, url: &Url) -> Option<Url> {
        let proxy = match url.scheme() {
            "https" => self.https.as_ref(),
            "http" => self.http.as_ref(),
            _ => None,
        }?;
        let host = url
            .host_str()?
            .trim_start_matches('[')
            .trim_end_matches(']');
        let host = host.to_ascii_lowercase();
        let ip: Option<IpAddr> = host.parse().ok();
        if host == "localhost" || ip.is_some_and(|ip| ip.is_loopback()) {
            return None;
        }
        let port = url.port_or_known_default();
        let excluded = self
            .no_proxy
            .iter()
            .any(|entry| no_proxy_matches(entry, &host, ip, port));
        (!excluded).then(|| proxy.clone())
    }
}

fn no_proxy_matches(entry: &str, host: &str, ip: Option<IpAddr>, port: Option<u16>) -> bool {
    let entry = entry.trim().to_ascii_lowercase();
    if entry.is_empty() {
        return false;
    }
    if entry == "*" {
        return true;
    }
    if let Some((net, bits)) = entry.split_once('/') {
        return match (net.parse::<IpAddr>(), bits.parse::<u32>(), ip) {
            (Ok(net), Ok(bits), Some(ip)) => in_cidr(ip, net, bits),
            _ => false,
        };
    }
    if let Ok(entry_ip) = entry.trim_start_matches('[').trim_end_matches(']').parse() {
        return ip == Some(entry_ip);
    }
    let (name, entry_port) = match entry.rsplit_once(':') {
        Some((name, p)) => match p.parse::<u16>() {
            Ok(p) => (name, Some(p)),
            Err(_) => (entry.as_str(), None),
        },
        None => (entry.as_str(), None),
    };
    if entry_port.is_some_and(|p| Some(p) != port) {
        return false;
    }
    // `.example.com` and `*.example.com` match subdomains only; `example.com` the host
    // itself too.
    match name.strip_prefix('.').or_else(|| name.strip_prefix("*.")) {
        Some(suffix) => host.ends_with(&format!(".{suffix}")),
        None => host == name || host.ends_with(&format!(".{name}")),
    }
}

fn in_cidr(ip: IpAddr, net: IpAddr, bits: u32) -> bool {
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

/// One GET as the retry loop sees it.
pub struct Get<'a> {
    /// What tfsum is doing, for messages ("listing versions of provider …").
    pub what: &'a str,
    pub url: &'a Url,
    pub token: Option<&'a Token>,
    pub terraform_version: bool,
    pub accept_json: bool,
    /// The largest body accepted.
    pub max: usize,
    /// Service discovery: at most 3 redirects (spec §5.1).
    pub discovery: bool,
}

/// A finished response. For statuses other than 200 the body is not read.
pub struct Fetched {
    /// The URL after redirects, for resolving relative references (spec §11 item 13).
    pub url: Url,
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// HTTP for a whole run; clone it freely (an `Arc` inside).
#[derive(Clone)]
pub struct Http {
    inner: Arc<Inner>,
}

struct Inner {
    config: HttpConfig,
    /// Registry JSON and downloads (reqwest's default of 10 redirects, like Go's client)
    /// and discovery (3); built on first use.
    clients: OnceLock<Result<(reqwest::Client, reqwest::Client), HttpError>>,
    hosts: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("config", &self.inner.config)
            .finish()
    }
}

impl Http {
    pub fn new(config: HttpConfig) -> Http {
        Http {
            inner: Arc::new(Inner {
                config,
                clients: OnceLock::new(),
                hosts: Mutex::new(HashMap::new()),
            }),
        }
    }

    pub fn config(&self) -> &HttpConfig {
        &self.inner.config
    }

    fn client(&self, discovery: bool) -> Result<&reqwest::Client, HttpError> {
        let built = self
            .inner
            .clients
            .get_or_init(|| Ok((self.build(10)?, self.build(3)?)));
        match built {
            Ok((http, disco)) => Ok(if discovery { disco } else { http }),
            Err(e) => Err(e.clone()),
        }
    }

    fn build(&self, redirects: usize) -> Result<reqwest::Client, HttpError> {
        self.inner
            .config
            .client_builder()
            .map_err(HttpError::Setup)?
            .redirect(reqwest::redirect::Policy::limited(redirects))
            .build()
            .map_err(|e| HttpError::Setup(e.to_string()))
    }

    /// The policy streaming callers use between their own attempts.
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.inner.config.retry
    }

    /// A place among the `per_host` requests allowed to `url`'s host at once; the OCI
    /// client (`crate::oci`), which sends its own requests, takes its places here.
    pub(crate) async fn permit(&self, url: &Url) -> Option<OwnedSemaphorePermit> {
        let key = format!("{}:{:?}", url.host_str()?, url.port_or_known_default());
        let semaphore = {
            let mut hosts = match self.inner.hosts.lock() {
                Ok(hosts) => hosts,
                Err(poisoned) => poisoned.into_inner(),
            };
            hosts
                .entry(key)
                .or_insert_with(|| Arc::new(Semaphore::new(self.inner.config.per_host.max(1))))
                .clone()
        };
        semaphore.acquire_owned().await.ok()
    }

    /// One GET with retries. Transient failures (including transient statuses) are
    /// retried; the final answer is returned whatever its status, for the caller to
    /// interpret (404 and 401 mean different things to different endpoints).
    pub async fn fetch(&self, get: &Get<'_>) -> Result<Fetched, HttpError> {
        retry::retrying(&self.inner.config.retry, || self.fetch_once(get))
            .await
            .map_err(|gave_up| gave_up.error)
    }

    /// Fetches a small document (SHA256SUMS, a signature) whole, with retries. No
    /// credentials and no `X-Terraform-Version` (spec §5.3); any status but 200 fails.
    pub async fn get_bytes(&self, url: &Url, max: usize) -> Result<Bytes, HttpError> {
        let what = "downloading";
        let got = self
            .fetch(&Get {
                what,
                url,
                token: None,
                terraform_version: false,
                accept_json: false,
                max,
                discovery: false,
            })
            .await?;
        if got.status != 200 {
            return Err(status_error(what, &got));
        }
        Ok(got.body)
    }

    async fn fetch_once(&self, get: &Get<'_>) -> Result<Fetched, HttpError> {
        check_scheme(get.url, get.what)?;
        let mut request = self.client(get.discovery)?.get(get.url.clone());
        if get.accept_json {
            request = request.header(ACCEPT, "application/json");
        }
        if get.terraform_version {
            request = request.header("X-Terraform-Version", TERRAFORM_VERSION_HEADER);
        }
        if let Some(token) = get.token {
            request = request.header(AUTHORIZATION, bearer(token, get.what)?);
        }
        let timeout = self.inner.config.request_timeout;
        let _permit = self.permit(get.url).await;
        let work = async {
            let mut response = request
                .send()
                .await
                .map_err(|e| HttpError::from_reqwest(get.what, get.url, &e))?;
            let mut got = Fetched {
                url: response.url().clone(),
                status: response.status().as_u16(),
                headers: response.headers().clone(),
                body: Bytes::new(),
            };
            if got.status != 200 {
                if is_transient_status(got.status) {
                    return Err(status_error(get.what, &got));
                }
                return Ok(got);
            }
            let too_large = |url: &Url| HttpError::TooLarge {
                what: get.what.to_string(),
                url: SafeUrl::new(url),
                limit: get.max,
            };
            if response
                .content_length()
                .is_some_and(|n| n > get.max as u64)
            {
                return Err(too_large(&got.url));
            }
            let mut body = BytesMut::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| HttpError::from_reqwest(get.what, &got.url, &e))?
            {
                if body.len() + chunk.len() > get.max {
                    return Err(too_large(&got.url));
                }
                body.extend_from_slice(&chunk);
            }
            got.body = body.freeze();
            Ok(got)
        };
        tokio::time::timeout(timeout, work)
            .await
            .map_err(|_| timed_out(get.what, get.url, timeout))?
    }

    /// Starts a streaming download (a provider zip) without credentials. Returns the
    /// `Content-Length` if given and the body as a stream whose items fail with a
    /// [`TransportKind::Timeout`] error when nothing arrives for
    /// [`HttpConfig::stream_idle_timeout`]. The host's permit is held until the stream
    /// ends or is dropped. Not retried: the caller restarts hashing from the first byte.
    pub async fn get_stream(
        &self,
        url: &Url,
    ) -> Result<
        (
            Option<u64>,
            impl Stream<Item = Result<Bytes, HttpError>> + Send + 'static,
        ),
        HttpError,
    > {
        let what = "downloading";
        check_scheme(url, what)?;
        let client = self.client(false)?;
        let permit = self.permit(url).await;
        let timeout = self.inner.config.request_timeout;
        let response = tokio::time::timeout(timeout, client.get(url.clone()).send())
            .await
            .map_err(|_| timed_out(what, url, timeout))?
            .map_err(|e| HttpError::from_reqwest(what, url, &e))?;
        let final_url = response.url().clone();
        let status = response.status().as_u16();
        if status != 200 {
            let got = Fetched {
                url: final_url,
                status,
                headers: response.headers().clone(),
                body: Bytes::new(),
            };
            return Err(status_error(what, &got));
        }
        let length = response.content_length();
        let idle = self.inner.config.stream_idle_timeout;
        let body = Box::pin(response.bytes_stream());
        let stream = futures::stream::unfold(Some((body, permit)), move |state| {
            let final_url = final_url.clone();
            async move {
                let (mut body, permit) = state?;
                match tokio::time::timeout(idle, body.next()).await {
                    Err(_) => Some((
                        Err(HttpError::Transport {
                            what: what.to_string(),
                            url: SafeUrl::new(&final_url),
                            kind: TransportKind::Timeout,
                            message: format!("no data received for {idle:?}"),
                        }),
                        None,
                    )),
                    Ok(None) => None,
                    Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some((body, permit)))),
                    Ok(Some(Err(e))) => {
                        Some((Err(HttpError::from_reqwest(what, &final_url, &e)), None))
                    }
                }
            }
        });
        Ok((length, stream))
    }
}

/// `Authorization: Bearer <token>`, marked sensitive so it never shows in debug output.
fn bearer(token: &Token, what: &str) -> Result<HeaderValue, HttpError> {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
        HttpError::InvalidUrl {
            what: what.to_string(),
            reason: "the configured token contains characters not allowed in an HTTP header"
                .to_string(),
        }
    })?;
    value.set_sensitive(true);
    Ok(value)
}

fn timed_out(what: &str, url: &Url, after: Duration) -> HttpError {
    HttpError::Transport {
        what: what.to_string(),
        url: SafeUrl::new(url),
        kind: TransportKind::Timeout,
        message: format!("no complete response within {after:?}"),
    }
}

/// A non-200 answer as an error, keeping `Retry-After` for the backoff.
pub(crate) fn status_error(what: &str, got: &Fetched) -> HttpError {
    let retry_after = got
        .headers
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| retry::parse_retry_after(v, SystemTime::now()));
    HttpError::Status {
        what: what.to_string(),
        url: SafeUrl::new(&got.url),
        status: Status(got.status),
        retry_after,
    }
}

fn check_scheme(url: &Url, what: &str) -> Result<(), HttpError> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(HttpError::InvalidUrl {
            what: what.to_string(),
            reason: format!(
                "{}: unsupported scheme {other:?}, must be http or https",
                SafeUrl::new(url)
            ),
        }),
    }
}

/// Whether the media type of a `Content-Type` value, parameters aside, is
/// `application/json` (case-insensitive, as Go's `mime.ParseMediaType` lowercases it).
pub(crate) fn is_json(headers: &HeaderMap) -> Result<(), String> {
    let content_type = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    if media_type.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(format!(
            "Content-Type must be application/json, got {content_type:?}"
        ))
    }
}

/// 401/403 become [`HttpError::Unauthorized`] naming the credential tried; other
/// statuses a plain status error.
pub(crate) fn refused(
    what: &str,
    host: &Hostname,
    got: &Fetched,
    status: u16,
    credential: Option<(Token, CredentialSource)>,
) -> HttpError {
    if status == 401 || status == 403 {
        return HttpError::Unauthorized {
            what: what.to_string(),
            host: host.clone(),
            url: SafeUrl::new(&got.url),
            status: Status(status),
            credential: TriedCredential(credential.map(|(_, source)| source)),
        };
    }
    status_error(what, got)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `httpproxy` rules, one row per kind of `NO_PROXY` entry.
    #[test]
    fn proxy_selection() {
        let proxy = Url::parse("http://proxy.corp:3128").unwrap();
        let proxies = |no_proxy: &[&str]| Proxies {
            https: Some(proxy.clone()),
            http: None,
            no_proxy: no_proxy.iter().map(|s| s.to_string()).collect(),
        };
        let cases: &[(&[&str], &str, bool)] = &[
            (&[], "https://registry.terraform.io/x", true),
            (&[], "http://registry.terraform.io/x", false),
            (&[], "https://localhost:8443/x", false),
            (&[], "https://127.0.0.1/x", false),
            (&[], "https://[::1]/x", false),
            (&["*"], "https://registry.terraform.io/x", false),
            (&["terraform.io"], "https://registry.terraform.io/x", false),
            (&["terraform.io"], "https://terraform.io/x", false),
            (&[".terraform.io"], "https://terraform.io/x", true),
            (&[".terraform.io"], "https://registry.terraform.io/x", false),
            (&["*.terraform.io"], "https://terraform.io/x", true),
            (&["erraform.io"], "https://registry.terraform.io/x", true),
            (
                &["registry.terraform.io:443"],
                "https://registry.terraform.io/x",
                false,
            ),
            (
                &["registry.terraform.io:8443"],
                "https://registry.terraform.io/x",
                true,
            ),
            (&["10.0.0.0/8"], "https://10.1.2.3/x", false),
            (&["10.0.0.0/8"], "https://11.1.2.3/x", true),
            (&["10.1.2.3"], "https://10.1.2.3/x", false),
            (
                &[" Corp.Example ", "other"],
                "https://a.corp.example/x",
                false,
            ),
        ];
        for (no_proxy, url, proxied) in cases {
            let got = proxies(no_proxy).proxy_for(&Url::parse(url).unwrap());
            assert_eq!(got.is_some(), *proxied, "NO_PROXY={no_proxy:?} {url}");
        }
    }

    #[test]
    fn certificate_directories_are_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let ca = include_bytes!("../../../../testdata/registry/tls/ca.pem");
        std::fs::write(dir.path().join("corp-proxy.crt"), ca).unwrap();
        std::fs::write(dir.path().join("README"), "not a certificate").unwrap();
        let trust = Trust {
            cert_file: None,
            cert_dirs: Some(vec![dir.path().to_path_buf()]),
            system: false,
            extra_pem: Vec::new(),
        };
        let bundles = trust.pem_bundles().unwrap();
        assert_eq!(bundles.len(), 2);
        assert!(bundles.iter().any(|b| b == ca));
        let missing = Trust {
            cert_file: Some(dir.path().join("nope.pem")),
            ..trust
        };
        assert!(missing
            .pem_bundles()
            .unwrap_err()
            .starts_with("cannot read SSL_CERT_FILE"));
    }

    mod against_a_server {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        use std::time::{Duration, Instant};

        use axum::body::Body;
        use axum::extract::Path;
        use axum::http::{header, StatusCode};
        use axum::response::{IntoResponse, Response};
        use axum::routing::get;
        use axum::Router;
        use bytes::Bytes;
        use futures::StreamExt as _;
        use url::Url;

        use crate::http::error::{is_transient, TransportKind};
        use crate::http::test_support::{serve, test_config};
        use crate::http::{Http, HttpError};

        /// The client follows the classifier of `retry.rs`: transient statuses are tried
        /// `max_attempts` times, final ones once.
        #[tokio::test]
        async fn retried_statuses_against_a_server() {
            let (addr, log) = serve(Router::new().route(
                "/status/{code}",
                get(|Path(code): Path<u16>| async move { StatusCode::from_u16(code).unwrap() }),
            ))
            .await;
            let http = Http::new(test_config());
            let mut table = Vec::new();
            for code in [
                204, 304, 400, 401, 403, 404, 408, 410, 429, 500, 501, 502, 503, 504, 599,
            ] {
                let path = format!("/status/{code}");
                let url = Url::parse(&format!("http://{addr}{path}")).unwrap();
                let err = http.get_bytes(&url, 1024).await.unwrap_err();
                assert_eq!(err.status(), Some(code), "{err}");
                table.push(format!("{code}: {} attempts", log.count(&path)));
            }
            assert_eq!(
                table,
                [
                    "204: 1 attempts",
                    "304: 1 attempts",
                    "400: 1 attempts",
                    "401: 1 attempts",
                    "403: 1 attempts",
                    "404: 1 attempts",
                    "408: 3 attempts",
                    "410: 1 attempts",
                    "429: 3 attempts",
                    "500: 3 attempts",
                    "501: 3 attempts",
                    "502: 3 attempts",
                    "503: 3 attempts",
                    "504: 3 attempts",
                    "599: 3 attempts",
                ]
            );
        }

        #[tokio::test]
        async fn retry_after_is_honoured() {
            let calls = Arc::new(AtomicUsize::new(0));
            let (addr, _) = serve(Router::new().route(
                "/busy",
                get(move || {
                    let calls = calls.clone();
                    async move {
                        if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                            (
                                StatusCode::TOO_MANY_REQUESTS,
                                [(header::RETRY_AFTER, "1")],
                                "slow down",
                            )
                                .into_response()
                        } else {
                            "ok".into_response()
                        }
                    }
                }),
            ))
            .await;
            let http = Http::new(test_config());
            let started = Instant::now();
            let body = http
                .get_bytes(&Url::parse(&format!("http://{addr}/busy")).unwrap(), 1024)
                .await
                .unwrap();
            assert_eq!(&body[..], b"ok");
            assert!(
                started.elapsed() >= Duration::from_millis(950),
                "{:?}",
                started.elapsed()
            );
        }

        /// A body that promises 100 bytes, sends 10, and then either hangs or hangs up.
        fn short_body(hang: bool) -> Response {
            let first =
                futures::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"0123456789"))]);
            let body = if hang {
                Body::from_stream(first.chain(futures::stream::pending()))
            } else {
                // The pause lets the first bytes reach the client before the server hangs up.
                let end = futures::stream::once(async {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    Ok(Bytes::new())
                });
                Body::from_stream(first.chain(end))
            };
            ([(header::CONTENT_LENGTH, "100")], body).into_response()
        }

        #[tokio::test]
        async fn stalled_and_cut_bodies_fail_as_transient() {
            let (addr, log) = serve(
                Router::new()
                    .route("/stall", get(|| async { short_body(true) }))
                    .route("/cut", get(|| async { short_body(false) })),
            )
            .await;
            let mut config = test_config();
            config.stream_idle_timeout = Duration::from_millis(200);
            config.request_timeout = Duration::from_millis(300);
            let http = Http::new(config);
            let url = |path: &str| Url::parse(&format!("http://{addr}{path}")).unwrap();

            for (path, kind) in [
                ("/stall", TransportKind::Timeout),
                ("/cut", TransportKind::Body),
            ] {
                let (length, stream) = http.get_stream(&url(path)).await.unwrap();
                assert_eq!(length, Some(100));
                let items: Vec<Result<Bytes, HttpError>> = stream.collect().await;
                assert_eq!(items.len(), 2, "{path}: {items:?}");
                assert_eq!(&items[0].as_ref().unwrap()[..], b"0123456789");
                let err = items[1].as_ref().unwrap_err();
                assert!(
                    matches!(err, HttpError::Transport { kind: k, .. } if *k == kind),
                    "{path}: {err}"
                );
                assert!(is_transient(err), "{path}");
            }

            // Whole-document fetches time out too, and are retried.
            let err = http.get_bytes(&url("/stall"), 1024).await.unwrap_err();
            assert!(
                matches!(
                    err,
                    HttpError::Transport {
                        kind: TransportKind::Timeout,
                        ..
                    }
                ),
                "{err}"
            );
            assert_eq!(log.count("/stall"), 1 + 3);
        }

        #[tokio::test]
        async fn oversized_documents_are_refused_once() {
            let (addr, log) =
                serve(Router::new().route("/big", get(|| async { "x".repeat(100) }))).await;
            let http = Http::new(test_config());
            let err = http
                .get_bytes(&Url::parse(&format!("http://{addr}/big")).unwrap(), 10)
                .await
                .unwrap_err();
            assert!(
                err.to_string()
                    .ends_with("response body is larger than 10 bytes"),
                "{err}"
            );
            assert_eq!(log.count("/big"), 1);
        }
    }
}
