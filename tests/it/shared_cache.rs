//! The organisation's shared cache, end to end: runners with empty local caches against a
//! real S3-compatible server (moto), Azurite, a GCS emulator, a `file://` directory and a
//! plain HTTP store. Each
//! case checks what the registry served (its request log), what the report counts, and
//! that every lock file is byte-identical to the one a run without a shared cache writes
//! (itself checked against Terraform 1.0.3 here once, and in `conformance`).

use std::path::Path;
use std::process::Output;

use pretty_assertions::assert_eq;

use crate::harness::{self, text, Repo, FAST_RETRIES};
use crate::support::fake_registry::RegistryHandle;
use crate::support::proxy::Proxy;
use crate::support::shared_stores::{
    Azurite, Behaviour, GcsServer, HttpStore, S3Server, OTHER_KEY, WRITER_KEY,
};
use crate::support::tls_listener::tls_front;

const PLATFORMS: &[&str] = &["darwin_arm64", "linux_amd64"];

/// One simulated CI runner: its own local cache, the shared cache and keys it is given.
struct Runner<'a> {
    repo: &'a Repo,
    local: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl<'a> Runner<'a> {
    fn new(repo: &'a Repo, url: &str) -> Runner<'a> {
        Runner {
            repo,
            local: tempfile::TempDir::new().expect("local cache"),
            env: vec![("TFSUM_SHARED_CACHE".into(), url.into())],
        }
    }

    fn with(mut self, vars: &[(String, String)]) -> Runner<'a> {
        self.env.extend_from_slice(vars);
        self
    }

    /// Trusts entries signed by `key`'s public half.
    fn trusting(self, key: (&str, &str)) -> Runner<'a> {
        self.with(&[("TFSUM_SHARED_CACHE_TRUSTED_KEYS".into(), key.1.into())])
    }

    /// Holds `key`: signs and writes what it verifies.
    fn writing(self, key: (&str, &str)) -> Runner<'a> {
        self.with(&[("TFSUM_SHARED_CACHE_SIGNING_KEY".into(), key.0.into())])
    }

    /// `tfsum lock -r --format json` (removing the lock files first, so each run
    /// creates them).
    fn lock(&self) -> (Output, serde_json::Value) {
        for root in ["a", "b"] {
            let _ = std::fs::remove_file(self.repo.path().join(root).join(harness::LOCK));
        }
        let mut args = vec!["lock".to_string(), "-r".to_string(), "--format=json".into()];
        args.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
        args.push(".".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut env: Vec<(&str, &str)> = FAST_RETRIES.to_vec();
        env.extend(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let cache = self.local.path().join("cache");
        let output = harness::run(
            self.repo.path(),
            &self.repo.cli_config(),
            &cache,
            &args,
            &env,
        );
        assert!(output.status.success(), "{}", text(&output));
        let report = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("JSON report: {e}\n{}", text(&output)));
        (output, report)
    }
}

/// The lock files of both roots.
fn locks(repo: &Repo) -> Vec<String> {
    ["a", "b"]
        .iter()
        .map(|r| {
            repo.lock(r)
                .unwrap_or_else(|| panic!("no lock file in {r}"))
        })
        .collect()
}

/// What a run without a shared cache writes for `repo`.
fn reference(repo: &Repo) -> Vec<String> {
    let output = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(output.status.success(), "{}", text(&output));
    locks(repo)
}

fn stat(report: &serde_json::Value, name: &str) -> u64 {
    report["stats"][name]
        .as_u64()
        .unwrap_or_else(|| panic!("stats.{name} missing: {report:#}"))
}

fn warnings(report: &serde_json::Value) -> String {
    report["warnings"].to_string()
}

fn downloads(registry: &RegistryHandle) -> usize {
    registry.count(".zip")
}

fn sums(registry: &RegistryHandle) -> usize {
    registry.count("SHA256SUMS")
}

