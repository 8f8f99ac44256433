//! What the write stage says about each root: [`RootReport`], with the [`RootOutcome`]
//! the report prints and the run record keeps.

use std::path::PathBuf;

use super::changes::ProviderChange;
use super::Change;
use crate::stages::root::{RootError, RootKind};

/// The outcome for one root module or Terragrunt unit.
#[derive(Debug)]
pub(crate) struct RootReport {
    /// The directory holding the lock file.
    pub dir: PathBuf,
    pub kind: RootKind,
    pub outcome: RootOutcome,
}

#[derive(Debug)]
pub(crate) enum RootOutcome {
    /// The lock file was written, or (check mode) compared. `drift` explains a file that
    /// check mode found missing or out of date.
    Done {
        change: Change,
        drift: Option<Drift>,
        /// What the new file changes, provider by provider; empty when unchanged.
        changes: Vec<ProviderChange>,
    },
    Failed(RootError),
}

/// What is wrong with a lock file check mode would change.
#[derive(Debug)]
pub(crate) struct Drift {
    /// One sentence per problem ([`crate::stages::write::drift::explain`]).
    pub problems: Vec<String>,
    /// A unified diff from the current to the expected file.
    pub diff: String,
}

impl RootOutcome {
    /// The report word: `created`, `updated`, `unchanged` or `failed`; in
    /// check mode `would create`, `would update`, `up to date` for the first three.
    pub(crate) fn word(&self, check: bool) -> &'static str {
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
    pub(crate) fn record_word(&self) -> &'static str {
        self.word(false)
    }

    pub(crate) fn change(&self) -> Option<Change> {
        match self {
            RootOutcome::Done { change, .. } => Some(*change),
            _ => None,
        }
    }

    /// Why it failed, or (check mode) what is wrong with its lock file.
    pub(crate) fn detail(&self) -> Option<String> {
        match self {
            RootOutcome::Done { drift, .. } => drift.as_ref().map(|d| d.problems.join("\n")),
            RootOutcome::Failed(error) => Some(error.to_string()),
        }
    }

    /// What the new lock file changes (check mode: would change), provider by provider.
    pub(crate) fn changes(&self) -> &[ProviderChange] {
        match self {
            RootOutcome::Done { changes, .. } => changes,
            _ => &[],
        }
    }

    pub(crate) fn diff(&self) -> Option<&str> {
        match self {
            RootOutcome::Done {
                drift: Some(drift), ..
            } => Some(&drift.diff),
            _ => None,
        }
    }
}
