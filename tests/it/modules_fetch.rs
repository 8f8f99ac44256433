//! The module fetcher against the module registry fake and real git over smart HTTP:
//! each package fetched once per run however many calls share it, nothing fetched on a
//! second run, `--offline` from the cache, every bad input failing only its own fetch
//! with a message naming the source and the cause, and version selection and source
//! rules checked against Terraform v1.0.3 itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tempfile::TempDir;
use tfsum::internals::Env;
use tfsum::internals::{
    parse_source, parse_terragrunt_source, resolve_in_package, FetchedModule, FetcherOptions,
    GitOptions, ModuleFetcher, ModuleStats,
};
use tfsum::internals::{Http, HttpConfig, RegistryClient, RetryPolicy};

use crate::support::fake_modules::{FakeModuleRegistry, Location, Packing};
use crate::support::git_http::{git, hermetic_git_env, GitRequest, GitServer};
use crate::support::terraform;

/// What one run needs: a cache directory and a CLI configuration file.
pub(crate) struct Setup {
    pub(crate) cache: TempDir,
    cli_dir: TempDir,
}

impl Setup {
    pub(crate) fn new(cli_config: &str) -> Setup {
        let cli_dir = TempDir::new().unwrap();
        std::fs::write(cli_dir.path().join("terraformrc"), cli_config).unwrap();
        Setup {
            cache: TempDir::new().unwrap(),
            cli_dir,
        }
    }

    fn cli_path(&self) -> PathBuf {
        self.cli_dir.path().join("terraformrc")
    }

    /// A fresh fetcher (one "run") over the same cache.
    pub(crate) fn run(&self, offline: bool, vars: &[(&str, &str)]) -> ModuleFetcher {
        self.run_with(offline, vars, Duration::from_secs(300))
    }

    /// An online run with `--versions-ttl` `versions_ttl`.
    fn run_ttl(&self, versions_ttl: Duration) -> ModuleFetcher {
        self.run_with(false, &[], versions_ttl)
    }

    fn run_with(
        &self,
        offline: bool,
        vars: &[(&str, &str)],
        versions_ttl: Duration,
    ) -> ModuleFetcher {
        let cli = tfsum::internals::load_file(&self.cli_path()).unwrap();
        let env = Env {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            home: None,
            opentofu: false,
        };
        let config = HttpConfig {
            retry: RetryPolicy {
                max_attempts: 2,
                base_delay: Duration::from_millis(1),
                max_delay: Duration::from_millis(5),
                max_retry_after: Duration::from_secs(1),
            },
            ..HttpConfig::default()
        };
        let client = RegistryClient::new(Http::new(config), cli, env);
        ModuleFetcher::new(
            Some(client),
            FetcherOptions {
                cache_root: Some(self.cache.path().to_path_buf()),
                offline,
                versions_ttl,
                jobs: Arc::new(tokio::sync::Semaphore::new(4)),
                git: GitOptions {
                    env: hermetic_git_env()
                        .into_iter()
                        .map(|(k, v)| (k.into(), v.into()))
                        .collect(),
                    timeout: Duration::from_secs(60),
                    retry: RetryPolicy {
                        base_delay: Duration::from_millis(10),
                        ..RetryPolicy::default()
                    },
                    ..GitOptions::default()
                },
                ..FetcherOptions::default()
            },
        )
    }
}

pub(crate) async fn fetch(
    fetcher: &ModuleFetcher,
    source: &str,
    version: Option<&str>,
) -> Result<FetchedModule, String> {
    let parsed = parse_source(source).map_err(|e| e.to_string())?;
    fetcher
        .fetch(&parsed, version)
        .await
        .map_err(|e| e.to_string())
}

/// The configuration files below `dir`, relative, with their content.
pub(crate) fn tf_files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_file() && (name.ends_with(".tf") || name.ends_with(".tf.json")) {
            let rel = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .to_string();
            out.insert(rel, std::fs::read_to_string(entry.path()).unwrap());
        }
    }
    out
}

