//! The persistent module cache, under the hash cache's root:
//!
//! ```text
//! <root>/v2/modules/registry/<host>/<namespace>/<name>/<system>/<version>/   a package
//! <root>/v2/modules/git/<sha256 of the URL, 32 hex>/<commit>/                a package
//! <root>/v2/modules/versions/<host>/<namespace>/<name>/<system>.json         version list (TTL)
//! <root>/v2/modules/refs/<sha256 of the URL, 32 hex>.json                    last ref → commit
//! <root>/v2/modules/tmp/                                                      staging
//! ```
//!
//! A package entry is keyed by an identity that never changes what it names (a registry
//! version, a git commit), so it is valid forever. It holds the package's configuration
//! files and directories under `files/` and a `package.json` listing each file's SHA-256
//! and the directory the module source's own `//subdir` named (for registry downloads
//! that unpack into a top-level directory). It is built in `tmp/` and renamed into place
//! whole, so a reader sees a complete entry or none; one that fails its checksums is
//! removed and fetched again. Plain https archives have no such identity and are never
//! stored here (docs/spec/modules.md §6).
//!
//! Version lists and ref resolutions are small JSON files written with the atomic writer;
//! they only save requests, and `--offline` falls back on them whatever their age.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::package::Materialized;
use super::source::RegistryModule;

/// The immutable identity a package is stored under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum PackageKey {
    /// A registry module version (`package_id` is lowercase `host/ns/name/system`).
    Registry { package_id: String, version: String },
    /// A commit of a repository, by the URL given to git.
    Git { url: String, commit: String },
}

impl std::fmt::Display for PackageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackageKey::Registry {
                package_id,
                version,
            } => write!(f, "{package_id} {version}"),
            PackageKey::Git { url, commit } => {
                write!(f, "{} at {commit}", super::source::redacted(url))
            }
        }
    }
}

/// A package on disk: where its files are and which directory the source named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredPackage {
    /// The package root (`…/files`).
    pub root: PathBuf,
    /// The directory below `root` the download location's `//subdir` resolved to
    /// (`""`: the root itself).
    pub base: String,
}

#[derive(Serialize, Deserialize)]
struct PackageMeta {
    key: String,
    base: String,
    dirs: Vec<String>,
    /// Path → lowercase hex SHA-256 of the content.
    files: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize)]
struct VersionsFile {
    fetched_at: u64,
    versions: Vec<String>,
}

#[derive(Serialize, Deserialize, Default)]
struct RefsFile {
    url: String,
    /// Ref as written (`""` for none) → commit.
    refs: BTreeMap<String, String>,
}

/// The module part of the cache; without a root every lookup misses and nothing is kept.
#[derive(Debug, Clone)]
pub(crate) struct ModuleCache {
    dir: Option<PathBuf>,
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn url_key(url: &str) -> String {
    sha256_hex(url.as_bytes())[..32].to_string()
}

/// A path segment from registry data: the grammar already limits namespace, name and
/// system; a version can carry `+`, and a host `:`.
fn segment(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '~') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl ModuleCache {
    /// The module cache below the hash cache root (`None`: no persistent cache).
    pub(crate) fn new(cache_root: Option<&Path>) -> ModuleCache {
        ModuleCache {
            dir: cache_root.map(|root| root.join(crate::disk::cache::LAYOUT).join("modules")),
        }
    }

    /// The staging area inside the cache, so a finished entry is renamed, not copied.
    pub(crate) fn staging_dir(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join("tmp"))
    }

