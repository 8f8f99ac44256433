//! Answering a registry's 401, as ORAS-Go's `auth.Client.Do` does for OpenTofu
//! (`registry/remote/auth/client.go:253-514` at oras-go v2.6.2; OpenTofu's wiring in
//! `cmd/tofu/oci_distribution.go:130-164` at v1.12.6):
//!
//! 1. Send the request, with the token or Basic header cached for this repository and
//!    these scopes, if any. No `GET /v2/` ping first (OpenTofu 1.13 dropped it: it
//!    fails on registries that challenge `/v2/` even for anonymous pulls).
//! 2. On 401 from the origin that was asked (a 401 after a redirect elsewhere is
//!    returned as it is: credentials go to the registry's own host only), read the
//!    first Basic or Bearer challenge ([`crate::oci::challenge`]):
//!    - **Basic**: the repository's username and password;
//!    - **Bearer**: scopes = the operation's (`repository:<repo>:pull`, or `pull,push`)
//!      ∪ the challenge's `scope`; a token cached under them is tried first; else the
//!      realm is checked (https, or plain HTTP to loopback when the caller allows it;
//!      never a private or loopback address other than the registry's own host) and a
//!      token got: a configured access token as it is; with a refresh token, OAuth2
//!      (`POST realm`, `grant_type=refresh_token`, `client_id`); otherwise the
//!      distribution token endpoint (`GET realm?service=…&scope=…`), with Basic
//!      credentials when there are some and anonymously when not.
//! 3. Send it once more with the answer, and return whatever comes back.
//!
//! Credentials are chosen per repository ([`CredentialsSource::select`]) and a helper
//! runs at most once per repository. Tokens are cached per (host, repository) and
//! scope set, as OpenTofu keeps one ORAS client and cache per repository ("repository-
//! scoped tokens", OpenTofu 1.13); one token is fetched at a time per repository, so
//! concurrent requests share it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use reqwest::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use reqwest::{Request, Response, Url};
use tokio::sync::OnceCell;

use crate::cliconfig::Token;
use crate::http::error::Status;

use super::body::{self, BodyFault};
use super::challenge::{first_known, Challenge, Scheme, Scopes};
use super::credentials::{CredentialOrigin, Credentials, CredentialsError, OciEnv};
use super::error::{transport, ErrorCodes, OciError, Target, TokenFault, Tried};
use super::policy::CredentialsSource;

/// The most of a token answer that is read (`maxResponseBytes`, `client.go:66`).
const MAX_TOKEN_BODY: u64 = 128 * 1024;

/// What the credentials of one repository turned out to be.
type Resolved = Result<Option<(Credentials, CredentialOrigin)>, CredentialsError>;

/// A request's answer, and which credentials went with it.
pub(crate) struct Exchange {
    pub response: Response,
    pub tried: Tried,
}

/// The auth state of a run: chosen credentials and tokens, per repository.
pub(crate) struct Auth {
    credentials: Arc<CredentialsSource>,
    env: Arc<OciEnv>,
    helper_timeout: Duration,
    client_id: String,
    plain_http_loopback: bool,
    repositories: Mutex<HashMap<(String, String), Arc<RepositoryAuth>>>,
}

#[derive(Default)]
struct RepositoryAuth {
    credentials: OnceCell<Resolved>,
    cache: Mutex<Cache>,
    /// Held while a token is fetched, so concurrent requests wait for it.
    fetching: tokio::sync::Mutex<()>,
}

/// The last scheme a registry asked for, and what answers it.
#[derive(Default)]
struct Cache {
    scheme: Option<Scheme>,
    basic: Option<Token>,
    bearer: HashMap<String, Token>,
}

impl Cache {
    /// What to send before being asked, and the scope key it was chosen for.
    fn preset(&self, key: &str) -> Option<(Scheme, Token)> {
        match self.scheme? {
            Scheme::Basic => Some((Scheme::Basic, self.basic.clone()?)),
            Scheme::Bearer => Some((Scheme::Bearer, self.bearer.get(key)?.clone())),
        }
    }