/// A pull-request job (the public key only, an empty local cache, `env` to reach the
/// store) finds every package in the shared cache at `url`: no zip and no SHA256SUMS
/// asked of the registry, nothing refused or written, and the lock files `expected`.
fn assert_served_from_shared(
    repo: &Repo,
    registry: &RegistryHandle,
    url: &str,
    env: &[(String, String)],
    expected: &[String],
) {
    let before = (downloads(registry), sums(registry));
    let (output, report) = Runner::new(repo, url).with(env).trusting(WRITER_KEY).lock();
    assert_eq!(
        (downloads(registry), sums(registry)),
        before,
        "{}",
        text(&output)
    );
    let counts = [
        "packages_from_shared_cache",
        "rejected_by_signature",
        "written_to_shared_cache",
    ]
    .map(|name| stat(&report, name));
    assert_eq!(counts, [PLATFORM_PACKAGES, 0, 0], "{report:#}");
    assert_eq!(locks(repo), expected);
}

/// `a` needs null and random, `b` random: 2 packages × 2 platforms, 2 SHA256SUMS.
const PLATFORM_PACKAGES: u64 = 4;

#[test]
fn runners_share_one_s3_cache_and_each_package_is_downloaded_once() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let expected = reference(&repo);
    // Terraform's own file for root `b`, to tie the shared path to the oracle directly.
    let oracle_dir = tempfile::TempDir::new().expect("oracle dir");
    std::fs::copy(
        repo.path().join("b/main.tf"),
        oracle_dir.path().join("main.tf"),
    )
    .expect("copy b");
    let tf =
        crate::support::terraform::providers_lock(oracle_dir.path(), PLATFORMS, &repo.cli_config());
    crate::support::terraform::assert_success(&tf, "terraform providers lock");
    assert_eq!(
        crate::support::terraform::read_lock_file(oracle_dir.path()),
        expected[1]
    );

    let s3 = S3Server::start();
    let url = s3.url("org/tfsum");
    registry.reset_counts();

    // Runner 1 (trusted, cold) downloads and fills the shared cache.
    let (_, first) = Runner::new(&repo, &url)
        .with(&s3.env())
        .trusting(WRITER_KEY)
        .writing(WRITER_KEY)
        .lock();
    assert_eq!(downloads(&registry), PLATFORM_PACKAGES as usize);
    assert_eq!(
        stat(&first, "written_to_shared_cache"),
        PLATFORM_PACKAGES + 2
    );
    assert_eq!(stat(&first, "packages_from_shared_cache"), 0);
    assert_eq!(locks(&repo), expected);

    // Runner 2 (a pull-request job: the public key only, empty local cache) downloads
    // nothing and fetches no SHA256SUMS.
    assert_served_from_shared(&repo, &registry, &url, &s3.env(), &expected);

    // A reader trusting no key downloads again, but takes the SHA256SUMS from the shared
    // cache after checking them against the registry's keys.
    let before = (downloads(&registry), sums(&registry));
    let (_, third) = Runner::new(&repo, &url).with(&s3.env()).lock();
    assert_eq!(downloads(&registry), before.0 + PLATFORM_PACKAGES as usize);
    assert_eq!(sums(&registry), before.1, "SHA256SUMS fetched again");
    assert_eq!(stat(&third, "packages_from_shared_cache"), 0);
    assert_eq!(locks(&repo), expected);

    // The text summary says the same.
    let mut args = vec!["lock", "-r", "--check"];
    args.extend(PLATFORMS.iter().flat_map(|p| ["--platform", p]));
    args.push(".");
    let local = tempfile::TempDir::new().expect("local");
    let mut env: Vec<(&str, &str)> = FAST_RETRIES.to_vec();
    let vars: Vec<(String, String)> = s3.env();
    env.extend(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    env.push(("TFSUM_SHARED_CACHE", &url));
    env.push(("TFSUM_SHARED_CACHE_TRUSTED_KEYS", WRITER_KEY.1));
    let output = harness::run(
        repo.path(),
        &repo.cli_config(),
        &local.path().join("c"),
        &args,
        &env,
    );
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        harness::combined(&output)
            .contains("4 from shared cache (0 written to it, 0 rejected (signature))"),
        "{}",
        text(&output)
    );
}

