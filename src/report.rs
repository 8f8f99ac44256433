//! Printing a run's outcome: one line per root, warnings, and a summary.

use std::io::Write;

use crate::lock::{Outcome, RunReport};

/// Writes the plain-text report: one line per root (`created`, `updated`,
/// `unchanged`, `skipped` or `failed`, with the reason indented below; in check mode
/// `would create`/`would update` and the diff), then warnings, then a summary line.
pub fn print_text(report: &RunReport, out: &mut impl Write) -> std::io::Result<()> {
    for root in &report.roots {
        let word = match (report.check, root.outcome) {
            (true, Outcome::Created) => "would create",
            (true, Outcome::Updated) => "would update",
            (_, outcome) => outcome.as_str(),
        };
        let kind = if root.unit { " (terragrunt unit)" } else { "" };
        writeln!(out, "{word:<9} {}{kind}", root.dir.display())?;
        if let Some(detail) = &root.detail {
            for line in detail.lines() {
                writeln!(out, "          {line}")?;
            }
        }
        if let Some(diff) = &root.diff {
            out.write_all(diff.as_bytes())?;
        }
    }
    for warning in &report.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    let stats = &report.stats;
    writeln!(
        out,
        "{} roots: {} created, {} updated, {} unchanged, {} skipped, {} failed; packages: {} downloaded ({} bytes), {} from cache; {:.2}s",
        report.roots.len(),
        report.count(Outcome::Created),
        report.count(Outcome::Updated),
        report.count(Outcome::Unchanged),
        report.count(Outcome::Skipped),
        report.failed(),
        stats.packages_downloaded,
        stats.zip_bytes_downloaded,
        stats.packages_from_cache,
        report.elapsed.as_secs_f64(),
    )
}
