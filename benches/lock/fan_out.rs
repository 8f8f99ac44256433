//! The hostile fan-out scenario of `make bench` (issue 34): one root calling one registry
//! module N times, each call at another of its N versions, locked from an empty cache.
//! Version choice and every per-call step should be linear, so the CPU time per call
//! should stay flat from the smallest N to the largest.

use std::path::Path;
use std::time::Duration;

use crate::measure::Measured;
use crate::remote::run_tfsum;
use crate::report::{seconds, Outcome, Row, Target};
use crate::support::fake_modules::{fan_out_registry, fan_out_root};

/// Runs the scenario once per entry of `calls`.
pub fn run(bin: &Path, calls: &[usize], work: &Path, timeout: Duration) -> Outcome {
    let mut outcome = Outcome::passing();
    let mut per_call = Vec::new();
    for &n in calls {
        let label = format!("tfsum cold, fan-out of {n} calls");
        match run_one(bin, n, &work.join(format!("fan-out-{n}")), timeout) {
            Ok(measured) => {
                outcome.rows.push(Row {
                    label: label.clone(),
                    wall: Some(measured.wall),
                    peak_rss: Some(measured.peak_rss),
                    status: format!("{}; CPU {}", measured.status(), seconds(measured.cpu)),
                    roots: "1".to_owned(),
                    ..Row::default()
                });
                if measured.success() {
                    per_call.push((n, measured.cpu.div_f64(n as f64)));
                } else {
                    outcome.ok = false;
                    outcome.notes.push(format!(
                        "{label}: {}; {}",
                        measured.status(),
                        measured.tail(8)
                    ));
                }
            }
            Err(message) => {
                outcome.ok = false;
                outcome.notes.push(format!("{label}: {message}"));
            }
        }
    }
    if let (Some((small, first)), Some((large, last))) = (per_call.first(), per_call.last()) {
        let growth = last.as_secs_f64() / first.as_secs_f64().max(1e-9);
        outcome.targets.push(Target {
            goal: "hostile fan-out linear: CPU per call at the largest N within 2× the smallest's",
            measured: format!(
                "{:.2} ms per call at {small}, {:.2} ms at {large} (×{growth:.2})",
                first.as_secs_f64() * 1e3,
                last.as_secs_f64() * 1e3
            ),
            met: Some(growth <= 2.0),
        });
    }
    outcome
}

/// One cold run over a fresh repository and cache under `dir`.
fn run_one(bin: &Path, n: usize, dir: &Path, timeout: Duration) -> Result<Measured, String> {
    let registry = fan_out_registry(n);
    let (repo, cli_config, home) = (dir.join("repo"), dir.join("cli.tfrc"), dir.join("home"));
    let root = repo.join("fan");
    std::fs::create_dir_all(&root)
        .and_then(|()| std::fs::create_dir_all(&home))
        .and_then(|()| std::fs::write(root.join("main.tf"), fan_out_root(&registry, n)))
        .map_err(|e| format!("setup under {}: {e}", dir.display()))?;
    registry.write_cli_config(&cli_config, "");
    let cache = dir.join("cache");
    let logs = dir.join("tfsum");
    run_tfsum(bin, &home, &cli_config, &cache, &repo, &logs, timeout).map(|(run, _)| run)
}
