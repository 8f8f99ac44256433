//! What a root's new lock file changes, as typed values for the change report: the write
//! stage computes them from the old lock file, the new one and the hash stage's
//! provenance ([`tfsum_sources::PackageHashes`]); the reports (text, JSON, markdown) only
//! print them.
//!
//! A reviewer of a lock-file pull request sees base64; these values say what moved and,
//! for every hash the file did not hold before, where tfsum got it. A hash the old file
//! already held for the same version is kept (spec §9) and is not new. When a version
//! moves, the old version's hashes all go; which platforms they were for is not written in
//! the file, so they are counted, not named.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use tfsum_sources::{PackageHashes, Provenance};
use tfsum_vocab::addr::{Platform, ProviderAddr};
use tfsum_vocab::hash::Hash;
use tfsum_vocab::lockfile::{LockFile, ProviderLock};
use tfsum_vocab::version::Version;

/// One change to one provider's entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProviderChange {
    /// A provider the old file did not lock.
    Added {
        #[serde(serialize_with = "display")]
        provider: ProviderAddr,
        #[serde(serialize_with = "display")]
        version: Version,
        /// Canonical constraints; empty when the configuration gives none.
        constraints: String,
    },
    /// A provider no longer required.
    Removed {
        #[serde(serialize_with = "display")]
        provider: ProviderAddr,
        #[serde(serialize_with = "display")]
        version: Version,
    },
    VersionChanged {
        #[serde(serialize_with = "display")]
        provider: ProviderAddr,
        #[serde(serialize_with = "display")]
        from: Version,
        #[serde(serialize_with = "display")]
        to: Version,
    },
    ConstraintsChanged {
        #[serde(serialize_with = "display")]
        provider: ProviderAddr,
        from: String,
        to: String,
    },
    /// Hashes the entry gained, each with its platform (for `h1:`) and provenance.
    HashesAdded {
        #[serde(serialize_with = "display")]
        provider: ProviderAddr,
        #[serde(serialize_with = "display")]
        version: Version,
        hashes: Vec<NewHash>,
    },
    /// Hashes of the old version that went with it (a version move).
    HashesRemoved {
        #[serde(serialize_with = "display")]
        provider: ProviderAddr,
        #[serde(serialize_with = "display")]
        version: Version,
        h1: usize,
        zh: usize,
        other: usize,
    },
}

/// A hash the new file has and the old one did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewHash {
    #[serde(serialize_with = "display")]
    pub hash: Hash,
    /// The platform whose package it hashes; `None` for SHA256SUMS lines.
    #[serde(serialize_with = "display_option")]
    pub platform: Option<Arc<Platform>>,
    pub source: Provenance,
}

/// Every change from `old` (`None`: no file yet) to `new`, in provider order and, per
/// provider, in the order of the variants. `hashes` are the hash stage's results for the
/// providers of `new`; a new hash missing from them (which the write stage never
/// produces) is reported as from the cache rather than dropped.
pub(crate) fn between(
    old: Option<&LockFile>,
    new: &LockFile,
    hashes: &BTreeMap<ProviderAddr, &PackageHashes>,
) -> Vec<ProviderChange> {
    let empty = BTreeMap::new();
    let old_providers = old.map_or(&empty, |o| &o.providers);
    let mut changes = Vec::new();
    let mut addrs: Vec<&ProviderAddr> = new.providers.keys().collect();
    addrs.extend(
        old_providers
            .keys()
            .filter(|a| !new.providers.contains_key(a)),
    );
    addrs.sort();
    for addr in addrs {
        match (old_providers.get(addr), new.providers.get(addr)) {
            (Some(before), None) => changes.push(ProviderChange::Removed {
                provider: addr.clone(),
                version: before.version.clone(),
            }),
            (before, Some(after)) => {
                entry(addr, before, after, hashes.get(addr).copied(), &mut changes)
            }
            (None, None) => {}
        }
    }
    changes
}