    fn entry_dir(&self, key: &PackageKey) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(match key {
            PackageKey::Registry {
                package_id,
                version,
            } => {
                let mut path = dir.join("registry");
                for part in package_id.split('/') {
                    path.push(segment(part));
                }
                path.join(segment(version))
            }
            PackageKey::Git { url, commit } => {
                dir.join("git").join(url_key(url)).join(segment(commit))
            }
        })
    }

    /// The stored package for `key`, if present and intact. A damaged entry is removed.
    pub(crate) fn package(&self, key: &PackageKey) -> Option<StoredPackage> {
        let entry = self.entry_dir(key)?;
        let meta_path = entry.join("package.json");
        let text = std::fs::read(&meta_path).ok()?;
        match verify(&entry, &text, key) {
            Some(package) => Some(package),
            None => {
                tracing::warn!(
                    "module cache entry {} is damaged; fetching again",
                    entry.display()
                );
                let _ = std::fs::remove_dir_all(&entry);
                None
            }
        }
    }

    /// Stores `package` under `key` and returns where it is. When another process
    /// stored the same identity first, its entry is used.
    pub(crate) fn store(
        &self,
        key: &PackageKey,
        package: &Materialized,
        base: &str,
    ) -> std::io::Result<Option<StoredPackage>> {
        let (Some(entry), Some(staging)) = (self.entry_dir(key), self.staging_dir()) else {
            return Ok(None);
        };
        std::fs::create_dir_all(&staging)?;
        let tmp = tempfile::Builder::new()
            .prefix("pkg-")
            .tempdir_in(&staging)?;
        write_entry(tmp.path(), key, package, base)?;
        if let Some(parent) = entry.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let _guard = crate::disk::atomic::write_guard();
        let staged = tmp.keep();
        match std::fs::rename(&staged, &entry) {
            Ok(()) => {}
            Err(e) => {
                let _ = std::fs::remove_dir_all(&staged);
                // Lost a race against another process storing the same identity.
                if let Some(existing) = self.package(key) {
                    return Ok(Some(existing));
                }
                return Err(e);
            }
        }
        Ok(Some(StoredPackage {
            root: entry.join("files"),
            base: base.to_string(),
        }))
    }

    fn versions_file(&self, module: &RegistryModule) -> Option<PathBuf> {
        let mut path = self.dir.as_ref()?.join("versions");
        let id = module.package_id();
        let parts: Vec<&str> = id.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            path.push(segment(part));
        }
        Some(path.join(format!("{}.json", segment(parts[parts.len() - 1]))))
    }

    /// A cached version list younger than `ttl` (`None`: any age, for `--offline`).
    pub(crate) fn versions(
        &self,
        module: &RegistryModule,
        ttl: Option<Duration>,
    ) -> Option<Vec<String>> {
        let text = std::fs::read(self.versions_file(module)?).ok()?;
        let file: VersionsFile = serde_json::from_slice(&text).ok()?;
        let fresh =
            ttl.is_none_or(|ttl| now_secs().saturating_sub(file.fetched_at) < ttl.as_secs());
        fresh.then_some(file.versions)
    }

    pub(crate) fn put_versions(&self, module: &RegistryModule, versions: &[String]) {
        let Some(path) = self.versions_file(module) else {
            return;
        };
        let file = VersionsFile {
            fetched_at: now_secs(),
            versions: versions.to_vec(),
        };
        write_json(&path, &file);
    }

    fn refs_file(&self, url: &str) -> Option<PathBuf> {
        Some(
            self.dir
                .as_ref()?
                .join("refs")
                .join(format!("{}.json", url_key(url))),
        )
    }

    /// The commit `reference` last resolved to for `url`.
    pub(crate) fn git_ref(&self, url: &str, reference: Option<&str>) -> Option<String> {
        let text = std::fs::read(self.refs_file(url)?).ok()?;
        let file: RefsFile = serde_json::from_slice(&text).ok()?;
        (file.url == url)
            .then(|| file.refs.get(reference.unwrap_or("")).cloned())
            .flatten()
    }

    pub(crate) fn put_git_ref(&self, url: &str, reference: Option<&str>, commit: &str) {
        let Some(path) = self.refs_file(url) else {
            return;
        };
        let mut file: RefsFile = std::fs::read(&path)
            .ok()
            .and_then(|t| serde_json::from_slice(&t).ok())
            .filter(|f: &RefsFile| f.url == url)
            .unwrap_or_default();
        file.url = url.to_string();
        file.refs
            .insert(reference.unwrap_or("").to_string(), commit.to_string());
        write_json(&path, &file);
    }
}

