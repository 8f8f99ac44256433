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

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, RETRY_AFTER};
use serde::Deserialize;
use url::Url;

use crate::addr::{Hostname, Platform, ProviderAddr};

use super::cliconfig::{CliConfig, CredentialSource, Env, Token};
use super::error::{RegistryError, SafeUrl, Status, TransportKind, TriedCredential};
use super::retry::{self, is_transient_status, RetryPolicy};

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
    /// Extra trusted root certificates (PEM), for private registries and for tests.
    pub extra_root_certs: Vec<Vec<u8>>,
}

impl Default for ClientConfig {
    fn default() -> ClientConfig {
        ClientConfig {
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            stream_idle_timeout: Duration::from_secs(30),
            user_agent: concat!("tfsum/", env!("CARGO_PKG_VERSION")).to_string(),
            extra_root_certs: Vec::new(),
        }
    }
}

/// One entry of a provider's version list (spec §5.2). The version is kept raw: the
/// resolver parses it and skips (with a warning) what it cannot parse, as Terraform does.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RegistryVersion {
    pub version: String,
    #[serde(default)]
    pub protocols: Vec<String>,
}

/// A provider's versions, plus any `warnings` the registry wants shown to the user.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct VersionList {
    #[serde(default)]
    pub versions: Vec<RegistryVersion>,
    #[serde(default)]
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
                let cert = reqwest::Certificate::from_pem(pem)
                    .map_err(|e| RegistryError::Setup(format!("invalid root certificate: {e}")))?;
                builder = builder.add_root_certificate(cert);
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
                provider: provider.clone(),
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
                provider: provider.clone(),
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
    #[serde(default)]
    protocols: Vec<String>,
    os: String,
    arch: String,
    filename: String,
    download_url: String,
    shasums_url: String,
    shasums_signature_url: String,
    shasum: String,
    #[serde(default)]
    signing_keys: SigningKeysJson,
}

#[derive(Deserialize, Default)]
struct SigningKeysJson {
    #[serde(default)]
    gpg_public_keys: Vec<GpgKeyJson>,
}

#[derive(Deserialize)]
struct GpgKeyJson {
    ascii_armor: String,
    #[serde(default)]
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
    })
}
