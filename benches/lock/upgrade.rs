//! The upgrade scenario of `make bench`, on the locked monorepo the lock runs leave:
//!
//! - `tfsum outdated -r` from the warm cache (the issue: well under a second);
//! - `tfsum upgrade provider aws latest -r` (every aws constraint pinned to the newest
//!   published version, then every root relocked for the four platforms), from the warm
//!   cache and from an empty one;
//! - the same with tfupdate 0.10.2: `tfupdate provider aws -v VERSION -r` then `tfupdate
//!   lock --platform …×4 -r` (its lock step updates existing lock files for pinned
//!   providers, downloading each package; it has no cache), against the same fake
//!   registry (`TFREGISTRY_BASE_URL`). Optional: the binary comes from `TFUPDATE`
//!   (default `../shared/bin/tfupdate` beside the repository); without one the comparison
//!   is skipped and the report says how to provide it.
//!
//! tfupdate locks only providers of `registry.terraform.io` (it reads the namespace and
//! type of each address and asks its one registry), so this scenario writes its own copy
//! of the monorepo with `registry.terraform.io/hashicorp/…` sources, sends that host to
//! the fake registry in tfsum's CLI configuration (tfupdate: `TFREGISTRY_BASE_URL`), and
//! locks it once with tfsum before the measured runs (its own cache, not measured). Each
//! run works on its own copy of that tree; afterwards every root that requires aws must
//! lock the new version, with its other providers as before.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::measure::{self, Measured};
use crate::monorepo::{self, Monorepo, PLATFORMS};
use crate::report::{seconds, Row, Target};
use crate::support::fake_registry::RegistryHandle;
use crate::traffic;

/// Where tfupdate is looked for when `TFUPDATE` is not set (relative to the repository).
const DEFAULT_TFUPDATE: &str = "../shared/bin/tfupdate";

/// What the scenario adds to the report (the remote-module scenario's shape).
pub use crate::report::Outcome;

/// What the scenario runs on.
pub struct Setup<'a> {
    pub bin: &'a Path,
    pub registry: &'a RegistryHandle,
    pub monorepo: &'a Monorepo,
    pub work: &'a Path,
    pub home: &'a Path,
    pub timeout: Duration,
}

/// The scenario's own tree, CLI configuration and cache, once locked.
struct Tree {
    repo: PathBuf,
    cli_config: PathBuf,
    cache: PathBuf,
}

/// The provider host tfupdate can lock for.
const PUBLIC_REGISTRY: &str = "registry.terraform.io";

/// Writes the monorepo with `registry.terraform.io` sources and locks it with tfsum.
fn prepare(setup: &Setup<'_>) -> Result<Tree, String> {
    let tree = Tree {
        repo: setup.work.join("upgrade-base"),
        cli_config: setup.work.join("upgrade-cli.tfrc"),
        cache: setup.work.join("upgrade-cache"),
    };
    setup
        .monorepo
        .write(&tree.repo, PUBLIC_REGISTRY)
        .map_err(|e| format!("writing {}: {e}", tree.repo.display()))?;
    let config = format!(
        "{}host \"{PUBLIC_REGISTRY}\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
        setup.registry.cli_config(),
        setup.registry.providers_url()
    );
    std::fs::write(&tree.cli_config, config)
        .map_err(|e| format!("writing {}: {e}", tree.cli_config.display()))?;
    let mut args = vec!["lock", "-r"];
    for platform in PLATFORMS {
        args.extend(["--platform", platform]);
    }
    let locked = tfsum(
        setup,
        &tree,
        &args,
        &tree.repo,
        &tree.cache,
        "upgrade-setup",
    )?;
    if !locked.success() {
        return Err(format!(
            "locking the tree first: {}; output ends:\n      {}",
            locked.status(),
            locked.tail(8).replace('\n', "\n      ")
        ));
    }
    Ok(tree)
}

/// The newest published aws version without a prerelease part.
fn newest_aws() -> &'static str {
    monorepo::provider("aws")
        .versions
        .iter()
        .rev()
        .find(|v| !v.contains('-'))
        .copied()
        .unwrap_or("0.0.0")
}

