//! The remote-module scenario of `make bench`: roots that call registry and git modules
//! (which call each other), locked by tfsum from an empty and from a warm cache, and by
//! Terraform v1.0.3 with `init -backend=false` per root, as users without tfsum do.
//!
//! Twenty modules: `m00`…`m11` on a fake module registry (versions 1.0.0 and 1.1.0; 1.1.0
//! declares one provider more) and `m12`…`m19` as subdirectories of one git repository
//! served by `git http-backend` (tag `v1.0.0`). Module `i` calls modules with a higher
//! index only, so the graph is acyclic: registry modules by `~> 1.0`, git modules by
//! `?ref=v1.0.0`, and a git module calls its neighbours in the repository as `../mNN`.
//! Root `r` calls 2–4 modules; half the roots pin registry modules to `1.0.0`. Providers
//! are tiny: here the work is module resolution and fetching, not provider downloads.
//!
//! Every root's lock file is checked to exist; the roots Terraform locks are compared
//! byte for byte with tfsum's.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::measure::{self, Measured};
use crate::report::{seconds, Outcome, Row, Target};
use crate::support::fake_modules::{FakeModuleRegistry, SELF_PLACEHOLDER};
use crate::support::fake_registry::FakeRegistry;
use crate::support::git_http::GitServer;
use crate::support::terraform;

const MODULES: usize = 20;
/// Modules below this index are registry modules; the rest live in the git repository.
const REGISTRY_MODULES: usize = 12;
const PROVIDER_TYPES: [&str; 5] = ["null", "random", "tls", "local", "time"];
const GIT_TAG: &str = "v1.0.0";
const LOCK_FILE: &str = ".terraform.lock.hcl";
/// Terraform's `init` records `h1:` for the machine it runs on only.
const PLATFORM: &str = "linux_amd64";

/// The modules module `i` calls.
fn callees(i: usize) -> Vec<usize> {
    let mut out: Vec<usize> = [(i * 7 + 5) % MODULES, i + 1, i + 3]
        .into_iter()
        .filter(|&j| j > i && j < MODULES)
        .collect();
    out.truncate(if i.is_multiple_of(2) { 2 } else { 1 });
    out.sort_unstable();
    out.dedup();
    out
}

/// The modules root `r` calls, and whether it pins registry modules to 1.0.0.
fn root_calls(r: usize) -> (Vec<usize>, bool) {
    let count = 2 + r % 3;
    let calls = (0..count).map(|k| (r * 3 + k * 7) % MODULES).collect();
    (calls, r.is_multiple_of(2))
}

/// The providers module `i` declares at `version`.
fn module_providers(i: usize, version: &str) -> Vec<&'static str> {
    let mut out = vec![PROVIDER_TYPES[i % PROVIDER_TYPES.len()]];
    if version == "1.1.0" {
        out.push(PROVIDER_TYPES[(i + 2) % PROVIDER_TYPES.len()]);
    }
    out.dedup();
    out
}

struct World {
    providers: FakeRegistry,
    modules: FakeModuleRegistry,
    git: GitServer,
}

impl World {
    fn start() -> World {
        let mut providers = FakeRegistry::builder();
        for type_ in PROVIDER_TYPES {
            providers = providers
                .provider("hashicorp", type_)
                .version("1.0.0")
                .version("2.0.0");
        }
        let providers = providers.start();
        let git = GitServer::start();
        // Module files name the fakes' hosts, so the module registry is built after
        // the git server and provider registry are up; its own host goes in `{{MODULES}}`.
        let mut builder = FakeModuleRegistry::builder();
        for i in 0..REGISTRY_MODULES {
            builder = builder.module("bench", &format!("m{i:02}"), "aws");
            for version in ["1.0.0", "1.1.0"] {
                builder = builder.version(version).file(
                    "main.tf",
                    &module_text(i, version, &providers.host(), SELF_PLACEHOLDER, &git),
                );
            }
        }
        let modules = builder.start();
        let repo = git.repo("modules");
        for i in REGISTRY_MODULES..MODULES {
            let text = module_text(i, "1.0.0", &providers.host(), &modules.host(), &git);
            repo.write(&format!("m{i:02}/main.tf"), &text);
        }
        repo.commit("modules");
        repo.tag(GIT_TAG);
        World {
            providers,
            modules,
            git,
        }
    }

