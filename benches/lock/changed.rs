//! The changed-files scenario of `make bench` (issue 43): the large repository, locked
//! and warm, run as a pre-commit hook and Renovate run it, with and without the
//! configuration index.
//!
//! Each round edits a file (a comment appended, so the lock files stay what they are)
//! and hands tfsum that file, from the repository's directory: one root's `main.tf`,
//! then `modules/dns/versions.tf`, which a tenth of the roots call. The whole-repository
//! run is measured with nothing changed. Every run is made with `--no-index` too, for the
//! figures without the index, and every lock file is checked after each run.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::measure::{self, Measured};
use crate::monorepo::Monorepo;
use crate::report::{seconds, Outcome, Row, Target};
use crate::{check_locks, failure_note, RunEnv, PLATFORMS};

/// The module file of the second run: a module a tenth of the roots call.
const MODULE_FILE: &str = "modules/dns/versions.tf";
/// How long a written file takes to be vouched for by its stamp (`disk::index::RACY`),
/// with room to spare: the index is built from settled files, as in a repository
/// checked out a while ago.
const SETTLE: Duration = Duration::from_millis(2200);

/// The runs, in order; each one's rows with and without the index.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    Whole,
    RootFile,
    ModuleFile,
}

impl Run {
    const ALL: [Run; 3] = [Run::Whole, Run::RootFile, Run::ModuleFile];

    fn label(self, roots: usize) -> String {
        match self {
            Run::Whole => format!("{roots} roots: `lock -r .`, nothing changed"),
            Run::RootFile => format!("{roots} roots: one root's file changed"),
            Run::ModuleFile => format!("{roots} roots: `{MODULE_FILE}` changed"),
        }
    }
}

/// Wall time and peak RSS of each repetition of one run, how many roots its report
/// named, and whether each succeeded with every lock file right.
#[derive(Default)]
struct Figures {
    runs: Vec<(Duration, u64)>,
    reported: usize,
    ok: bool,
}

impl Figures {
    fn median(&self) -> (Option<Duration>, Option<u64>) {
        let mut walls: Vec<Duration> = self.runs.iter().map(|r| r.0).collect();
        let mut rss: Vec<u64> = self.runs.iter().map(|r| r.1).collect();
        walls.sort_unstable();
        rss.sort_unstable();
        (
            walls.get(walls.len() / 2).copied(),
            rss.get(rss.len() / 2).copied(),
        )
    }
}

pub struct Setup<'a> {
    pub bin: &'a Path,
    pub env: &'a RunEnv<'a>,
    pub monorepo: &'a Monorepo,
    /// The large scenario's repository, every root locked.
    pub repo: &'a Path,
    /// Its warm cache.
    pub cache: &'a Path,
    pub work: &'a Path,
    pub repeat: usize,
}

