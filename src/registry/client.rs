//! [`RegistryClient`]: the provider registry protocol (spec §5.2, §5.3) and the plain
//! downloads that follow it (SHA256SUMS, its signature, the zip).
//!
//! One client serves a whole run: it is cheap to clone (an `Arc`), shares one connection
//! pool, and caches service discovery per host ([`super::disco`]). Requests for JSON
//! documents, SHA256SUMS and signatures are retried here under the [`RetryPolicy`];
//! [`RegistryClient::get_stream`] is not, because the caller hashes while it streams and
//! must restart from the first byte (see [`super::retry`]).
//!
//! Which request carries what (spec §11 item 12):
//!
//! | request                         | `Authorization` | `X-Terraform-Version` |
//! |---------------------------------|-----------------|-----------------------|
//! | discovery `/.well-known/…`      | host's token    | no                    |
//! | versions, download JSON         | host's token    | yes                   |
//! | SHA256SUMS, `.sig`, zip         | never           | no                    |
//!
//! The token is the one configured for the *provider's* hostname, sent to the
//! `providers.v1` URL that host's discovery names, as Terraform does. reqwest drops the
//! header when a redirect leaves the origin.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, RETRY_AFTER};
use serde::Deserialize;
use url::Url;

use crate::addr::{Hostname, Platform, ProviderAddr};
use crate::hash::Hash;

use super::error::{RegistryError, SafeUrl, Status, TransportKind, TriedCredential};
use super::retry::{self, is_transient_status, RetryPolicy};
use crate::cliconfig::{CliConfig, CredentialSource, Env, Token};

/// The `X-Terraform-Version` tfsum sends to registry JSON endpoints.
///
/// Registries use the header for statistics only; the protocol tfsum speaks does not
/// depend on it. 1.5.7 is the last Terraform release under the MPL, and its lock files
/// and registry requests are the ones tfsum reproduces, so it is an honest stand-in.
pub const TERRAFORM_VERSION_HEADER: &str = "1.5.7";

/// The discovery document is at most 1 MiB (spec §5.1).
pub(crate) const MAX_DISCOVERY_BYTES: usize = 1 << 20;

/// A generous cap for registry JSON: the version list of the largest providers is a few
/// MiB because every version lists its platforms.
const MAX_REGISTRY_JSON_BYTES: usize = 32 << 20;

/// How the client talks HTTP; plain values, filled from flags by the CLI layer.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub retry: RetryPolicy,
    /// Time to set up a TCP + TLS connection.
    pub connect_timeout: Duration,
    /// Whole-request limit for JSON documents, SHA256SUMS and signatures, body included
    /// (Terraform: 10 s, `TF_REGISTRY_CLIENT_TIMEOUT`), and the limit for a streaming
    /// download's response headers.
    pub request_timeout: Duration,
    /// A streaming download fails when no body bytes arrive for this long, so a stalled
    /// connection ends in a retryable error instead of a hang.
    pub stream_idle_timeout: Duration,
    pub user_agent: String,
    /// Extra trusted root certificates (PEM; each entry may be a bundle), for private
    /// registries, mirrors and tests.
    pub extra_root_certs: Vec<Vec<u8>>,
}

impl Default for ClientConfig {
    /// The built-in values; the CLI layer applies the environment
    /// ([`ClientConfig::with_env`]), so the library never reads it.
    fn default() -> ClientConfig {
        ClientConfig::builtin()
    }
}

impl ClientConfig {
    /// The values tfsum uses when nothing is configured.
    pub fn builtin() -> ClientConfig {
        ClientConfig {
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            stream_idle_timeout: Duration::from_secs(30),
            user_agent: concat!("tfsum/", env!("CARGO_PKG_VERSION")).to_string(),
            extra_root_certs: Vec::new(),
        }
    }

    /// Applies the operational knobs read through `lookup` (the process environment in
    /// practice), so CI jobs and the test suite can bound a run without flags:
    ///
    /// | variable                     | sets                                              |
    /// |------------------------------|---------------------------------------------------|
    /// | `TFSUM_HTTP_TIMEOUT_SECS`    | connect, request and stream-idle timeouts          |
    /// | `TFSUM_RETRIES`              | retries after the first attempt (0: none)          |
    /// | `TFSUM_RETRY_DELAY_SECS`     | first backoff delay (doubled per retry, capped)    |
    /// | `TFSUM_RETRY_MAX_WAIT_SECS`  | the longest `Retry-After` honoured                 |
    ///
    /// Seconds may be fractional (`0.2`). An unparsable value is an error naming it.
    pub fn with_env(
        mut self,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<ClientConfig, String> {
        let seconds = |name: &str| -> Result<Option<Duration>, String> {
            let Some(raw) = lookup(name) else {
                return Ok(None);
            };
            raw.trim()
                .parse::<f64>()
                .ok()
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .map(Some)
                .ok_or_else(|| format!("{name}={raw:?} is not a number of seconds"))
        };
        if let Some(timeout) = seconds("TFSUM_HTTP_TIMEOUT_SECS")? {
            self.connect_timeout = timeout;
            self.request_timeout = timeout;
            self.stream_idle_timeout = timeout;
        }
        if let Some(raw) = lookup("TFSUM_RETRIES") {
            let retries: u32 = raw
                .trim()
                .parse()
                .map_err(|_| format!("TFSUM_RETRIES={raw:?} is not a whole number"))?;
            self.retry.max_attempts = retries.saturating_add(1);
        }
        if let Some(delay) = seconds("TFSUM_RETRY_DELAY_SECS")? {
            self.retry.base_delay = delay;
            self.retry.max_delay = self.retry.max_delay.max(delay);
        }
        if let Some(wait) = seconds("TFSUM_RETRY_MAX_WAIT_SECS")? {
            self.retry.max_retry_after = wait;
        }
        Ok(self)
    }
}

/// One entry of a provider's version list (spec §5.2). The version is kept raw: the
/// resolver parses it and skips (with a warning) what it cannot parse, as Terraform does.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RegistryVersion {
    pub version: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub protocols: Vec<String>,
}