    fn cli_config(&self) -> String {
        format!(
            "{}{}",
            self.providers.cli_config(),
            self.modules.cli_config()
        )
    }

    /// Writes the roots under `repo`.
    fn write_roots(&self, repo: &Path, roots: usize) -> std::io::Result<Vec<PathBuf>> {
        let mut dirs = Vec::new();
        for r in 0..roots {
            let dir = repo.join(format!("roots/r{r:03}"));
            std::fs::create_dir_all(&dir)?;
            let (calls, pinned) = root_calls(r);
            let mut text = String::new();
            for i in calls {
                let version = if pinned { "1.0.0" } else { "~> 1.0" };
                text += &format!(
                    "module \"m{i:02}\" {{\n{}}}\n\n",
                    call(i, version, &self.modules.host(), &self.git)
                );
            }
            std::fs::write(dir.join("main.tf"), text)?;
            dirs.push(dir);
        }
        Ok(dirs)
    }
}

/// The body of a `module` block calling module `i`, from outside the git repository.
fn call(i: usize, version: &str, modules_host: &str, git: &GitServer) -> String {
    if i < REGISTRY_MODULES {
        format!("  source  = \"{modules_host}/bench/m{i:02}/aws\"\n  version = \"{version}\"\n")
    } else {
        format!(
            "  source = \"git::{}//m{i:02}?ref={GIT_TAG}\"\n",
            git.url("modules")
        )
    }
}

/// Module `i`'s `main.tf` at `version`.
fn module_text(
    i: usize,
    version: &str,
    providers_host: &str,
    modules_host: &str,
    git: &GitServer,
) -> String {
    let mut text = String::from("terraform {\n  required_providers {\n");
    for type_ in module_providers(i, version) {
        text += &format!(
            "    {type_} = {{\n      source  = \"{providers_host}/hashicorp/{type_}\"\n      version = \">= 1.0\"\n    }}\n"
        );
    }
    text += "  }\n}\n";
    for j in callees(i) {
        let body = if i >= REGISTRY_MODULES && j >= REGISTRY_MODULES {
            format!("  source = \"../m{j:02}\"\n")
        } else {
            call(j, "~> 1.0", modules_host, git)
        };
        text += &format!("\nmodule \"m{j:02}\" {{\n{body}}}\n");
    }
    text
}

/// The packages a correct tool fetches: each registry (module, version) reached from
/// some root, plus the one git commit.
fn unique_packages(roots: usize) -> usize {
    let mut reached: BTreeSet<(usize, &str)> = BTreeSet::new();
    let mut stack: Vec<(usize, &str)> = Vec::new();
    for r in 0..roots {
        let (calls, pinned) = root_calls(r);
        for i in calls {
            stack.push((i, if pinned { "1.0.0" } else { "1.1.0" }));
        }
    }
    while let Some((i, version)) = stack.pop() {
        let version = if i < REGISTRY_MODULES {
            version
        } else {
            GIT_TAG
        };
        if reached.insert((i, version)) {
            stack.extend(callees(i).into_iter().map(|j| (j, "1.1.0")));
        }
    }
    let registry = reached
        .iter()
        .filter(|(i, _)| *i < REGISTRY_MODULES)
        .count();
    let git = usize::from(reached.iter().any(|(i, _)| *i >= REGISTRY_MODULES));
    registry + git
}

