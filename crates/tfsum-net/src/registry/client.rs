//! [`RegistryClient`]: the provider registry protocol (spec §5.2, §5.3) over the run's
//! [`Http`] transport, with the CLI configuration's forced services and credentials.
//!
//! One client serves a whole run: it is cheap to clone (an `Arc`) and caches service
//! discovery per host ([`super::disco`]).
//!
//! Which request carries what (spec §11 item 12):
//!
//! | request                         | `Authorization` | `X-Terraform-Version` |
//! |---------------------------------|-----------------|-----------------------|
//! | discovery `/.well-known/…`      | host's token    | no                    |
//! | versions, download JSON         | host's token    | yes                   |
//! | network mirror JSON             | mirror's token  | yes                   |
//! | SHA256SUMS, `.sig`, zip         | never           | no                    |
//!
//! The token is the one configured for the *provider's* hostname, sent to the
//! `providers.v1` URL that host's discovery names, as Terraform does. reqwest drops the
//! header when a redirect leaves the origin.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use serde::Deserialize;
use url::Url;

use crate::cliconfig::{CliConfig, CredentialSource, Env, Token};
use tfsum_vocab::addr::{Hostname, Platform, ProviderAddr};
use tfsum_vocab::hash::Hash;

use super::disco::{providers_url, Discovery, Services};
use super::error::RegistryError;
use crate::http::transport::{is_json, refused, status_error, Fetched, Get, Http};
use crate::http::HttpError;
use tfsum_vocab::url::SafeUrl;

/// A generous cap for registry JSON: the version list of the largest providers is a few
/// MiB because every version lists its platforms.
pub(crate) const MAX_REGISTRY_JSON_BYTES: usize = 32 << 20;

/// One entry of a provider's version list (spec §5.2). The version is kept raw: the
/// resolver parses it and skips (with a warning) what it cannot parse, as Terraform does.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RegistryVersion {
    pub version: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub protocols: Vec<String>,
    /// The platforms the registry says the version has packages for.
    #[serde(default, deserialize_with = "null_as_default")]
    pub platforms: Vec<ListedPlatform>,
}

/// One `{"os": …, "arch": …}` of a version list entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ListedPlatform {
    pub os: String,
    pub arch: String,
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
    pub(super) http: Http,
    pub(super) cli: CliConfig,
    pub(super) env: Env,
    pub(super) disco: Discovery,
}

impl fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // CliConfig and Env redact their secrets themselves.
        f.debug_struct("RegistryClient")
            .field("http", &self.inner.http)
            .field("cli", &self.inner.cli)
            .field("env", &self.inner.env)
            .finish()
    }
}

impl RegistryClient {
    /// A client over `http`. `cli` supplies forced host services and credentials; `env`
    /// supplies `TF_TOKEN_*` variables.
    pub fn new(http: Http, cli: CliConfig, env: Env) -> RegistryClient {
        RegistryClient {
            inner: Arc::new(Inner {
                http,
                cli,
                env,
                disco: Discovery::default(),
            }),
        }
    }

    /// The transport, for plain downloads.
    pub fn http(&self) -> &Http {
        &self.inner.http
    }

    /// The token for `host` and its source (spec §8 precedence).
    pub(crate) fn credential(&self, host: &Hostname) -> Option<(Token, CredentialSource)> {
        self.inner.cli.token_for(host, &self.inner.env)
    }

    /// The `providers.v1` base URL for `host`, from a forced `host` block or discovery.
    pub async fn providers_base(&self, host: &Hostname) -> Result<Url, RegistryError> {
        let services = self.services(host).await?;
        providers_url(host, &services.url, &services.map)
    }

