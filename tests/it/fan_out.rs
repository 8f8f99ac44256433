//! Hostile fan-out (issue 34): one root calling one registry module N times, each call at
//! another of its N versions, costs time linear in N. A watchdog inside the test kills
//! the run once it passes its bound, so a quadratic step fails the test instead of
//! hanging it.

use std::time::Duration;

use tempfile::TempDir;

use crate::harness::FAST_RETRIES;
use crate::support::fake_modules::{fan_out_registry, fan_out_root};
use crate::tfsum::{self, Bounds};

/// Calls, and versions of the module.
const CALLS: usize = 3_000;

/// Measured in a test build: 64 s of CPU when each call's version choice passed over the
/// whole list, 14 s since (most of it fetching and storing 3,000 packages).
const CPU: Duration = Duration::from_secs(35);

#[test]
fn n_calls_at_n_versions_stay_within_a_linear_bound() {
    let registry = fan_out_registry(CALLS);
    let repo = TempDir::new().expect("repo");
    let scratch = TempDir::new().expect("scratch");
    let cli = scratch.path().join("cli.tfrc");
    registry.write_cli_config(&cli, "");
    let root = repo.path().join("fan");
    std::fs::create_dir_all(&root).expect("root dir");
    std::fs::write(root.join("main.tf"), fan_out_root(&registry, CALLS)).expect("main.tf");

    let mut command = tfsum::command(repo.path(), &cli, scratch.path());
    command.args(["lock", "-r", "--format=json", "--platform=linux_amd64", "."]);
    command.envs(FAST_RETRIES.iter().copied());
    let bounds = Bounds {
        max_rss: 1 << 30,
        wall: 3 * CPU,
        cpu: Some(CPU),
    };
    let run = tfsum::watched(command, bounds);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON report");
    assert_eq!(report["stats"]["modules_fetched"], CALLS, "{report:#}");
    assert_eq!(report["roots"][0]["outcome"], "created", "{report:#}");
    eprintln!("{CALLS} calls: {:?} wall, {:?} CPU", run.wall, run.cpu);
}
