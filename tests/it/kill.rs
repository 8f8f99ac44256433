//! SIGKILL at varied moments of a cold and of a warm run over 24 roots, whose lock files
//! are written in one batch (issue 34): after each kill every lock file holds its old
//! bytes or its new ones, and the next normal run leaves nothing named `.tfsum-*` in the
//! tree or in the cache, and writes what a clean run writes.
//!
//! `TFSUM_TEST_WRITE_DELAY_MS` holds every replacement open between writing its
//! temporary files and renaming them (the batch's, and each cache entry's), so kills
//! land while temporary files exist.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::harness::{self, text, Repo, FAST_RETRIES, LOCK};
use crate::support::fake_registry::FakeRegistry;
use crate::tfsum;

const ROOTS: usize = 24;
const PLATFORMS: &[&str] = &["darwin_arm64", "linux_amd64"];
const DELAY_MS: &str = "250";
/// A lock file half of the roots hold before the runs: no provider, so every run
/// replaces it.
const OLD_LOCK: &str = "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n";

/// The 24 roots; even ones start with [`OLD_LOCK`], odd ones without a lock file.
fn repo(registry: &FakeRegistry) -> Repo {
    let both = harness::main_tf(&[("null", "3.2.1"), ("random", "3.6.0")]);
    let null = harness::main_tf(&[("null", "3.2.1")]);
    let files: Vec<(String, &str)> = (0..ROOTS)
        .map(|i| {
            let text = if i % 3 == 0 { &null } else { &both };
            (format!("r{i:02}/main.tf"), text.as_str())
        })
        .collect();
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    let repo = Repo::new(registry, &borrowed);
    reset_locks(&repo);
    repo
}

/// Puts every root's lock file back as it was before the runs.
fn reset_locks(repo: &Repo) {
    for i in 0..ROOTS {
        let lock = repo.path().join(format!("r{i:02}")).join(LOCK);
        if i % 2 == 0 {
            std::fs::write(&lock, OLD_LOCK).expect("old lock");
        } else if lock.exists() {
            std::fs::remove_file(&lock).expect("rm lock");
        }
    }
}

/// Each root's lock file, `None` when it has none.
fn locks(repo: &Repo) -> Vec<Option<Vec<u8>>> {
    (0..ROOTS)
        .map(|i| std::fs::read(repo.path().join(format!("r{i:02}")).join(LOCK)).ok())
        .collect()
}

/// Paths below `dir` with a component named `.tfsum-*` (files and directories).
fn temporaries(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tfsum-"))
        .map(|e| e.path().display().to_string())
        .collect()
}

/// When a run is killed: after a share of a whole run's time, or a moment after its
/// batch of lock files is staged (temporary files in the tree), the issue's case.
#[derive(Debug, Clone, Copy)]
enum Moment {
    Tenths(u32),
    StagedPlus(Duration),
}

/// `tfsum lock -r` over `repo` with the write delay, killed with SIGKILL at `moment`
/// (`whole` is how long an unkilled run takes), or not when it ends first; whether it
/// was killed.
fn killed_at(repo: &Repo, moment: Moment, whole: Duration) -> bool {
    let mut command = tfsum::command(repo.path(), &repo.cli_config(), &repo.path().join(".."));
    command
        .env("TFSUM_CACHE_DIR", repo.cache())
        .env("TFSUM_TEST_WRITE_DELAY_MS", DELAY_MS)
        .envs(FAST_RETRIES.iter().copied())
        .arg("lock")
        .arg("-r")
        .args(PLATFORMS.iter().map(|p| format!("--platform={p}")))
        .arg(".")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = command.spawn().expect("spawn tfsum");
    let started = Instant::now();
    let mut staged_at = None;
    loop {
        if child.try_wait().expect("wait").is_some() {
            return false;
        }
        let due = match moment {
            Moment::Tenths(t) => started.elapsed() >= whole.mul_f64(f64::from(t) / 10.0),
            Moment::StagedPlus(extra) => {
                if staged_at.is_none() && !temporaries(repo.path()).is_empty() {
                    staged_at = Some(Instant::now());
                }
                staged_at.is_some_and(|at| at.elapsed() >= extra)
            }
        };
        if due {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill();
    let _ = child.wait();
    true
}

#[test]
fn sigkill_at_any_moment_leaves_old_or_new_files_and_no_temporaries() {
    let registry = harness::registry();
    // The clean run: what every lock file must end as.
    let clean = repo(&registry);
    let started = Instant::now();
    let out = clean.lock_all(PLATFORMS, &[], &[("TFSUM_TEST_WRITE_DELAY_MS", DELAY_MS)]);
    let cold = started.elapsed();
    assert!(out.status.success(), "{}", text(&out));
    let new = locks(&clean);
    assert!(new.iter().all(Option::is_some), "every root is locked");
    reset_locks(&clean);
    let old = locks(&clean);
    let started = Instant::now();
    let out = clean.lock_all(PLATFORMS, &[], &[("TFSUM_TEST_WRITE_DELAY_MS", DELAY_MS)]);
    let warm_run = started.elapsed();
    assert!(out.status.success(), "{}", text(&out));

    let moments: Vec<Moment> = (1..10)
        .map(Moment::Tenths)
        .chain([0, 50, 100].map(|ms| Moment::StagedPlus(Duration::from_millis(ms))))
        .collect();
    let mut killed = 0;
    for warm in [false, true] {
        for &moment in &moments {
            let repo = repo(&registry);
            if warm {
                let out = repo.lock_all(PLATFORMS, &[], &[]);
                assert!(out.status.success(), "{}", text(&out));
                reset_locks(&repo);
            }
            let what = format!(
                "{} run killed at {moment:?}",
                if warm { "warm" } else { "cold" }
            );
            let whole = if warm { warm_run } else { cold };
            let was_killed = killed_at(&repo, moment, whole);
            if matches!(moment, Moment::StagedPlus(_)) {
                // The batch waits DELAY_MS between staging and renaming: it cannot end first.
                assert!(was_killed, "{what}: the run ended before the kill");
            }
            killed += usize::from(was_killed);
            for (i, now) in locks(&repo).iter().enumerate() {
                assert!(
                    *now == old[i] || *now == new[i],
                    "{what}: r{i:02}'s lock file is neither its old nor its new bytes: {:?}",
                    now.as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                );
            }
            let out = repo.lock_all(PLATFORMS, &[], &[]);
            assert!(
                out.status.success(),
                "{what}, then a normal run: {}",
                text(&out)
            );
            assert_eq!(
                temporaries(repo.path()),
                Vec::<String>::new(),
                "{what}: tree"
            );
            assert_eq!(
                temporaries(&repo.cache()),
                Vec::<String>::new(),
                "{what}: cache"
            );
            assert_eq!(locks(&repo), new, "{what}: the result is a clean run's");
        }
    }
    eprintln!(
        "{killed} of {} runs killed before they ended",
        2 * moments.len()
    );
}
