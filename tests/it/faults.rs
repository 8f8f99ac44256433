//! Registry faults, end to end: every fault switch of the fake registry against the real
//! binary, on a repository of two roots where only root `a` uses the faulty package.
//!
//! Transient faults (5xx, 429 with `Retry-After`, a body cut mid-stream, a response
//! slower than the timeout) must end in exactly the lock files of a fault-free run.
//! Permanent faults (a fault that does not go away, a corrupt zip, a bad signature, a
//! `shasum` that disagrees with SHA256SUMS, a withdrawn platform) must fail root `a`
//! only, with a message naming provider, version, platform and URL, leave its existing
//! lock file byte for byte, write root `b`, and exit 1. No run may leave temp files.

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

use crate::harness::{self, combined, leftovers, root_report, text, Repo};
use crate::support::fake_registry::{Fault, RegistryHandle};

const PLATFORMS: &[&str] = &["darwin_arm64", "linux_amd64"];

const ZIP: &str = "/terraform-provider-null_3.2.1_linux_amd64.zip";
const SUMS: &str = "/terraform-provider-null_3.2.1_SHA256SUMS";
const SIG: &str = "/terraform-provider-null_3.2.1_SHA256SUMS.sig";
const DOWNLOAD_JSON: &str = "/hashicorp/null/3.2.1/download/linux/amd64";
const VERSIONS: &str = "/hashicorp/null/versions";

/// The lock files of `a` and `b` from a fault-free run in a fresh repository and cache.
fn baseline(registry: &RegistryHandle) -> (String, String) {
    let repo = Repo::two_roots(registry);
    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let a = repo.lock("a").expect("baseline lock of a");
    let b = repo.lock("b").expect("baseline lock of b");
    // The baseline itself is right: the fake's own expectations.
    assert!(a.contains("version     = \"3.2.1\""), "{a}");
    for platform in PLATFORMS {
        let h1 = registry.expected_h1("hashicorp", "null", "3.2.1", platform);
        assert!(a.contains(&h1), "{platform} {h1} missing from\n{a}");
    }
    for zh in registry.expected_zh("hashicorp", "null", "3.2.1") {
        assert!(a.contains(&zh), "{zh} missing from\n{a}");
    }
    (a, b)
}

#[test]
fn transient_faults_end_in_correct_lock_files() {
    let registry = harness::registry();
    let (want_a, want_b) = baseline(&registry);
    let retry_after = Fault::TooManyRequests {
        retry_after_secs: 1,
    };
    // (what, path suffix, fault, times, least wall time the retries must take)
    let cases: &[(&str, &str, Fault, usize, Duration)] = &[
        ("zip 500", ZIP, Fault::Status(500), 2, Duration::ZERO),
        ("zip 501", ZIP, Fault::Status(501), 1, Duration::ZERO),
        ("zip 503", ZIP, Fault::Status(503), 3, Duration::ZERO),
        (
            "zip 429",
            ZIP,
            retry_after.clone(),
            1,
            Duration::from_secs(1),
        ),
        ("zip dropped", ZIP, Fault::DropAfter(100), 2, Duration::ZERO),
        (
            "zip slow",
            ZIP,
            Fault::Delay(Duration::from_secs(5)),
            1,
            Duration::from_secs(2),
        ),
        ("sums 502", SUMS, Fault::Status(502), 2, Duration::ZERO),
        (
            "sums dropped",
            SUMS,
            Fault::DropAfter(10),
            1,
            Duration::ZERO,
        ),
        ("sig 500", SIG, Fault::Status(500), 1, Duration::ZERO),
        (
            "download JSON 429",
            DOWNLOAD_JSON,
            retry_after,
            1,
            Duration::from_secs(1),
        ),
        (
            "download JSON slow",
            DOWNLOAD_JSON,
            Fault::Delay(Duration::from_secs(5)),
            1,
            Duration::from_secs(2),
        ),
        (
            "versions 500",
            VERSIONS,
            Fault::Status(500),
            2,
            Duration::ZERO,
        ),
        (
            "versions 408",
            VERSIONS,
            Fault::Status(408),
            1,
            Duration::ZERO,
        ),
    ];
    for (what, suffix, fault, times, least) in cases {
        registry.clear_faults();
        registry.reset_counts();
        registry.inject_times(suffix, fault.clone(), *times);
        let repo = Repo::two_roots(&registry);
        let started = Instant::now();
        let out = repo.lock_all(PLATFORMS, &[], &[]);
        let took = started.elapsed();
        assert!(out.status.success(), "{what}: {}", text(&out));
        assert_eq!(repo.lock("a").as_deref(), Some(want_a.as_str()), "{what}");
        assert_eq!(repo.lock("b").as_deref(), Some(want_b.as_str()), "{what}");
        assert_eq!(
            registry.count(suffix),
            times + 1,
            "{what}: each fault costs one retry"
        );
        assert!(took >= *least, "{what}: took {took:?}, less than {least:?}");
        assert_eq!(leftovers(repo.path()), Vec::<String>::new(), "{what}");
        assert_eq!(leftovers(&repo.cache()), Vec::<String>::new(), "{what}");
    }
}