pub fn run(setup: &Setup<'_>) -> Outcome {
    let mut outcome = Outcome::passing();
    let roots = setup.monorepo.roots.len();
    let latest = newest_aws();
    let tree = match prepare(setup) {
        Ok(tree) => tree,
        Err(message) => {
            outcome.notes.push(format!("upgrade scenario: {message}"));
            outcome.ok = false;
            return outcome;
        }
    };

    // outdated, warm
    setup.registry.reset_counts();
    let outdated = tfsum(
        setup,
        &tree,
        &["outdated", "-r", "--format", "json"],
        &tree.repo,
        &tree.cache,
        "outdated",
    );
    let row = row_of("tfsum outdated (warm)", &outdated, setup.registry, None);
    let wall = outdated.as_ref().ok().map(|m| m.wall);
    let ok = outdated
        .as_ref()
        .is_ok_and(|m| m.success() && m.stdout.contains("\"schema_version\": 1"));
    outcome.ok &= ok;
    if let Err(e) = &outdated {
        outcome.notes.push(format!("tfsum outdated: {e}"));
    }
    outcome.rows.push(row);
    outcome.targets.push(Target {
        goal: "outdated warm well under 1 s over 300 roots",
        measured: wall.map_or_else(
            || "-".to_owned(),
            |w| format!("{} ({roots} roots)", seconds(w)),
        ),
        met: wall.map(|w| ok && w < Duration::from_secs(1)),
    });

    // tfsum upgrade, warm and cold
    let mut tfsum_walls = Vec::new();
    for (label, fresh_cache) in [
        ("tfsum upgrade aws latest (warm)", false),
        ("tfsum upgrade aws latest (empty cache)", true),
    ] {
        let copy = setup.work.join(if fresh_cache {
            "upgrade-cold"
        } else {
            "upgrade-warm"
        });
        if let Err(e) = copy_tree(&tree.repo, &copy) {
            outcome
                .notes
                .push(format!("{label}: copying the repository: {e}"));
            outcome.ok = false;
            continue;
        }
        let cache = if fresh_cache {
            setup.work.join("upgrade-cold-cache")
        } else {
            tree.cache.clone()
        };
        let mut args = vec!["upgrade", "provider", "aws", "latest", "-r"];
        for platform in PLATFORMS {
            args.extend(["--platform", platform]);
        }
        setup.registry.reset_counts();
        let measured = tfsum(setup, &tree, &args, &copy, &cache, "upgrade");
        let problems = check(setup.monorepo, &copy, latest);
        let mut row = row_of(label, &measured, setup.registry, Some(&problems));
        row.roots = summary(&problems, roots);
        let ok = measured.as_ref().is_ok_and(Measured::success) && problems.is_empty();
        note_failure(&mut outcome, label, &measured, &problems);
        outcome.ok &= ok;
        if let Ok(m) = &measured {
            tfsum_walls.push((label, m.wall, ok));
        }
        outcome.rows.push(row);
    }

    // tfupdate provider + tfupdate lock
    let tfupdate = tfupdate_binary();
    let tfupdate_wall = match &tfupdate {
        Err(message) => {
            outcome.notes.push(message.clone());
            None
        }
        Ok(program) => run_tfupdate(setup, &tree, program, latest, &mut outcome),
    };
    // tfsum relocks a root whole, as `tfsum lock` does: from an empty cache it hashes every
    // provider package of every relocked root, while tfupdate's lock fetches only the
    // packages of the providers whose pin changed. The warm run is the like-for-like one.
    if let Some((label, wall, _)) = tfsum_walls.iter().find(|(l, _, _)| l.contains("empty")) {
        outcome.notes.push(format!(
            "{label}: {}; from an empty cache tfsum hashes every provider package of each relocked root (as tfsum lock does), tfupdate lock only the new aws packages",
            seconds(*wall)
        ));
    }
    for (label, wall, ok) in tfsum_walls.iter().filter(|(l, _, _)| !l.contains("empty")) {
        let which = label.trim_start_matches("tfsum upgrade aws latest ");
        outcome.targets.push(match tfupdate_wall {
            Some(theirs) => Target {
                goal: "upgrade aws -r: tfsum vs tfupdate provider + lock",
                measured: format!(
                    "{:.1}× ({} vs {}, tfsum {which})",
                    theirs.as_secs_f64() / wall.as_secs_f64().max(1e-9),
                    seconds(*wall),
                    seconds(theirs)
                ),
                met: Some(*ok && *wall < theirs),
            },
            None => Target {
                goal: "upgrade aws -r: tfsum vs tfupdate provider + lock",
                measured: format!("{} (tfsum {which}; no tfupdate)", seconds(*wall)),
                met: None,
            },
        });
    }
    outcome
}

