//! `make bench`: how fast `tfsum lock` locks a large synthetic monorepo, with an empty and
//! with a full hash cache, compared with Terraform v1.0.3 run per root as users do today.
//!
//! The parts:
//!
//! - [`monorepo`] generates the repository (roots in `envs/<env>/<region>/<service>/`
//!   sharing `modules/`) and knows which provider versions each root must lock;
//! - the fake registry (`tests/support/fake_registry.rs`) serves those providers over
//!   loopback, with packages of realistic relative sizes and a per-connection bandwidth
//!   limit standing in for the network;
//! - [`measure`] runs a process and records its wall time, exit status and peak RSS;
//! - [`traffic`] reads the registry's request log: requests, zips, zip bytes;
//! - [`remote`] is a second repository whose roots call registry and git modules;
//! - [`upgrade`] runs `tfsum outdated` and `tfsum upgrade provider aws latest -r` on the
//!   locked monorepo, and tfupdate's `provider` + `lock` on the same tree when it has one;
//! - [`fan_out`] locks one root calling one registry module at 1,000, 3,000 and 10,000
//!   distinct versions (CPU time per call should stay flat);
//! - [`shared`] runs ten cold CI runners one after another against one shared cache on
//!   an S3-compatible server;
//! - [`mirror`] fills a provider directory with `tfsum mirror` and runs parallel
//!   `terraform init` from it, against a cold shared plugin cache;
//! - [`report`] prints the figures and the issue's targets.
//!
//! It reports and does not judge: the exit status is non-zero only when a run fails
//! outright (a tool exits non-zero, times out, or leaves a root without the right lock
//! file). Knobs, all optional environment variables:
//!
//! | variable                 | default | meaning                                              |
//! |--------------------------|---------|------------------------------------------------------|
//! | `TFSUM_BENCH_SCALE`      | 0.25    | package sizes relative to real ones (aws = 60 MB × scale) |
//! | `TFSUM_BENCH_ROOTS`      | 300     | root modules in the generated repository             |
//! | `TFSUM_BENCH_BANDWIDTH`  | 50000000| bytes/s per connection; 0 = unlimited                |
//! | `TFSUM_BENCH_TF_ROOTS`   | 10      | roots Terraform locks (then scaled); 0 = skip        |
//! | `TFSUM_BENCH_BIG_MB`     | 200     | zip size of the big-package run, MB; 0 = skip        |
//! | `TFSUM_BENCH_MODULE_ROOTS` | 300   | roots of the remote-module scenario; 0 = skip        |
//! | `TFSUM_BENCH_UPGRADE`    | 1       | `0`: skip the upgrade scenario                       |
//! | `TFSUM_BENCH_FAN_OUT`    | 1000,3000,10000 | calls of the fan-out scenario runs; empty = skip |
//! | `TFUPDATE`               | `../shared/bin/tfupdate` | tfupdate 0.10.2 for the upgrade comparison; skipped when absent |
//! | `TFSUM_BENCH_SHARED_RUNNERS` | 10  | CI runners sharing one S3 cache (moto); 0 = skip     |
//! | `TFSUM_BENCH_MIRROR`     | 1       | `0`: skip the mirror scenario                        |
//! | `TFSUM_BENCH_STACKS`     | 1       | `0`: skip the Terragrunt Stacks scenario             |
//! | `TFSUM_BENCH_TF_STACKS`  | 1       | `0`: skip the Terraform Stacks scenario              |
//! | `TFSUM_BENCH_INIT_ROOTS` | 60      | roots of its parallel `terraform init`; 0 = skip     |
//! | `TFSUM_BENCH_INIT_PARALLEL` | 16   | `terraform init`s at once                            |
//! | `TFSUM_BENCH_LARGE_ROOTS` | 3000   | roots of the large-repository scenario; 0 = skip     |
//! | `TFSUM_BENCH_REPEAT`     | 3       | times the large scenario runs (medians reported)     |
//! | `TFSUM_BENCH_CHANGED`    | 1       | `0`: skip the changed-files runs on the large repository |
//! | `TFSUM_BENCH_TIMEOUT`    | 900     | seconds before a tfsum run is killed                 |
//! | `TFSUM_BENCH_ARGS`       |         | extra arguments for `tfsum lock` (split on spaces)   |
//! | `TFSUM_BENCH_KEEP`       |         | `1`: keep the work directory and print its path      |
//! | `TFSUM_BIN`              |         | the tfsum binary; default: `cargo build --release`   |
//! | `TFSUM_TERRAFORM`        |         | the Terraform binary (see `tests/support/terraform.rs`) |

// The benchmark uses part of the tests' support; the `it` binary checks it all is used.
#[path = "../tests/support/mod.rs"]
#[allow(dead_code)]
mod support;

#[path = "lock/changed.rs"]
mod changed;
#[path = "lock/fan_out.rs"]
mod fan_out;
#[path = "lock/measure.rs"]
mod measure;
#[path = "lock/mirror.rs"]
mod mirror;
#[path = "lock/monorepo.rs"]
mod monorepo;
#[path = "lock/remote.rs"]
mod remote;
#[path = "lock/report.rs"]
mod report;
#[path = "lock/shared.rs"]
mod shared;
#[path = "lock/stacks.rs"]
mod stacks;
#[path = "lock/tf_stacks.rs"]
mod tf_stacks;
#[path = "lock/traffic.rs"]
mod traffic;
#[path = "lock/upgrade.rs"]
mod upgrade;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::str::FromStr;
use std::time::{Duration, Instant};

use measure::Measured;
use monorepo::{Monorepo, Root, PLATFORMS, PROVIDERS};
use report::{bytes, seconds, Outcome, Row, Target};
use support::fake_registry::{FakeRegistry, RegistryHandle};
use traffic::Traffic;

/// How much the fake's generated payloads shrink when deflated (measured: 0.54), used to
/// ask for a payload that gives a zip of the wanted size. Reports use the real zip sizes.
const DEFLATE_RATIO: f64 = 0.54;

const LOCK_FILE: &str = ".terraform.lock.hcl";

