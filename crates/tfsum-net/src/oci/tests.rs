//! The client against registries: the real one (Debian's docker-registry, skipped when
//! it is not installed; see `tests/support/oci_registry.rs`), the Bearer front with its
//! token service in front of it, and small in-process registries that lie.

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use bytes::Bytes;
use futures::StreamExt as _;

use crate::cliconfig::Token;
use crate::http::test_support::{serve, test_config};
use crate::http::Http;

use super::client::MAX_MANIFEST;
use super::credentials::{
    AmbientFiles, ConfiguredCredential, Credentials, CredentialsEntry, DefaultCredentials,
    HelperName,
};
use super::error::{ErrorCode, Operation, Target};
use super::policy::CredentialsSource;
use super::reference::{ContentFault, RepositoryPrefix};
use super::test_support::oci_registry::{
    BearerFront, Registry, RegistryOptions, TokenPolicy, PASSWORD, SERVICE, USER,
};
use super::{
    Descriptor, Digest, ImageIndex, ImageManifest, OciClient, OciEnv, OciError, OciOptions,
    Platform, Reference, RepositoryAddr, Tag, OCI_EMPTY, OCI_INDEX, OCI_MANIFEST,
};

const PROVIDER: &str = "application/vnd.opentofu.provider";
const PROVIDER_TARGET: &str = "application/vnd.opentofu.provider-target";

fn env() -> OciEnv {
    OciEnv {
        os: "linux".to_string(),
        ..OciEnv::default()
    }
}

fn client_with(credentials: CredentialsSource, env: OciEnv, options: OciOptions) -> OciClient {
    OciClient::new(Http::new(test_config()), credentials, env, options)
}

/// Credentials from one explicit entry for `prefix`.
fn explicit(prefix: &str, credential: ConfiguredCredential) -> CredentialsSource {
    let entry =
        CredentialsEntry::new(RepositoryPrefix::parse(prefix).unwrap(), credential, None).unwrap();
    let defaults = DefaultCredentials {
        ambient: AmbientFiles::Off,
        helper: None,
    };
    CredentialsSource::new(vec![entry], &defaults, &env())
        .unwrap()
        .0
}

fn basic(user: &str, password: &str) -> ConfiguredCredential {
    ConfiguredCredential::Static(Credentials::Basic {
        username: user.to_string(),
        password: Token::new(password),
    })
}

fn repo(host: &str, path: &str) -> RepositoryAddr {
    RepositoryAddr::parse(&format!("{host}/{path}")).unwrap()
}

fn tag(name: &str) -> Reference {
    Reference::Tag(Tag::parse(name).unwrap())
}

fn json_bytes(value: &impl serde::Serialize) -> Bytes {
    Bytes::from(serde_json::to_vec(value).unwrap())
}

/// An OpenTofu provider version as an OCI mirror holds it: an empty config blob, one
/// zip per platform, one image manifest per platform, and the index the tag names.
struct Artifact {
    config: Bytes,
    zips: Vec<Bytes>,
    manifests: Vec<Bytes>,
    index: Bytes,
}

fn provider_artifact(version: &str) -> Artifact {
    let config = Bytes::from_static(b"{}");
    let platforms = [("linux", "amd64"), ("darwin", "arm64")];
    let mut zips = Vec::new();
    let mut manifests = Vec::new();
    let mut entries = Vec::new();
    for (os, arch) in platforms {
        let zip = Bytes::from(format!(
            "PK\x03\x04 terraform-provider-tls_{version}_{os}_{arch}.zip"
        ));
        let platform = Platform {
            architecture: arch.to_string(),
            os: os.to_string(),
            os_version: None,
            variant: None,
        };
        let mut layer = Descriptor::new("archive/zip", Digest::of(&zip), zip.len() as u64);
        layer.platform = Some(platform.clone());
        let mut config_descriptor = Descriptor::new(OCI_EMPTY, Digest::of(&config), 2);
        config_descriptor.data = Some("e30=".to_string());
        let manifest = json_bytes(&ImageManifest {
            schema_version: 2,
            media_type: Some(OCI_MANIFEST.to_string()),
            artifact_type: Some(PROVIDER_TARGET.to_string()),
            config: config_descriptor,
            layers: vec![layer],
        });
        let mut entry = Descriptor::new(OCI_MANIFEST, Digest::of(&manifest), manifest.len() as u64);
        entry.platform = Some(platform);
        entry.artifact_type = Some(PROVIDER_TARGET.to_string());
        entries.push(entry);
        zips.push(zip);
        manifests.push(manifest);
    }
    let index = json_bytes(&ImageIndex {
        schema_version: 2,
        media_type: Some(OCI_INDEX.to_string()),
        artifact_type: Some(PROVIDER.to_string()),
        manifests: entries,
    });
    Artifact {
        config,
        zips,
        manifests,
        index,
    }
}

