//! What `tfsum mirror` did, and its text report (its JSON is printed by
//! [`crate::json`]). [`MirrorRun`] is what every mirror run reports, whether it fills a
//! directory or pushes to a registry ([`crate::publish`]): both reports hold one, and
//! print it alike.
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

use crate::Verbosity;
use tfsum_disk::provider_dir::Layout;
use tfsum_sources::SourceStats;
use tfsum_stages::install::{Filled, Install, Placement};
use tfsum_stages::root::RootError;
use tfsum_stages::warning::Warning;
use tfsum_vocab::addr::Platform;

/// The outcome of a `tfsum mirror` run (or of the mirror part of `lock --mirror`).
#[derive(Debug)]
pub struct MirrorReport {
    pub dir: PathBuf,
    pub layout: Layout,
    pub packages: Vec<Install>,
    /// Whether a lock file read was OpenTofu's (the CLI configuration to write is then
    /// OpenTofu's).
    pub opentofu: bool,
    pub run: MirrorRun,
}

/// What every mirror run reports besides where its packages went: into a directory
/// ([`MirrorReport`]) or an OCI registry ([`crate::publish::PublishReport`]).
#[derive(Debug, Default)]
pub struct MirrorRun {
    pub platforms: Vec<Platform>,
    /// Roots whose lock files could not be read (or that have providers and none).
    pub roots: Vec<(PathBuf, RootProblem)>,
    /// The CLI configuration written (`--cli-config`), or why it could not be.
    pub cli_config: Option<(PathBuf, Result<(), String>)>,
    pub warnings: Vec<Warning>,
    pub stats: SourceStats,
    pub elapsed: Duration,
}

impl MirrorRun {
    /// A root without a usable lock file, or a CLI configuration not written.
    pub(crate) fn is_failure(&self) -> bool {
        !self.roots.is_empty() || self.cli_config.as_ref().is_some_and(|(_, r)| r.is_err())
    }

    /// The platforms, as the summary line names them.
    pub(crate) fn platform_list(&self) -> String {
        let platforms: Vec<String> = self.platforms.iter().map(ToString::to_string).collect();
        platforms.join(", ")
    }

    /// The lines of a text report between its packages and its summary: the roots
    /// without a usable lock file, the warnings, the CLI configuration written.
    pub(crate) fn print_text(&self, out: &mut impl Write) -> std::io::Result<()> {
        for (dir, problem) in &self.roots {
            writeln!(out, "{:<10} {}", "failed", dir.display())?;
            writeln!(out, "           {problem}")?;
        }
        for warning in &self.warnings {
            writeln!(out, "warning: {warning}")?;
        }
        if let Some((file, written)) = &self.cli_config {
            match written {
                Ok(()) => writeln!(out, "wrote CLI configuration {}", file.display())?,
                Err(e) => writeln!(out, "failed     cannot write the CLI configuration: {e}")?,
            }
        }
        Ok(())
    }
}

/// Why a root contributes no packages.
#[derive(Debug, thiserror::Error)]
pub enum RootProblem {
    #[error("it has no lock file, so nothing says which packages it uses; run tfsum lock first")]
    NoLockFile,
    #[error(transparent)]
    Root(RootError),
}

impl MirrorReport {
    /// The report of a fill, before a run adds its own parts (roots, warnings,
    /// counters).
    pub fn of(filled: Filled, platforms: &[Platform]) -> MirrorReport {
        MirrorReport {
            dir: filled.dir,
            layout: filled.layout,
            packages: filled.packages,
            opentofu: false,
            run: MirrorRun {
                platforms: platforms.to_vec(),
                warnings: filled.warnings,
                ..MirrorRun::default()
            },
        }
    }

    pub fn is_failure(&self) -> bool {
        self.run.is_failure() || self.packages.iter().any(Install::is_failure)
    }
}

/// Counts of the summary line.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub(crate) struct Counts {
    pub installed: usize,
    pub present: usize,
    pub replaced: usize,
    pub failed: usize,
}

pub(crate) fn counts(report: &MirrorReport) -> Counts {
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

pub(crate) fn word(install: &Install) -> &'static str {
    match &install.outcome {
        _ if install.is_failure() => "failed",
        Ok(Placement::Installed) => "installed",
        Ok(Placement::Present) => "present",
        Ok(Placement::Replaced) => "replaced",
        Err(_) => "failed",
    }
}

/// The text report.
pub fn print_text(
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
    report.run.print_text(out)?;
    let c = counts(report);
    let stats = &report.run.stats;
    let fetched = if stats.packages_downloaded > 0 {
        format!(
            " ({} downloaded, {})",
            stats.packages_downloaded,
            HumanBytes(stats.zip_bytes_downloaded)
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{} packages for {} in {}: {} installed, {} present, {} replaced, {} failed{fetched} in {}",
        report.packages.len(),
        report.run.platform_list(),
        report.dir.display(),
        c.installed,
        c.present,
        c.replaced,
        c.failed,
        HumanDuration(report.run.elapsed)
    )
}

/// How to point Terraform at the directory, for the end of a text report (stderr).
pub fn usage_hint(report: &MirrorReport) -> String {
    let dir = report.dir.display();
    match (&report.run.cli_config, report.layout) {
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
