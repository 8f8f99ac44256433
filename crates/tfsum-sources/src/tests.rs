//! The network mirror protocol against a loopback server, and the routing of
//! [`Sources`] between mirrors and the registry.

use std::io::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::testing::TableRegistry;
use super::*;
use tfsum_net::cliconfig::CliConfig;
use tfsum_net::cliconfig::{ConfiguredToken, Env, Token};
use tfsum_net::http::{Http, HttpConfig};
use tfsum_net::registry::RetryPolicy;
use tfsum_vocab::addr::TERRAFORM_REGISTRY;
use tfsum_vocab::hash::dirhash::h1_dir;

type Log = Arc<Mutex<Vec<(String, HeaderMap)>>>;

async fn record(State(log): State<Log>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_string();
    log.lock().unwrap().push((path, request.headers().clone()));
    next.run(request).await
}

async fn serve(router: Router) -> (String, Log) {
    let log = Log::default();
    let router = router.layer(axum::middleware::from_fn_with_state(log.clone(), record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (addr.to_string(), log)
}

fn client(token_host: Option<&str>) -> RegistryClient {
    let config = HttpConfig {
        retry: RetryPolicy {
            max_attempts: 2,
            base_delay: std::time::Duration::from_millis(1),
            max_delay: std::time::Duration::from_millis(2),
            max_retry_after: std::time::Duration::from_secs(1),
        },
        ..HttpConfig::default()
    };
    let mut cli = CliConfig::default();
    if let Some(host) = token_host {
        cli.credentials.insert(
            tfsum_vocab::addr::Hostname::parse(host).unwrap(),
            ConfiguredToken {
                token: Token::new("mirror-secret"),
                file: "/test/.terraformrc".into(),
            },
        );
    }
    RegistryClient::new(Http::new(config), cli, Env::default())
}

fn mirror_options() -> MirrorOptions {
    MirrorOptions {
        jobs: Arc::new(tokio::sync::Semaphore::new(8)),
        zip_limits: tfsum_vocab::hash::ZipLimits::default(),
        oci: None,
        cache: tfsum_disk::cache::Cache::disabled(),
    }
}

/// The registry's listing: null 3.2.1 and 3.3.0, with a warning.
fn listing() -> Arc<TableRegistry> {
    let mut registry = TableRegistry::listing(&[("null", &["3.2.1", "3.3.0"])]);
    if let Some(found) = registry.versions.values_mut().next() {
        found.warnings.push("deprecated".into());
    }
    Arc::new(registry)
}

fn zip_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut writer = zip::ZipWriter::new(&mut out);
    for (name, content) in files {
        writer
            .start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(content).unwrap();
    }
    writer.finish().unwrap();
    out.into_inner()
}

fn h1_of(files: &[(&str, &[u8])]) -> String {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    h1_dir(dir.path()).unwrap().to_string()
}

fn provider(s: &str) -> ProviderAddr {
    ProviderAddr::parse(s, TERRAFORM_REGISTRY).unwrap()
}

fn platform(s: &str) -> Platform {
    s.parse().unwrap()
}

const LINUX: &[(&str, &[u8])] = &[("terraform-provider-null_v3.2.1_x5", b"linux binary")];

/// A mirror for `example.com/hashicorp/null` 3.2.1 whose `<version>.json` redirects, so
/// archive URLs must resolve against the final URL.
fn mirror_router() -> Router {
    let zip = zip_bytes(LINUX);
    let zh = format!(
        "zh:{}",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&zip))
    );
    let version_doc = serde_json::json!({"archives": {
        "linux_amd64": {"url": "../../../../files/null_linux.zip", "hashes": [h1_of(LINUX)]},
        "darwin_arm64": {"url": "null_linux.zip", "hashes": ["zh:0000000000000000000000000000000000000000000000000000000000000000"]},
        "windows_amd64": {"url": "/files/null_linux.zip", "hashes": ["sha512:abc"]},
        "freebsd_amd64": {"url": "/files/null_linux.zip", "hashes": [zh]},
        "openbsd_amd64": {"url": "/files/null_linux.zip"},
    }});
    fn json(body: String) -> Response {
        (
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            body,
        )
            .into_response()
    }
    let index = serde_json::json!({"versions": {"3.2.1": {}, "3.1.0": {}}}).to_string();
    let version = version_doc.to_string();
    Router::new()
        .route(
            "/mirror/example.com/hashicorp/null/index.json",
            get(move || async move { json(index) }),
        )
        .route(
            "/mirror/example.com/hashicorp/null/3.2.1.json",
            get(|| async { axum::response::Redirect::temporary("/moved/a/b/c/3.2.1.json") }),
        )
        .route(
            "/moved/a/b/c/3.2.1.json",
            get(move || async move { json(version) }),
        )
        .route(
            "/mirror/example.com/hashicorp/text/index.json",
            get(|| async { "{\"versions\":{}}" }),
        )
        .route(
            "/mirror/example.com/hashicorp/locked/index.json",
            get(|| async { StatusCode::FORBIDDEN }),
        )
        .route("/files/null_linux.zip", get(move || async move { zip }))
        .route(
            "/moved/a/b/c/null_linux.zip",
            get(|| async { StatusCode::NOT_FOUND }),
        )
}

