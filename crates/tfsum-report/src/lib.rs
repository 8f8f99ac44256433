//! What every command did, as values, and its printing: the one place reports are
//! written.
//!
//! `tfsum-report` owns the report model of every command and its text, markdown and
//! JSON printers, the progress bars and the run record of `--retry-failed`. It uses the
//! stages' outcomes and the types below them; it never runs a stage and never reads a
//! flag.
//!
//! This file holds the `lock` report ([`RunReport`], one [`RootReport`] per root,
//! built by the write stage from what the stages returned) and its text and markdown;
//! [`json`] its JSON (and `mirror`'s); each other command's report is a file of its own
//! ([`fmt`], [`verify`], [`upgrade`], [`outdated`], [`mirror`]). Beside them:
//! [`progress_bar`] (progress on a terminal or in the log) and [`run_record`] (the
//! failed roots that `--retry-failed` reads).
//!
//! Text is for people and logs: one line per root in path order (the reason indented
//! below a failure; below a changed root what changed, in check mode then the diff), then
//! warnings, then one summary line. With `quiet`, only the roots that need attention are
//! printed. The only varying part between two identical runs is the time in the summary.
//!
//! JSON (`--format json`) is one document for programs; its schema is documented in
//! docs/json-report.md and versioned by `schema_version`. Errors and warnings are
//! there as text and, beside it, as their kind and the data they name
//! ([`json::errors`], [`json::warnings`]).

#![warn(unreachable_pub)]

pub mod fmt;
pub mod json;
pub mod mirror;
pub mod outdated;
pub mod progress_bar;
pub mod publish;
pub mod run_record;
pub mod upgrade;
pub mod verify;

pub use json::print_json;

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use indicatif::{HumanBytes, HumanDuration};

use tfsum_sources::modules::ModuleStats;
use tfsum_sources::SourceStats;
use tfsum_stages::root::{RootError, RootKind};
use tfsum_stages::warning::Warning;
use tfsum_stages::write::changes::ProviderChange;
use tfsum_stages::write::drift::FileChange;
use tfsum_stages::write::{Change, RootOutcome, RootReport};

/// Bumped on any incompatible change to the JSON report.
pub(crate) const JSON_SCHEMA_VERSION: u32 = 1;

/// How much of the report to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// Only roots that failed or (check mode) would change.
    Quiet,
    Normal,
}

/// The outcome of a whole `lock` run.
#[derive(Debug)]
pub struct RunReport {
    pub check: bool,
    /// `--fail-on-write`: a lock file created or updated fails the run.
    pub fail_on_write: bool,
    pub roots: Vec<RootReport>,
    pub warnings: Vec<Warning>,
    pub stats: SourceStats,
    /// Remote module packages fetched and taken from the module cache.
    pub modules: ModuleStats,
    pub elapsed: Duration,
    /// What `--mirror DIR` placed in the provider directory.
    pub mirror: Option<mirror::MirrorReport>,
}

impl RunReport {
    /// Roots whose lock file was (check mode: would be) changed this way.
    pub(crate) fn count(&self, change: Change) -> usize {
        self.roots
            .iter()
            .filter(|r| r.outcome.change() == Some(change))
            .count()
    }

    pub fn failed(&self) -> usize {
        self.roots
            .iter()
            .filter(|r| matches!(r.outcome, RootOutcome::Failed(_)))
            .count()
    }

    /// Whether the run should exit non-zero: a root failed, (in check mode) a lock file
    /// is missing or out of date, or (with `fail_on_write`) one was written.
    pub fn is_failure(&self) -> bool {
        let changed = self.count(Change::Created) + self.count(Change::Updated) > 0;
        self.failed() > 0
            || (changed && (self.check || self.fail_on_write))
            || self.mirror.as_ref().is_some_and(|m| m.is_failure())
    }

