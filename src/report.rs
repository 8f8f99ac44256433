//! Printing a run's outcome: one line per root, warnings, and a summary.

use std::io::Write;

use crate::lock::RunReport;

/// Writes the plain-text report: one line per root (`created`, `updated`, `unchanged`
/// or `failed` with the reason indented below), then warnings, then a summary line.
pub fn print_text(report: &RunReport, out: &mut impl Write) -> std::io::Result<()> {
    for root in &report.roots {
        match &root.result {
            Ok(outcome) => writeln!(out, "{:<9} {}", outcome.as_str(), root.dir.display())?,
            Err(reason) => {
                writeln!(out, "{:<9} {}", "failed", root.dir.display())?;
                for line in reason.lines() {
                    writeln!(out, "          {line}")?;
                }
            }
        }
    }
    for warning in &report.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    let count = |name: &str| {
        report
            .roots
            .iter()
            .filter(|r| matches!(&r.result, Ok(o) if o.as_str() == name))
            .count()
    };
    let stats = &report.stats;
    writeln!(
        out,
        "{} roots: {} created, {} updated, {} unchanged, {} failed; packages: {} downloaded ({} bytes), {} from cache; {:.2}s",
        report.roots.len(),
        count("created"),
        count("updated"),
        count("unchanged"),
        report.failed(),
        stats.packages_downloaded,
        stats.zip_bytes_downloaded,
        stats.packages_from_cache,
        report.elapsed.as_secs_f64(),
    )
}
