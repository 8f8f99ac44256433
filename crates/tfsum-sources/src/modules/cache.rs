//! Remote modules in the persistent cache: one more namespace of
//! [`tfsum_disk::cache::Cache`], which owns every path (private directories, owner and
//! link refusal, checked envelopes, future-dated lists expired):
//!
//! ```text
//! <root>/v2/modules3/registry/<host>/<namespace>/<name>/<system>/<version>/   a package
//! <root>/v2/modules3/registry/…/<version>.git.json        a version served from a git commit
//! <root>/v2/modules3/git/<commit>/                         a package
//! <root>/v2/modules3/oci/sha256_<hex>/                     a package (OCI manifest digest)
//! <root>/v2/modules3/versions/<host>/<namespace>/<name>/<system>.json   version list (TTL)
//! <root>/v2/modules3/refs/<sha256 of the URL, 32 hex>.json              last ref → commit (TTL)
//! <root>/v2/modules3/tmp/                                   staging
//! ```
//!
//! A package entry is keyed by an identity that never changes what it names (a registry
//! version, a git commit), so it is valid forever. It holds the configuration files and
//! directories under `files/` and a `package.json` (in the cache's checked envelope)
//! listing them, each file with its SHA-256. It is built in `tmp/` and renamed into
//! place whole. Reading it back checks, besides the cache's owner and link rules, that
//! `files/` holds exactly what `package.json` lists, and:
//!
//! - **git** (and registry versions whose location is a git commit, which are stored as
//!   that commit plus a pointer): `package.json` also keeps the raw commit object, the
//!   commit's full tree listing and its symlink targets. The commit must hash to the
//!   id the entry is stored under, the listing must rebuild every tree object the
//!   commit names ([`super::git_objects`]), each kept file must hash to its blob id,
//!   and unpacking the listing again must give exactly `files/`. So an edited or
//!   planted package is not used, whatever checksums were recomputed: it is fetched
//!   again.
//! - **registry versions served as archives**, and OCI packages (by manifest digest,
//!   whose zip was verified against its digest when fetched): nothing signs a module
//!   archive, so there
//!   is nothing to check a copy against. The cache trusts these entries as it trusts a
//!   provider's `h1:` entries: because only this user can write the cache (it refuses
//!   a directory or entry that another user owns or can write, and links), and the
//!   SHA-256 sums detect corruption (a truncated or half-copied entry is fetched again),
//!   not forgery.
//!
//! Plain https archives have no immutable identity and are never stored
//! (docs/spec/modules.md §6). An entry that fails its checks is removed and fetched
//! again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::archive::ArchiveLimits;
use super::git::CommitObjects;
use super::git_objects::{object_id, parse_listing, verify_listing};
use super::package::{is_kept, Materialized, PackageTree};
use tfsum_disk::cache::{now_secs, Cache, Health, StoredTree, LAYOUT};
use tfsum_disk::leftovers::TempDir;
use tfsum_vocab::module_source::RegistryModule;

/// The immutable identity a package is stored under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum PackageKey {
    /// A registry module version (`package_id` is lowercase `host/ns/name/system`).
    Registry { package_id: String, version: String },
    /// A git commit, by its full id: the same content whichever URL served it.
    Git { commit: String },
    /// An OpenTofu module package from an OCI registry, by its manifest's digest
    /// (`sha256:<hex>`): the same content whichever repository or tag served it.
    Oci { digest: String },
}

impl std::fmt::Display for PackageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackageKey::Registry {
                package_id,
                version,
            } => write!(f, "{package_id} {version}"),
            PackageKey::Git { commit } => write!(f, "commit {commit}"),
            PackageKey::Oci { digest } => write!(f, "OCI manifest {digest}"),
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
    dirs: BTreeSet<String>,
    /// Path → lowercase hex SHA-256 of the content.
    files: BTreeMap<String, String>,
    /// What proves a git package against its commit id.
    git: Option<GitProof>,
}

#[derive(Serialize, Deserialize)]
struct GitProof {
    /// Standard base64 of the raw commit object.
    commit_object: String,
    /// Standard base64 of `ls-tree -r -t -z --full-tree` output.
    listing: String,
    /// Symlink path → target.
    links: BTreeMap<String, String>,
}

/// A registry version whose download location is a git commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GitAlias {
    pub commit: String,
    /// The location's `//subdir`, resolved inside the commit's package.
    pub base: String,
}