    /// The lock files this run created or updated (none in check mode), in path order.
    pub fn written(&self) -> Vec<PathBuf> {
        if self.check {
            return Vec::new();
        }
        self.roots
            .iter()
            .filter(|r| matches!(r.outcome.change(), Some(Change::Created | Change::Updated)))
            .map(|r| r.dir.join(tfsum_stages::write::LOCK_FILE_NAME))
            .collect()
    }
}

/// What text puts after a root's path to say what kind of root it is: nothing for a
/// root module.
pub(crate) fn kind_suffix(kind: RootKind) -> &'static str {
    match kind {
        RootKind::Unit => " (terragrunt unit)",
        RootKind::Stack => " (terragrunt stack)",
        RootKind::TerraformStack => " (terraform stack)",
        RootKind::Module => "",
    }
}

/// A root's kind in JSON documents (docs/json-report.md, `roots[].kind`).
pub(crate) fn kind_word(kind: RootKind) -> &'static str {
    match kind {
        RootKind::Unit => "terragrunt_unit",
        RootKind::Stack => "terragrunt_stack",
        RootKind::TerraformStack => "terraform_stack",
        RootKind::Module => "module",
    }
}

/// Writes the plain-text report.
pub fn print_text(
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
        let kind = kind_suffix(root.kind);
        let word = root.outcome.word(report.check);
        writeln!(out, "{word:<width$} {}{kind}", root.dir.display())?;
        for line in detail(&root.outcome, report.check) {
            writeln!(out, "{:width$} {line}", "")?;
        }
        if let Some(diff) = root.outcome.diff() {
            out.write_all(diff.as_bytes())?;
        }
    }
    if verbosity == Verbosity::Quiet {
        return Ok(());
    }
    for warning in report.warnings.iter().filter(|w| !w.is_about_environment()) {
        writeln!(out, "warning: {warning}")?;
    }
    writeln!(out, "{}", summary(report))
}

/// The text report's warnings about this machine rather than the repository (its CLI
/// configuration): for stderr, beside the notes about settings, so that stdout holds only
/// what the repository's lock files need.
pub fn print_environment_warnings(
    report: &RunReport,
    verbosity: Verbosity,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if verbosity == Verbosity::Quiet {
        return Ok(());
    }
    for warning in report.warnings.iter().filter(|w| w.is_about_environment()) {
        writeln!(out, "warning: {warning}")?;
    }
    Ok(())
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

/// What is said below a root's line, one item per line: why it failed; or what changed,
/// provider by provider, after (in check mode) what changes about the file as a whole.
pub(crate) fn detail(outcome: &RootOutcome, check: bool) -> Vec<String> {
    if let Some(error) = outcome.error() {
        return error.to_string().lines().map(str::to_string).collect();
    }
    let file = outcome.file_change().filter(|_| check);
    file.iter()
        .map(ToString::to_string)
        .chain(outcome.changes().iter().map(ToString::to_string))
        .collect()
}

/// The one-line summary: roots by outcome, packages, bytes, time.
pub(crate) fn summary(report: &RunReport) -> String {
    let stats = &report.stats;
    format!(
        "{}; packages: {} downloaded ({}), {} from cache{}{}; {}",
        summary_counts(report),
        stats.packages_downloaded,
        HumanBytes(stats.zip_bytes_downloaded),
        stats.packages_from_cache,
        other_sources(stats),
        modules_summary(&report.modules),
        elapsed(report.elapsed),
    )
}

/// `, 3 from mirror`, or nothing when no package came from a mirror; then, when a
/// shared cache was configured, `, 12 from shared cache (4 written to it, 1 rejected
/// (signature))`.
pub(crate) fn other_sources(stats: &SourceStats) -> String {
    let mut text = match stats.packages_from_mirror {
        0 => String::new(),
        n => format!(", {n} from mirror"),
    };
    if let Some(shared) = &stats.shared {
        text.push_str(&format!(
            ", {} from shared cache ({} written to it, {} rejected (signature))",
            shared.read, shared.written, shared.rejected
        ));
    }
    text
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

pub fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
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

/// Writes the markdown report for a pull-request comment or `$GITHUB_STEP_SUMMARY`: a
/// heading with the summary, a table with one row per root that changed (check mode:
/// would change) or failed, and below it one collapsed `<details>` per such root with
/// its changes or its error. Paths, versions and reasons are put in code spans, so a
/// repository's names cannot inject markup.
pub fn print_markdown(report: &RunReport, out: &mut impl Write) -> std::io::Result<()> {
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
            cell_code(&root.dir.display().to_string()),
            root.outcome.word(report.check),
            tally(&root.outcome)
        )?;
    }
    for root in &listed {
        writeln!(
            out,
            "\n<details><summary><code>{}</code> ({})</summary>\n",
            html_escape(&root.dir.display().to_string()),
            root.outcome.word(report.check)
        )?;
        for line in detail(&root.outcome, report.check) {
            writeln!(out, "- {}", code(&line))?;
        }
        writeln!(out, "\n</details>")?;
    }
    Ok(())
}

