//! Stage 5 of the pipeline (docs/design.md "write"): each planned root's new lock file, built
//! from its old one by the `providers lock` merge (spec §9) plus `init`'s pruning of
//! providers no longer required, rendered whole, compared with what is on disk and
//! replaced atomically ([`crate::disk::atomic`]) only when the bytes differ. In check mode
//! nothing is written and what would change is explained ([`crate::stages::write::drift`]) with a
//! unified diff.

use std::collections::BTreeMap;
use std::path::Path;

pub(crate) mod changes;
pub(crate) mod diff;
pub(crate) mod drift;
mod outcome;
pub(crate) mod prepared;

pub(crate) use outcome::{Drift, RootOutcome, RootReport};

use crate::sources::{Package, PackageHashes};
use crate::stages::hash::Hashes;
use crate::stages::resolve::Planned;
use crate::stages::root::{Root, RootError};
use crate::vocab::addr::ProviderAddr;
use crate::vocab::lockfile::{self, LockFile};
use crate::vocab::progress::Progress;
use changes::ProviderChange;

pub(crate) use crate::vocab::lockfile::LOCK_FILE_NAME;

/// What a write did (or, in check mode, would do) to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// The file did not exist.
    Created,
    /// The file was replaced.
    Updated,
    /// The file already held exactly these bytes and was not touched.
    Unchanged,
}

impl Change {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Change::Created => "created",
            Change::Updated => "updated",
            Change::Unchanged => "unchanged",
        }
    }
}

/// What writing `new` over `old` (the current bytes, if any) would do.
pub(crate) fn compare(old: Option<&[u8]>, new: &str) -> Change {
    match old {
        None => Change::Created,
        Some(old) if old == new.as_bytes() => Change::Unchanged,
        Some(_) => Change::Updated,
    }
}

/// Stage 5: every root's outcome, in order; `check` writes nothing.
pub(crate) fn write(
    roots: Vec<Root<Planned>>,
    hashes: &Hashes,
    check: bool,
    progress: &dyn Progress,
) -> Vec<RootReport> {
    roots
        .into_iter()
        .map(|root| {
            let outcome = match root.stage {
                Ok(planned) => match finish(&root.dir, planned, hashes, check) {
                    Ok(outcome) => outcome,
                    Err(e) => RootOutcome::Failed(e),
                },
                Err(e) => RootOutcome::Failed(e),
            };
            progress.root_done(&root.dir, outcome.word(check));
            RootReport {
                dir: root.dir,
                kind: root.kind,
                outcome,
            }
        })
        .collect()
}

fn finish(
    dir: &Path,
    planned: Planned,
    hashes: &Hashes,
    check: bool,
) -> Result<RootOutcome, RootError> {
    let (new, origins) = merge(&planned, hashes)?;
    let content = new.render();
    let old = planned.loaded.old.as_ref();
    let change = compare(old.map(|o| o.bytes.as_slice()), &content);
    if change == Change::Unchanged {
        return Ok(RootOutcome::Done {
            change,
            drift: None,
            changes: Vec::new(),
        });
    }
    let changes: Vec<ProviderChange> = changes::between(old.map(|o| &o.lock), &new, &origins);
    if check {
        let path = dir.join(LOCK_FILE_NAME);
        let label = path.display().to_string();
        let label = label.strip_prefix("./").unwrap_or(&label);
        let old_text = old.map(|o| String::from_utf8_lossy(&o.bytes).into_owned());
        let old_label = match old {
            Some(_) => format!("a/{label}"),
            None => "/dev/null".to_string(),
        };
        let diff = diff::unified(
            old_text.as_deref().unwrap_or(""),
            &content,
            &old_label,
            &format!("b/{label}"),
        );
        return Ok(RootOutcome::Done {
            change,
            drift: Some(Drift {
                problems: drift::explain(old.map(|o| &o.lock), &new),
                diff,
            }),
            changes,
        });
    }
    let target = &planned.loaded.lock_path;
    crate::disk::atomic::replace_file(target, content.as_bytes()).map_err(|source| {
        RootError::Write {
            path: target.clone(),
            source,
        }
    })?;
    Ok(RootOutcome::Done {
        change,
        drift: None,
        changes,
    })
}

/// The new lock file: for each selected provider, the `providers lock` merge of the old
/// entry with the package's hashes (spec §9); providers no longer required are gone, as
/// `init` drops them. Every package that failed is named. Also gives each provider's
/// hashes with their provenance, for the change report.
fn merge<'h>(
    planned: &Planned,
    hashes: &'h Hashes,
) -> Result<(LockFile, BTreeMap<ProviderAddr, &'h PackageHashes>), RootError> {
    let loaded = &planned.loaded;
    let old = loaded.old.as_ref().map(|o| &o.lock);
    let mut providers = BTreeMap::new();
    let mut origins = BTreeMap::new();
    let mut errors = Vec::new();
    for (addr, version) in &planned.selected {
        let package = Package {
            addr: addr.clone(),
            version: version.clone(),
            flavor: loaded.flavor,
        };
        let new_hashes = match hashes.get(&package) {
            Some(Ok(hashes)) => hashes,
            Some(Err(e)) => {
                errors.push(e.clone());
                continue;
            }
            None => {
                errors.push(crate::sources::PackageError::new(
                    addr,
                    version,
                    None,
                    "no hashes were computed".to_string(),
                ));
                continue;
            }
        };
        let constraints = loaded
            .reqs
            .get(addr)
            .map(|r| r.constraints.clone())
            .unwrap_or_default();
        providers.insert(
            addr.clone(),
            lockfile::merge_providers_lock(
                old.and_then(|o| o.providers.get(addr)),
                version.clone(),
                constraints,
                new_hashes.keys().cloned(),
            ),
        );
        origins.insert(addr.clone(), new_hashes);
    }
    if !errors.is_empty() {
        return Err(RootError::Packages(errors));
    }
    let lock = LockFile {
        flavor: old.map(|o| o.flavor).unwrap_or(loaded.flavor),
        providers,
    };
    Ok((lock, origins))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_tells_created_updated_unchanged() {
        assert_eq!(compare(None, "a\n"), Change::Created);
        assert_eq!(compare(Some(b"a\n"), "a\n"), Change::Unchanged);
        assert_eq!(compare(Some(b"a\n"), "b\n"), Change::Updated);
    }
}