    /// The services of `host`, discovered once per run whichever service is asked for
    /// (`providers.v1` here, `modules.v1` in [`super::modules_api`]).
    pub(super) async fn services(&self, host: &Hostname) -> Result<Services, RegistryError> {
        let inner = &self.inner;
        inner
            .disco
            .services(host, &inner.http, &inner.cli, || self.credential(host))
            .await
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
        let got = self
            .registry_get(&what, &url, credential.as_ref(), MAX_REGISTRY_JSON_BYTES)
            .await?;
        match got.status {
            200 => serde_json::from_slice(&got.body).map_err(|e| invalid(&what, &got.url, e)),
            404 => Err(RegistryError::ProviderNotFound {
                provider: Box::new(provider.clone()),
                url: SafeUrl::new(&got.url),
            }),
            status => Err(refused(&what, &provider.hostname, &got, status, credential).into()),
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
        let got = self
            .registry_get(&what, &url, credential.as_ref(), MAX_REGISTRY_JSON_BYTES)
            .await?;
        match got.status {
            200 => parse_package(&what, &got.url, &got.body, platform),
            404 => Err(RegistryError::PlatformNotAvailable {
                provider: Box::new(provider.clone()),
                version: version.to_string(),
                platform: platform.clone(),
                url: SafeUrl::new(&got.url),
            }),
            status => Err(refused(&what, &provider.hostname, &got, status, credential).into()),
        }
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
        let host = url_hostname(url);
        let credential = host.as_ref().and_then(|h| self.credential(h));
        let got = self
            .inner
            .http
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
                return Err(refused(what, host, &got, status, credential).into())
            }
            _ => return Err(status_error(what, &got).into()),
        }
        is_json(&got.headers).map_err(|reason| invalid(what, &got.url, reason))?;
        Ok(Some((got.url, got.body)))
    }

    /// A registry JSON request of at most `max` bytes: the host's token and
    /// `X-Terraform-Version` (spec §5.2; modules, docs/spec/modules.md §2).
    pub(super) async fn registry_get(
        &self,
        what: &str,
        url: &Url,
        credential: Option<&(Token, CredentialSource)>,
        max: usize,
    ) -> Result<Fetched, RegistryError> {
        self.inner
            .http
            .fetch(&Get {
                what,
                url,
                token: credential.map(|(token, _)| token),
                terraform_version: true,
                accept_json: false,
                max,
                discovery: false,
            })
            .await
            .map_err(RegistryError::from)
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

fn invalid(what: &str, url: &Url, reason: impl fmt::Display) -> RegistryError {
    (HttpError::InvalidResponse {
        what: what.to_string(),
        url: SafeUrl::new(url),
        reason: reason.to_string(),
    })
    .into()
}

/// RFC 3986 reference resolution of `relative` against `base`, as Go's
/// `ResolveReference`: a base without a trailing `/` loses its last segment (spec §5.1).
pub(super) fn join(base: &Url, relative: &str, what: &str) -> Result<Url, RegistryError> {
    base.join(relative).map_err(|e| {
        RegistryError::from(HttpError::InvalidUrl {
            what: what.to_string(),
            reason: format!(
                "cannot resolve {relative:?} against {}: {e}",
                SafeUrl::new(base)
            ),
        })
    })
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
        return Err((HttpError::InvalidUrl {
            what: what.to_string(),
            reason: format!("{segment:?} cannot be used in a registry URL path"),
        })
        .into());
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
    use axum::extract::Path;
    use axum::http::StatusCode;
    use axum::response::{IntoResponse, Redirect};
    use axum::routing::get;
    use axum::Router;

    use super::*;
    use crate::http::test_support::{env, serve, test_config};
    use crate::registry::test_support::{client, forced};
    use futures::StreamExt as _;

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
                        protocols: vec!["5.0".into()],
                        platforms: vec![ListedPlatform {
                            os: "linux".into(),
                            arch: "amd64".into(),
                        }],
                    },
                    RegistryVersion {
                        version: "not-a-version".into(),
                        protocols: vec![],
                        platforms: vec![],
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
            &client
                .http()
                .get_bytes(&meta.shasums_url, 1024)
                .await
                .unwrap()[..],
            b"sums"
        );
        assert_eq!(
            &client
                .http()
                .get_bytes(&meta.shasums_signature_url, 1024)
                .await
                .unwrap()[..],
            b"sig"
        );
        let (length, stream) = client.http().get_stream(&meta.download_url).await.unwrap();
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

    /// The token is for the registry's host: a redirect that leaves the host drops it,
    /// as Go's client does, while a same-host redirect keeps it (above).
    #[tokio::test]
    async fn token_is_dropped_when_a_redirect_leaves_the_host() {
        use axum::http::HeaderMap;
        let router = Router::new()
            .route(
                "/v1/providers/hashicorp/moved/versions",
                get(|headers: HeaderMap| async move {
                    let host = headers
                        .get("host")
                        .and_then(|h| h.to_str().ok())
                        .unwrap_or_default()
                        .replace("127.0.0.1", "localhost");
                    Redirect::temporary(&format!("http://{host}/elsewhere/versions"))
                }),
            )
            .route(
                "/elsewhere/versions",
                get(|| async { r#"{"versions":[{"version":"1.0.0"}]}"# }),
            );
        let (addr, log) = serve(router).await;
        let base = format!("http://{addr}/v1/providers/");
        let client = client(
            test_config(),
            forced("example.com", &base, Some("s3cret")),
            env(&[]),
        );
        let list = client
            .versions(&provider("example.com/hashicorp/moved"))
            .await
            .unwrap();
        assert_eq!(list.versions.len(), 1);
        let auth: Vec<(String, bool)> = log
            .all()
            .iter()
            .map(|seen| {
                (
                    seen.path.clone(),
                    seen.headers.contains_key("authorization"),
                )
            })
            .collect();
        assert_eq!(
            auth,
            [
                ("/v1/providers/hashicorp/moved/versions".to_string(), true),
                ("/elsewhere/versions".to_string(), false),
            ]
        );
    }
}
