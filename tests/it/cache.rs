//! The persistent hash cache, end to end: shared by concurrent processes, healed when an
//! entry is damaged, enough on its own for `--offline`, and enough for a warm run to
//! make no request at all.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pretty_assertions::assert_eq;

use crate::harness::{self, leftovers, root_report, run, text, Repo, FAST_RETRIES};
use crate::support::fake_registry::{FakeRegistry, Fault, RegistryHandle};

const PLATFORMS: &[&str] = &["darwin_arm64", "linux_amd64"];

/// Where the cache keeps facts about `null` 3.2.1.
fn package_dir(cache: &Path, registry: &RegistryHandle, ty: &str, version: &str) -> PathBuf {
    cache
        .join("v2/packages")
        .join(registry.host().replace(':', "_"))
        .join("hashicorp")
        .join(ty)
        .join(version)
}

/// Runs `tfsum lock -r` for `repo` against `cache` (not the repository's own).
fn lock_with_cache(repo: &Repo, cache: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["lock".to_string(), "-r".to_string()];
    args.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
    args.extend(extra.iter().map(|a| a.to_string()));
    args.push(".".to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(repo.path(), &repo.cli_config(), cache, &args, FAST_RETRIES)
}

/// The lock file both roots of [`Repo::two_roots`] must get, from the fake's own hashes.
fn assert_locks_correct(repo: &Repo, registry: &RegistryHandle) {
    let a = repo.lock("a").expect("lock of a");
    let b = repo.lock("b").expect("lock of b");
    for (lock, packages) in [
        (&a, &[("null", "3.2.1"), ("random", "3.6.0")][..]),
        (&b, &[("random", "3.6.0")][..]),
    ] {
        for (ty, version) in packages {
            for platform in PLATFORMS {
                let h1 = registry.expected_h1("hashicorp", ty, version, platform);
                assert!(lock.contains(&h1), "{ty} {platform}: {h1} missing:\n{lock}");
            }
            for zh in registry.expected_zh("hashicorp", ty, version) {
                assert!(lock.contains(&zh), "{ty}: {zh} missing:\n{lock}");
            }
        }
    }
}

#[test]
fn concurrent_processes_share_one_cache() {
    let registry = harness::registry();
    // Every zip is held until all four processes have asked for it: they download and
    // write the same cache entries at the same time.
    let rendezvous = Fault::Rendezvous {
        parties: 4,
        timeout: Duration::from_secs(20),
    };
    registry.inject(".zip", rendezvous);
    let shared = tempfile::TempDir::new().expect("shared cache");
    let repos: Vec<Repo> = (0..4).map(|_| Repo::two_roots(&registry)).collect();
    let children: Vec<_> = repos
        .iter()
        .map(|repo| {
            let cache = shared.path().to_path_buf();
            let (dir, config) = (repo.path().to_path_buf(), repo.cli_config());
            std::thread::spawn(move || {
                let mut args = vec!["lock".to_string(), "-r".to_string()];
                args.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
                args.push(".".to_string());
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                run(&dir, &config, &cache, &args, FAST_RETRIES)
            })
        })
        .collect();
    for (repo, child) in repos.iter().zip(children) {
        let out = child.join().expect("tfsum thread");
        assert!(out.status.success(), "{}", text(&out));
        assert_locks_correct(repo, &registry);
        assert_eq!(leftovers(repo.path()), Vec::<String>::new());
    }
    // Four processes, each with an empty cache when it started: every zip was asked
    // for four times, all at once (else the rendezvous had timed out and later runs
    // would have found the zips cached).
    for zip in [
        "terraform-provider-null_3.2.1_linux_amd64.zip",
        "terraform-provider-null_3.2.1_darwin_arm64.zip",
        "terraform-provider-random_3.6.0_linux_amd64.zip",
        "terraform-provider-random_3.6.0_darwin_arm64.zip",
    ] {
        assert_eq!(
            registry.count(zip),
            4,
            "{zip}: the processes did not overlap"
        );
    }
    assert_eq!(leftovers(shared.path()), Vec::<String>::new());

    // The cache they left is complete and valid: a fresh repository locks from it
    // alone, with the registry asked nothing.
    registry.reset_counts();
    let fresh = Repo::two_roots(&registry);
    let out = lock_with_cache(&fresh, shared.path(), &["--offline"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_locks_correct(&fresh, &registry);
    assert_eq!(registry.requests().len(), 0);
}

/// [`Repo::two_roots`] locked once: the cache holds every entry.
fn locked_two_roots() -> (FakeRegistry, Repo) {
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(out.status.success(), "{}", text(&out));
    (registry, repo)
}

#[test]
fn damaged_cache_entries_are_healed() {
    let (registry, repo) = locked_two_roots();
    let dir = package_dir(&repo.cache(), &registry, "null", "3.2.1");
    let entry = dir.join("linux_amd64.json");
    let sums = dir.join("sums.json");
    let good_entry = std::fs::read(&entry).expect("cached platform entry");
    let good_sums = std::fs::read(&sums).expect("cached sums entry");

    type Damage = fn(&[u8]) -> Vec<u8>;
    let keep: Damage = |b| b.to_vec();
    // (what, damage to the platform entry, damage to the sums entry, what is refetched:
    // linux zip, darwin zip, SHA256SUMS, random's zip)
    let cases: &[(&str, Damage, Damage, [usize; 4])] = &[
        (
            "truncated",
            |b| b[..b.len() / 2].to_vec(),
            |b| b[..b.len() / 2].to_vec(),
            [1, 0, 1, 0],
        ),
        ("empty", |_| Vec::new(), |_| Vec::new(), [1, 0, 1, 0]),
        (
            "not JSON",
            |_| b"\x00\xffgarbage".to_vec(),
            |_| b"\x00\xffgarbage".to_vec(),
            [1, 0, 1, 0],
        ),
        (
            // Well-formed JSON whose payload no longer matches its checksum.
            "edited",
            |b| {
                String::from_utf8_lossy(b)
                    .replacen("h1:", "h1:AAAA", 1)
                    .into_bytes()
            },
            |b| {
                String::from_utf8_lossy(b)
                    .replacen("\"document\": \"", "\"document\": \"AAAA", 1)
                    .into_bytes()
            },
            [1, 0, 1, 0],
        ),
        (
            // A document with another line and a valid checksum: the signature no longer
            // verifies when the entry is read, so it is fetched again.
            "forged",
            keep,
            forge_sums,
            [0, 0, 1, 0],
        ),
    ];
    for (what, damage_entry, damage_sums, refetch) in cases {
        std::fs::write(&entry, damage_entry(&good_entry)).expect("damage entry");
        std::fs::write(&sums, damage_sums(&good_sums)).expect("damage sums");
        registry.reset_counts();
        let fresh = Repo::two_roots(&registry);
        let out = lock_with_cache(&fresh, &repo.cache(), &[]);
        assert!(out.status.success(), "{what}: {}", text(&out));
        assert_locks_correct(&fresh, &registry);
        // Only what was damaged is fetched again.
        let refetched = [
            registry.count("/terraform-provider-null_3.2.1_linux_amd64.zip"),
            registry.count("/terraform-provider-null_3.2.1_darwin_arm64.zip"),
            registry.count("/terraform-provider-null_3.2.1_SHA256SUMS"),
            registry.count("/terraform-provider-random_3.6.0_linux_amd64.zip"),
        ];
        assert_eq!(refetched, *refetch, "{what}");
        assert_eq!(std::fs::read(&entry).expect("healed"), good_entry, "{what}");
        assert_eq!(std::fs::read(&sums).expect("healed"), good_sums, "{what}");
        assert_eq!(leftovers(&repo.cache()), Vec::<String>::new(), "{what}");
    }
}

/// Issue 34's case: the valid entry of one package copied over another's (another
/// provider's, another platform's), and the same copy with the name it carries
/// rewritten to fit. Each is refused, counted in one warning, fetched again and
/// rewritten, and the lock files are right.
#[test]
fn entries_copied_over_others_are_refused_and_fetched_again() {
    let (registry, repo) = locked_two_roots();
    let null = package_dir(&repo.cache(), &registry, "null", "3.2.1");
    let random = package_dir(&repo.cache(), &registry, "random", "3.6.0");
    let null_linux = std::fs::read_to_string(null.join("linux_amd64.json")).expect("null");
    let good_random = std::fs::read(random.join("linux_amd64.json")).expect("random");
    let good_null_darwin = std::fs::read(null.join("darwin_arm64.json")).expect("darwin");
    let renamed = null_linux.replace("hashicorp/null 3.2.1", "hashicorp/random 3.6.0");
    assert_ne!(renamed, null_linux, "the entry names its package");

    // (what, the copy's destination, its bytes, the zip fetched again, why refused)
    let cases = [
        (
            "another provider's entry",
            random.join("linux_amd64.json"),
            null_linux.clone(),
            "/terraform-provider-random_3.6.0_linux_amd64.zip",
            "null 3.2.1 linux_amd64, not the h1: of",
        ),
        (
            "another platform's entry",
            null.join("darwin_arm64.json"),
            null_linux.clone(),
            "/terraform-provider-null_3.2.1_darwin_arm64.zip",
            "null 3.2.1 linux_amd64, not the h1: of",
        ),
        (
            "another provider's entry, renamed",
            random.join("linux_amd64.json"),
            renamed,
            "/terraform-provider-random_3.6.0_linux_amd64.zip",
            "its zh: is not a line of the signed SHA256SUMS of",
        ),
    ];
    for (what, destination, bytes, zip, why) in cases {
        std::fs::write(&destination, bytes).expect("copy");
        registry.reset_counts();
        let fresh = Repo::two_roots(&registry);
        let out = lock_with_cache(&fresh, &repo.cache(), &[]);
        assert!(out.status.success(), "{what}: {}", text(&out));
        assert_locks_correct(&fresh, &registry);
        assert_eq!(registry.count(zip), 1, "{what}: {:?}", registry.requests());
        let zips = registry
            .requests()
            .iter()
            .filter(|r| r.path.ends_with(".zip"))
            .count();
        assert_eq!(zips, 1, "{what}: only the refused entry is fetched");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let warnings: Vec<&str> = stdout
            .lines()
            .filter(|l| l.contains("cache entr"))
            .collect();
        assert_eq!(warnings.len(), 1, "{what}: {stdout}");
        assert!(
            warnings[0].contains("ignoring the cache entry") && warnings[0].contains(why),
            "{what}: {stdout}"
        );
        let healed = std::fs::read(&destination).expect("rewritten");
        let good = if destination.starts_with(&random) {
            &good_random
        } else {
            &good_null_darwin
        };
        assert_eq!(&healed, good, "{what}: the entry is rewritten");
    }
}

/// Adds a line to the cached SHA256SUMS document and recomputes the entry's checksum,
/// as anyone able to write the file could.
fn forge_sums(bytes: &[u8]) -> Vec<u8> {
    use base64::Engine as _;
    use sha2::Digest as _;
    /// The cached entry, fields in the order tfsum serialises them (the checksum is over
    /// that JSON).
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Signed {
        document: String,
        signature: String,
        keys: Vec<(String, String)>,
    }
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Envelope {
        check: String,
        about: String,
        entry: Signed,
    }
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut envelope: Envelope = serde_json::from_slice(bytes).expect("sums entry");
    let mut text = b64.decode(&envelope.entry.document).expect("base64");
    text.extend_from_slice(format!("{}  evil.zip\n", "ab".repeat(32)).as_bytes());
    envelope.entry.document = b64.encode(text);
    let canonical = serde_json::to_vec(&envelope.entry).expect("entry");
    envelope.check = hex::encode(sha2::Sha256::digest(canonical));
    serde_json::to_vec_pretty(&envelope).expect("envelope")
}

#[test]
fn offline_runs_from_the_cache_against_a_stopped_registry() {
    let registry = harness::registry();
    let host = registry.host();
    let repo = Repo::new(
        &registry,
        &[("pinned/main.tf", &harness::main_tf(&[("null", "3.2.1")]))],
    );
    let out = repo.lock_all(PLATFORMS, &[], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let locked = repo.lock("pinned").expect("lock of pinned");
    drop(registry);
    // Locked and pinned needs no version list: prove it by removing them.
    std::fs::remove_dir_all(repo.cache().join("v2/versions")).expect("rm version lists");

    let out = repo.lock_all(PLATFORMS, &["--offline"], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        root_report(&out, "pinned").starts_with("unchanged"),
        "{}",
        text(&out)
    );
    assert_eq!(repo.lock("pinned").as_deref(), Some(locked.as_str()));

    // Without the cache's facts, each root says exactly what is missing.
    repo.write("other/main.tf", &harness::main_tf(&[("null", "3.2.0")]));
    let lock_320 = locked.replace("3.2.1", "3.2.0");
    repo.write(&format!("other/{}", harness::LOCK), &lock_320);
    repo.write("unlocked/main.tf", &harness::main_tf(&[("null", "~> 3.2")]));
    // One run per root, so each message is checked on its own.
    let offline = |root: &str| {
        let mut args = vec!["lock".to_string(), "--offline".to_string()];
        args.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
        args.push(root.to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(
            repo.path(),
            &repo.cli_config(),
            &repo.cache(),
            &args,
            FAST_RETRIES,
        );
        assert_eq!(out.status.code(), Some(1), "{root}: {}", text(&out));
        out
    };
    let out = offline("other");
    let other = root_report(&out, "other");
    for word in [
        "failed",
        &format!("{host}/hashicorp/null 3.2.0"),
        "offline",
        "darwin_arm64, linux_amd64",
    ] {
        assert!(other.contains(word), "{word:?} missing:\n{}", text(&out));
    }
    let out = offline("unlocked");
    let unlocked = root_report(&out, "unlocked");
    for word in [
        "failed",
        "offline",
        "no version list",
        &format!("{host}/hashicorp/null"),
    ] {
        assert!(unlocked.contains(word), "{word:?} missing:\n{}", text(&out));
    }
    assert_eq!(repo.lock("other").as_deref(), Some(lock_320.as_str()));
    assert_eq!(repo.lock("unlocked"), None);
}

#[test]
fn a_warm_run_makes_no_requests() {
    let registry = harness::registry();
    let cold = Repo::two_roots(&registry);
    let out = cold.lock_all(PLATFORMS, &[], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(registry.count(".zip") > 0);

    registry.reset_counts();
    let warm = Repo::two_roots(&registry);
    let out = lock_with_cache(&warm, &cold.cache(), &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(warm.lock("a"), cold.lock("a"));
    assert_eq!(warm.lock("b"), cold.lock("b"));
    assert_eq!(registry.count(".zip"), 0);
    let paths: Vec<String> = registry.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, Vec::<String>::new());
}

/// A disk that takes no more bytes (here: a file-size limit, which fails every write
/// past 100 bytes as a full disk would): the cache says once that it cannot be written,
/// with how many entries it lost, and each root fails naming its lock file, never the
/// temporary file tfsum wrote first.
#[cfg(unix)]
#[test]
fn a_disk_that_takes_nothing_is_one_warning_and_names_the_lock_files() {
    use std::os::unix::process::CommandExt as _;
    let registry = harness::registry();
    let repo = Repo::two_roots(&registry);
    let scratch = repo.cache().parent().expect("scratch").to_path_buf();
    let mut command = crate::tfsum::command(repo.path(), &repo.cli_config(), &scratch);
    command
        .env("TFSUM_CACHE_DIR", repo.cache())
        .envs(FAST_RETRIES.iter().copied())
        .args(["lock", "-r", "--platform=linux_amd64", "."]);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 100,
                rlim_max: 100,
            };
            // A write past the limit then fails with EFBIG instead of killing tfsum.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command.output().expect("run tfsum");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let all = harness::combined(&out);
    assert!(!all.contains(".tfsum-"), "a temporary path is named: {all}");
    for root in ["a", "b"] {
        let lock = format!("{root}/{}: File too large", harness::LOCK);
        assert!(all.contains(&lock), "{root}: {all}");
    }
    let unwritable: Vec<&str> = all
        .lines()
        .filter(|l| l.contains("cannot be written"))
        .collect();
    assert_eq!(unwritable.len(), 1, "{all}");
    assert!(unwritable[0].contains("entries were not stored"), "{all}");
}
