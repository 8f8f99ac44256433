//! The module registry protocol (`modules.v1`) as Terraform 1.0.3's registry client
//! speaks it (`internal/registry/client.go`; docs/spec/modules.md §2):
//!
//! | request                                         | `Authorization` | `X-Terraform-Version` |
//! |-------------------------------------------------|-----------------|-----------------------|
//! | discovery (shared with providers, [`super::disco`]) | host's token | no                    |
//! | `GET <modules.v1>ns/name/system/versions`        | host's token    | yes                   |
//! | `GET <modules.v1>ns/name/system/VERSION/download`| host's token    | yes                   |
//! | the package the download answer points to       | never           | no                    |
//!
//! The service URL gets a trailing `/` when it lacks one (`Client.Discover` does that for
//! modules, unlike providers). The download answer is `X-Terraform-Get` on a 200 or 204;
//! a value starting with `/`, `./` or `../` is resolved against the request URL, anything
//! else is a go-getter address returned as is.

use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde::Deserialize;
use url::Url;

use tfsum_vocab::addr::Hostname;

use super::client::{join, RegistryClient};
use super::error::RegistryError;
use crate::http::transport::{refused, status_error, Get};
use crate::http::HttpError;
use tfsum_vocab::url::SafeUrl;

const MODULES_SERVICE: &str = "modules.v1";

/// Version lists of modules are small; this is generous.
const MAX_MODULES_JSON_BYTES: usize = 8 << 20;

/// An HTML page that may carry a `terraform-get` meta tag.
const MAX_PAGE_BYTES: usize = 1 << 20;

#[derive(Deserialize)]
struct VersionsJson {
    #[serde(default)]
    modules: Option<Vec<ModuleJson>>,
}

#[derive(Deserialize)]
struct ModuleJson {
    #[serde(default)]
    versions: Option<Vec<VersionJson>>,
}

#[derive(Deserialize)]
struct VersionJson {
    version: String,
}