#[tokio::test]
async fn network_mirror_protocol() {
    let (addr, log) = serve(mirror_router()).await;
    let mirror = NetMirror::new_allowing_http(
        &format!("http://{addr}/mirror"),
        client(Some(&addr)),
        &mirror_options(),
    )
    .unwrap();
    assert_eq!(mirror.base().as_str(), format!("http://{addr}/mirror/"));
    let null = provider("example.com/hashicorp/null");
    let v = Version::new(3, 2, 1);

    assert_eq!(
        mirror.versions(&null).await.unwrap(),
        Some(vec!["3.1.0".to_string(), "3.2.1".to_string()])
    );
    assert_eq!(
        mirror
            .versions(&provider("example.com/hashicorp/nope"))
            .await
            .unwrap(),
        None
    );

    // One table: per platform, the recorded hash or the error.
    let mut table = Vec::new();
    for p in [
        "linux_amd64",
        "darwin_arm64",
        "windows_amd64",
        "freebsd_amd64",
        "openbsd_amd64",
        "solaris_amd64",
    ] {
        let got = mirror.package_hashes(&null, &v, &[platform(p)]).await;
        let shown = match got {
            Ok(set) => set
                .iter()
                .map(|h| h.to_string())
                .collect::<Vec<_>>()
                .join(","),
            Err(e) => e.to_string().replace(&addr, "ADDR"),
        };
        table.push(format!("{p}: {shown}"));
    }
    let h1 = h1_of(LINUX);
    assert_eq!(
        table,
        [
            format!("linux_amd64: {h1}"),
            "darwin_arm64: network mirror: downloading: GET http://ADDR/moved/a/b/c/null_linux.zip: unexpected HTTP status 404 Not Found".to_string(),
            "windows_amd64: network mirror: the package downloaded from http://ADDR/files/null_linux.zip cannot be checked: the mirror gives no checksum in a format tfsum supports (h1:, zh:)".to_string(),
            format!("freebsd_amd64: {h1}"),
            format!("openbsd_amd64: {h1}"),
            "solaris_amd64: example.com/hashicorp/null 3.2.1 for solaris_amd64 is not available in the network mirror http://ADDR/mirror/".to_string(),
        ]
    );

    // The token goes with JSON requests only; <version>.json is fetched once.
    let seen: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .map(|(path, headers)| {
            let auth = headers.get("authorization").is_some();
            let tf = headers.get("x-terraform-version").is_some();
            format!("{path} auth={auth} tf={tf}")
        })
        .collect();
    let json_requests = seen.iter().filter(|s| s.contains(".json")).count();
    assert_eq!(json_requests, 4, "{seen:#?}"); // 2 index.json, the redirect and its target
    for line in &seen {
        let is_json = line.contains(".json");
        assert_eq!(line.ends_with("auth=true tf=true"), is_json, "{line}");
        assert_eq!(line.ends_with("auth=false tf=false"), !is_json, "{line}");
    }
}

