//! The run's limits, observed from outside: `--jobs` bounds the package downloads in
//! flight and `--per-host` the requests to one host, as the fake registry sees them; the
//! package limits (`TFSUM_MAX_PACKAGE_BYTES`, `TFSUM_MAX_PACKAGE_ENTRIES`) hold for
//! packages from a filesystem or network mirror as for the registry's.

use std::time::Duration;

use crate::harness::{self, Repo, LOCK};
use crate::support::fake_registry::{test_ca_path, FakeRegistry, Fault};

/// Six platforms of one provider: six zips to download at once, if nothing held them.
const SIX: &[&str] = &[
    "darwin_amd64",
    "darwin_arm64",
    "freebsd_amd64",
    "linux_amd64",
    "linux_arm64",
    "windows_amd64",
];

fn six_platforms(tls: bool) -> FakeRegistry {
    let builder = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(SIX);
    if tls {
        builder.tls().start()
    } else {
        builder.start()
    }
}

/// `tfsum lock` of one root needing six packages, on a cold cache, every zip answered
/// 300 ms late so that the downloads overlap; `flags` set the limits. Returns the most
/// zip downloads and the most requests of any kind the registry answered at once.
fn in_flight(flags: &[&str]) -> (usize, usize) {
    let registry = six_platforms(false);
    let repo = Repo::new(
        &registry,
        &[("root/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    registry.inject(".zip", Fault::Delay(Duration::from_millis(300)));
    let mut extra = vec!["--no-cache"];
    extra.extend_from_slice(flags);
    let run = repo.lock_all(SIX, &extra, &[("TFSUM_HTTP_TIMEOUT_SECS", "10")]);
    assert!(run.status.success(), "{}", harness::text(&run));
    assert_eq!(
        registry.count(".zip"),
        SIX.len(),
        "{:?}",
        registry.requests()
    );
    (registry.max_in_flight(".zip"), registry.max_in_flight(""))
}

/// The load exceeds each limit (six downloads at once when nothing holds them), and
/// under each limit the registry sees exactly as many at once as it allows.
#[test]
fn jobs_and_per_host_bound_what_the_registry_sees() {
    let (zips, _) = in_flight(&["--jobs=8", "--per-host=8"]);
    assert_eq!(zips, SIX.len(), "unbounded, all six downloads overlap");

    let (zips, _) = in_flight(&["--jobs=2", "--per-host=8"]);
    assert_eq!(zips, 2, "--jobs=2");

    let (zips, all) = in_flight(&["--jobs=8", "--per-host=3"]);
    assert_eq!((zips, all), (3, 3), "--per-host=3");
}

/// Each package limit set too low in turn: the root fails with an error holding
/// `needed` and the limit, and no lock file is written; with no limit set, it locks.
fn held_to_the_package_limits(repo: &Repo, flag: &str, env: &[(&str, &str)], needed: &str) {
    for (variable, value) in [
        ("TFSUM_MAX_PACKAGE_BYTES", "10"),
        ("TFSUM_MAX_PACKAGE_ENTRIES", "0"),
    ] {
        let mut all = env.to_vec();
        all.push((variable, value));
        let run = repo.lock_all(&["linux_amd64"], &[flag], &all);
        let out = harness::text(&run);
        assert_eq!(run.status.code(), Some(1), "{variable}: {out}");
        let report = harness::root_report(&run, "root");
        let limit = format!("zip exceeds the limit of {value} ");
        for needed in [needed, &limit] {
            assert!(
                report.contains(needed),
                "{variable}: want {needed:?} in\n{out}"
            );
        }
        assert_eq!(
            repo.lock("root"),
            None,
            "{variable}: a lock file was written"
        );
    }
    let run = repo.lock_all(&["linux_amd64"], &[flag], env);
    assert!(run.status.success(), "{}", harness::text(&run));
    assert!(repo.lock("root").is_some(), "no {LOCK} within the limits");
}

/// A package over `TFSUM_MAX_PACKAGE_BYTES` or `TFSUM_MAX_PACKAGE_ENTRIES` from a
/// filesystem mirror fails its root with an error naming the package, the file and the
/// limit.
#[test]
fn filesystem_mirror_packages_are_held_to_the_package_limits() {
    let registry = six_platforms(false);
    let repo = Repo::new(
        &registry,
        &[("root/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    let mirror = tempfile::TempDir::new().expect("mirror dir");
    let dir = mirror.path().join(registry.host()).join("hashicorp/null");
    std::fs::create_dir_all(&dir).expect("mirror layout");
    let name = registry.zip_filename("hashicorp", "null", "3.2.1", "linux_amd64");
    let zip = dir.join(&name);
    std::fs::write(
        &zip,
        registry.zip("hashicorp", "null", "3.2.1", "linux_amd64"),
    )
    .expect("mirror zip");
    let flag = format!("--fs-mirror={}", mirror.path().display());
    let needed = format!(
        "{}/hashicorp/null 3.2.1 (linux_amd64): hashing {}",
        registry.host(),
        zip.display()
    );
    held_to_the_package_limits(&repo, &flag, &[], &needed);
}

/// The same for a network mirror's archives, which are downloaded and hashed as they
/// stream: over a limit, the root fails naming the package and the archive's URL.
#[test]
fn network_mirror_packages_are_held_to_the_package_limits() {
    let registry = six_platforms(true);
    let repo = Repo::new(
        &registry,
        &[("root/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    let flag = format!("--net-mirror={}", registry.mirror_url());
    let ca = test_ca_path();
    let host = registry.host();
    let url = format!(
        "{}{host}/hashicorp/null/{}",
        registry.mirror_url(),
        registry.zip_filename("hashicorp", "null", "3.2.1", "linux_amd64")
    );
    let needed = format!("{host}/hashicorp/null 3.2.1: network mirror: downloading {url}");
    let env = [("SSL_CERT_FILE", ca.to_str().expect("UTF-8 path"))];
    held_to_the_package_limits(&repo, &flag, &env, &needed);
}
