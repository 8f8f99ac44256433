//! Printing what `tfsum mirror` did: text for people and logs, JSON for programs.
//!
//! Text: one line per package installed, replaced or failing (those already present
//! are only counted, so a warm run prints its summary alone), the reason indented below
//! a failure with each lock file that records no hash of the package, the roots that
//! have no usable lock file, warnings, then the summary.

use std::io::Write;

use indicatif::{HumanBytes, HumanDuration};
use serde::Serialize;

use std::path::PathBuf;
use std::time::Duration;

use crate::disk::provider_dir::Layout;
use crate::report::json::{warnings, JsonWarning};
use crate::report::Verbosity;
use crate::sources::SourceStats;
use crate::stages::install::{Filled, Install, Placement};
use crate::stages::root::RootError;
use crate::stages::warning::Warning;
use crate::vocab::addr::Platform;

/// The outcome of a `tfsum mirror` run (or of the mirror part of `lock --mirror`).
#[derive(Debug)]
pub(crate) struct MirrorReport {
    pub dir: PathBuf,
    pub layout: Layout,
    pub platforms: Vec<Platform>,
    pub packages: Vec<Install>,
    /// Roots whose lock files could not be read (or that have providers and none).
    pub roots: Vec<(PathBuf, RootProblem)>,
    /// The CLI configuration written (`--cli-config`), or why it could not be.
    pub cli_config: Option<(PathBuf, Result<(), String>)>,
    pub warnings: Vec<Warning>,
    pub stats: SourceStats,
    pub elapsed: Duration,
}

/// Why a root contributes no packages.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RootProblem {
    #[error("it has no lock file, so nothing says which packages it uses; run tfsum lock first")]
    NoLockFile,
    #[error(transparent)]
    Root(RootError),
}

impl MirrorReport {
    /// The report of a fill, before a run adds its own parts (roots, warnings,
    /// counters).
    pub(crate) fn of(filled: Filled, platforms: &[Platform]) -> MirrorReport {
        MirrorReport {
            dir: filled.dir,
            layout: filled.layout,
            platforms: platforms.to_vec(),
            packages: filled.packages,
            roots: Vec::new(),
            cli_config: None,
            warnings: filled.warnings,
            stats: SourceStats::default(),
            elapsed: Duration::ZERO,
        }
    }

    pub(crate) fn is_failure(&self) -> bool {
        !self.roots.is_empty()
            || self.packages.iter().any(Install::is_failure)
            || self.cli_config.as_ref().is_some_and(|(_, r)| r.is_err())
    }
}

/// Counts of the summary line.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
struct Counts {
    installed: usize,
    present: usize,
    replaced: usize,
    failed: usize,
}

fn counts(report: &MirrorReport) -> Counts {
    let mut counts = Counts::default();
    for install in &report.packages {
        match (&install.outcome, install.is_failure()) {
            (_, true) => counts.failed += 1,
            (Ok(Placement::Installed), _) => counts.installed += 1,
            (Ok(Placement::Present), _) => counts.present += 1,
            (Ok(Placement::Replaced), _) => counts.replaced += 1,
            (Err(_), _) => counts.failed += 1,
        }
    }
    counts
}

fn word(install: &Install) -> &'static str {
    match &install.outcome {
        _ if install.is_failure() => "failed",
        Ok(Placement::Installed) => "installed",
        Ok(Placement::Present) => "present",
        Ok(Placement::Replaced) => "replaced",
        Err(_) => "failed",
    }
}