#[derive(Serialize, Deserialize, Default)]
struct RefsFile {
    url: String,
    /// Ref as written (`""` for none) → commit.
    refs: BTreeMap<String, String>,
    /// Ref as written → when the remote last listed it at that commit (Unix seconds).
    /// Entries written before tfsum kept it have none and are never fresh; left out
    /// when empty, so that their checksum still holds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    seen: BTreeMap<String, u64>,
}

/// The module namespace of the cache; without a cache every lookup misses and nothing
/// is kept.
#[derive(Debug, Clone)]
pub(crate) struct ModuleCache {
    cache: Option<Cache>,
    limits: ArchiveLimits,
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

/// The namespace of module packages. Named anew whenever what a package keeps grows (the
/// `.hcl` files of Terragrunt stacks' unit sources, since `modules3`): an entry written
/// before would lack them.
fn modules_dir() -> PathBuf {
    Path::new(LAYOUT).join("modules3")
}

impl ModuleCache {
    /// The module namespace of the cache at `cache_root` (`None`: no persistent cache).
    /// A root the cache refuses (another user's) keeps nothing, with a warning.
    pub(crate) fn new(cache_root: Option<&Path>, limits: ArchiveLimits) -> ModuleCache {
        let cache = cache_root.and_then(|root| match Cache::open(root.to_path_buf()) {
            Ok(cache) => Some(cache),
            Err(e) => {
                tracing::warn!("remote modules are not cached: {e}");
                None
            }
        });
        ModuleCache { cache, limits }
    }

    /// What was refused (links, other users' files, damaged or misplaced entries) and
    /// what could not be written so far.
    pub(crate) fn health(&self) -> Health {
        self.cache.as_ref().map(Cache::health).unwrap_or_default()
    }

    /// Counts a package that could not be stored, for the run's warning.
    pub(crate) fn store_failed(&self, key: &PackageKey, error: &std::io::Error) {
        if let Some(cache) = &self.cache {
            cache.write_failed(&Self::entry_dir(key), error);
        }
    }

    /// The staging area inside the cache (created private), so a finished entry is
    /// renamed, not copied.
    pub(crate) fn staging_dir(&self) -> std::io::Result<Option<PathBuf>> {
        match &self.cache {
            Some(cache) => cache.private_dirs(&modules_dir().join("tmp")),
            None => Ok(None),
        }
    }

    /// The entry's directory, relative to the cache root.
    fn entry_dir(key: &PackageKey) -> PathBuf {
        match key {
            PackageKey::Registry {
                package_id,
                version,
            } => {
                let mut path = modules_dir().join("registry");
                for part in package_id.split('/') {
                    path.push(segment(part));
                }
                path.join(segment(version))
            }
            PackageKey::Git { commit } => modules_dir().join("git").join(segment(commit)),
            PackageKey::Oci { digest } => modules_dir().join("oci").join(segment(digest)),
        }
    }

    /// The stored package for `key`, if present and genuine (see the module docs). An
    /// entry that fails is removed, so that the next store replaces it.
    pub(crate) fn package(&self, key: &PackageKey) -> Option<StoredPackage> {
        let cache = self.cache.as_ref()?;
        let root = cache.root()?;
        let relative = Self::entry_dir(key);
        let entry = root.join(&relative);
        if std::fs::symlink_metadata(&entry).is_err() {
            return None;
        }
        let json = relative.join("package.json");
        let Some(meta) = cache.read::<PackageMeta>(&json, &about_package(key)) else {
            // One that is there was refused, and counted, by the read; a package that
            // lacks it was left half-stored.
            if std::fs::symlink_metadata(root.join(&json)).is_err() {
                cache.refuse(&entry, "its package.json is missing");
            }
            remove_entry(cache, &relative);
            return None;
        };
        match self.verify(cache, &relative, key, meta) {
            Ok(package) => Some(package),
            Err(reason) => {
                cache.refuse(&entry, &reason);
                remove_entry(cache, &relative);
                None
            }
        }
    }

