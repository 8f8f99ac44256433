//! The outcome of a run as values ([`RunReport`], one [`RootReport`] per root, built by
//! the write stage from what the stages returned), and their printing: the `lock` report
//! as text or JSON, and the `fmt` report.
//!
//! Text is for people and logs: one line per root in path order (the reason indented
//! below a failure; in check mode what is wrong and the diff), then warnings, then one
//! summary line. With `quiet`, only the roots that need attention are printed. The only
//! varying part between two identical runs is the time in the summary.
//!
//! JSON (`--format json`) is one document for programs; its schema is documented in
//! README.md ("JSON report") and versioned by `schema_version`.

pub(crate) mod fmt;
pub(crate) mod outdated;
pub(crate) mod progress_bar;
pub(crate) mod run_record;
pub(crate) mod upgrade;

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use indicatif::{HumanBytes, HumanDuration};
use serde::Serialize;

use crate::net::modules::ModuleStats;
use crate::sources::RegistryStats;
use crate::stages::root::RootKind;
use crate::stages::write::changes::{self, ProviderChange};
use crate::stages::write::{Change, RootOutcome, RootReport};

/// Bumped on any incompatible change to the JSON report.
pub(crate) const JSON_SCHEMA_VERSION: u32 = 1;

/// How much of the report to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verbosity {
    /// Only roots that failed or (check mode) would change.
    Quiet,
    Normal,
}

/// The outcome of a whole `lock` run.
#[derive(Debug)]
pub(crate) struct RunReport {
    pub check: bool,
    /// `--fail-on-write`: a lock file created or updated fails the run.
    pub fail_on_write: bool,
    pub roots: Vec<RootReport>,
    pub warnings: Vec<String>,
    pub stats: RegistryStats,
    /// Remote module packages fetched and taken from the module cache.
    pub modules: ModuleStats,
    pub elapsed: Duration,
}

impl RunReport {
    /// Roots whose lock file was (check mode: would be) changed this way.
    pub(crate) fn count(&self, change: Change) -> usize {
        self.roots
            .iter()
            .filter(|r| r.outcome.change() == Some(change))
            .count()
    }

    pub(crate) fn failed(&self) -> usize {
        self.roots
            .iter()
            .filter(|r| matches!(r.outcome, RootOutcome::Failed(_)))
            .count()
    }

    /// Whether the run should exit non-zero: a root failed, (in check mode) a lock file
    /// is missing or out of date, or (with `fail_on_write`) one was written.
    pub(crate) fn is_failure(&self) -> bool {
        let changed = self.count(Change::Created) + self.count(Change::Updated) > 0;
        self.failed() > 0 || (changed && (self.check || self.fail_on_write))
    }

    /// The lock files this run created or updated (none in check mode), in path order.
    pub(crate) fn written(&self) -> Vec<PathBuf> {
        if self.check {
            return Vec::new();
        }
        self.roots
            .iter()
            .filter(|r| matches!(r.outcome.change(), Some(Change::Created | Change::Updated)))
            .map(|r| r.dir.join(crate::stages::write::LOCK_FILE_NAME))
            .collect()
    }
}