/// `tfupdate provider aws -v LATEST -r` then `tfupdate lock --platform …×4 -r`, on a copy;
/// the two walls added, or `None` when a step failed.
fn run_tfupdate(
    setup: &Setup<'_>,
    tree: &Tree,
    program: &Path,
    latest: &str,
    outcome: &mut Outcome,
) -> Option<Duration> {
    let label = "tfupdate provider + lock";
    let copy = setup.work.join("upgrade-tfupdate");
    if let Err(e) = copy_tree(&tree.repo, &copy) {
        outcome
            .notes
            .push(format!("{label}: copying the repository: {e}"));
        return None;
    }
    // tfupdate takes only a relative PATH below its working directory.
    let relative = PathBuf::from("upgrade-tfupdate");
    let mut lock: Vec<OsString> = vec!["lock".into(), "-r".into()];
    for platform in PLATFORMS {
        lock.extend(["--platform".into(), (*platform).into()]);
    }
    lock.push(relative.clone().into());
    let steps: [Vec<OsString>; 2] = [
        vec![
            "provider".into(),
            "aws".into(),
            "-v".into(),
            latest.into(),
            "-r".into(),
            relative.into(),
        ],
        lock,
    ];
    setup.registry.reset_counts();
    let mut total = Duration::ZERO;
    let mut peak = 0;
    for (n, args) in steps.into_iter().enumerate() {
        let job = measure::Job {
            program: program.to_owned(),
            args,
            env: vec![
                ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
                ("HOME".into(), setup.home.into()),
                (
                    "TFREGISTRY_BASE_URL".into(),
                    format!("{}/", setup.registry.base_url()).into(),
                ),
                ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            ],
        };
        let logs = setup.work.join(format!("tfupdate-{n}"));
        match measure::run_in(&job, setup.work, &logs, setup.timeout) {
            Ok(m) if m.success() => {
                total += m.wall;
                peak = peak.max(m.peak_rss);
            }
            Ok(m) => {
                outcome.notes.push(format!(
                    "{label}: step {} {}; output ends:\n      {}",
                    n + 1,
                    m.status(),
                    m.tail(8).replace('\n', "\n      ")
                ));
                outcome.rows.push(Row {
                    label: label.to_owned(),
                    status: m.status(),
                    ..Row::default()
                });
                return None;
            }
            Err(e) => {
                outcome.notes.push(format!("{label}: {e}"));
                return None;
            }
        }
    }
    let traffic = traffic::tally(setup.registry);
    let problems = check(setup.monorepo, &copy, latest);
    if !problems.is_empty() {
        outcome.notes.push(format!(
            "{label}: {} lock problem(s), first: {}",
            problems.len(),
            problems[0]
        ));
    }
    outcome.rows.push(Row {
        label: label.to_owned(),
        wall: Some(total),
        zip_bytes: Some(traffic.zip_bytes),
        requests: Some(traffic.requests),
        zips: Some(traffic.zips),
        peak_rss: Some(peak),
        status: "exit 0".to_owned(),
        roots: summary(&problems, setup.monorepo.roots.len()),
        ..Row::default()
    });
    Some(total)
}

