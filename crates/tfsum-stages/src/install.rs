//! The install stage (`tfsum mirror`, `tfsum lock --mirror`): every package the lock
//! files lock, for every platform asked, placed in a provider directory
//! ([`tfsum_disk::provider_dir`]) that Terraform reads as a plugin cache or filesystem
//! mirror, so that `init` in every root needs neither the registry nor a shared,
//! racing cache.
//!
//! Each (provider, version, platform) once, however many lock files lock it:
//!
//! 1. **present**: the directory already holds an entry whose `h1:` a lock file records:
//!    left alone, never rewritten (a running provider may hold it);
//! 2. **else fetched** through the package sources, checked as `lock` checks a download
//!    (the zip against the signed SHA256SUMS), unpacked in staging, and its files'
//!    `h1:` checked against the lock files; placed only when a lock file records it.
//!
//! A lock file that records hashes for the provider but not the package's `h1:` (a
//! platform it was not locked for, or a wrong hash) fails that package for that lock
//! file: `init` would refuse the entry.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use crate::warning::Warning;
use tfsum_disk::leftovers::TempFile;
use tfsum_disk::provider_dir::{Layout, PlaceError, Placed, Present, ProviderDir};
use tfsum_sources::kept::KeptPackages;
use tfsum_sources::{PackageError, Sources};
use tfsum_vocab::addr::{Platform, PlatformPackage, ProviderAddr};
use tfsum_vocab::hash::Hash;
use tfsum_vocab::lockfile::{self, LockFile};
use tfsum_vocab::version::Version;

/// A lock file to install from.
#[derive(Debug, Clone)]
pub struct LockedRoot {
    pub lock_path: PathBuf,
    pub lock: Arc<LockFile>,
}

/// One package for one platform, and what became of it.
#[derive(Debug)]
pub struct Install {
    pub provider: ProviderAddr,
    pub version: Version,
    pub platform: Platform,
    pub outcome: Result<Placement, InstallError>,
    /// Lock files that lock this version but record no hash of the package placed (or
    /// present): `init` in their roots would refuse it.
    pub unmatched: Vec<PathBuf>,
}

/// How the package came to be in the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Already there and whole: left alone.
    Present,
    /// Fetched, checked and placed.
    Installed,
    /// Fetched, checked, and swapped for a damaged entry.
    Replaced,
}

/// Why a package was not placed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(transparent)]
    Package(PackageError),
    #[error("{0}")]
    Place(PlaceError<NoLockRecords>),
    #[error("the install task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// No lock file records the `h1:` of the package fetched.
#[derive(Debug, thiserror::Error)]
#[error("no lock file records its {h1}: {}", files(.locks))]
pub struct NoLockRecords {
    pub h1: Hash,
    pub locks: Vec<PathBuf>,
}

fn files(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(", ")
}

impl Install {
    pub fn is_failure(&self) -> bool {
        self.outcome.is_err() || !self.unmatched.is_empty()
    }
}

/// What a fill did: the directory (absolute), its layout, each package's outcome, and
/// what stopped nothing (the packed layout's indexes).
#[derive(Debug)]
pub struct Filled {
    pub dir: PathBuf,
    pub layout: Layout,
    pub packages: Vec<Install>,
    pub warnings: Vec<Warning>,
}

/// Installs into the opened provider directory every package `locked` locks for
/// `platforms` ([`install`]), writes the packed layout's indexes and closes it. For
/// `mirror` and `lock --mirror` (whose downloads wait in `kept`).
pub async fn fill(
    opened: Arc<ProviderDir>,
    sources: &Sources,
    kept: Option<Arc<KeptPackages>>,
    locked: &[LockedRoot],
    platforms: &[Platform],
) -> Filled {
    let layout = opened.layout();
    let packages = install(opened.clone(), sources, kept.clone(), locked, platforms).await;
    if let Some(kept) = kept {
        kept.clear();
    }
    let mut warnings = Vec::new();
    if let Err(e) = opened.write_indexes(&Default::default()) {
        warnings.push(Warning::Mirror(e.to_string()));
    }
    let root = opened.root().to_path_buf();
    opened.close();
    Filled {
        dir: root,
        layout,
        packages,
        warnings,
    }
}

/// The lock files in `dirs` (roots `lock` just wrote or found unchanged), for `lock
/// --mirror`; a root without one (no providers) is skipped.
pub fn lock_files_of(dirs: impl Iterator<Item = PathBuf>) -> Vec<LockedRoot> {
    dirs.filter_map(|dir| {
        let path = dir.join(lockfile::LOCK_FILE_NAME);
        let bytes = std::fs::read(&path).ok()?;
        let lock = lockfile::read(&bytes).ok()?;
        Some(LockedRoot {
            lock_path: path,
            lock: Arc::new(lock),
        })
    })
    .collect()
}

