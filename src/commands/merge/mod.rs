//! Three-way merge of `.terraform.lock.hcl` files, for `tfsum merge-driver` (a git merge
//! driver). [`merge`] is pure: the common ancestor's, our and their lock file in, the merged
//! lock file plus what it could not decide out. [`driver`] is the part git talks to: it
//! reads the three files, writes the result and words the outcome.
//!
//! Each provider is merged on its own, comparing each side's entry with the ancestor's:
//!
//! | ancestor → ours, theirs                              | merged entry                       |
//! |------------------------------------------------------|------------------------------------|
//! | ours and theirs equal (both unchanged, the same edit, both removed) | that entry          |
//! | only one side changed it (added, removed, edited)    | that side's entry                  |
//! | both changed, same version                           | that version, union of the hashes  |
//! | both changed, different versions                     | see "versions" below, with the hashes of the chosen side |
//! | both changed the constraints, differently (or both added it with different ones) | conflict |
//! | one removed it, the other only added hashes          | removed                            |
//! | one removed it, the other changed version or constraints | conflict                       |
//!
//! Constraints are the configuration's, so they merge like any three-way value: equal on
//! both sides, or changed on one side only; anything else is a configuration conflict that
//! only the merged `.tf` files can settle. Versions: when only one side moved the version
//! its version is preferred, when both did the higher one; either way the merged
//! constraints must allow it, else the other side's version is taken, and when neither is
//! allowed it is a conflict. The header (`terraform init` or `tofu init`) merges the same
//! way; two different headers on both sides are a conflict.
//!
//! The driver sees the three lock files, never the configuration, so a clean merge can
//! still be stale: one branch adds a resource that needs `random`, the other removes the
//! last use of `random` and re-locks without it; only one side changed the `random` entry,
//! so the merge drops it, and the merged configuration needs it. That is why
//! docs/merge-driver.md tells users to run `tfsum lock --check` after a merge.
//!
//! A conflict still yields a complete lock file: our entry for each undecided provider (our
//! header for an undecided header), so that `tfsum lock`, which recomputes constraints and
//! hashes from the configuration, can read and settle it. Git conflict markers would make
//! the file unreadable to `tfsum lock`, `terraform init` and a later merge alike.

pub(crate) mod driver;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::fmt;

use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::lockfile::{Flavor, LockFile, ProviderLock};
use tfsum_vocab::version::{Constraints, Version};

/// The two edited sides, in git's words: ours is the branch being merged into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Ours,
    Theirs,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Ours => "ours",
            Side::Theirs => "theirs",
        })
    }
}

/// The outcome of a merge: always a lock file, clean when `conflicts` is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    pub lock: LockFile,
    /// What the merge could not decide; the lock holds our side for each.
    pub conflicts: Vec<Conflict>,
    /// Hashes a side added that the merged file does not carry.
    pub dropped: Vec<DroppedHashes>,
}

impl Merged {
    pub(crate) fn is_clean(&self) -> bool {
        self.conflicts.is_empty()
    }
}

/// One thing the two sides disagree on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Conflict {
    /// Both sides changed the header: one file is for `terraform init`, the other for
    /// `tofu init` (which also decides the registry short provider sources mean).
    Flavor { ours: Flavor, theirs: Flavor },
    Provider {
        addr: ProviderAddr,
        why: Box<Disagreement>,
    },
}

/// Why one provider's entry could not be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Disagreement {
    /// Both sides changed the constraints, to different values (or both added the provider
    /// with different ones): the configurations disagree.
    Constraints {
        ours: ProviderLock,
        theirs: ProviderLock,
    },
    /// One side removed the provider, the other changed its version or constraints.
    Removed { by: Side, other: ProviderLock },
    /// The merged constraints allow neither side's version.
    NoAllowedVersion {
        constraints: Constraints,
        ours: Version,
        theirs: Version,
    },
}

/// A side added hashes to the ancestor's version while the other side moved to another
/// version; the merged file keeps only the chosen version's hashes. When those hashes were
/// for an added platform, `tfsum lock` adds it for the new version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DroppedHashes {
    pub addr: ProviderAddr,
    pub side: Side,
    pub version: Version,
    pub kept: Version,
}

