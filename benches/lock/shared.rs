//! The shared-cache scenario: ten simulated CI runners, each with an empty local cache,
//! lock the monorepo one after another against one shared cache on a real S3-compatible
//! server (moto, `scripts/fetch-s3-server.sh`). The first fills it; the others should
//! download nothing. Then a warm local run of the same job, for comparison.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::measure;
use crate::monorepo::{Monorepo, PLATFORMS};
use crate::report::{seconds, Outcome, Row, Target};
use crate::support::fake_registry::RegistryHandle;
use crate::support::shared_stores::{s3_server_binary, S3Server, WRITER_KEY};
use crate::{check_locks, failure_note, traffic, RunEnv, LOCK_FILE};

pub struct Setup<'a> {
    pub bin: &'a Path,
    pub env: &'a RunEnv<'a>,
    pub registry: &'a RegistryHandle,
    pub monorepo: &'a Monorepo,
    pub work: &'a Path,
    pub runners: usize,
    /// Distinct (package, platform) zips the repository needs.
    pub unique_zips: usize,
}

pub fn run(setup: &Setup<'_>) -> Outcome {
    let mut outcome = Outcome::passing();
    if std::panic::catch_unwind(s3_server_binary).is_err() {
        outcome
            .notes
            .push("shared-cache runs skipped: run scripts/fetch-s3-server.sh".to_owned());
        return outcome;
    }
    let s3 = S3Server::start();
    let repo = setup.work.join("repo-shared");
    if let Err(e) = setup.monorepo.write(&repo, &setup.registry.host()) {
        outcome.notes.push(format!("shared-cache runs: {e}"));
        outcome.ok = false;
        return outcome;
    }
    let mut vars: Vec<(OsString, OsString)> = s3
        .env()
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    vars.push(("TFSUM_SHARED_CACHE".into(), s3.url("bench").into()));
    vars.push((
        "TFSUM_SHARED_CACHE_TRUSTED_KEYS".into(),
        WRITER_KEY.1.into(),
    ));
    vars.push(("TFSUM_SHARED_CACHE_SIGNING_KEY".into(), WRITER_KEY.0.into()));

    let mut zips_total = 0;
    let mut later: Vec<Duration> = Vec::new();
    let mut last_cache = None;
    for runner in 1..=setup.runners {
        let cache = setup.work.join(format!("shared-runner-{runner}"));
        let label = if runner == 1 {
            "shared cache: runner 1 (fills it)".to_owned()
        } else {
            format!("shared cache: runner {runner}")
        };
        let Some((wall, zips)) = lock(setup, &repo, &cache, &vars, &label, &mut outcome) else {
            continue;
        };
        zips_total += zips;
        if runner > 1 {
            later.push(wall);
        }
        last_cache = Some(cache);
    }
    let warm = last_cache.and_then(|cache| {
        lock(
            setup,
            &repo,
            &cache,
            &[],
            "warm local cache, no shared cache",
            &mut outcome,
        )
    });

    later.sort();
    let median = later.get(later.len() / 2).copied();
    let ratio = match (median, warm) {
        (Some(m), Some((w, _))) => format!(
            "runners 2–{}: median {}, range {}–{}; warm local run {} ({:.1}×)",
            setup.runners,
            seconds(m),
            later.first().map_or("-".into(), |d| seconds(*d)),
            later.last().map_or("-".into(), |d| seconds(*d)),
            seconds(w),
            m.as_secs_f64() / w.as_secs_f64().max(1e-9)
        ),
        _ => "not measured".to_owned(),
    };
    outcome.targets.push(Target {
        goal: "shared cache: 10 cold runners download each package once in total",
        measured: format!(
            "{zips_total} registry zip downloads over {} runners; {} unique",
            setup.runners, setup.unique_zips
        ),
        met: Some(zips_total == setup.unique_zips),
    });
    outcome.targets.push(Target {
        goal: "shared cache: runners 2–10 against a warm local run",
        measured: ratio,
        met: None,
    });
    outcome
}

/// Locks every root from no lock files with `cache` as the local cache and `vars` on top:
/// wall time and registry zip downloads, or `None` (noted) when the run failed.
fn lock(
    setup: &Setup<'_>,
    repo: &Path,
    cache: &Path,
    vars: &[(OsString, OsString)],
    label: &str,
    outcome: &mut Outcome,
) -> Option<(Duration, usize)> {
    for root in &setup.monorepo.roots {
        let _ = std::fs::remove_file(repo.join(&root.dir).join(LOCK_FILE));
    }
    setup.registry.reset_counts();
    eprintln!("bench: running {label}");
    let mut args: Vec<OsString> = vec!["lock".into(), "-r".into()];
    for platform in PLATFORMS {
        args.extend(["--platform".into(), platform.into()]);
    }
    args.extend(["--cache-dir".into(), cache.into()]);
    args.extend(setup.env.extra_args.iter().map(OsString::from));
    args.push(repo.into());
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
        ("HOME".into(), setup.env.home.into()),
        ("TF_CLI_CONFIG_FILE".into(), setup.env.cli_config.into()),
        ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
    ];
    env.extend_from_slice(vars);
    let job = measure::Job {
        program: setup.bin.to_owned(),
        args,
        env,
    };
    let logs = cache.with_extension("logs");
    let measured = match measure::run(&job, &logs, setup.env.timeout) {
        Ok(measured) => measured,
        Err(e) => {
            outcome.notes.push(format!("{label}: could not run: {e}"));
            outcome.ok = false;
            return None;
        }
    };
    let traffic = traffic::tally(setup.registry);
    let check = check_locks(repo, setup.monorepo, setup.monorepo.roots.iter());
    let succeeded = measured.success() && check.problems.is_empty();
    if !succeeded {
        outcome
            .notes
            .push(failure_note(label, &measured, &check.problems));
        outcome.ok = false;
    }
    outcome.rows.push(Row {
        label: label.to_owned(),
        wall: Some(measured.wall),
        zip_bytes: Some(traffic.zip_bytes),
        requests: Some(traffic.requests),
        zips: Some(traffic.zips),
        peak_rss: Some(measured.peak_rss),
        status: measured.status(),
        roots: check.summary(setup.monorepo.roots.len()),
        ..Row::default()
    });
    Some((measured.wall, traffic.zips))
}