/// What each lock file records for one (provider, version): its path and hashes.
type Records = Vec<(PathBuf, BTreeSet<Hash>)>;

/// Installs every package `roots` lock, for each of `platforms`, into `dir`; in
/// (provider, version, platform) order.
pub(crate) async fn install(
    dir: Arc<ProviderDir>,
    sources: &Sources,
    kept: Option<Arc<KeptPackages>>,
    roots: &[LockedRoot],
    platforms: &[Platform],
) -> Vec<Install> {
    let mut packages: BTreeMap<(ProviderAddr, Version), Records> = BTreeMap::new();
    for root in roots {
        for (addr, entry) in &root.lock.providers {
            let hashes: BTreeSet<Hash> = entry.hashes.iter().cloned().collect();
            packages
                .entry((addr.clone(), entry.version.clone()))
                .or_default()
                .push((root.lock_path.clone(), hashes));
        }
    }
    let mut tasks = Vec::new();
    for ((addr, version), records) in packages {
        let records = Arc::new(records);
        for platform in platforms {
            let (dir, sources, records) = (dir.clone(), sources.clone(), records.clone());
            let kept = kept.clone();
            let (addr, version, platform) = (addr.clone(), version.clone(), platform.clone());
            tasks.push(tokio::spawn(async move {
                let kept = kept.as_deref();
                one(&dir, &sources, kept, &records, addr, version, platform).await
            }));
        }
    }
    let mut done = Vec::with_capacity(tasks.len());
    for task in tasks {
        match task.await {
            Ok(install) => done.push(install),
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
    done
}

/// The lock files among `records` that record none of `hashes` (a lock entry without
/// hashes accepts any package, as `init` does).
fn unmatched(records: &Records, h1: &Hash) -> Vec<PathBuf> {
    records
        .iter()
        .filter(|(_, hashes)| !hashes.is_empty() && !hashes.contains(h1))
        .map(|(path, _)| path.clone())
        .collect()
}

/// One package for one platform, and which lock files lock its version without
/// recording it.
async fn one(
    dir: &Arc<ProviderDir>,
    sources: &Sources,
    kept: Option<&KeptPackages>,
    records: &Arc<Records>,
    provider: ProviderAddr,
    version: Version,
    platform: Platform,
) -> Install {
    let package = PlatformPackage {
        provider: &provider,
        version: &version,
        platform: &platform,
    };
    let outcome = put_in_place(dir, sources, kept, records, package).await;
    let unmatched = match &outcome {
        Ok((_, h1)) => unmatched(records, h1),
        Err(_) => Vec::new(),
    };
    Install {
        outcome: outcome.map(|(placement, _)| placement),
        unmatched,
        provider,
        version,
        platform,
    }
}

/// The package's entry, and its `h1:`: left alone when present and recorded by a lock
/// file, else fetched (or taken from the zips this run's hash stage kept), checked and
/// placed.
async fn put_in_place(
    dir: &Arc<ProviderDir>,
    sources: &Sources,
    kept: Option<&KeptPackages>,
    records: &Arc<Records>,
    package: PlatformPackage<'_>,
) -> Result<(Placement, Hash), InstallError> {
    if let Some(h1) = recorded_entry(dir, records, package).await? {
        return Ok((Placement::Present, h1));
    }
    let PlatformPackage {
        provider,
        version,
        platform,
    } = package;
    let zip = match kept.and_then(|kept| kept.take(provider, version, platform)) {
        // Downloaded and verified by this run's hash stage.
        Some(zip) => zip,
        None => {
            let zip = dir
                .staging_file()
                .map_err(|e| InstallError::Place(PlaceError::Stage(e)))?;
            let recorded: BTreeSet<Hash> = records
                .iter()
                .flat_map(|(_, h)| h.iter().cloned())
                .collect();
            sources
                .fetch_package(package, zip.as_file(), &recorded)
                .await
                .map_err(InstallError::Package)?;
            zip
        }
    };
    place_recorded(dir, records, zip, package).await
}

/// The `h1:` of the package's entry when the directory has one that a lock file records.
async fn recorded_entry(
    dir: &Arc<ProviderDir>,
    records: &Arc<Records>,
    package: PlatformPackage<'_>,
) -> Result<Option<Hash>, InstallError> {
    let (dir, provider, version, platform) = (
        dir.clone(),
        package.provider.clone(),
        package.version.clone(),
        package.platform.clone(),
    );
    let present =
        tokio::task::spawn_blocking(move || dir.present(&provider, &version, &platform)).await?;
    Ok(match present {
        Present::Hashed(h1) if unmatched(records, &h1).len() < records.len() => Some(h1),
        _ => None,
    })
}

/// Unpacks `zip` and places it, when a lock file records the `h1:` of what it unpacks to.
async fn place_recorded(
    dir: &Arc<ProviderDir>,
    records: &Arc<Records>,
    zip: TempFile,
    package: PlatformPackage<'_>,
) -> Result<(Placement, Hash), InstallError> {
    let (dir, records) = (dir.clone(), records.clone());
    let (provider, version, platform) = (
        package.provider.clone(),
        package.version.clone(),
        package.platform.clone(),
    );
    let placed = tokio::task::spawn_blocking(move || {
        dir.place(zip, &provider, &version, &platform, |h1| {
            if unmatched(&records, h1).len() < records.len() {
                return Ok(());
            }
            Err(NoLockRecords {
                h1: h1.clone(),
                locks: records.iter().map(|(path, _)| path.clone()).collect(),
            })
        })
    })
    .await?;
    let (h1, how) = placed.map_err(InstallError::Place)?;
    let placement = match how {
        Placed::Installed => Placement::Installed,
        Placed::Replaced => Placement::Replaced,
        Placed::Present => Placement::Present,
    };
    Ok((placement, h1))
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use tfsum_disk::provider_dir::Layout;
    use tfsum_sources::testing::{hashicorp, TableRegistry};
    use tfsum_vocab::hash::zipstream::{hash_zip_stream, ZipLimits};

    const BINARY: &str = "terraform-provider-null_v3.2.1_x5";

    fn zip() -> Vec<u8> {
        let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
        out.start_file(BINARY, options).unwrap();
        out.write_all(b"a provider").unwrap();
        out.finish().unwrap().into_inner()
    }

    fn locked(dir: &std::path::Path, name: &str, hashes: &[&Hash]) -> LockedRoot {
        let lines: Vec<String> = hashes.iter().map(|h| format!("    \"{h}\",\n")).collect();
        let text = format!(
            "provider \"registry.terraform.io/hashicorp/null\" {{\n  version = \"3.2.1\"\n  hashes = [\n{}  ]\n}}\n",
            lines.concat()
        );
        let lock_path = dir.join(name);
        LockedRoot {
            lock: Arc::new(lockfile::read(text.as_bytes()).unwrap()),
            lock_path,
        }
    }

    /// A package is fetched once, placed when a lock file records its `h1:` (naming the
    /// lock files that lock the version without it), left alone when present, and
    /// refused when no lock file records it.
    #[tokio::test]
    async fn placed_once_when_a_lock_file_records_it() {
        let (null, version) = (hashicorp("null"), Version::parse("3.2.1").unwrap());
        let platform: Platform = "linux_amd64".parse().unwrap();
        let zip = zip();
        let right = hash_zip_stream(zip.as_slice(), &ZipLimits::default())
            .unwrap()
            .h1;
        let wrong = Hash::parse("h1:d3Jvbmc=").unwrap();
        let mut registry = TableRegistry::default();
        let key = (null.clone(), version.clone(), platform.clone());
        registry.zips.insert(key, zip);
        let registry = Arc::new(registry);
        let sources = Sources::registry(registry.clone());
        let tmp = tempfile::tempdir().unwrap();
        let roots = [
            locked(tmp.path(), "a.lock", &[&right]),
            locked(tmp.path(), "b.lock", &[&wrong]),
        ];
        let open = |dir: &str| {
            let dir = ProviderDir::open(
                &tmp.path().join(dir),
                Layout::Unpacked,
                ZipLimits::default(),
            );
            Arc::new(dir.unwrap())
        };
        let platforms = [platform.clone()];

        let first = install(open("mirror"), &sources, None, &roots, &platforms).await;
        assert_eq!(first.len(), 1);
        assert!(
            matches!(first[0].outcome, Ok(Placement::Installed)),
            "{first:?}"
        );
        assert_eq!(first[0].unmatched, [tmp.path().join("b.lock")]);
        let entry = tmp
            .path()
            .join("mirror/registry.terraform.io/hashicorp/null/3.2.1/linux_amd64");
        assert_eq!(std::fs::read(entry.join(BINARY)).unwrap(), b"a provider");

        let again = install(open("mirror"), &sources, None, &roots, &platforms).await;
        assert!(
            matches!(again[0].outcome, Ok(Placement::Present)),
            "{again:?}"
        );
        assert_eq!(registry.asked(), ["package null 3.2.1 linux_amd64"]);

        let refused = install(open("other"), &sources, None, &roots[1..], &platforms).await;
        let err = refused[0]
            .outcome
            .as_ref()
            .expect_err("no lock file records it");
        let text = err.to_string();
        assert!(
            text.contains("no lock file records its h1:") && text.contains("b.lock"),
            "{text}"
        );
        assert!(!tmp.path().join("other/registry.terraform.io").exists());
    }
}