/// `tfsum lock -r --format=json` over `repo` with `cache`; the run and its JSON stats.
pub fn run_tfsum(
    bin: &Path,
    home: &Path,
    cli_config: &Path,
    cache: &Path,
    repo: &Path,
    logs: &Path,
    timeout: Duration,
) -> Result<(Measured, serde_json::Value), String> {
    let args: Vec<OsString> = vec![
        "lock".into(),
        "-r".into(),
        "--format=json".into(),
        "--platform".into(),
        PLATFORM.into(),
        "--cache-dir".into(),
        cache.into(),
        repo.into(),
    ];
    let env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
        ("HOME".into(), home.into()),
        ("TF_CLI_CONFIG_FILE".into(), cli_config.into()),
        ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
    ];
    let job = measure::Job {
        program: bin.to_owned(),
        args,
        env,
    };
    let measured = measure::run(&job, logs, timeout)
        .map_err(|e| format!("could not run {}: {e}", bin.display()))?;
    let stats = serde_json::from_str::<serde_json::Value>(&measured.stdout)
        .map(|report| report["stats"].clone())
        .unwrap_or(serde_json::Value::Null);
    Ok((measured, stats))
}

fn stat(stats: &serde_json::Value, name: &str) -> u64 {
    stats[name].as_u64().unwrap_or(0)
}

/// Runs the scenario with `roots` roots, Terraform on `tf_roots` of them.
pub fn run(bin: &Path, roots: usize, tf_roots: usize, work: &Path, timeout: Duration) -> Outcome {
    let mut outcome = Outcome::passing();
    let world = World::start();
    let base = work.join("remote");
    let (tfsum_repo, terraform_repo) = (base.join("repo-tfsum"), base.join("repo-terraform"));
    let cli_config = base.join("cli.tfrc");
    let home = base.join("home");
    let setup = std::fs::create_dir_all(&home)
        .and_then(|()| std::fs::write(&cli_config, world.cli_config()))
        .and_then(|()| world.write_roots(&tfsum_repo, roots))
        .and_then(|dirs| world.write_roots(&terraform_repo, roots).map(|_| dirs));
    let dirs = match setup {
        Ok(dirs) => dirs,
        Err(e) => {
            outcome
                .notes
                .push(format!("remote modules: setup failed: {e}"));
            outcome.ok = false;
            return outcome;
        }
    };
    let unique = unique_packages(roots);
    let cache = base.join("cache");
    let mut cold = None;
    let mut warm = None;
    for (index, label) in ["tfsum cold, remote modules", "tfsum warm, remote modules"]
        .into_iter()
        .enumerate()
    {
        let logs = base.join(format!("tfsum-{index}"));
        let run = run_tfsum(bin, &home, &cli_config, &cache, &tfsum_repo, &logs, timeout);
        let (measured, stats) = match run {
            Ok(run) => run,
            Err(message) => {
                outcome.notes.push(format!("{label}: {message}"));
                outcome.ok = false;
                continue;
            }
        };
        let written = dirs.iter().filter(|d| d.join(LOCK_FILE).is_file()).count();
        let fetched = stat(&stats, "modules_fetched");
        let from_cache = stat(&stats, "modules_from_cache");
        outcome.rows.push(Row {
            label: label.to_owned(),
            wall: Some(measured.wall),
            peak_rss: Some(measured.peak_rss),
            status: format!(
                "{}; modules: {fetched} fetched, {from_cache} from cache",
                measured.status()
            ),
            roots: format!("{written}/{roots} written"),
            ..Row::default()
        });
        if !measured.success() || written != roots {
            outcome.ok = false;
            outcome.notes.push(format!(
                "{label}: {}; {}",
                measured.status(),
                measured.tail(8)
            ));
        }
        let figures = (measured.wall, fetched);
        if index == 0 {
            cold = Some(figures);
        } else {
            warm = Some(figures);
        }
    }

    let terraform = terraform_runs(&terraform_repo, &tfsum_repo, &cli_config, roots, tf_roots);
    match &terraform {
        Ok((per_root, compared, differing)) => {
            outcome.rows.push(Row {
                label: format!("terraform init per root (×{roots}, from {compared})"),
                wall: Some(per_root.mul_f64(roots as f64)),
                status: "ok".to_owned(),
                roots: format!(
                    "{}/{compared} identical to tfsum",
                    compared - differing.len()
                ),
                ..Row::default()
            });
            if !differing.is_empty() {
                outcome.ok = false;
                outcome.notes.push(format!(
                    "remote modules: lock files differ from Terraform's in {}",
                    differing.join(", ")
                ));
            }
        }
        Err(message) => outcome.notes.push(format!("remote modules: {message}")),
    }

    outcome.targets = vec![
        Target {
            goal: "remote modules: fetches = unique module versions",
            measured: match cold {
                Some((_, fetched)) => format!("{fetched} fetched, {unique} unique"),
                None => "-".to_owned(),
            },
            met: cold.map(|(_, fetched)| fetched == unique as u64),
        },
        Target {
            goal: "remote modules: cold ≥ 20× faster than Terraform per root",
            measured: match (&cold, &terraform) {
                (Some((wall, _)), Ok((per_root, ..))) => format!(
                    "{:.0}× ({} vs {})",
                    per_root.mul_f64(roots as f64).as_secs_f64() / wall.as_secs_f64(),
                    seconds(*wall),
                    seconds(per_root.mul_f64(roots as f64))
                ),
                _ => "-".to_owned(),
            },
            met: match (&cold, &terraform) {
                (Some((wall, _)), Ok((per_root, ..))) => {
                    Some(per_root.mul_f64(roots as f64) >= *wall * 20)
                }
                _ => None,
            },
        },
        Target {
            goal: "remote modules: warm ≤ 0.5 s, zero module fetches",
            measured: match warm {
                Some((wall, fetched)) => format!("{}, {fetched} fetched", seconds(wall)),
                None => "-".to_owned(),
            },
            met: warm.map(|(wall, fetched)| wall <= Duration::from_millis(500) && fetched == 0),
        },
    ];
    outcome.notes.push(format!(
        "remote modules: {roots} roots calling 2–4 of {MODULES} modules ({REGISTRY_MODULES} registry × 2 versions, {} in one git repository), {unique} unique packages; platform {PLATFORM}",
        MODULES - REGISTRY_MODULES
    ));
    outcome
}

