//! The Terragrunt Stacks scenario of `make bench` (issue 41): the live tree a team moving
//! to stacks has, locked cold and then warm, as a pre-commit hook or CI runs it.
//!
//! Two stacks and a plain unit. `live/prod` generates `app` (a git module at
//! `?ref=${values.version}`), a nested stack `net` (its own `vpc`, a `tfr://` module at
//! `?version=${values.version}`, and `app` again) and `edge` with
//! `no_dot_terragrunt_stack = true`; `live/dev` generates `app` and `vpc`; `live/plain` is
//! a unit of its own calling the git module. The units and the nested stack come from a
//! local catalog; modules from a git repository served by `git http-backend` and a fake
//! module registry. Seven lock files in all, each checked to hold its module's provider.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::measure::{self, Measured};
use crate::report::{seconds, Outcome, Row, Target};
use crate::support::fake_modules::FakeModuleRegistry;
use crate::support::fake_registry::FakeRegistry;
use crate::support::git_http::GitServer;

const PLATFORM: &str = "linux_amd64";
const LOCK_FILE: &str = ".terraform.lock.hcl";
/// Warm runs measured; the median is reported.
const WARM_RUNS: usize = 7;

/// Each generated or plain unit, and the provider its module requires.
const UNITS: [(&str, &str); 7] = [
    ("live/prod/.terragrunt-stack/app", "null"),
    (
        "live/prod/.terragrunt-stack/net/.terragrunt-stack/vpc",
        "random",
    ),
    (
        "live/prod/.terragrunt-stack/net/.terragrunt-stack/app",
        "null",
    ),
    ("live/prod/edge", "null"),
    ("live/dev/.terragrunt-stack/app", "null"),
    ("live/dev/.terragrunt-stack/vpc", "random"),
    ("live/plain", "null"),
];

struct World {
    providers: FakeRegistry,
    modules: FakeModuleRegistry,
    git: GitServer,
}

fn requires(providers_host: &str, name: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    {name} = {{\n      source  = \"{providers_host}/hashicorp/{name}\"\n      version = \">= 3.0\"\n    }}\n  }}\n}}\n"
    )
}

impl World {
    fn start() -> World {
        let providers = FakeRegistry::builder()
            .provider("hashicorp", "null")
            .version("3.2.1")
            .provider("hashicorp", "random")
            .version("3.6.0")
            .start();
        let modules = FakeModuleRegistry::builder()
            .module("bench", "vpc", "aws")
            .version("1.0.0")
            .file("main.tf", &requires(&providers.host(), "random"))
            .start();
        let git = GitServer::start();
        let repo = git.repo("modules");
        repo.write("app/main.tf", &requires(&providers.host(), "null"));
        repo.commit("modules");
        repo.tag("v1.0.0");
        World {
            providers,
            modules,
            git,
        }
    }

    fn files(&self) -> Vec<(String, String)> {
        let git = format!("git::{}//app", self.git.url("modules"));
        let tfr = format!("tfr://{}/bench/vpc/aws", self.modules.host());
        let app = |path: &str, extra: &str| {
            format!("unit \"app\" {{\n  source = \"../../catalog/units/app\"\n  path   = \"{path}\"\n  values = {{\n    version = \"v1.0.0\"\n  }}\n{extra}}}\n")
        };
        vec![
            (
                "catalog/units/app/terragrunt.hcl".into(),
                format!("terraform {{\n  source = \"{git}?ref=${{values.version}}\"\n}}\n"),
            ),
            (
                "catalog/units/vpc/terragrunt.hcl".into(),
                format!("terraform {{\n  source = \"{tfr}?version=${{values.version}}\"\n}}\n"),
            ),
            (
                "catalog/stacks/net/terragrunt.stack.hcl".into(),
                "unit \"vpc\" {\n  source = \"${get_repo_root()}/catalog/units/vpc\"\n  path   = \"vpc\"\n  values = {\n    version = values.vpc\n  }\n}\n\nunit \"app\" {\n  source = \"${get_repo_root()}/catalog/units/app\"\n  path   = \"app\"\n  values = {\n    version = \"v1.0.0\"\n  }\n}\n".into(),
            ),
            (
                "live/prod/terragrunt.stack.hcl".into(),
                format!(
                    "{}\nstack \"net\" {{\n  source = \"../../catalog/stacks/net\"\n  path   = \"net\"\n  values = {{\n    vpc = \"1.0.0\"\n  }}\n}}\n\n{}",
                    app("app", ""),
                    app("edge", "  no_dot_terragrunt_stack = true\n").replace("unit \"app\"", "unit \"edge\"")
                ),
            ),
            (
                "live/dev/terragrunt.stack.hcl".into(),
                format!(
                    "{}\nunit \"vpc\" {{\n  source = \"../../catalog/units/vpc\"\n  path   = \"vpc\"\n  values = {{\n    version = \"1.0.0\"\n  }}\n}}\n",
                    app("app", "")
                ),
            ),
            (
                "live/plain/terragrunt.hcl".into(),
                format!("terraform {{\n  source = \"{git}?ref=v1.0.0\"\n}}\n"),
            ),
        ]
    }
}

/// `tfsum lock -r TARGET` in `repo`, for `linux_amd64`, with the cache, home and CLI
/// configuration (`cli.tfrc`) under `base`.
pub fn run_tfsum(
    bin: &Path,
    base: &Path,
    repo: &Path,
    target: &str,
    logs: &Path,
    timeout: Duration,
) -> Result<Measured, String> {
    let args: Vec<OsString> = vec![
        "lock".into(),
        "-r".into(),
        "--platform".into(),
        PLATFORM.into(),
        "--cache-dir".into(),
        base.join("cache").into(),
        target.into(),
    ];
    let env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
        ("HOME".into(), base.join("home").into()),
        ("TF_CLI_CONFIG_FILE".into(), base.join("cli.tfrc").into()),
        ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
    ];
    let job = measure::Job {
        program: bin.to_owned(),
        args,
        env,
    };
    measure::run_in(&job, repo, logs, timeout)
        .map_err(|e| format!("could not run {}: {e}", bin.display()))
}

