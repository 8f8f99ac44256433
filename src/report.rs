//! Printing outcomes: the `lock` report as text or JSON, and the `fmt` report.
//!
//! Text is for people and logs: one line per root in path order (the reason indented
//! below a failure; in check mode what is wrong and the diff), then warnings, then one
//! summary line. With `quiet`, only the roots that need attention are printed. The only
//! varying part between two identical runs is the time in the summary.
//!
//! JSON (`--format json`) is one document for programs; its schema is documented in
//! README.md ("JSON report") and versioned by `schema_version`.

use std::io::Write;

use indicatif::{HumanBytes, HumanDuration};
use serde::Serialize;

use crate::fmt::{FmtOutcome, FmtReport};
use crate::lock::{Outcome, RootReport, RunReport};

/// Bumped on any incompatible change to the JSON report.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// How much of the report to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// Only roots that failed or (check mode) would change.
    Quiet,
    Normal,
}

/// Writes the plain-text report.
pub fn print_text(
    report: &RunReport,
    verbosity: Verbosity,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let width = if report.check { 12 } else { 9 };
    for root in &report.roots {
        let needs_attention = root.outcome == Outcome::Failed
            || (report.check && matches!(root.outcome, Outcome::Created | Outcome::Updated));
        if verbosity == Verbosity::Quiet && !needs_attention {
            continue;
        }
        let kind = if root.unit { " (terragrunt unit)" } else { "" };
        let word = outcome_word(report.check, root.outcome);
        writeln!(out, "{word:<width$} {}{kind}", root.dir.display())?;
        if let Some(detail) = detail(report.check, root) {
            for line in detail.lines() {
                writeln!(out, "{:width$} {line}", "")?;
            }
        }
        if let Some(diff) = &root.diff {
            out.write_all(diff.as_bytes())?;
        }
    }
    if verbosity == Verbosity::Quiet {
        return Ok(());
    }
    for warning in &report.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    writeln!(out, "{}", summary(report))
}

/// The one-line summary: roots by outcome, packages, bytes, time.
pub fn summary(report: &RunReport) -> String {
    let stats = &report.stats;
    let roots = if report.check {
        format!(
            "{} missing, {} out of date, {} up to date",
            report.count(Outcome::Created),
            report.count(Outcome::Updated),
            report.count(Outcome::Unchanged),
        )
    } else {
        format!(
            "{} created, {} updated, {} unchanged",
            report.count(Outcome::Created),
            report.count(Outcome::Updated),
            report.count(Outcome::Unchanged),
        )
    };
    format!(
        "{} {}: {roots}, {} skipped, {} failed; packages: {} downloaded ({}), {} from cache; {}",
        report.roots.len(),
        if report.roots.len() == 1 {
            "root"
        } else {
            "roots"
        },
        report.count(Outcome::Skipped),
        report.failed(),
        stats.packages_downloaded,
        HumanBytes(stats.zip_bytes_downloaded),
        stats.packages_from_cache,
        elapsed(report.elapsed),
    )
}

fn elapsed(d: std::time::Duration) -> String {
    if d.as_secs() >= 60 {
        HumanDuration(d).to_string()
    } else {
        format!("{:.2}s", d.as_secs_f64())
    }
}

fn outcome_word(check: bool, outcome: Outcome) -> &'static str {
    match (check, outcome) {
        (true, Outcome::Created) => "would create",
        (true, Outcome::Updated) => "would update",
        (true, Outcome::Unchanged) => "up to date",
        (_, outcome) => outcome.as_str(),
    }
}

/// The root's reason: why it failed or was skipped, or (check mode) what is wrong with
/// its lock file.
fn detail(_check: bool, root: &RootReport) -> Option<String> {
    root.detail.clone()
}

#[derive(Serialize)]
struct JsonReport<'a> {
    schema_version: u32,
    check: bool,
    ok: bool,
    roots: Vec<JsonRoot<'a>>,
    warnings: &'a [String],
    stats: JsonStats,
    elapsed_ms: u64,
}

#[derive(Serialize)]
struct JsonRoot<'a> {
    dir: String,
    kind: &'static str,
    outcome: &'static str,
    detail: Option<String>,
    diff: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonStats {
    roots: usize,
    created: usize,
    updated: usize,
    unchanged: usize,
    skipped: usize,
    failed: usize,
    packages_downloaded: u64,
    packages_from_cache: u64,
    bytes_downloaded: u64,
    sums_fetched: u64,
}

/// Writes the JSON report (one document, then a newline).
pub fn print_json(report: &RunReport, out: &mut impl Write) -> std::io::Result<()> {
    let stats = &report.stats;
    let doc = JsonReport {
        schema_version: JSON_SCHEMA_VERSION,
        check: report.check,
        ok: !report.is_failure(),
        roots: report
            .roots
            .iter()
            .map(|root| JsonRoot {
                dir: root.dir.to_string_lossy().into_owned(),
                kind: if root.unit {
                    "terragrunt_unit"
                } else {
                    "module"
                },
                outcome: root.outcome.as_str(),
                detail: detail(report.check, root),
                diff: root.diff.as_deref(),
            })
            .collect(),
        warnings: &report.warnings,
        stats: JsonStats {
            roots: report.roots.len(),
            created: report.count(Outcome::Created),
            updated: report.count(Outcome::Updated),
            unchanged: report.count(Outcome::Unchanged),
            skipped: report.count(Outcome::Skipped),
            failed: report.failed(),
            packages_downloaded: stats.packages_downloaded,
            packages_from_cache: stats.packages_from_cache,
            bytes_downloaded: stats.zip_bytes_downloaded,
            sums_fetched: stats.sums_fetched,
        },
        elapsed_ms: u64::try_from(report.elapsed.as_millis()).unwrap_or(u64::MAX),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// Writes the `fmt` report: one line per file (the diff below it in check mode), then a
/// summary line unless quiet.
pub fn print_fmt(
    report: &FmtReport,
    check: bool,
    verbosity: Verbosity,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let (mut changed, mut unchanged, mut failed) = (0, 0, 0);
    for file in &report.files {
        let attention = match &file.outcome {
            FmtOutcome::Unchanged => {
                unchanged += 1;
                false
            }
            FmtOutcome::Reformatted => {
                changed += 1;
                false
            }
            FmtOutcome::WouldReformat { .. } => {
                changed += 1;
                true
            }
            FmtOutcome::Failed(_) => {
                failed += 1;
                true
            }
        };
        if verbosity == Verbosity::Quiet && !attention {
            continue;
        }
        writeln!(out, "{file}")?;
        if let FmtOutcome::WouldReformat { diff } = &file.outcome {
            out.write_all(diff.as_bytes())?;
        }
    }
    if verbosity == Verbosity::Quiet {
        return Ok(());
    }
    let verb = if check {
        "would be reformatted"
    } else {
        "reformatted"
    };
    writeln!(
        out,
        "{} {}: {changed} {verb}, {unchanged} already canonical, {failed} failed",
        report.files.len(),
        if report.files.len() == 1 {
            "file"
        } else {
            "files"
        }
    )
}
