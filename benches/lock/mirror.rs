//! The mirror scenario (issue 33): `tfsum mirror` fills a provider directory for the
//! locked monorepo, and parallel `terraform init` of its roots reads it.
//!
//! On its own copy of the repository, with the lock files the lock runs wrote (or, when
//! those are missing or wrong, locked afresh with tfsum, not measured), for `linux_amd64`:
//!
//! 1. **Fill**: `tfsum mirror -r --platform linux_amd64 DIR REPO` from an empty tfsum
//!    cache against the bandwidth-limited registry; then again with everything present
//!    (`--cli-config FILE` also writes the filesystem-mirror configuration). Every
//!    package must end up in `DIR` with the `h1:` of what the registry serves.
//! 2. **Parallel init**: `TFSUM_BENCH_INIT_ROOTS` roots, `TFSUM_BENCH_INIT_PARALLEL` at a
//!    time, `terraform init -backend=false -input=false` with Terraform 1.0.3 (a) with
//!    `TF_PLUGIN_CACHE_DIR` a fresh empty directory they all share (today's practice),
//!    (b) with `TF_PLUGIN_CACHE_DIR` the filled directory, (c) with `TF_CLI_CONFIG_FILE`
//!    the configuration tfsum wrote. Before each, every root loses its `.terraform/` and
//!    gets its original lock file back, so each case starts from the committed state.
//!
//! A failed `tfsum mirror`, a wrong or missing package, or an init failing in (b) or (c)
//! marks the bench not ok; failures in (a) are the race being measured and are only
//! reported.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::measure::{self, Measured};
use crate::monorepo::{Monorepo, PLATFORMS};
use crate::report::{bytes, seconds, Outcome, Row, Target};
use crate::support::fake_registry::RegistryHandle;
use crate::support::{dirhash, terraform};
use crate::traffic;
use crate::{check_locks, failure_note, not_measured, RunEnv, LOCK_FILE};

/// The one platform the directory is filled for: the oracle's and this machine's.
const PLATFORM: &str = "linux_amd64";
/// Connections tfsum downloads over at once by default (`--per-host`); the registry's
/// bandwidth limit is per connection, so this bounds the floor.
const CONNECTIONS: u64 = 6;

pub struct Setup<'a> {
    pub bin: &'a Path,
    pub env: &'a RunEnv<'a>,
    pub registry: &'a RegistryHandle,
    pub monorepo: &'a Monorepo,
    pub work: &'a Path,
    /// The repository the lock runs locked; its lock files are copied.
    pub locked: &'a Path,
    /// Bytes/s per connection, `None` when unlimited.
    pub bandwidth: Option<u64>,
    /// Roots that run `terraform init` (0: skip the init part).
    pub init_roots: usize,
    pub init_parallel: usize,
}

pub fn run(setup: &Setup<'_>) -> Outcome {
    let mut outcome = Outcome::passing();
    let repo = setup.work.join("repo-mirror");
    if let Err(message) = prepare(setup, &repo) {
        outcome.notes.push(format!("mirror scenario: {message}"));
        outcome.ok = false;
        return outcome;
    }
    let dir = setup.work.join("mirror-providers");
    let config = setup.work.join("mirror.tfrc");
    let filled = fill(setup, &repo, &dir, &config, &mut outcome);
    if setup.init_roots == 0 {
        outcome
            .notes
            .push("mirror scenario: parallel inits skipped (TFSUM_BENCH_INIT_ROOTS=0)".to_owned());
    } else if std::panic::catch_unwind(terraform::binary).is_err() {
        outcome.notes.push(
            "mirror scenario: parallel inits skipped: no Terraform v1.0.3 (run \
             scripts/fetch-terraform.sh)"
                .to_owned(),
        );
        outcome.ok = false;
    } else if !filled {
        outcome
            .notes
            .push("mirror scenario: parallel inits skipped: the directory was not filled".into());
    } else {
        inits(setup, &repo, &dir, &config, &mut outcome);
    }
    outcome
}