fn main() -> ExitCode {
    if let Some(code) = measure::helper_main() {
        return code;
    }
    // `cargo test --all-targets` builds and runs benches without `--bench`: compiling
    // it is the check there; the benchmark itself runs only under `cargo bench`.
    if !std::env::args().any(|a| a == "--bench") {
        println!("bench lock: skipped (run `make bench` or `cargo bench --bench lock`)");
        return ExitCode::SUCCESS;
    }
    match bench() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("bench: error: {message}");
            ExitCode::from(2)
        }
    }
}

struct Knobs {
    scale: f64,
    roots: usize,
    bandwidth: Option<u64>,
    tf_roots: usize,
    big_mb: u64,
    module_roots: usize,
    fan_out: Vec<usize>,
    upgrade: bool,
    shared_runners: usize,
    mirror: bool,
    stacks: bool,
    tf_stacks: bool,
    changed: bool,
    init_roots: usize,
    init_parallel: usize,
    large_roots: usize,
    repeat: usize,
    timeout: Duration,
    extra_args: Vec<String>,
    keep: bool,
    tfsum_bin: Option<PathBuf>,
}

impl Knobs {
    fn from_env() -> Result<Self, String> {
        let bandwidth: u64 = knob("TFSUM_BENCH_BANDWIDTH", 50_000_000)?;
        let knobs = Knobs {
            scale: knob("TFSUM_BENCH_SCALE", 0.25)?,
            roots: knob("TFSUM_BENCH_ROOTS", 300)?,
            bandwidth: (bandwidth > 0).then_some(bandwidth),
            tf_roots: knob("TFSUM_BENCH_TF_ROOTS", 10)?,
            big_mb: knob("TFSUM_BENCH_BIG_MB", 200)?,
            module_roots: knob("TFSUM_BENCH_MODULE_ROOTS", 300)?,
            fan_out: fan_out_knob()?,
            upgrade: knob::<u8>("TFSUM_BENCH_UPGRADE", 1)? != 0,
            shared_runners: knob("TFSUM_BENCH_SHARED_RUNNERS", 10)?,
            mirror: knob::<u8>("TFSUM_BENCH_MIRROR", 1)? != 0,
            stacks: knob::<u8>("TFSUM_BENCH_STACKS", 1)? != 0,
            tf_stacks: knob::<u8>("TFSUM_BENCH_TF_STACKS", 1)? != 0,
            changed: knob::<u8>("TFSUM_BENCH_CHANGED", 1)? != 0,
            init_roots: knob("TFSUM_BENCH_INIT_ROOTS", 60)?,
            init_parallel: knob::<usize>("TFSUM_BENCH_INIT_PARALLEL", 16)?.max(1),
            large_roots: knob("TFSUM_BENCH_LARGE_ROOTS", 3000)?,
            repeat: knob::<usize>("TFSUM_BENCH_REPEAT", 3)?.max(1),
            timeout: Duration::from_secs(knob("TFSUM_BENCH_TIMEOUT", 900)?),
            extra_args: std::env::var("TFSUM_BENCH_ARGS")
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            keep: std::env::var("TFSUM_BENCH_KEEP").is_ok_and(|v| v == "1"),
            tfsum_bin: std::env::var_os("TFSUM_BIN").map(PathBuf::from),
        };
        if !(knobs.scale > 0.0 && knobs.scale.is_finite()) {
            return Err(format!(
                "TFSUM_BENCH_SCALE must be positive, not {}",
                knobs.scale
            ));
        }
        if knobs.roots == 0 {
            return Err("TFSUM_BENCH_ROOTS must be at least 1".to_owned());
        }
        Ok(knobs)
    }
}

/// `TFSUM_BENCH_FAN_OUT`: comma-separated call counts.
fn fan_out_knob() -> Result<Vec<usize>, String> {
    let text = std::env::var("TFSUM_BENCH_FAN_OUT").unwrap_or_else(|_| "1000,3000,10000".into());
    text.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| {
            n.parse()
                .map_err(|_| format!("TFSUM_BENCH_FAN_OUT={text:?} is not a list of counts"))
        })
        .collect()
}

fn knob<T: FromStr>(name: &str, default: T) -> Result<T, String> {
    match std::env::var(name) {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse()
            .map_err(|_| format!("{name}={text:?} is not a valid value")),
        _ => Ok(default),
    }
}

/// Progress goes to stderr; stdout carries only the report.
macro_rules! progress {
    ($($arg:tt)*) => { eprintln!("bench: {}", format_args!($($arg)*)) };
}