#[test]
fn planted_entries_are_rejected_counted_and_replaced() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let expected = reference(&repo);
    let store = tempfile::TempDir::new().expect("store");
    let url = url::Url::from_directory_path(store.path())
        .expect("file url")
        .to_string();
    Runner::new(&repo, &url).writing(WRITER_KEY).lock();

    // Plant: one entry signed by another key, one unsigned, one with its h1: edited.
    let objects = objects_below(store.path());
    let platform_objects: Vec<_> = objects
        .iter()
        .filter(|p| !p.ends_with("sums.json"))
        .cloned()
        .collect();
    assert_eq!(
        platform_objects.len(),
        PLATFORM_PACKAGES as usize,
        "{objects:?}"
    );
    let other = tempfile::TempDir::new().expect("other store");
    let other_url = url::Url::from_directory_path(other.path())
        .expect("url")
        .to_string();
    Runner::new(&repo, &other_url).writing(OTHER_KEY).lock();
    let relative = platform_objects[0]
        .strip_prefix(store.path())
        .expect("relative");
    std::fs::copy(other.path().join(relative), &platform_objects[0]).expect("plant other key");
    let unsigned = std::fs::read_to_string(&platform_objects[1]).expect("read");
    let mut object: serde_json::Value = serde_json::from_str(&unsigned).expect("object");
    object["signatures"] = serde_json::json!([]);
    std::fs::write(&platform_objects[1], object.to_string()).expect("plant unsigned");
    let edited = std::fs::read_to_string(&platform_objects[2]).expect("read");
    let mut object: serde_json::Value = serde_json::from_str(&edited).expect("object");
    let statement = object["statement"].as_str().expect("statement").to_string();
    let h1_at = statement.find("h1:").expect("h1") + 3;
    let mut planted = statement.clone();
    planted.replace_range(h1_at..h1_at + 4, "AAAA");
    assert_ne!(planted, statement);
    object["statement"] = serde_json::Value::String(planted);
    std::fs::write(&platform_objects[2], object.to_string()).expect("plant edited");

    let before = downloads(&registry);
    let (_, report) = Runner::new(&repo, &url).trusting(WRITER_KEY).lock();
    assert_eq!(stat(&report, "rejected_by_signature"), 3, "{report:#}");
    assert_eq!(stat(&report, "packages_from_shared_cache"), 1);
    assert_eq!(downloads(&registry), before + 3);
    assert_eq!(
        locks(&repo),
        expected,
        "a planted entry reached a lock file"
    );
    assert!(warnings(&report).contains("ignored"), "{report:#}");

    // A trusted writer replaces what it refused; then a reader finds everything.
    Runner::new(&repo, &url)
        .trusting(WRITER_KEY)
        .writing(WRITER_KEY)
        .lock();
    assert_served_from_shared(&repo, &registry, &url, &[], &expected);
}

#[test]
fn concurrent_writers_of_the_same_entries() {
    let registry = harness::registry();
    let s3 = S3Server::start();
    let url = s3.url("concurrent");
    let repos: Vec<Repo> = (0..4).map(|_| Repo::two_roots(&registry)).collect();
    let expected = reference(&repos[0]);
    std::thread::scope(|scope| {
        for repo in &repos {
            let (url, env, expected) = (&url, s3.env(), &expected);
            scope.spawn(move || {
                Runner::new(repo, url)
                    .with(&env)
                    .trusting(WRITER_KEY)
                    .writing(WRITER_KEY)
                    .lock();
                assert_eq!(&locks(repo), expected);
            });
        }
    });
    // Whoever won, every object is whole and believed.
    assert_served_from_shared(&repos[0], &registry, &url, &s3.env(), &expected);
}

#[test]
fn a_plain_http_store_round_trips() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let expected = reference(&repo);
    let store = HttpStore::start(Behaviour::Normal);
    let (_, first) = Runner::new(&repo, &store.url()).writing(WRITER_KEY).lock();
    assert_eq!(
        stat(&first, "written_to_shared_cache"),
        PLATFORM_PACKAGES + 2
    );
    assert_eq!(store.objects().len(), PLATFORM_PACKAGES as usize + 2);
    assert_served_from_shared(&repo, &registry, &store.url(), &[], &expected);
}