pub fn run(setup: &Setup<'_>) -> Outcome {
    let mut outcome = Outcome::passing();
    let roots = setup.monorepo.roots.len();
    let Some(first) = setup.monorepo.roots.first() else {
        return outcome;
    };
    let root_file = format!("{}/main.tf", first.dir);
    let _ = std::fs::remove_dir_all(setup.cache.join("v2/index"));
    std::thread::sleep(SETTLE);

    // The first run with the index builds it (every file read), the second finds each
    // lock file up to date under settled stamps.
    let mut cold = Figures {
        ok: true,
        ..Figures::default()
    };
    for (n, label) in ["index built", "index learnt"].into_iter().enumerate() {
        match one(setup, &["-r", "."], false, &format!("changed-cold-{n}")) {
            Ok(measured) => {
                let problems = lock_problems(setup);
                if !(measured.success() && problems.is_empty()) {
                    outcome
                        .notes
                        .push(failure_note(label, &measured, &problems));
                    cold.ok = false;
                }
                if n == 0 {
                    cold.runs.push((measured.wall, measured.peak_rss));
                }
            }
            Err(message) => {
                outcome.notes.push(format!("{label}: {message}"));
                cold.ok = false;
            }
        }
    }

    let mut with = [(); 3].map(|_| Figures {
        ok: true,
        ..Figures::default()
    });
    let mut without = [(); 3].map(|_| Figures {
        ok: true,
        ..Figures::default()
    });
    for round in 0..setup.repeat {
        for (i, run) in Run::ALL.into_iter().enumerate() {
            for no_index in [false, true] {
                let args: Vec<&str> = match run {
                    Run::Whole => vec!["-r", "."],
                    Run::RootFile => {
                        append_comment(&setup.repo.join(&root_file), round, no_index);
                        vec![root_file.as_str()]
                    }
                    Run::ModuleFile => {
                        append_comment(&setup.repo.join(MODULE_FILE), round, no_index);
                        vec![MODULE_FILE]
                    }
                };
                let figures = if no_index {
                    &mut without[i]
                } else {
                    &mut with[i]
                };
                let logs = format!("changed-{round}-{i}-{}", u8::from(no_index));
                let label = format!("{} (no index: {no_index})", run.label(roots));
                match one(setup, &args, no_index, &logs) {
                    Ok(measured) => {
                        let problems = lock_problems(setup);
                        if !(measured.success() && problems.is_empty()) {
                            outcome
                                .notes
                                .push(failure_note(&label, &measured, &problems));
                            figures.ok = false;
                        }
                        figures.runs.push((measured.wall, measured.peak_rss));
                        figures.reported = reported_roots(&measured);
                    }
                    Err(message) => {
                        outcome.notes.push(format!("{label}: {message}"));
                        figures.ok = false;
                    }
                }
            }
        }
    }

    let row = |label: String, figures: &Figures| {
        let (wall, rss) = figures.median();
        Row {
            label,
            wall,
            peak_rss: rss,
            status: if figures.ok { "ok" } else { "failed" }.to_owned(),
            roots: format!("{} reported", figures.reported),
            ..Row::default()
        }
    };
    outcome.rows.push(Row {
        roots: format!("{roots} roots"),
        ..row(
            format!("{roots} roots: `lock -r .`, warm, building the index"),
            &cold,
        )
    });
    let medians = if setup.repeat > 1 {
        format!(" (median of {})", setup.repeat)
    } else {
        String::new()
    };
    for (i, run) in Run::ALL.into_iter().enumerate() {
        outcome.rows.push(row(
            format!("{}, index{medians}", run.label(roots)),
            &with[i],
        ));
        outcome.rows.push(row(
            format!("{}, --no-index{medians}", run.label(roots)),
            &without[i],
        ));
    }
    outcome.ok = cold.ok && with.iter().chain(&without).all(|f| f.ok);

    let wall = |f: &Figures| f.median().0;
    let [whole, root, module] = &with;
    let whole_before = wall(&without[0]);
    outcome.targets.push(Target {
        goal: "changed files: one root's file ≤ 0.1 s and ≤ half the warm whole run without the index",
        measured: match (wall(root), whole_before, wall(whole)) {
            (Some(r), Some(b), Some(w)) => format!(
                "{} (whole run without the index {}, with it {})",
                seconds(r),
                seconds(b),
                seconds(w)
            ),
            _ => "not measured".to_owned(),
        },
        met: match (wall(root), whole_before) {
            (Some(r), Some(b)) => Some(root.ok && r <= Duration::from_millis(100) && r * 2 <= b),
            _ => None,
        },
    });
    outcome.targets.push(Target {
        goal: "changed files: a module file a tenth of the roots call ≤ 0.2 s",
        measured: wall(module).map_or_else(
            || "not measured".to_owned(),
            |m| format!("{} ({} roots relocked)", seconds(m), module.reported),
        ),
        met: wall(module).map(|m| module.ok && m <= Duration::from_millis(200)),
    });
    outcome.targets.push(Target {
        goal: "changed files: the warm whole run with the index no slower than without",
        measured: match (wall(whole), whole_before) {
            (Some(w), Some(b)) => format!("{} (without: {})", seconds(w), seconds(b)),
            _ => "not measured".to_owned(),
        },
        met: match (wall(whole), whole_before) {
            (Some(w), Some(b)) => Some(whole.ok && w <= b),
            _ => None,
        },
    });
    // The run that builds the index reads every file, as a run without it does: its
    // figure is in its row.
    let peak = with.iter().filter_map(|f| f.median().1).max();
    outcome.targets.push(Target {
        goal: "changed files: peak RSS of the runs using the index ≤ 100 MB",
        measured: peak.map_or_else(
            || "not measured".to_owned(),
            |p| format!("{:.1} MB", p as f64 / 1e6),
        ),
        met: peak.map(|p| p <= 100_000_000),
    });
    outcome
}

/// `tfsum lock ARGS` in the repository's directory.
fn one(setup: &Setup<'_>, args: &[&str], no_index: bool, logs: &str) -> Result<Measured, String> {
    let mut all: Vec<OsString> = vec!["lock".into()];
    for platform in PLATFORMS {
        all.extend(["--platform".into(), (*platform).into()]);
    }
    all.extend(["--cache-dir".into(), setup.cache.into()]);
    if no_index {
        all.push("--no-index".into());
    }
    all.extend(setup.env.extra_args.iter().map(OsString::from));
    all.extend(args.iter().map(OsString::from));
    let job = measure::Job {
        program: setup.bin.to_owned(),
        args: all,
        env: vec![
            ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
            ("HOME".into(), setup.env.home.into()),
            ("TF_CLI_CONFIG_FILE".into(), setup.env.cli_config.into()),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
        ],
    };
    measure::run_in(&job, setup.repo, &setup.work.join(logs), setup.env.timeout)
        .map_err(|e| format!("could not run {}: {e}", setup.bin.display()))
}

/// A comment line at the end of `file`: an edit that moves no lock file.
fn append_comment(file: &Path, round: usize, no_index: bool) {
    use std::io::Write;
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .and_then(|mut f| writeln!(f, "# bench edit {round} {no_index}"));
    if let Err(e) = appended {
        eprintln!("changed-files scenario: editing {}: {e}", file.display());
    }
}

fn lock_problems(setup: &Setup<'_>) -> Vec<String> {
    check_locks(setup.repo, setup.monorepo, setup.monorepo.roots.iter()).problems
}

/// How many roots the run's report names (one line per root).
fn reported_roots(measured: &Measured) -> usize {
    measured
        .stdout
        .lines()
        .filter(|line| {
            line.split_whitespace()
                .next()
                .is_some_and(|word| ["unchanged", "updated", "created"].contains(&word))
        })
        .count()
}