/// Pushes `artifact` under `version` as a publisher would: each blob only when the
/// registry lacks it, the platform manifests by digest, the index by tag. Returns how
/// many blobs were uploaded.
async fn push_artifact(
    client: &OciClient,
    at: &RepositoryAddr,
    artifact: &Artifact,
    version: &str,
) -> usize {
    let mut uploaded = 0;
    for blob in std::iter::once(&artifact.config).chain(&artifact.zips) {
        if !client.blob_exists(at, Digest::of(blob)).await.unwrap() {
            let pushed = client.push_blob(at, blob, None).await.unwrap();
            assert_eq!((pushed.digest, pushed.mounted), (Digest::of(blob), false));
            uploaded += 1;
        }
    }
    for manifest in &artifact.manifests {
        let digest = Digest::of(manifest);
        let stored = client
            .put_manifest(at, &Reference::Digest(digest), OCI_MANIFEST, manifest)
            .await
            .unwrap();
        assert_eq!(stored, digest);
    }
    let stored = client
        .put_manifest(at, &tag(version), OCI_INDEX, &artifact.index)
        .await
        .unwrap();
    assert_eq!(stored, Digest::of(&artifact.index));
    uploaded
}

/// Reads a version back as OpenTofu's mirror source does, and checks every byte.
async fn pull_artifact(
    client: &OciClient,
    at: &RepositoryAddr,
    artifact: &Artifact,
    version: &str,
) {
    let resolved = client.resolve(at, &tag(version)).await.unwrap();
    assert_eq!(
        resolved,
        Descriptor::new(
            OCI_INDEX,
            Digest::of(&artifact.index),
            artifact.index.len() as u64
        )
    );
    let index_bytes = client.fetch_manifest(at, &resolved).await.unwrap();
    assert_eq!(index_bytes, artifact.index);
    let index: ImageIndex = serde_json::from_slice(&index_bytes).unwrap();
    assert_eq!(index.artifact_type.as_deref(), Some(PROVIDER));
    for (entry, (manifest, zip)) in index
        .manifests
        .iter()
        .zip(artifact.manifests.iter().zip(&artifact.zips))
    {
        assert_eq!(entry.artifact_type.as_deref(), Some(PROVIDER_TARGET));
        let bytes = client.fetch_manifest(at, entry).await.unwrap();
        assert_eq!(&bytes, manifest);
        let parsed: ImageManifest = serde_json::from_slice(&bytes).unwrap();
        let layer = &parsed.layers[0];
        assert_eq!(layer.media_type, "archive/zip");
        assert_eq!(layer.platform, entry.platform);
        let blob = client
            .fetch_blob(at, layer.digest, layer.size, 1 << 20)
            .await
            .unwrap();
        assert_eq!(&blob, zip);
        let streamed: Vec<Bytes> = client
            .fetch_blob_stream(at, layer.digest, layer.size, 1 << 20)
            .await
            .unwrap()
            .map(|chunk| chunk.unwrap())
            .collect()
            .await;
        assert_eq!(streamed.concat(), zip.to_vec());
    }
}

