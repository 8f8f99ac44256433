//! Service discovery (spec §5.1): from a registry hostname to its services
//! (`providers.v1`, and `modules.v1` for [`super::modules_api`]), once per host per run.
//!
//! A `host` block in the CLI configuration replaces discovery for its host entirely
//! (spec §8); its relative URLs resolve against the discovery URL the host would have
//! had. Otherwise tfsum asks `https://<host>/.well-known/terraform.json` and resolves
//! relative URLs against the URL that finally answered, after redirects.
//!
//! Results, failures included, are cached per host, and concurrent callers for the same
//! host share one request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;
use url::Url;

use tfsum_vocab::addr::Hostname;

use super::error::RegistryError;
use crate::cliconfig::{CliConfig, CredentialSource, Token};
use crate::http::transport::{is_json, refused, status_error, Get, Http};
use crate::http::HttpError;
use tfsum_vocab::url::SafeUrl;

/// The service this client speaks.
const PROVIDERS_SERVICE: &str = "providers.v1";

type CacheCell = Arc<OnceCell<Result<Services, RegistryError>>>;

/// A host's services (a forced `host` block's, or its discovery document's) and the URL
/// their relative references resolve against.
#[derive(Debug, Clone)]
pub(super) struct Services {
    pub url: Url,
    pub map: serde_json::Map<String, serde_json::Value>,
}

/// The discovery document is at most 1 MiB (spec §5.1).
pub(crate) const MAX_DISCOVERY_BYTES: usize = 1 << 20;

/// Each host's services, asked for once per run: failures are kept too, and concurrent
/// callers for one host share one request.
#[derive(Default)]
pub(super) struct Discovery {
    cache: Mutex<HashMap<Hostname, CacheCell>>,
}

impl Discovery {
    /// The services of `host`: a forced `host` block's, or its discovery document's,
    /// fetched with the credential `credential` gives for the host.
    pub(super) async fn services(
        &self,
        host: &Hostname,
        http: &Http,
        cli: &CliConfig,
        credential: impl FnOnce() -> Option<(Token, CredentialSource)>,
    ) -> Result<Services, RegistryError> {
        let cell = {
            let mut cache = match self.cache.lock() {
                Ok(cache) => cache,
                // A panic elsewhere while holding the lock leaves a usable map.
                Err(poisoned) => poisoned.into_inner(),
            };
            cache.entry(host.clone()).or_default().clone()
        };
        cell.get_or_init(|| discover(host, http, cli, credential))
            .await
            .clone()
    }
}

async fn discover(
    host: &Hostname,
    http: &Http,
    cli: &CliConfig,
    credential: impl FnOnce() -> Option<(Token, CredentialSource)>,
) -> Result<Services, RegistryError> {
    let disco_url = discovery_url(host)?;
    if let Some(forced) = cli.hosts.get(host) {
        let map: serde_json::Map<String, serde_json::Value> = forced
            .services
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        return Ok(Services {
            url: disco_url,
            map,
        });
    }

    let what = format!("discovering services of host {host}");
    let credential = credential();
    let got = http
        .fetch(&Get {
            what: &what,
            url: &disco_url,
            token: credential.as_ref().map(|(token, _)| token),
            terraform_version: false,
            accept_json: true,
            max: MAX_DISCOVERY_BYTES,
            discovery: true,
        })
        .await?;
    match got.status {
        200 => {}
        404 => {
            return Err(RegistryError::NoProviderRegistry {
                host: host.clone(),
                detail: format!("GET {} answered 404 Not Found", SafeUrl::new(&got.url)),
            })
        }
        401 | 403 => return Err(refused(&what, host, &got, got.status, credential).into()),
        _ => return Err(status_error(&what, &got).into()),
    }
    let bad = |reason: String| HttpError::InvalidResponse {
        what: what.clone(),
        url: SafeUrl::new(&got.url),
        reason,
    };
    is_json(&got.headers).map_err(bad)?;
    let document: serde_json::Value = serde_json::from_slice(&got.body)
        .map_err(|e| bad(format!("discovery document is not valid JSON: {e}")))?;
    let serde_json::Value::Object(map) = document else {
        return Err(bad("discovery document must be a JSON object".to_string()).into());
    };
    Ok(Services { url: got.url, map })
}

/// `https://<host>/.well-known/terraform.json`; always https (spec §5.1).
pub(crate) fn discovery_url(host: &Hostname) -> Result<Url, RegistryError> {
    Url::parse(&format!(
        "https://{}/.well-known/terraform.json",
        host.as_str()
    ))
    .map_err(|e| {
        RegistryError::from(HttpError::InvalidUrl {
            what: format!("discovering services of host {host}"),
            reason: format!("cannot form the discovery URL: {e}"),
        })
    })
}

