//! The publish stage (`tfsum mirror --layout oci`): every provider version the lock
//! files lock, for every platform asked, pushed to an OCI registry in the layout
//! OpenTofu's `oci_mirror` reads ([`tfsum_sources::oci::publish`]).
//!
//! Per (provider, version), once however many lock files lock it:
//!
//! 1. **what the tag holds** is read first; a platform whose zip is there already is
//!    **present** when that zip is the origin's (its digest is the file's line of the
//!    registry's signed SHA256SUMS, or, without one, a `zh:` the lock files record) and
//!    a **conflict** otherwise: the version is refused, nothing of it is written;
//! 2. **else fetched** through the package sources and checked as `tfsum mirror`
//!    checks a package (the zip against the signed SHA256SUMS), and against the lock
//!    files: one of them must record its `h1:` or `zh:` (a lock entry without hashes
//!    accepts it, as `init` does);
//! 3. **pushed**: blobs the repository lacks, each platform's manifest, then the index
//!    by the tag, extended, never rewritten ([`OciTarget::push_platform`], [`OciTarget::update_tag`]).
//!
//! A second run over the same lock files finds every platform present and writes
//! nothing (it downloads nothing either, when the registry's signed SHA256SUMS is at
//! hand: the digests are compared without the zips).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::Semaphore;

use crate::install::LockedRoot;
use tfsum_disk::leftovers::TempFile;
use tfsum_net::oci::{Digest, RepositoryAddr};
use tfsum_sources::oci::publish::{
    Held, OciTarget, Ours, PushError, PushFault, Pushed, TagChange, ZipToPush,
};
use tfsum_sources::oci::zh_of;
use tfsum_sources::{PackageError, Sources};
use tfsum_vocab::addr::{Platform, PlatformPackage, ProviderAddr};
use tfsum_vocab::hash::Hash;
use tfsum_vocab::version::Version;

/// How many zips are held in memory to be uploaded at once (each is sent whole).
const UPLOADING: usize = 2;

/// One provider version, and what became of it.
#[derive(Debug)]
pub struct VersionPush {
    pub provider: ProviderAddr,
    pub version: Version,
    /// `host/repository:tag`, when the template could name it.
    pub reference: Option<String>,
    pub platforms: Vec<PlatformPush>,
    /// What happened to the tag, or why it was not written.
    pub tag: Result<TagChange, PushFailure>,
    pub pushed: Pushed,
}

/// One platform of a version.
#[derive(Debug)]
pub struct PlatformPush {
    pub platform: Platform,
    pub outcome: Result<PlatformOutcome, PushFailure>,
}

/// How a platform's package came to be in the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PlatformOutcome {
    /// Already there, the origin's zip.
    Present,
    /// Fetched, checked and pushed.
    Pushed,
}

/// Why a platform or a tag was not pushed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PushFailure {
    #[error(transparent)]
    Package(PackageError),
    #[error(transparent)]
    Push(PushError),
    /// No lock file records a hash of the package fetched.
    #[error("no lock file records its {h1} or {zh}: {}", files(.locks))]
    NotRecorded {
        h1: Hash,
        zh: Hash,
        locks: Vec<PathBuf>,
    },
    #[error("cannot stage the package: {0}")]
    Stage(String),
    /// The version's tag was not written (a conflict, a failed write), so the platform
    /// is not in it.
    #[error("not in the registry: the version's tag was not written (see its error)")]
    Withheld,
}

fn files(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(", ")
}

impl VersionPush {
    pub fn is_failure(&self) -> bool {
        self.tag.is_err() || self.platforms.iter().any(|p| p.outcome.is_err())
    }

    /// The platforms pushed are not in the tag after all: the tag was not written.
    fn withhold_pushed(&mut self) {
        for p in &mut self.platforms {
            if matches!(p.outcome, Ok(PlatformOutcome::Pushed)) {
                p.outcome = Err(PushFailure::Withheld);
            }
        }
    }
}

/// What each lock file records for one (provider, version).
type Records = Vec<(PathBuf, BTreeSet<Hash>)>;