/// Push, list, resolve, fetch and verify against distribution over TLS with its
/// htpasswd user; a second push finds every blob and uploads none; a blob mounts into
/// a sibling repository.
#[tokio::test]
async fn round_trip_through_distribution() {
    let Some(registry) = Registry::start(RegistryOptions {
        tls: true,
        htpasswd: true,
        relative_urls: false,
    }) else {
        return;
    };
    let host = registry.host();
    let client = client_with(
        explicit(&host, basic(USER, PASSWORD)),
        env(),
        OciOptions::default(),
    );
    let at = repo(&host, "opentofu-providers/hashicorp/tls");
    let first = provider_artifact("1.0.0");
    let beta = provider_artifact("1.1.0-beta1");

    assert_eq!(
        push_artifact(&client, &at, &first, "1.0.0").await,
        3,
        "{}",
        registry.log()
    );
    assert_eq!(push_artifact(&client, &at, &first, "1.0.0").await, 0);
    // The config blob is shared; only the new zips go up.
    assert_eq!(push_artifact(&client, &at, &beta, "1.1.0-beta1").await, 2);

    let mut tags = client.list_tags(&at).await.unwrap();
    tags.sort();
    assert_eq!(tags, ["1.0.0", "1.1.0-beta1"]);
    pull_artifact(&client, &at, &first, "1.0.0").await;
    pull_artifact(&client, &at, &beta, "1.1.0-beta1").await;

    let by_digest = Reference::Digest(Digest::of(&first.index));
    let resolved = client.resolve(&at, &by_digest).await.unwrap();
    assert_eq!(resolved.digest, Digest::of(&first.index));

    // What a descriptor promises is checked against what comes.
    let zip = &first.zips[0];
    let (digest, size) = (Digest::of(zip), zip.len() as u64);
    let short = client
        .fetch_blob(&at, digest, size + 1, 1 << 20)
        .await
        .unwrap_err();
    assert!(short.to_string().contains("Content-Length is"), "{short}");
    let capped = client
        .fetch_blob(&at, digest, size, size - 1)
        .await
        .unwrap_err();
    assert!(matches!(capped, OciError::TooLarge { .. }), "{capped}");
    let mut wrong_type = resolved.clone();
    wrong_type.media_type = OCI_MANIFEST.to_string();
    let refused = client.fetch_manifest(&at, &wrong_type).await.unwrap_err();
    assert!(
        refused.is_not_found(),
        "distribution hides an index from a manifest Accept: {refused}"
    );

    let sibling = repo(&host, "opentofu-providers/hashicorp/tls-copy");
    let mounted = client
        .push_blob(&sibling, zip, Some(at.repository()))
        .await
        .unwrap();
    assert!(mounted.mounted);
    assert!(client.blob_exists(&sibling, digest).await.unwrap());
}

/// "Not there" is told apart from "not allowed", and neither shows a secret.
#[tokio::test]
async fn absences_and_refusals() {
    let Some(registry) = Registry::start(RegistryOptions {
        tls: true,
        htpasswd: true,
        relative_urls: false,
    }) else {
        return;
    };
    let host = registry.host();
    let client = client_with(
        explicit(&host, basic(USER, PASSWORD)),
        env(),
        OciOptions::default(),
    );
    let at = repo(&host, "known");
    push_artifact(&client, &at, &provider_artifact("1.0.0"), "1.0.0").await;

    let unknown_repo = client
        .list_tags(&repo(&host, "nothing/here"))
        .await
        .unwrap_err();
    assert!(unknown_repo.is_not_found(), "{unknown_repo}");
    assert!(
        matches!(&unknown_repo, OciError::NotFound { codes, .. } if codes.contains(&ErrorCode::NameUnknown))
    );
    let unknown_tag = client.resolve(&at, &tag("9.9.9")).await.unwrap_err();
    assert!(unknown_tag.is_not_found(), "{unknown_tag}");
    let missing = Digest::of(b"never pushed");
    let unknown_blob = client
        .fetch_blob(&at, missing, 12, 1 << 20)
        .await
        .unwrap_err();
    assert!(unknown_blob.is_not_found(), "{unknown_blob}");
    assert!(!client.blob_exists(&at, missing).await.unwrap());

    let wrong = client_with(
        explicit(&format!("{host}/known"), basic(USER, "not-the-password")),
        env(),
        OciOptions::default(),
    );
    let refused = wrong.list_tags(&at).await.unwrap_err();
    assert!(refused.is_auth() && !refused.is_not_found(), "{refused}");
    let shown = format!("{refused} {refused:?}");
    assert!(!shown.contains("not-the-password"), "{shown}");
    assert!(
        refused.to_string().contains(&format!(
            "credentials from the oci_credentials \"{host}/known\" block were used"
        )),
        "{refused}"
    );

    let anonymous = client_with(CredentialsSource::default(), env(), OciOptions::default());
    let challenge = anonymous.list_tags(&at).await.unwrap_err();
    assert!(challenge.is_auth(), "{challenge}");
    assert!(
        challenge.to_string().ends_with(
            "the registry asks for Basic authentication, but no credentials are configured for this repository"
        ),
        "{challenge}"
    );
}

