//! What `tfsum upgrade` did ([`UpgradeReport`]): each constraint edit with its place
//! (file:line, old → new), the values it could not edit, and the relock's own report
//! ([`RunReport`]), printed as text, JSON or markdown. The relock part is printed exactly
//! as `tfsum lock` prints it.

use std::io::Write;

use serde::Serialize;

use super::{code, plural, print_json, print_markdown, print_text, RunReport, Verbosity};
use tfsum_config::Location;
use tfsum_stages::write::Change;

/// Bumped on any incompatible change to the upgrade JSON report.
pub(crate) const UPGRADE_SCHEMA_VERSION: u32 = 1;

/// One constraint edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstraintEdit {
    pub at: Location,
    /// `required_providers`, `provider_block`, `module_version`, `module_ref` or
    /// `required_version`.
    pub kind: &'static str,
    /// What the constraint is on: a provider address, a module source, `required_version`.
    pub subject: String,
    pub from: String,
    pub to: String,
}

/// A value the upgrade names but did not edit, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpgradeNote {
    pub at: Location,
    pub message: String,
}

/// The outcome of one `tfsum upgrade` run.
#[derive(Debug)]
pub struct UpgradeReport {
    /// The command as the user would write it, for the markdown heading.
    pub title: String,
    pub check: bool,
    pub edits: Vec<ConstraintEdit>,
    pub notes: Vec<UpgradeNote>,
    /// The relock; `None` with `--no-lock`.
    pub lock: Option<RunReport>,
    /// Whether the edits and lock files were written (never in check mode, nor when a
    /// root failed to relock).
    pub written: bool,
    /// Why nothing was written although something would change, when that is a failure.
    pub aborted: Option<String>,
}

impl UpgradeReport {
    /// Edited files, counted once each.
    fn files(&self) -> usize {
        let mut files: Vec<&std::path::Path> = self.edits.iter().map(|e| &*e.at.file).collect();
        files.sort();
        files.dedup();
        files.len()
    }

    fn lock_changes(&self) -> bool {
        self.lock
            .as_ref()
            .is_some_and(|l| l.count(Change::Created) + l.count(Change::Updated) > 0)
    }

    /// Exit 1: a root failed to relock, nothing could be written, or (check mode)
    /// something would change.
    pub fn is_failure(&self) -> bool {
        let lock_failed = self.lock.as_ref().is_some_and(|l| l.failed() > 0);
        let changes = !self.edits.is_empty() || self.lock_changes();
        self.aborted.is_some() || lock_failed || (self.check && changes)
    }

    /// `3 constraints edited in 2 files` (check mode: `would be edited`).
    fn summary(&self) -> String {
        if self.edits.is_empty() {
            return "no constraint to change".to_string();
        }
        let verb = match (self.check, self.written) {
            (true, _) => "would be edited",
            (false, true) => "edited",
            (false, false) => "not edited",
        };
        format!(
            "{} {} {verb} in {} {}",
            self.edits.len(),
            plural(self.edits.len(), "constraint", "constraints"),
            self.files(),
            plural(self.files(), "file", "files"),
        )
    }
}

fn describe(edit: &ConstraintEdit) -> String {
    format!(
        "{}  {} {:?} → {:?}",
        edit.at, edit.subject, edit.from, edit.to
    )
}

/// Writes the text report: the edits, the notes, then the relock's report.
pub fn print_upgrade_text(
    report: &UpgradeReport,
    verbosity: Verbosity,
    out: &mut impl Write,
) -> std::io::Result<()> {
    // The column of the relock's report below.
    let width = if report.check { 12 } else { 9 };
    if verbosity != Verbosity::Quiet || report.check {
        for edit in &report.edits {
            let word = if report.check { "would edit" } else { "edited" };
            writeln!(out, "{word:<width$} {}", describe(edit))?;
        }
    }
    if verbosity != Verbosity::Quiet {
        for note in &report.notes {
            writeln!(out, "note: {}: {}", note.at, note.message)?;
        }
    }
    if let Some(lock) = &report.lock {
        print_text(lock, verbosity, out)?;
    }
    if verbosity != Verbosity::Quiet {
        writeln!(out, "{}", report.summary())?;
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonUpgrade<'a> {
    schema_version: u32,
    check: bool,
    ok: bool,
    written: bool,
    aborted: Option<&'a str>,
    edits: Vec<JsonEdit<'a>>,
    notes: Vec<JsonNote<'a>>,
    /// The relock's report, exactly `tfsum lock --format json`'s document.
    lock: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    file: String,
    line: usize,
    kind: &'a str,
    subject: &'a str,
    from: &'a str,
    to: &'a str,
}

#[derive(Serialize)]
struct JsonNote<'a> {
    file: String,
    line: usize,
    message: &'a str,
}

/// Writes the JSON report (one document, then a newline).
pub fn print_upgrade_json(report: &UpgradeReport, out: &mut impl Write) -> std::io::Result<()> {
    let lock = match &report.lock {
        Some(lock) => {
            let mut buf = Vec::new();
            print_json(lock, &mut buf)?;
            Some(serde_json::from_slice(&buf).map_err(std::io::Error::other)?)
        }
        None => None,
    };
    let doc = JsonUpgrade {
        schema_version: UPGRADE_SCHEMA_VERSION,
        check: report.check,
        ok: !report.is_failure(),
        written: report.written,
        aborted: report.aborted.as_deref(),
        edits: report
            .edits
            .iter()
            .map(|e| JsonEdit {
                file: e.at.file.to_string_lossy().into_owned(),
                line: e.at.line,
                kind: e.kind,
                subject: &e.subject,
                from: &e.from,
                to: &e.to,
            })
            .collect(),
        notes: report
            .notes
            .iter()
            .map(|n| JsonNote {
                file: n.at.file.to_string_lossy().into_owned(),
                line: n.at.line,
                message: &n.message,
            })
            .collect(),
        lock,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// Writes the markdown report: a heading, the summary, a table of the edits, the notes,
/// then the relock's markdown report. Everything from the repository is in code spans.
pub fn print_upgrade_markdown(report: &UpgradeReport, out: &mut impl Write) -> std::io::Result<()> {
    let check = if report.check { " --check" } else { "" };
    writeln!(out, "### {}{check}\n", report.title)?;
    writeln!(out, "{}\n", report.summary())?;
    if !report.edits.is_empty() {
        writeln!(out, "| Where | Constraint on | From | To |")?;
        writeln!(out, "|---|---|---|---|")?;
        for edit in &report.edits {
            writeln!(
                out,
                "| {} | {} | {} | {} |",
                code(&edit.at.to_string()),
                code(&edit.subject),
                code(&edit.from),
                code(&edit.to)
            )?;
        }
        writeln!(out)?;
    }
    for note in &report.notes {
        writeln!(
            out,
            "- note: {} {}",
            code(&note.at.to_string()),
            code(&note.message)
        )?;
    }
    if !report.notes.is_empty() {
        writeln!(out)?;
    }
    if let Some(reason) = &report.aborted {
        writeln!(out, "**Nothing was written:** {}\n", code(reason))?;
    }
    if let Some(lock) = &report.lock {
        print_markdown(lock, out)?;
    }
    Ok(())
}