/// Everything the report needs.
#[derive(Default)]
struct Results {
    rows: Vec<Row>,
    notes: Vec<String>,
    /// Wall time, traffic and whether the run succeeded with every lock file right.
    cold: Option<(Duration, Traffic, bool)>,
    warm: Vec<(&'static str, Duration, Traffic, bool)>,
    terraform_scaled: Option<(Duration, u64)>,
    /// Zip size, peak RSS, success.
    big: Option<(u64, u64, bool)>,
    /// Median wall time, median peak RSS and success of the large scenario's cold,
    /// warm-with-locks and warm-creating-all runs.
    large: Vec<(Option<Duration>, Option<u64>, bool)>,
    all_ok: bool,
}

impl Results {
    /// Takes a scenario's rows, notes and success; gives back its targets, which the
    /// report lists after the main ones.
    fn absorb(&mut self, mut outcome: Outcome) -> Vec<Target> {
        self.rows.append(&mut outcome.rows);
        self.notes.append(&mut outcome.notes);
        self.all_ok &= outcome.ok;
        outcome.targets
    }
}

fn bench() -> Result<bool, String> {
    let knobs = Knobs::from_env()?;
    let work = tempfile::Builder::new()
        .prefix("tfsum-bench-")
        .tempdir()
        .map_err(|e| format!("creating a work directory: {e}"))?;
    let work_path = work.path().to_owned();
    // Dropping the TempDir removes the tree; `keep` turns it into a plain path.
    let (_work_guard, kept) = if knobs.keep {
        (None, Some(work.keep()))
    } else {
        (Some(work), None)
    };
    let mut results = Results {
        all_ok: true,
        ..Results::default()
    };

    let tfsum = tfsum_binary(&knobs);
    if let Err(message) = &tfsum {
        progress!("{message}; skipping the tfsum runs");
        results.notes.push(format!("tfsum runs skipped: {message}"));
        results.all_ok = false;
    }

    // The registry and the repository.
    let monorepo = Monorepo::new(knobs.roots);
    let needed = monorepo.needed();
    let large = (knobs.large_roots > 0).then(|| Monorepo::new(knobs.large_roots));
    // The registry serves what either repository needs; the reports count the first's.
    let mut served = needed.clone();
    if let Some(large) = &large {
        for (package, roots) in large.needed() {
            *served.entry(package).or_default() += roots;
        }
    }
    progress!(
        "building the fake registry: {} providers, {} needed packages × {} platforms at scale {}",
        PROVIDERS.len(),
        needed.len(),
        PLATFORMS.len(),
        knobs.scale
    );
    let started = Instant::now();
    let registry = start_registry(&served, knobs.scale);
    let registry_build = started.elapsed();
    registry.set_bandwidth(knobs.bandwidth);
    let unique_bytes: u64 = needed
        .keys()
        .flat_map(|(type_, version)| {
            PLATFORMS
                .iter()
                .map(|p| registry.zip("hashicorp", type_, version, p).len() as u64)
        })
        .sum();
    progress!(
        "registry ready in {}: {} unique zip bytes",
        seconds(registry_build),
        bytes(unique_bytes)
    );

    let cli_config = work_path.join("cli.tfrc");
    registry.write_cli_config(&cli_config);
    let home = work_path.join("home");
    let tfsum_repo = work_path.join("repo-tfsum");
    let terraform_repo = work_path.join("repo-terraform");
    let host = registry.host();
    for repo in [&tfsum_repo, &terraform_repo] {
        monorepo
            .write(repo, &host)
            .map_err(|e| format!("writing the repository under {}: {e}", repo.display()))?;
    }
    std::fs::create_dir_all(&home).map_err(|e| format!("creating {}: {e}", home.display()))?;
    let subset = subset(knobs.roots, knobs.tf_roots);

    let env = RunEnv {
        home: &home,
        cli_config: &cli_config,
        extra_args: &knobs.extra_args,
        timeout: knobs.timeout,
    };
    let mut tfsum_locks = BTreeMap::new();
    if let Ok(bin) = &tfsum {
        tfsum_runs(
            bin,
            &env,
            &registry,
            &monorepo,
            &tfsum_repo,
            &work_path,
            unique_bytes,
            &subset,
            &mut tfsum_locks,
            &mut results,
        );
    }

    let mut upgrade_targets = Vec::new();
    match (&tfsum, knobs.upgrade) {
        (_, false) => results
            .notes
            .push("upgrade scenario skipped (TFSUM_BENCH_UPGRADE=0)".to_owned()),
        (Ok(bin), true) => {
            progress!("running the upgrade scenario (outdated, upgrade aws latest, tfupdate)");
            let outcome = upgrade::run(&upgrade::Setup {
                bin,
                registry: &registry,
                monorepo: &monorepo,
                work: &work_path,
                home: &home,
                timeout: knobs.timeout,
            });
            upgrade_targets = results.absorb(outcome);
        }
        (Err(_), true) => {}
    }

    let mut shared_targets = Vec::new();
    match (&tfsum, knobs.shared_runners) {
        (_, 0) => results
            .notes
            .push("shared-cache runs skipped (TFSUM_BENCH_SHARED_RUNNERS=0)".to_owned()),
        (Ok(bin), runners) => {
            progress!("running the shared-cache scenario ({runners} runners)");
            let outcome = shared::run(&shared::Setup {
                bin,
                env: &env,
                registry: &registry,
                monorepo: &monorepo,
                work: &work_path,
                runners,
                unique_zips: needed.len() * PLATFORMS.len(),
            });
            shared_targets = results.absorb(outcome);
        }
        (Err(_), _) => {}
    }

    let mut mirror_targets = Vec::new();
    match (&tfsum, knobs.mirror) {
        (_, false) => results
            .notes
            .push("mirror scenario skipped (TFSUM_BENCH_MIRROR=0)".to_owned()),
        (Ok(bin), true) => {
            progress!("running the mirror scenario (fill, then parallel terraform init)");
            let outcome = mirror::run(&mirror::Setup {
                bin,
                env: &env,
                registry: &registry,
                monorepo: &monorepo,
                work: &work_path,
                locked: &tfsum_repo,
                bandwidth: knobs.bandwidth,
                init_roots: knobs.init_roots,
                init_parallel: knobs.init_parallel,
            });
            mirror_targets = results.absorb(outcome);
        }
        (Err(_), true) => {}
    }

    let mut changed_targets = Vec::new();
    match (&tfsum, &large) {
        (Ok(bin), Some(large)) => {
            progress!(
                "running the large-repository scenario ({} roots)",
                large.roots.len()
            );
            large_runs(
                bin,
                &env,
                &registry,
                large,
                &work_path,
                knobs.repeat,
                &mut results,
            );
            if knobs.changed {
                progress!("running the changed-files scenario on the large repository");
                let outcome = changed::run(&changed::Setup {
                    bin,
                    env: &env,
                    monorepo: large,
                    repo: &work_path.join("repo-large"),
                    cache: &work_path.join("cache-large"),
                    work: &work_path,
                    repeat: knobs.repeat,
                });
                changed_targets = results.absorb(outcome);
            } else {
                results
                    .notes
                    .push("changed-files runs skipped (TFSUM_BENCH_CHANGED=0)".to_owned());
            }
        }
        (_, None) => results
            .notes
            .push("large-repository runs skipped (TFSUM_BENCH_LARGE_ROOTS=0)".to_owned()),
        (Err(_), _) => {}
    }

    if subset.is_empty() {
        results
            .notes
            .push("Terraform runs skipped (TFSUM_BENCH_TF_ROOTS=0)".to_owned());
    } else {
        terraform_runs(
            &registry,
            &monorepo,
            &terraform_repo,
            &cli_config,
            &subset,
            &tfsum_locks,
            unique_bytes,
            &mut results,
        );
    }
    drop(registry);

    match (&tfsum, knobs.big_mb) {
        (_, 0) => results
            .notes
            .push("big-package run skipped (TFSUM_BENCH_BIG_MB=0)".to_owned()),
        (Ok(bin), megabytes) => big_package_run(bin, &env, &work_path, megabytes, &mut results),
        (Err(_), _) => {}
    }

    let mut remote_targets = Vec::new();
    match (&tfsum, knobs.module_roots) {
        (_, 0) => results
            .notes
            .push("remote-module run skipped (TFSUM_BENCH_MODULE_ROOTS=0)".to_owned()),
        (Ok(bin), roots) => {
            progress!("running the remote-module scenario ({roots} roots)");
            let outcome = remote::run(bin, roots, knobs.tf_roots, &work_path, knobs.timeout);
            remote_targets = results.absorb(outcome);
        }
        (Err(_), _) => {}
    }

    let mut stacks_targets = Vec::new();
    match (&tfsum, knobs.stacks) {
        (_, false) => results
            .notes
            .push("stacks scenario skipped (TFSUM_BENCH_STACKS=0)".to_owned()),
        (Ok(bin), true) => {
            progress!("running the Terragrunt Stacks scenario");
            let outcome = stacks::run(bin, &work_path, knobs.timeout);
            stacks_targets = results.absorb(outcome);
        }
        (Err(_), true) => {}
    }

    let mut tf_stacks_targets = Vec::new();
    match (&tfsum, knobs.tf_stacks) {
        (_, false) => results
            .notes
            .push("Terraform Stacks scenario skipped (TFSUM_BENCH_TF_STACKS=0)".to_owned()),
        (Ok(bin), true) => {
            progress!("running the Terraform Stacks scenario");
            let outcome = tf_stacks::run(bin, &work_path, knobs.timeout);
            tf_stacks_targets = results.absorb(outcome);
        }
        (Err(_), true) => {}
    }

    let mut fan_out_targets = Vec::new();
    match (&tfsum, knobs.fan_out.is_empty()) {
        (_, true) => results
            .notes
            .push("fan-out runs skipped (TFSUM_BENCH_FAN_OUT empty)".to_owned()),
        (Ok(bin), false) => {
            progress!("running the fan-out scenario ({:?} calls)", knobs.fan_out);
            let outcome = fan_out::run(bin, &knobs.fan_out, &work_path, knobs.timeout);
            fan_out_targets = results.absorb(outcome);
        }
        (Err(_), false) => {}
    }

    let mut packages_by_type: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for ((type_, version), roots) in &needed {
        packages_by_type
            .entry(type_)
            .or_default()
            .push(format!("{version} ({roots})"));
    }
    let mut notes = vec![
        format!(
            "repository: {} roots under envs/, {} shared modules; locked versions (roots): {}",
            knobs.roots,
            monorepo::module_count(),
            packages_by_type
                .iter()
                .map(|(t, v)| format!("{t} {}", v.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        format!(
            "packages: scale {} (aws {} per zip, 60 MB at scale 1.0), {} zips, {} unique; \
             the fake registry built them in {}",
            knobs.scale,
            bytes((monorepo::provider("aws").megabytes * knobs.scale * 1e6) as u64),
            needed.len() * PLATFORMS.len(),
            bytes(unique_bytes),
            seconds(registry_build)
        ),
        match knobs.bandwidth {
            Some(bps) => format!("bandwidth: {}/s per connection (per response)", bytes(bps)),
            None => "bandwidth: unlimited".to_owned(),
        },
    ];
    notes.append(&mut results.notes);
    if let Some(path) = &kept {
        notes.push(format!("work directory kept: {}", path.display()));
    }

    let title = format!(
        "tfsum lock benchmark: {} roots, {} providers, {} platforms ({})",
        knobs.roots,
        PROVIDERS.len(),
        PLATFORMS.len(),
        PLATFORMS.join(", ")
    );
    let mut targets = targets(&results, unique_bytes, knobs.roots);
    targets.append(&mut remote_targets);
    targets.append(&mut stacks_targets);
    targets.append(&mut tf_stacks_targets);
    targets.append(&mut fan_out_targets);
    targets.append(&mut upgrade_targets);
    targets.append(&mut shared_targets);
    targets.append(&mut mirror_targets);
    targets.append(&mut changed_targets);
    print!(
        "{}",
        report::render(&title, &results.rows, &targets, &notes)
    );
    Ok(results.all_ok)
}

/// The environment shared by every tfsum run.
struct RunEnv<'a> {
    home: &'a Path,
    cli_config: &'a Path,
    extra_args: &'a [String],
    timeout: Duration,
}

/// The tfsum binary: `TFSUM_BIN`, or the one `cargo build --release --bin tfsum` reports.
fn tfsum_binary(knobs: &Knobs) -> Result<PathBuf, String> {
    if let Some(path) = &knobs.tfsum_bin {
        return if path.is_file() {
            Ok(path.clone())
        } else {
            Err(format!("TFSUM_BIN={} is not a file", path.display()))
        };
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    progress!("building tfsum: cargo build --release --locked --bin tfsum");
    let mut command = Command::new(cargo);
    // `cargo bench` sets CARGO_PKG_NAME, CARGO_MANIFEST_DIR… for this process; build
    // scripts (ring's) rerun when those change, so passing them on would make this build
    // and the next `cargo bench` rebuild each other's dependencies every time.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if [
            "CARGO_PKG_",
            "CARGO_MANIFEST_",
            "CARGO_CRATE_",
            "CARGO_BIN_",
            "CARGO_PRIMARY_PACKAGE",
            "CARGO_TARGET_TMPDIR",
            "CARGO_RUSTC_CURRENT_DIR",
            "OUT_DIR",
        ]
        .iter()
        .any(|prefix| name.starts_with(prefix))
        {
            command.env_remove(name.as_ref());
        }
    }
    let output = command
        .args(["build", "--release", "--locked", "--bin", "tfsum"])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("running cargo build: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo build --bin tfsum failed ({})",
            output.status
        ));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["target"]["name"] == "tfsum")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo build did not report a tfsum executable".to_owned())
}

