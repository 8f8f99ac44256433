//! Self-tests of the fake registry: it must speak the protocol exactly and every fault
//! switch must do what it says, or tests built on it prove nothing.

use std::io::Cursor;
use std::time::{Duration, Instant};

use pgp::composed::{Deserializable as _, DetachedSignature, SignedPublicKey};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::support::dirhash;
use crate::support::fake_registry::{FakeRegistry, Fault, RegistryHandle, UrlStyle};
use crate::support::go_zip::ZipStyle;
use crate::support::signing;

struct Fetched {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Fetched {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }
}

async fn get(url: &str) -> Fetched {
    get_with(url, None).await
}

async fn get_with(url: &str, token: Option<&str>) -> Fetched {
    let mut request = reqwest::Client::new().get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("request reaches the fake");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.bytes().await.expect("complete body").to_vec();
    Fetched {
        status,
        headers,
        body,
    }
}

fn null_registry() -> FakeRegistry {
    FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(&["linux_amd64", "darwin_arm64"])
        .version("3.2.0")
        .start()
}

fn download_json_url(registry: &RegistryHandle, platform: &str) -> String {
    let (os, arch) = platform.split_once('_').expect("os_arch");
    format!(
        "{}hashicorp/null/3.2.1/download/{os}/{arch}",
        registry.providers_url()
    )
}

fn verify_signature(document: &[u8], signature: &[u8]) -> Result<(), String> {
    let (key, _) = SignedPublicKey::from_armor_single(Cursor::new(signing::PUBLIC_KEY_ARMOR))
        .map_err(|e| e.to_string())?;
    let signature = DetachedSignature::from_bytes(signature).map_err(|e| e.to_string())?;
    signature.verify(&key, document).map_err(|e| e.to_string())
}

#[tokio::test]
async fn serves_discovery_versions_download_json_and_files() {
    let registry = null_registry();

    let discovery = get(&format!(
        "{}/.well-known/terraform.json",
        registry.base_url()
    ))
    .await;
    assert_eq!(discovery.status, 200);
    assert_eq!(discovery.headers["content-type"], "application/json");
    assert_eq!(discovery.json()["providers.v1"], "/v1/providers/");

    let versions = get(&format!(
        "{}hashicorp/null/versions",
        registry.providers_url()
    ))
    .await;
    assert_eq!(versions.status, 200);
    let versions = versions.json();
    let listed: Vec<&str> = versions["versions"]
        .as_array()
        .expect("versions array")
        .iter()
        .map(|v| v["version"].as_str().expect("version string"))
        .collect();
    assert_eq!(listed, ["3.2.0", "3.2.1"]);
    assert_eq!(
        versions["versions"][1]["protocols"],
        serde_json::json!(["5.0"])
    );
    assert_eq!(
        versions["versions"][1]["platforms"],
        serde_json::json!([{"os": "darwin", "arch": "arm64"}, {"os": "linux", "arch": "amd64"}])
    );

    let meta = get(&download_json_url(&registry, "linux_amd64")).await;
    assert_eq!(meta.status, 200);
    let meta = meta.json();
    assert_eq!(meta["os"], "linux");
    assert_eq!(meta["arch"], "amd64");
    assert_eq!(meta["protocols"], serde_json::json!(["5.0"]));
    assert_eq!(
        meta["filename"],
        "terraform-provider-null_3.2.1_linux_amd64.zip"
    );
    let key = &meta["signing_keys"]["gpg_public_keys"][0];
    assert_eq!(key["key_id"], signing::KEY_ID);
    assert_eq!(key["ascii_armor"], signing::PUBLIC_KEY_ARMOR);
    assert_eq!(key["trust_signature"], "");

    let zip = get(meta["download_url"].as_str().expect("download_url")).await;
    assert_eq!(zip.status, 200);
    assert_eq!(
        zip.body,
        registry.zip("hashicorp", "null", "3.2.1", "linux_amd64")
    );
    assert_eq!(hex::encode(Sha256::digest(&zip.body)), meta["shasum"]);

    let shasums = get(meta["shasums_url"].as_str().expect("shasums_url")).await;
    assert_eq!(shasums.status, 200);
    let shasums_text = String::from_utf8(shasums.body.clone()).expect("ASCII");
    assert_eq!(shasums_text, registry.shasums("hashicorp", "null", "3.2.1"));
    let names: Vec<&str> = shasums_text
        .lines()
        .map(|l| l.split_once("  ").expect("two-space separator").1)
        .collect();
    assert_eq!(
        names,
        [
            "terraform-provider-null_3.2.1_darwin_arm64.zip",
            "terraform-provider-null_3.2.1_linux_amd64.zip",
            "terraform-provider-null_3.2.1_manifest.json",
        ]
    );
    assert!(shasums_text.contains(&format!(
        "{}  terraform-provider-null_3.2.1_linux_amd64.zip\n",
        meta["shasum"].as_str().expect("shasum")
    )));

    let manifest_url = format!(
        "{}/files/hashicorp/null/3.2.1/terraform-provider-null_3.2.1_manifest.json",
        registry.base_url()
    );
    let manifest = get(&manifest_url).await;
    assert_eq!(manifest.status, 200);
    assert_eq!(
        format!("zh:{}", hex::encode(Sha256::digest(&manifest.body))),
        registry.expected_zh("hashicorp", "null", "3.2.1")[2]
    );

    let signature = get(meta["shasums_signature_url"].as_str().expect("sig url")).await;
    assert_eq!(signature.status, 200);
    assert_ne!(
        signature.body[0], b'-',
        "signature must be binary, not armored"
    );
    verify_signature(&shasums.body, &signature.body).expect("signature verifies");

    for missing in [
        format!("{}hashicorp/absent/versions", registry.providers_url()),
        format!(
            "{}hashicorp/null/9.9.9/download/linux/amd64",
            registry.providers_url()
        ),
        format!(
            "{}hashicorp/null/3.2.1/download/windows/amd64",
            registry.providers_url()
        ),
        format!("{}/nowhere", registry.base_url()),
    ] {
        assert_eq!(get(&missing).await.status, 404, "{missing}");
    }
}