    fn verify(
        &self,
        cache: &Cache,
        relative: &Path,
        key: &PackageKey,
        meta: PackageMeta,
    ) -> Result<StoredPackage, String> {
        if meta.key != key.to_string() {
            return Err(format!("it is stored for {:?}", meta.key));
        }
        let files = relative.join("files");
        let tree = cache
            .read_tree(&files, self.limits.max_config_bytes)
            .ok_or("its files are missing, refused or too large")?;
        let listed: BTreeSet<&String> = meta.files.keys().collect();
        if tree.dirs != meta.dirs || tree.files.keys().collect::<BTreeSet<_>>() != listed {
            return Err("its files are not the ones it lists".to_string());
        }
        for (path, sum) in &meta.files {
            if tree.files.get(path).map(|c| sha256_hex(c)).as_ref() != Some(sum) {
                return Err(format!("{path} does not have its checksum"));
            }
        }
        match (key, &meta.git) {
            (PackageKey::Git { commit }, Some(proof)) => {
                verify_git(commit, proof, &tree, &self.limits)?
            }
            (PackageKey::Git { .. }, None) => return Err("it has no commit proof".to_string()),
            (PackageKey::Registry { .. } | PackageKey::Oci { .. }, _) => {}
        }
        if !meta.base.is_empty() && !meta.dirs.contains(&meta.base) {
            return Err(format!("its base directory {:?} is missing", meta.base));
        }
        Ok(StoredPackage {
            root: cache.root().map(|r| r.join(files)).unwrap_or_default(),
            base: meta.base,
        })
    }

    /// Stores `package` under `key` and returns where it is. `proof` is required for
    /// git commits (without it nothing is stored). When another process stored the same
    /// identity first, its entry is used.
    pub(crate) fn store(
        &self,
        key: &PackageKey,
        package: &Materialized,
        base: &str,
        proof: Option<&CommitObjects>,
    ) -> std::io::Result<Option<StoredPackage>> {
        let (Some(cache), Some(staging)) = (&self.cache, self.staging_dir()?) else {
            return Ok(None);
        };
        let Some(root) = cache.root() else {
            return Ok(None);
        };
        if matches!(key, PackageKey::Git { .. }) && proof.is_none() {
            return Ok(None);
        }
        let tmp = TempDir::new_in(&staging)?;
        let staged_relative = tmp
            .path()
            .strip_prefix(root)
            .map_err(std::io::Error::other)?
            .to_path_buf();
        write_entry(
            cache,
            tmp.path(),
            &staged_relative,
            key,
            package,
            base,
            proof,
        )?;
        let relative = Self::entry_dir(key);
        if let Some(parent) = relative.parent() {
            cache.private_dirs(parent)?;
        }
        let entry = root.join(&relative);
        let _guard = tfsum_disk::atomic::write_guard();
        if let Err((_, tmp)) = tmp.rename_to(&entry) {
            // Another process stored it first, or a damaged entry is in the way (which
            // `package` removes). Dropping `tmp` removes it.
            if let Some(existing) = self.package(key) {
                return Ok(Some(existing));
            }
            tmp.rename_to(&entry).map_err(|(e, _)| e)?;
        }
        Ok(Some(StoredPackage {
            root: entry.join("files"),
            base: base.to_string(),
        }))
    }

    fn alias_file(key: &PackageKey) -> PathBuf {
        let dir = Self::entry_dir(key);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        dir.with_file_name(format!("{name}.git.json"))
    }

    /// The git commit a registry version was found to be served from.
    pub(crate) fn git_alias(&self, key: &PackageKey) -> Option<GitAlias> {
        let about = format!("the git commit of module {key}");
        self.cache.as_ref()?.read(&Self::alias_file(key), &about)
    }

    pub(crate) fn put_git_alias(&self, key: &PackageKey, alias: &GitAlias) {
        if let Some(cache) = &self.cache {
            let about = format!("the git commit of module {key}");
            cache.write(&Self::alias_file(key), &about, alias);
        }
    }

    fn versions_file(module: &RegistryModule) -> PathBuf {
        let mut path = modules_dir().join("versions");
        let id = module.package_id();
        let parts: Vec<&str> = id.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            path.push(segment(part));
        }
        path.join(format!("{}.json", segment(parts[parts.len() - 1])))
    }

    /// A cached version list younger than `ttl` (`None`: any age, for `--offline`);
    /// one dated in the future is expired.
    pub(crate) fn versions(
        &self,
        module: &RegistryModule,
        ttl: Option<Duration>,
    ) -> Option<Vec<String>> {
        let about = about_versions(module);
        self.cache
            .as_ref()?
            .versions_at(&Self::versions_file(module), &about, ttl)
    }