/// A provider's versions, plus any `warnings` the registry wants shown to the user.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct VersionList {
    #[serde(default, deserialize_with = "null_as_default")]
    pub versions: Vec<RegistryVersion>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub warnings: Vec<String>,
}

/// Where to get one package and how to check it (spec §5.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageMeta {
    pub filename: String,
    pub download_url: Url,
    pub shasums_url: Url,
    pub shasums_signature_url: Url,
    /// SHA-256 of the zip, as the registry reports it.
    pub shasum: [u8; 32],
    /// `(ascii_armor, trust_signature)` for each key in `signing_keys.gpg_public_keys`.
    pub signing_keys: Vec<(String, String)>,
    /// Plugin protocol versions as given ("5.0"); the caller checks compatibility.
    pub protocols: Vec<String>,
    /// OpenTofu's optional `packages` map: hashes and size of **every** platform's
    /// package of this version (spec §10). `None` when the registry sent no usable map.
    pub packages: Option<BTreeMap<Platform, PlatformHashes>>,
}

/// One platform's entry in OpenTofu's `packages` map (spec §10): what the registry
/// reports, not yet verified by anything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlatformHashes {
    /// `h1:` and `zh:` hashes (other schemes are kept; callers use the preferred ones).
    pub hashes: Vec<Hash>,
    /// Size of the zip in bytes, when given.
    pub package_size: Option<u64>,
}

impl PlatformHashes {
    /// The first hash of `scheme` (`"h1"` or `"zh"`).
    pub fn first(&self, scheme: &str) -> Option<&Hash> {
        self.hashes.iter().find(|h| h.scheme() == scheme)
    }
}

/// Talks to provider registries; clone it freely.
#[derive(Clone)]
pub struct RegistryClient {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    /// Registry JSON and downloads: reqwest's default of 10 redirects, like Go's client.
    pub(super) http: reqwest::Client,
    /// Discovery: at most 3 redirects (spec §5.1).
    pub(super) disco_http: reqwest::Client,
    pub(super) config: ClientConfig,
    pub(super) cli: CliConfig,
    pub(super) env: Env,
    pub(super) disco_cache: Mutex<HashMap<Hostname, super::disco::CacheCell>>,
}

impl fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // CliConfig and Env redact their secrets themselves.
        f.debug_struct("RegistryClient")
            .field("config", &self.inner.config)
            .field("cli", &self.inner.cli)
            .field("env", &self.inner.env)
            .finish()
    }
}

/// One GET as the retry loop sees it.
pub(super) struct Get<'a> {
    pub what: &'a str,
    pub url: &'a Url,
    pub token: Option<&'a Token>,
    pub terraform_version: bool,
    pub accept_json: bool,
    pub max: usize,
    pub discovery: bool,
}

