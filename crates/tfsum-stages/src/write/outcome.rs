//! What the write stage says about each root: [`RootReport`], with the [`RootOutcome`]
//! the report prints and the run record keeps.

use std::path::PathBuf;

use super::changes::ProviderChange;
use super::drift::FileChange;
use super::Change;
use crate::root::{RootError, RootKind};

/// The outcome for one root module or Terragrunt unit.
#[derive(Debug)]
pub struct RootReport {
    /// The directory holding the lock file.
    pub dir: PathBuf,
    pub kind: RootKind,
    pub outcome: RootOutcome,
}

#[derive(Debug)]
pub enum RootOutcome {
    /// The lock file was written, or (check mode) compared.
    Done {
        change: Change,
        /// What changes about the file as a whole (missing, header or layout only);
        /// `None` when it is unchanged or its entries say what changed.
        file: Option<FileChange>,
        /// What the new file changes, provider by provider; empty when unchanged.
        changes: Vec<ProviderChange>,
        /// Check mode: a unified diff from the current to the expected file, for a file
        /// that would change.
        diff: Option<String>,
    },
    Failed(RootError),
}

impl RootOutcome {
    /// The report word: `created`, `updated`, `unchanged` or `failed`; in
    /// check mode `would create`, `would update`, `up to date` for the first three.
    pub fn word(&self, check: bool) -> &'static str {
        match (self, check) {
            (RootOutcome::Done { change, .. }, false) => change.as_str(),
            (RootOutcome::Done { change, .. }, true) => match change {
                Change::Created => "would create",
                Change::Updated => "would update",
                Change::Unchanged => "up to date",
            },
            (RootOutcome::Failed(_), _) => "failed",
        }
    }

    /// The word of the run record (`--retry-failed`): never the check-mode phrasing.
    pub fn record_word(&self) -> &'static str {
        self.word(false)
    }

    pub fn change(&self) -> Option<Change> {
        match self {
            RootOutcome::Done { change, .. } => Some(*change),
            _ => None,
        }
    }

    /// The change to the file as a whole, if that is news.
    pub fn file_change(&self) -> Option<FileChange> {
        match self {
            RootOutcome::Done { file, .. } => *file,
            _ => None,
        }
    }

    /// What the new lock file changes (check mode: would change), provider by provider.
    pub fn changes(&self) -> &[ProviderChange] {
        match self {
            RootOutcome::Done { changes, .. } => changes,
            _ => &[],
        }
    }

    pub fn diff(&self) -> Option<&str> {
        match self {
            RootOutcome::Done { diff, .. } => diff.as_deref(),
            _ => None,
        }
    }

    pub fn error(&self) -> Option<&RootError> {
        match self {
            RootOutcome::Failed(error) => Some(error),
            _ => None,
        }
    }
}