/// The Changes cell of a root's row: `1 added, 1 version moved, 10 hashes added, …`
/// (providers counted, hashes counted one by one); for a failed root, why nothing
/// changed; for a file whose entries did not change, what did.
fn tally(outcome: &RootOutcome) -> String {
    if let Some(error) = outcome.error() {
        return format!("none ({})", failure(error));
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for change in outcome.changes() {
        let (word, n) = match change {
            ProviderChange::Added { .. } => ("added", 1),
            ProviderChange::Removed { .. } => ("removed", 1),
            ProviderChange::VersionChanged { .. } => ("version moved", 1),
            ProviderChange::ConstraintsChanged { .. } => ("constraints changed", 1),
            ProviderChange::HashesAdded { .. } => ("hashes added", change.hash_count()),
            ProviderChange::HashesRemoved { .. } => ("hashes dropped", change.hash_count()),
        };
        match counts.iter_mut().find(|(w, _)| *w == word) {
            Some((_, total)) => *total += n,
            None => counts.push((word, n)),
        }
    }
    if counts.is_empty() {
        return match outcome.file_change() {
            Some(FileChange::Missing) => "no providers",
            Some(FileChange::Header) => "header only",
            Some(FileChange::Layout) | None => "layout only",
        }
        .to_string();
    }
    counts
        .iter()
        .map(|(word, n)| format!("{n} {word}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a root failed, in a few words for a table cell.
fn failure(error: &RootError) -> &'static str {
    match error {
        RootError::Config(_)
        | RootError::Stack { .. }
        | RootError::Terragrunt(_)
        | RootError::UnitSource { .. }
        | RootError::Constraint(_) => "configuration error",
        RootError::LockFile { .. } | RootError::Link(_) => "lock file unusable",
        RootError::Selection(_) => "no version chosen",
        RootError::Packages(_) => "packages not hashed",
        RootError::Write { .. } => "not written",
    }
}

/// `text` safe inside HTML (GitHub renders no markdown in a `<summary>`).
fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `text` as a markdown code span inside a table cell: as [`code`], with each `|`
/// escaped, since a table row ends at the first unescaped one (GitHub shows `\|` in a
/// cell's code span as `|`).
fn cell_code(text: &str) -> String {
    code(&text.replace('|', "\\|"))
}

/// `text` as a markdown code span that no backtick or newline in it can break. Outside
/// a table a `|` needs no escape (and an escape would show).
pub(crate) fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
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
            ("a|b", "`a|b`"),
            ("two\nlines", "`two lines`"),
            ("<img src=x>", "`<img src=x>`"),
        ] {
            assert_eq!(code(name), want, "{name:?}");
        }
        assert_eq!(cell_code("a|b"), "`a\\|b`");
        assert_eq!(html_escape("<b>&"), "&lt;b&gt;&amp;");
    }
}