/// Every version of every provider, 4 platforms each; the versions some root needs get a
/// payload of their provider's scaled size, the rest (listed but never downloaded) stay
/// tiny so the registry starts quickly.
fn start_registry(needed: &BTreeMap<monorepo::Package, usize>, scale: f64) -> FakeRegistry {
    let mut builder = FakeRegistry::builder();
    for provider in PROVIDERS {
        builder = builder.provider("hashicorp", provider.type_);
        for version in provider.versions {
            builder = builder.version(version).platforms(PLATFORMS);
            if needed.contains_key(&(provider.type_, version.to_string())) {
                builder = builder.payload(payload_len(provider.megabytes * scale));
            }
        }
    }
    builder.start()
}

fn payload_len(zip_megabytes: f64) -> usize {
    ((zip_megabytes * 1e6 / DEFLATE_RATIO) as usize).max(1)
}

/// `count` roots spread over the repository so that services, regions and envs all vary.
fn subset(roots: usize, count: usize) -> Vec<usize> {
    if count == 0 {
        return Vec::new();
    }
    if count >= roots {
        return (0..roots).collect();
    }
    let stride = roots / count;
    let mut picked: Vec<usize> = (0..count).map(|i| i * stride + (i * 7) % stride).collect();
    picked.sort_unstable();
    picked.dedup();
    picked
}

