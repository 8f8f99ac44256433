//! The outcome of `tfsum verify` as values ([`VerifyReport`]: per lock file, its
//! [`Finding`]s or why it could not be read), built by `commands::verify`, and its
//! printing as text, markdown and JSON (schema in `docs/verify.md`).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::json::JsonWarning;
use tfsum_disk::atomic::LinkEscape;
use tfsum_disk::walk::FindError;
use tfsum_sources::{PackageError, SourceStats, VersionsError};
use tfsum_stages::warning::Warning;
use tfsum_stages::write::changes::display;
use tfsum_vocab::addr::{Platform, ProviderAddr};
use tfsum_vocab::hash::Hash;
use tfsum_vocab::lockfile;
use tfsum_vocab::version::Version;

/// The outcome of a whole `verify` run.
#[derive(Debug)]
pub struct VerifyReport {
    pub files: Vec<VerifiedFile>,
    pub warnings: Vec<Warning>,
    pub stats: SourceStats,
    pub elapsed: Duration,
}

/// One lock file's findings, or why it could not be read.
#[derive(Debug)]
pub struct VerifiedFile {
    pub path: PathBuf,
    pub outcome: Result<Vec<Finding>, FileError>,
}

/// Why a lock file could not be verified at all.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// A given path stands for no lock file, or a directory could not be searched.
    #[error("{0}")]
    Find(FindError),
    /// A lock file that is a link leading out of the trees.
    #[error("{0}")]
    Link(LinkEscape),
    #[error("cannot read it: {0}")]
    Read(std::io::Error),
    /// Not a lock file (not UTF-8, merge conflict markers, invalid HCL, …).
    #[error("{0}")]
    Invalid(lockfile::ReadError),
}

/// Something wrong with one entry or hash of a lock file.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// 1-based: the hash's line, or the provider block's for a whole-entry finding.
    pub line: usize,
    #[serde(serialize_with = "display")]
    pub provider: ProviderAddr,
    #[serde(serialize_with = "display")]
    pub version: Version,
    #[serde(flatten)]
    pub problem: FindingKind,
}

/// What a finding says is wrong; the JSON report's `kind`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FindingKind {
    /// A hash that is neither a signed SHA256SUMS line nor the `h1:` of a published
    /// package.
    Unvouched {
        #[serde(serialize_with = "display")]
        hash: Hash,
        /// The platforms whose packages were hashed, in order.
        #[serde(serialize_with = "display_all")]
        checked: Vec<Platform>,
    },
    /// The provider's sources do not publish this version.
    VersionMissing { available: Vec<String> },
    /// The version could not be checked (network, signature, offline, …).
    Unchecked {
        #[serde(serialize_with = "display")]
        reason: Unchecked,
    },
}

/// Why a version could not be checked.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Unchecked {
    /// Its provider's versions could not be listed.
    #[error("{0}")]
    Versions(VersionsError),
    /// Its packages could not be listed or hashed; the finding already names the
    /// provider and version, so only the platform and the problem are said.
    #[error("{}{}", .0.platform.as_ref().map(|p| format!("{p}: ")).unwrap_or_default(), .0.problem)]
    Package(PackageError),
    #[error("its sources list no package for it")]
    NoPackages,
    #[error("it was not checked")]
    NotChecked,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (provider, version) = (&self.provider, &self.version);
        match &self.problem {
            FindingKind::Unvouched { hash, checked } => {
                let why = match hash.scheme() {
                    "zh" => "it is not a line of the version's signed SHA256SUMS".to_string(),
                    "h1" => format!(
                        "it is not the h1: of any package published for it ({})",
                        join(checked)
                    ),
                    other => format!("tfsum cannot check hashes of scheme {other:?}"),
                };
                write!(
                    f,
                    "{provider} {version}: {hash} is vouched for by nobody: {why}"
                )
            }
            FindingKind::VersionMissing { available } => {
                let newest: Vec<&str> =
                    available.iter().rev().take(5).map(String::as_str).collect();
                write!(
                    f,
                    "{provider} {version}: this version is not published (newest available: {})",
                    if newest.is_empty() {
                        "none".to_string()
                    } else {
                        newest.join(", ")
                    }
                )
            }
            FindingKind::Unchecked { reason } => {
                write!(f, "{provider} {version}: cannot be checked: {reason}")
            }
        }
    }
}

impl VerifyReport {
    /// Exit non-zero when any file failed to read or has a finding.
    pub fn is_failure(&self) -> bool {
        self.files
            .iter()
            .any(|f| !matches!(&f.outcome, Ok(findings) if findings.is_empty()))
    }
}