#[test]
fn permanent_faults_fail_only_the_affected_root() {
    let registry = harness::registry();
    let (_, want_b) = baseline(&registry);
    let base = registry.base_url();
    let files = format!("{base}/files/hashicorp/null/3.2.1");
    let api = format!("{base}/v1/providers/hashicorp/null/3.2.1/download/linux/amd64");
    let null = format!("{}/hashicorp/null", registry.host());

    type Switch = fn(&RegistryHandle);
    // (what, switch, words the message of root a must contain besides provider and
    // version)
    let cases: &[(&str, Switch, &[&str])] = &[
        (
            "zip always 500",
            |r| r.inject(ZIP, Fault::Status(500)),
            &[
                "(linux_amd64)",
                "500 Internal Server Error",
                "gave up after 4 attempts",
            ],
        ),
        (
            "zip always 429",
            |r| {
                r.inject(
                    ZIP,
                    Fault::TooManyRequests {
                        retry_after_secs: 0,
                    },
                )
            },
            &["(linux_amd64)", "429 Too Many Requests"],
        ),
        (
            "zip always dropped",
            |r| r.inject(ZIP, Fault::DropAfter(100)),
            &["(linux_amd64)", "response body interrupted"],
        ),
        (
            "corrupt zip",
            |r| r.corrupt_zip("hashicorp", "null", "3.2.1", "linux_amd64"),
            &["(linux_amd64)"],
        ),
        (
            "bad signature",
            |r| r.bad_signature("hashicorp", "null", "3.2.1"),
            &["SHA256SUMS.sig", "does not verify"],
        ),
        (
            "SHA256SUMS mismatch",
            |r| r.shasum_mismatch("hashicorp", "null", "3.2.1", "linux_amd64"),
            &[
                "(linux_amd64)",
                "_SHA256SUMS lists",
                "but the registry reports shasum",
            ],
        ),
        (
            "missing platform",
            |r| r.remove_platform("hashicorp", "null", "3.2.1", "linux_amd64"),
            &[
                "(linux_amd64)",
                "not available for linux_amd64",
                "404 Not Found",
            ],
        ),
    ];
    for (what, switch, words) in cases {
        registry.clear_faults();
        let repo = Repo::two_roots(&registry);
        // Root a has a lock file for darwin only; the failed update must not touch it.
        let darwin = repo.lock_all(&["darwin_arm64"], &[], &[]);
        assert!(darwin.status.success(), "{what}: {}", text(&darwin));
        let old_a = repo.lock("a").expect("darwin lock of a");
        std::fs::remove_file(repo.path().join("b").join(harness::LOCK)).expect("rm b lock");
        std::fs::remove_dir_all(repo.cache()).expect("empty the cache");

        switch(&registry);
        let out = repo.lock_all(PLATFORMS, &[], &[]);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", text(&out));
        let report_a = root_report(&out, "a");
        assert!(report_a.starts_with("failed"), "{what}: {}", text(&out));
        let url = match *what {
            "missing platform" => api.clone(),
            "bad signature" => format!("{files}/terraform-provider-null_3.2.1_SHA256SUMS.sig"),
            "SHA256SUMS mismatch" => format!("{files}/terraform-provider-null_3.2.1_SHA256SUMS"),
            _ => format!("{files}{ZIP}"),
        };
        for word in [null.as_str(), "3.2.1", url.as_str()].iter().chain(*words) {
            assert!(
                report_a.contains(word),
                "{what}: {word:?} missing from\n{report_a}\n{}",
                text(&out)
            );
        }
        assert!(
            root_report(&out, "b").starts_with("created"),
            "{what}: {}",
            text(&out)
        );
        assert_eq!(repo.lock("a").as_deref(), Some(old_a.as_str()), "{what}");
        assert_eq!(repo.lock("b").as_deref(), Some(want_b.as_str()), "{what}");
        assert_eq!(leftovers(repo.path()), Vec::<String>::new(), "{what}");
        // Nothing unverified reached the cache.
        let platform_entry = repo
            .cache()
            .join("v2/packages")
            .join(registry.host().replace(':', "_"))
            .join("hashicorp/null/3.2.1/linux_amd64.json");
        assert!(!platform_entry.exists(), "{what}: {platform_entry:?}");
    }
}