#[allow(clippy::too_many_arguments)]
fn tfsum_runs(
    bin: &Path,
    env: &RunEnv<'_>,
    registry: &RegistryHandle,
    monorepo: &Monorepo,
    repo: &Path,
    work: &Path,
    unique_bytes: u64,
    subset: &[usize],
    locks: &mut BTreeMap<usize, String>,
    results: &mut Results,
) {
    let cache = work.join("cache");
    let runs: [(&'static str, bool); 3] = [
        ("tfsum cold (empty cache)", false),
        ("tfsum warm, locks present", false),
        ("tfsum warm, no lock files", true),
    ];
    for (index, (label, remove_locks)) in runs.into_iter().enumerate() {
        if remove_locks {
            for root in &monorepo.roots {
                let _ = std::fs::remove_file(repo.join(&root.dir).join(LOCK_FILE));
            }
        }
        registry.reset_counts();
        progress!("running {label}");
        let outcome = run_tfsum(
            bin,
            env,
            &cache,
            PLATFORMS,
            repo,
            &work.join(format!("tfsum-{index}")),
        );
        let traffic = traffic::tally(registry);
        let mut row = Row {
            label: label.to_owned(),
            zip_bytes: Some(traffic.zip_bytes),
            bytes_ratio: Some(traffic.zip_bytes as f64 / unique_bytes as f64),
            requests: Some(traffic.requests),
            zips: Some(traffic.zips),
            ..Row::default()
        };
        let measured = match outcome {
            Ok(measured) => measured,
            Err(message) => {
                row.status = "not run".to_owned();
                results.notes.push(format!("{label}: {message}"));
                results.rows.push(row);
                results.all_ok = false;
                continue;
            }
        };
        row.wall = Some(measured.wall);
        row.peak_rss = Some(measured.peak_rss);
        row.status = measured.status();
        let check = check_locks(repo, monorepo, monorepo.roots.iter());
        row.roots = check.summary(monorepo.roots.len());
        let succeeded = measured.success() && check.problems.is_empty();
        if !succeeded {
            results.all_ok = false;
            results
                .notes
                .push(failure_note(label, &measured, &check.problems));
        }
        if traffic.repeated_zips > 0 {
            results.notes.push(format!(
                "{label}: {} zip requests repeated a package already fetched in the same run",
                traffic.repeated_zips
            ));
        }
        if index == 0 {
            results.cold = Some((measured.wall, traffic, succeeded));
            for &i in subset {
                let path = repo.join(&monorepo.roots[i].dir).join(LOCK_FILE);
                if let Ok(text) = std::fs::read_to_string(path) {
                    locks.insert(i, text);
                }
            }
        } else {
            results
                .warm
                .push((label, measured.wall, traffic, succeeded));
        }
        results.rows.push(row);
    }
}

/// The three runs of [`tfsum_runs`] over a larger repository, `repeat` times (each time
/// from an empty cache and no lock files): one row per run with the median wall time and
/// the median peak RSS, and the targets of the issue that scaled tfsum to 3,000 roots.
fn large_runs(
    bin: &Path,
    env: &RunEnv<'_>,
    registry: &RegistryHandle,
    monorepo: &Monorepo,
    work: &Path,
    repeat: usize,
    results: &mut Results,
) {
    let repo = work.join("repo-large");
    let cache = work.join("cache-large");
    if let Err(e) = monorepo.write(&repo, &registry.host()) {
        results.notes.push(format!(
            "large-repository runs: writing {}: {e}",
            repo.display()
        ));
        results.all_ok = false;
        return;
    }
    let roots = monorepo.roots.len();
    let labels = [
        format!("{roots} roots: cold"),
        format!("{roots} roots: warm, locks present"),
        format!("{roots} roots: warm, no lock files"),
    ];
    // Per run: (wall, peak RSS) of each repetition, and whether all succeeded.
    let mut figures: [Vec<(Duration, u64)>; 3] = Default::default();
    let mut ok = [true; 3];
    for round in 0..repeat {
        let _ = std::fs::remove_dir_all(&cache);
        for (index, label) in labels.iter().enumerate() {
            if index != 1 {
                for root in &monorepo.roots {
                    let _ = std::fs::remove_file(repo.join(&root.dir).join(LOCK_FILE));
                }
            }
            let logs = work.join(format!("large-{round}-{index}"));
            let measured = match run_tfsum(bin, env, &cache, PLATFORMS, &repo, &logs) {
                Ok(measured) => measured,
                Err(message) => {
                    results.notes.push(format!("{label}: {message}"));
                    ok[index] = false;
                    continue;
                }
            };
            let check = check_locks(&repo, monorepo, monorepo.roots.iter());
            if !(measured.success() && check.problems.is_empty()) {
                results
                    .notes
                    .push(failure_note(label, &measured, &check.problems));
                ok[index] = false;
            }
            figures[index].push((measured.wall, measured.peak_rss));
        }
    }
    let median = |mut values: Vec<u64>| {
        values.sort_unstable();
        values.get(values.len() / 2).copied()
    };
    let mut medians = Vec::new();
    for (index, label) in labels.into_iter().enumerate() {
        let wall = median(
            figures[index]
                .iter()
                .map(|f| f.0.as_nanos() as u64)
                .collect(),
        )
        .map(Duration::from_nanos);
        let rss = median(figures[index].iter().map(|f| f.1).collect());
        let status = if ok[index] { "ok" } else { "failed" };
        results.rows.push(Row {
            label: if repeat > 1 {
                format!("{label} (median of {repeat})")
            } else {
                label
            },
            wall,
            peak_rss: rss,
            status: status.to_owned(),
            roots: format!("{roots} roots"),
            ..Row::default()
        });
        results.all_ok &= ok[index];
        medians.push((wall, rss, ok[index]));
    }
    results.large = medians;
}

fn run_tfsum(
    bin: &Path,
    env: &RunEnv<'_>,
    cache: &Path,
    platforms: &[&str],
    repo: &Path,
    logs: &Path,
) -> Result<Measured, String> {
    let mut args: Vec<OsString> = vec!["lock".into(), "-r".into()];
    for platform in platforms {
        args.extend(["--platform".into(), platform.into()]);
    }
    args.extend(["--cache-dir".into(), cache.into()]);
    args.extend(env.extra_args.iter().map(OsString::from));
    args.push(repo.into());
    let mut vars: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
        ("HOME".into(), env.home.into()),
        ("TF_CLI_CONFIG_FILE".into(), env.cli_config.into()),
        ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
    ];
    if let Some(filter) = std::env::var_os("RUST_LOG") {
        vars.push(("RUST_LOG".into(), filter));
    }
    let job = measure::Job {
        program: bin.to_owned(),
        args,
        env: vars,
    };
    measure::run(&job, logs, env.timeout)
        .map_err(|e| format!("could not run {}: {e}", bin.display()))
}