/// `terraform init -backend=false` in `tf_roots` roots spread over the repository; the
/// mean wall time per root, how many were compared with tfsum's lock, which differ.
fn terraform_runs(
    repo: &Path,
    tfsum_repo: &Path,
    cli_config: &Path,
    roots: usize,
    tf_roots: usize,
) -> Result<(Duration, usize, Vec<String>), String> {
    if tf_roots == 0 {
        return Err("Terraform runs skipped (TFSUM_BENCH_TF_ROOTS=0)".to_owned());
    }
    if std::panic::catch_unwind(terraform::binary).is_err() {
        return Err("Terraform runs skipped: no Terraform v1.0.3".to_owned());
    }
    let picked: Vec<usize> = (0..tf_roots.min(roots))
        .map(|k| k * roots / tf_roots.min(roots))
        .collect();
    let mut total = Duration::ZERO;
    let mut differing = Vec::new();
    for &r in &picked {
        let rel = format!("roots/r{r:03}");
        let started = Instant::now();
        let init = terraform::init_backend_false(&repo.join(&rel), cli_config);
        total += started.elapsed();
        if !init.status.success() {
            return Err(format!(
                "terraform init in {rel} failed: {}",
                terraform::combined_output(&init).trim()
            ));
        }
        let theirs = std::fs::read_to_string(repo.join(&rel).join(LOCK_FILE));
        let ours = std::fs::read_to_string(tfsum_repo.join(&rel).join(LOCK_FILE));
        match (theirs, ours) {
            (Ok(theirs), Ok(ours)) if theirs == ours => {}
            _ => differing.push(rel),
        }
    }
    Ok((total / picked.len() as u32, picked.len(), differing))
}