/// Writes a package entry (files plus `package.json`) into the empty directory `dir`.
pub(crate) fn write_entry(
    dir: &Path,
    key: &PackageKey,
    package: &Materialized,
    base: &str,
) -> std::io::Result<()> {
    let files_dir = dir.join("files");
    std::fs::create_dir_all(&files_dir)?;
    package.write_to(&files_dir)?;
    let meta = PackageMeta {
        key: key.to_string(),
        base: base.to_string(),
        dirs: package.dirs.iter().cloned().collect(),
        files: package
            .files
            .iter()
            .map(|(path, content)| (path.clone(), sha256_hex(content)))
            .collect(),
    };
    let json = serde_json::to_vec_pretty(&meta).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("package.json"), json)
}

/// Checks an entry against its `package.json`: the key, every directory, and every
/// file's checksum.
fn verify(entry: &Path, meta: &[u8], key: &PackageKey) -> Option<StoredPackage> {
    let meta: PackageMeta = serde_json::from_slice(meta).ok()?;
    if meta.key != key.to_string() {
        return None;
    }
    let root = entry.join("files");
    for dir in &meta.dirs {
        if !root.join(dir).is_dir() {
            return None;
        }
    }
    for (path, sum) in &meta.files {
        let content = std::fs::read(root.join(path)).ok()?;
        if &sha256_hex(&content) != sum {
            return None;
        }
    }
    Some(StoredPackage {
        root,
        base: meta.base,
    })
}

/// Best effort: these files only save requests.
fn write_json<T: Serialize>(path: &Path, value: &T) {
    let Ok(json) = serde_json::to_vec(value) else {
        return;
    };
    if let Some(parent) = path.parent() {
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
    }
    if let Err(e) = crate::disk::atomic::replace_file(path, &json) {
        tracing::debug!("cannot write {}: {e}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::modules::source::{parse_source, ModuleSource};
    use std::sync::Arc;

    fn package() -> Materialized {
        let mut m = Materialized::default();
        m.dirs.insert("sub".into());
        m.files.insert("main.tf".into(), Arc::new(b"x".to_vec()));
        m.files.insert("sub/v.tf".into(), Arc::new(b"y".to_vec()));
        m
    }

    #[test]
    fn packages_round_trip_and_damage_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ModuleCache::new(Some(dir.path()));
        let key = PackageKey::Git {
            url: "https://example.com/m.git".into(),
            commit: "a".repeat(40),
        };
        assert_eq!(cache.package(&key), None);
        let stored = cache.store(&key, &package(), "sub").unwrap().unwrap();
        assert_eq!(std::fs::read(stored.root.join("sub/v.tf")).unwrap(), b"y");
        assert_eq!(cache.package(&key), Some(stored.clone()));
        // Storing again (another process won the race) keeps the existing entry.
        assert_eq!(
            cache.store(&key, &package(), "sub").unwrap(),
            Some(stored.clone())
        );

        std::fs::write(stored.root.join("main.tf"), b"edited").unwrap();
        assert_eq!(cache.package(&key), None);
        assert!(!stored.root.exists(), "a damaged entry is removed");

        let disabled = ModuleCache::new(None);
        assert_eq!(disabled.store(&key, &package(), "").unwrap(), None);
    }

    #[test]
    fn version_lists_and_refs() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ModuleCache::new(Some(dir.path()));
        let ModuleSource::Registry(module) = parse_source("127.0.0.1:5000/Ns/Name/sys").unwrap()
        else {
            panic!()
        };
        assert_eq!(cache.versions(&module, None), None);
        cache.put_versions(&module, &["1.0.0".to_string()]);
        assert_eq!(
            cache.versions(&module, Some(Duration::from_secs(60))),
            Some(vec!["1.0.0".into()])
        );
        assert_eq!(cache.versions(&module, Some(Duration::ZERO)), None);
        assert_eq!(cache.versions(&module, None), Some(vec!["1.0.0".into()]));

        cache.put_git_ref("https://h/r.git", Some("v1"), "abc");
        cache.put_git_ref("https://h/r.git", None, "def");
        assert_eq!(
            cache.git_ref("https://h/r.git", Some("v1")).as_deref(),
            Some("abc")
        );
        assert_eq!(
            cache.git_ref("https://h/r.git", None).as_deref(),
            Some("def")
        );
        assert_eq!(cache.git_ref("https://h/other.git", None), None);
    }
}