    pub(crate) fn put_versions(&self, module: &RegistryModule, versions: &[String]) {
        if let Some(cache) = &self.cache {
            let about = about_versions(module);
            cache.put_versions_at(&Self::versions_file(module), &about, versions);
        }
    }

    fn refs_file(url: &str) -> PathBuf {
        modules_dir()
            .join("refs")
            .join(format!("{}.json", url_key(url)))
    }

    fn refs(&self, url: &str) -> Option<RefsFile> {
        self.cache
            .as_ref()?
            .read(&Self::refs_file(url), &about_refs(url))
            .filter(|file: &RefsFile| file.url == url)
    }

    /// The commit `reference` last resolved to for `url`, at any age (for `--offline`).
    pub(crate) fn git_ref(&self, url: &str, reference: Option<&str>) -> Option<String> {
        self.refs(url)?.refs.remove(reference.unwrap_or(""))
    }

    /// The commit `reference` resolved to for `url`, if the remote listed it less than
    /// `ttl` ago: never for a zero `ttl`, a time in the future, or an entry that does not
    /// say when.
    pub(crate) fn git_ref_fresh(
        &self,
        url: &str,
        reference: Option<&str>,
        ttl: Duration,
    ) -> Option<String> {
        let mut file = self.refs(url)?;
        let reference = reference.unwrap_or("");
        let age = now_secs().checked_sub(*file.seen.get(reference)?)?;
        (age < ttl.as_secs())
            .then(|| file.refs.remove(reference))
            .flatten()
    }

    /// Records that the remote lists `reference` of `url` at `commit` now.
    pub(crate) fn put_git_ref(&self, url: &str, reference: Option<&str>, commit: &str) {
        let Some(cache) = &self.cache else {
            return;
        };
        let path = Self::refs_file(url);
        let about = about_refs(url);
        let mut file = self.refs(url).unwrap_or_default();
        let reference = reference.unwrap_or("").to_string();
        file.url = url.to_string();
        file.refs.insert(reference.clone(), commit.to_string());
        file.seen.insert(reference, now_secs());
        cache.write(&path, &about, &file);
    }
}

/// What a package entry is about: a registry version or a git commit.
fn about_package(key: &PackageKey) -> String {
    format!("module package {key}")
}

fn about_versions(module: &RegistryModule) -> String {
    format!("the versions of module {}", module.package_id())
}

/// What the refs entry of a repository is about; by the hash of its URL, which may
/// hold credentials.
fn about_refs(url: &str) -> String {
    format!("the refs of repository {}", url_key(url))
}

/// Removes a failed entry, unless a link leads to it (the cache never follows one).
fn remove_entry(cache: &Cache, relative: &Path) {
    let (Some(root), Some(parent)) = (cache.root(), relative.parent()) else {
        return;
    };
    if cache.private_dirs(parent).is_err() {
        return;
    }
    let entry = root.join(relative);
    match std::fs::symlink_metadata(&entry) {
        Ok(meta) if meta.is_dir() => {
            let _ = std::fs::remove_dir_all(&entry);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(&entry);
        }
        Err(_) => {}
    }
}

/// Writes a package entry (files plus `package.json`) into the empty directory `dir`,
/// which is `relative` below the cache root.
fn write_entry(
    cache: &Cache,
    dir: &Path,
    relative: &Path,
    key: &PackageKey,
    package: &Materialized,
    base: &str,
    proof: Option<&CommitObjects>,
) -> std::io::Result<()> {
    let files_dir = dir.join("files");
    private_dir_all(&files_dir)?;
    for sub in &package.dirs {
        private_dir_all(&files_dir.join(sub))?;
    }
    package.write_to(&files_dir)?;
    let b64 = base64::engine::general_purpose::STANDARD;
    let meta = PackageMeta {
        key: key.to_string(),
        base: base.to_string(),
        dirs: package.dirs.clone(),
        files: package
            .files
            .iter()
            .map(|(path, content)| (path.clone(), sha256_hex(content)))
            .collect(),
        git: proof.map(|p| GitProof {
            commit_object: b64.encode(&p.commit),
            listing: b64.encode(&p.listing),
            links: p.links.clone(),
        }),
    };
    cache.write(&relative.join("package.json"), &about_package(key), &meta);
    Ok(())
}