/// A finished response. For statuses other than 200 the body is not read.
pub(super) struct Fetched {
    /// The URL after redirects, for resolving relative references (spec §11 item 13).
    pub url: Url,
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl RegistryClient {
    /// Builds the client. `cli` supplies forced host services and credentials; `env`
    /// supplies `TF_TOKEN_*` variables.
    pub fn new(
        config: ClientConfig,
        cli: CliConfig,
        env: Env,
    ) -> Result<RegistryClient, RegistryError> {
        let build = |redirects: usize| -> Result<reqwest::Client, RegistryError> {
            let mut builder = reqwest::Client::builder()
                .user_agent(config.user_agent.clone())
                .connect_timeout(config.connect_timeout)
                .redirect(reqwest::redirect::Policy::limited(redirects));
            for pem in &config.extra_root_certs {
                // A bundle (`SSL_CERT_FILE` usually names one) may hold many.
                let certs = reqwest::Certificate::from_pem_bundle(pem)
                    .map_err(|e| RegistryError::Setup(format!("invalid root certificate: {e}")))?;
                for cert in certs {
                    builder = builder.add_root_certificate(cert);
                }
            }
            builder
                .build()
                .map_err(|e| RegistryError::Setup(e.to_string()))
        };
        Ok(RegistryClient {
            inner: Arc::new(Inner {
                http: build(10)?,
                disco_http: build(3)?,
                config,
                cli,
                env,
                disco_cache: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The policy streaming callers use between their own attempts.
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.inner.config.retry
    }

    /// The token for `host` and its source (spec §8 precedence).
    pub(super) fn credential(&self, host: &Hostname) -> Option<(Token, CredentialSource)> {
        self.inner.cli.token_for(host, &self.inner.env)
    }

    /// Lists a provider's versions: `GET <providers.v1>namespace/type/versions`.
    pub async fn versions(&self, provider: &ProviderAddr) -> Result<VersionList, RegistryError> {
        let what = format!("listing versions of provider {provider}");
        let base = self.providers_base(&provider.hostname).await?;
        let url = join(
            &base,
            &format!("{}/{}/versions", provider.namespace, provider.r#type),
            &what,
        )?;
        let credential = self.credential(&provider.hostname);
        let got = self.registry_get(&what, &url, credential.as_ref()).await?;
        match got.status {
            200 => serde_json::from_slice(&got.body).map_err(|e| invalid(&what, &got.url, e)),
            404 => Err(RegistryError::ProviderNotFound {
                provider: Box::new(provider.clone()),
                url: SafeUrl::new(&got.url),
            }),
            status => Err(refused(&what, &provider.hostname, &got, status, credential)),
        }
    }

    /// Finds one package:
    /// `GET <providers.v1>namespace/type/version/download/os/arch`.
    pub async fn package(
        &self,
        provider: &ProviderAddr,
        version: &str,
        platform: &Platform,
    ) -> Result<PackageMeta, RegistryError> {
        let what = format!("finding provider {provider} v{version} for {platform}");
        for segment in [version, &platform.os, &platform.arch] {
            check_segment(segment, &what)?;
        }
        let base = self.providers_base(&provider.hostname).await?;
        let url = join(
            &base,
            &format!(
                "{}/{}/{}/download/{}/{}",
                provider.namespace, provider.r#type, version, platform.os, platform.arch
            ),
            &what,
        )?;
        let credential = self.credential(&provider.hostname);
        let got = self.registry_get(&what, &url, credential.as_ref()).await?;
        match got.status {
            200 => parse_package(&what, &got.url, &got.body, platform),
            404 => Err(RegistryError::PlatformNotAvailable {
                provider: Box::new(provider.clone()),
                version: version.to_string(),
                platform: platform.clone(),
                url: SafeUrl::new(&got.url),
            }),
            status => Err(refused(&what, &provider.hostname, &got, status, credential)),
        }
    }

    /// Fetches a small document (SHA256SUMS, a signature) whole, with retries. No
    /// credentials and no `X-Terraform-Version` (spec §5.3); any status but 200 fails.
    pub async fn get_bytes(&self, url: &Url, max: usize) -> Result<Bytes, RegistryError> {
        let what = "downloading";
        check_scheme(url, what)?;
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

    /// Fetches a network-mirror JSON document (spec §6: `index.json`, `<version>.json`)
    /// with the token configured for the **mirror's** host (with its port, unless 443)
    /// and `X-Terraform-Version`, like registry JSON; retried like it too.
    ///
    /// `Ok(None)` means 404: the mirror does not have it. 401/403 name the host and the
    /// credential tried. The media type must be `application/json`. On success returns
    /// the final URL, against which relative archive URLs resolve (spec §11 item 13),
    /// and the body.
    pub async fn mirror_json(
        &self,
        what: &str,
        url: &Url,
    ) -> Result<Option<(Url, Bytes)>, RegistryError> {
        check_scheme(url, what)?;
        let host = url_hostname(url);
        let credential = host.as_ref().and_then(|h| self.credential(h));
        let got = self
            .fetch(&Get {
                what,
                url,
                token: credential.as_ref().map(|(token, _)| token),
                terraform_version: true,
                accept_json: true,
                max: MAX_REGISTRY_JSON_BYTES,
                discovery: false,
            })
            .await?;
        match (got.status, &host) {
            (200, _) => {}
            (404, _) => return Ok(None),
            (status @ (401 | 403), Some(host)) => {
                return Err(refused(what, host, &got, status, credential))
            }
            _ => return Err(status_error(what, &got)),
        }
        let content_type = got
            .headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let media_type = content_type.split(';').next().unwrap_or("").trim();
        if !media_type.eq_ignore_ascii_case("application/json") {
            return Err(invalid(
                what,
                &got.url,
                format!("Content-Type must be application/json, got {content_type:?}"),
            ));
        }
        Ok(Some((got.url, got.body)))
    }

    /// Starts a streaming download (a provider zip) without credentials. Returns the
    /// `Content-Length` if given and the body as a stream whose items fail with a
    /// [`TransportKind::Timeout`] error when nothing arrives for
    /// [`ClientConfig::stream_idle_timeout`]. Not retried: see [`super::retry`].
    pub async fn get_stream(
        &self,
        url: &Url,
    ) -> Result<
        (
            Option<u64>,
            impl Stream<Item = Result<Bytes, RegistryError>> + Send + 'static,
        ),
        RegistryError,
    > {
        let what = "downloading";
        check_scheme(url, what)?;
        let timeout = self.inner.config.request_timeout;
        let response = tokio::time::timeout(timeout, self.inner.http.get(url.clone()).send())
            .await
            .map_err(|_| timed_out(what, url, timeout))?
            .map_err(|e| RegistryError::from_reqwest(what, url, &e))?;
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
        let stream = futures::stream::unfold(Some(body), move |state| {
            let final_url = final_url.clone();
            async move {
                let mut body = state?;
                match tokio::time::timeout(idle, body.next()).await {
                    Err(_) => Some((
                        Err(RegistryError::Transport {
                            what: what.to_string(),
                            url: SafeUrl::new(&final_url),
                            kind: TransportKind::Timeout,
                            message: format!("no data received for {idle:?}"),
                        }),
                        None,
                    )),
                    Ok(None) => None,
                    Ok(Some(Ok(chunk))) => Some((Ok(chunk), Some(body))),
                    Ok(Some(Err(e))) => {
                        Some((Err(RegistryError::from_reqwest(what, &final_url, &e)), None))
                    }
                }
            }
        });
        Ok((length, stream))
    }

    /// A registry JSON request: the host's token and `X-Terraform-Version` (spec §5.2).
    async fn registry_get(
        &self,
        what: &str,
        url: &Url,
        credential: Option<&(Token, CredentialSource)>,
    ) -> Result<Fetched, RegistryError> {
        self.fetch(&Get {
            what,
            url,
            token: credential.map(|(token, _)| token),
            terraform_version: true,
            accept_json: false,
            max: MAX_REGISTRY_JSON_BYTES,
            discovery: false,
        })
        .await
    }

    /// One GET with retries. Transient failures (including transient statuses) are
    /// retried; the final answer is returned whatever its status, for the caller to
    /// interpret (404 and 401 mean different things to different endpoints).
    pub(super) async fn fetch(&self, get: &Get<'_>) -> Result<Fetched, RegistryError> {
        retry::retrying(&self.inner.config.retry, || self.fetch_once(get)).await
    }

    async fn fetch_once(&self, get: &Get<'_>) -> Result<Fetched, RegistryError> {
        let http = if get.discovery {
            &self.inner.disco_http
        } else {
            &self.inner.http
        };
        let mut request = http.get(get.url.clone());
        if get.accept_json {
            request = request.header(ACCEPT, "application/json");
        }
        if get.terraform_version {
            request = request.header("X-Terraform-Version", TERRAFORM_VERSION_HEADER);
        }
        if let Some(token) = get.token {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
                    RegistryError::InvalidUrl {
                        what: get.what.to_string(),
                        reason:
                            "the configured token contains characters not allowed in an HTTP header"
                                .to_string(),
                    }
                })?;
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        let timeout = self.inner.config.request_timeout;
        let work = async {
            let mut response = request
                .send()
                .await
                .map_err(|e| RegistryError::from_reqwest(get.what, get.url, &e))?;
            let got_url = response.url().clone();
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let mut got = Fetched {
                url: got_url,
                status,
                headers,
                body: Bytes::new(),
            };
            if status != 200 {
                if is_transient_status(status) {
                    return Err(status_error(get.what, &got));
                }
                return Ok(got);
            }
            let too_large = || RegistryError::TooLarge {
                what: get.what.to_string(),
                url: SafeUrl::new(&got.url),
                limit: get.max,
            };
            if response
                .content_length()
                .is_some_and(|n| n > get.max as u64)
            {
                return Err(too_large());
            }
            let mut body = BytesMut::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| RegistryError::from_reqwest(get.what, &got.url, &e))?
            {
                if body.len() + chunk.len() > get.max {
                    return Err(too_large());
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
}

/// The host a URL's credentials are looked up by: its name with the port, unless that
/// is the scheme's default (spec §6). `None` for hosts tfsum cannot name (IPv6).
fn url_hostname(url: &Url) -> Option<Hostname> {
    let host = url.host_str()?;
    let given = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    };
    Hostname::parse(&given).ok()
}

fn timed_out(what: &str, url: &Url, after: Duration) -> RegistryError {
    RegistryError::Transport {
        what: what.to_string(),
        url: SafeUrl::new(url),
        kind: TransportKind::Timeout,
        message: format!("no complete response within {after:?}"),
    }
}

/// A non-200 answer as an error, keeping `Retry-After` for the backoff.
pub(super) fn status_error(what: &str, got: &Fetched) -> RegistryError {
    let retry_after = got
        .headers
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| retry::parse_retry_after(v, SystemTime::now()));
    RegistryError::Status {
        what: what.to_string(),
        url: SafeUrl::new(&got.url),
        status: Status(got.status),
        retry_after,
    }
}

/// 401/403 become [`RegistryError::Unauthorized`] naming the credential tried; other
/// statuses a plain status error.
pub(super) fn refused(
    what: &str,
    host: &Hostname,
    got: &Fetched,
    status: u16,
    credential: Option<(Token, CredentialSource)>,
) -> RegistryError {
    if status == 401 || status == 403 {
        return RegistryError::Unauthorized {
            what: what.to_string(),
            host: host.clone(),
            url: SafeUrl::new(&got.url),
            status: Status(status),
            credential: TriedCredential(credential.map(|(_, source)| source)),
        };
    }
    status_error(what, got)
}

fn invalid(what: &str, url: &Url, reason: impl fmt::Display) -> RegistryError {
    RegistryError::InvalidResponse {
        what: what.to_string(),
        url: SafeUrl::new(url),
        reason: reason.to_string(),
    }
}

/// RFC 3986 reference resolution of `relative` against `base`, as Go's
/// `ResolveReference`: a base without a trailing `/` loses its last segment (spec §5.1).
pub(super) fn join(base: &Url, relative: &str, what: &str) -> Result<Url, RegistryError> {
    base.join(relative).map_err(|e| RegistryError::InvalidUrl {
        what: what.to_string(),
        reason: format!(
            "cannot resolve {relative:?} against {}: {e}",
            SafeUrl::new(base)
        ),
    })
}

fn check_scheme(url: &Url, what: &str) -> Result<(), RegistryError> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(RegistryError::InvalidUrl {
            what: what.to_string(),
            reason: format!(
                "{}: unsupported scheme {other:?}, must be http or https",
                SafeUrl::new(url)
            ),
        }),
    }
}

/// A version or platform part must stay one path segment: Go's `path.Join` would
/// otherwise clean `..` away and change which endpoint is asked.
fn check_segment(segment: &str, what: &str) -> Result<(), RegistryError> {
    let bad = segment.is_empty()
        || segment == "."
        || segment == ".."
        || segment.chars().any(|c| {
            matches!(c, '/' | '\\' | '?' | '#' | '%') || c.is_whitespace() || c.is_control()
        });
    if bad {
        return Err(RegistryError::InvalidUrl {
            what: what.to_string(),
            reason: format!("{segment:?} cannot be used in a registry URL path"),
        });
    }
    Ok(())
}

#[derive(Deserialize)]
struct PackageJson {
    #[serde(default, deserialize_with = "null_as_default")]
    protocols: Vec<String>,
    os: String,
    arch: String,
    filename: String,
    download_url: String,
    shasums_url: String,
    shasums_signature_url: String,
    shasum: String,
    #[serde(default, deserialize_with = "null_as_default")]
    signing_keys: SigningKeysJson,
    /// OpenTofu's extension (spec §10); kept loose so a malformed map never breaks the
    /// response, which is complete without it.
    #[serde(default)]
    packages: Option<serde_json::Value>,
}

#[derive(Deserialize, Default)]
struct SigningKeysJson {
    #[serde(default, deserialize_with = "null_as_default")]
    gpg_public_keys: Vec<GpgKeyJson>,
}

#[derive(Deserialize)]
struct GpgKeyJson {
    ascii_armor: String,
    #[serde(default, deserialize_with = "null_as_default")]
    trust_signature: String,
}

/// Validates the download document (spec §5.3): platform echoed, URLs resolved against
/// the response's final URL and http(s) only, shasum 64 hex digits.
fn parse_package(
    what: &str,
    response_url: &Url,
    body: &[u8],
    platform: &Platform,
) -> Result<PackageMeta, RegistryError> {
    let bad = |reason: String| invalid(what, response_url, reason);
    let json: PackageJson = serde_json::from_slice(body).map_err(|e| bad(e.to_string()))?;
    if json.os != platform.os || json.arch != platform.arch {
        return Err(bad(format!(
            "the registry answered for {}_{} instead of {platform}",
            json.os, json.arch
        )));
    }
    let resolve = |field: &str, value: &str| -> Result<Url, RegistryError> {
        let url = response_url
            .join(value)
            .map_err(|e| bad(format!("{field} {value:?} is not a valid URL: {e}")))?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(bad(format!(
                "{field} must be an http or https URL, not {:?}",
                url.scheme()
            )));
        }
        Ok(url)
    };
    let download_url = resolve("download_url", &json.download_url)?;
    let shasums_url = resolve("shasums_url", &json.shasums_url)?;
    let shasums_signature_url = resolve("shasums_signature_url", &json.shasums_signature_url)?;
    let mut shasum = [0u8; 32];
    if json.shasum.len() != 64 || hex::decode_to_slice(&json.shasum, &mut shasum).is_err() {
        return Err(bad(format!(
            "shasum must be 64 hexadecimal digits, got {:?}",
            json.shasum
        )));
    }
    Ok(PackageMeta {
        filename: json.filename,
        download_url,
        shasums_url,
        shasums_signature_url,
        shasum,
        signing_keys: json
            .signing_keys
            .gpg_public_keys
            .into_iter()
            .map(|k| (k.ascii_armor, k.trust_signature))
            .collect(),
        protocols: json.protocols,
        packages: json.packages.as_ref().and_then(parse_packages_map),
    })
}

/// Reads OpenTofu's `packages` map: `{"<os_arch>": {"hashes": [...], "package_size": N}}`.
///
/// The map only ever saves downloads, so it is read leniently: entries with an invalid
/// platform key or no parsable hash are dropped, and anything that is not an object
/// means no map at all. Whatever is kept is still checked against the package tfsum
/// downloads before any of it is trusted.
fn parse_packages_map(value: &serde_json::Value) -> Option<BTreeMap<Platform, PlatformHashes>> {
    let object = value.as_object()?;
    let mut map = BTreeMap::new();
    for (key, entry) in object {
        let Ok(platform) = key.parse::<Platform>() else {
            continue;
        };
        let hashes: Vec<Hash> = entry
            .get("hashes")
            .and_then(|h| h.as_array())
            .map(|items| {
                items
                    .iter()
                    .filter_map(|h| h.as_str())
                    .filter_map(|h| Hash::parse(h).ok())
                    .collect()
            })
            .unwrap_or_default();
        if hashes.is_empty() {
            continue;
        }
        let package_size = entry.get("package_size").and_then(|n| n.as_u64());
        map.insert(
            platform,
            PlatformHashes {
                hashes,
                package_size,
            },
        );
    }
    (!map.is_empty()).then_some(map)
}

/// Go's `encoding/json` decodes `null` into a field as its zero value, and registries
/// do send `"warnings": null` and the like; serde would reject it, so map it to Default.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    use axum::body::Body;
    use axum::extract::Path;
    use axum::http::{header, StatusCode};
    use axum::response::{IntoResponse, Redirect, Response};
    use axum::routing::get;
    use axum::Router;

    use super::*;
    use crate::registry::retry::is_transient;
    use crate::registry::test_support::{client, env, forced, serve, test_config};

    const SHASUM: &str = "5f9c7aa76b7c34d722fc9123208e26b22d60440cb47150dd04733b9b94f4541a";

    fn provider(source: &str) -> ProviderAddr {
        ProviderAddr::parse(source, "registry.terraform.io").unwrap()
    }

    fn linux() -> Platform {
        "linux_amd64".parse().unwrap()
    }

    fn package_json(os: &str, shasum: &str, download_url: &str) -> String {
        serde_json::json!({
            "protocols": ["5.0", "6.0"],
            "os": os,
            "arch": "amd64",
            "filename": "terraform-provider-aws_5.0.0_linux_amd64.zip",
            "download_url": download_url,
            "shasums_url": "../sums/SHA256SUMS",
            "shasums_signature_url": "/sig/SHA256SUMS.72D7468F.sig",
            "shasum": shasum,
            "signing_keys": {"gpg_public_keys": [
                {"key_id": "34365D9472D7468F", "ascii_armor": "ARMOR-1", "trust_signature": "", "source": "HashiCorp"},
                {"ascii_armor": "ARMOR-2", "trust_signature": "TRUST-2"}
            ]}
        })
        .to_string()
    }

    /// The registry side of a small fake: versions, download JSON (with a redirect, so
    /// relative URLs must resolve against the final URL), sums, signature and zip.
    fn registry() -> Router {
        Router::new()
            .route(
                "/v1/providers/hashicorp/aws/versions",
                get(|| async {
                    r#"{"versions":[
                        {"version":"5.0.0","protocols":["5.0"],"platforms":[{"os":"linux","arch":"amd64"}]},
                        {"version":"not-a-version"}
                    ],"warnings":["this provider is deprecated"]}"#
                }),
            )
            .route("/v1/hashicorp/aws/versions", get(|| async { r#"{"versions":[]}"# }))
            .route("/v1/providers/hashicorp/secret/versions", get(|| async { StatusCode::UNAUTHORIZED }))
            .route("/v1/providers/hashicorp/garbled/versions", get(|| async { "{not json" }))
            .route(
                "/v1/providers/hashicorp/aws/{version}/download/{os}/{arch}",
                get(|Path((version, os, _arch)): Path<(String, String, String)>| async move {
                    match (version.as_str(), os.as_str()) {
                        ("5.0.0", "linux") => Redirect::temporary("/mirror/aws/download.json").into_response(),
                        ("5.0.0", _) => StatusCode::NOT_FOUND.into_response(),
                        ("1.0.0", _) => package_json("darwin", SHASUM, "pkg.zip").into_response(),
                        ("1.0.1", _) => package_json("linux", &SHASUM[1..], "pkg.zip").into_response(),
                        ("1.0.2", _) => package_json("linux", &SHASUM.replace('5', "g"), "pkg.zip").into_response(),
                        ("1.0.3", _) => package_json("linux", SHASUM, "ftp://files.example/pkg.zip").into_response(),
                        ("1.0.4", _) => r#"{"os":"linux","arch":"amd64"}"#.into_response(),
                        _ => StatusCode::IM_A_TEAPOT.into_response(),
                    }
                }),
            )
            .route(
                "/mirror/aws/download.json",
                get(|| async { package_json("linux", SHASUM, "pkg.zip") }),
            )
            .route("/mirror/aws/pkg.zip", get(|| async { "zip bytes" }))
            .route("/mirror/sums/SHA256SUMS", get(|| async { "sums" }))
            .route("/sig/SHA256SUMS.72D7468F.sig", get(|| async { "sig" }))
    }

    #[tokio::test]
    async fn versions_parse_and_resolve_against_the_base() {
        let (addr, log) = serve(registry()).await;
        for (base, path, count) in [
            (
                format!("http://{addr}/v1/providers/"),
                "/v1/providers/hashicorp/aws/versions",
                2,
            ),
            (
                format!("http://{addr}/v1/providers"),
                "/v1/hashicorp/aws/versions",
                0,
            ),
        ] {
            let client = client(test_config(), forced("example.com", &base, None), env(&[]));
            let list = client
                .versions(&provider("example.com/hashicorp/aws"))
                .await
                .unwrap();
            assert_eq!(list.versions.len(), count, "{base}");
            assert_eq!(log.all().last().unwrap().path, path);
        }
        let client = client(
            test_config(),
            forced("example.com", &format!("http://{addr}/v1/providers/"), None),
            env(&[]),
        );
        let list = client
            .versions(&provider("example.com/hashicorp/aws"))
            .await
            .unwrap();
        assert_eq!(
            list,
            VersionList {
                versions: vec![
                    RegistryVersion {
                        version: "5.0.0".into(),
                        protocols: vec!["5.0".into()]
                    },
                    RegistryVersion {
                        version: "not-a-version".into(),
                        protocols: vec![]
                    },
                ],
                warnings: vec!["this provider is deprecated".into()],
            }
        );
    }

    #[tokio::test]
    async fn versions_failures() {
        let (addr, _) = serve(registry()).await;
        let base = format!("http://{addr}/v1/providers/");
        let with_block = client(
            test_config(),
            forced("example.com", &base, Some("block-secret")),
            env(&[]),
        );
        let with_env = client(
            test_config(),
            forced("example.com", &base, Some("block-secret")),
            env(&[("TF_TOKEN_example_com", "env-secret")]),
        );
        let without = client(test_config(), forced("example.com", &base, None), env(&[]));
        let cases = [
            (&without, "example.com/hashicorp/nope", format!(
                "provider example.com/hashicorp/nope does not exist (GET http://{addr}/v1/providers/hashicorp/nope/versions: 404 Not Found)"
            )),
            (&with_block, "example.com/hashicorp/secret", format!(
                "listing versions of provider example.com/hashicorp/secret: host example.com refused the request (GET http://{addr}/v1/providers/hashicorp/secret/versions: 401 Unauthorized); the token from credentials block in /test/.terraformrc was sent"
            )),
            (&with_env, "example.com/hashicorp/secret", "the token from TF_TOKEN_example_com was sent".to_string()),
            (&without, "example.com/hashicorp/secret", "401 Unauthorized); no credentials are configured for this host".to_string()),
            (&without, "example.com/hashicorp/garbled", format!(
                "listing versions of provider example.com/hashicorp/garbled: GET http://{addr}/v1/providers/hashicorp/garbled/versions: invalid response: key must be a string"
            )),
        ];
        for (client, source, want) in cases {
            let err = client.versions(&provider(source)).await.unwrap_err();
            let text = err.to_string();
            assert!(text.contains(&want), "want {want:?} in {text:?}");
            let debug = format!("{err:?}{client:?}");
            assert!(
                !text.contains("secret\"")
                    && !debug.contains("block-secret")
                    && !debug.contains("env-secret")
            );
        }
    }

    #[tokio::test]
    async fn package_meta_resolves_urls_against_the_final_response() {
        let (addr, _) = serve(registry()).await;
        let base = format!("http://{addr}/v1/providers/");
        let client = client(test_config(), forced("example.com", &base, None), env(&[]));
        let meta = client
            .package(&provider("example.com/hashicorp/aws"), "5.0.0", &linux())
            .await
            .unwrap();
        let mut shasum = [0u8; 32];
        hex::decode_to_slice(SHASUM, &mut shasum).unwrap();
        assert_eq!(
            meta,
            PackageMeta {
                filename: "terraform-provider-aws_5.0.0_linux_amd64.zip".into(),
                download_url: Url::parse(&format!("http://{addr}/mirror/aws/pkg.zip")).unwrap(),
                shasums_url: Url::parse(&format!("http://{addr}/mirror/sums/SHA256SUMS")).unwrap(),
                shasums_signature_url: Url::parse(&format!(
                    "http://{addr}/sig/SHA256SUMS.72D7468F.sig"
                ))
                .unwrap(),
                shasum,
                signing_keys: vec![
                    ("ARMOR-1".into(), String::new()),
                    ("ARMOR-2".into(), "TRUST-2".into()),
                ],
                protocols: vec!["5.0".into(), "6.0".into()],
                packages: None,
            }
        );
    }

    #[tokio::test]
    async fn package_failures() {
        let (addr, _) = serve(registry()).await;
        let base = format!("http://{addr}/v1/providers/");
        let client = client(test_config(), forced("example.com", &base, None), env(&[]));
        let aws = provider("example.com/hashicorp/aws");
        let darwin: Platform = "darwin_arm64".parse().unwrap();
        let cases = [
            ("5.0.0", &darwin, format!(
                "provider example.com/hashicorp/aws v5.0.0 is not available for darwin_arm64 (GET http://{addr}/v1/providers/hashicorp/aws/5.0.0/download/darwin/arm64: 404 Not Found)"
            )),
            ("1.0.0", &linux(), "the registry answered for darwin_amd64 instead of linux_amd64".to_string()),
            ("1.0.1", &linux(), "shasum must be 64 hexadecimal digits".to_string()),
            ("1.0.2", &linux(), "shasum must be 64 hexadecimal digits".to_string()),
            ("1.0.3", &linux(), "download_url must be an http or https URL, not \"ftp\"".to_string()),
            ("1.0.4", &linux(), "missing field `filename`".to_string()),
            ("1.0.5", &linux(), "finding provider example.com/hashicorp/aws v1.0.5 for linux_amd64: GET".to_string()),
            ("../../x", &linux(), "\"../../x\" cannot be used in a registry URL path".to_string()),
        ];
        for (version, platform, want) in cases {
            let err = client.package(&aws, version, platform).await.unwrap_err();
            let text = err.to_string();
            assert!(text.contains(&want), "{version}: want {want:?} in {text:?}");
        }
    }

    /// Spec §11 item 12: the token and X-Terraform-Version go to registry JSON requests
    /// only, never to SHA256SUMS, the signature or the zip, even on the same host.
    #[tokio::test]
    async fn credentials_only_on_registry_json() {
        let (addr, log) = serve(registry()).await;
        let base = format!("http://{addr}/v1/providers/");
        let client = client(
            test_config(),
            forced("example.com", &base, Some("s3cret")),
            env(&[]),
        );
        let aws = provider("example.com/hashicorp/aws");
        client.versions(&aws).await.unwrap();
        let meta = client.package(&aws, "5.0.0", &linux()).await.unwrap();
        assert_eq!(
            &client.get_bytes(&meta.shasums_url, 1024).await.unwrap()[..],
            b"sums"
        );
        assert_eq!(
            &client
                .get_bytes(&meta.shasums_signature_url, 1024)
                .await
                .unwrap()[..],
            b"sig"
        );
        let (length, stream) = client.get_stream(&meta.download_url).await.unwrap();
        let chunks: Vec<Bytes> = stream.map(|c| c.unwrap()).collect().await;
        assert_eq!(length, Some(9));
        assert_eq!(chunks.concat(), b"zip bytes");

        let table: Vec<String> = log
            .all()
            .iter()
            .map(|seen| {
                let auth = seen
                    .headers
                    .get("authorization")
                    .map(|v| v.to_str().unwrap().to_string());
                let version = seen
                    .headers
                    .get("x-terraform-version")
                    .map(|v| v.to_str().unwrap().to_string());
                format!("{} auth={auth:?} tf={version:?}", seen.path)
            })
            .collect();
        let json = "auth=Some(\"Bearer s3cret\") tf=Some(\"1.5.7\")";
        assert_eq!(
            table,
            [
                format!("/v1/providers/hashicorp/aws/versions {json}"),
                format!("/v1/providers/hashicorp/aws/5.0.0/download/linux/amd64 {json}"),
                // reqwest keeps the header on a same-origin redirect, as Go does.
                format!("/mirror/aws/download.json {json}"),
                "/mirror/sums/SHA256SUMS auth=None tf=None".to_string(),
                "/sig/SHA256SUMS.72D7468F.sig auth=None tf=None".to_string(),
                "/mirror/aws/pkg.zip auth=None tf=None".to_string(),
            ]
        );
    }

    /// The client follows the classifier of `retry.rs`: transient statuses are tried
    /// `max_attempts` times, final ones once.
    #[tokio::test]
    async fn retried_statuses_against_a_server() {
        let (addr, log) = serve(Router::new().route(
            "/status/{code}",
            get(|Path(code): Path<u16>| async move { StatusCode::from_u16(code).unwrap() }),
        ))
        .await;
        let client = client(test_config(), CliConfig::default(), env(&[]));
        let mut table = Vec::new();
        for code in [
            204, 304, 400, 401, 403, 404, 408, 410, 429, 500, 501, 502, 503, 504, 599,
        ] {
            let path = format!("/status/{code}");
            let url = Url::parse(&format!("http://{addr}{path}")).unwrap();
            let err = client.get_bytes(&url, 1024).await.unwrap_err();
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
        let client = client(test_config(), CliConfig::default(), env(&[]));
        let started = Instant::now();
        let body = client
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
        let client = client(config, CliConfig::default(), env(&[]));
        let url = |path: &str| Url::parse(&format!("http://{addr}{path}")).unwrap();

        for (path, kind) in [
            ("/stall", TransportKind::Timeout),
            ("/cut", TransportKind::Body),
        ] {
            let (length, stream) = client.get_stream(&url(path)).await.unwrap();
            assert_eq!(length, Some(100));
            let items: Vec<Result<Bytes, RegistryError>> = stream.collect().await;
            assert_eq!(items.len(), 2, "{path}: {items:?}");
            assert_eq!(&items[0].as_ref().unwrap()[..], b"0123456789");
            let err = items[1].as_ref().unwrap_err();
            assert!(
                matches!(err, RegistryError::Transport { kind: k, .. } if *k == kind),
                "{path}: {err}"
            );
            assert!(is_transient(err), "{path}");
        }

        // Whole-document fetches time out too, and are retried.
        let err = client.get_bytes(&url("/stall"), 1024).await.unwrap_err();
        assert!(
            matches!(
                err,
                RegistryError::Transport {
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
        let client = client(test_config(), CliConfig::default(), env(&[]));
        let err = client
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

    #[test]
    fn environment_knobs() {
        let lookup = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let config = ClientConfig::builtin()
            .with_env(lookup(&[
                ("TFSUM_HTTP_TIMEOUT_SECS", "0.25"),
                ("TFSUM_RETRIES", "0"),
                ("TFSUM_RETRY_DELAY_SECS", "0.01"),
                ("TFSUM_RETRY_MAX_WAIT_SECS", "2"),
            ]))
            .unwrap();
        assert_eq!(config.request_timeout, Duration::from_millis(250));
        assert_eq!(config.connect_timeout, Duration::from_millis(250));
        assert_eq!(config.stream_idle_timeout, Duration::from_millis(250));
        assert_eq!(config.retry.max_attempts, 1);
        assert_eq!(config.retry.base_delay, Duration::from_millis(10));
        assert_eq!(config.retry.max_retry_after, Duration::from_secs(2));
        let untouched = ClientConfig::builtin().with_env(lookup(&[])).unwrap();
        assert_eq!(untouched.retry, ClientConfig::builtin().retry);
        for (name, value) in [
            ("TFSUM_HTTP_TIMEOUT_SECS", "-1"),
            ("TFSUM_HTTP_TIMEOUT_SECS", "soon"),
            ("TFSUM_RETRIES", "1.5"),
            ("TFSUM_RETRY_DELAY_SECS", "inf"),
        ] {
            let pairs: &'static [(&'static str, &'static str)] =
                Box::leak(Box::new([(name, value)]));
            let err = ClientConfig::builtin().with_env(lookup(pairs)).unwrap_err();
            assert!(err.starts_with(name), "{err}");
        }
    }
}