#[tokio::test]
async fn network_mirror_failures() {
    let (addr, _) = serve(mirror_router()).await;
    let err = NetMirror::new(
        &format!("http://{addr}/mirror/"),
        client(None),
        &mirror_options(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("must start with https://"),
        "{err}"
    );
    let mirror = NetMirror::new_allowing_http(
        &format!("http://{addr}/mirror/"),
        client(None),
        &mirror_options(),
    )
    .unwrap();
    let cases = [
        (
            "example.com/hashicorp/text",
            "Content-Type must be application/json".to_string(),
        ),
        (
            "example.com/hashicorp/locked",
            format!("host {addr} refused the request"),
        ),
        (
            "example.com/hashicorp/locked",
            "no credentials are configured for this host".to_string(),
        ),
    ];
    for (source, want) in cases {
        let text = mirror
            .versions(&provider(source))
            .await
            .unwrap_err()
            .to_string();
        assert!(text.contains(&want), "want {want:?} in {text:?}");
    }
}

fn write(base: &Path, rel: &str, content: &[u8]) {
    let path = base.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// Per platform the first source holding the package serves it; what is left goes to
/// the registry in one call; versions are the union.
#[tokio::test]
async fn sources_route_per_provider_and_platform() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "registry.terraform.io/hashicorp/null/3.2.1/linux_amd64/terraform-provider-null",
        b"from the mirror",
    );
    let fs = Arc::new(FsMirror::scan(dir.path(), tfsum_vocab::hash::ZipLimits::default()).unwrap());
    let include_null = vec![ProviderPattern::parse("hashicorp/null").unwrap()];
    let routed = |registry: Arc<TableRegistry>| {
        Sources::new(
            vec![
                Selector {
                    source: Source::FsMirror(fs.clone()),
                    include: include_null.clone(),
                    exclude: Vec::new(),
                },
                Selector {
                    source: Source::Registry(registry.clone()),
                    include: Vec::new(),
                    exclude: vec![ProviderPattern::parse("example.com/*/*").unwrap()],
                },
            ],
            TERRAFORM_REGISTRY,
            registry,
        )
    };
    let sources = routed(listing());
    let null = provider("hashicorp/null");
    let random = provider("hashicorp/random");
    let other = provider("example.com/acme/thing");
    assert_eq!(sources.for_provider(&null).len(), 2);
    assert_eq!(sources.for_provider(&random).len(), 1);
    assert!(sources.for_provider(&other).is_empty());

    let found = sources.versions(&null).await.unwrap();
    assert_eq!(found.versions, ["3.2.1", "3.3.0"]);
    assert_eq!(found.warnings, ["deprecated"]);
    // Unknown to the registry but in the mirror: found; unknown everywhere: an error.
    let unknown = routed(Arc::new(TableRegistry::default()));
    assert_eq!(unknown.versions(&null).await.unwrap().versions, ["3.2.1"]);
    let err = unknown.versions(&random).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert_eq!(
        err.to_string(),
        "provider registry.terraform.io/hashicorp/random does not exist (GET https://registry.example/v1/providers/registry.terraform.io/hashicorp/random/versions: 404 Not Found)"
    );
    let err = sources.versions(&other).await.unwrap_err();
    assert!(matches!(err, VersionsError::NoMethod { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("not matched by any provider installation method"),
        "{err}"
    );

    let registry = listing();
    let hashes = routed(registry.clone())
        .package_hashes(
            &null,
            &Version::new(3, 2, 1),
            &[platform("darwin_arm64"), platform("linux_amd64")],
            tfsum_vocab::lockfile::Flavor::Terraform,
        )
        .await
        .unwrap();
    let mirror_h1 = h1_of(&[("terraform-provider-null", b"from the mirror")]);
    // Each hash says where it came from: the mirror for its platform, the registry for
    // the other platform and the signed sums' zh: line.
    let got: Vec<(String, Provenance, Option<String>)> = hashes
        .iter()
        .map(|(h, o)| {
            let platform = o.platform.as_ref().map(|p| p.to_string());
            (h.to_string(), o.provenance, platform)
        })
        .collect();
    let darwin = Some("darwin_arm64".to_string());
    assert_eq!(
        got,
        [
            (
                mirror_h1.clone(),
                Provenance::FsMirror,
                Some("linux_amd64".to_string())
            ),
            (
                "h1:null-3.2.1-darwin_arm64".to_string(),
                Provenance::Download,
                darwin
            ),
            ("zh:null-3.2.1".to_string(), Provenance::SignedSums, None),
        ]
    );
    assert_eq!(registry.asked(), ["hashes null 3.2.1 darwin_arm64"]);

    // A mirror alone: a missing platform names the mirror.
    let only = Sources::only(Source::FsMirror(fs.clone()), listing());
    let err = only
        .package_hashes(
            &null,
            &Version::new(3, 2, 1),
            &[platform("darwin_arm64")],
            tfsum_vocab::lockfile::Flavor::Terraform,
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("registry.terraform.io/hashicorp/null 3.2.1 (darwin_arm64): not available in the filesystem mirror"),
        "{err}"
    );
}

#[test]
fn from_installation_builds_selectors() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "registry.terraform.io/hashicorp/null/3.2.1/linux_amd64/f",
        b"x",
    );
    write(
        dir.path(),
        "registry.terraform.io/hashicorp/null/junk.txt",
        b"x",
    );
    let config = format!(
        r#"provider_installation {{
  filesystem_mirror {{
    path    = "{}"
    include = ["hashicorp/*"]
  }}
  network_mirror {{
    url     = "https://mirror.example/providers/"
    exclude = ["hashicorp/null"]
  }}
  dev_overrides {{
    "hashicorp/dev" = "/tmp/dev"
  }}
  direct {{}}
}}
"#,
        dir.path().display()
    );
    let file = dir.path().join("cli.tfrc");
    std::fs::write(&file, config).unwrap();
    let cli = tfsum_net::cliconfig::load_file(&file).unwrap();
    let installation = cli.provider_installation().unwrap();
    let client = client(None);
    let (sources, warnings) = Sources::from_installation(
        installation,
        Some(&client),
        TERRAFORM_REGISTRY,
        listing(),
        &mirror_options(),
    )
    .unwrap();
    let kinds: Vec<String> = sources
        .for_provider(&provider("hashicorp/null"))
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            format!("the filesystem mirror {}", dir.path().display()),
            "the provider's registry".to_string()
        ]
    );
    assert_eq!(sources.for_provider(&provider("acme/x")).len(), 2);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let warnings: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(warnings[0].contains("junk.txt"), "{warnings:?}");
    assert!(
        warnings[1].contains("dev_overrides for hashicorp/dev ignored"),
        "{warnings:?}"
    );
    let err = Sources::from_installation(
        installation,
        None,
        TERRAFORM_REGISTRY,
        listing(),
        &mirror_options(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("cannot be used offline"), "{err}");
}