/// Writes the scenario's copy of the repository with the lock runs' lock files, or locks
/// it when those are not all right.
fn prepare(setup: &Setup<'_>, repo: &Path) -> Result<(), String> {
    setup
        .monorepo
        .write(repo, &setup.registry.host())
        .map_err(|e| format!("writing {}: {e}", repo.display()))?;
    for root in &setup.monorepo.roots {
        let from = setup.locked.join(&root.dir).join(LOCK_FILE);
        let _ = std::fs::copy(from, repo.join(&root.dir).join(LOCK_FILE));
    }
    if check_locks(repo, setup.monorepo, setup.monorepo.roots.iter())
        .problems
        .is_empty()
    {
        return Ok(());
    }
    eprintln!("bench: mirror scenario: locking its repository first");
    let mut args: Vec<OsString> = vec!["lock".into(), "-r".into()];
    for platform in PLATFORMS {
        args.extend(["--platform".into(), platform.into()]);
    }
    args.extend([
        "--cache-dir".into(),
        setup.work.join("mirror-setup-cache").into(),
        repo.into(),
    ]);
    let measured = tfsum(setup, args, "mirror-setup")?;
    let check = check_locks(repo, setup.monorepo, setup.monorepo.roots.iter());
    if measured.success() && check.problems.is_empty() {
        Ok(())
    } else {
        Err(failure_note("locking first", &measured, &check.problems))
    }
}