/// Writes the plain-text report.
pub(crate) fn print_text(
    report: &RunReport,
    verbosity: Verbosity,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let width = if report.check { 12 } else { 9 };
    for root in &report.roots {
        let changes = matches!(
            root.outcome.change(),
            Some(Change::Created | Change::Updated)
        );
        let needs_attention =
            matches!(root.outcome, RootOutcome::Failed(_)) || (report.check && changes);
        if verbosity == Verbosity::Quiet && !needs_attention {
            continue;
        }
        let kind = match root.kind {
            RootKind::Unit => " (terragrunt unit)",
            RootKind::Module => "",
        };
        let word = root.outcome.word(report.check);
        writeln!(out, "{word:<width$} {}{kind}", root.dir.display())?;
        if let Some(detail) = root.outcome.detail() {
            for line in detail.lines() {
                writeln!(out, "{:width$} {line}", "")?;
            }
        }
        for change in root.outcome.changes() {
            writeln!(out, "{:width$} {}", "", changes::describe(change))?;
        }
        if let Some(diff) = root.outcome.diff() {
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

/// The roots part of the summary: `2 roots: 1 created, …, 0 failed`.
fn summary_counts(report: &RunReport) -> String {
    let counts = (
        report.count(Change::Created),
        report.count(Change::Updated),
        report.count(Change::Unchanged),
    );
    let roots = if report.check {
        format!(
            "{} missing, {} out of date, {} up to date",
            counts.0, counts.1, counts.2
        )
    } else {
        format!(
            "{} created, {} updated, {} unchanged",
            counts.0, counts.1, counts.2
        )
    };
    format!(
        "{} {}: {roots}, {} failed",
        report.roots.len(),
        plural(report.roots.len(), "root", "roots"),
        report.failed(),
    )
}

/// The one-line summary: roots by outcome, packages, bytes, time.
pub(crate) fn summary(report: &RunReport) -> String {
    let stats = &report.stats;
    format!(
        "{}; packages: {} downloaded ({}), {} from cache{}; {}",
        summary_counts(report),
        stats.packages_downloaded,
        HumanBytes(stats.zip_bytes_downloaded),
        stats.packages_from_cache,
        modules_summary(&report.modules),
        elapsed(report.elapsed),
    )
}

/// `; modules: 3 fetched, 2 from cache`, or nothing when no remote module was needed.
fn modules_summary(modules: &ModuleStats) -> String {
    if modules.modules_fetched + modules.modules_from_cache == 0 {
        return String::new();
    }
    format!(
        "; modules: {} fetched, {} from cache",
        modules.modules_fetched, modules.modules_from_cache
    )
}

pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn elapsed(d: Duration) -> String {
    if d.as_secs() >= 60 {
        HumanDuration(d).to_string()
    } else {
        format!("{:.2}s", d.as_secs_f64())
    }
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
    /// Added in schema 1 without a bump: a new field breaks no reader.
    changes: &'a [ProviderChange],
}

#[derive(Serialize)]
struct JsonStats {
    roots: usize,
    created: usize,
    updated: usize,
    unchanged: usize,
    /// Always 0: no root is skipped since remote Terragrunt sources are fetched. Kept
    /// so that schema 1 readers find every field they were promised.
    skipped: usize,
    failed: usize,
    packages_downloaded: u64,
    packages_from_cache: u64,
    bytes_downloaded: u64,
    sums_fetched: u64,
    modules_fetched: usize,
    modules_from_cache: usize,
}

/// Writes the JSON report (one document, then a newline).
pub(crate) fn print_json(report: &RunReport, out: &mut impl Write) -> std::io::Result<()> {
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
                kind: match root.kind {
                    RootKind::Unit => "terragrunt_unit",
                    RootKind::Module => "module",
                },
                outcome: root.outcome.record_word(),
                detail: root.outcome.detail(),
                diff: root.outcome.diff(),
                changes: root.outcome.changes(),
            })
            .collect(),
        warnings: &report.warnings,
        stats: JsonStats {
            roots: report.roots.len(),
            created: report.count(Change::Created),
            updated: report.count(Change::Updated),
            unchanged: report.count(Change::Unchanged),
            skipped: 0,
            failed: report.failed(),
            packages_downloaded: stats.packages_downloaded,
            packages_from_cache: stats.packages_from_cache,
            bytes_downloaded: stats.zip_bytes_downloaded,
            sums_fetched: stats.sums_fetched,
            modules_fetched: report.modules.modules_fetched,
            modules_from_cache: report.modules.modules_from_cache,
        },
        elapsed_ms: u64::try_from(report.elapsed.as_millis()).unwrap_or(u64::MAX),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// Writes the markdown report for a pull-request comment or `$GITHUB_STEP_SUMMARY`: a
/// heading with the summary, a table with one row per root that changed (check mode:
/// would change) or failed, and below it one collapsed `<details>` per such root with
/// its changes or its error. Paths, versions and reasons are put in code spans, so a
/// repository's names cannot inject markup.
pub(crate) fn print_markdown(report: &RunReport, out: &mut impl Write) -> std::io::Result<()> {
    let title = if report.check {
        "tfsum lock --check"
    } else {
        "tfsum lock"
    };
    writeln!(
        out,
        "### {title}
"
    )?;
    writeln!(
        out,
        "{}
",
        summary_counts(report)
    )?;
    let listed: Vec<&RootReport> = report
        .roots
        .iter()
        .filter(|r| {
            matches!(r.outcome, RootOutcome::Failed(_))
                || matches!(r.outcome.change(), Some(Change::Created | Change::Updated))
        })
        .collect();
    if listed.is_empty() {
        return writeln!(out, "No lock file changes.");
    }
    writeln!(out, "| Root | Outcome | Changes |")?;
    writeln!(out, "|---|---|---|")?;
    for root in &listed {
        writeln!(
            out,
            "| {} | {} | {} |",
            code(&root.dir.display().to_string()),
            root.outcome.word(report.check),
            tally(root.outcome.changes())
        )?;
    }
    for root in &listed {
        writeln!(
            out,
            "\n<details><summary><code>{}</code> ({})</summary>\n",
            html_escape(&root.dir.display().to_string()),
            root.outcome.word(report.check)
        )?;
        match &root.outcome {
            RootOutcome::Failed(error) => {
                for line in error.to_string().lines() {
                    writeln!(out, "- {}", code(line))?;
                }
            }
            _ => {
                for change in root.outcome.changes() {
                    writeln!(out, "- {}", code(&changes::describe(change)))?;
                }
            }
        }
        writeln!(out, "\n</details>")?;
    }
    Ok(())
}

/// `3 added, 1 removed, …` for a table cell.
fn tally(list: &[ProviderChange]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for change in list {
        let word = match change {
            ProviderChange::Added { .. } => "added",
            ProviderChange::Removed { .. } => "removed",
            ProviderChange::VersionChanged { .. } => "version moved",
            ProviderChange::ConstraintsChanged { .. } => "constraints changed",
            ProviderChange::HashesAdded { .. } => "hashes added",
            ProviderChange::HashesRemoved { .. } => "hashes dropped",
        };
        match counts.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += 1,
            None => counts.push((word, 1)),
        }
    }
    if counts.is_empty() {
        return "layout only".to_string();
    }
    counts
        .iter()
        .map(|(word, n)| format!("{n} {word}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `text` safe inside HTML (GitHub renders no markdown in a `<summary>`).
fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `text` as a markdown code span that no backtick, pipe or newline in it can break.
pub(crate) fn code(text: &str) -> String {
    let text = text.replace('|', "\\|").replace(['\n', '\r'], " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository's directory names end up in the markdown report: no backtick, pipe
    /// or newline in them can leave the code span or break the table row.
    #[test]
    fn code_spans_hold_any_name() {
        for (name, want) in [
            ("envs/prod", "`envs/prod`"),
            ("a`b", "``a`b``"),
            ("`x", "`` `x ``"),
            ("a|b", "`a\\|b`"),
            ("two\nlines", "`two lines`"),
            ("<img src=x>", "`<img src=x>`"),
        ] {
            assert_eq!(code(name), want, "{name:?}");
        }
        assert_eq!(html_escape("<b>&"), "&lt;b&gt;&amp;");
    }
}
