//! [`OciClient`]: the OCI distribution API's requests, over tfsum's HTTP settings.
//!
//! | request | method | follows |
//! |---|---|---|
//! | [`OciClient::list_tags`] | `GET /v2/<repo>/tags/list`, then each `Link: <…>; rel="next"` (same origin, at most `max_tag_pages`) | oras-go v2.6.2 `registry/remote/repository.go:413-467`, `utils.go:35-63` |
//! | [`OciClient::resolve`] | `HEAD /v2/<repo>/manifests/<ref>` with every manifest type in `Accept`; `Content-Type`, `Content-Length` and (for a tag) `Docker-Content-Digest` required; a HEAD without the digest is done again as GET and hashed | `repository.go:1237-1264`, `:1579-1666` |
//! | [`OciClient::fetch_manifest`] | `GET …/manifests/<digest>`, `Accept:` its media type, which `Content-Type` must equal; at most 4 MiB; digest verified | `repository.go:1112-1155`; OpenTofu `oci_registry_mirror_source.go:749-777` |
//! | [`OciClient::fetch_blob_into`] | the stream below, into a sink made anew for each attempt (retried from the first byte, within the download deadline) | `download.rs`'s retry rules |
//! | [`OciClient::fetch_blob_stream`], `fetch_blob` (tests) | `GET /v2/<repo>/blobs/<digest>`, size-capped, sha256 verified as it streams | `repository.go:750-793`; OpenTofu `package_location_oci_blob_archive.go:202-262` |
//! | [`OciClient::blob_exists`] | `HEAD /v2/<repo>/blobs/<digest>` | `repository.go:979-989` |
//! | [`OciClient::push_blob`] | `POST /v2/<repo>/blobs/uploads/` (with `?mount=&from=` to mount from a sibling repository), then `PUT <Location>?digest=` with the whole blob; the `Location` may be relative and must stay on the registry's host and scheme | `repository.go:795-977` |
//! | [`OciClient::put_manifest`] | `PUT /v2/<repo>/manifests/<ref>`, the exact bytes, `Content-Type` the media type; the registry's digest checked against ours | `repository.go:1337-1394` |
//!
//! Every request goes through [`Auth`] (challenges, tokens) and the client is built from
//! [`crate::http::HttpConfig::client_builder`], so the proxies, trust roots, user
//! agent and connect timeout are the run's; the per-host bound is shared with every other
//! request through [`Http::permit`]. Whole requests are retried by the run's policy
//! ([`crate::retry`]); a blob stream is not (its reader restarts it). Registries are
//! reached over https; plain HTTP only to a loopback address and only when the caller
//! opts in ([`OciOptions::plain_http_loopback`], for tests), and no redirect may leave
//! https otherwise.

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::StreamExt as _;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE, LOCATION, RETRY_AFTER};
use reqwest::{Method, Request, Response, Url};

use crate::download::{Sink, SinkError};
use crate::http::Http;
use crate::retry;
use tfsum_vocab::url::SafeUrl;

use super::auth::{is_loopback, Auth, Exchange};
use super::body::{self, announced_length, BodyFault};
use super::challenge::Scopes;
use super::credentials::OciEnv;
use super::error::{classify, timed_out, transport, OciError, Operation, Target, Tried};
use super::manifest::{Descriptor, MANIFEST_ACCEPT};
use super::policy::CredentialsSource;
use super::reference::{ContentFault, Digest, DigestCheck, Reference, RepositoryAddr};

/// The largest manifest read or pushed, and the largest tag-list page: OpenTofu refuses
/// manifests over 4 MiB, ORAS reads at most 4 MiB of metadata (`utils.go:33`).
pub(crate) const MAX_MANIFEST: u64 = 4 << 20;

const DOCKER_CONTENT_DIGEST: &str = "docker-content-digest";

/// How the client behaves, beyond the run's HTTP settings.
#[derive(Debug, Clone)]
pub struct OciOptions {
    /// Plain HTTP to registries (and token realms) on a loopback address. Tests only:
    /// OpenTofu always uses https.
    pub plain_http_loopback: bool,
    /// The OAuth2 `client_id` of refresh-token grants; OpenTofu sends ORAS's default,
    /// `oras-go` (`registry/remote/auth/client.go:58-60`).
    pub client_id: String,
    /// The most `Link` pages of tags followed for one listing.
    pub max_tag_pages: usize,
    /// How long a credential helper may take.
    pub helper_timeout: Duration,
}

impl Default for OciOptions {
    fn default() -> OciOptions {
        OciOptions {
            plain_http_loopback: false,
            client_id: "oras-go".to_string(),
            max_tag_pages: 1000,
            helper_timeout: Duration::from_secs(60),
        }
    }
}

/// A blob as pushed: its digest and size, and whether the registry mounted it from
/// the other repository instead of receiving it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushedBlob {
    pub digest: Digest,
    pub size: u64,
    pub mounted: bool,
}