/// Pushes every version `roots` lock, for `platforms`, to `target`; in (provider,
/// version) order.
pub async fn publish(
    target: &OciTarget,
    sources: &Sources,
    roots: &[LockedRoot],
    platforms: &[Platform],
    staging: &std::path::Path,
) -> Vec<VersionPush> {
    let mut versions: BTreeMap<(ProviderAddr, Version), Records> = BTreeMap::new();
    for root in roots {
        for (addr, entry) in &root.lock.providers {
            let hashes: BTreeSet<Hash> = entry.hashes.iter().cloned().collect();
            versions
                .entry((addr.clone(), entry.version.clone()))
                .or_default()
                .push((root.lock_path.clone(), hashes));
        }
    }
    let uploading = Arc::new(Semaphore::new(UPLOADING));
    let tasks: Vec<_> = versions
        .into_iter()
        .map(|((provider, version), records)| {
            let (target, sources) = (target.clone(), sources.clone());
            let (platforms, staging) = (platforms.to_vec(), staging.to_path_buf());
            let uploading = uploading.clone();
            tokio::spawn(async move {
                let job = Job {
                    target: &target,
                    sources: &sources,
                    records: &records,
                    staging: &staging,
                    uploading: &uploading,
                };
                job.version(provider, version, &platforms).await
            })
        })
        .collect();
    let mut done = Vec::with_capacity(tasks.len());
    for task in tasks {
        match task.await {
            Ok(push) => done.push(push),
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
    done
}

/// What pushing one version works with.
struct Job<'a> {
    target: &'a OciTarget,
    sources: &'a Sources,
    records: &'a Records,
    staging: &'a std::path::Path,
    uploading: &'a Semaphore,
}

/// What one platform needs, once what the tag holds is known.
enum Need {
    Present,
    /// The tag holds another zip for it.
    Conflict {
        held: Digest,
        ours: Digest,
    },
    /// Fetch it; the tag holds this zip for it, unknown to be the origin's.
    Fetch {
        held: Option<Digest>,
    },
}

impl Job<'_> {
    /// Pushes one version: what became of each platform and of the tag. When the tag is
    /// not written, the platforms pushed are withheld: they are not in it.
    async fn version(
        &self,
        provider: ProviderAddr,
        version: Version,
        platforms: &[Platform],
    ) -> VersionPush {
        let mut push = VersionPush {
            reference: None,
            platforms: Vec::new(),
            tag: Ok(TagChange::Unchanged),
            pushed: Pushed::default(),
            provider,
            version,
        };
        push.tag = match self.push_version(&mut push, platforms).await {
            Ok(change) => Ok(change),
            Err(e) => {
                push.withhold_pushed();
                Err(e)
            }
        };
        push
    }

    /// [`Job::version`]'s work, recording in `push` where the version goes, what was
    /// pushed and each platform's outcome: what the tag became, or why it was not
    /// written (a conflict, a failed request).
    async fn push_version(
        &self,
        push: &mut VersionPush,
        platforms: &[Platform],
    ) -> Result<TagChange, PushFailure> {
        let (repository, tag) = self
            .target
            .reference(&push.provider, &push.version)
            .map_err(PushFailure::Push)?;
        push.reference = Some(format!("{repository}:{tag}"));
        let held = self
            .target
            .held(&repository, &tag, platforms)
            .await
            .map_err(PushFailure::Push)?;
        let needs = self
            .needs(&push.provider, &push.version, platforms, &held)
            .await;
        let conflict = |platform: &Platform, held: Digest, ours: Digest| -> PushError {
            PushFault::Conflict {
                repository: repository.clone(),
                tag: tag.to_string(),
                platform: platform.clone(),
                held,
                ours,
            }
            .into()
        };
        if let Some((platform, Need::Conflict { held, ours })) = platforms
            .iter()
            .zip(&needs)
            .find(|(_, need)| matches!(need, Need::Conflict { .. }))
        {
            push.platforms = platforms
                .iter()
                .zip(&needs)
                .map(|(platform, need)| PlatformPush {
                    platform: platform.clone(),
                    outcome: match need {
                        Need::Present => Ok(PlatformOutcome::Present),
                        _ => Err(PushFailure::Withheld),
                    },
                })
                .collect();
            return Err(PushFailure::Push(conflict(platform, *held, *ours)));
        }
        if needs
            .iter()
            .any(|n| matches!(n, Need::Fetch { held: None }))
        {
            push.pushed += self
                .target
                .push_config(&repository)
                .await
                .map_err(PushFailure::Push)?;
        }
        let (repository_ref, provider, version) = (&repository, &push.provider, &push.version);
        let conflict = &conflict;
        let done = futures::future::join_all(platforms.iter().zip(&needs).map(
            |(platform, need)| async move {
                match need {
                    Need::Present => Ok((PlatformOutcome::Present, None, Pushed::default())),
                    Need::Conflict { held, ours } => {
                        Err(PushFailure::Push(conflict(platform, *held, *ours)))
                    }
                    Need::Fetch { held } => {
                        self.fetch_and_push(repository_ref, provider, version, platform, *held)
                            .await
                    }
                }
            },
        ))
        .await;
        let mut ours = Vec::new();
        // A platform whose tag holds another zip refuses the whole version (the last
        // such conflict is the one named).
        let mut refused = None;
        for (platform, result) in platforms.iter().zip(done) {
            let outcome = match result {
                Ok((outcome, our, pushed)) => {
                    push.pushed += pushed;
                    ours.extend(our);
                    Ok(outcome)
                }
                Err(PushFailure::Push(e)) if matches!(e.fault(), PushFault::Conflict { .. }) => {
                    refused = Some(PushFailure::Push(e));
                    Err(PushFailure::Withheld)
                }
                Err(e) => Err(e),
            };
            push.platforms.push(PlatformPush {
                platform: platform.clone(),
                outcome,
            });
        }
        if let Some(refused) = refused {
            return Err(refused);
        }
        if ours.is_empty() {
            return Ok(TagChange::Unchanged);
        }
        let (change, written) = self
            .target
            .update_tag(&repository, &tag, &ours)
            .await
            .map_err(PushFailure::Push)?;
        push.pushed.manifests_written += written;
        Ok(change)
    }

    /// What each platform needs, given what the tag holds: a zip there is the origin's
    /// when it is the file's line of the signed SHA256SUMS (compared without a
    /// download) or, without one, a `zh:` the lock files record.
    async fn needs(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platforms: &[Platform],
        held: &Held,
    ) -> Vec<Need> {
        let signed = self.sources.signed_checksums(provider, version).await;
        platforms
            .iter()
            .map(|platform| {
                let expected = signed
                    .as_ref()
                    .and_then(|s| s.file(&filename(provider, version, platform)))
                    .and_then(|hex| Digest::parse(&format!("sha256:{hex}")).ok());
                let present = match held {
                    Held::Index(index) => index.zips.get(platform).copied(),
                    Held::Absent => None,
                };
                match (present, expected) {
                    (Some(held), Some(ours)) if held == ours => Need::Present,
                    (Some(held), Some(ours)) => Need::Conflict { held, ours },
                    (Some(held), None) if self.recorded_zh(held) => Need::Present,
                    (held, _) => Need::Fetch { held },
                }
            })
            .collect()
    }

    /// Whether a lock file records `digest` as a `zh:`.
    fn recorded_zh(&self, digest: Digest) -> bool {
        let zh = zh_of(digest);
        self.records.iter().any(|(_, hashes)| hashes.contains(&zh))
    }

    /// Fetches the package and, unless the tag already holds it (`held`), pushes its
    /// blob and manifest; one upload slot is held throughout, so at most
    /// [`UPLOADING`] zips are in memory.
    async fn fetch_and_push(
        &self,
        repository: &RepositoryAddr,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
        held: Option<Digest>,
    ) -> Result<(PlatformOutcome, Option<Ours>, Pushed), PushFailure> {
        let _slot = self
            .uploading
            .acquire()
            .await
            .map_err(|_| PushFailure::Stage("the upload slots were closed".to_string()))?;
        let zip = self.fetch(provider, version, platform).await?;
        let digest = Digest::of(&zip.bytes);
        match held {
            Some(held) if held == digest => Ok((PlatformOutcome::Present, None, Pushed::default())),
            Some(held) => Err(PushFailure::Push(
                PushFault::Conflict {
                    repository: repository.clone(),
                    tag: artifact_tag(version),
                    platform: platform.clone(),
                    held,
                    ours: digest,
                }
                .into(),
            )),
            None => {
                let (ours, pushed) = self
                    .target
                    .push_platform(repository, &zip)
                    .await
                    .map_err(PushFailure::Push)?;
                Ok((PlatformOutcome::Pushed, Some(ours), pushed))
            }
        }
    }

    /// The package, fetched through the sources (checked against the signed
    /// SHA256SUMS), checked against the lock files, and read into memory to be sent.
    async fn fetch(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Result<ZipToPush, PushFailure> {
        let staged =
            TempFile::new_in(self.staging).map_err(|e| PushFailure::Stage(e.to_string()))?;
        let package = PlatformPackage {
            provider,
            version,
            platform,
        };
        let recorded: BTreeSet<Hash> = self
            .records
            .iter()
            .flat_map(|(_, h)| h.iter().cloned())
            .collect();
        let hashes = self
            .sources
            .fetch_package(package, staged.as_file(), &recorded)
            .await
            .map_err(PushFailure::Package)?;
        let zh = hashes.zh();
        let accepted = self
            .records
            .iter()
            .any(|(_, h)| h.is_empty() || h.contains(&hashes.h1) || h.contains(&zh));
        if !accepted {
            return Err(PushFailure::NotRecorded {
                h1: hashes.h1,
                zh,
                locks: self.records.iter().map(|(p, _)| p.clone()).collect(),
            });
        }
        let path = staged.path().to_path_buf();
        let bytes = tokio::fs::read(&path)
            .await
            .map_err(|e| PushFailure::Stage(format!("{}: {e}", path.display())))?;
        Ok(ZipToPush {
            platform: platform.clone(),
            filename: filename(provider, version, platform),
            bytes: Bytes::from(bytes),
        })
    }
}

fn artifact_tag(version: &Version) -> String {
    tfsum_sources::oci::artifact::version_tag(&version.to_string())
}

/// `terraform-provider-TYPE_VERSION_OS_ARCH.zip`, the name the registry's SHA256SUMS
/// lists the package by, and OpenTofu gives a package from an OCI mirror
/// (`oci_registry_mirror_source.go:362-367`).
fn filename(provider: &ProviderAddr, version: &Version, platform: &Platform) -> String {
    format!(
        "terraform-provider-{}_{version}_{platform}.zip",
        provider.r#type
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use tfsum_net::oci::OciAccess;
    use tfsum_sources::oci::publish::HeldIndex;
    use tfsum_sources::oci::RepositoryTemplate;
    use tfsum_sources::testing::{hashicorp, TableRegistry};

    fn describe(need: &Need) -> String {
        match need {
            Need::Present => "present".into(),
            Need::Conflict { .. } => "conflict".into(),
            Need::Fetch { held: None } => "fetch".into(),
            Need::Fetch { held: Some(_) } => "fetch and compare".into(),
        }
    }

    /// What each platform needs, by what the tag holds for it and what vouches for the
    /// origin's zip: the signed SHA256SUMS (compared without a download), else the lock
    /// files' `zh:`, else only the zip itself.
    #[tokio::test]
    async fn what_each_platform_needs() {
        let (null, version) = (hashicorp("null"), Version::parse("3.2.1").unwrap());
        let platform = |p: &str| p.parse::<Platform>().unwrap();
        let (linux, darwin, windows) = (
            platform("linux_amd64"),
            platform("darwin_arm64"),
            platform("windows_amd64"),
        );
        let zip = |p: &Platform| format!("zip for {p}").into_bytes();
        let mut registry = TableRegistry::default();
        for p in [&linux, &darwin] {
            let key = (null.clone(), version.clone(), p.clone());
            registry.zips.insert(key, zip(p));
        }
        let with_sums = Sources::registry(Arc::new(registry));
        let access = OciAccess::new(
            tfsum_net::http::Http::new(tfsum_net::http::test_support::test_config()),
            &[],
            None,
            tfsum_net::oci::OciEnv::default(),
            tfsum_net::oci::OciOptions::default(),
        )
        .unwrap();
        let template = RepositoryTemplate::uri("r.example/{namespace}/{type}").unwrap();
        let target = OciTarget::new(template, access);
        let recorded = Digest::of(b"recorded elsewhere");
        let records: Records = vec![(
            PathBuf::from("a/.terraform.lock.hcl"),
            BTreeSet::from([zh_of(recorded)]),
        )];
        let uploading = Semaphore::new(1);
        let staging = tempfile::tempdir().unwrap();
        let job = Job {
            target: &target,
            sources: &with_sums,
            records: &records,
            staging: staging.path(),
            uploading: &uploading,
        };
        let held = |zips: &[(&Platform, Digest)]| {
            Held::Index(HeldIndex {
                entries: Vec::new(),
                zips: zips
                    .iter()
                    .map(|(p, d)| ((*p).clone(), *d))
                    .collect::<BTreeMap<_, _>>(),
            })
        };
        let platforms = [linux.clone(), darwin.clone(), windows.clone()];
        let cases = [
            (Held::Absent, ["fetch", "fetch", "fetch"]),
            (
                held(&[
                    (&linux, Digest::of(&zip(&linux))),
                    (&darwin, Digest::of(b"other")),
                ]),
                ["present", "conflict", "fetch"],
            ),
            (held(&[(&windows, recorded)]), ["fetch", "fetch", "present"]),
            (
                held(&[(&windows, Digest::of(b"unknown"))]),
                ["fetch", "fetch", "fetch and compare"],
            ),
        ];
        for (held, want) in cases {
            let needs = job.needs(&null, &version, &platforms, &held).await;
            let got: Vec<String> = needs.iter().map(describe).collect();
            assert_eq!(got, want, "{held:?}");
        }
    }
}