/// Merges `ours` and `theirs` against their common ancestor. `None` is a side without the
/// file (git passes an empty ancestor when both sides added it).
pub(crate) fn merge(
    base: Option<&LockFile>,
    ours: Option<&LockFile>,
    theirs: Option<&LockFile>,
) -> Merged {
    let flavor_of = |file: Option<&LockFile>| file.map(|f| f.flavor);
    let mut conflicts = Vec::new();
    let flavor = match merge_flavor(flavor_of(base), flavor_of(ours), flavor_of(theirs)) {
        Ok(flavor) => flavor,
        Err((ours, theirs)) => {
            conflicts.push(Conflict::Flavor { ours, theirs });
            ours
        }
    };
    // The form (a Terraform Stack's header, no constraints) merges as the flavor does;
    // the sides disagree on it only when one was written by another tool, and then
    // ours stands.
    let form_of = |file: Option<&LockFile>| file.map(|f| f.form);
    let form = merge_flavor(form_of(base), form_of(ours), form_of(theirs))
        .unwrap_or_else(|(ours, _)| ours);
    let mut lock = LockFile::new(flavor);
    lock.form = form;
    let mut dropped = Vec::new();
    let addrs: BTreeSet<&ProviderAddr> = [base, ours, theirs]
        .into_iter()
        .flatten()
        .flat_map(|file| file.providers.keys())
        .collect();
    for addr in addrs {
        let entry = |file| entry_in(file, addr);
        let merged = match merge_provider(entry(base), entry(ours), entry(theirs)) {
            Ok(resolved) => {
                if let Some((side, version)) = resolved.dropped {
                    if let Some(kept) = &resolved.entry {
                        dropped.push(DroppedHashes {
                            addr: addr.clone(),
                            side,
                            version,
                            kept: kept.version.clone(),
                        });
                    }
                }
                resolved.entry
            }
            Err(why) => {
                conflicts.push(Conflict::Provider {
                    addr: addr.clone(),
                    why,
                });
                entry(ours).cloned()
            }
        };
        if let Some(merged) = merged {
            lock.providers.insert(addr.clone(), merged);
        }
    }
    Merged {
        lock,
        conflicts,
        dropped,
    }
}

fn entry_in<'a>(file: Option<&'a LockFile>, addr: &ProviderAddr) -> Option<&'a ProviderLock> {
    file.and_then(|f| f.providers.get(addr))
}

/// The header: a side without a file has no say; two different headers need the ancestor
/// to tell which side changed. `Err` carries (ours, theirs).
fn merge_flavor<T: Copy + PartialEq + Default>(
    base: Option<T>,
    ours: Option<T>,
    theirs: Option<T>,
) -> Result<T, (T, T)> {
    match (ours, theirs) {
        (Some(ours), Some(theirs)) if ours != theirs => {
            if base == Some(ours) {
                Ok(theirs)
            } else if base == Some(theirs) {
                Ok(ours)
            } else {
                Err((ours, theirs))
            }
        }
        _ => Ok(ours.or(theirs).or(base).unwrap_or_default()),
    }
}

/// One provider's merged entry (`None`: removed), and whose added hashes it left out.
#[derive(Debug, PartialEq, Eq)]
struct Resolved {
    entry: Option<ProviderLock>,
    dropped: Option<(Side, Version)>,
}

impl Resolved {
    fn take(entry: Option<&ProviderLock>) -> Resolved {
        Resolved {
            entry: entry.cloned(),
            dropped: None,
        }
    }
}

fn merge_provider(
    base: Option<&ProviderLock>,
    ours: Option<&ProviderLock>,
    theirs: Option<&ProviderLock>,
) -> Result<Resolved, Box<Disagreement>> {
    if same_entry(ours, theirs) {
        return Ok(Resolved::take(ours));
    }
    if same_entry(ours, base) {
        return Ok(Resolved::take(theirs));
    }
    if same_entry(theirs, base) {
        return Ok(Resolved::take(ours));
    }
    match (ours, theirs) {
        (Some(ours), Some(theirs)) => both_changed(base, ours, theirs),
        (None, Some(other)) => removed(base, Side::Ours, other),
        (Some(other), None) => removed(base, Side::Theirs, other),
        // Unreachable: two missing entries are the same entry.
        (None, None) => Ok(Resolved::take(None)),
    }
}

/// `by` removed an entry the other side changed. Only hashes changed: the provider left
/// the configuration and its hashes go with it. Version or constraints changed: one
/// configuration dropped the provider while the other changed its requirement.
fn removed(
    base: Option<&ProviderLock>,
    by: Side,
    other: &ProviderLock,
) -> Result<Resolved, Box<Disagreement>> {
    match base {
        Some(base) if same_requirement(base, other) => Ok(Resolved::take(None)),
        _ => Err(Box::new(Disagreement::Removed {
            by,
            other: other.clone(),
        })),
    }
}