fn failure_note(label: &str, measured: &Measured, problems: &[String]) -> String {
    let mut note = format!("{label}: {}", measured.status());
    if let Some(first) = problems.first() {
        note += &format!("; {} lock problem(s), first: {first}", problems.len());
    }
    let tail = measured.tail(8);
    if !tail.is_empty() {
        note += &format!("; output ends:\n      {}", tail.replace('\n', "\n      "));
    }
    note
}

/// Whether each root got a lock file with exactly the expected provider versions.
struct LockCheck {
    written: usize,
    correct: usize,
    problems: Vec<String>,
}

impl LockCheck {
    fn summary(&self, roots: usize) -> String {
        if self.correct == roots && self.problems.is_empty() {
            format!("{roots}/{roots} ok")
        } else {
            format!("{}/{roots} written, {} right", self.written, self.correct)
        }
    }
}

fn check_locks<'a>(
    repo: &Path,
    monorepo: &Monorepo,
    roots: impl Iterator<Item = &'a Root>,
) -> LockCheck {
    let mut check = LockCheck {
        written: 0,
        correct: 0,
        problems: Vec::new(),
    };
    for root in roots {
        let path = repo.join(&root.dir).join(LOCK_FILE);
        let Ok(text) = std::fs::read_to_string(&path) else {
            check.problems.push(format!("{}: no lock file", root.dir));
            continue;
        };
        check.written += 1;
        let expected: BTreeMap<String, String> = monorepo
            .expected(root)
            .into_iter()
            .map(|(t, v)| (t.to_owned(), v))
            .collect();
        let found = locked_versions(&text);
        if found == expected {
            check.correct += 1;
        } else {
            check.problems.push(format!(
                "{}: locked {found:?}, expected {expected:?}",
                root.dir
            ));
        }
    }
    for module in monorepo::module_dirs() {
        if repo.join(&module).join(LOCK_FILE).exists() {
            check
                .problems
                .push(format!("{module}: a lock file in a shared module"));
        }
    }
    check
}

/// Provider type → locked version, from a lock file's `provider "HOST/NS/TYPE"` blocks.
fn locked_versions(text: &str) -> BTreeMap<String, String> {
    let mut versions = BTreeMap::new();
    let mut current = None;
    for line in text.lines().map(str::trim) {
        if let Some(address) = line
            .strip_prefix("provider \"")
            .and_then(|rest| rest.split('"').next())
        {
            current = address.rsplit('/').next().map(str::to_owned);
        } else if let (Some(type_), Some(value)) = (&current, line.strip_prefix("version")) {
            let version = value
                .trim_start()
                .trim_start_matches('=')
                .trim()
                .trim_matches('"');
            versions.insert(type_.clone(), version.to_owned());
        }
    }
    versions
}

/// Zip bytes Terraform downloads for `root`: every locked package, once per platform.
fn root_bytes(registry: &RegistryHandle, monorepo: &Monorepo, root: &Root) -> u64 {
    monorepo
        .expected(root)
        .iter()
        .flat_map(|(type_, version)| {
            PLATFORMS
                .iter()
                .map(move |p| registry.zip("hashicorp", type_, version, p).len() as u64)
        })
        .sum()
}