/// Behind a company's proxy: each store is reachable only through `HTTPS_PROXY`, under a
/// name only the proxy resolves, with a certificate from a CA known only through
/// `SSL_CERT_FILE`, as the registry would be. The trusted key is given as PEM. Without
/// the CA, or with the store's host in `NO_PROXY`, the store is unavailable (a warning)
/// and nothing reaches the proxy. GCS is read only: its emulator takes no XML API
/// upload, so a `file://` run fills its bucket.
#[test]
fn stores_behind_a_proxy_with_a_private_ca() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let expected = reference(&repo);
    let pem = format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
        WRITER_KEY.1
    );
    let trusted = format!("{pem}, {}", OTHER_KEY.1);
    let gcs_data = tempfile::TempDir::new().expect("gcs data");
    let bucket = gcs_data.path().join("tfsum-shared");
    let seed = url::Url::from_directory_path(bucket.join("proxied")).expect("file URL");
    Runner::new(&repo, seed.as_str()).writing(WRITER_KEY).lock();

    let s3 = S3Server::start();
    let gcs = GcsServer::start("registry.test", gcs_data.path(), "tfsum-shared");
    let http = HttpStore::start(Behaviour::Normal);
    let fronts = [s3.addr(), gcs.addr(), http.addr()].map(tls_front);
    let [s3_name, gcs_name, http_name] =
        fronts.map(|front| format!("registry.test:{}", front.port()));
    let proxy = Proxy::start(&[
        (s3_name.as_str(), fronts[0]),
        (gcs_name.as_str(), fronts[1]),
        (http_name.as_str(), fronts[2]),
    ]);
    let mut s3_env: Vec<(String, String)> = s3
        .env()
        .into_iter()
        .filter(|(k, _)| k != "AWS_ENDPOINT_URL")
        .collect();
    s3_env.push(("AWS_ENDPOINT_URL".into(), format!("https://{s3_name}")));
    let gcs_env = gcs.env(&format!("https://{gcs_name}"));
    // (URL, host, the store's own variables, whether this test writes it)
    let stores = [
        (s3.url("proxied"), s3_name, s3_env, true),
        (gcs.url("proxied"), gcs_name, gcs_env, false),
        (
            format!("https://{http_name}/cache/"),
            http_name,
            Vec::new(),
            true,
        ),
    ];
    let ca = crate::support::fake_registry::test_ca_path();
    for (url, name, store_env, write) in stores {
        let mut env = store_env;
        env.extend([
            ("HTTPS_PROXY".to_string(), proxy.url()),
            ("NO_PROXY".to_string(), String::new()),
            (
                "SSL_CERT_FILE".to_string(),
                ca.to_string_lossy().into_owned(),
            ),
            (
                "TFSUM_SHARED_CACHE_TRUSTED_KEYS".to_string(),
                trusted.clone(),
            ),
        ]);
        if write {
            let (output, first) = Runner::new(&repo, &url)
                .with(&env)
                .writing(WRITER_KEY)
                .lock();
            assert_eq!(warnings(&first), "[]", "{url}: {}", text(&output));
            assert_eq!(
                stat(&first, "written_to_shared_cache"),
                PLATFORM_PACKAGES + 2,
                "{url}"
            );
        }
        let (output, read) = Runner::new(&repo, &url).with(&env).lock();
        assert_eq!(warnings(&read), "[]", "{url}: {}", text(&output));
        assert_eq!(
            stat(&read, "packages_from_shared_cache"),
            PLATFORM_PACKAGES,
            "{url}: {}",
            text(&output)
        );
        assert_eq!(locks(&repo), expected);
        let connect = format!("CONNECT {name} ");
        assert!(
            proxy.seen().iter().any(|l| l.starts_with(&connect)),
            "{url}: {:?}",
            proxy.seen()
        );

        for (var, value) in [
            ("NO_PROXY", "registry.test"),
            ("SSL_CERT_FILE", "/dev/null"),
        ] {
            let mut env = env.clone();
            env.push((var.to_string(), value.to_string()));
            let before = proxy.seen().len();
            let (output, report) = Runner::new(&repo, &url).with(&env).lock();
            assert!(
                warnings(&report).contains("unavailable"),
                "{url} {var}: {}",
                text(&output)
            );
            assert_eq!(
                stat(&report, "packages_from_shared_cache"),
                0,
                "{url} {var}"
            );
            assert_eq!(locks(&repo), expected);
            if var == "NO_PROXY" {
                assert_eq!(proxy.seen().len(), before, "{url}: NO_PROXY ignored");
            }
        }
    }
}

