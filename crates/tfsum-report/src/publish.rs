//! What `tfsum mirror --layout oci` did, and its text report (its JSON is printed by
//! [`crate::json`]).
//!
//! Text: one line per platform pushed or failing (those already in the registry are only
//! counted, so a second run prints its summary alone), the reason indented below; a line
//! per tag refused; the roots without a usable lock file; warnings; the summary; then the
//! `provider_installation` block (its `oci_mirror`) that installs the pushed providers.

use std::io::Write;

use indicatif::{HumanBytes, HumanDuration};
use serde::Serialize;

use crate::mirror::MirrorRun;
use crate::Verbosity;
use tfsum_sources::oci::publish::TagChange;
use tfsum_stages::publish::{PlatformOutcome, VersionPush};
use tfsum_vocab::addr::ProviderAddr;

/// The outcome of a `tfsum mirror --layout oci` run.
#[derive(Debug)]
pub struct PublishReport {
    /// The repository template pushed to (RFC 6570 level 1).
    pub template: String,
    pub versions: Vec<VersionPush>,
    /// The `provider_installation` block (an `oci_mirror` for the pushed providers,
    /// `direct` for the rest) that installs them from the registry.
    pub installation_block: String,
    pub run: MirrorRun,
}

/// Counts of the summary line.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub(crate) struct PublishCounts {
    /// Platform packages pushed, already present, failed.
    pub pushed: usize,
    pub present: usize,
    pub failed: usize,
    /// Tags created, extended, refused or failed.
    pub tags_created: usize,
    pub tags_extended: usize,
    pub tags_failed: usize,
    /// Blobs uploaded and their bytes; manifests written.
    pub blobs_uploaded: usize,
    pub bytes_uploaded: u64,
    pub manifests_written: usize,
}

impl PublishReport {
    pub fn is_failure(&self) -> bool {
        self.run.is_failure() || self.versions.iter().any(VersionPush::is_failure)
    }

    pub(crate) fn counts(&self) -> PublishCounts {
        let mut counts = PublishCounts::default();
        for version in &self.versions {
            for platform in &version.platforms {
                match platform.outcome {
                    Ok(PlatformOutcome::Pushed) => counts.pushed += 1,
                    Ok(PlatformOutcome::Present) => counts.present += 1,
                    Err(_) => counts.failed += 1,
                }
            }
            match version.tag {
                Ok(TagChange::Created) => counts.tags_created += 1,
                Ok(TagChange::Extended) => counts.tags_extended += 1,
                Ok(TagChange::Unchanged) => {}
                Err(_) => counts.tags_failed += 1,
            }
            counts.blobs_uploaded += version.pushed.blobs_uploaded;
            counts.bytes_uploaded += version.pushed.bytes_uploaded;
            counts.manifests_written += version.pushed.manifests_written;
        }
        counts
    }

    /// The providers every requested platform of which is in the registry (pushed or
    /// present): those the `oci_mirror` block may send there.
    pub fn mirrored(&self) -> Vec<ProviderAddr> {
        let mut providers: Vec<ProviderAddr> = Vec::new();
        for version in &self.versions {
            if !providers.contains(&version.provider) {
                providers.push(version.provider.clone());
            }
        }
        providers.retain(|provider| {
            self.versions
                .iter()
                .filter(|v| &v.provider == provider)
                .all(|v| !v.is_failure())
        });
        providers.sort();
        providers
    }
}

/// `pushed`, `present` or `failed`.
pub(crate) fn word(outcome: &Result<PlatformOutcome, impl std::fmt::Display>) -> &'static str {
    match outcome {
        Ok(PlatformOutcome::Pushed) => "pushed",
        Ok(PlatformOutcome::Present) => "present",
        Err(_) => "failed",
    }
}

/// `created`, `extended`, `unchanged` or `failed`.
pub(crate) fn tag_word(tag: &Result<TagChange, impl std::fmt::Display>) -> &'static str {
    match tag {
        Ok(TagChange::Created) => "created",
        Ok(TagChange::Extended) => "extended",
        Ok(TagChange::Unchanged) => "unchanged",
        Err(_) => "failed",
    }
}

/// The text report.
pub fn print_text(
    report: &PublishReport,
    verbosity: Verbosity,
    out: &mut impl Write,
) -> std::io::Result<()> {
    for version in &report.versions {
        let at = version.reference.as_deref().unwrap_or("?");
        for platform in &version.platforms {
            let failed = platform.outcome.is_err();
            let present = matches!(platform.outcome, Ok(PlatformOutcome::Present));
            if !failed && (present || verbosity == Verbosity::Quiet) {
                continue;
            }
            writeln!(
                out,
                "{:<10} {} {} {} → {at}",
                word(&platform.outcome),
                version.provider,
                version.version,
                platform.platform
            )?;
            if let Err(e) = &platform.outcome {
                writeln!(out, "           {e}")?;
            }
        }
        if let Err(e) = &version.tag {
            writeln!(
                out,
                "{:<10} {} {} → {at}",
                "refused", version.provider, version.version
            )?;
            writeln!(out, "           {e}")?;
        }
    }
    report.run.print_text(out)?;
    let c = report.counts();
    let packages: usize = report.versions.iter().map(|v| v.platforms.len()).sum();
    writeln!(
        out,
        "{packages} packages for {} to {}: {} pushed, {} present, {} failed; {} tags created, {} extended; {} blobs uploaded ({}) in {}",
        report.run.platform_list(),
        report.template,
        c.pushed,
        c.present,
        c.failed,
        c.tags_created,
        c.tags_extended,
        c.blobs_uploaded,
        HumanBytes(c.bytes_uploaded),
        HumanDuration(report.run.elapsed)
    )?;
    if verbosity != Verbosity::Quiet && !report.mirrored().is_empty() {
        writeln!(
            out,
            "\nInstall them from there with OpenTofu 1.10 or later (in its CLI configuration):\n\n{}",
            report.installation_block
        )?;
    }
    Ok(())
}
