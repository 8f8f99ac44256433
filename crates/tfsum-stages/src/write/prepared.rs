//! The write stage without the writing: each root's new lock file rendered and compared
//! as [`super::write`] does, handed back to a caller that writes it together with other
//! files, all or none (`tfsum upgrade` writes configuration edits and lock files in one
//! go).

use std::path::PathBuf;

use super::{changes, compare, drift, merge, Change, Narrow, RootOutcome, RootReport};
use crate::hash::Hashes;
use crate::resolve::Planned;
use crate::root::Root;
use tfsum_vocab::progress::Progress;

/// A lock file to write: where (a link within the tree already followed), what, and
/// what it holds now (`None`: it does not exist).
#[derive(Debug)]
pub struct PendingWrite {
    pub path: PathBuf,
    pub content: String,
    pub old: Option<Vec<u8>>,
}

/// One root's outcome as a write would report it, and the write it needs, if any.
#[derive(Debug)]
pub struct Prepared {
    pub report: RootReport,
    pub write: Option<PendingWrite>,
}

/// Stage 5 up to the write: every root's outcome, in order, with the lock files still to
/// be written.
pub fn prepare(
    roots: Vec<Root<Planned>>,
    hashes: &Hashes,
    narrow: Narrow<'_>,
    progress: &dyn Progress,
) -> Vec<Prepared> {
    roots
        .into_iter()
        .map(|root| {
            let (outcome, write) = match root.stage {
                Ok(planned) => match merge(&planned, hashes, narrow) {
                    Ok((new, origins)) => {
                        let content = new.render();
                        let old = planned.loaded.old.as_ref();
                        let change = compare(old.map(|o| o.bytes.as_slice()), &content);
                        let (changes, file) = if change == Change::Unchanged {
                            (Vec::new(), None)
                        } else {
                            let changes = changes::between(old.map(|o| &o.lock), &new, &origins);
                            let file = drift::file_change(old.map(|o| &o.lock), &new, &changes);
                            (changes, file)
                        };
                        let write = (change != Change::Unchanged).then(|| PendingWrite {
                            path: planned.loaded.lock_path.clone(),
                            content,
                            old: old.map(|o| o.bytes.clone()),
                        });
                        let outcome = RootOutcome::Done {
                            change,
                            file,
                            changes,
                            diff: None,
                        };
                        (outcome, write)
                    }
                    Err(e) => (RootOutcome::Failed(e), None),
                },
                Err(e) => (RootOutcome::Failed(e), None),
            };
            progress.root_done(&root.dir, outcome.word(false));
            Prepared {
                report: RootReport {
                    dir: root.dir,
                    kind: root.kind,
                    outcome,
                },
                write,
            }
        })
        .collect()
}