/// A store that is down, stalls, fails or answers garbage costs a warning, never a root
/// or a hash; a stalled store is asked once, not once per package.
#[test]
fn a_broken_store_degrades_to_the_registry() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let expected = reference(&repo);
    let down = format!(
        "http://127.0.0.1:{}/cache/",
        crate::support::shared_stores::free_port()
    );
    let stalled = HttpStore::start(Behaviour::Stalled);
    let failing = HttpStore::start(Behaviour::Failing);
    let garbage = HttpStore::start(Behaviour::Garbage);
    for (name, url, said) in [
        ("down", down.as_str(), "unavailable"),
        ("stalled", &stalled.url(), "unavailable"),
        ("failing", &failing.url(), "unavailable"),
        ("garbage", &garbage.url(), "ignored"),
    ] {
        let (_, report) = Runner::new(&repo, url)
            .trusting(WRITER_KEY)
            .writing(WRITER_KEY)
            .with(&[("TFSUM_SHARED_CACHE_TIMEOUT_SECS".into(), "1".into())])
            .lock();
        assert_eq!(locks(&repo), expected, "{name}");
        assert_eq!(stat(&report, "packages_from_shared_cache"), 0, "{name}");
        assert!(warnings(&report).contains(said), "{name}: {report:#}");
    }
    assert_eq!(stalled.requests(), 1, "a stalled store was asked again");
}

#[test]
fn a_repository_cannot_choose_the_shared_cache() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    repo.write(
        ".tfsum.toml",
        "platforms = [\"linux_amd64\"]\nshared_cache = \"file:///tmp/planted\"\n",
    );
    let output = repo.lock_all(PLATFORMS, &[], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(".tfsum.toml:2: shared_cache cannot be set in a repository's"),
        "{}",
        text(&output)
    );
}

fn objects_below(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    found.sort();
    found
}

#[test]
fn a_trusted_job_prefills_the_shared_cache_from_its_local_cache() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let expected = reference(&repo);
    let store = HttpStore::start(Behaviour::Normal);
    let url = store.url();
    let before = downloads(&registry);
    let filled = repo.lock_all(
        PLATFORMS,
        &["--fill-shared-cache", "--format=json"],
        &[
            ("TFSUM_SHARED_CACHE", &url),
            ("TFSUM_SHARED_CACHE_SIGNING_KEY", WRITER_KEY.0),
        ],
    );
    assert!(filled.status.success(), "{}", text(&filled));
    let report: serde_json::Value = serde_json::from_slice(&filled.stdout).expect("JSON");
    assert_eq!(
        stat(&report, "written_to_shared_cache"),
        PLATFORM_PACKAGES + 2
    );
    assert_eq!(
        downloads(&registry),
        before,
        "the local cache had everything"
    );

    assert_served_from_shared(&repo, &registry, &url, &[], &expected);

    // Without the key there is nothing to sign with: refused before anything runs.
    let refused = repo.lock_all(
        PLATFORMS,
        &["--fill-shared-cache"],
        &[("TFSUM_SHARED_CACHE", &url)],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        harness::combined(&refused).contains("needs the writer's private key"),
        "{}",
        text(&refused)
    );
}

#[test]
fn an_azure_container_round_trips() {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let expected = reference(&repo);
    let azurite = Azurite::start();
    let url = azurite.url("tfsum");
    let (_, first) = Runner::new(&repo, &url)
        .with(&azurite.env())
        .writing(WRITER_KEY)
        .lock();
    assert_eq!(
        stat(&first, "written_to_shared_cache"),
        PLATFORM_PACKAGES + 2,
        "{first:#}"
    );
    assert_served_from_shared(&repo, &registry, &url, &azurite.env(), &expected);
    // The emulator's endpoint is plain HTTP: refused when it is not loopback.
    let refused = harness::run(
        repo.path(),
        &repo.cli_config(),
        &repo.cache(),
        &["lock", "-r", "."],
        &[
            ("TFSUM_SHARED_CACHE", url.as_str()),
            ("AZURE_STORAGE_USE_EMULATOR", "true"),
            ("AZURITE_BLOB_STORAGE_URL", "http://cache.example.com:10000"),
        ],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        harness::combined(&refused).contains("plain http://"),
        "{}",
        text(&refused)
    );
}