fn both_changed(
    base: Option<&ProviderLock>,
    ours: &ProviderLock,
    theirs: &ProviderLock,
) -> Result<Resolved, Box<Disagreement>> {
    let base_constraints = base.map(|b| b.constraints.canonical());
    let constraints = if same_constraints(&ours.constraints, &theirs.constraints)
        || base_constraints == Some(theirs.constraints.canonical())
    {
        ours.constraints.clone()
    } else if base_constraints == Some(ours.constraints.canonical()) {
        theirs.constraints.clone()
    } else {
        return Err(Box::new(Disagreement::Constraints {
            ours: ours.clone(),
            theirs: theirs.clone(),
        }));
    };

    if ours.version == theirs.version {
        let hashes = ours.hashes.union(&theirs.hashes).cloned().collect();
        return Ok(Resolved {
            entry: Some(ProviderLock {
                version: ours.version.clone(),
                constraints,
                hashes,
            }),
            dropped: None,
        });
    }

    // Preference order: the side that moved the version when only one did, else the higher.
    let base_version = base.map(|b| &b.version);
    let ours_first = if base_version == Some(&theirs.version) {
        true
    } else if base_version == Some(&ours.version) {
        false
    } else {
        ours.version > theirs.version
    };
    let (first, second) = if ours_first {
        ((Side::Ours, ours), (Side::Theirs, theirs))
    } else {
        ((Side::Theirs, theirs), (Side::Ours, ours))
    };
    let ((_, chosen), (other_side, other)) = if constraints.allows(&first.1.version) {
        (first, second)
    } else if constraints.allows(&second.1.version) {
        (second, first)
    } else {
        return Err(Box::new(Disagreement::NoAllowedVersion {
            constraints,
            ours: ours.version.clone(),
            theirs: theirs.version.clone(),
        }));
    };
    // Worth a word only when the other side kept the ancestor's version and added hashes
    // to it, such as an added platform; hashes of a version both sides left are expected
    // to go.
    let dropped = base
        .filter(|base| base.version == other.version && !other.hashes.is_subset(&base.hashes))
        .map(|_| (other_side, other.version.clone()));
    Ok(Resolved {
        entry: Some(ProviderLock {
            version: chosen.version.clone(),
            constraints,
            hashes: chosen.hashes.clone(),
        }),
        dropped,
    })
}

/// Version, constraints and hashes all equal (both missing counts as equal).
fn same_entry(a: Option<&ProviderLock>, b: Option<&ProviderLock>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same_requirement(a, b) && a.hashes == b.hashes,
        (None, None) => true,
        _ => false,
    }
}

/// What the configuration decided: the version and the constraints.
fn same_requirement(a: &ProviderLock, b: &ProviderLock) -> bool {
    a.version == b.version && same_constraints(&a.constraints, &b.constraints)
}

/// Compared in canonical form, the form the lock file records.
fn same_constraints(a: &Constraints, b: &Constraints) -> bool {
    a.canonical() == b.canonical()
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Conflict::Flavor { ours, theirs } => write!(
                f,
                "header: ours is for \"{}\", theirs for \"{}\"",
                ours.init_command(),
                theirs.init_command()
            ),
            Conflict::Provider { addr, why } => write!(f, "{addr}: {why}"),
        }
    }
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disagreement::Constraints { ours, theirs } => write!(
                f,
                "both sides changed the version constraints: ours {}, theirs {}",
                Requirement(ours),
                Requirement(theirs)
            ),
            Disagreement::Removed { by, other } => {
                let changed = match by {
                    Side::Ours => Side::Theirs,
                    Side::Theirs => Side::Ours,
                };
                write!(
                    f,
                    "{by} removed it, {changed} changed it to {}",
                    Requirement(other)
                )
            }
            Disagreement::NoAllowedVersion {
                constraints,
                ours,
                theirs,
            } => write!(
                f,
                "the merged constraints {} allow neither our version {ours} nor theirs {theirs}",
                Quoted(constraints)
            ),
        }
    }
}

/// `"~> 5.0" (5.31.0)`: an entry's constraints and version, as a user compares them.
struct Requirement<'a>(&'a ProviderLock);

impl fmt::Display for Requirement<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", Quoted(&self.0.constraints), self.0.version)
    }
}

/// Constraints in quotes, or "no constraints".
struct Quoted<'a>(&'a Constraints);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("no constraints")
        } else {
            write!(f, "{:?}", self.0.canonical())
        }
    }
}