/// A blob's bytes as they arrive; the last item is an error if they are not what the
/// digest and size say.
pub(crate) type BlobStream = BoxStream<'static, Result<Bytes, OciError>>;

impl std::fmt::Debug for OciClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OciClient")
            .field("options", &self.options)
            .finish()
    }
}

/// The OCI client of a run.
pub struct OciClient {
    http: Http,
    client: OnceLock<Result<reqwest::Client, String>>,
    auth: Auth,
    options: OciOptions,
}

impl OciClient {
    pub(crate) fn new(
        http: Http,
        credentials: CredentialsSource,
        env: OciEnv,
        options: OciOptions,
    ) -> OciClient {
        let auth = Auth::new(
            Arc::new(credentials),
            Arc::new(env),
            options.helper_timeout,
            options.client_id.clone(),
            options.plain_http_loopback,
        );
        OciClient {
            http,
            client: OnceLock::new(),
            auth,
            options,
        }
    }

    /// The reqwest client, built on first use from the run's builder, with redirects
    /// that never leave https.
    fn client(&self, target: &Target) -> Result<&reqwest::Client, OciError> {
        let built = self.client.get_or_init(|| {
            let plain = self.options.plain_http_loopback;
            let policy = reqwest::redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() >= 10 {
                    return attempt.error("more than 10 redirects");
                }
                let url = attempt.url();
                let allowed = url.scheme() == "https"
                    || (plain && url.scheme() == "http" && url.host_str().is_some_and(is_loopback));
                if allowed {
                    attempt.follow()
                } else {
                    let refused = format!(
                        "a redirect to {} was refused: registries are reached over https",
                        SafeUrl::new(url)
                    );
                    attempt.error(refused)
                }
            });
            self.http
                .config()
                .client_builder()?
                .redirect(policy)
                .build()
                .map_err(|e| e.to_string())
        });
        built.as_ref().map_err(|reason| OciError::Setup {
            target: Box::new(target.clone()),
            reason: reason.clone(),
        })
    }

    /// `https://<host>/v2/<repository>/<tail>` (or `http://` on loopback when allowed).
    pub(super) fn url(&self, target: &Target, tail: &str) -> Result<Url, OciError> {
        let repository = &target.repository;
        let scheme = if self.options.plain_http_loopback && is_loopback(repository.host_name()) {
            "http"
        } else {
            "https"
        };
        let text = format!(
            "{scheme}://{}/v2/{}/{tail}",
            repository.request_host(),
            repository.repository()
        );
        Url::parse(&text).map_err(|e| OciError::Setup {
            target: Box::new(target.clone()),
            reason: format!("cannot build the URL {text:?}: {e}"),
        })
    }

    /// One request through the auth layer, holding a place among the host's requests
    /// until the answer is dropped.
    async fn exchange(
        &self,
        target: &Target,
        scopes: &Scopes,
        request: Request,
    ) -> Result<(Exchange, Option<tokio::sync::OwnedSemaphorePermit>), OciError> {
        let client = self.client(target)?;
        let permit = self.http.permit(request.url()).await;
        let exchange = self.auth.send(client, target, scopes, request).await?;
        Ok((exchange, permit))
    }

    async fn retrying<T, F, Fut>(&self, attempt: F) -> Result<T, OciError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, OciError>>,
    {
        retry::retrying(self.http.retry_policy(), attempt)
            .await
            .map_err(|gave_up| gave_up.error)
    }

    fn request_timeout(&self) -> Duration {
        self.http.config().request_timeout
    }

    fn transfer_deadline(&self) -> Duration {
        self.http.config().download_deadline
    }

    /// The tags of a repository, every page.
    pub async fn list_tags(&self, repository: &RepositoryAddr) -> Result<Vec<String>, OciError> {
        let target = target(repository, Operation::ListTags);
        let scopes = pull(repository);
        let mut url = self.url(&target, "tags/list")?;
        let mut tags = Vec::new();
        for _ in 0..self.options.max_tag_pages.max(1) {
            let (page, next) = self
                .retrying(|| self.tags_page(&target, &scopes, &url))
                .await?;
            tags.extend(page);
            match next {
                Some(next) => url = next,
                None => return Ok(tags),
            }
        }
        Err(invalid(
            &target,
            &Method::GET,
            &url,
            format!(
                "more than {} pages of tags; giving up",
                self.options.max_tag_pages.max(1)
            ),
        ))
    }

    async fn tags_page(
        &self,
        target: &Target,
        scopes: &Scopes,
        url: &Url,
    ) -> Result<(Vec<String>, Option<Url>), OciError> {
        #[derive(serde::Deserialize)]
        struct TagList {
            #[serde(default)]
            tags: Option<Vec<String>>,
        }
        let method = Method::GET;
        within(target, &method, url, self.request_timeout(), async {
            let request = Request::new(method.clone(), url.clone());
            let (exchange, _permit) = self.exchange(target, scopes, request).await?;
            let response = answered(target, &method, exchange, &[200]).await?;
            let at = response.url().clone();
            let next = next_link(response.headers(), &at)
                .map_err(|rule| invalid(target, &method, &at, rule))?;
            let body = read(target, &method, response, MAX_MANIFEST).await?;
            let list: TagList = serde_json::from_slice(&body).map_err(|e| {
                invalid(
                    target,
                    &method,
                    &at,
                    format!("the tag list is not JSON: {e}"),
                )
            })?;
            Ok((list.tags.unwrap_or_default(), next))
        })
        .await
    }

    /// What a tag or digest points to: media type, digest and size.
    pub async fn resolve(
        &self,
        repository: &RepositoryAddr,
        reference: &Reference,
    ) -> Result<Descriptor, OciError> {
        let target = target(repository, Operation::Resolve(reference.clone()));
        let scopes = pull(repository);
        let url = self.url(&target, &format!("manifests/{reference}"))?;
        self.retrying(|| async {
            match self
                .resolve_by_head(&target, &scopes, &url, reference)
                .await?
            {
                Some(found) => Ok(found),
                None => self.resolve_by_get(&target, &scopes, &url).await,
            }
        })
        .await
    }

    /// HEAD; `None` when the registry does not say the digest of a tag.
    async fn resolve_by_head(
        &self,
        target: &Target,
        scopes: &Scopes,
        url: &Url,
        reference: &Reference,
    ) -> Result<Option<Descriptor>, OciError> {
        let method = Method::HEAD;
        within(target, &method, url, self.request_timeout(), async {
            let (answer, _permit) = self.ask_manifest(target, scopes, url, &method).await?;
            let at = &answer.at;
            let size = announced_length(&answer.response)
                .ok_or_else(|| invalid(target, &method, at, "no Content-Length".into()))?;
            let digest = match (answer.said, reference.digest()) {
                (Some(said), Some(asked)) if said != asked => {
                    return Err(invalid(
                        target,
                        &method,
                        at,
                        format!("Docker-Content-Digest is {said}, not the {asked} asked for"),
                    ))
                }
                (Some(digest), _) | (None, Some(digest)) => digest,
                (None, None) => return Ok(None),
            };
            Ok(Some(Descriptor::new(&answer.media_type, digest, size)))
        })
        .await
    }

    /// GET, hashing the manifest (a registry whose HEAD does not say the digest).
    async fn resolve_by_get(
        &self,
        target: &Target,
        scopes: &Scopes,
        url: &Url,
    ) -> Result<Descriptor, OciError> {
        let method = Method::GET;
        within(target, &method, url, self.request_timeout(), async {
            let (answer, _permit) = self.ask_manifest(target, scopes, url, &method).await?;
            let ManifestAnswer {
                response,
                at,
                media_type,
                said,
            } = answer;
            let body = read(target, &method, response, MAX_MANIFEST).await?;
            let digest = Digest::of(&body);
            if let Some(said) = said.filter(|said| *said != digest) {
                return Err(content(
                    target,
                    &at,
                    ContentFault::Mismatch {
                        expected: said,
                        actual: digest,
                    },
                ));
            }
            Ok(Descriptor::new(&media_type, digest, body.len() as u64))
        })
        .await
    }

    /// The request both ways of resolving make: the manifest at `url` by `method`, any
    /// manifest type accepted, answered 200 with a media type and, if the registry says
    /// one, a well-formed digest; with the connection slot, held until the body is read.
    async fn ask_manifest(
        &self,
        target: &Target,
        scopes: &Scopes,
        url: &Url,
        method: &Method,
    ) -> Result<(ManifestAnswer, Option<tokio::sync::OwnedSemaphorePermit>), OciError> {
        let mut request = Request::new(method.clone(), url.clone());
        request
            .headers_mut()
            .insert(ACCEPT, HeaderValue::from_static(MANIFEST_ACCEPT));
        let (exchange, permit) = self.exchange(target, scopes, request).await?;
        let response = answered(target, method, exchange, &[200]).await?;
        let at = response.url().clone();
        let media_type = media_type(response.headers())
            .ok_or_else(|| invalid(target, method, &at, "no Content-Type".into()))?;
        let said =
            header_digest(response.headers()).map_err(|rule| invalid(target, method, &at, rule))?;
        let answer = ManifestAnswer {
            response,
            at,
            media_type,
            said,
        };
        Ok((answer, permit))
    }

    /// A manifest by its descriptor, verified: its media type, size and digest.
    pub async fn fetch_manifest(
        &self,
        repository: &RepositoryAddr,
        descriptor: &Descriptor,
    ) -> Result<Bytes, OciError> {
        let target = target(repository, Operation::FetchManifest(descriptor.digest));
        if descriptor.size > MAX_MANIFEST {
            return Err(OciError::TooLarge {
                target: Box::new(target),
                size: descriptor.size,
                limit: MAX_MANIFEST,
            });
        }
        let accept =
            HeaderValue::from_str(&descriptor.media_type).map_err(|_| OciError::Setup {
                target: Box::new(target.clone()),
                reason: format!("the media type {:?} cannot be sent", descriptor.media_type),
            })?;
        let scopes = pull(repository);
        let url = self.url(&target, &format!("manifests/{}", descriptor.digest))?;
        let method = Method::GET;
        self.retrying(|| {
            within(&target, &method, &url, self.request_timeout(), async {
                let mut request = Request::new(method.clone(), url.clone());
                request.headers_mut().insert(ACCEPT, accept.clone());
                let (exchange, _permit) = self.exchange(&target, &scopes, request).await?;
                let response = answered(&target, &method, exchange, &[200]).await?;
                let at = response.url().clone();
                let got = media_type(response.headers()).unwrap_or_default();
                if got != descriptor.media_type {
                    return Err(invalid(
                        &target,
                        &method,
                        &at,
                        format!(
                            "Content-Type is {got:?}, not the {:?} asked for",
                            descriptor.media_type
                        ),
                    ));
                }
                check_headers(
                    &target,
                    &method,
                    &at,
                    &response,
                    descriptor.digest,
                    descriptor.size,
                )?;
                let body = read(&target, &method, response, descriptor.size)
                    .await
                    .map_err(|e| too_large_is_too_long(e, &target, &at, descriptor.size))?;
                let mut check = DigestCheck::new(descriptor.digest, descriptor.size);
                check
                    .update(&body)
                    .and_then(|()| check.finish())
                    .map_err(|fault| content(&target, &at, fault))?;
                Ok(body)
            })
        })
        .await
    }

    /// A blob whole, verified; refused unread when `size` exceeds `max`.
    #[cfg(test)]
    pub(crate) async fn fetch_blob(
        &self,
        repository: &RepositoryAddr,
        digest: Digest,
        size: u64,
        max: u64,
    ) -> Result<Bytes, OciError> {
        let target = target(repository, Operation::FetchBlob(digest));
        let url = self.url(&target, &format!("blobs/{digest}"))?;
        self.retrying(|| {
            within(
                &target,
                &Method::GET,
                &url,
                self.transfer_deadline(),
                async {
                    let mut stream = self
                        .fetch_blob_stream(repository, digest, size, max)
                        .await?;
                    let mut body = bytes::BytesMut::new();
                    while let Some(chunk) = stream.next().await {
                        body.extend_from_slice(&chunk?);
                    }
                    Ok(body.freeze())
                },
            )
        })
        .await
    }

    /// A blob streamed into sinks made by `sink` (one per attempt: a transient failure
    /// restarts the blob from its first byte, within the run's download deadline),
    /// checked against `digest` and `size` as it arrives; the sink's output once the
    /// whole blob verified. A sink that refuses the content ends it without retries.
    pub async fn fetch_blob_into<S: Sink>(
        &self,
        repository: &RepositoryAddr,
        digest: Digest,
        size: u64,
        max: u64,
        mut sink: impl FnMut() -> Result<S, SinkError>,
    ) -> Result<S::Output, OciError> {
        let target = target(repository, Operation::FetchBlob(digest));
        let url = self.url(&target, &format!("blobs/{digest}"))?;
        let sink_error = |error| OciError::Sink {
            target: Box::new(target.clone()),
            error,
        };
        self.retrying(|| {
            let made = sink();
            within(
                &target,
                &Method::GET,
                &url,
                self.transfer_deadline(),
                async {
                    let mut sink = made.map_err(sink_error)?;
                    let mut stream =
                        match self.fetch_blob_stream(repository, digest, size, max).await {
                            Ok(stream) => stream,
                            Err(e) => {
                                sink.abandon().await;
                                return Err(e);
                            }
                        };
                    while let Some(chunk) = stream.next().await {
                        let written = match chunk {
                            Ok(chunk) => sink.write(chunk).await.map_err(sink_error),
                            Err(e) => Err(e),
                        };
                        if let Err(e) = written {
                            sink.abandon().await;
                            return Err(e);
                        }
                    }
                    sink.finish().await.map_err(sink_error)
                },
            )
        })
        .await
    }

    /// A blob as a stream, checked as it arrives (see [`BlobStream`]). Each chunk must
    /// come within the run's idle timeout; the caller bounds the whole, and restarts
    /// it on a transient error (nothing is retried here).
    pub(crate) async fn fetch_blob_stream(
        &self,
        repository: &RepositoryAddr,
        digest: Digest,
        size: u64,
        max: u64,
    ) -> Result<BlobStream, OciError> {
        let target = target(repository, Operation::FetchBlob(digest));
        if size > max {
            return Err(OciError::TooLarge {
                target: Box::new(target),
                size,
                limit: max,
            });
        }
        let scopes = pull(repository);
        let url = self.url(&target, &format!("blobs/{digest}"))?;
        let method = Method::GET;
        let (response, permit) = within(&target, &method, &url, self.request_timeout(), async {
            let request = Request::new(method.clone(), url.clone());
            let (exchange, permit) = self.exchange(&target, &scopes, request).await?;
            let response = answered(&target, &method, exchange, &[200]).await?;
            Ok((response, permit))
        })
        .await?;
        let at = response.url().clone();
        check_headers(&target, &method, &at, &response, digest, size)?;
        let idle = self.http.config().stream_idle_timeout;
        let state = Some((
            response.bytes_stream().boxed(),
            DigestCheck::new(digest, size),
            permit,
        ));
        let stream = futures::stream::unfold(state, move |state| {
            let (target, at) = (target.clone(), at.clone());
            async move {
                let (mut body, mut check, permit) = state?;
                let failed = |error| Some((Err(error), None));
                match tokio::time::timeout(idle, body.next()).await {
                    Err(_) => failed(OciError::Transport {
                        target: Box::new(target),
                        method: Method::GET,
                        url: SafeUrl::new(&at),
                        kind: crate::http::TransportKind::Timeout,
                        message: format!("no data received for {idle:?}"),
                    }),
                    Ok(Some(Err(e))) => failed(transport(&target, &Method::GET, &at, &e)),
                    Ok(Some(Ok(chunk))) => match check.update(&chunk) {
                        Ok(()) => Some((Ok(chunk), Some((body, check, permit)))),
                        Err(fault) => failed(content(&target, &at, fault)),
                    },
                    Ok(None) => match check.finish() {
                        Ok(_) => None,
                        Err(fault) => failed(content(&target, &at, fault)),
                    },
                }
            }
        });
        Ok(stream.boxed())
    }

    /// Whether the repository holds the blob.
    pub async fn blob_exists(
        &self,
        repository: &RepositoryAddr,
        digest: Digest,
    ) -> Result<bool, OciError> {
        let target = target(repository, Operation::BlobExists(digest));
        let scopes = pull(repository);
        let url = self.url(&target, &format!("blobs/{digest}"))?;
        let method = Method::HEAD;
        self.retrying(|| {
            within(&target, &method, &url, self.request_timeout(), async {
                let request = Request::new(method.clone(), url.clone());
                let (exchange, _permit) = self.exchange(&target, &scopes, request).await?;
                match answered(&target, &method, exchange, &[200]).await {
                    Ok(_) => Ok(true),
                    Err(e) if e.is_not_found() => Ok(false),
                    Err(e) => Err(e),
                }
            })
        })
        .await
    }

    /// Uploads `blob` monolithically, or mounts it from `mount_from` (a repository of
    /// the same registry) when the registry can; a registry that cannot mount starts an
    /// upload instead, and the blob is sent.
    pub async fn push_blob(
        &self,
        repository: &RepositoryAddr,
        blob: &Bytes,
        mount_from: Option<&str>,
    ) -> Result<PushedBlob, OciError> {
        let digest = Digest::of(blob);
        let size = blob.len() as u64;
        let target = target(repository, Operation::UploadBlob(digest));
        let mut scopes = push(repository);
        let mut url = self.url(&target, "blobs/uploads/")?;
        if let Some(from) = mount_from {
            let from = repository.sibling(from)?;
            scopes.merge(&pull(&from));
            url.query_pairs_mut()
                .append_pair("mount", &digest.to_string())
                .append_pair("from", from.repository());
        }
        self.retrying(|| {
            within(
                &target,
                &Method::POST,
                &url,
                self.transfer_deadline(),
                async {
                    let start = Request::new(Method::POST, url.clone());
                    let (exchange, permit) = self.exchange(&target, &scopes, start).await?;
                    let response = answered(&target, &Method::POST, exchange, &[201, 202]).await?;
                    let at = response.url().clone();
                    if response.status() == 201 {
                        // A mount's answer has no body: only its digest header counts.
                        check_digest(&target, &Method::POST, &at, &response, digest)?;
                        return Ok(PushedBlob {
                            digest,
                            size,
                            mounted: true,
                        });
                    }
                    let location = upload_location(&target, &url, &response)?;
                    drop(response);
                    drop(permit);
                    let mut put_url = location;
                    put_url
                        .query_pairs_mut()
                        .append_pair("digest", &digest.to_string());
                    let mut put = Request::new(Method::PUT, put_url.clone());
                    put.headers_mut().insert(
                        CONTENT_TYPE,
                        HeaderValue::from_static("application/octet-stream"),
                    );
                    *put.body_mut() = Some(blob.clone().into());
                    let (exchange, _permit) = self.exchange(&target, &scopes, put).await?;
                    let response = answered(&target, &Method::PUT, exchange, &[201]).await?;
                    check_digest(&target, &Method::PUT, &put_url, &response, digest)?;
                    Ok(PushedBlob {
                        digest,
                        size,
                        mounted: false,
                    })
                },
            )
        })
        .await
    }

    /// Pushes a manifest's exact bytes under a tag or its digest; returns the digest,
    /// which the registry's `Docker-Content-Digest` must agree with.
    pub async fn put_manifest(
        &self,
        repository: &RepositoryAddr,
        reference: &Reference,
        media_type: &str,
        manifest: &Bytes,
    ) -> Result<Digest, OciError> {
        let target = target(repository, Operation::PutManifest(reference.clone()));
        let digest = Digest::of(manifest);
        let url = self.url(&target, &format!("manifests/{reference}"))?;
        if manifest.len() as u64 > MAX_MANIFEST {
            return Err(OciError::TooLarge {
                target: Box::new(target),
                size: manifest.len() as u64,
                limit: MAX_MANIFEST,
            });
        }
        if let Some(asked) = reference.digest().filter(|asked| *asked != digest) {
            return Err(content(
                &target,
                &url,
                ContentFault::Mismatch {
                    expected: asked,
                    actual: digest,
                },
            ));
        }
        let content_type = HeaderValue::from_str(media_type).map_err(|_| OciError::Setup {
            target: Box::new(target.clone()),
            reason: format!("the media type {media_type:?} cannot be sent"),
        })?;
        let scopes = push(repository);
        let method = Method::PUT;
        self.retrying(|| {
            within(&target, &method, &url, self.request_timeout(), async {
                let mut request = Request::new(method.clone(), url.clone());
                request.headers_mut().insert(CONTENT_TYPE, content_type.clone());
                *request.body_mut() = Some(manifest.clone().into());
                let (exchange, _permit) = self.exchange(&target, &scopes, request).await?;
                let response = answered(&target, &method, exchange, &[201]).await?;
                let at = response.url().clone();
                let said = header_digest(response.headers())
                    .map_err(|rule| invalid(&target, &method, &at, rule))?;
                match said {
                    Some(said) if said != digest => Err(invalid(
                        &target,
                        &method,
                        &at,
                        format!("the registry stored the manifest as {said}, but its bytes hash to {digest}"),
                    )),
                    _ => Ok(digest),
                }
            })
        })
        .await
    }
}