fn join(platforms: &[Platform]) -> String {
    platforms
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn display_all<S: serde::Serializer>(items: &[Platform], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(items.iter().map(ToString::to_string))
}

/// Writes the text report: one line per file (`verified` or `failed`), each finding
/// below a failed one as `FILE:LINE: …`, warnings, then a summary line.
pub fn print_text(report: &VerifyReport, quiet: bool, out: &mut impl Write) -> std::io::Result<()> {
    for file in &report.files {
        let path = file.path.display();
        match &file.outcome {
            Ok(findings) if findings.is_empty() => {
                if !quiet {
                    writeln!(out, "verified  {path}")?;
                }
            }
            Ok(findings) => {
                writeln!(out, "failed    {path}")?;
                for finding in findings {
                    writeln!(out, "          {path}:{}: {finding}", finding.line)?;
                }
            }
            Err(error) => {
                writeln!(out, "failed    {path}")?;
                for line in error.to_string().lines() {
                    writeln!(out, "          {line}")?;
                }
            }
        }
    }
    if quiet {
        return Ok(());
    }
    for warning in &report.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    let failed = report
        .files
        .iter()
        .filter(|f| !matches!(&f.outcome, Ok(list) if list.is_empty()))
        .count();
    let findings: usize = report
        .files
        .iter()
        .map(|f| f.outcome.as_ref().map_or(0, Vec::len))
        .sum();
    let stats = &report.stats;
    writeln!(
        out,
        "{} lock {}: {} verified, {failed} failed ({findings} {}); packages: {} downloaded, {} from cache{}; {:.2}s",
        report.files.len(),
        if report.files.len() == 1 { "file" } else { "files" },
        report.files.len() - failed,
        if findings == 1 { "finding" } else { "findings" },
        stats.packages_downloaded,
        stats.packages_from_cache,
        crate::other_sources(stats),
        report.elapsed.as_secs_f64(),
    )
}

/// Writes the markdown report for a pull-request comment or `$GITHUB_STEP_SUMMARY`: the
/// summary, then each finding as a list item under its file (paths and hashes in code
/// spans, so a repository's names cannot inject markup).
pub fn print_markdown(report: &VerifyReport, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "### tfsum verify\n")?;
    let failed: Vec<&VerifiedFile> = report
        .files
        .iter()
        .filter(|f| !matches!(&f.outcome, Ok(list) if list.is_empty()))
        .collect();
    writeln!(
        out,
        "{} lock files: {} verified, {} failed\n",
        report.files.len(),
        report.files.len() - failed.len(),
        failed.len()
    )?;
    for file in failed {
        let path = file.path.display().to_string();
        writeln!(out, "- {}", crate::code(&path))?;
        match &file.outcome {
            Ok(findings) => {
                for finding in findings {
                    let text = format!("{path}:{}: {finding}", finding.line);
                    writeln!(out, "  - {}", crate::code(&text))?;
                }
            }
            Err(error) => writeln!(out, "  - {}", crate::code(&error.to_string()))?,
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonReport<'a> {
    schema_version: u32,
    ok: bool,
    files: Vec<JsonFile<'a>>,
    warnings: Vec<String>,
    warning_details: Vec<JsonWarning>,
    stats: JsonStats,
    elapsed_ms: u64,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: String,
    /// `verified` or `failed`.
    outcome: &'static str,
    /// Why the file could not be read or parsed.
    error: Option<String>,
    findings: &'a [Finding],
}

#[derive(Serialize)]
struct JsonStats {
    files: usize,
    failed: usize,
    packages_downloaded: u64,
    packages_from_cache: u64,
    packages_from_mirror: u64,
    sums_fetched: u64,
    #[serde(flatten)]
    shared: Option<crate::json::SharedJson>,
}

/// Writes the JSON report (one document, then a newline); schema in
/// `docs/verify.md`, versioned with the `lock` report's `schema_version`.
pub fn print_json(report: &VerifyReport, out: &mut impl Write) -> std::io::Result<()> {
    let files: Vec<JsonFile> = report
        .files
        .iter()
        .map(|file| {
            let (error, findings) = match &file.outcome {
                Ok(findings) => (None, findings.as_slice()),
                Err(error) => (Some(error.to_string()), &[][..]),
            };
            JsonFile {
                path: file.path.to_string_lossy().into_owned(),
                outcome: if error.is_none() && findings.is_empty() {
                    "verified"
                } else {
                    "failed"
                },
                error,
                findings,
            }
        })
        .collect();
    let failed = files.iter().filter(|f| f.outcome == "failed").count();
    let (warnings, warning_details) = crate::json::warnings(&report.warnings);
    let doc = JsonReport {
        schema_version: crate::JSON_SCHEMA_VERSION,
        ok: !report.is_failure(),
        stats: JsonStats {
            files: files.len(),
            failed,
            packages_downloaded: report.stats.packages_downloaded,
            packages_from_cache: report.stats.packages_from_cache,
            packages_from_mirror: report.stats.packages_from_mirror,
            sums_fetched: report.stats.sums_fetched,
            shared: report.stats.shared.map(Into::into),
        },
        files,
        warnings,
        warning_details,
        elapsed_ms: u64::try_from(report.elapsed.as_millis()).unwrap_or(u64::MAX),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