#[test]
fn signatures_are_deterministic() {
    let a = signing::sign_detached(b"same document\n");
    assert_eq!(a, signing::sign_detached(b"same document\n"));
    verify_signature(b"same document\n", &a).expect("verifies");
    assert!(verify_signature(b"other document\n", &a).is_err());
}

#[tokio::test]
async fn every_url_style_resolves_to_the_same_files() {
    let registry = null_registry();
    for style in [
        UrlStyle::Absolute,
        UrlStyle::RootRelative,
        UrlStyle::PathRelative,
    ] {
        registry.set_url_style(style);
        let json_url = download_json_url(&registry, "darwin_arm64");
        let meta = get(&json_url).await.json();
        let base = url::Url::parse(&json_url).expect("URL");
        for (field, expected) in [
            (
                "download_url",
                registry
                    .zip("hashicorp", "null", "3.2.1", "darwin_arm64")
                    .to_vec(),
            ),
            (
                "shasums_url",
                registry.shasums("hashicorp", "null", "3.2.1").into_bytes(),
            ),
            (
                "shasums_signature_url",
                registry.signature("hashicorp", "null", "3.2.1").to_vec(),
            ),
        ] {
            let reference = meta[field].as_str().expect("URL string");
            let resolved = base.join(reference).expect("resolvable");
            let fetched = get(resolved.as_str()).await;
            assert_eq!(fetched.status, 200, "{style:?} {field} {reference}");
            assert_eq!(fetched.body, expected, "{style:?} {field}");
        }
    }
}