fn target(repository: &RepositoryAddr, operation: Operation) -> Target {
    Target {
        repository: repository.clone(),
        operation,
    }
}

fn pull(repository: &RepositoryAddr) -> Scopes {
    Scopes::repository(repository.repository(), &["pull"])
}

/// Writing needs both actions (distribution's `app.go:921-930`, as ORAS notes).
fn push(repository: &RepositoryAddr) -> Scopes {
    Scopes::repository(repository.repository(), &["pull", "push"])
}

/// A registry's 200 answer to a manifest request ([`OciClient::ask_manifest`]).
struct ManifestAnswer {
    response: Response,
    /// Where the answer came from (after redirects), for errors.
    at: Url,
    media_type: String,
    /// The `Docker-Content-Digest` it says, if any.
    said: Option<Digest>,
}

/// `work`, or a timeout error naming the request after `after`.
async fn within<T>(
    target: &Target,
    method: &Method,
    url: &Url,
    after: Duration,
    work: impl Future<Output = Result<T, OciError>>,
) -> Result<T, OciError> {
    tokio::time::timeout(after, work)
        .await
        .map_err(|_| timed_out(target, method, url, after))?
}

/// The answer when its status is one of `wanted`, else the classified failure.
async fn answered(
    target: &Target,
    method: &Method,
    exchange: Exchange,
    wanted: &[u16],
) -> Result<Response, OciError> {
    let Exchange { response, tried } = exchange;
    let status = response.status().as_u16();
    if wanted.contains(&status) {
        return Ok(response);
    }
    Err(refused(target, method, response, tried).await)
}