/// The cold and the warm `tfsum mirror`; whether the directory holds every package.
fn fill(setup: &Setup<'_>, repo: &Path, dir: &Path, config: &Path, outcome: &mut Outcome) -> bool {
    let packages: Vec<(&str, String)> = setup.monorepo.needed().into_keys().collect();
    let zip_len = |(type_, version): &(&str, String)| {
        setup
            .registry
            .zip("hashicorp", type_, version, PLATFORM)
            .len() as u64
    };
    let unique_bytes: u64 = packages.iter().map(zip_len).sum();
    let largest = packages.iter().map(zip_len).max().unwrap_or(0);
    let cache = setup.work.join("mirror-cache");
    let mut all_placed = false;
    let mut cold_zips = None;
    let mut warm_zips = None;
    for (index, label) in [
        format!("tfsum mirror, cold ({PLATFORM})"),
        format!("tfsum mirror, warm ({PLATFORM}, --cli-config)"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut args: Vec<OsString> = vec![
            "mirror".into(),
            "-r".into(),
            "--platform".into(),
            PLATFORM.into(),
            "--format".into(),
            "json".into(),
            "--cache-dir".into(),
            cache.clone().into(),
        ];
        if index == 1 {
            args.extend(["--cli-config".into(), config.into()]);
        }
        args.extend([dir.into(), repo.into()]);
        setup.registry.reset_counts();
        eprintln!("bench: running {label}");
        let measured = tfsum(setup, args, &format!("mirror-{index}"));
        let traffic = traffic::tally(setup.registry);
        let mut row = Row {
            label: label.clone(),
            zip_bytes: Some(traffic.zip_bytes),
            bytes_ratio: Some(traffic.zip_bytes as f64 / unique_bytes.max(1) as f64),
            requests: Some(traffic.requests),
            zips: Some(traffic.zips),
            ..Row::default()
        };
        let measured = match measured {
            Ok(measured) => measured,
            Err(message) => {
                row.status = "not run".to_owned();
                outcome.notes.push(format!("{label}: {message}"));
                outcome.rows.push(row);
                outcome.ok = false;
                continue;
            }
        };
        let wrong = misplaced(setup.registry, dir, &packages);
        let counts = summary(&measured.stdout);
        row.wall = Some(measured.wall);
        row.peak_rss = Some(measured.peak_rss);
        row.status = measured.status();
        row.roots = format!(
            "{}/{} packages right{}",
            packages.len() - wrong.len(),
            packages.len(),
            counts.map_or_else(String::new, |[installed, present, replaced, failed]| {
                format!(
                    " ({installed} installed, {present} present, {replaced} replaced, \
                     {failed} failed)"
                )
            })
        );
        let ok = measured.success() && wrong.is_empty();
        if !ok {
            outcome.ok = false;
            outcome.notes.push(failure_note(&label, &measured, &wrong));
        }
        all_placed = wrong.is_empty();
        if index == 0 {
            cold_zips = Some((traffic, ok));
            outcome.notes.push(format!(
                "{label}: {} of zips unpacked into {} of files, each synced to disk before \
                 it is renamed into place (the floor target counts only the network)",
                bytes(traffic.zip_bytes),
                bytes(tree_bytes(dir))
            ));
            if let Some(bandwidth) = setup.bandwidth {
                let floor =
                    largest.max(unique_bytes.div_ceil(CONNECTIONS)) as f64 / bandwidth as f64;
                let floor = Duration::from_secs_f64(floor);
                let serial = Duration::from_secs_f64(unique_bytes as f64 / bandwidth as f64);
                outcome.targets.push(Target {
                    goal: "mirror fill: wall against the network floor",
                    measured: format!(
                        "{} vs {} ({:.1}×): {} over {CONNECTIONS} connections at {}/s, \
                         largest zip {}; {} over one",
                        seconds(measured.wall),
                        seconds(floor),
                        measured.wall.as_secs_f64() / floor.as_secs_f64().max(1e-9),
                        bytes(unique_bytes),
                        bytes(bandwidth),
                        bytes(largest),
                        seconds(serial)
                    ),
                    met: None,
                });
            }
        } else {
            warm_zips = Some((traffic, measured.wall, ok));
        }
        if traffic.repeated_zips > 0 {
            outcome.notes.push(format!(
                "{label}: {} zip requests repeated a package already fetched",
                traffic.repeated_zips
            ));
        }
        outcome.rows.push(row);
    }
    let failed = |ok: bool| if ok { "" } else { " [run failed]" };
    outcome.targets.push(match cold_zips {
        Some((traffic, ok)) => Target {
            goal: "mirror fill: each package downloaded once (zip bytes / unique = 1.00)",
            measured: format!(
                "{} zips, {} of {} ({} packages){}",
                traffic.zips,
                bytes(traffic.zip_bytes),
                bytes(unique_bytes),
                packages.len(),
                failed(ok)
            ),
            met: Some(ok && traffic.zip_bytes == unique_bytes && traffic.zips == packages.len()),
        },
        None => not_measured("mirror fill: each package downloaded once"),
    });
    outcome.targets.push(match warm_zips {
        Some((traffic, wall, ok)) => Target {
            goal: "mirror warm: everything present, 0 zip downloads",
            measured: format!("{} zips in {}{}", traffic.zips, seconds(wall), failed(ok)),
            met: Some(ok && traffic.zips == 0),
        },
        None => not_measured("mirror warm: everything present, 0 zip downloads"),
    });
    all_placed && config.is_file()
}

/// `[installed, present, replaced, failed]` from `tfsum mirror --format json`.
fn summary(stdout: &str) -> Option<[u64; 4]> {
    let doc: serde_json::Value = serde_json::from_str(stdout).ok()?;
    let summary = &doc["summary"];
    let count = |key: &str| summary[key].as_u64();
    Some([
        count("installed")?,
        count("present")?,
        count("replaced")?,
        count("failed")?,
    ])
}

/// The packages whose entry in `dir` is missing or is not what the registry serves.
fn misplaced(registry: &RegistryHandle, dir: &Path, packages: &[(&str, String)]) -> Vec<String> {
    let host = registry.host();
    packages
        .iter()
        .filter_map(|(type_, version)| {
            let entry = dir
                .join(&host)
                .join("hashicorp")
                .join(type_)
                .join(version)
                .join(PLATFORM);
            let expected = registry.expected_h1("hashicorp", type_, version, PLATFORM);
            match h1_of(&entry) {
                Ok(found) if found == expected => None,
                Ok(found) => Some(format!(
                    "{type_} {version}: {} has {found}, expected {expected}",
                    entry.display()
                )),
                Err(e) => Some(format!("{type_} {version}: {}: {e}", entry.display())),
            }
        })
        .collect()
}

/// The bytes of the files below `dir`.
fn tree_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| entry.metadata().ok())
        .map(|metadata| metadata.len())
        .sum()
}