#[test]
fn zips_hold_the_declared_files_in_both_layouts() {
    let registry = FakeRegistry::builder()
        .provider("acme", "widget")
        .version("1.0.0")
        .platforms(&["linux_amd64", "windows_amd64"])
        .binary()
        .file("LICENSE", "Test licence\n")
        .version("2.0.0")
        .zip_style(ZipStyle::Sized)
        .payload(100_000)
        .start();

    for (version, platform) in [
        ("1.0.0", "linux_amd64"),
        ("1.0.0", "windows_amd64"),
        ("2.0.0", "linux_amd64"),
    ] {
        let zip = registry.zip("acme", "widget", version, platform);
        let mut archive = zip::ZipArchive::new(Cursor::new(zip.to_vec())).expect("valid zip");
        let mut unpacked = Vec::new();
        for index in 0..archive.len() {
            let mut entry = archive.by_index(index).expect("entry");
            let mut content = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut content).expect("inflate");
            unpacked.push((entry.name().to_owned(), content));
        }
        let declared = registry.package_files("acme", "widget", version, platform);
        assert_eq!(unpacked, declared, "{version} {platform}");
        assert_eq!(
            dirhash::h1(&unpacked),
            registry.expected_h1("acme", "widget", version, platform)
        );
    }

    let files = registry.package_files("acme", "widget", "1.0.0", "linux_amd64");
    assert_eq!(files[0].0, "terraform-provider-widget_v1.0.0_x5");
    assert_eq!(files[1], ("LICENSE".to_owned(), b"Test licence\n".to_vec()));
    assert_ne!(
        registry.expected_h1("acme", "widget", "1.0.0", "linux_amd64"),
        registry.expected_h1("acme", "widget", "1.0.0", "windows_amd64"),
        "platforms must differ"
    );
    let payload = &registry.package_files("acme", "widget", "2.0.0", "linux_amd64")[0].1;
    assert_eq!(payload.len(), 100_000);
    let zip_len = registry.zip("acme", "widget", "2.0.0", "linux_amd64").len();
    assert!(
        (30_000..90_000).contains(&zip_len),
        "generated payload should deflate to roughly half, got {zip_len}"
    );
    // A second registry builds the same bytes.
    let again = FakeRegistry::builder()
        .provider("acme", "widget")
        .version("2.0.0")
        .zip_style(ZipStyle::Sized)
        .payload(100_000)
        .start();
    assert_eq!(
        again.zip("acme", "widget", "2.0.0", "linux_amd64"),
        registry.zip("acme", "widget", "2.0.0", "linux_amd64")
    );
}

#[test]
fn independent_dirhash_matches_terraform_vectors() {
    // spec/vectors VECTORS.md A7 and A11 (asserted by Terraform's own tests).
    assert_eq!(
        dirhash::h1(&[("terraform-provider-test", b"")]),
        "h1:7MjN4eFisdTv4tlhXH5hL4QQd39Jy4baPhFxwAd/EFE="
    );
    let content = "This is a fake provider package for registry.terraform.io/hashicorp/test 1.2.3, not a real provider.\n";
    assert_eq!(
        dirhash::h1(&[("terraform-provider-test_1.2.3", content)]),
        "h1:wlbEC2mChQZ2hhgUhl6SeVLPP7fMqOFUZAQhQ9GIIno="
    );
}

/// Every request-level fault, tabulated: what the client sees on the next three requests.
#[tokio::test]
async fn request_faults() {
    let registry = null_registry();
    let versions = format!("{}hashicorp/null/versions", registry.providers_url());
    let cases: Vec<(Fault, Option<usize>, [u16; 3])> = vec![
        (Fault::Status(500), None, [500, 500, 500]),
        (Fault::Status(501), Some(1), [501, 200, 200]),
        (Fault::Status(404), Some(2), [404, 404, 200]),
        (
            Fault::TooManyRequests {
                retry_after_secs: 7,
            },
            Some(2),
            [429, 429, 200],
        ),
    ];
    for (fault, times, expected) in cases {
        registry.clear_faults();
        match times {
            Some(n) => registry.inject_times("/null/versions", fault.clone(), n),
            None => registry.inject("/null/versions", fault.clone()),
        }
        let mut seen = [0; 3];
        for slot in &mut seen {
            let fetched = get(&versions).await;
            if fetched.status == 429 {
                assert_eq!(fetched.headers["retry-after"], "7");
            }
            *slot = fetched.status;
        }
        assert_eq!(seen, expected, "{fault:?} x {times:?}");
    }

    // A fault on one path leaves the others alone.
    registry.clear_faults();
    registry.inject(".zip", Fault::Status(500));
    assert_eq!(get(&versions).await.status, 200);
}