async fn refused(target: &Target, method: &Method, response: Response, tried: Tried) -> OciError {
    let status = response.status().as_u16();
    let url = response.url().clone();
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| retry::parse_retry_after(v, SystemTime::now()));
    let body = body::error_body(response).await;
    classify(target, method, &url, status, retry_after, &body, tried)
}

async fn read(
    target: &Target,
    method: &Method,
    response: Response,
    limit: u64,
) -> Result<Bytes, OciError> {
    let url = response.url().clone();
    body::read_capped(response, limit)
        .await
        .map_err(|fault| match fault {
            BodyFault::TooLarge { size } => OciError::TooLarge {
                target: Box::new(target.clone()),
                size,
                limit,
            },
            BodyFault::Transport(e) => transport(target, method, &url, &e),
        })
}

/// A body longer than its descriptor is a content fault, not a size limit.
fn too_large_is_too_long(error: OciError, target: &Target, url: &Url, size: u64) -> OciError {
    match error {
        OciError::TooLarge { size: seen, .. } => {
            content(target, url, ContentFault::TooLong { size, seen })
        }
        other => other,
    }
}

fn invalid(target: &Target, method: &Method, url: &Url, rule: String) -> OciError {
    OciError::InvalidResponse {
        target: Box::new(target.clone()),
        method: method.clone(),
        url: SafeUrl::new(url),
        rule,
    }
}