/// Plain HTTP reaches a loopback registry only when the caller opts in; otherwise the
/// client speaks TLS to it, and fails.
#[tokio::test]
async fn plain_http_only_to_loopback_when_allowed() {
    let Some(registry) = Registry::start(RegistryOptions::default()) else {
        return;
    };
    let at = repo(&registry.host(), "plain");
    let allowed = client_with(
        CredentialsSource::default(),
        env(),
        OciOptions {
            plain_http_loopback: true,
            ..OciOptions::default()
        },
    );
    push_artifact(&allowed, &at, &provider_artifact("1.0.0"), "1.0.0").await;
    assert_eq!(allowed.list_tags(&at).await.unwrap(), ["1.0.0"]);
    let https_only = client_with(CredentialsSource::default(), env(), OciOptions::default());
    let err = https_only.list_tags(&at).await.unwrap_err();
    assert!(
        matches!(&err, OciError::Transport { url, .. } if url.to_string().starts_with("https://")),
        "{err}"
    );
    // A non-loopback host is never reached over plain HTTP, opt-in or not.
    let remote = repo("registry.example", "x");
    let target = Target {
        repository: remote,
        operation: Operation::ListTags,
    };
    let url = allowed.url(&target, "tags/list");
    assert!(url
        .unwrap()
        .as_str()
        .starts_with("https://registry.example/v2/x/"));
}

/// A fake docker-credential helper answering with the test user.
#[cfg(unix)]
fn helper_env(dir: &std::path::Path) -> OciEnv {
    use std::os::unix::fs::PermissionsExt as _;
    let file = dir.join("docker-credential-tfsumtest");
    let answer = serde_json::json!({"ServerURL": "", "Username": USER, "Secret": PASSWORD});
    std::fs::write(
        &file,
        format!("#!/bin/sh\ncat >/dev/null\necho '{answer}'\n"),
    )
    .unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    OciEnv {
        vars: [("PATH".to_string(), dir.display().to_string())].into(),
        ..env()
    }
}