/// The text report.
pub(crate) fn print_text(
    report: &MirrorReport,
    verbosity: Verbosity,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for install in &report.packages {
        let failed = install.is_failure();
        let present = matches!(install.outcome, Ok(Placement::Present));
        if !failed && (present || verbosity == Verbosity::Quiet) {
            continue;
        }
        writeln!(
            out,
            "{:<10} {} {} {}",
            word(install),
            install.provider,
            install.version,
            install.platform
        )?;
        if let Err(e) = &install.outcome {
            writeln!(out, "           {e}")?;
        }
        for lock in &install.unmatched {
            writeln!(
                out,
                "           {}: records no hash of this package; lock it for {} (tfsum lock --platform {})",
                lock.display(),
                install.platform,
                install.platform
            )?;
        }
    }
    for (dir, problem) in &report.roots {
        writeln!(out, "{:<10} {}", "failed", dir.display())?;
        writeln!(out, "           {problem}")?;
    }
    for warning in &report.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    if let Some((file, written)) = &report.cli_config {
        match written {
            Ok(()) => writeln!(out, "wrote CLI configuration {}", file.display())?,
            Err(e) => writeln!(out, "failed     cannot write the CLI configuration: {e}")?,
        }
    }
    let c = counts(report);
    let platforms: Vec<String> = report.platforms.iter().map(ToString::to_string).collect();
    let fetched = if report.stats.packages_downloaded > 0 {
        format!(
            " ({} downloaded, {})",
            report.stats.packages_downloaded,
            HumanBytes(report.stats.zip_bytes_downloaded)
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{} packages for {} in {}: {} installed, {} present, {} replaced, {} failed{fetched} in {}",
        report.packages.len(),
        platforms.join(", "),
        report.dir.display(),
        c.installed,
        c.present,
        c.replaced,
        c.failed,
        HumanDuration(report.elapsed)
    )
}

/// How to point Terraform at the directory, for the end of a text report (stderr).
pub(crate) fn usage_hint(report: &MirrorReport) -> String {
    let dir = report.dir.display();
    match (&report.cli_config, report.layout) {
        (Some((file, Ok(()))), _) => format!(
            "use it: TF_CLI_CONFIG_FILE={} terraform init (or tofu, terragrunt run --all init)",
            file.display()
        ),
        (_, Layout::Unpacked) => format!(
            "use it: TF_PLUGIN_CACHE_DIR={dir} terraform init (or tofu); --cli-config FILE writes a configuration that installs from it with no registry request"
        ),
        (_, Layout::Packed) => format!(
            "serve {dir} over https and name it in a network_mirror block, or use it as a filesystem_mirror"
        ),
    }
}

#[derive(Serialize)]
struct JsonReport {
    schema_version: u32,
    dir: String,
    layout: &'static str,
    platforms: Vec<String>,
    packages: Vec<JsonPackage>,
    roots: Vec<JsonRoot>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cli_config: Option<JsonCliConfig>,
    warnings: Vec<String>,
    warning_details: Vec<JsonWarning>,
    summary: JsonSummary,
}

#[derive(Serialize)]
struct JsonPackage {
    provider: String,
    version: String,
    platform: String,
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// Lock files that lock this version but record no hash of the package.
    unmatched_lock_files: Vec<String>,
}

#[derive(Serialize)]
struct JsonRoot {
    dir: String,
    error: String,
}

#[derive(Serialize)]
struct JsonCliConfig {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct JsonSummary {
    #[serde(flatten)]
    counts: Counts,
    root_failures: usize,
    packages_downloaded: u64,
    bytes_downloaded: u64,
    elapsed_seconds: f64,
}

/// The JSON report: one document.
pub(crate) fn print_json(report: &MirrorReport, out: &mut impl Write) -> std::io::Result<()> {
    let lossy = |p: &std::path::Path| p.to_string_lossy().into_owned();
    let (texts, details) = warnings(&report.warnings);
    let doc = JsonReport {
        schema_version: crate::report::JSON_SCHEMA_VERSION,
        dir: lossy(&report.dir),
        layout: match report.layout {
            Layout::Unpacked => "unpacked",
            Layout::Packed => "packed",
        },
        platforms: report.platforms.iter().map(ToString::to_string).collect(),
        packages: report
            .packages
            .iter()
            .map(|i| JsonPackage {
                provider: i.provider.to_string(),
                version: i.version.to_string(),
                platform: i.platform.to_string(),
                outcome: word(i),
                error: i.outcome.as_ref().err().map(ToString::to_string),
                unmatched_lock_files: i.unmatched.iter().map(|p| lossy(p)).collect(),
            })
            .collect(),
        roots: report
            .roots
            .iter()
            .map(|(dir, e)| JsonRoot {
                dir: lossy(dir),
                error: e.to_string(),
            })
            .collect(),
        cli_config: report.cli_config.as_ref().map(|(path, r)| JsonCliConfig {
            path: lossy(path),
            error: r.as_ref().err().cloned(),
        }),
        warnings: texts,
        warning_details: details,
        summary: JsonSummary {
            counts: counts(report),
            root_failures: report.roots.len(),
            packages_downloaded: report.stats.packages_downloaded,
            bytes_downloaded: report.stats.zip_bytes_downloaded,
            elapsed_seconds: report.elapsed.as_secs_f64(),
        },
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