fn content(target: &Target, url: &Url, fault: ContentFault) -> OciError {
    OciError::Content {
        target: Box::new(target.clone()),
        url: SafeUrl::new(url),
        fault,
    }
}

/// The media type of `Content-Type`, parameters dropped, lower-cased (as Go's
/// `mime.ParseMediaType`).
fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    let media_type = value.split(';').next()?.trim().to_ascii_lowercase();
    (media_type.contains('/') && !media_type.starts_with('/') && !media_type.ends_with('/'))
        .then_some(media_type)
}

/// `Docker-Content-Digest`, if sent; one that is not a sha256 digest is an error.
fn header_digest(headers: &HeaderMap) -> Result<Option<Digest>, String> {
    let Some(value) = headers.get(DOCKER_CONTENT_DIGEST) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| "Docker-Content-Digest is not text".to_string())?;
    Digest::parse(text.trim())
        .map(Some)
        .map_err(|e| format!("Docker-Content-Digest: {e}"))
}

/// `Content-Length` and `Docker-Content-Digest`, where sent, agree with the descriptor
/// (ORAS's checks, `repository.go:770-775`, `:1146-1153`).
fn check_headers(
    target: &Target,
    method: &Method,
    url: &Url,
    response: &Response,
    digest: Digest,
    size: u64,
) -> Result<(), OciError> {
    if let Some(length) = announced_length(response).filter(|n| *n != size) {
        return Err(invalid(
            target,
            method,
            url,
            format!("Content-Length is {length}, the descriptor says {size}"),
        ));
    }
    check_digest(target, method, url, response, digest)
}