#[tokio::test]
async fn delay_and_bandwidth_slow_responses_down() {
    let registry = FakeRegistry::builder()
        .provider("acme", "big")
        .version("1.0.0")
        .payload(40_000)
        .start();
    let versions = format!("{}acme/big/versions", registry.providers_url());
    registry.inject("/versions", Fault::Delay(Duration::from_millis(300)));
    let start = Instant::now();
    assert_eq!(get(&versions).await.status, 200);
    assert!(start.elapsed() >= Duration::from_millis(300));

    let zip = registry.zip("acme", "big", "1.0.0", "linux_amd64");
    let url = format!(
        "{}/files/acme/big/1.0.0/terraform-provider-big_1.0.0_linux_amd64.zip",
        registry.base_url()
    );
    let start = Instant::now();
    assert_eq!(get(&url).await.body, zip);
    let unthrottled = start.elapsed();

    let bps = 50_000;
    registry.set_bandwidth(Some(bps));
    let start = Instant::now();
    assert_eq!(get(&url).await.body, zip, "throttled body is intact");
    let floor = Duration::from_secs_f64(zip.len() as f64 / bps as f64 * 0.8);
    assert!(
        start.elapsed() >= floor,
        "{} bytes at {bps} B/s took {:?} (unthrottled {unthrottled:?})",
        zip.len(),
        start.elapsed()
    );
}

#[tokio::test]
async fn drop_after_closes_the_connection_mid_body() {
    let registry = null_registry();
    let url = format!(
        "{}/files/hashicorp/null/3.2.1/terraform-provider-null_3.2.1_linux_amd64.zip",
        registry.base_url()
    );
    let full_len = registry
        .zip("hashicorp", "null", "3.2.1", "linux_amd64")
        .len();
    registry.inject_times(".zip", Fault::DropAfter(10), 1);

    let response = reqwest::get(&url).await.expect("headers arrive");
    assert_eq!(response.status(), 200);
    assert_eq!(response.content_length(), Some(full_len as u64));
    assert!(response.bytes().await.is_err(), "body must fail mid-way");

    // Only the first request was hit.
    assert_eq!(get(&url).await.body.len(), full_len);
    assert_eq!(registry.count(".zip"), 2);
}

/// Every content fault, and what a careful client notices.
#[tokio::test]
async fn content_faults() {
    let registry = null_registry();
    let files = format!("{}/files/hashicorp/null/3.2.1/", registry.base_url());
    let zip_url = format!("{files}terraform-provider-null_3.2.1_linux_amd64.zip");
    let sig_url = format!("{files}terraform-provider-null_3.2.1_SHA256SUMS.sig");
    let shasums = registry.shasums("hashicorp", "null", "3.2.1");
    let meta_url = download_json_url(&registry, "linux_amd64");
    let good_shasum = get(&meta_url).await.json()["shasum"].clone();

    registry.corrupt_zip("hashicorp", "null", "3.2.1", "linux_amd64");
    let corrupt = get(&zip_url).await.body;
    assert_ne!(hex::encode(Sha256::digest(&corrupt)), good_shasum);
    assert_eq!(
        corrupt.len(),
        registry
            .zip("hashicorp", "null", "3.2.1", "linux_amd64")
            .len()
    );

    registry.bad_signature("hashicorp", "null", "3.2.1");
    let bad = get(&sig_url).await.body;
    assert!(verify_signature(shasums.as_bytes(), &bad).is_err());

    registry.shasum_mismatch("hashicorp", "null", "3.2.1", "linux_amd64");
    let shasum = get(&meta_url).await.json()["shasum"].clone();
    let shasum = shasum.as_str().expect("shasum string");
    assert_eq!(shasum.len(), 64);
    assert!(!shasums.contains(shasum));

    registry.remove_platform("hashicorp", "null", "3.2.1", "linux_amd64");
    assert_eq!(get(&meta_url).await.status, 404);
    let versions = get(&format!(
        "{}hashicorp/null/versions",
        registry.providers_url()
    ))
    .await
    .json();
    assert_eq!(
        versions["versions"][1]["platforms"],
        serde_json::json!([{"os": "darwin", "arch": "arm64"}])
    );

    registry.clear_faults();
    assert_eq!(get(&meta_url).await.json()["shasum"], good_shasum);
    assert_eq!(
        get(&zip_url).await.body,
        registry.zip("hashicorp", "null", "3.2.1", "linux_amd64")
    );
    verify_signature(shasums.as_bytes(), &get(&sig_url).await.body).expect("good again");
}