/// Each Bearer flow against the token service and the front that demands its tokens:
/// which token requests each kind of credentials makes, what is cached, and that
/// repositories get tokens of their own.
#[cfg(unix)]
#[tokio::test]
async fn bearer_flows() {
    let Some(backend) = Registry::start(RegistryOptions {
        relative_urls: true,
        ..RegistryOptions::default()
    }) else {
        return;
    };
    let policy = TokenPolicy::default();
    let front = BearerFront::start(&backend, policy.clone());
    let host = front.host.clone();
    let at = repo(&host, "acme/tls");
    let other = repo(&host, "acme/other");
    let artifact = provider_artifact("2.0.0");
    let helper_dir = tempfile::tempdir().unwrap();

    // Basic credentials: distribution tokens, one per scope set and repository.
    let client = client_with(
        explicit(&host, basic(USER, PASSWORD)),
        env(),
        OciOptions::default(),
    );
    assert_eq!(push_artifact(&client, &at, &artifact, "2.0.0").await, 3);
    push_artifact(&client, &other, &artifact, "2.0.0").await;
    pull_artifact(&client, &at, &artifact, "2.0.0").await;
    let asked: Vec<(String, Vec<String>)> = front
        .token_requests()
        .into_iter()
        .map(|r| {
            assert_eq!(r.service, SERVICE);
            assert!(r.issued);
            (r.grant, r.scopes)
        })
        .collect();
    let scope = |s: &str| (String::from("basic"), vec![s.to_string()]);
    assert_eq!(
        asked,
        [
            scope("repository:acme/tls:pull"),
            scope("repository:acme/tls:pull,push"),
            scope("repository:acme/other:pull"),
            scope("repository:acme/other:pull,push"),
        ]
    );
    assert!(front.requests().iter().all(|r| r.path != "/v2/"), "no ping");

    // Each kind of credentials: the grant it uses, and whether a pull works.
    let oauth = |access: &str, refresh: &str| {
        ConfiguredCredential::Static(Credentials::OAuth {
            access_token: Token::new(access),
            refresh_token: Token::new(refresh),
        })
    };
    let cases: Vec<(&str, CredentialsSource, OciEnv, Vec<&str>)> = vec![
        (
            "anonymous",
            CredentialsSource::default(),
            env(),
            vec!["anonymous"],
        ),
        (
            "refresh token",
            explicit(&host, oauth("", &policy.refresh_token)),
            env(),
            vec!["refresh"],
        ),
        (
            "access token",
            explicit(&host, oauth(&policy.access_token, "unused")),
            env(),
            vec![],
        ),
        (
            "helper",
            explicit(
                &host,
                ConfiguredCredential::Helper(HelperName::parse("tfsumtest").unwrap()),
            ),
            helper_env(helper_dir.path()),
            vec!["basic"],
        ),
    ];
    for (what, credentials, env, grants) in cases {
        let before = front.token_requests().len();
        let client = client_with(credentials, env, OciOptions::default());
        pull_artifact(&client, &at, &artifact, "2.0.0").await;
        let made = front.token_requests()[before..].to_vec();
        assert_eq!(
            made.iter().map(|r| r.grant.as_str()).collect::<Vec<_>>(),
            grants,
            "{what}: {made:?}"
        );
        if let Some(refresh) = made.iter().find(|r| r.grant == "refresh") {
            assert_eq!(refresh.client_id.as_deref(), Some("oras-go"));
            assert_eq!(refresh.scopes, ["repository:acme/tls:pull"]);
        }
    }

    // Anonymous tokens only pull.
    let anonymous = client_with(CredentialsSource::default(), env(), OciOptions::default());
    let push = anonymous
        .push_blob(&at, &Bytes::from_static(b"anonymous"), None)
        .await
        .unwrap_err();
    assert!(push.is_auth(), "{push}");

    // A refused password fails at the token service, and is not shown.
    let wrong = client_with(
        explicit(&host, basic(USER, "wrong-password")),
        env(),
        OciOptions::default(),
    );
    let refused = wrong.list_tags(&at).await.unwrap_err();
    assert!(
        matches!(refused, OciError::Token { .. }) && refused.is_auth(),
        "{refused}"
    );
    assert!(
        refused
            .to_string()
            .contains("the token service answered 401 Unauthorized: UNAUTHORIZED"),
        "{refused}"
    );
    assert!(!format!("{refused} {refused:?}").contains("wrong-password"));
}