/// `Docker-Content-Digest`, where sent, is `digest` (`verifyContentDigest`,
/// `repository.go:1684-1711`).
fn check_digest(
    target: &Target,
    method: &Method,
    url: &Url,
    response: &Response,
    digest: Digest,
) -> Result<(), OciError> {
    match header_digest(response.headers()).map_err(|rule| invalid(target, method, url, rule))? {
        Some(said) if said != digest => Err(invalid(
            target,
            method,
            url,
            format!("Docker-Content-Digest is {said}, not {digest}"),
        )),
        _ => Ok(()),
    }
}

/// Where to send an upload: `Location`, resolved against the answer's URL (it may be
/// relative, and is with `relativeurls`), on the registry's own host and port and never
/// from https down to http (ORAS's checks against leaking credentials,
/// `repository.go:918-950`).
fn upload_location(target: &Target, asked: &Url, response: &Response) -> Result<Url, OciError> {
    let at = response.url();
    let rule = |rule: String| invalid(target, &Method::POST, at, rule);
    let location = response
        .headers()
        .get(LOCATION)
        .ok_or_else(|| rule("an upload started without a Location".into()))?
        .to_str()
        .map_err(|_| rule("the upload Location is not text".into()))?;
    let location = at.join(location).map_err(|e| {
        rule(format!(
            "the upload Location {location:?} is not a URL: {e}"
        ))
    })?;
    let same_host = location.host_str().map(str::to_ascii_lowercase)
        == asked.host_str().map(str::to_ascii_lowercase)
        && location.port_or_known_default() == asked.port_or_known_default();
    if !same_host {
        return Err(rule(format!(
            "the upload Location {} is on another host than the registry",
            SafeUrl::new(&location)
        )));
    }
    if asked.scheme() == "https" && location.scheme() != "https" {
        return Err(rule(format!(
            "the upload Location {} leaves https",
            SafeUrl::new(&location)
        )));
    }
    Ok(location)
}