/// `terraform get` + `terraform providers lock -platform=…×4` in each subset root, each
/// with a fresh HOME as the oracle harness sets up, then scaled to every root.
#[allow(clippy::too_many_arguments)]
fn terraform_runs(
    registry: &RegistryHandle,
    monorepo: &Monorepo,
    repo: &Path,
    cli_config: &Path,
    subset: &[usize],
    tfsum_locks: &BTreeMap<usize, String>,
    unique_bytes: u64,
    results: &mut Results,
) {
    if std::panic::catch_unwind(support::terraform::binary).is_err() {
        results.notes.push(
            "Terraform runs skipped: no Terraform v1.0.3 (run scripts/fetch-terraform.sh)"
                .to_owned(),
        );
        results.all_ok = false;
        return;
    }
    registry.reset_counts();
    let (mut get_wall, mut lock_wall) = (Duration::ZERO, Duration::ZERO);
    let (mut identical, mut compared) = (0, 0);
    let mut failures = Vec::new();
    let mut differing = Vec::new();
    for (n, &index) in subset.iter().enumerate() {
        let root = &monorepo.roots[index];
        let dir = repo.join(&root.dir);
        let started = Instant::now();
        let get = support::terraform::run(&dir, cli_config, &["get", "-no-color"]);
        get_wall += started.elapsed();
        if !get.status.success() {
            failures.push(format!(
                "{}: terraform get: {}",
                root.dir,
                support::terraform::combined_output(&get).trim()
            ));
            continue;
        }
        let started = Instant::now();
        let lock = support::terraform::providers_lock(&dir, PLATFORMS, cli_config);
        let elapsed = started.elapsed();
        lock_wall += elapsed;
        progress!(
            "terraform {}/{}: {} in {}",
            n + 1,
            subset.len(),
            root.dir,
            seconds(elapsed)
        );
        if !lock.status.success() {
            failures.push(format!(
                "{}: terraform providers lock: {}",
                root.dir,
                support::terraform::combined_output(&lock).trim()
            ));
            continue;
        }
        let written = std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap_or_default();
        if let Some(ours) = tfsum_locks.get(&index) {
            compared += 1;
            if *ours == written {
                identical += 1;
            } else {
                differing.push(root.dir.clone());
            }
        }
    }
    let traffic = traffic::tally(registry);
    let wall = get_wall + lock_wall;
    let check = check_locks(repo, monorepo, subset.iter().map(|&i| &monorepo.roots[i]));
    let subset_bytes: u64 = subset
        .iter()
        .map(|&i| root_bytes(registry, monorepo, &monorepo.roots[i]))
        .sum();
    let all_bytes: u64 = monorepo
        .roots
        .iter()
        .map(|root| root_bytes(registry, monorepo, root))
        .sum();
    let roots = monorepo.roots.len();
    let per_root = wall / u32::try_from(subset.len()).unwrap_or(u32::MAX);
    let scaled_wall = per_root * u32::try_from(roots).unwrap_or(u32::MAX);
    let scaled_bytes = traffic.zip_bytes * roots as u64 / subset.len() as u64;

    results.rows.push(Row {
        label: format!(
            "terraform, {} root{}",
            subset.len(),
            if subset.len() == 1 { "" } else { "s" }
        ),
        wall: Some(wall),
        zip_bytes: Some(traffic.zip_bytes),
        bytes_ratio: None,
        requests: Some(traffic.requests),
        zips: Some(traffic.zips),
        peak_rss: None,
        status: if failures.is_empty() {
            "ok".to_owned()
        } else {
            format!("{} failed", failures.len())
        },
        roots: check.summary(subset.len()),
    });
    results.rows.push(Row {
        label: format!("terraform, scaled to {roots} roots"),
        wall: Some(scaled_wall),
        zip_bytes: Some(scaled_bytes),
        bytes_ratio: Some(scaled_bytes as f64 / unique_bytes as f64),
        status: "estimate".to_owned(),
        ..Row::default()
    });
    results.terraform_scaled = Some((scaled_wall, scaled_bytes));
    results.notes.push(format!(
        "terraform zip bytes / unique package bytes, scaled to {roots} roots: {:.1}",
        scaled_bytes as f64 / unique_bytes as f64
    ));

    let byte_weighted = wall.mul_f64(all_bytes as f64 / subset_bytes.max(1) as f64);
    results.notes.push(format!(
        "terraform: {} per root ({} of it `terraform get`, needed before `providers lock` \
         can load local modules); scaled by root count to {}, by bytes to {} \
         (its {} roots need {} of packages, all {roots} roots {})",
        seconds(per_root),
        seconds(get_wall / u32::try_from(subset.len()).unwrap_or(u32::MAX)),
        seconds(scaled_wall),
        seconds(byte_weighted),
        subset.len(),
        bytes(subset_bytes),
        bytes(all_bytes),
    ));
    if traffic.zip_bytes != subset_bytes {
        results.notes.push(format!(
            "terraform downloaded {} of zips where its roots need {}",
            bytes(traffic.zip_bytes),
            bytes(subset_bytes)
        ));
    }
    if compared > 0 {
        let mut note = format!(
            "conformance: tfsum's cold-run lock files are byte-identical to Terraform's in \
             {identical}/{compared} roots"
        );
        if let Some(first) = differing.first() {
            note += &format!(" (first difference: {first})");
        }
        results.notes.push(note);
    }
    if !failures.is_empty() || !check.problems.is_empty() {
        results.all_ok = false;
        for failure in failures.iter().chain(&check.problems).take(3) {
            results.notes.push(format!("terraform: {failure}"));
        }
    }
}