/// The changes of one provider present in the new file.
fn entry(
    addr: &ProviderAddr,
    before: Option<&ProviderLock>,
    after: &ProviderLock,
    origins: Option<&PackageHashes>,
    changes: &mut Vec<ProviderChange>,
) {
    let same_version = before.is_some_and(|b| b.version == after.version);
    match before {
        None => changes.push(ProviderChange::Added {
            provider: addr.clone(),
            version: after.version.clone(),
            constraints: after.constraints.canonical(),
        }),
        Some(before) => {
            if !same_version {
                changes.push(ProviderChange::VersionChanged {
                    provider: addr.clone(),
                    from: before.version.clone(),
                    to: after.version.clone(),
                });
            }
            // Compared as written: a lock file the full parser read keeps its own order.
            let (from, to) = (
                before.constraints.canonical(),
                after.constraints.canonical(),
            );
            if from != to {
                changes.push(ProviderChange::ConstraintsChanged {
                    provider: addr.clone(),
                    from,
                    to,
                });
            }
        }
    }
    let kept = |h: &Hash| same_version && before.is_some_and(|b| b.hashes.contains(h));
    let added: Vec<NewHash> = after
        .hashes
        .iter()
        .filter(|h| !kept(h))
        .map(|h| {
            let origin = origins.and_then(|o| o.get(h));
            NewHash {
                hash: h.clone(),
                platform: origin.and_then(|o| o.platform.clone()),
                source: origin.map_or(Provenance::Cache, |o| o.provenance),
            }
        })
        .collect();
    if !added.is_empty() {
        changes.push(ProviderChange::HashesAdded {
            provider: addr.clone(),
            version: after.version.clone(),
            hashes: added,
        });
    }
    if let Some(before) = before.filter(|_| !same_version) {
        let count = |scheme: &str| {
            before
                .hashes
                .iter()
                .filter(|h| h.scheme() == scheme)
                .count()
        };
        let (h1, zh) = (count("h1"), count("zh"));
        if !before.hashes.is_empty() {
            changes.push(ProviderChange::HashesRemoved {
                provider: addr.clone(),
                version: before.version.clone(),
                h1,
                zh,
                other: before.hashes.len() - h1 - zh,
            });
        }
    }
}

impl ProviderChange {
    /// How many hashes it adds or drops (0 for the other kinds).
    pub fn hash_count(&self) -> usize {
        match self {
            ProviderChange::HashesAdded { hashes, .. } => hashes.len(),
            ProviderChange::HashesRemoved { h1, zh, other, .. } => h1 + zh + other,
            _ => 0,
        }
    }
}

/// One line per change, for the text and markdown reports.
impl std::fmt::Display for ProviderChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProviderChange::Added {
                provider,
                version,
                constraints,
            } if constraints.is_empty() => write!(f, "added {provider} {version}"),
            ProviderChange::Added {
                provider,
                version,
                constraints,
            } => write!(
                f,
                "added {provider} {version} (constraints {constraints:?})"
            ),
            ProviderChange::Removed { provider, version } => {
                write!(f, "removed {provider} {version}")
            }
            ProviderChange::VersionChanged { provider, from, to } => {
                write!(f, "{provider} {from} → {to}")
            }
            ProviderChange::ConstraintsChanged { provider, from, to } => {
                write!(f, "{provider} constraints {from:?} → {to:?}")
            }
            ProviderChange::HashesAdded {
                provider,
                version,
                hashes,
            } => write!(f, "{provider} {version}: {}", describe_new(hashes)),
            ProviderChange::HashesRemoved {
                provider,
                version,
                h1,
                zh,
                other,
            } => {
                let mut parts = vec![format!("{h1} h1:"), format!("{zh} zh:")];
                if *other > 0 {
                    parts.push(format!("{other} other"));
                }
                write!(f, "{provider} {version}: dropped {}", parts.join(", "))
            }
        }
    }
}

/// `h1: added for darwin_arm64 (registry download), linux_amd64 (cache); zh: 4 added
/// (signed SHA256SUMS)`: per-platform hashes by platform, the others counted by
/// scheme and provenance.
fn describe_new(hashes: &[NewHash]) -> String {
    let mut per_platform: BTreeMap<&str, BTreeMap<&Platform, Provenance>> = BTreeMap::new();
    let mut counted: BTreeMap<(&str, Provenance), usize> = BTreeMap::new();
    for h in hashes {
        match &h.platform {
            Some(platform) => {
                per_platform
                    .entry(h.hash.scheme())
                    .or_default()
                    .insert(platform.as_ref(), h.source);
            }
            None => *counted.entry((h.hash.scheme(), h.source)).or_default() += 1,
        }
    }
    let mut parts: Vec<String> = per_platform
        .into_iter()
        .map(|(scheme, platforms)| {
            let list: Vec<String> = platforms
                .into_iter()
                .map(|(platform, source)| format!("{platform} ({})", source.as_str()))
                .collect();
            format!("{scheme}: added for {}", list.join(", "))
        })
        .collect();
    parts.extend(
        counted
            .into_iter()
            .map(|((scheme, source), n)| format!("{scheme}: {n} added ({})", source.as_str())),
    );
    parts.join("; ")
}

pub fn display<T: std::fmt::Display, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