/// Picks `providers.v1` out of a services map (`Host.ServiceURL`): a string URL,
/// resolved against `disco_url`. Another `providers.*` key alone means an unsupported
/// protocol version; no `providers.*` key means no registry.
pub(super) fn providers_url(
    host: &Hostname,
    disco_url: &Url,
    services: &serde_json::Map<String, serde_json::Value>,
) -> Result<Url, RegistryError> {
    if let Some(serde_json::Value::String(value)) = services.get(PROVIDERS_SERVICE) {
        return resolve_service_url(disco_url, value).map_err(|reason| {
            RegistryError::from(HttpError::InvalidUrl {
                what: format!("discovering services of host {host}"),
                reason: format!("service URL {PROVIDERS_SERVICE} {value:?}: {reason}"),
            })
        });
    }
    let offered: Vec<&str> = services
        .keys()
        .map(String::as_str)
        .filter(|k| k.starts_with("providers."))
        .collect();
    if offered.is_empty() {
        return Err(RegistryError::NoProviderRegistry {
            host: host.clone(),
            detail: format!("its discovery document has no {PROVIDERS_SERVICE} service"),
        });
    }
    Err(RegistryError::UnsupportedProtocol {
        host: host.clone(),
        offered: offered.join(", "),
    })
}

/// Resolves a service URL (`Host.parseURL`): relative references against `base` by
/// RFC 3986 (the `url` crate's `join` gives the same result as Go's `ResolveReference`
/// for the references registries use, including the trailing-slash rule), scheme http or
/// https, no userinfo, fragment dropped.
///
/// One deliberate difference: `https:path` (a scheme without `//`) is an absolute URL
/// with an opaque path to Go, which then fails on the request, while WHATWG parsing would
/// quietly treat it as relative; tfsum rejects it.
pub(crate) fn resolve_service_url(base: &Url, value: &str) -> Result<Url, String> {
    let has_scheme = value.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if has_scheme {
        let rest = &value[value.find(':').unwrap_or(0) + 1..];
        if !rest.starts_with("//") {
            return Err("an absolute URL must have an authority (scheme://host/…)".to_string());
        }
    }
    let mut url = base.join(value).map_err(|e| e.to_string())?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(format!(
            "unsupported scheme {:?}, must be http or https",
            url.scheme()
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not include user information".to_string());
    }
    url.set_fragment(None);
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cliconfig::CliConfig;
    use crate::http::test_support::{env, serve_tls, test_config};
    use crate::registry::test_support::{client, forced};
    use axum::http::{header, StatusCode};
    use axum::response::{IntoResponse, Redirect, Response};
    use axum::routing::get;
    use axum::Router;

    const WELL_KNOWN: &str = "/.well-known/terraform.json";

    fn json(body: &'static str) -> Response {
        ([(header::CONTENT_TYPE, "application/json")], body).into_response()
    }

    #[test]
    fn service_url_resolution() {
        let base = Url::parse("https://example.com/.well-known/terraform.json").unwrap();
        let cases = [
            ("/v1/providers/", Ok("https://example.com/v1/providers/")),
            (
                "v1/providers/",
                Ok("https://example.com/.well-known/v1/providers/"),
            ),
            ("../v1/providers", Ok("https://example.com/v1/providers")),
            ("./", Ok("https://example.com/.well-known/")),
            ("//other.example/v1/", Ok("https://other.example/v1/")),
            (
                "https://other.example:8443/x/",
                Ok("https://other.example:8443/x/"),
            ),
            ("http://plain.example/p/", Ok("http://plain.example/p/")),
            ("/p/?q=1#frag", Ok("https://example.com/p/?q=1")),
            ("ftp://files.example/p/", Err("unsupported scheme")),
            ("https://user:pw@other.example/", Err("user information")),
            ("https:v1/providers/", Err("authority")),
        ];
        for (value, want) in cases {
            let got = resolve_service_url(&base, value).map(|u| u.to_string());
            match want {
                Ok(url) => assert_eq!(got.as_deref(), Ok(url), "{value}"),
                Err(text) => {
                    let err = got.unwrap_err();
                    assert!(err.contains(text), "{value}: {err}");
                }
            }
        }
        // The trailing-slash rule of §5.1, as the versions request applies it.
        for (base, want) in [
            (
                "https://r.example/v1/providers/",
                "https://r.example/v1/providers/ns/t/versions",
            ),
            (
                "https://r.example/v1/providers",
                "https://r.example/v1/ns/t/versions",
            ),
            ("https://r.example", "https://r.example/ns/t/versions"),
        ] {
            let base = Url::parse(base).unwrap();
            assert_eq!(base.join("ns/t/versions").unwrap().as_str(), want);
        }
    }

    #[tokio::test]
    async fn discovers_relative_url_with_token_once() {
        let (host, log) = serve_tls(Router::new().route(
            WELL_KNOWN,
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
                    r#"{"modules.v1":"/v1/modules/","providers.v1":"/v1/providers/"}"#,
                )
            }),
        ))
        .await;
        let var = format!("TF_TOKEN_{}", host.as_str().replace('.', "_"));
        let client = client(
            test_config(),
            CliConfig::default(),
            env(&[(&var, "disco-secret")]),
        );
        let base = client.providers_base(&host).await.unwrap();
        assert_eq!(
            base.as_str(),
            format!("https://{}/v1/providers/", host.as_str())
        );
        // Cached for the run.
        client.providers_base(&host).await.unwrap();
        let seen = log.all();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].headers["accept"], "application/json");
        assert_eq!(seen[0].headers["authorization"], "Bearer disco-secret");
        assert_eq!(seen[0].headers["user-agent"], "tfsum-test");
        assert!(seen[0].headers.get("x-terraform-version").is_none());
    }

    #[tokio::test]
    async fn follows_three_redirects_and_resolves_against_the_final_url() {
        let (host, _) = serve_tls(
            Router::new()
                .route(WELL_KNOWN, get(|| async { Redirect::temporary("/r1") }))
                .route("/r1", get(|| async { Redirect::temporary("/r2") }))
                .route(
                    "/r2",
                    get(|| async { Redirect::temporary("/moved/doc.json") }),
                )
                .route(
                    "/moved/doc.json",
                    get(|| async { json(r#"{"providers.v1":"v1/"}"#) }),
                ),
        )
        .await;
        let client = client(test_config(), CliConfig::default(), env(&[]));
        let base = client.providers_base(&host).await.unwrap();
        assert_eq!(
            base.as_str(),
            format!("https://{}/moved/v1/", host.as_str())
        );

        let (host, _) = serve_tls(
            Router::new()
                .route(WELL_KNOWN, get(|| async { Redirect::temporary("/r1") }))
                .route("/r1", get(|| async { Redirect::temporary("/r2") }))
                .route("/r2", get(|| async { Redirect::temporary("/r3") }))
                .route("/r3", get(|| async { Redirect::temporary("/doc.json") }))
                .route(
                    "/doc.json",
                    get(|| async { json(r#"{"providers.v1":"/v1/"}"#) }),
                ),
        )
        .await;
        let err = client.providers_base(&host).await.unwrap_err();
        assert!(err.to_string().contains("redirect"), "{err}");
    }

    /// One server per case: the discovery path is fixed, so the case is the server.
    #[tokio::test]
    async fn discovery_failures() {
        let cases: Vec<(Router, &str)> = vec![
            (
                Router::new(),
                "does not offer a Terraform provider registry (GET https://HOST/.well-known/terraform.json answered 404 Not Found)",
            ),
            (
                Router::new().route(
                    WELL_KNOWN,
                    get(|| async { ([(header::CONTENT_TYPE, "text/html")], "{}") }),
                ),
                "Content-Type must be application/json, got \"text/html\"",
            ),
            (
                Router::new().route(WELL_KNOWN, get(|| async { json(r#"{"providers.v99":"/v99/"}"#) })),
                "does not support the provider registry protocol required by this version of tfsum: it offers providers.v99",
            ),
            (
                Router::new().route(WELL_KNOWN, get(|| async { json(r#"{"modules.v1":"/v1/modules/"}"#) })),
                "has no providers.v1 service",
            ),
            (
                Router::new().route(WELL_KNOWN, get(|| async { json(r#"["providers.v1"]"#) })),
                "must be a JSON object",
            ),
            (
                Router::new().route(WELL_KNOWN, get(|| async { json(r#"{"providers.v1":"ftp://x/"}"#) })),
                "unsupported scheme \"ftp\"",
            ),
            (
                Router::new().route(
                    WELL_KNOWN,
                    get(|| async {
                        let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(MAX_DISCOVERY_BYTES));
                        ([(header::CONTENT_TYPE, "application/json")], big)
                    }),
                ),
                "larger than 1048576 bytes",
            ),
            (
                Router::new().route(WELL_KNOWN, get(|| async { StatusCode::FORBIDDEN })),
                "refused the request (GET https://HOST/.well-known/terraform.json: 403 Forbidden); no credentials are configured",
            ),
            (
                Router::new().route(WELL_KNOWN, get(|| async { StatusCode::IM_A_TEAPOT })),
                "unexpected HTTP status 418 I'm a teapot",
            ),
        ];
        for (router, want) in cases {
            let (host, _) = serve_tls(router).await;
            let client = client(test_config(), CliConfig::default(), env(&[]));
            let err = client.providers_base(&host).await.unwrap_err().to_string();
            let want = want.replace("HOST", host.as_str());
            assert!(err.contains(&want), "want {want:?} in {err:?}");
            assert!(err.contains(host.as_str()), "{err}");
        }
    }

    #[tokio::test]
    async fn forced_host_services_skip_discovery() {
        // Nothing listens on this host: a network request would fail.
        let cli = forced("registry.invalid", "/custom/providers/", None);
        let client = client(test_config(), cli, env(&[]));
        let host = Hostname::parse("registry.invalid").unwrap();
        let base = client.providers_base(&host).await.unwrap();
        assert_eq!(base.as_str(), "https://registry.invalid/custom/providers/");

        let mut cli = forced("old.invalid", "/x/", None);
        let services = &mut cli.hosts.values_mut().next().unwrap().services;
        services.clear();
        services.insert("providers.v99".to_string(), serde_json::json!("/v99/"));
        let client = super::super::test_support::client(test_config(), cli, env(&[]));
        let err = client
            .providers_base(&Hostname::parse("old.invalid").unwrap())
            .await
            .unwrap_err();
        assert!(
            matches!(err, RegistryError::UnsupportedProtocol { .. }),
            "{err}"
        );
    }
}