/// One provider whose single package is `megabytes` MB, locked for one platform from an
/// empty cache, at full loopback speed (no bandwidth limit, so nothing slows the producer
/// and buffering would show): tfsum's peak RSS must not grow with the package.
fn big_package_run(
    bin: &Path,
    env: &RunEnv<'_>,
    work: &Path,
    megabytes: u64,
    results: &mut Results,
) {
    progress!("building a {megabytes} MB package");
    let started = Instant::now();
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "huge")
        .version("1.0.0")
        .platforms(&["linux_amd64"])
        .payload(payload_len(megabytes as f64))
        .start();
    let built = started.elapsed();
    let zip_len = registry
        .zip("hashicorp", "huge", "1.0.0", "linux_amd64")
        .len() as u64;

    let repo = work.join("repo-big");
    let root = repo.join("envs/prod/huge");
    let config = format!(
        "terraform {{\n  backend \"local\" {{}}\n  required_providers {{\n    huge = {{\n      \
         source  = \"{}/hashicorp/huge\"\n      version = \"1.0.0\"\n    }}\n  }}\n}}\n",
        registry.host()
    );
    let cli_config = work.join("cli-big.tfrc");
    if let Err(e) = std::fs::create_dir_all(&root)
        .and_then(|()| std::fs::write(root.join("versions.tf"), config))
    {
        results
            .notes
            .push(format!("big package: writing {}: {e}", root.display()));
        results.all_ok = false;
        return;
    }
    registry.write_cli_config(&cli_config);
    let env = RunEnv {
        cli_config: &cli_config,
        ..*env
    };
    progress!("running tfsum on the {} package", bytes(zip_len));
    let outcome = run_tfsum(
        bin,
        &env,
        &work.join("cache-big"),
        &["linux_amd64"],
        &repo,
        &work.join("tfsum-big"),
    );
    let traffic = traffic::tally(&registry);
    let mut row = Row {
        label: format!("tfsum, one {} package", bytes(zip_len)),
        zip_bytes: Some(traffic.zip_bytes),
        bytes_ratio: Some(traffic.zip_bytes as f64 / zip_len as f64),
        requests: Some(traffic.requests),
        zips: Some(traffic.zips),
        ..Row::default()
    };
    match outcome {
        Ok(measured) => {
            let lock = std::fs::read_to_string(root.join(LOCK_FILE)).unwrap_or_default();
            let h1 = registry.expected_h1("hashicorp", "huge", "1.0.0", "linux_amd64");
            let right = lock.contains(&h1);
            row.wall = Some(measured.wall);
            row.peak_rss = Some(measured.peak_rss);
            row.status = measured.status();
            row.roots = if right { "1/1 ok" } else { "0/1 right" }.to_owned();
            results.big = Some((zip_len, measured.peak_rss, measured.success() && right));
            if !measured.success() || !right {
                results.all_ok = false;
                let problem = if lock.is_empty() {
                    "no lock file".to_owned()
                } else {
                    format!("lock file lacks {h1}")
                };
                results
                    .notes
                    .push(failure_note("big package", &measured, &[problem]));
            }
        }
        Err(message) => {
            row.status = "not run".to_owned();
            results.notes.push(format!("big package: {message}"));
            results.all_ok = false;
        }
    }
    results.notes.push(format!(
        "big package: {} zip ({} unpacked) built in {}, served without a bandwidth limit",
        bytes(zip_len),
        bytes(payload_len(megabytes as f64) as u64),
        seconds(built)
    ));
    results.rows.push(row);
}

fn targets(results: &Results, unique_bytes: u64, roots: usize) -> Vec<Target> {
    // A figure from a failed run is shown but never counts as meeting a target.
    let failed = |ok: bool| if ok { "" } else { " [run failed]" };
    let mut targets = Vec::new();
    targets.push(match results.cold {
        Some((_, traffic, ok)) => Target {
            goal: "cold: zip bytes / unique package bytes = 1.00",
            measured: format!(
                "{:.2} ({} of {}){}",
                traffic.zip_bytes as f64 / unique_bytes as f64,
                bytes(traffic.zip_bytes),
                bytes(unique_bytes),
                failed(ok)
            ),
            met: Some(ok && traffic.zip_bytes == unique_bytes),
        },
        None => not_measured("cold: zip bytes / unique package bytes = 1.00"),
    });
    targets.push(match (results.cold, results.terraform_scaled) {
        (Some((cold, _, ok)), Some((terraform, _))) => {
            let ratio = terraform.as_secs_f64() / cold.as_secs_f64().max(1e-9);
            Target {
                goal: "cold ≥ 20× faster than Terraform per root",
                measured: format!(
                    "{ratio:.0}× ({} vs {}){}",
                    seconds(cold),
                    seconds(terraform),
                    failed(ok)
                ),
                met: Some(ok && ratio >= 20.0),
            }
        }
        _ => not_measured("cold ≥ 20× faster than Terraform per root"),
    });
    if results.warm.is_empty() {
        targets.push(not_measured("warm ≤ 0.5 s over 300 roots, 0 zip downloads"));
    }
    for (label, wall, traffic, ok) in &results.warm {
        let which = label.trim_start_matches("tfsum ");
        targets.push(Target {
            goal: "warm ≤ 0.5 s over 300 roots, 0 zip downloads",
            measured: format!(
                "{}, {} zips ({which}, {roots} roots){}",
                seconds(*wall),
                traffic.zips,
                failed(*ok)
            ),
            met: Some(*ok && *wall <= Duration::from_millis(500) && traffic.zips == 0),
        });
    }
    targets.push(match results.big {
        Some((zip_len, rss, ok)) => Target {
            goal: "peak RSS ≤ 100 MB with a 200 MB package",
            measured: format!("{} (package {}){}", bytes(rss), bytes(zip_len), failed(ok)),
            met: Some(ok && rss <= 100_000_000),
        },
        None => not_measured("peak RSS ≤ 100 MB with a 200 MB package"),
    });
    if let [cold, locks, create] = results.large[..] {
        let goals: [(&'static str, _, Option<Duration>, Option<u64>); 3] = [
            (
                "large repository, cold: peak RSS ≤ 100 MB",
                cold,
                None,
                Some(100_000_000),
            ),
            (
                "large repository, warm with lock files ≤ 0.5 s",
                locks,
                Some(Duration::from_millis(500)),
                None,
            ),
            (
                "large repository, creating every lock file from a warm cache ≤ 1.5 s",
                create,
                Some(Duration::from_millis(1500)),
                None,
            ),
        ];
        for (goal, (wall, rss, ok), wall_limit, rss_limit) in goals {
            let (measured, met) = match (wall_limit, rss_limit, wall, rss) {
                (Some(limit), _, Some(wall), _) => (seconds(wall), wall <= limit),
                (_, Some(limit), _, Some(rss)) => (bytes(rss), rss <= limit),
                _ => ("-".to_owned(), false),
            };
            targets.push(Target {
                goal,
                measured: format!("{measured}{}", failed(ok)),
                met: Some(ok && met),
            });
        }
    }
    targets
}

fn not_measured(goal: &'static str) -> Target {
    Target {
        goal,
        measured: "-".to_owned(),
        met: None,
    }
}