/// The tfupdate binary: `TFUPDATE`, else [`DEFAULT_TFUPDATE`]; `Err` says how to give one.
fn tfupdate_binary() -> Result<PathBuf, String> {
    let path = match std::env::var_os("TFUPDATE") {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join(DEFAULT_TFUPDATE),
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "tfupdate comparison skipped: no tfupdate at {}; set TFUPDATE=/path/to/tfupdate \
             (0.10.2, github.com/minamijoyo/tfupdate) to compare",
            path.display()
        ))
    }
}

/// `tfsum ARGS --cache-dir CACHE REPO` with the bench's environment.
fn tfsum(
    setup: &Setup<'_>,
    tree: &Tree,
    args: &[&str],
    repo: &Path,
    cache: &Path,
    logs: &str,
) -> Result<Measured, String> {
    let mut argv: Vec<OsString> = args.iter().map(OsString::from).collect();
    argv.extend(["--cache-dir".into(), cache.into(), repo.into()]);
    let job = measure::Job {
        program: setup.bin.to_owned(),
        args: argv,
        env: vec![
            ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
            ("HOME".into(), setup.home.into()),
            ("TF_CLI_CONFIG_FILE".into(), tree.cli_config.clone().into()),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
        ],
    };
    measure::run(
        &job,
        &setup.work.join(format!("tfsum-{logs}")),
        setup.timeout,
    )
    .map_err(|e| format!("could not run {}: {e}", setup.bin.display()))
}

fn row_of(
    label: &str,
    measured: &Result<Measured, String>,
    registry: &RegistryHandle,
    problems: Option<&[String]>,
) -> Row {
    let traffic = traffic::tally(registry);
    let mut row = Row {
        label: label.to_owned(),
        zip_bytes: Some(traffic.zip_bytes),
        requests: Some(traffic.requests),
        zips: Some(traffic.zips),
        ..Row::default()
    };
    match measured {
        Ok(m) => {
            row.wall = Some(m.wall);
            row.peak_rss = Some(m.peak_rss);
            row.status = m.status();
        }
        Err(_) => row.status = "not run".to_owned(),
    }
    if problems.is_none() {
        row.roots = "-".to_owned();
    }
    row
}

fn note_failure(
    outcome: &mut Outcome,
    label: &str,
    measured: &Result<Measured, String>,
    problems: &[String],
) {
    match measured {
        Err(e) => outcome.notes.push(format!("{label}: {e}")),
        Ok(m) if !m.success() => outcome.notes.push(format!(
            "{label}: {}; output ends:\n      {}",
            m.status(),
            m.tail(8).replace('\n', "\n      ")
        )),
        Ok(_) => {}
    }
    if let Some(first) = problems.first() {
        outcome.notes.push(format!(
            "{label}: {} lock problem(s), first: {first}",
            problems.len()
        ));
    }
}

fn summary(problems: &[String], roots: usize) -> String {
    if problems.is_empty() {
        format!("{roots}/{roots} ok")
    } else {
        format!("{} problem(s)", problems.len())
    }
}

/// Every root locks `aws` at `latest` when its tree requires aws, and its other
/// providers at the versions the lock runs chose.
fn check(monorepo: &Monorepo, repo: &Path, latest: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for root in &monorepo.roots {
        let mut expected: BTreeMap<String, String> = monorepo
            .expected(root)
            .into_iter()
            .map(|(t, v)| (t.to_owned(), v))
            .collect();
        if let Some(version) = expected.get_mut("aws") {
            *version = latest.to_owned();
        }
        let path = repo.join(&root.dir).join(".terraform.lock.hcl");
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let found = crate::locked_versions(&text);
                if found != expected {
                    problems.push(format!(
                        "{}: locked {found:?}, expected {expected:?}",
                        root.dir
                    ));
                }
            }
            Err(e) => problems.push(format!("{}: {e}", root.dir)),
        }
    }
    problems
}

/// Copies the files below `from` into `to` (made afresh).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to)?;
    }
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.map_err(std::io::Error::other)?;
        let relative = entry
            .path()
            .strip_prefix(from)
            .map_err(std::io::Error::other)?;
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