fn registry() -> FakeModuleRegistry {
    FakeModuleRegistry::builder()
        .module("acme", "vpc", "aws")
        .version("1.0.0")
        .version("1.1.0")
        .file("modules/endpoints/main.tf", "# endpoints 1.1.0\n")
        .version("1.2.0-beta")
        .version("2.0.0")
        .module("acme", "dns", "aws")
        .version("0.3.0")
        .packing(Packing::Zip)
        .location(Location::PathRelative)
        .module("acme", "net", "aws")
        .version("3.0.0")
        .packing(Packing::TarGzTopDir)
        .location(Location::Absolute)
        .file("modules/sub/main.tf", "# net sub\n")
        .start()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registry_modules_are_fetched_once_per_version_then_served_from_the_cache() {
    let fake = registry();
    let setup = Setup::new(&fake.cli_config());
    let vpc = fake.source("acme", "vpc", "aws");
    let run = setup.run(false, &[]);

    // Twelve calls share two versions of one module and one version of two others.
    let mut calls = Vec::new();
    for i in 0..6 {
        let sub = if i % 2 == 0 {
            ""
        } else {
            "//modules/endpoints"
        };
        calls.push((format!("{vpc}{sub}"), Some("~> 1.0")));
        calls.push((vpc.clone(), Some(">= 2.0")));
    }
    calls.push((fake.source("acme", "dns", "aws"), None));
    calls.push((
        format!("{}//modules/sub", fake.source("acme", "net", "aws")),
        None,
    ));
    let results = futures::future::join_all(
        calls
            .iter()
            .map(|(source, version)| fetch(&run, source, *version)),
    )
    .await;
    let results: Vec<FetchedModule> = results.into_iter().map(Result::unwrap).collect();

    assert_eq!(results[0].version.as_deref(), Some("1.1.0"));
    assert_eq!(
        tf_files(&results[0].dir)["main.tf"],
        "# acme/vpc/aws 1.1.0\n"
    );
    assert_eq!(results[1].version.as_deref(), Some("2.0.0"));
    assert!(
        results[2].dir.ends_with("modules/endpoints"),
        "{:?}",
        results[2].dir
    );
    assert_eq!(results[0].package_root, results[2].package_root);
    assert_eq!(
        tf_files(&results[12].dir).len(),
        1,
        "zip, path-relative location"
    );
    // The tarball's top-level directory is reached through the location's `//*`.
    assert_eq!(tf_files(&results[13].dir)["main.tf"], "# net sub\n");
    assert!(results[13].dir.starts_with(&results[13].package_root));

    assert_eq!(
        fake.count("/acme/vpc/aws/versions"),
        1,
        "one version list per module per run"
    );
    assert_eq!(fake.count("/acme/vpc/aws/1.1.0/download"), 1);
    assert_eq!(fake.count("/acme/vpc/aws/2.0.0/download"), 1);
    assert_eq!(fake.downloads(), 4, "one archive per module version");
    assert_eq!(
        run.stats(),
        ModuleStats {
            modules_fetched: 4,
            modules_from_cache: 0
        }
    );
    // Registry requests carry X-Terraform-Version; archives do not.
    for seen in fake.requests() {
        assert_eq!(
            seen.terraform_version.is_some(),
            seen.path.starts_with("/v1/"),
            "{seen:?}"
        );
    }

    // A second run: version lists within the TTL and packages from the cache.
    fake.reset_counts();
    let second = setup.run(false, &[]);
    for (source, version) in &calls {
        fetch(&second, source, *version).await.unwrap();
    }
    assert_eq!(fake.requests().len(), 0, "{:?}", fake.requests());
    assert_eq!(
        second.stats(),
        ModuleStats {
            modules_fetched: 0,
            modules_from_cache: 4
        }
    );

    // Offline: the cache answers whatever the version lists' age; a module never
    // fetched is named.
    let offline = setup.run(true, &[]);
    let got = fetch(&offline, &vpc, Some("~> 1.0")).await.unwrap();
    assert_eq!(got.version.as_deref(), Some("1.1.0"));
    let err = fetch(&offline, &vpc, Some("1.0.0")).await.unwrap_err();
    assert!(
        err.contains(&format!("module {vpc} v1.0.0 is not in the module cache")),
        "{err}"
    );
    let err = fetch(&offline, &fake.source("acme", "other", "aws"), None)
        .await
        .unwrap_err();
    assert!(
        err.contains("the version list of module") && err.contains("--offline"),
        "{err}"
    );
    assert_eq!(fake.requests().len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registry_credentials_go_to_registry_endpoints_only() {
    let fake = registry();
    fake.require_token(Some("s3cret"));
    let setup = Setup::new(&format!(
        "{}\ncredentials \"{}\" {{\n  token = \"s3cret\"\n}}\n",
        fake.cli_config(),
        fake.host()
    ));
    let run = setup.run(false, &[]);
    fetch(&run, &fake.source("acme", "vpc", "aws"), None)
        .await
        .unwrap();
    for seen in fake.requests() {
        let expected = seen.path.starts_with("/v1/").then_some("Bearer s3cret");
        assert_eq!(seen.authorization.as_deref(), expected, "{}", seen.path);
    }

    let setup = Setup::new(&fake.cli_config());
    let err = fetch(
        &setup.run(false, &[]),
        &fake.source("acme", "vpc", "aws"),
        None,
    )
    .await
    .unwrap_err();
    assert!(
        err.contains("401 Unauthorized") && err.contains("no credentials are configured"),
        "{err}"
    );
}

fn git_fixture(server: &GitServer) -> (String, String) {
    let repo = server.repo("modules");
    repo.write(
        "dns/main.tf",
        "module \"zone\" {\n  source = \"../zone\"\n}\n",
    )
    .write("zone/main.tf", "# zone v1\n")
    .write("vpc/main.tf", "# vpc v1\n")
    .write("README.md", "not kept\n");
    let v1 = repo.commit("v1");
    repo.annotated_tag("v1.4.0").branch("stable");
    repo.write("zone/main.tf", "# zone v2\n");
    repo.commit("v2");
    (server.url("modules"), v1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn git_commits_are_fetched_once_and_pinned_ones_never_again() {
    let server = GitServer::start();
    let (url, v1) = git_fixture(&server);
    let setup = Setup::new("");
    let run = setup.run(false, &[]);
    let sources = [
        format!("git::{url}//dns?ref=v1.4.0"),
        format!("git::{url}//vpc?ref=v1.4.0"),
        format!("git::{url}//zone?ref=stable"),
        format!("git::{url}//zone?ref={v1}"),
        format!("git::{url}//zone?ref=main"),
        format!("git::{url}//zone"),
    ];
    let got: Vec<FetchedModule> =
        futures::future::join_all(sources.iter().map(|s| fetch(&run, s, None)))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
    assert_eq!(tf_files(&got[0].dir).len(), 1);
    assert_eq!(tf_files(&got[2].dir)["main.tf"], "# zone v1\n");
    assert_eq!(tf_files(&got[4].dir)["main.tf"], "# zone v2\n");
    assert_eq!(
        got[0].package_root, got[3].package_root,
        "tag, branch and id: one commit"
    );
    assert!(
        !got[0].package_root.join("README.md").exists(),
        "only configuration is kept"
    );
    // v1 (by tag, branch or id) and main: two commits, two fetches; one ref listing.
    assert_eq!(
        server.count("modules", GitRequest::Fetch),
        2,
        "{:?}",
        server.requests()
    );
    assert_eq!(server.count("modules", GitRequest::ListRefs), 1);
    assert_eq!(run.stats().modules_fetched, 2);

    // A local call inside the package resolves inside it; one leaving it is refused.
    let zone = resolve_in_package(&got[0].package_root, &got[0].dir, "../zone").unwrap();
    assert_eq!(tf_files(&zone)["main.tf"], "# zone v1\n");
    assert!(resolve_in_package(&got[0].package_root, &got[0].dir, "../../outside").is_err());

    // Second run, within the versions TTL: the refs' commits come from the cache too,
    // so no request at all.
    server.reset_counts();
    let second = setup.run(false, &[]);
    for source in &sources {
        fetch(&second, source, None).await.unwrap();
    }
    assert_eq!(server.requests().len(), 0, "{:?}", server.requests());
    assert_eq!(
        second.stats(),
        ModuleStats {
            modules_fetched: 0,
            modules_from_cache: 2
        }
    );

    // With `--versions-ttl 0`: unpinned refs cost one ls-remote, the pinned id nothing.
    let asking = setup.run_ttl(Duration::ZERO);
    fetch(&asking, &format!("git::{url}//zone?ref={v1}"), None)
        .await
        .unwrap();
    assert_eq!(server.requests().len(), 0, "{:?}", server.requests());
    for source in &sources {
        fetch(&asking, source, None).await.unwrap();
    }
    assert_eq!(server.count("modules", GitRequest::Fetch), 0);
    assert_eq!(server.count("modules", GitRequest::ListRefs), 1);

    // Offline: refs resolve to what they last resolved to.
    server.reset_counts();
    let offline = setup.run(true, &[]);
    for source in &sources {
        fetch(&offline, source, None).await.unwrap();
    }
    assert_eq!(server.requests().len(), 0);
    let err = fetch(&offline, &format!("git::{url}?ref=v9"), None)
        .await
        .unwrap_err();
    assert!(
        err.contains("at ref v9 is not in the module cache"),
        "{err}"
    );

    // A moved branch: within the TTL the remembered commit, without asking; with
    // `--versions-ttl 0` the new commit, fetched once.
    let repo = server.existing("modules");
    repo.checkout("stable")
        .write("zone/main.tf", "# zone v3\n")
        .commit("v3");
    server.reset_counts();
    let stable = format!("git::{url}//zone?ref=stable");
    let kept = fetch(&setup.run(false, &[]), &stable, None).await.unwrap();
    assert_eq!(tf_files(&kept.dir)["main.tf"], "# zone v1\n");
    assert_eq!(server.requests().len(), 0, "{:?}", server.requests());
    let third = setup.run_ttl(Duration::ZERO);
    let moved = fetch(&third, &stable, None).await.unwrap();
    assert_eq!(tf_files(&moved.dir)["main.tf"], "# zone v3\n");
    assert_eq!(third.stats().modules_fetched, 1);
    assert_eq!(server.count("modules", GitRequest::ListRefs), 1);

    // A remembered ref whose package left the cache is fetched through its name, and
    // when the ref has moved since, the remembered commit by its id; neither lists refs.
    let main = got[4].identity.rsplit(' ').next().unwrap().to_string();
    let package = |commit: &str| setup.cache.path().join(format!("v2/modules3/git/{commit}"));
    let zone_main = format!("git::{url}//zone?ref=main");
    for (moved, fetches) in [(false, 1), (true, 2)] {
        if moved {
            repo.checkout("main")
                .write("zone/main.tf", "# zone v4\n")
                .commit("v4");
        }
        std::fs::remove_dir_all(package(&main)).unwrap();
        server.reset_counts();
        let run = setup.run(false, &[]);
        let refetched = fetch(&run, &zone_main, None).await.unwrap();
        let content = &tf_files(&refetched.dir)["main.tf"];
        assert_eq!(content, "# zone v2\n", "moved: {moved}");
        assert_eq!(server.count("modules", GitRequest::ListRefs), 0);
        assert_eq!(server.count("modules", GitRequest::Fetch), fetches);
    }

    // A remembered commit the server no longer has (its branch rewritten, the old
    // commit pruned) and the cache lost: the ref is listed again.
    let v3 = moved.identity.rsplit(' ').next().unwrap().to_string();
    repo.checkout("stable")
        .write("zone/main.tf", "# zone v3'\n");
    git(&repo.work, &["commit", "-q", "-a", "--amend", "-m", "v3'"]);
    let bare = repo.bare.to_str().unwrap();
    git(&repo.work, &["push", "-q", "--force", "--mirror", bare]);
    git(&repo.bare, &["gc", "-q", "--prune=now"]);
    std::fs::remove_dir_all(package(&v3)).unwrap();
    server.reset_counts();
    let relisted = fetch(&setup.run(false, &[]), &stable, None).await.unwrap();
    assert_eq!(tf_files(&relisted.dir)["main.tf"], "# zone v3'\n");
    assert_eq!(server.count("modules", GitRequest::ListRefs), 1);

    // An abbreviated id needs the history: one full fetch per run, however many calls.
    server.reset_counts();
    let fourth = setup.run(false, &[]);
    for _ in 0..2 {
        let short = fetch(&fourth, &format!("git::{url}//zone?ref={}", &v1[..7]), None)
            .await
            .unwrap();
        assert_eq!(tf_files(&short.dir)["main.tf"], "# zone v1\n");
    }
    assert_eq!(server.count("modules", GitRequest::Fetch), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registry_locations_may_point_at_git_and_pages_at_archives() {
    let server = GitServer::start();
    let (url, _) = git_fixture(&server);
    let fake = FakeModuleRegistry::builder()
        .module("acme", "fromgit", "aws")
        .version("1.0.0")
        .location(Location::Given(format!("git::{url}?ref=v1.4.0")))
        .start();
    let setup = Setup::new(&fake.cli_config());
    let run = setup.run(false, &[]);
    let got = fetch(
        &run,
        &format!("{}//dns", fake.source("acme", "fromgit", "aws")),
        None,
    )
    .await
    .unwrap();
    assert!(tf_files(&got.dir)["main.tf"].contains("../zone"));

    // A plain https URL that answers with X-Terraform-Get, or a meta tag.
    let archive = FakeModuleRegistry::builder()
        .module("acme", "page", "aws")
        .version("1.0.0")
        .start();
    let base = archive.base_url();
    let tarball = format!("{base}/archives/acme/page/aws/1.0.0.tar.gz");
    archive.serve("/pages/header", 200, &[("X-Terraform-Get", &tarball)], "");
    archive.serve(
        "/pages/meta",
        200,
        &[("Content-Type", "text/html")],
        format!("<html><head><meta name=\"terraform-get\" content=\"{tarball}\"></head></html>"),
    );
    archive.serve("/pages/nothing", 200, &[], "<html></html>");
    // go-getter takes `/archives/…` as a local path (Terraform v1.0.3 then fails to find
    // it); tfsum refuses a local path in a remote answer.
    archive.serve(
        "/pages/relative",
        200,
        &[("X-Terraform-Get", "/archives/acme/page/aws/1.0.0.tar.gz")],
        "",
    );
    for page in ["header", "meta"] {
        let got = fetch(&run, &format!("{base}/pages/{page}"), None)
            .await
            .unwrap();
        assert_eq!(
            tf_files(&got.dir)["main.tf"],
            "# acme/page/aws 1.0.0\n",
            "{page}"
        );
    }
    let err = fetch(&run, &format!("{base}/pages/nothing"), None)
        .await
        .unwrap_err();
    assert!(err.contains("no source URL was returned"), "{err}");
    let err = fetch(&run, &format!("{base}/pages/relative"), None)
        .await
        .unwrap_err();
    assert!(
        err.contains("may only point to a git repository or an http(s) URL"),
        "{err}"
    );
    // A direct archive URL, fetched once per run, never persisted.
    let direct = format!("{base}/archives/acme/page/aws/1.0.0.tar.gz");
    archive.reset_counts();
    fetch(&run, &direct, None).await.unwrap();
    fetch(&run, &format!("{direct}//."), None).await.unwrap();
    assert_eq!(archive.downloads(), 1);
    // go-getter's ?checksum= is checked on the archive.
    let bytes = archive.served("/archives/acme/page/aws/1.0.0.tar.gz");
    let sum = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes));
    let fresh = setup.run(false, &[]);
    fetch(&fresh, &format!("{direct}?checksum=sha256:{sum}"), None)
        .await
        .unwrap();
    let err = fetch(
        &fresh,
        &format!("{direct}?checksum=sha256:{}", "0".repeat(64)),
        None,
    )
    .await
    .unwrap_err();
    assert!(err.contains("checksum mismatch"), "{err}");
    let err = fetch(&setup.run(true, &[]), &direct, None)
        .await
        .unwrap_err();
    assert!(
        err.contains("https module sources are never cached"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_git_failures_are_retried() {
    let server = GitServer::start();
    let (url, _) = git_fixture(&server);
    let setup = Setup::new("");
    // Two 503s: one ls-remote retry and one fetch retry, or two of either.
    server.fail_next(2, 503);
    let got = fetch(
        &setup.run(false, &[]),
        &format!("git::{url}//vpc?ref=v1.4.0"),
        None,
    )
    .await
    .unwrap();
    assert_eq!(tf_files(&got.dir)["main.tf"], "# vpc v1\n");
    // A permanent failure is not retried: one advertisement request, then the error.
    server.reset_counts();
    let err = fetch(
        &setup.run(false, &[]),
        &format!("git::{}?ref=v1", server.url("absent")),
        None,
    )
    .await
    .unwrap_err();
    assert!(err.contains("absent.git"), "{err}");
    assert_eq!(server.count("absent", GitRequest::Advertisement), 1);
}

/// Each bad input fails its own fetch, names the source and the cause, leaves the
/// fetcher usable for other sources, and writes nothing outside the cache.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_fail_alone_with_clear_messages() {
    let server = GitServer::start();
    let (url, _) = git_fixture(&server);
    let evil = tar_gz_raw(&[("../evil.tf", b"x".as_slice(), None)]);
    let escaping_link = tar_gz_raw(&[
        ("main.tf", b"".as_slice(), None),
        ("up.tf", b"".as_slice(), Some("../../../etc/passwd")),
    ]);
    let fake = FakeModuleRegistry::builder()
        .module("acme", "ok", "aws")
        .version("1.0.0")
        .module("acme", "notanarchive", "aws")
        .version("1.0.0")
        .raw_archive(b"<html>this is not a tarball</html>".to_vec())
        .module("acme", "dotdot", "aws")
        .version("1.0.0")
        .raw_archive(evil)
        .module("acme", "symlink", "aws")
        .version("1.0.0")
        .raw_archive(escaping_link)
        .module("acme", "zipsymlink", "aws")
        .version("1.0.0")
        .packing(Packing::Zip)
        .symlink("link.tf", "/etc/passwd")
        .module("acme", "badlocation", "aws")
        .version("1.0.0")
        .location(Location::Given("relative/but/not/a/url".into()))
        .start();
    let setup = Setup::new(&fake.cli_config());
    let run = setup.run(false, &[]);
    let workdir = TempDir::new().unwrap();
    let cases: Vec<(String, Option<&str>, Vec<String>)> = vec![
        (
            "git::http://127.0.0.1:9/unreachable.git?ref=v1".to_string(),
            None,
            vec![
                "git::http://127.0.0.1:9/unreachable.git".into(),
                "listing the refs".into(),
            ],
        ),
        (
            format!("git::{url}?ref=no-such-tag"),
            None,
            vec![
                format!("git::{url}"),
                "no ref \"no-such-tag\"".into(),
                "v1.4.0".into(),
            ],
        ),
        (
            fake.source("acme", "missing", "aws"),
            None,
            vec![format!(
                "module {} cannot be found in the module registry at {}",
                fake.source("acme", "missing", "aws"),
                fake.host()
            )],
        ),
        (
            fake.source("acme", "ok", "aws"),
            Some("> 5.0"),
            vec![
                "no available version".into(),
                "newest available version is 1.0.0".into(),
            ],
        ),
        (
            fake.source("acme", "notanarchive", "aws"),
            None,
            vec![
                "/archives/acme/notanarchive/aws/1.0.0.tar.gz".into(),
                "not a valid tar.gz archive".into(),
            ],
        ),
        (
            fake.source("acme", "dotdot", "aws"),
            None,
            vec!["dotdot".into(), "\"../evil.tf\" contains \"..\"".into()],
        ),
        (
            fake.source("acme", "symlink", "aws"),
            None,
            vec!["symlink".into(), "points outside the package".into()],
        ),
        (
            fake.source("acme", "zipsymlink", "aws"),
            None,
            vec!["points outside the package".into()],
        ),
        (
            fake.source("acme", "ok", "aws") + "//no/such/dir",
            None,
            vec!["\"no/such/dir\" not found".into()],
        ),
        (
            fake.source("acme", "badlocation", "aws"),
            None,
            vec!["invalid source location".into()],
        ),
        (
            format!("git::{url}//../../etc?ref=v1.4.0"),
            None,
            vec!["leaves the package".into()],
        ),
        (
            format!("git::{url}//dns?ref=v1.4.0"),
            Some("1.0"),
            vec!["cannot apply a version constraint".into()],
        ),
        (
            "gcs::https://www.googleapis.com/storage/v1/b/m.zip".into(),
            None,
            vec!["gcs getter".into()],
        ),
    ];
    for (source, version, wants) in &cases {
        let err = fetch(&run, source, *version).await.unwrap_err();
        for want in wants {
            assert!(
                err.contains(want.as_str()),
                "{source}: want {want:?} in {err}"
            );
        }
    }
    // The same fetcher still serves good sources.
    fetch(&run, &fake.source("acme", "ok", "aws"), None)
        .await
        .unwrap();
    fetch(&run, &format!("git::{url}//vpc?ref=v1.4.0"), None)
        .await
        .unwrap();
    // Nothing escaped: no evil.tf anywhere near the cache or the working directory.
    for dir in [setup.cache.path().parent().unwrap(), workdir.path()] {
        let found: Vec<_> = walkdir::WalkDir::new(dir)
            .max_depth(3)
            .into_iter()
            .flatten()
            .filter(|e| e.file_name() == "evil.tf" || e.file_name() == "up.tf")
            .collect();
        assert!(found.is_empty(), "{found:?}");
    }
}

/// A `.tar.gz` with raw (unchecked) names and link targets.
fn tar_gz_raw(entries: &[(&str, &[u8], Option<&str>)]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(gz);
    for (name, content, link) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        if let Some(link) = link {
            header.set_entry_type(tar::EntryType::Symlink);
            header.set_size(0);
            header.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
        }
        header.set_cksum();
        builder.append(&header, *content).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terragrunt_tfr_sources_fetch_the_exact_version() {
    let fake = registry();
    let setup = Setup::new(&fake.cli_config());
    let run = setup.run(false, &[]);
    let parsed = parse_terragrunt_source(&format!(
        "tfr://{}/acme/vpc/aws//modules/endpoints?version=1.1.0",
        fake.host()
    ))
    .unwrap();
    let got = run
        .fetch(&parsed.source, parsed.version.as_deref())
        .await
        .unwrap();
    assert_eq!(got.version.as_deref(), Some("1.1.0"));
    assert_eq!(tf_files(&got.dir)["main.tf"], "# endpoints 1.1.0\n");
}

/// Version selection and source handling agree with Terraform v1.0.3: `terraform get`
/// installs the same module versions from the same fakes (its modules.json says which)
/// and the same configuration files end up in each module directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terraform_get_installs_what_the_fetcher_fetches() {
    let fake = registry();
    let server = GitServer::start();
    let (url, v1) = git_fixture(&server);
    let vpc = fake.source("acme", "vpc", "aws");
    let calls: Vec<(&str, String, Option<&str>)> = vec![
        ("pessimistic", vpc.clone(), Some("~> 1.0")),
        ("major_only", vpc.clone(), Some("~> 1")),
        ("exact_pre", vpc.clone(), Some("1.2.0-beta")),
        ("range", vpc.clone(), Some(">= 1.0, < 2.0")),
        ("newest", vpc.clone(), None),
        (
            "submodule",
            format!("{vpc}//modules/endpoints"),
            Some("1.1.0"),
        ),
        ("zip", fake.source("acme", "dns", "aws"), None),
        (
            "topdir",
            format!("{}//modules/sub", fake.source("acme", "net", "aws")),
            None,
        ),
        ("git_tag", format!("git::{url}//dns?ref=v1.4.0"), None),
        ("git_branch", format!("git::{url}//zone?ref=main"), None),
        ("git_commit", format!("git::{url}//vpc?ref={v1}"), None),
    ];
    let mut main_tf = String::new();
    for (name, source, version) in &calls {
        main_tf.push_str(&format!("module \"{name}\" {{\n  source = \"{source}\"\n"));
        if let Some(version) = version {
            main_tf.push_str(&format!("  version = \"{version}\"\n"));
        }
        main_tf.push_str("}\n");
    }
    let root = TempDir::new().unwrap();
    std::fs::write(root.path().join("main.tf"), &main_tf).unwrap();
    let setup = Setup::new(&fake.cli_config());
    let cli = setup.cli_path();
    let output = tokio::task::spawn_blocking({
        let dir = root.path().to_path_buf();
        move || terraform::run(&dir, &cli, &["get", "-no-color"])
    })
    .await
    .unwrap();
    terraform::assert_success(&output, "terraform get");
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root.path().join(".terraform/modules/modules.json")).unwrap(),
    )
    .unwrap();
    let entries: BTreeMap<String, (Option<String>, PathBuf)> = manifest["Modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["Key"].as_str().unwrap().to_string(),
                (
                    m["Version"].as_str().map(str::to_string),
                    root.path().join(m["Dir"].as_str().unwrap()),
                ),
            )
        })
        .collect();

    let run = setup.run(false, &[]);
    for (name, source, version) in &calls {
        let ours = fetch(&run, source, *version).await.unwrap();
        let (tf_version, tf_dir) = &entries[*name];
        assert_eq!(&ours.version, tf_version, "{name}: version");
        assert_eq!(tf_files(&ours.dir), tf_files(tf_dir), "{name}: files");
    }
    assert_eq!(
        entries["major_only"].0.as_deref(),
        Some("2.0.0"),
        "~> 1 pins nothing"
    );

    // Calls Terraform refuses are refused by the fetcher too.
    for (version, source) in [
        (Some("= 1.2.0-beta"), vpc.clone()),
        (Some("1.0"), format!("git::{url}?ref=v1.4.0")),
    ] {
        let root = TempDir::new().unwrap();
        let version_line = version
            .map(|v| format!("  version = \"{v}\"\n"))
            .unwrap_or_default();
        std::fs::write(
            root.path().join("main.tf"),
            format!("module \"m\" {{\n  source = \"{source}\"\n{version_line}}}\n"),
        )
        .unwrap();
        let cli = setup.cli_path();
        let dir = root.path().to_path_buf();
        let output =
            tokio::task::spawn_blocking(move || terraform::run(&dir, &cli, &["get", "-no-color"]))
                .await
                .unwrap();
        assert!(
            !output.status.success(),
            "terraform accepted {source} {version:?}"
        );
        assert!(
            fetch(&run, &source, version).await.is_err(),
            "tfsum accepted {source} {version:?}"
        );
    }
}

/// The module conformance fixture (`testdata/modules/conformance/`) and the three fakes
/// it needs: providers, modules and git. `roots/` are what tfsum and Terraform lock;
/// `registry/` holds the module registry's packages and `git/shared/` the repository
/// content (tag `v1.4.0`, then one more commit on `main`). Placeholders: `{{REGISTRY}}`
/// (provider registry host), `{{MODULES}}` (module registry host), `{{GIT}}` (git
/// server host and port).
pub(crate) struct ModuleConformance {
    pub providers: crate::support::fake_registry::FakeRegistry,
    pub modules: FakeModuleRegistry,
    pub git: GitServer,
}

impl ModuleConformance {
    fn fixture() -> PathBuf {
        terraform::repo_root().join("testdata/modules/conformance")
    }

    pub fn start() -> ModuleConformance {
        let providers = crate::support::fake_registry::FakeRegistry::builder()
            .provider("hashicorp", "null")
            .version("3.1.0")
            .version("3.2.1")
            .provider("hashicorp", "random")
            .version("3.5.1")
            .version("3.6.0")
            .provider("hashicorp", "aws")
            .version("4.67.0")
            .version("5.30.0")
            .start();
        let git = GitServer::start();
        // `{{MODULES}}` stays for the module registry to fill in with its own address.
        let replacements = vec![
            ("{{REGISTRY}}", providers.host()),
            ("{{GIT}}", git_host(&git)),
        ];
        let fixture = Self::fixture();
        let repo = git.repo("shared");
        for entry in walkdir::WalkDir::new(fixture.join("git/shared")) {
            let entry = entry.unwrap();
            if entry.file_type().is_file() {
                let rel = entry
                    .path()
                    .strip_prefix(fixture.join("git/shared"))
                    .unwrap();
                repo.write(
                    &rel.to_string_lossy(),
                    &substitute(entry.path(), &replacements),
                );
            }
        }
        repo.commit("v1.4.0");
        repo.tag("v1.4.0");
        repo.write(
            "zone/main.tf",
            &substitute(&fixture.join("git/shared/zone/main.tf"), &replacements)
                .replace(">= 4.0", "~> 5.0"),
        );
        repo.commit("zone needs aws 5");
        let mut builder = FakeModuleRegistry::builder();
        let registry = fixture.join("registry");
        for module in ["acme/vpc/aws", "acme/net/aws"] {
            let parts: Vec<&str> = module.split('/').collect();
            builder = builder.module(parts[0], parts[1], parts[2]);
            let mut versions: Vec<String> = std::fs::read_dir(registry.join(module))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
                .collect();
            versions.sort();
            for version in versions {
                builder = builder
                    .version(&version)
                    .files_from(&registry.join(module).join(&version), &replacements);
            }
        }
        let modules = builder.start();
        ModuleConformance {
            providers,
            modules,
            git,
        }
    }

    pub fn replacements(&self) -> Vec<(&'static str, String)> {
        vec![
            ("{{REGISTRY}}", self.providers.host()),
            ("{{MODULES}}", self.modules.host()),
            ("{{GIT}}", git_host(&self.git)),
        ]
    }

    /// A CLI configuration with both registries' `host` blocks.
    pub fn cli_config(&self) -> String {
        format!(
            "{}{}",
            self.providers.cli_config(),
            self.modules.cli_config()
        )
    }

    /// A copy of `roots/` with the placeholders replaced.
    pub fn copy_roots(&self) -> TempDir {
        let out = TempDir::new().unwrap();
        let roots = Self::fixture().join("roots");
        for entry in walkdir::WalkDir::new(&roots) {
            let entry = entry.unwrap();
            let target = out.path().join(entry.path().strip_prefix(&roots).unwrap());
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::write(&target, substitute(entry.path(), &self.replacements())).unwrap();
            }
        }
        out
    }
}

fn substitute(path: &Path, replacements: &[(&str, String)]) -> String {
    let mut text = std::fs::read_to_string(path).unwrap();
    for (placeholder, value) in replacements {
        text = text.replace(placeholder, value);
    }
    text
}

/// The git server's `127.0.0.1:PORT`.
fn git_host(git: &GitServer) -> String {
    let url = git.url("x");
    url.trim_start_matches("http://")
        .trim_end_matches("/x.git")
        .to_string()
}

/// `version` of each provider block in a lock file.
fn locked_versions(lock: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut current = None;
    for line in lock.lines() {
        if let Some(rest) = line.strip_prefix("provider \"") {
            current = rest.split('"').next().map(str::to_string);
        } else if let (Some(name), Some(rest)) = (&current, line.trim().strip_prefix("version")) {
            let version = rest.trim_start_matches([' ', '=']).trim_matches('"');
            out.insert(name.clone(), version.to_string());
        }
    }
    out
}

/// The fixture is meaningful: Terraform v1.0.3 installs its remote modules (registry
/// with constraints, git by tag and branch, `//subdir`, nested remote and local calls)
/// and locks the providers that only remote modules declare. The tfsum side of this
/// conformance (same roots, no `.terraform/`, byte-identical lock files) belongs with
/// the tree walk that follows remote calls.
#[test]
fn conformance_fixture_installs_with_terraform() {
    let world = ModuleConformance::start();
    let dir = world.copy_roots();
    let cli = dir.path().join("terraformrc");
    std::fs::write(&cli, world.cli_config()).unwrap();
    let host = world.providers.host();
    let p = |name: &str| format!("{host}/hashicorp/{name}");
    let expected: [(&str, Vec<(String, &str)>); 3] = [
        (
            "app",
            vec![
                (p("aws"), "5.30.0"),
                (p("null"), "3.2.1"),
                (p("random"), "3.6.0"),
            ],
        ),
        (
            "edge",
            vec![
                (p("aws"), "5.30.0"),
                (p("null"), "3.2.1"),
                (p("random"), "3.6.0"),
            ],
        ),
        ("branch", vec![(p("aws"), "5.30.0"), (p("null"), "3.2.1")]),
    ];
    for (root, want) in expected {
        let root_dir = dir.path().join(root);
        let output = terraform::init_backend_false(&root_dir, &cli);
        terraform::assert_success(&output, &format!("terraform init in {root}"));
        let locked = locked_versions(&terraform::read_lock_file(&root_dir));
        let want: BTreeMap<String, String> =
            want.into_iter().map(|(k, v)| (k, v.to_string())).collect();
        assert_eq!(locked, want, "{root}");
        let compared = check_against_manifest(&world, &root_dir);
        let remote = match root {
            "app" => 4,  // vpc, vpc.endpoints, dns, dns.zone
            "edge" => 6, // net, net.vpc, net.vpc.endpoints, net.dns, net.dns.zone, latest_vpc
            _ => 1,      // zone
        };
        assert_eq!(compared, remote, "{root}: remote modules compared");
    }
}

/// Every module Terraform installed for `root` (its modules.json), fetched by tfsum:
/// remote entries by their recorded source and version, local entries inside remote
/// packages through [`resolve_in_package`]; the configuration files must be the same.
fn check_against_manifest(world: &ModuleConformance, root: &Path) -> usize {
    let setup = Setup::new(&world.cli_config());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let run = setup.run(false, &[]);
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root.join(".terraform/modules/modules.json")).unwrap(),
    )
    .unwrap();
    let mut entries: Vec<(String, String, Option<String>, PathBuf)> = manifest["Modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["Key"].as_str().unwrap().to_string(),
                m["Source"].as_str().unwrap().to_string(),
                m["Version"].as_str().map(str::to_string),
                root.join(m["Dir"].as_str().unwrap()),
            )
        })
        .filter(|(key, ..)| !key.is_empty())
        .collect();
    // Parents before children.
    entries.sort_by_key(|(key, ..)| key.matches('.').count());
    let mut ours: BTreeMap<String, FetchedModule> = BTreeMap::new();
    for (key, source, version, tf_dir) in entries {
        let parent = key.rsplit_once('.').map(|(p, _)| p.to_string());
        let fetched = if source.starts_with("./") || source.starts_with("../") {
            let Some(parent) = parent.and_then(|p| ours.get(&p).cloned()) else {
                continue; // a local module of the root itself: nothing remote about it
            };
            let dir = resolve_in_package(&parent.package_root, &parent.dir, &source).unwrap();
            FetchedModule { dir, ..parent }
        } else {
            runtime
                .block_on(fetch(&run, &source, version.as_deref()))
                .unwrap_or_else(|e| panic!("{key}: {e}"))
        };
        assert_eq!(
            tf_files(&fetched.dir),
            tf_files(&tf_dir),
            "{key} ({source})"
        );
        ours.insert(key, fetched);
    }
    ours.len()
}