/// A response slower than the timeout on every attempt gives up after the configured
/// number of attempts instead of hanging (within 20 s: a watchdog kills a run that
/// takes longer).
#[test]
fn a_stalled_registry_times_out_and_gives_up() {
    let registry = harness::registry();
    registry.inject(ZIP, Fault::Delay(Duration::from_secs(30)));
    let repo = Repo::two_roots(&registry);
    let out = repo.lock_all_within(
        Some(Duration::from_secs(20)),
        PLATFORMS,
        &[],
        &[("TFSUM_HTTP_TIMEOUT_SECS", "0.3"), ("TFSUM_RETRIES", "1")],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report_a = root_report(&out, "a");
    for word in [
        "(linux_amd64)",
        "timed out",
        ZIP,
        "gave up after 2 attempts",
    ] {
        assert!(
            report_a.contains(word),
            "{word:?} missing from\n{}",
            text(&out)
        );
    }
    assert_eq!(registry.count(ZIP), 2);
    assert!(repo.lock("b").is_some(), "{}", text(&out));
}

/// Several roots sharing packages: each zip, SHA256SUMS, signature and version list is
/// fetched exactly once in the run.
#[test]
fn shared_packages_are_downloaded_once() {
    let registry = harness::registry();
    let tf = harness::main_tf(&[("null", "3.2.1"), ("random", "3.6.0")]);
    let files: Vec<(String, &str)> = (0..5)
        .map(|i| (format!("r{i}/main.tf"), tf.as_str()))
        .collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), *c)).collect();
    let repo = Repo::new(&registry, &files);
    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let mut counts = Vec::new();
    for (ty, version) in [("null", "3.2.1"), ("random", "3.6.0")] {
        for platform in PLATFORMS {
            let zip = format!("/terraform-provider-{ty}_{version}_{platform}.zip");
            counts.push((zip.clone(), registry.count(&zip)));
        }
        for file in ["SHA256SUMS", "SHA256SUMS.sig"] {
            let path = format!("/terraform-provider-{ty}_{version}_{file}");
            counts.push((path.clone(), registry.count(&path)));
        }
        let versions = format!("/hashicorp/{ty}/versions");
        counts.push((versions.clone(), registry.count(&versions)));
    }
    let once: Vec<(String, usize)> = counts.iter().map(|(p, _)| (p.clone(), 1)).collect();
    assert_eq!(counts, once);
    let first = repo.lock("r0").expect("lock of r0");
    for i in 1..5 {
        assert_eq!(repo.lock(&format!("r{i}")).as_deref(), Some(first.as_str()));
    }
}

/// With a token configured, it goes to the registry API and nowhere else: not to the
/// zip, SHA256SUMS or signature URLs (spec §11 item 12), and never into the output.
#[test]
fn credentials_reach_only_the_registry_api() {
    let registry = harness::registry();
    registry.require_token(Some("s3cret-token"));
    let repo = Repo::two_roots(&registry);
    registry.write_cli_config_with_token(&repo.cli_config(), "s3cret-token");
    // A failing download too, so error messages are covered.
    registry.inject(
        "/terraform-provider-random_3.6.0_darwin_arm64.zip",
        Fault::Status(500),
    );
    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(!combined(&out).contains("s3cret"), "{}", text(&out));

    let requests = registry.requests();
    let files: Vec<_> = requests
        .iter()
        .filter(|r| r.path.starts_with("/files/"))
        .collect();
    assert!(files.len() >= 6, "{requests:?}");
    for request in files {
        assert_eq!(request.header("authorization"), None, "{}", request.path);
    }
    let api: Vec<_> = requests
        .iter()
        .filter(|r| r.path.starts_with("/v1/"))
        .collect();
    assert!(!api.is_empty());
    for request in api {
        assert_eq!(
            request.header("authorization"),
            Some("Bearer s3cret-token"),
            "{}",
            request.path
        );
    }
}

/// A provider whose version list cannot be fetched fails the roots that need the list
/// (no lock, or a lock the constraints no longer allow), not the roots whose locked
/// version still holds.
#[test]
fn a_version_list_failure_fails_only_the_roots_that_need_it() {
    let registry = harness::registry();
    let repo = Repo::new(
        &registry,
        &[("locked/main.tf", &harness::main_tf(&[("null", "~> 3.2")]))],
    );
    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let locked = repo.lock("locked").expect("lock of locked");
    std::fs::remove_dir_all(repo.cache()).expect("empty the cache");
    repo.write("unlocked/main.tf", &harness::main_tf(&[("null", "~> 3.2")]));

    registry.inject(VERSIONS, Fault::Status(500));
    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        root_report(&out, "locked").starts_with("unchanged"),
        "{}",
        text(&out)
    );
    let unlocked = root_report(&out, "unlocked");
    assert!(
        unlocked.starts_with("failed") && unlocked.contains(VERSIONS),
        "{}",
        text(&out)
    );
    assert_eq!(repo.lock("locked").as_deref(), Some(locked.as_str()));
}