/// The units whose lock file is missing or lacks its module's provider.
fn wrong_units(repo: &Path) -> Vec<String> {
    UNITS
        .iter()
        .filter(|(unit, provider)| {
            let lock = std::fs::read_to_string(repo.join(unit).join(LOCK_FILE)).unwrap_or_default();
            !lock.contains(&format!("/hashicorp/{provider}\""))
        })
        .map(|(unit, _)| unit.to_string())
        .collect()
}

pub fn run(bin: &Path, work: &Path, timeout: Duration) -> Outcome {
    let mut outcome = Outcome::passing();
    let world = World::start();
    let base = work.join("stacks");
    let repo = base.join("repo");
    let setup = || -> std::io::Result<()> {
        std::fs::create_dir_all(base.join("home"))?;
        std::fs::create_dir_all(repo.join(".git"))?;
        std::fs::write(
            base.join("cli.tfrc"),
            format!(
                "{}{}",
                world.providers.cli_config(),
                world.modules.cli_config()
            ),
        )?;
        for (rel, text) in world.files() {
            let path = repo.join(rel);
            std::fs::create_dir_all(path.parent().unwrap_or(&repo))?;
            std::fs::write(path, text)?;
        }
        Ok(())
    };
    if let Err(e) = setup() {
        outcome.notes.push(format!("stacks: setup failed: {e}"));
        outcome.ok = false;
        return outcome;
    }
    let runs = cold_then_warm(
        &mut outcome,
        "stacks",
        UNITS.len(),
        |index| {
            let logs = base.join(format!("tfsum-{index}"));
            run_tfsum(bin, &base, &repo, "live", &logs, timeout)
        },
        || wrong_units(&repo),
    );
    let Some(warm) = runs else {
        return outcome;
    };
    let median = Some(warm);
    outcome.targets = vec![Target {
        goal: "stacks: warm run well under 0.1 s",
        measured: median.map_or_else(|| "-".to_owned(), seconds),
        met: median.map(|wall| wall < Duration::from_millis(100)),
    }];
    outcome.notes.push(format!(
        "stacks: two stacks (one nested, one no_dot unit) and a plain unit from a local catalog, git and tfr:// modules, {} lock files; platform {PLATFORM}",
        UNITS.len()
    ));
    outcome
}

/// One cold run and [`WARM_RUNS`] warm runs of a scenario whose `expected` lock files
/// `wrong` checks after each run: a row for the cold run and one for the warm median
/// (`tfsum cold, NAME`, `tfsum warm, NAME (median of 7)`), and the median; `None` when a
/// run could not even start (the note says why).
pub fn cold_then_warm(
    outcome: &mut Outcome,
    name: &str,
    expected: usize,
    mut run: impl FnMut(usize) -> Result<Measured, String>,
    wrong: impl Fn() -> Vec<String>,
) -> Option<Duration> {
    let mut warm: Vec<Duration> = Vec::new();
    for index in 0..=WARM_RUNS {
        let label = if index == 0 {
            format!("tfsum cold, {name}")
        } else {
            format!("tfsum warm, {name}")
        };
        let measured = match run(index) {
            Ok(measured) => measured,
            Err(message) => {
                outcome.notes.push(format!("{label}: {message}"));
                outcome.ok = false;
                return None;
            }
        };
        let wrong = wrong();
        if !measured.success() || !wrong.is_empty() {
            outcome.ok = false;
            outcome.notes.push(format!(
                "{label}: {}; wrong or missing lock files: {wrong:?}; {}",
                measured.status(),
                measured.tail(8)
            ));
        }
        let roots = format!("{}/{expected} right", expected - wrong.len().min(expected));
        if index == 0 {
            outcome.rows.push(Row {
                label,
                wall: Some(measured.wall),
                peak_rss: Some(measured.peak_rss),
                status: measured.status(),
                roots,
                ..Row::default()
            });
        } else {
            warm.push(measured.wall);
            if index == WARM_RUNS {
                warm.sort();
                outcome.rows.push(Row {
                    label: format!("{label} (median of {WARM_RUNS})"),
                    wall: Some(warm[warm.len() / 2]),
                    peak_rss: Some(measured.peak_rss),
                    status: measured.status(),
                    roots,
                    ..Row::default()
                });
            }
        }
    }
    warm.get(warm.len() / 2).copied()
}