#[tokio::test]
async fn token_requirement_guards_only_the_api() {
    let registry = null_registry();
    registry.require_token(Some("s3cret"));
    let versions = format!("{}hashicorp/null/versions", registry.providers_url());
    let meta = download_json_url(&registry, "linux_amd64");
    assert_eq!(get(&versions).await.status, 401);
    assert_eq!(get_with(&versions, Some("wrong")).await.status, 401);
    assert_eq!(get_with(&versions, Some("s3cret")).await.status, 200);
    assert_eq!(get(&meta).await.status, 401);
    let meta = get_with(&meta, Some("s3cret")).await;
    assert_eq!(meta.status, 200);
    let zip_url = meta.json()["download_url"]
        .as_str()
        .expect("url")
        .to_owned();
    assert_eq!(get(&zip_url).await.status, 200, "files need no token");
    let discovery = format!("{}/.well-known/terraform.json", registry.base_url());
    assert_eq!(
        get(&discovery).await.status,
        200,
        "discovery needs no token"
    );

    registry.require_token(None);
    assert_eq!(get(&versions).await.status, 200);
}

#[tokio::test]
async fn records_requests_with_headers() {
    let registry = null_registry();
    let versions = format!("{}hashicorp/null/versions", registry.providers_url());
    get_with(&versions, Some("tok")).await;
    get(&versions).await;
    get(&format!(
        "{}/.well-known/terraform.json",
        registry.base_url()
    ))
    .await;

    assert_eq!(registry.count("/versions"), 2);
    assert_eq!(registry.count("/terraform.json"), 1);
    assert_eq!(registry.count(".zip"), 0);
    let requests = registry.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].method, "GET");
    assert_eq!(requests[0].path, "/v1/providers/hashicorp/null/versions");
    assert_eq!(requests[0].header("Authorization"), Some("Bearer tok"));
    assert_eq!(requests[1].header("authorization"), None);

    registry.reset_counts();
    assert!(registry.requests().is_empty());
    assert_eq!(registry.count("/versions"), 0);
}

#[test]
fn handle_works_from_another_thread_and_writes_cli_config() {
    let registry = null_registry();
    let handle = registry.handle();
    std::thread::spawn(move || handle.inject(".zip", Fault::Status(500)))
        .join()
        .expect("thread");

    let dir = tempfile::TempDir::new().expect("temp dir");
    let path = dir.path().join("cli.tfrc");
    registry.write_cli_config(&path);
    let host = registry.host();
    assert_eq!(
        std::fs::read_to_string(&path).expect("written"),
        format!(
            "host \"{host}\" {{\n  services = {{\n    \"providers.v1\" = \"http://{host}/v1/providers/\"\n  }}\n}}\n"
        )
    );
    assert!(registry.cli_config_with_token("abc").ends_with(&format!(
        "credentials \"{host}\" {{\n  token = \"abc\"\n}}\n"
    )));
    assert_eq!(
        registry.source("hashicorp", "null"),
        format!("{host}/hashicorp/null")
    );
    assert!(host.starts_with("127.0.0.1:"));
}