/// The `h1:` of an unpacked package directory.
fn h1_of(entry: &Path) -> std::io::Result<String> {
    let mut files = Vec::new();
    for item in walkdir::WalkDir::new(entry).min_depth(1) {
        let item = item.map_err(std::io::Error::other)?;
        if item.file_type().is_file() {
            let name = item
                .path()
                .strip_prefix(entry)
                .map_err(std::io::Error::other)?
                .to_string_lossy()
                .replace('\\', "/");
            files.push((name, std::fs::read(item.path())?));
        }
    }
    if files.is_empty() {
        return Err(std::io::Error::other("no files"));
    }
    Ok(dirhash::h1(&files))
}

/// The three parallel-init cases over a subset of the roots.
fn inits(setup: &Setup<'_>, repo: &Path, dir: &Path, config: &Path, outcome: &mut Outcome) {
    let subset = crate::subset(setup.monorepo.roots.len(), setup.init_roots);
    let parallel = setup.init_parallel.max(1);
    let roots: Vec<PathBuf> = subset
        .iter()
        .map(|&i| repo.join(&setup.monorepo.roots[i].dir))
        .collect();
    let unique: BTreeSet<(&str, String)> = subset
        .iter()
        .flat_map(|&i| setup.monorepo.expected(&setup.monorepo.roots[i]))
        .collect();
    let originals: BTreeMap<PathBuf, Vec<u8>> = roots
        .iter()
        .map(|root| {
            let path = root.join(LOCK_FILE);
            let bytes = std::fs::read(&path).unwrap_or_default();
            (path, bytes)
        })
        .collect();
    let empty_cache = setup.work.join("mirror-init-cache");
    if let Err(e) = std::fs::create_dir_all(&empty_cache) {
        outcome
            .notes
            .push(format!("mirror scenario: {}: {e}", empty_cache.display()));
        outcome.ok = false;
        return;
    }
    let (empty, filled) = (
        empty_cache.to_string_lossy().into_owned(),
        dir.to_string_lossy().into_owned(),
    );
    let n = roots.len();
    let cases = [
        (
            format!("init {n}×{parallel}: (a) empty shared plugin cache"),
            setup.env.cli_config,
            vec![("TF_PLUGIN_CACHE_DIR", empty.as_str())],
        ),
        (
            format!("init {n}×{parallel}: (b) filled dir as plugin cache"),
            setup.env.cli_config,
            vec![("TF_PLUGIN_CACHE_DIR", filled.as_str())],
        ),
        (
            format!("init {n}×{parallel}: (c) filled dir as filesystem mirror"),
            config,
            Vec::new(),
        ),
    ];
    let mut results = Vec::new();
    for (index, (label, cli_config, env)) in cases.iter().enumerate() {
        if let Err(e) = reset(&roots, &originals) {
            outcome
                .notes
                .push(format!("{label}: resetting the roots: {e}"));
            outcome.ok = false;
            return;
        }
        setup.registry.reset_counts();
        eprintln!("bench: running {label}");
        let started = Instant::now();
        let failures = init_all(&roots, cli_config, env, parallel);
        let wall = started.elapsed();
        let traffic = traffic::tally(setup.registry);
        let changed = originals
            .iter()
            .filter(|(path, bytes)| std::fs::read(path).ok().as_ref() != Some(*bytes))
            .count();
        outcome.rows.push(Row {
            label: label.clone(),
            wall: Some(wall),
            zip_bytes: Some(traffic.zip_bytes),
            requests: Some(traffic.requests),
            zips: Some(traffic.zips),
            status: if failures.is_empty() {
                "ok".to_owned()
            } else {
                format!("{} of {n} failed", failures.len())
            },
            roots: format!("{changed} of {n} changed"),
            ..Row::default()
        });
        if let Some(first) = failures.first() {
            let first = error_lines(first).join("\n      ");
            outcome.notes.push(format!(
                "{label}: {} init(s) failed, first:\n      {first}",
                failures.len()
            ));
            // (a)'s failures are Terraform's race, the thing measured; (b) and (c)
            // read what tfsum placed.
            if index > 0 {
                outcome.ok = false;
            }
        }
        if index == 0 {
            outcome.notes.push(format!(
                "{label}: {} zip downloads for {} unique packages of its {n} roots \
                 ({} repeated)",
                traffic.zips,
                unique.len(),
                traffic.repeated_zips
            ));
        }
        results.push((failures.len(), traffic, changed, wall));
    }
    if let Err(e) = reset(&roots, &originals) {
        outcome
            .notes
            .push(format!("mirror scenario: resetting the roots: {e}"));
    }
    let [_, plugin_cache, mirror] = &results[..] else {
        return;
    };
    // What each way of reading the directory must not do: fetch zips from the
    // registry (plugin cache), or ask it anything (filesystem mirror).
    let checks = [
        (
            plugin_cache,
            "parallel init, filled dir as plugin cache: 0 failed, 0 zips, 0 locks changed",
            "zips",
        ),
        (
            mirror,
            "parallel init, filled dir as filesystem mirror: 0 failed, 0 requests, 0 changed",
            "requests",
        ),
    ];
    for ((failed, traffic, changed, wall), goal, counted) in checks {
        let fetched = if counted == "zips" {
            traffic.zips
        } else {
            traffic.requests
        };
        outcome.targets.push(Target {
            goal,
            measured: format!(
                "{failed} failed, {fetched} {counted}, {changed} changed ({n}×{parallel}, {})",
                seconds(*wall)
            ),
            met: Some(*failed == 0 && fetched == 0 && *changed == 0),
        });
    }
}

