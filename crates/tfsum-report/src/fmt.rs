//! What `tfsum fmt` did, file by file, and its printing.

use std::io::{self, Write};
use std::path::PathBuf;

use super::{plural, Verbosity};
use tfsum_disk::atomic::LinkEscape;
use tfsum_disk::walk::FindError;
use tfsum_stages::write::Change;
use tfsum_vocab::lockfile::ReadError;

/// One entry per lock file found, plus one per path that yielded none, in the order the
/// paths were given (and by file name below a directory), so output is deterministic.
#[derive(Debug, Default)]
pub struct FmtReport {
    pub files: Vec<FmtFile>,
}

impl FmtReport {
    /// True when any entry failed: the run should exit non-zero.
    pub fn has_failures(&self) -> bool {
        self.files.iter().any(|f| f.outcome.is_err())
    }

    /// True when any file was rewritten or, in check mode, would be.
    pub fn has_changes(&self) -> bool {
        self.files
            .iter()
            .any(|f| matches!(&f.outcome, Ok(done) if done.change != Change::Unchanged))
    }
}

/// The result for one path. `Display` gives a one-line summary naming the path (the
/// diff is not included; print it separately).
#[derive(Debug)]
pub struct FmtFile {
    pub path: PathBuf,
    /// What was done, or why nothing was written.
    pub outcome: Result<Formatted, FmtError>,
}

impl std::fmt::Display for FmtFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.outcome {
            Ok(done) => match (done.change, &done.diff) {
                (Change::Unchanged, _) => write!(f, "{path}: already canonical"),
                (_, None) => write!(f, "{path}: reformatted"),
                (_, Some(_)) => write!(f, "{path}: would be reformatted"),
            },
            Err(error) => write!(f, "{path}: {error}"),
        }
    }
}

/// What fmt did to one file (or, in check mode, would do).
#[derive(Debug)]
pub struct Formatted {
    /// `Unchanged`: already byte-identical to the canonical form, not opened for writing;
    /// `Updated`: rewritten (check mode: would be).
    pub change: Change,
    /// Check mode: a unified diff from the file to its canonical form, labelled
    /// `a/<path>` and `b/<path>` (an absolute path as it is).
    pub diff: Option<String>,
}

/// Why a path was not formatted. The path itself is in [`FmtFile`]; these messages are
/// about what is wrong with it, with a line number wherever there is one.
#[derive(Debug, thiserror::Error)]
pub enum FmtError {
    #[error(transparent)]
    Find(#[from] FindError),
    #[error("cannot read: {0}")]
    Read(#[source] io::Error),
    #[error("{0}")]
    Link(#[source] LinkEscape),
    #[error("cannot write (file left unchanged): {0}")]
    Write(#[source] io::Error),
    /// fmt does not guess which side of a conflict to keep.
    #[error("{}", unreadable_message(.0))]
    Unreadable(#[source] ReadError),
}

fn unreadable_message(error: &ReadError) -> String {
    match error {
        ReadError::NotUtf8 { line } => format!("not valid UTF-8 at line {line}; left unchanged"),
        ReadError::MergeConflict { line } => {
            format!("unresolved merge conflict at line {line}; resolve it, then run fmt again")
        }
        ReadError::Invalid(invalid) => {
            let mut out = String::from("not a valid lock file; left unchanged:");
            for problem in &invalid.problems {
                out.push_str("\n  ");
                out.push_str(&problem.to_string());
            }
            out
        }
    }
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
            Ok(formatted) if formatted.change == Change::Unchanged => {
                unchanged += 1;
                false
            }
            Ok(formatted) => {
                changed += 1;
                formatted.diff.is_some()
            }
            Err(_) => {
                failed += 1;
                true
            }
        };
        if verbosity == Verbosity::Quiet && !attention {
            continue;
        }
        writeln!(out, "{file}")?;
        if let Ok(formatted) = &file.outcome {
            if let Some(diff) = &formatted.diff {
                out.write_all(diff.as_bytes())?;
            }
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
        plural(report.files.len(), "file", "files")
    )
}
