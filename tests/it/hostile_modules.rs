//! Remote modules on a hostile checkout (issue 20): one commit fetched once however many
//! subdirectories and registry modules reach it; a planted or edited cache package and
//! a future-dated version list not believed; a dripping server cut off at the deadline;
//! credentials in a source never printed, whatever the output format.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sha2::Digest as _;
use tfsum::internals::{
    parse_source, FetcherOptions, GitOptions, Http, HttpConfig, ModuleFetcher, RegistryClient,
    RetryPolicy,
};

use crate::modules_fetch::{fetch, tf_files, Setup};
use crate::support::fake_modules::{FakeModuleRegistry, Location};
use crate::support::git_http::{GitRequest, GitServer};

/// A monorepo at tag v1, and a registry whose two modules are served from it: one
/// pointing at `//labels`, one at the whole repository.
fn monorepo(server: &GitServer) -> (String, String, FakeModuleRegistry) {
    let repo = server.repo("mono");
    repo.write("kms/main.tf", "# kms\n")
        .write("labels/main.tf", "# labels\n")
        .write("sg/main.tf", "# sg\n");
    let commit = repo.commit("v1");
    repo.tag("v1");
    let url = server.url("mono");
    let registry = FakeModuleRegistry::builder()
        .module("acme", "labels", "aws")
        .version("1.0.0")
        .location(Location::Given(format!("git::{url}//labels?ref=v1")))
        .module("acme", "mono", "aws")
        .version("1.0.0")
        .location(Location::Given(format!("git::{url}?ref=v1")))
        .start();
    (url, commit, registry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_commit_is_fetched_once_through_subdirs_and_registry_modules() {
    let server = GitServer::start();
    let (url, commit, registry) = monorepo(&server);
    let setup = Setup::new(&registry.cli_config());
    let run = setup.run(false, &[]);
    let sources = [
        format!("git::{url}//kms?ref=v1"),
        format!("git::{url}//labels?ref=v1"),
        format!("git::{url}//sg?ref={commit}"),
        registry.source("acme", "labels", "aws"),
        format!("{}//sg", registry.source("acme", "mono", "aws")),
    ];
    let got = futures::future::join_all(sources.iter().map(|s| fetch(&run, s, None))).await;
    let mut seen = Vec::new();
    for (source, got) in sources.iter().zip(got) {
        let got = got.unwrap_or_else(|e| panic!("{source}: {e}"));
        seen.push(
            tf_files(&got.dir)
                .into_values()
                .collect::<Vec<_>>()
                .join(""),
        );
    }
    assert_eq!(
        seen,
        ["# kms\n", "# labels\n", "# sg\n", "# labels\n", "# sg\n"]
    );
    assert_eq!(
        server.count("mono", GitRequest::Fetch),
        1,
        "{:?}",
        server.requests()
    );
    assert_eq!(server.count("mono", GitRequest::ListRefs), 1);
    assert_eq!(run.stats().modules_fetched, 1);
}

/// The cache's check envelope: SHA-256 of the entry's compact JSON, fields in order.
fn reseal(envelope: &str) -> String {
    let entry_at = envelope.find("\"entry\":").unwrap() + "\"entry\":".len();
    let pretty = envelope[entry_at..].trim_end().strip_suffix('}').unwrap();
    let mut compact = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in pretty.chars() {
        if in_string {
            compact.push(c);
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => escaped = false,
            }
        } else if !c.is_whitespace() {
            in_string = c == '"';
            compact.push(c);
        }
    }
    let check = hex::encode(sha2::Sha256::digest(compact.as_bytes()));
    let old_at = envelope.find("\"check\": \"").unwrap() + "\"check\": \"".len();
    format!("{}{check}{}", &envelope[..old_at], &envelope[old_at + 64..])
}

/// Edits `file` of the cached package of `commit` and recomputes every checksum the
/// entry carries, as someone able to write the cache would.
fn plant(cache: &std::path::Path, commit: &str, file: &str, content: &str) {
    let entry = cache.join("v2/modules3/git").join(commit);
    let path = entry.join("files").join(file);
    let old = hex::encode(sha2::Sha256::digest(std::fs::read(&path).unwrap()));
    std::fs::write(&path, content).unwrap();
    let new = hex::encode(sha2::Sha256::digest(content.as_bytes()));
    let meta = std::fs::read_to_string(entry.join("package.json")).unwrap();
    assert!(meta.contains(&old));
    std::fs::write(
        entry.join("package.json"),
        reseal(&meta.replace(&old, &new)),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn planted_cache_packages_and_future_version_lists_are_not_believed() {
    let server = GitServer::start();
    let (url, commit, registry) = monorepo(&server);
    let setup = Setup::new(&registry.cli_config());
    let direct = format!("git::{url}//kms?ref={commit}");
    let via_registry = format!("{}//kms", registry.source("acme", "mono", "aws"));
    let first = setup.run(false, &[]);
    fetch(&first, &direct, None).await.unwrap();
    fetch(&first, &via_registry, None).await.unwrap();
    assert_eq!(server.count("mono", GitRequest::Fetch), 1);

    // The reseal reproduces the cache's own check: an untouched entry is still used.
    let evil =
        "terraform {\n  required_providers {\n    evil = { source = \"evil/evil\" }\n  }\n}\n";
    let cache = setup.cache.path();
    let meta = cache.join(format!("v2/modules3/git/{commit}/package.json"));
    let sealed = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, reseal(&sealed)).unwrap();
    let untouched = setup.run(false, &[]);
    fetch(&untouched, &direct, None).await.unwrap();
    assert_eq!(untouched.stats().modules_from_cache, 1);

    // Edited, checksums recomputed: fetched again, by the direct source and through the
    // registry version served from that commit.
    plant(cache, &commit, "kms/main.tf", evil);
    server.reset_counts();
    let second = setup.run(false, &[]);
    for source in [&direct, &via_registry] {
        let got = fetch(&second, source, None).await.unwrap();
        assert_eq!(tf_files(&got.dir)["main.tf"], "# kms\n", "{source}");
    }
    assert_eq!(server.count("mono", GitRequest::Fetch), 1);

    // Offline, a planted package is a miss, named.
    plant(cache, &commit, "kms/main.tf", evil);
    let offline = setup.run(true, &[]);
    let err = fetch(&offline, &direct, None).await.unwrap_err();
    assert!(err.contains("is not in the module cache"), "{err}");

    // A version list dated ten years ahead is expired under any TTL.
    let host = registry.host().replace(':', "_");
    let list = cache.join(format!("v2/modules3/versions/{host}/acme/mono/aws.json"));
    let ahead = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 10 * 365 * 86400;
    let entry = format!("{{\"fetched_at\":{ahead},\"versions\":[\"9.9.9\"]}}");
    let check = hex::encode(sha2::Sha256::digest(entry.as_bytes()));
    let about = format!("the versions of module {}/acme/mono/aws", registry.host());
    std::fs::write(
        &list,
        format!("{{\"check\":\"{check}\",\"about\":\"{about}\",\"entry\":{entry}}}"),
    )
    .unwrap();
    registry.reset_counts();
    let third = setup.run(false, &[]);
    let got = fetch(&third, &via_registry, None).await.unwrap();
    assert_eq!(got.version.as_deref(), Some("1.0.0"));
    assert_eq!(registry.count("/versions"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dripping_module_archive_is_cut_off_within_the_deadline() {
    use axum::body::Body;
    use axum::routing::get;
    let app = axum::Router::new().route(
        "/m.tar.gz",
        get(|| async {
            let body = futures::stream::unfold((), |()| async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Some((Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"x")), ()))
            });
            Body::from_stream(body)
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let config = HttpConfig {
        retry: RetryPolicy {
            max_attempts: 50,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(20),
            max_retry_after: Duration::from_secs(1),
        },
        stream_idle_timeout: Duration::from_millis(500),
        download_deadline: Duration::from_secs(2),
        ..HttpConfig::default()
    };
    let cli = tfsum::internals::load_file(std::path::Path::new("/dev/null")).unwrap();
    let env = tfsum::internals::Env {
        vars: Default::default(),
        home: None,
        opentofu: false,
    };
    let fetcher = ModuleFetcher::new(
        Some(RegistryClient::new(Http::new(config), cli, env)),
        FetcherOptions {
            jobs: Arc::new(tokio::sync::Semaphore::new(2)),
            git: GitOptions::default(),
            ..FetcherOptions::default()
        },
    );
    let source = parse_source(&format!("http://user:PASSWORD@{addr}/m.tar.gz")).unwrap();
    let started = Instant::now();
    let err = tokio::time::timeout(Duration::from_secs(20), fetcher.fetch(&source, None))
        .await
        .expect("cut off, not read forever")
        .unwrap_err()
        .to_string();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.contains(&format!(
            "http://{addr}/m.tar.gz: the download did not finish within 2s"
        )),
        "{err}"
    );
    assert!(!err.contains("PASSWORD"), "{err}");
}

/// Credentials in a source (git over https, an https archive, an unsupported getter)
/// appear in no output: text, JSON, markdown, and the `-v` and `RUST_LOG` logs.
#[test]
fn credentials_in_sources_are_never_printed() {
    let server = GitServer::start();
    let git = server.url("missing");
    let base = git.trim_end_matches("/missing.git");
    let work = tempfile::TempDir::new().unwrap();
    let calls = [
        (
            "git",
            format!(
                "git::{}?ref=v1",
                git.replace("http://", "http://user:PASSWORD@")
            ),
        ),
        (
            "archive",
            format!(
                "{}/m.zip?archive=zip",
                base.replace("http://", "https://token:PASSWORD@")
            ),
        ),
        (
            "s3",
            "s3::https://user:PASSWORD@bucket.s3.amazonaws.com/m.zip".to_string(),
        ),
        (
            "version",
            format!(
                "git::{}?ref=v1",
                git.replace("http://", "http://user:PASSWORD@")
            ),
        ),
    ];
    for (name, source) in &calls {
        let dir = work.path().join("repo").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let version = if *name == "version" {
            "  version = \"1.0\"\n"
        } else {
            ""
        };
        std::fs::write(
            dir.join("main.tf"),
            format!("module \"{name}\" {{\n  source = \"{source}\"\n{version}}}\n"),
        )
        .unwrap();
    }
    let cli = work.path().join("terraformrc");
    std::fs::write(&cli, "").unwrap();
    let repo = work.path().join("repo");
    type Run<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let runs: [Run; 5] = [
        (&["lock", "-r", "."], &[]),
        (&["lock", "-r", "--format=json", "."], &[]),
        (&["lock", "-r", "--format=markdown", "."], &[]),
        (&["-vv", "lock", "-r", "."], &[]),
        (&["lock", "-r", "."], &[("RUST_LOG", "trace")]),
    ];
    for (args, env) in runs {
        let out = crate::tfsum::run_with(&repo, &cli, work.path(), args, env);
        let text = crate::tfsum::text(&out);
        assert!(!out.status.success(), "{text}");
        assert!(!text.contains("PASSWORD"), "{args:?} {env:?}:\n{text}");
        for (name, _) in &calls {
            assert!(
                text.contains(&format!("module \\\"{name}\\\""))
                    || text.contains(&format!("module \"{name}\"")),
                "{args:?}: {name}:\n{text}"
            );
        }
    }
}