/// A page fetched to learn where a module's code is (`X-Terraform-Get`).
pub struct ModulePage {
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl RegistryClient {
    /// The `modules.v1` base URL of `host` (with a trailing `/`), or `None` when the
    /// host offers no module registry.
    pub async fn modules_base(&self, host: &Hostname) -> Result<Option<Url>, RegistryError> {
        let services = match self.services(host).await {
            Ok(services) => services,
            // Discovery answered 404: no registry of any kind.
            Err(RegistryError::NoProviderRegistry { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let Some(serde_json::Value::String(value)) = services.map.get(MODULES_SERVICE) else {
            return Ok(None);
        };
        let mut url =
            super::disco::resolve_service_url(&services.url, value).map_err(|reason| {
                HttpError::InvalidUrl {
                    what: format!("discovering services of host {host}"),
                    reason: format!("service URL {MODULES_SERVICE} {value:?}: {reason}"),
                }
            })?;
        if !url.path().ends_with('/') {
            let path = format!("{}/", url.path());
            url.set_path(&path);
        }
        Ok(Some(url))
    }

    /// `GET <base>path/versions`: the versions listed for the first module of the
    /// answer, as given (the caller parses them). `None` on 404.
    pub async fn module_versions(
        &self,
        host: &Hostname,
        base: &Url,
        path: &str,
    ) -> Result<Option<Vec<String>>, RegistryError> {
        let what = format!("listing versions of module {}/{path}", host.display());
        let url = join(base, &format!("{path}/versions"), &what)?;
        let credential = self.credential(host);
        let got = self
            .registry_get(&what, &url, credential.as_ref(), MAX_MODULES_JSON_BYTES)
            .await?;
        match got.status {
            200 => {}
            404 => return Ok(None),
            status => return Err(refused(&what, host, &got, status, credential).into()),
        }
        let invalid = |reason: String| HttpError::InvalidResponse {
            what: what.clone(),
            url: SafeUrl::new(&got.url),
            reason,
        };
        let json: VersionsJson =
            serde_json::from_slice(&got.body).map_err(|e| invalid(e.to_string()))?;
        let module = json
            .modules
            .unwrap_or_default()
            .into_iter()
            .next()
            .ok_or_else(|| invalid("the answer lists no module".to_string()))?;
        Ok(Some(
            module
                .versions
                .unwrap_or_default()
                .into_iter()
                .map(|v| v.version)
                .collect(),
        ))
    }

    /// `GET <base>path/version/download`: the go-getter address of the package, from
    /// `X-Terraform-Get`. `None` on 404.
    pub async fn module_location(
        &self,
        host: &Hostname,
        base: &Url,
        path: &str,
        version: &str,
    ) -> Result<Option<String>, RegistryError> {
        let what = format!("finding module {}/{path} v{version}", host.display());
        if version.contains(['/', '?', '#', '%']) || version.contains("..") {
            return Err((HttpError::InvalidUrl {
                what,
                reason: format!("{version:?} cannot be used in a registry URL path"),
            })
            .into());
        }
        let url = join(base, &format!("{path}/{version}/download"), &what)?;
        let credential = self.credential(host);
        let got = self
            .registry_get(&what, &url, credential.as_ref(), MAX_MODULES_JSON_BYTES)
            .await?;
        match got.status {
            200 | 204 => {}
            404 => return Ok(None),
            status => return Err(refused(&what, host, &got, status, credential).into()),
        }
        let location = got
            .headers
            .get("X-Terraform-Get")
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .unwrap_or("");
        if location.is_empty() {
            return Err((HttpError::InvalidResponse {
                what,
                url: SafeUrl::new(&got.url),
                reason: "no X-Terraform-Get header in the answer".to_string(),
            })
            .into());
        }
        Ok(Some(resolve_location(&url, location, &what)?))
    }

    /// Fetches an http(s) module URL the way go-getter's HTTP getter asks it for the
    /// real location: with `terraform-get=1` added, no credentials, retried like registry
    /// JSON. Any status but 200 is an error.
    pub async fn module_page(&self, url: &Url) -> Result<ModulePage, RegistryError> {
        let mut asked = url.clone();
        asked.query_pairs_mut().append_pair("terraform-get", "1");
        let what = "asking a module URL for its source (X-Terraform-Get)";
        let got = self
            .http()
            .fetch(&Get {
                what,
                url: &asked,
                token: None,
                terraform_version: false,
                accept_json: false,
                max: MAX_PAGE_BYTES,
                discovery: false,
            })
            .await?;
        if got.status != 200 {
            return Err(status_error(what, &got).into());
        }
        Ok(ModulePage {
            headers: got.headers,
            body: got.body,
        })
    }
}

/// Resolves a relative-looking `X-Terraform-Get` against the request URL
/// (`ModuleLocation`); other values are go-getter addresses and stay as they are.
pub(crate) fn resolve_location(
    request: &Url,
    location: &str,
    what: &str,
) -> Result<String, RegistryError> {
    if location.starts_with('/') || location.starts_with("./") || location.starts_with("../") {
        return Ok(join(request, location, what)?.to_string());
    }
    Ok(location.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_resolve_against_the_request() {
        let request = Url::parse("https://r.example/v1/modules/ns/n/s/1.0.0/download").unwrap();
        for (location, want) in [
            ("/archives/m.tgz", "https://r.example/archives/m.tgz"),
            ("./m.zip", "https://r.example/v1/modules/ns/n/s/1.0.0/m.zip"),
            (
                "../m.zip?archive=zip",
                "https://r.example/v1/modules/ns/n/s/m.zip?archive=zip",
            ),
            (
                "git::https://g.example/r.git?ref=v1",
                "git::https://g.example/r.git?ref=v1",
            ),
            (
                "https://cdn.example/m.tar.gz//*",
                "https://cdn.example/m.tar.gz//*",
            ),
        ] {
            assert_eq!(
                resolve_location(&request, location, "t").unwrap(),
                want,
                "{location}"
            );
        }
    }
}