fn private_dir_all(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Checks a git package against its commit: the listing against the commit object,
/// each kept file and symlink target against its blob id, and the package the listing
/// unpacks to against the files stored.
fn verify_git(
    commit: &str,
    proof: &GitProof,
    tree: &StoredTree,
    limits: &ArchiveLimits,
) -> Result<(), String> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let commit_object = b64
        .decode(&proof.commit_object)
        .map_err(|_| "its commit object is not base64")?;
    let listing = b64
        .decode(&proof.listing)
        .map_err(|_| "its listing is not base64")?;
    let entries = parse_listing(&listing)?;
    verify_listing(commit, &commit_object, &entries)?;
    let mut rebuilt = PackageTree::new(limits.max_entries, limits.max_config_bytes);
    let bad = |e: super::package::ContentError| e.to_string();
    for entry in &entries {
        match entry.mode.as_str() {
            "040000" | "160000" => rebuilt.add_dir(&entry.path).map_err(bad)?,
            "120000" => {
                let target = proof
                    .links
                    .get(&entry.path)
                    .ok_or_else(|| format!("the target of symlink {} is missing", entry.path))?;
                if object_id("blob", target.as_bytes(), commit.len())? != entry.id {
                    return Err(format!("symlink {} has another target", entry.path));
                }
                rebuilt.add_symlink(&entry.path, target).map_err(bad)?;
            }
            _ if is_kept(&entry.path) => {
                let content = tree
                    .files
                    .get(&entry.path)
                    .ok_or_else(|| format!("{} is missing", entry.path))?;
                if object_id("blob", content, commit.len())? != entry.id {
                    return Err(format!("{} is not the file the commit holds", entry.path));
                }
                rebuilt
                    .add_file(&entry.path, Some(content.clone()))
                    .map_err(bad)?;
            }
            _ => rebuilt.add_file(&entry.path, None).map_err(bad)?,
        }
    }
    let unpacked = rebuilt.materialize().map_err(bad)?;
    let same_files = unpacked.files.len() == tree.files.len()
        && unpacked
            .files
            .iter()
            .all(|(path, content)| tree.files.get(path).map(Vec::as_slice) == Some(content));
    if unpacked.dirs != tree.dirs || !same_files {
        return Err("its files are not what the commit unpacks to".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tfsum_vocab::module_source::{parse_source, ModuleSource};

    fn package() -> Materialized {
        let mut m = Materialized::default();
        m.dirs.insert("sub".into());
        m.files.insert("main.tf".into(), Arc::new(b"x".to_vec()));
        m.files.insert("sub/v.tf".into(), Arc::new(b"y".to_vec()));
        m
    }

    fn registry_key() -> PackageKey {
        PackageKey::Registry {
            package_id: "example.com/ns/name/aws".into(),
            version: "1.0.0".into(),
        }
    }

    #[test]
    fn packages_round_trip_and_damage_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ModuleCache::new(Some(dir.path()), ArchiveLimits::default());
        let key = registry_key();
        assert_eq!(cache.package(&key), None);
        let stored = cache.store(&key, &package(), "sub", None).unwrap().unwrap();
        assert_eq!(std::fs::read(stored.root.join("sub/v.tf")).unwrap(), b"y");
        assert_eq!(cache.package(&key), Some(stored.clone()));
        // Storing again (another process won the race) keeps the existing entry.
        assert_eq!(
            cache.store(&key, &package(), "sub", None).unwrap(),
            Some(stored.clone())
        );

        std::fs::write(stored.root.join("main.tf"), b"edited").unwrap();
        assert_eq!(cache.package(&key), None);
        assert!(!stored.root.exists(), "a damaged entry is removed");

        // A file added beside the listed ones is not used either.
        let stored = cache.store(&key, &package(), "sub", None).unwrap().unwrap();
        std::fs::write(stored.root.join("planted.tf"), b"x").unwrap();
        assert_eq!(cache.package(&key), None);

        // A git commit is not stored without what proves it.
        let git = PackageKey::Git {
            commit: "a".repeat(40),
        };
        assert_eq!(cache.store(&git, &package(), "", None).unwrap(), None);

        let disabled = ModuleCache::new(None, ArchiveLimits::default());
        assert_eq!(disabled.store(&key, &package(), "", None).unwrap(), None);
    }

    /// A module entry copied where another version's belongs is refused and counted:
    /// the git commit a registry version was served from, and a whole package.
    #[test]
    fn entries_copied_to_another_version_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ModuleCache::new(Some(dir.path()), ArchiveLimits::default());
        let other = PackageKey::Registry {
            package_id: "example.com/ns/name/aws".into(),
            version: "2.0.0".into(),
        };
        let alias = GitAlias {
            commit: "a".repeat(40),
            base: String::new(),
        };
        cache.put_git_alias(&registry_key(), &alias);
        let at = |key: &PackageKey| dir.path().join(ModuleCache::alias_file(key));
        std::fs::copy(at(&registry_key()), at(&other)).unwrap();
        assert_eq!(cache.git_alias(&registry_key()), Some(alias));
        assert_eq!(cache.git_alias(&other), None);

        let stored = cache
            .store(&registry_key(), &package(), "sub", None)
            .unwrap();
        let from = stored.unwrap().root.parent().unwrap().to_path_buf();
        let to = dir.path().join(ModuleCache::entry_dir(&other));
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(from.join("package.json"), to.join("package.json")).unwrap();
        assert_eq!(cache.package(&other), None);
        let refused = cache.health().refused;
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(
            refused[0].reason.contains(
                "it is about the git commit of module example.com/ns/name/aws 1.0.0, not"
            ),
            "{refused:?}"
        );
    }

    #[test]
    fn version_lists_and_refs() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ModuleCache::new(Some(dir.path()), ArchiveLimits::default());
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

    /// A ref's commit is fresh while the remote listed it less than the TTL ago; one
    /// listed at an unknown time (an entry written before tfsum kept the time) or in the
    /// future never is, and `--offline` takes any of them.
    #[test]
    fn git_refs_are_fresh_within_the_ttl() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ModuleCache::new(Some(dir.path()), ArchiveLimits::default());
        let url = "https://h/r.git";
        let now = now_secs();
        let entry = |refs: &[(&str, &str)], seen: &[(&str, u64)]| RefsFile {
            url: url.to_string(),
            refs: refs
                .iter()
                .map(|(r, c)| (r.to_string(), c.to_string()))
                .collect(),
            seen: seen.iter().map(|(r, t)| (r.to_string(), *t)).collect(),
        };
        let write = |file: &RefsFile| {
            let inner = cache.cache.as_ref().unwrap();
            inner.write(&ModuleCache::refs_file(url), &about_refs(url), file);
        };

        // As tfsum wrote it before it kept the time: readable, never fresh.
        write(&entry(&[("v1", "a")], &[]));
        let on_disk = std::fs::read_to_string(dir.path().join(ModuleCache::refs_file(url)));
        assert!(!on_disk.unwrap().contains("seen"));
        assert_eq!(cache.git_ref(url, Some("v1")).as_deref(), Some("a"));
        let long = Duration::from_secs(u64::MAX);
        assert_eq!(cache.git_ref_fresh(url, Some("v1"), long), None);

        write(&entry(
            &[
                ("", "e"),
                ("new", "b"),
                ("old", "c"),
                ("ahead", "d"),
                ("unseen", "f"),
            ],
            &[
                ("", now),
                ("new", now - 10),
                ("old", now - 600),
                ("ahead", now + 3600),
            ],
        ));
        let minutes = |m: u64| Duration::from_secs(m * 60);
        for (reference, ttl, fresh) in [
            (None, minutes(5), Some("e")),
            (None, Duration::ZERO, None),
            (Some("new"), minutes(5), Some("b")),
            (Some("new"), Duration::from_secs(10), None),
            (Some("old"), minutes(5), None),
            (Some("old"), minutes(11), Some("c")),
            (Some("ahead"), minutes(120), None),
            (Some("unseen"), long, None),
            (Some("absent"), long, None),
        ] {
            assert_eq!(
                cache.git_ref_fresh(url, reference, ttl).as_deref(),
                fresh,
                "{reference:?} within {ttl:?}"
            );
        }
        for reference in ["old", "ahead", "unseen"] {
            assert!(cache.git_ref(url, Some(reference)).is_some(), "{reference}");
        }
        assert_eq!(cache.git_ref_fresh("https://h/other.git", None, long), None);

        // Recording a listing makes the ref fresh again, and keeps the others.
        cache.put_git_ref(url, Some("old"), "c2");
        assert_eq!(
            cache.git_ref_fresh(url, Some("old"), minutes(5)).as_deref(),
            Some("c2")
        );
        assert_eq!(
            cache.git_ref_fresh(url, Some("new"), minutes(5)).as_deref(),
            Some("b")
        );
    }
}