/// A registry that lies or misbehaves in one way per repository (plain HTTP on
/// loopback).
async fn lying_registry(request: Request) -> Response {
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or_default().to_string();
    let index = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
    let typed = |content_type: &'static str, body: &'static [u8]| {
        ([(header::CONTENT_TYPE, content_type)], body).into_response()
    };
    match (method.as_str(), path.as_str()) {
        (_, p) if p.starts_with("/v2/lying/blobs/") => "BAD!".into_response(),
        ("HEAD", "/v2/nodigest/manifests/latest") => {
            let mut response = typed(OCI_INDEX, b"");
            response
                .headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(index.len()));
            response
        }
        ("GET", "/v2/nodigest/manifests/latest") => typed(OCI_INDEX, index),
        ("GET", p) if p.starts_with("/v2/wrongtype/manifests/") => typed("application/json", index),
        ("GET", "/v2/paged/tags/list") => {
            let (tags, next) = match query.as_str() {
                "" => (
                    r#"["a","b"]"#,
                    Some("</v2/paged/tags/list?last=b>; rel=\"next\""),
                ),
                "last=b" => (
                    r#"["c"]"#,
                    Some("</v2/paged/tags/list?last=c>; rel=\"next\""),
                ),
                _ => (r#"[]"#, None),
            };
            let mut response = format!(r#"{{"name":"paged","tags":{tags}}}"#).into_response();
            if let Some(next) = next {
                response
                    .headers_mut()
                    .insert(header::LINK, HeaderValue::from_static(next));
            }
            response
        }
        ("GET", "/v2/offsite/tags/list") => (
            [(
                header::LINK,
                "<https://tags.example/v2/offsite/tags/list?last=a>; rel=\"next\"",
            )],
            r#"{"tags":["a"]}"#,
        )
            .into_response(),
        ("POST", "/v2/elsewhere/blobs/uploads/") => (
            StatusCode::ACCEPTED,
            [(
                header::LOCATION,
                "http://localhost:1/v2/elsewhere/blobs/uploads/u1",
            )],
        )
            .into_response(),
        _ => (
            StatusCode::NOT_FOUND,
            r#"{"errors":[{"code":"NAME_UNKNOWN","message":"no such repository"}]}"#,
        )
            .into_response(),
    }
}

/// Every lie is caught, and each with the rule it breaks.
#[tokio::test]
async fn misbehaving_registries_are_caught() {
    let (addr, log) = serve(Router::new().fallback(lying_registry)).await;
    let host = addr.to_string();
    let plain = OciOptions {
        plain_http_loopback: true,
        ..OciOptions::default()
    };
    let client = client_with(CredentialsSource::default(), env(), plain.clone());

    let good = Digest::of(b"GOOD");
    let lie = client
        .fetch_blob(&repo(&host, "lying"), good, 4, 100)
        .await
        .unwrap_err();
    assert!(
        matches!(lie, OciError::Content { fault: ContentFault::Mismatch { expected, actual }, .. }
            if expected == good && actual == Digest::of(b"BAD!")),
        "{lie}"
    );
    let streamed: Vec<_> = client
        .fetch_blob_stream(&repo(&host, "lying"), good, 4, 100)
        .await
        .unwrap()
        .collect()
        .await;
    assert!(
        matches!(streamed.last(), Some(Err(OciError::Content { .. }))),
        "{streamed:?}"
    );
    let longer = client
        .fetch_blob(&repo(&host, "lying"), good, 3, 100)
        .await
        .unwrap_err();
    assert!(
        longer
            .to_string()
            .contains("Content-Length is 4, the descriptor says 3"),
        "{longer}"
    );

    // HEAD without Docker-Content-Digest: the manifest is fetched and hashed.
    let resolved = client
        .resolve(&repo(&host, "nodigest"), &tag("latest"))
        .await
        .unwrap();
    assert_eq!(resolved.media_type, OCI_INDEX);
    assert_eq!(log.count("/v2/nodigest/manifests/latest"), 2);

    let mut descriptor = resolved.clone();
    let wrong_type = client
        .fetch_manifest(&repo(&host, "wrongtype"), &descriptor)
        .await
        .unwrap_err();
    assert!(
        wrong_type.to_string().contains(
            "Content-Type is \"application/json\", not the \"application/vnd.oci.image.index.v1+json\" asked for"
        ),
        "{wrong_type}"
    );
    descriptor.size = MAX_MANIFEST + 1;
    let huge = client
        .fetch_manifest(&repo(&host, "wrongtype"), &descriptor)
        .await
        .unwrap_err();
    assert!(matches!(huge, OciError::TooLarge { .. }), "{huge}");

    // Tags over three pages, and a cap on pages.
    assert_eq!(
        client.list_tags(&repo(&host, "paged")).await.unwrap(),
        ["a", "b", "c"]
    );
    let capped = client_with(
        CredentialsSource::default(),
        env(),
        OciOptions {
            max_tag_pages: 2,
            ..plain.clone()
        },
    );
    let too_many = capped.list_tags(&repo(&host, "paged")).await.unwrap_err();
    assert!(
        too_many.to_string().contains("more than 2 pages of tags"),
        "{too_many}"
    );
    let offsite = client.list_tags(&repo(&host, "offsite")).await.unwrap_err();
    assert!(
        offsite.to_string().contains("is on another origin"),
        "{offsite}"
    );

    // An upload may not be sent to another host.
    let elsewhere = client
        .push_blob(&repo(&host, "elsewhere"), &Bytes::from_static(b"x"), None)
        .await
        .unwrap_err();
    assert!(
        elsewhere
            .to_string()
            .contains("is on another host than the registry"),
        "{elsewhere}"
    );

    // A pushed manifest is checked against the reference before it is sent.
    let mismatch = client
        .put_manifest(
            &repo(&host, "x"),
            &Reference::Digest(good),
            OCI_INDEX,
            &Bytes::from_static(b"{}"),
        )
        .await
        .unwrap_err();
    assert!(matches!(mismatch, OciError::Content { .. }), "{mismatch}");
}

/// Credentials go to the registry's own origin only: after a redirect to another port,
/// the Authorization header is dropped, and that origin's 401 is not answered (its
/// Bearer challenge names a realm of its own, which would get the registry's
/// credentials).
#[tokio::test]
async fn credentials_stay_with_their_registry() {
    let (elsewhere, elsewhere_log) = serve(Router::new().fallback(|request: Request| async move {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let challenge = format!("Bearer realm=\"http://{host}/token\",service=\"elsewhere\"");
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
        )
            .into_response()
    }))
    .await;
    let expected = format!(
        "Basic {}",
        base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            format!("{USER}:{PASSWORD}")
        )
    );
    let registry = Router::new().fallback(move |request: Request| {
        let expected = expected.clone();
        async move {
            let authorized = request
                .headers()
                .get(header::AUTHORIZATION)
                .is_some_and(|v| v.to_str().ok() == Some(expected.as_str()));
            if !authorized {
                return (
                    StatusCode::UNAUTHORIZED,
                    [(header::WWW_AUTHENTICATE, "Basic realm=\"registry\"")],
                )
                    .into_response();
            }
            if request.uri().path().contains("/blobs/") {
                let to = format!("http://{elsewhere}/storage/blob");
                return (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, to)]).into_response();
            }
            r#"{"tags":["1.0.0"]}"#.into_response()
        }
    });
    let (addr, log) = serve(registry).await;
    let host = addr.to_string();
    let client = client_with(
        explicit(&host, basic(USER, PASSWORD)),
        env(),
        OciOptions {
            plain_http_loopback: true,
            ..OciOptions::default()
        },
    );
    let at = repo(&host, "private");
    assert_eq!(client.list_tags(&at).await.unwrap(), ["1.0.0"]);
    let err = client
        .fetch_blob(&at, Digest::of(b"x"), 1, 10)
        .await
        .unwrap_err();
    assert!(err.is_auth(), "{err}");
    assert!(
        err.to_string()
            .contains(&format!("http://{elsewhere}/storage/blob")),
        "{err}"
    );
    let sent: Vec<_> = elsewhere_log.all();
    assert_eq!(
        sent.iter().map(|s| s.path.as_str()).collect::<Vec<_>>(),
        ["/storage/blob"]
    );
    assert!(
        sent.iter()
            .all(|s| s.headers.get(header::AUTHORIZATION).is_none()),
        "{sent:?}"
    );
    // Basic was remembered for the registry: the blob request carried it at once.
    let blob_requests: Vec<_> = log
        .all()
        .into_iter()
        .filter(|s| s.path.contains("/blobs/"))
        .collect();
    assert!(blob_requests
        .iter()
        .all(|s| s.headers.get(header::AUTHORIZATION).is_some()));
}