/// A failed init's root and the first lines of its error, not its progress lines.
fn error_lines(failure: &str) -> Vec<&str> {
    let lines: Vec<&str> = failure.lines().map(str::trim).collect();
    let start = lines.iter().position(|l| l.contains("Error")).unwrap_or(0);
    let mut shown: Vec<&str> = lines.first().into_iter().copied().collect();
    shown.extend(
        lines[start.max(1)..]
            .iter()
            .filter(|l| !l.is_empty())
            .take(4),
    );
    shown
}

/// Each root without `.terraform/` and with its original lock file.
fn reset(roots: &[PathBuf], originals: &BTreeMap<PathBuf, Vec<u8>>) -> std::io::Result<()> {
    for root in roots {
        let dot = root.join(".terraform");
        if dot.exists() {
            std::fs::remove_dir_all(&dot)?;
        }
    }
    for (path, bytes) in originals {
        std::fs::write(path, bytes)?;
    }
    Ok(())
}

/// `terraform init` in every root, `parallel` at a time; the failures' output.
fn init_all(
    roots: &[PathBuf],
    cli_config: &Path,
    env: &[(&str, &str)],
    parallel: usize,
) -> Vec<String> {
    let queue = Mutex::new(roots.iter());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..parallel.min(roots.len()) {
            scope.spawn(|| loop {
                let Some(root) = queue.lock().ok().and_then(|mut q| q.next()) else {
                    return;
                };
                let args = ["init", "-backend=false", "-input=false", "-no-color"];
                // The harness panics on its timeout; that is one failed init here.
                let output =
                    std::panic::catch_unwind(|| terraform::run_with(root, cli_config, &args, env));
                let failure = match output {
                    Ok(output) if output.status.success() => continue,
                    Ok(output) => terraform::combined_output(&output),
                    Err(_) => "timed out".to_owned(),
                };
                if let Ok(mut list) = failures.lock() {
                    list.push(format!("{}: {}", root.display(), failure.trim()));
                }
            });
        }
    });
    failures.into_inner().unwrap_or_default()
}

/// `tfsum ARGS` with the bench's environment.
fn tfsum(setup: &Setup<'_>, args: Vec<OsString>, logs: &str) -> Result<Measured, String> {
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
        ("HOME".into(), setup.env.home.into()),
        ("TF_CLI_CONFIG_FILE".into(), setup.env.cli_config.into()),
        ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
    ];
    if let Some(filter) = std::env::var_os("RUST_LOG") {
        env.push(("RUST_LOG".into(), filter));
    }
    let job = measure::Job {
        program: setup.bin.to_owned(),
        args,
        env,
    };
    measure::run(&job, &setup.work.join(logs), setup.env.timeout)
        .map_err(|e| format!("could not run {}: {e}", setup.bin.display()))
}