fn display_option<T: std::fmt::Display, S: serde::Serializer>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.collect_str(value),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_sources::HashOrigin;
    use tfsum_vocab::lockfile::Flavor;
    use tfsum_vocab::version::Constraints;

    fn addr(name: &str) -> ProviderAddr {
        ProviderAddr::parse(
            &format!("hashicorp/{name}"),
            tfsum_vocab::addr::TERRAFORM_REGISTRY,
        )
        .unwrap()
    }

    fn lock(entries: &[(&str, &str, &str, &[&str])]) -> LockFile {
        let mut file = LockFile::new(Flavor::Terraform);
        for (name, version, constraints, hashes) in entries {
            file.providers.insert(
                addr(name),
                ProviderLock {
                    version: Version::parse(version).unwrap(),
                    constraints: Constraints::parse_ruby_style(constraints).unwrap(),
                    hashes: hashes.iter().map(|h| Hash::parse(h).unwrap()).collect(),
                },
            );
        }
        file
    }

    /// Constraints that write the same canonical string are not a change, whatever order
    /// or repetition the configuration or a hand-edited lock file gives them.
    #[test]
    fn constraints_written_alike_are_no_change() {
        let old = lock(&[("null", "3.2.1", "< 4.0, >= 3.0", &["h1:a"])]);
        let new = lock(&[("null", "3.2.1", ">= 3.0, >= 3.0, < 4.0", &["h1:a", "h1:b"])]);
        let changes = between(Some(&old), &new, &BTreeMap::new());
        assert!(
            !changes
                .iter()
                .any(|c| matches!(c, ProviderChange::ConstraintsChanged { .. })),
            "{changes:?}"
        );
        let moved = lock(&[("null", "3.2.1", ">= 3.1", &["h1:a"])]);
        let changes = between(Some(&old), &moved, &BTreeMap::new());
        assert!(changes
            .iter()
            .any(|c| matches!(c, ProviderChange::ConstraintsChanged { .. })));
    }

    /// Every kind of change at once, described one line each; a hash kept from the old
    /// file (same version) is not new, and each new hash carries its origin.
    #[test]
    fn tabulates_every_kind_of_change() {
        let old = lock(&[
            ("gone", "1.0.0", "", &["h1:g", "zh:g"]),
            ("moved", "2.0.0", "~> 2.0", &["h1:a", "h1:b", "zh:c", "x:d"]),
            ("same", "3.0.0", ">= 3.0", &["h1:kept"]),
        ]);
        let new = lock(&[
            ("fresh", "1.2.0", "", &["h1:f"]),
            ("moved", "2.1.0", "~> 2.1", &["h1:m"]),
            (
                "same",
                "3.0.0",
                ">= 3.0",
                &["h1:kept", "h1:new", "zh:s1", "zh:s2"],
            ),
        ]);
        let linux: Platform = "linux_amd64".parse().unwrap();
        let origin = |p: Provenance, platform: Option<&Platform>| HashOrigin {
            provenance: p,
            platform: platform.cloned().map(Arc::new),
        };
        let fresh = PackageHashes::from([(
            Hash::parse("h1:f").unwrap(),
            origin(Provenance::FsMirror, Some(&linux)),
        )]);
        let moved = PackageHashes::from([(
            Hash::parse("h1:m").unwrap(),
            origin(Provenance::Download, Some(&linux)),
        )]);
        let same = PackageHashes::from([
            (
                Hash::parse("h1:kept").unwrap(),
                origin(Provenance::Download, Some(&linux)),
            ),
            (
                Hash::parse("h1:new").unwrap(),
                origin(Provenance::Cache, Some(&"darwin_arm64".parse().unwrap())),
            ),
            (
                Hash::parse("zh:s1").unwrap(),
                origin(Provenance::SignedSums, None),
            ),
            (
                Hash::parse("zh:s2").unwrap(),
                origin(Provenance::SignedSums, None),
            ),
        ]);
        let hashes = BTreeMap::from([
            (addr("fresh"), &fresh),
            (addr("moved"), &moved),
            (addr("same"), &same),
        ]);
        let changes = between(Some(&old), &new, &hashes);
        let lines: Vec<String> = changes.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "added registry.terraform.io/hashicorp/fresh 1.2.0",
                "registry.terraform.io/hashicorp/fresh 1.2.0: h1: added for linux_amd64 (filesystem mirror)",
                "removed registry.terraform.io/hashicorp/gone 1.0.0",
                "registry.terraform.io/hashicorp/moved 2.0.0 → 2.1.0",
                "registry.terraform.io/hashicorp/moved constraints \"~> 2.0\" → \"~> 2.1\"",
                "registry.terraform.io/hashicorp/moved 2.1.0: h1: added for linux_amd64 (registry download)",
                "registry.terraform.io/hashicorp/moved 2.0.0: dropped 2 h1:, 1 zh:, 1 other",
                "registry.terraform.io/hashicorp/same 3.0.0: h1: added for darwin_arm64 (cache); zh: 2 added (signed SHA256SUMS)",
            ]
        );
        let counts: Vec<usize> = changes.iter().map(ProviderChange::hash_count).collect();
        assert_eq!(counts, [0, 1, 0, 0, 0, 1, 4, 3]);
        // The same file again: nothing changed.
        assert!(between(Some(&new), &new, &hashes).is_empty());
    }
}