/// The next page of a listing: the `Link` whose `rel` includes `next`, resolved against
/// the page's URL and on its origin (a registry may not send the client elsewhere).
/// ORAS follows any first `Link`; one with another `rel` is not a next page here.
pub(crate) fn next_link(headers: &HeaderMap, base: &Url) -> Result<Option<Url>, String> {
    for value in headers.get_all(reqwest::header::LINK) {
        let text = value
            .to_str()
            .map_err(|_| "a Link header is not text".to_string())?;
        let Some(target) = link_values(text)
            .into_iter()
            .find(|(_, rels)| rels.iter().any(|rel| rel.eq_ignore_ascii_case("next")))
            .map(|(target, _)| target)
        else {
            continue;
        };
        let next = base
            .join(&target)
            .map_err(|e| format!("the next-page Link {target:?} is not a URL: {e}"))?;
        let same_origin = next.scheme() == base.scheme()
            && next.host_str() == base.host_str()
            && next.port_or_known_default() == base.port_or_known_default();
        if !same_origin {
            return Err(format!(
                "the next-page Link {} is on another origin than {}",
                SafeUrl::new(&next),
                SafeUrl::new(base)
            ));
        }
        return Ok(Some(next));
    }
    Ok(None)
}

/// `<target>; rel="a b"; other=x, <target2>; …` as (target, rel values) pairs (RFC 8288).
fn link_values(text: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        let Some(after) = rest.strip_prefix('<') else {
            return found;
        };
        let Some((target, after)) = after.split_once('>') else {
            return found;
        };
        // Parameters run to the next comma outside a quoted string.
        let mut in_quotes = false;
        let end = after
            .char_indices()
            .find(|(_, c)| {
                if *c == '"' {
                    in_quotes = !in_quotes;
                }
                *c == ',' && !in_quotes
            })
            .map_or(after.len(), |(i, _)| i);
        let (params, after) = after.split_at(end);
        let rels = params
            .split(';')
            .filter_map(|param| {
                let (name, value) = param.split_once('=')?;
                name.trim()
                    .eq_ignore_ascii_case("rel")
                    .then(|| value.trim().trim_matches('"').to_string())
            })
            .flat_map(|value| {
                value
                    .split_whitespace()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        found.push((target.trim().to_string(), rels));
        rest = after;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_headers() {
        let base = Url::parse("https://registry.example/v2/a/b/tags/list").unwrap();
        let headers = |values: &[&str]| {
            let mut map = HeaderMap::new();
            for v in values {
                map.append(reqwest::header::LINK, HeaderValue::from_str(v).unwrap());
            }
            map
        };
        // Link header values, and the next page (or what the error says).
        type Row = (
            &'static [&'static str],
            Result<Option<&'static str>, &'static str>,
        );
        let cases: &[Row] = &[
            (&[], Ok(None)),
            (
                &[r#"</v2/a/b/tags/list?last=x&n=100>; rel="next""#],
                Ok(Some(
                    "https://registry.example/v2/a/b/tags/list?last=x&n=100",
                )),
            ),
            (
                &[r#"<https://registry.example/v2/a/b/tags/list?last=y>; rel=next"#],
                Ok(Some("https://registry.example/v2/a/b/tags/list?last=y")),
            ),
            (
                &[r#"</first>; rel="first", </x?a=1,2>; title="p, q"; rel="prefetch next""#],
                Ok(Some("https://registry.example/x?a=1,2")),
            ),
            (
                &[r#"</prev>; rel="prev""#, r#"</n2>; REL="Next""#],
                Ok(Some("https://registry.example/n2")),
            ),
            (&[r#"</other>; rel="prev""#], Ok(None)),
            (&["garbage"], Ok(None)),
            (
                &[r#"<https://evil.example/v2/a/b/tags/list>; rel="next""#],
                Err("another origin"),
            ),
            (
                &[r#"<http://registry.example/v2/x>; rel="next""#],
                Err("another origin"),
            ),
            (
                &[r#"<https://registry.example:8443/x>; rel="next""#],
                Err("another origin"),
            ),
        ];
        for (values, want) in cases {
            let got = next_link(&headers(values), &base);
            match (want, &got) {
                (Ok(want), Ok(got)) => {
                    assert_eq!(got.as_ref().map(Url::as_str), *want, "{values:?}")
                }
                (Err(rule), Err(e)) => assert!(e.contains(rule), "{values:?}: {e}"),
                _ => panic!("{values:?}: {got:?}"),
            }
        }
    }

    #[test]
    fn content_types_and_digest_headers() {
        let mut headers = HeaderMap::new();
        assert_eq!(media_type(&headers), None);
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("Application/VND.oci.image.index.v1+json; charset=utf-8"),
        );
        assert_eq!(
            media_type(&headers).as_deref(),
            Some("application/vnd.oci.image.index.v1+json")
        );
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("nonsense"));
        assert_eq!(media_type(&headers), None);
        assert_eq!(header_digest(&headers), Ok(None));
        let digest = Digest::of(b"x");
        headers.insert(
            DOCKER_CONTENT_DIGEST,
            HeaderValue::from_str(&digest.to_string()).unwrap(),
        );
        assert_eq!(header_digest(&headers), Ok(Some(digest)));
        headers.insert(
            DOCKER_CONTENT_DIGEST,
            HeaderValue::from_static("sha512:abc"),
        );
        assert!(header_digest(&headers).unwrap_err().contains("only sha256"));
    }
}
