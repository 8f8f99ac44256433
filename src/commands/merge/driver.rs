//! `tfsum merge-driver BASE OURS THEIRS [PATH]`: git's custom merge driver contract
//! (gitattributes(5), "Defining a custom merge driver"). Git runs
//! `tfsum merge-driver %O %A %B %P` with three temporary files: the common ancestor's
//! version (empty when both sides added the file), ours and theirs, plus the file's path in
//! the repository. The driver leaves the result in OURS and exits 0 when the merge is clean
//! or non-zero to have git mark the path conflicted.
//!
//! Here: read and validate the three files as `tfsum fmt` does ([`lockfile::read`]:
//! UTF-8, no conflict markers, a valid lock file), [`merge`] them, and replace OURS with
//! the canonical rendering, atomically. An input that cannot be read is an error and OURS
//! is left as it is, so git keeps our version and marks the path conflicted.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use tfsum_vocab::lockfile::{self, LockFile, ReadError};

use super::{merge, Merged};

/// The files git names: `%O %A %B %P`.
#[derive(Debug, Clone)]
pub(crate) struct DriverFiles {
    pub base: PathBuf,
    /// Read as our side, then replaced by the result.
    pub ours: PathBuf,
    pub theirs: PathBuf,
    /// The path in the repository, for messages; without it, `ours` is named.
    pub path: Option<PathBuf>,
}

impl DriverFiles {
    /// The lock file as the user knows it.
    fn shown(&self) -> &Path {
        self.path.as_deref().unwrap_or(&self.ours)
    }
}

/// Which input a read error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    Base,
    Ours,
    Theirs,
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Input::Base => "the common ancestor's version",
            Input::Ours => "our version",
            Input::Theirs => "their version",
        })
    }
}

/// Why nothing was merged. OURS is unchanged in every case.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DriverError {
    #[error("cannot merge {}: cannot read {input} ({}): {source}", .shown.display(), .file.display())]
    Read {
        shown: PathBuf,
        input: Input,
        file: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "cannot merge {}: {input} {}\n{UNREADABLE_HINT}",
        .shown.display(),
        problem(.error)
    )]
    Unreadable {
        shown: PathBuf,
        input: Input,
        #[source]
        error: ReadError,
    },
    #[error("cannot merge {}: cannot write the result to {}: {source}", .shown.display(), .file.display())]
    Write {
        shown: PathBuf,
        file: PathBuf,
        #[source]
        source: io::Error,
    },
}

const UNREADABLE_HINT: &str =
    "  our version is kept and git marks the file conflicted; repair it (`tfsum fmt` \
checks it)\n  or take one side (`git checkout --ours` or `--theirs`), then run `tfsum lock` and \
`git add` it";

/// The parser's complaint, worded for one of three inputs.
fn problem(error: &ReadError) -> String {
    match error {
        ReadError::MergeConflict { line } => {
            format!("holds git conflict markers at line {line}: it was committed unresolved")
        }
        ReadError::NotUtf8 { line } => format!("is not valid UTF-8 at line {line}"),
        ReadError::Invalid(invalid) => {
            let mut out = String::from("is not a valid lock file:");
            for problem in &invalid.problems {
                out.push_str("\n    ");
                out.push_str(&problem.to_string());
            }
            out
        }
    }
}

/// A finished merge: OURS holds `merged.lock`. `Display` is the text for stderr: nothing
/// for a clean merge that dropped no hashes.
#[derive(Debug)]
pub(crate) struct DriverReport {
    pub shown: PathBuf,
    pub merged: Merged,
}

impl DriverReport {
    pub(crate) fn is_clean(&self) -> bool {
        self.merged.is_clean()
    }

    /// The root module directory, as `tfsum lock` wants it.
    fn root(&self) -> String {
        match self.shown.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.display().to_string(),
            _ => ".".to_string(),
        }
    }
}

impl fmt::Display for DriverReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.shown.display();
        let root = self.root();
        for dropped in &self.merged.dropped {
            writeln!(
                f,
                "tfsum merge-driver: {shown}: note: {}: {} added hashes for {}, which the merge \
                 replaced by {}; if they were for another platform, run `tfsum lock {root}`",
                dropped.addr, dropped.side, dropped.version, dropped.kept
            )?;
        }
        let conflicts = &self.merged.conflicts;
        if conflicts.is_empty() {
            return Ok(());
        }
        let count = match conflicts.len() {
            1 => "1 conflict".to_string(),
            n => format!("{n} conflicts"),
        };
        writeln!(
            f,
            "tfsum merge-driver: {shown}: {count} left; the file keeps our side of each:"
        )?;
        for conflict in conflicts {
            writeln!(f, "  {conflict}")?;
        }
        writeln!(
            f,
            "Resolve the configuration (required_providers, .tf or .tofu files), then run\n  \
             tfsum lock {root}\n  git add {shown}"
        )
    }
}

/// Reads the three files, merges them and writes the result over OURS.
pub(crate) fn run(files: &DriverFiles) -> Result<DriverReport, DriverError> {
    let shown = files.shown().to_path_buf();
    let read = |input: Input, file: &Path| -> Result<(Vec<u8>, Option<LockFile>), DriverError> {
        let bytes = std::fs::read(file).map_err(|source| DriverError::Read {
            shown: shown.clone(),
            input,
            file: file.to_path_buf(),
            source,
        })?;
        let lock = parse_side(&bytes).map_err(|error| DriverError::Unreadable {
            shown: shown.clone(),
            input,
            error,
        })?;
        Ok((bytes, lock))
    };
    let (_, base) = read(Input::Base, &files.base)?;
    let (ours_bytes, ours) = read(Input::Ours, &files.ours)?;
    let (_, theirs) = read(Input::Theirs, &files.theirs)?;

    let merged = merge(base.as_ref(), ours.as_ref(), theirs.as_ref());
    let rendered = merged.lock.render();
    if rendered.as_bytes() != ours_bytes.as_slice() {
        tfsum_disk::atomic::replace_file(&files.ours, rendered.as_bytes()).map_err(|source| {
            DriverError::Write {
                shown: shown.clone(),
                file: files.ours.clone(),
                source,
            }
        })?;
    }
    Ok(DriverReport { shown, merged })
}

/// A side's lock file; `None` for an empty file, which is how git passes a missing one.
fn parse_side(bytes: &[u8]) -> Result<Option<LockFile>, ReadError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    lockfile::read(bytes).map(Some)
}