    fn set(&mut self, scheme: Scheme, key: &str, token: Token) {
        if self.scheme != Some(scheme) {
            *self = Cache::default();
            self.scheme = Some(scheme);
        }
        match scheme {
            Scheme::Basic => self.basic = Some(token),
            Scheme::Bearer => {
                self.bearer.insert(key.to_string(), token);
            }
        }
    }
}

/// An `Authorization` value, marked sensitive so it never shows in debug output.
fn header(scheme: Scheme, token: &Token) -> Option<HeaderValue> {
    let mut value = HeaderValue::from_str(&format!("{} {}", scheme.name(), token.expose())).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// Scheme, host and port (default ports filled in) are equal.
fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str().map(str::to_ascii_lowercase) == b.host_str().map(str::to_ascii_lowercase)
        && a.port_or_known_default() == b.port_or_known_default()
}

/// `localhost` or a loopback address.
pub(crate) fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether a bearer realm may be sent credentials (oras-go v2.6.2 `validateRealm`,
/// `client.go:203-245`, with tfsum's https rule): https, or plain HTTP only when the
/// registry itself is reached over plain HTTP by the caller's loopback opt-in and the
/// realm is on loopback too; an IP-literal realm in a loopback, private, link-local or
/// unspecified range only on the registry's own host (it could be a cloud metadata
/// service).
pub(crate) fn check_realm(
    realm: Option<&str>,
    registry: &Url,
    plain_http_loopback: bool,
) -> Result<Url, String> {
    let realm = realm.ok_or("the Bearer challenge names no realm")?;
    let url = Url::parse(realm).map_err(|e| format!("the realm {realm:?} is not a URL: {e}"))?;
    let host = url.host_str().unwrap_or_default();
    match url.scheme() {
        "https" => {}
        "http" if plain_http_loopback && registry.scheme() == "http" && is_loopback(host) => {}
        "http" => {
            return Err(format!(
                "the realm {realm:?} is plain HTTP; tokens are fetched over https only"
            ))
        }
        other => {
            return Err(format!(
                "the realm {realm:?} has the unsupported scheme {other:?}"
            ))
        }
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        let internal = ip.is_loopback()
            || ip.is_unspecified()
            || match ip {
                IpAddr::V4(v4) => v4.is_private() || v4.is_link_local(),
                IpAddr::V6(v6) => v6.is_unique_local() || v6.is_unicast_link_local(),
            };
        if internal && registry.host_str() != url.host_str() {
            return Err(format!(
                "the realm {realm:?} is an internal address other than the registry's own"
            ));
        }
    }
    Ok(url)
}

#[derive(serde::Deserialize)]
struct TokenAnswer {
    #[serde(default)]
    token: String,
    #[serde(default)]
    access_token: String,
}

/// The token of a token endpoint's answer: `access_token`, else `token` (the
/// distribution spec allows either; `client.go:443-460`).
pub(crate) fn token_from(body: &[u8]) -> Result<Token, TokenFault> {
    let answer: TokenAnswer = serde_json::from_slice(body).map_err(|e| {
        TokenFault::Body(format!(
            "not JSON ({:?} at line {})",
            e.classify(),
            e.line()
        ))
    })?;
    [answer.access_token, answer.token]
        .into_iter()
        .find(|t| !t.is_empty())
        .map(Token::new)
        .ok_or_else(|| TokenFault::Body("no token in the answer".to_string()))
}

impl Auth {
    pub(crate) fn new(
        credentials: Arc<CredentialsSource>,
        env: Arc<OciEnv>,
        helper_timeout: Duration,
        client_id: String,
        plain_http_loopback: bool,
    ) -> Auth {
        Auth {
            credentials,
            env,
            helper_timeout,
            client_id,
            plain_http_loopback,
            repositories: Mutex::new(HashMap::new()),
        }
    }

    fn repository(&self, target: &Target) -> Arc<RepositoryAuth> {
        let key = (
            target.repository.request_host().to_string(),
            target.repository.repository().to_string(),
        );
        let mut repositories = match self.repositories.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        repositories.entry(key).or_default().clone()
    }

    /// The repository's credentials, chosen and (for a helper) fetched once.
    async fn credentials(
        &self,
        target: &Target,
        state: &RepositoryAuth,
    ) -> Result<Option<(Credentials, CredentialOrigin)>, OciError> {
        let resolved = state
            .credentials
            .get_or_init(|| async {
                let Some(selected) = self.credentials.select(&target.repository)? else {
                    return Ok(None);
                };
                let found = selected.credentials(&self.env, self.helper_timeout).await?;
                Ok(found.map(|credentials| (credentials, selected.origin)))
            })
            .await;
        resolved.clone().map_err(|source| OciError::Credentials {
            target: Box::new(target.clone()),
            source,
        })
    }

    /// Sends `request` (which must be clonable: a body of bytes), answering one
    /// challenge as the module documentation describes.
    pub(crate) async fn send(
        &self,
        client: &reqwest::Client,
        target: &Target,
        scopes: &Scopes,
        request: Request,
    ) -> Result<Exchange, OciError> {
        let state = self.repository(target);
        let url = request.url().clone();
        let hint_key = scopes.joined();
        let preset = lock(&state.cache).preset(&hint_key);
        let tried = |state: &RepositoryAuth| {
            Tried(match state.credentials.get() {
                Some(Ok(Some((_, origin)))) => Some(origin.clone()),
                _ => None,
            })
        };
        let first = send_once(
            client,
            target,
            &request,
            preset.as_ref().map(|(s, t)| (*s, t)),
        )
        .await?;
        if first.status() != 401 || !same_origin(&url, first.url()) {
            return Ok(Exchange {
                response: first,
                tried: tried(&state),
            });
        }
        let challenges: Vec<String> = first
            .headers()
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok().map(str::to_string))
            .collect();
        let Some(challenge) = first_known(challenges.iter().map(String::as_str)) else {
            return Ok(Exchange {
                response: first,
                tried: tried(&state),
            });
        };
        let response = match challenge.scheme {
            Scheme::Basic => {
                let token = self.basic(target, &state).await?;
                lock(&state.cache).set(Scheme::Basic, "", token.clone());
                send_once(client, target, &request, Some((Scheme::Basic, &token))).await?
            }
            Scheme::Bearer => {
                let mut all = scopes.clone();
                if let Some(scope) = challenge.param("scope") {
                    all.add_all(scope);
                }
                let key = all.joined();
                let mut stale = match &preset {
                    Some((Scheme::Bearer, token)) if key == hint_key => Some(token.clone()),
                    _ => None,
                };
                if key != hint_key {
                    let cached = lock(&state.cache).bearer.get(&key).cloned();
                    if let Some(token) = cached {
                        let again =
                            send_once(client, target, &request, Some((Scheme::Bearer, &token)))
                                .await?;
                        if again.status() != 401 {
                            return Ok(Exchange {
                                response: again,
                                tried: tried(&state),
                            });
                        }
                        stale = Some(token);
                    }
                }
                let token = self
                    .bearer(client, target, &challenge, &url, &all, stale)
                    .await?;
                send_once(client, target, &request, Some((Scheme::Bearer, &token))).await?
            }
        };
        Ok(Exchange {
            response,
            tried: tried(&state),
        })
    }

    /// `base64(username:password)` for a Basic challenge.
    async fn basic(&self, target: &Target, state: &RepositoryAuth) -> Result<Token, OciError> {
        let refuse = |reason| OciError::Challenge {
            target: Box::new(target.clone()),
            scheme: "Basic",
            reason,
        };
        match self.credentials(target, state).await? {
            None => Err(refuse("no credentials are configured for this repository")),
            Some((Credentials::OAuth { .. }, _)) => Err(refuse(
                "the credentials configured for it are tokens, not a username and password",
            )),
            Some((Credentials::Basic { username, password }, _)) => {
                if username.is_empty() || password.expose().is_empty() {
                    return Err(refuse("the configured username or password is empty"));
                }
                let pair = format!("{username}:{}", password.expose());
                Ok(Token::new(
                    base64::engine::general_purpose::STANDARD.encode(pair),
                ))
            }
        }
    }

    /// A token for `scopes`: from the cache if another request got one meanwhile (one
    /// other than `stale`, which the registry just refused), else fetched.
    async fn bearer(
        &self,
        client: &reqwest::Client,
        target: &Target,
        challenge: &Challenge,
        registry: &Url,
        scopes: &Scopes,
        stale: Option<Token>,
    ) -> Result<Token, OciError> {
        let key = scopes.joined();
        let state = self.repository(target);
        let _fetching = state.fetching.lock().await;
        let cached = lock(&state.cache).bearer.get(&key).cloned();
        if let Some(token) = cached.filter(|t| Some(t) != stale.as_ref()) {
            return Ok(token);
        }
        let credentials = self.credentials(target, &state).await?;
        let tried = Tried(credentials.as_ref().map(|(_, origin)| origin.clone()));
        let realm_text = challenge.param("realm").unwrap_or_default().to_string();
        let token_error = |fault: TokenFault| OciError::Token {
            target: Box::new(target.clone()),
            realm: realm_text.clone(),
            fault,
            tried: tried.clone(),
        };
        let realm = check_realm(challenge.param("realm"), registry, self.plain_http_loopback)
            .map_err(|reason| token_error(TokenFault::Realm(reason)))?;
        let service = challenge.param("service");
        let token = match credentials.as_ref().map(|(c, _)| c) {
            Some(Credentials::OAuth { access_token, .. }) if !access_token.expose().is_empty() => {
                access_token.clone()
            }
            Some(Credentials::OAuth { refresh_token, .. }) => {
                let request = self.oauth2_request(client, &realm, service, scopes, refresh_token);
                self.fetch_token(client, target, request, &token_error)
                    .await?
            }
            Some(Credentials::Basic { username, password }) => {
                let request = distribution_request(client, &realm, service, scopes)
                    .basic_auth(username, Some(password.expose()));
                self.fetch_token(client, target, request, &token_error)
                    .await?
            }
            None => {
                let request = distribution_request(client, &realm, service, scopes);
                self.fetch_token(client, target, request, &token_error)
                    .await?
            }
        };
        lock(&state.cache).set(Scheme::Bearer, &key, token.clone());
        Ok(token)
    }

    /// OAuth2's refresh-token grant (`fetchOAuth2Token`, `client.go:465-514`).
    fn oauth2_request(
        &self,
        client: &reqwest::Client,
        realm: &Url,
        service: Option<&str>,
        scopes: &Scopes,
        refresh_token: &Token,
    ) -> reqwest::RequestBuilder {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.append_pair("grant_type", "refresh_token")
            .append_pair("refresh_token", refresh_token.expose())
            .append_pair("service", service.unwrap_or_default())
            .append_pair("client_id", &self.client_id);
        let scope = scopes.joined();
        if !scope.is_empty() {
            form.append_pair("scope", &scope);
        }
        client
            .post(realm.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(form.finish())
    }

    async fn fetch_token(
        &self,
        client: &reqwest::Client,
        target: &Target,
        request: reqwest::RequestBuilder,
        token_error: &(dyn Fn(TokenFault) -> OciError + Send + Sync),
    ) -> Result<Token, OciError> {
        let request = request.build().map_err(|e| OciError::Setup {
            target: Box::new(target.clone()),
            reason: format!("token request: {e}"),
        })?;
        let (method, url) = (request.method().clone(), request.url().clone());
        let response = client
            .execute(request)
            .await
            .map_err(|e| transport(target, &method, &url, &e))?;
        let status = response.status().as_u16();
        if status != 200 {
            let codes = ErrorCodes::parse(&body::error_body(response).await);
            return Err(token_error(TokenFault::Status {
                status: Status(status),
                codes,
            }));
        }
        let bytes =
            body::read_capped(response, MAX_TOKEN_BODY)
                .await
                .map_err(|fault| match fault {
                    BodyFault::TooLarge { size } => token_error(TokenFault::Body(format!(
                        "{size} bytes is too long for a token answer"
                    ))),
                    BodyFault::Transport(e) => transport(target, &method, &url, &e),
                })?;
        token_from(&bytes).map_err(token_error)
    }
}

/// One attempt: a copy of `request` with `authorization`, if any.
async fn send_once(
    client: &reqwest::Client,
    target: &Target,
    request: &Request,
    authorization: Option<(Scheme, &Token)>,
) -> Result<Response, OciError> {
    let mut copy = request.try_clone().ok_or_else(|| OciError::Setup {
        target: Box::new(target.clone()),
        reason: "a request body that cannot be sent twice".to_string(),
    })?;
    if let Some(value) = authorization.and_then(|(scheme, token)| header(scheme, token)) {
        copy.headers_mut().insert(AUTHORIZATION, value);
    }
    client
        .execute(copy)
        .await
        .map_err(|e| transport(target, request.method(), request.url(), &e))
}

/// The distribution token request (`fetchDistributionToken`, `client.go:417-461`):
/// the realm's own query, then `service` and one `scope` per scope.
fn distribution_request(
    client: &reqwest::Client,
    realm: &Url,
    service: Option<&str>,
    scopes: &Scopes,
) -> reqwest::RequestBuilder {
    let mut url = realm.clone();
    {
        let mut query = url.query_pairs_mut();
        if let Some(service) = service {
            query.append_pair("service", service);
        }
        for scope in scopes.iter() {
            query.append_pair("scope", scope);
        }
    }
    client.get(url)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which realms get credentials, for a registry over https and one over plain
    /// HTTP on loopback.
    #[test]
    fn realm_table() {
        let https = Url::parse("https://registry.example/v2/x/tags/list").unwrap();
        let loopback = Url::parse("https://127.0.0.1:5000/v2/x/tags/list").unwrap();
        let plain = Url::parse("http://127.0.0.1:5000/v2/x/tags/list").unwrap();
        let cases: &[(&Url, bool, Option<&str>, bool)] = &[
            (&https, false, Some("https://auth.example/token"), true),
            (&https, false, Some("http://auth.example/token"), false),
            (&https, true, Some("http://127.0.0.1/token"), false),
            (&https, false, Some("ftp://auth.example/token"), false),
            (&https, false, Some("https://169.254.169.254/latest"), false),
            (&https, false, Some("https://10.0.0.1/token"), false),
            (&https, false, Some("https://[::1]/token"), false),
            (&https, false, Some("https://127.0.0.1/token"), false),
            (&https, false, Some("not a url"), false),
            (&https, false, None, false),
            // The registry's own host may be internal (tests, in-cluster registries).
            (&loopback, false, Some("https://127.0.0.1:9999/token"), true),
            (&plain, false, Some("http://127.0.0.1:9999/token"), false),
            (&plain, true, Some("http://127.0.0.1:9999/token"), true),
            (&plain, true, Some("http://localhost:9999/token"), true),
            (&plain, true, Some("http://auth.example/token"), false),
        ];
        for (registry, opt_in, realm, ok) in cases {
            let got = check_realm(*realm, registry, *opt_in);
            assert_eq!(got.is_ok(), *ok, "{registry} {opt_in} {realm:?}: {got:?}");
        }
    }

    #[test]
    fn token_answers() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            (r#"{"token":"t1","expires_in":300}"#, Ok("t1")),
            (r#"{"access_token":"a1"}"#, Ok("a1")),
            (r#"{"token":"t1","access_token":"a1"}"#, Ok("a1")),
            (r#"{"token":"","access_token":""}"#, Err("no token")),
            ("<html>", Err("not JSON")),
        ];
        for (body, want) in cases {
            let got = token_from(body.as_bytes());
            match (want, &got) {
                (Ok(token), Ok(got)) => assert_eq!(got.expose(), *token),
                (Err(reason), Err(fault)) => assert!(fault.to_string().contains(reason), "{fault}"),
                _ => panic!("{body}: {got:?}"),
            }
        }
    }

    #[test]
    fn origins_and_loopback() {
        let url = |s: &str| Url::parse(s).unwrap();
        assert!(same_origin(
            &url("https://a.example/x"),
            &url("https://A.example:443/y")
        ));
        assert!(!same_origin(
            &url("https://a.example/x"),
            &url("https://a.example:444/x")
        ));
        assert!(!same_origin(
            &url("https://a.example/x"),
            &url("http://a.example/x")
        ));
        for (host, want) in [
            ("127.0.0.1", true),
            ("127.1.2.3", true),
            ("[::1]", true),
            ("localhost", true),
            ("10.0.0.1", false),
            ("example.com", false),
        ] {
            assert_eq!(is_loopback(host), want, "{host}");
        }
    }
}
