//! The persistent on-disk cache.
//!
//! A published provider version never changes, so what tfsum verified about it once stays
//! true: its signed SHA256SUMS document and, per platform, the `h1:` of a verified
//! download. Those facts are stored here, one small JSON file per fact:
//!
//! ```text
//! <root>/v2/packages/<host>/<namespace>/<type>/<version>/sums.json
//! <root>/v2/packages/<host>/<namespace>/<type>/<version>/<os>_<arch>.json
//! <root>/v2/versions/<host>/<namespace>/<type>.json      (version lists, with a TTL)
//! <root>/v2/zips/<ab>/<sha256 of a zip>.json             (the h1: a zip unpacks to: OCI blobs)
//! <root>/v2/publish/                                     (zips `mirror --layout oci` stages)
//! <root>/v2/runs/<key>.json                              (the last run, `--retry-failed`)
//! <root>/v2/index/<key>.json                             (the configuration index, `crate::index`)
//! <root>/v2/modules3/…                                    (remote modules, `tfsum_sources::modules::cache`)
//! ```
//!
//! # Trust
//!
//! What the cache says goes into lock files, so only the user may write it. Its location
//! comes from the user (flag, `TFSUM_CACHE_DIR`, the user's own settings file), never from
//! a repository. The directory is created private (0700), and, as ssh treats `~/.ssh`,
//! tfsum refuses a cache directory that another user owns or can write ([`Cache::open`])
//! and ignores, with a warning, an entry that another user owns or can write, or that is
//! a symbolic link. Entries are written only through [`crate::atomic::replace_file`] into
//! directories tfsum created itself, so a write never follows a link. Sharing one cache
//! between CI jobs of one trusted pipeline is fine: entries are immutable and replaced
//! atomically, so processes need no locks. A killed run's temporary files are removed by
//! the next run that reads or writes beside them ([`crate::leftovers`]).
//!
//! A cached SHA256SUMS entry keeps the document, its signature and the keys it was
//! verified with, and is verified again on every read (`sources::registry`), so it can
//! be checked offline and cannot be edited into a different list. Each entry also carries
//! a SHA-256 of its payload: an entry that fails to parse or to check (truncated,
//! half-copied) is a miss and is rewritten, never trusted. A version list dated in the
//! future counts as expired.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::{Digest, Sha256};

use tfsum_vocab::addr::{Platform, ProviderAddr};

/// The layout version: entries of another version are simply not read.
pub const LAYOUT: &str = "v2";

/// A SHA256SUMS document as tfsum verified it: what it says and what vouched for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedSums {
    /// The document, standard base64 of the bytes exactly as fetched.
    pub document: String,
    /// The binary detached signature, standard base64; empty for a provider OpenTofu
    /// accepts unsigned (spec §10).
    pub signature: String,
    /// The keys the registry offered: `(ascii_armor, trust_signature)`.
    pub keys: Vec<(String, String)>,
}

/// How a platform's `h1:` became known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Computed by tfsum from a download whose checksum the signed SHA256SUMS vouches for.
    Download,
    /// Taken from OpenTofu's `packages` map, as `tofu init` takes it (spec §10); usable
    /// for OpenTofu roots only.
    PackagesMap,
}

/// What one platform's package contributes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlatformEntry {
    /// `h1:` of the unpacked package.
    pub h1: String,
    /// `zh:` of the zip (also a line of the signed SHA256SUMS).
    pub zh: String,
    /// Size of the zip in bytes.
    pub size: u64,
    pub origin: Origin,
}

/// A cached version list and when it was fetched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct VersionsEntry {
    pub fetched_at: u64,
    pub versions: Vec<String>,
}

/// A directory of the cache as read by [`Cache::read_tree`]: paths relative to it,
/// `/`-separated.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StoredTree {
    pub dirs: std::collections::BTreeSet<String>,
    pub files: std::collections::BTreeMap<String, Vec<u8>>,
}

/// The on-disk envelope: the payload, a SHA-256 of its canonical JSON, and what the
/// entry is about (a provider version, a platform, a module version…): a copy put
/// where another entry belongs names something else and is refused (issue 34).
#[derive(Serialize, Deserialize)]
struct Envelope<T> {
    check: String,
    /// Absent in entries written before tfsum recorded it: such an entry is a miss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    about: Option<String>,
    entry: T,
}

/// What [`Cache::read_checked`] found.
#[derive(Debug)]
pub(crate) enum Checked<T> {
    /// No entry (or none this cache may read).
    Missing,
    /// An entry that is damaged, truncated or about something else: why.
    Refused(String),
    Found(T),
}

/// The first line of an entry [`Cache::write_large`] stored.
#[derive(Serialize, Deserialize)]
struct LargeHeader {
    /// SHA-256 of the bytes after the line.
    check: String,
    about: String,
}

/// An entry the cache refused: its file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedEntry {
    pub file: PathBuf,
    pub reason: String,
}

impl fmt::Display for RefusedEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.reason)
    }
}

/// What went wrong with the cache during a run, said once at its end rather than per
/// entry or not at all (issue 34): entries refused, and writes that failed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Health {
    pub refused: Vec<RefusedEntry>,
    /// Entries that could not be stored, and the first error met.
    pub unwritten: usize,
    pub write_error: Option<String>,
}

/// How the cache degraded in a run, as one warning per kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheWarning {
    /// Entries refused and fetched again: how many, and the first.
    Refused { count: usize, first: RefusedEntry },
    /// Entries that could not be written: how many, the first error, and where the
    /// cache is.
    Unwritable {
        root: Option<PathBuf>,
        error: String,
        unwritten: usize,
    },
}

impl fmt::Display for CacheWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheWarning::Refused { count: 1, first } => {
                write!(f, "ignoring the cache entry {first}; it was fetched again")
            }
            CacheWarning::Refused { count, first } => write!(
                f,
                "ignoring {count} cache entries, fetched again; the first: {first}"
            ),
            CacheWarning::Unwritable {
                root,
                error,
                unwritten,
            } => {
                let place = root
                    .as_ref()
                    .map_or_else(String::new, |r| format!(" at {}", r.display()));
                write!(
                    f,
                    "the cache{place} cannot be written ({error}): {unwritten} entr{} not stored, so later runs fetch {} again",
                    if *unwritten == 1 { "y was" } else { "ies were" },
                    if *unwritten == 1 { "it" } else { "them" },
                )
            }
        }
    }
}

impl Health {
    /// Adds what another handle on the cache (the module namespace's) met.
    pub fn absorb(&mut self, other: Health) {
        self.refused.extend(other.refused);
        self.unwritten += other.unwritten;
        if self.write_error.is_none() {
            self.write_error = other.write_error;
        }
    }

    /// One warning for every refused entry together: how many, and the first.
    pub fn refused_warning(&self) -> Option<CacheWarning> {
        let first = self.refused.first()?;
        Some(CacheWarning::Refused {
            count: self.refused.len(),
            first: first.clone(),
        })
    }

    /// One warning for every failed write together.
    pub fn unwritable_warning(&self, root: Option<&Path>) -> Option<CacheWarning> {
        let error = self.write_error.as_ref()?;
        Some(CacheWarning::Unwritable {
            root: root.map(Path::to_path_buf),
            error: error.clone(),
            unwritten: self.unwritten,
        })
    }
}

/// A cache directory tfsum will not use.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("refusing the cache directory {}: {reason}; use a directory only you can write (`chmod 700 {}`), or choose another with --cache-dir or TFSUM_CACHE_DIR", dir.display(), dir.display())]
    Refused { dir: PathBuf, reason: String },
    #[error("cannot create the cache directory {}: {source}", dir.display())]
    Create {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A handle on the cache directory; a disabled cache answers every lookup with a miss.
#[derive(Debug, Clone)]
pub struct Cache {
    root: Option<PathBuf>,
    /// False with `--no-cache`: hash facts are neither read nor written (the run record
    /// still lives here).
    facts: bool,
    /// What was refused and what could not be written, for the run's warnings.
    health: Arc<Mutex<Health>>,
}

impl Cache {
    /// Opens (creating it private if need be) the cache at `root`, after checking that
    /// only this user can write it.
    pub fn open(root: PathBuf) -> Result<Cache, CacheError> {
        if !root.exists() {
            if let Some(parent) = root.parent() {
                std::fs::create_dir_all(parent).map_err(|source| CacheError::Create {
                    dir: root.clone(),
                    source,
                })?;
            }
            private_dir(&root).map_err(|source| CacheError::Create {
                dir: root.clone(),
                source,
            })?;
        }
        let meta = std::fs::metadata(&root).map_err(|source| CacheError::Create {
            dir: root.clone(),
            source,
        })?;
        if !meta.is_dir() {
            return Err(CacheError::Refused {
                dir: root,
                reason: "it is not a directory".to_string(),
            });
        }
        if let Some(reason) = foreign(&meta) {
            return Err(CacheError::Refused { dir: root, reason });
        }
        Ok(Cache {
            root: Some(root),
            facts: true,
            health: Arc::default(),
        })
    }

    /// A cache that stores nothing.
    pub fn disabled() -> Cache {
        Cache {
            root: None,
            facts: false,
            health: Arc::default(),
        }
    }

    /// The same directory, holding no hash facts (`--no-cache`).
    pub fn without_facts(self) -> Cache {
        Cache {
            facts: false,
            ..self
        }
    }

    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// Whether entries are read and written at all (a cache directory, and no
    /// `--no-cache`).
    pub fn keeps_entries(&self) -> bool {
        self.facts && self.root.is_some()
    }

    /// What went wrong so far.
    pub fn health(&self) -> Health {
        self.health.lock().map(|h| h.clone()).unwrap_or_default()
    }

    pub fn sums(&self, addr: &ProviderAddr, version: &str) -> Option<SignedSums> {
        let about = about_sums(addr, version);
        self.read(&package_dir(addr, version).join("sums.json"), &about)
    }

    pub fn put_sums(&self, addr: &ProviderAddr, version: &str, entry: &SignedSums) {
        let about = about_sums(addr, version);
        self.write(&package_dir(addr, version).join("sums.json"), &about, entry);
    }

    pub fn platform(
        &self,
        addr: &ProviderAddr,
        version: &str,
        platform: &Platform,
    ) -> Option<PlatformEntry> {
        let about = about_platform(addr, version, platform);
        self.read(&platform_file(addr, version, platform), &about)
    }

    pub fn put_platform(
        &self,
        addr: &ProviderAddr,
        version: &str,
        platform: &Platform,
        entry: &PlatformEntry,
    ) {
        let about = about_platform(addr, version, platform);
        self.write(&platform_file(addr, version, platform), &about, entry);
    }

    /// The cached version list if it was fetched at most `ttl` ago (and not in the
    /// future: a clock that moved, or an entry someone dated ahead, means expired).
    pub fn versions(&self, addr: &ProviderAddr, ttl: Duration) -> Option<Vec<String>> {
        let about = format!("the versions of {addr}");
        self.versions_at(&versions_file(addr), &about, Some(ttl))
    }

    pub fn put_versions(&self, addr: &ProviderAddr, versions: &[String]) {
        let about = format!("the versions of {addr}");
        self.put_versions_at(&versions_file(addr), &about, versions);
    }

    /// A version list stored at `relative` (another namespace's) about `about`, fresh
    /// as [`versions`](Self::versions) judges it; `ttl` `None` takes any age, for
    /// `--offline`, but never a date in the future.
    pub fn versions_at(
        &self,
        relative: &Path,
        about: &str,
        ttl: Option<Duration>,
    ) -> Option<Vec<String>> {
        let entry: VersionsEntry = self.read(relative, about)?;
        let age = now_secs().checked_sub(entry.fetched_at)?;
        ttl.is_none_or(|ttl| age <= ttl.as_secs())
            .then_some(entry.versions)
    }

    pub fn put_versions_at(&self, relative: &Path, about: &str, versions: &[String]) {
        let entry = VersionsEntry {
            fetched_at: now_secs(),
            versions: versions.to_vec(),
        };
        self.write(relative, about, &entry);
    }

    /// Refuses the platform entry of `platform` that [`Self::platform`] returned, for
    /// `reason` found by its reader (its `zh:` is not a line of the version's verified
    /// SHA256SUMS, say): counted for the run's warning.
    pub fn refuse_platform(
        &self,
        addr: &ProviderAddr,
        version: &str,
        platform: &Platform,
        reason: &str,
    ) {
        self.refuse_relative(&platform_file(addr, version, platform), reason);
    }

    /// Refuses the SHA256SUMS entry [`Self::sums`] returned (it does not verify).
    pub fn refuse_sums(&self, addr: &ProviderAddr, version: &str, reason: &str) {
        self.refuse_relative(&package_dir(addr, version).join("sums.json"), reason);
    }

    fn refuse_relative(&self, relative: &Path, reason: &str) {
        if let Some(root) = &self.root {
            self.refuse(&root.join(relative), reason);
        }
    }

    /// Counts a write that failed, for the run's warning (the cache is best effort: the
    /// fact is fetched again next time).
    pub fn write_failed(&self, what: &Path, error: &std::io::Error) {
        tracing::debug!(entry = %what.display(), "cannot write a cache entry: {error}");
        if let Ok(mut health) = self.health.lock() {
            health.unwritten += 1;
            health.write_error.get_or_insert_with(|| error.to_string());
        }
    }

    /// Reads a file below the cache root, refusing links and files others can write.
    /// `None` for a disabled cache, a missing or refused file.
    pub fn read_file(&self, relative: &Path) -> Option<Vec<u8>> {
        let path = self.root.as_ref()?.join(relative);
        // What a killed run left beside the entry goes (writes sweep too, but a warm run
        // writes nothing).
        if let Some(dir) = path.parent() {
            crate::leftovers::sweep_once(dir);
        }
        let meta = std::fs::symlink_metadata(&path).ok()?;
        let reason = if meta.file_type().is_symlink() {
            Some("it is a symbolic link".to_string())
        } else {
            foreign(&meta)
        };
        if let Some(reason) = reason {
            self.refuse(&path, &reason);
            return None;
        }
        std::fs::read(&path).ok()
    }

    /// Writes a file below the cache root: its directories are created private, and
    /// neither they nor the file are ever followed if they are links. Best effort: the
    /// cache is an optimisation, and a fact that could not be stored is fetched again.
    pub fn write_file(&self, relative: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let Some(root) = &self.root else {
            return Ok(());
        };
        if let Some(parent) = relative.parent() {
            self.private_dirs(parent)?;
        }
        crate::atomic::replace_file(&root.join(relative), bytes)
    }

    /// Creates the directory `relative` below the cache root, each missing component
    /// private (0700), and refuses one that is a link or not a directory. `None` for a
    /// disabled cache.
    pub fn private_dirs(&self, relative: &Path) -> std::io::Result<Option<PathBuf>> {
        let Some(root) = &self.root else {
            return Ok(None);
        };
        let mut dir = root.clone();
        for part in relative.components() {
            dir.push(part);
            match std::fs::symlink_metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => {
                    return Err(std::io::Error::other(format!(
                        "{} is not a directory tfsum made",
                        dir.display()
                    )))
                }
                Err(_) => private_dir(&dir)?,
            }
        }
        Ok(Some(dir))
    }

    /// Every directory and file below `relative`, refusing (with a warning) the whole
    /// tree when anything in it is a link, not a plain file or directory, or owned or
    /// writable by another user. Files are read whole, at most `max_bytes` in all.
    pub fn read_tree(&self, relative: &Path, max_bytes: u64) -> Option<StoredTree> {
        let top = self.root.as_ref()?.join(relative);
        let mut tree = StoredTree::default();
        let mut total = 0u64;
        let mut pending = vec![(top.clone(), String::new())];
        while let Some((dir, prefix)) = pending.pop() {
            let entries = std::fs::read_dir(&dir).ok()?;
            for entry in entries {
                let entry = entry.ok()?;
                let path = entry.path();
                let name = entry.file_name().into_string().ok()?;
                let rel = if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                };
                let meta = std::fs::symlink_metadata(&path).ok()?;
                let reason = if meta.file_type().is_symlink() {
                    Some("it is a symbolic link".to_string())
                } else if !meta.is_dir() && !meta.is_file() {
                    Some("it is not a plain file or directory".to_string())
                } else {
                    foreign(&meta)
                };
                if let Some(reason) = reason {
                    self.refuse(&path, &reason);
                    return None;
                }
                if meta.is_dir() {
                    tree.dirs.insert(rel.clone());
                    pending.push((path, rel));
                } else {
                    total = total.saturating_add(meta.len());
                    if total > max_bytes {
                        return None;
                    }
                    tree.files.insert(rel, std::fs::read(&path).ok()?);
                }
            }
        }
        Some(tree)
    }

    /// Counts a refused entry, for the run's warning.
    pub fn refuse(&self, path: &Path, reason: &str) {
        if let Ok(mut health) = self.health.lock() {
            health.refused.push(RefusedEntry {
                file: path.to_path_buf(),
                reason: reason.to_string(),
            });
        }
    }

    /// Reads and checks the entry about `about`; anything unreadable, inconsistent or
    /// about something else is a miss, and counted as refused. An entry from before
    /// tfsum named what entries are about is a plain miss, rewritten when fetched.
    pub fn read<T: DeserializeOwned + Serialize>(&self, relative: &Path, about: &str) -> Option<T> {
        match self.read_checked(relative, about) {
            Checked::Found(entry) => Some(entry),
            Checked::Missing => None,
            Checked::Refused(reason) => {
                self.refuse_relative(relative, &reason);
                None
            }
        }
    }

    /// [`Self::read`], saying why an entry was refused instead of counting it.
    fn read_checked<T: DeserializeOwned + Serialize>(
        &self,
        relative: &Path,
        about: &str,
    ) -> Checked<T> {
        if !self.facts {
            return Checked::Missing;
        }
        let Some(bytes) = self.read_file(relative) else {
            return Checked::Missing;
        };
        let envelope: Envelope<T> = match serde_json::from_slice(&bytes) {
            Ok(envelope) => envelope,
            Err(e) => return Checked::Refused(format!("it is damaged ({e})")),
        };
        if checksum(&envelope.entry).as_ref() != Some(&envelope.check) {
            return Checked::Refused("it is damaged (its checksum does not match)".to_string());
        }
        match envelope.about {
            None => Checked::Missing,
            Some(found) if found != about => {
                Checked::Refused(format!("it is about {found}, not {about}"))
            }
            Some(_) => Checked::Found(envelope.entry),
        }
    }

    /// Writes the entry about `about` in its checked envelope (best effort).
    pub fn write<T: Serialize>(&self, relative: &Path, about: &str, entry: &T) {
        if !self.facts {
            return;
        }
        let Some(check) = checksum(entry) else {
            return;
        };
        let envelope = Envelope {
            check,
            about: Some(about.to_string()),
            entry,
        };
        if let Ok(bytes) = serde_json::to_vec_pretty(&envelope) {
            if let Err(e) = self.write_file(relative, &bytes) {
                self.write_failed(relative, &e);
            }
        }
    }

    /// Reads an entry [`Self::write_large`] stored, checked as [`Self::read`] checks, and
    /// returns its postcard bytes, which the caller decodes (borrowing from them); one
    /// that is damaged or about something else is refused with its reason, for a
    /// namespace that words its own warning (the configuration index,
    /// [`crate::index`]). A link or an entry another user can write is still
    /// counted for the cache's warning (and missing here).
    pub(crate) fn read_large(&self, relative: &Path, about: &str) -> Checked<Vec<u8>> {
        if !self.facts {
            return Checked::Missing;
        }
        let Some(bytes) = self.read_file(relative) else {
            return Checked::Missing;
        };
        let Some(newline) = bytes.iter().position(|b| *b == b'\n') else {
            return Checked::Refused("it is damaged (it has no header)".to_string());
        };
        let (head, body) = (&bytes[..newline], &bytes[newline + 1..]);
        let head: LargeHeader = match serde_json::from_slice(head) {
            Ok(head) => head,
            Err(e) => return Checked::Refused(format!("it is damaged ({e})")),
        };
        if hex::encode(Sha256::digest(body)) != head.check {
            return Checked::Refused("it is damaged (its checksum does not match)".to_string());
        }
        if head.about != about {
            return Checked::Refused(format!("it is about {}, not {about}", head.about));
        }
        let start = newline + 1;
        let mut bytes = bytes;
        bytes.drain(..start);
        Checked::Found(bytes)
    }

    /// Writes an entry of many thousands of rows (best effort): a first line of JSON
    /// saying what it is about, with a SHA-256 of the rest, then the entry in postcard's
    /// compact binary form. Reading it costs one hash of the bytes and one pass over
    /// them, where [`Self::write`]'s JSON envelope would cost a JSON parse and a second
    /// serialisation of the whole entry.
    pub(crate) fn write_large<T: Serialize>(&self, relative: &Path, about: &str, entry: &T) {
        if !self.facts {
            return;
        }
        let Ok(body) = postcard::to_stdvec(entry) else {
            return;
        };
        let head = LargeHeader {
            check: hex::encode(Sha256::digest(&body)),
            about: about.to_string(),
        };
        let Ok(mut bytes) = serde_json::to_vec(&head) else {
            return;
        };
        bytes.push(b'\n');
        bytes.extend_from_slice(&body);
        if let Err(e) = self.write_file(relative, &bytes) {
            self.write_failed(relative, &e);
        }
    }
}

/// What a zip is known to unpack to: the `h1:` of its files, keyed by the zip's own
/// SHA-256 (an OCI blob's digest), so it holds whoever serves the zip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZipEntry {
    pub h1: String,
    pub size: u64,
}

impl Cache {
    /// The `h1:` of the zip whose SHA-256 is `sha256_hex`, if an earlier run hashed it.
    pub fn zip(&self, sha256_hex: &str) -> Option<ZipEntry> {
        self.read(&zip_file(sha256_hex), &about_zip(sha256_hex))
    }

    /// Records what the zip whose SHA-256 is `sha256_hex` unpacks to.
    pub fn put_zip(&self, sha256_hex: &str, entry: &ZipEntry) {
        self.write(&zip_file(sha256_hex), &about_zip(sha256_hex), entry);
    }
}

/// `v2/zips/<first two hex digits>/<sha256 hex>.json`.
fn zip_file(sha256_hex: &str) -> PathBuf {
    let safe = path_safe(sha256_hex);
    let fan = safe.get(..2).unwrap_or("xx").to_string();
    Path::new(LAYOUT)
        .join("zips")
        .join(fan)
        .join(format!("{safe}.json"))
}

fn about_zip(sha256_hex: &str) -> String {
    format!("the h1: of the zip with sha256 {sha256_hex}")
}

/// `v2/packages/<host>/<namespace>/<type>/<version>`, each part made safe as a file name.
pub fn package_dir(addr: &ProviderAddr, version: &str) -> PathBuf {
    Path::new(LAYOUT)
        .join("packages")
        .join(path_safe(addr.hostname.as_str()))
        .join(path_safe(&addr.namespace))
        .join(path_safe(&addr.r#type))
        .join(path_safe(version))
}

fn platform_file(addr: &ProviderAddr, version: &str, platform: &Platform) -> PathBuf {
    package_dir(addr, version).join(format!("{platform}.json"))
}

/// What a SHA256SUMS entry is about.
fn about_sums(addr: &ProviderAddr, version: &str) -> String {
    format!("the SHA256SUMS of {addr} {version}")
}

/// What a platform's entry is about: its `h1:` (the hash scheme) for one package.
fn about_platform(addr: &ProviderAddr, version: &str, platform: &Platform) -> String {
    format!("the h1: of {addr} {version} {platform}")
}

fn versions_file(addr: &ProviderAddr) -> PathBuf {
    Path::new(LAYOUT)
        .join("versions")
        .join(path_safe(addr.hostname.as_str()))
        .join(path_safe(&addr.namespace))
        .join(format!("{}.json", path_safe(&addr.r#type)))
}

/// The configuration index of runs over the trees `scope` names (their absolute paths
/// and how they are searched): its own file per scope ([`crate::index`]).
pub(crate) fn index_file(scope: &str) -> PathBuf {
    let digest = Sha256::digest(scope.as_bytes());
    Path::new(LAYOUT)
        .join("index")
        .join(format!("{}.json", hex::encode(&digest[..12])))
}

/// The run record of runs started from `cwd` (absolute): its own file per directory.
pub fn run_record(cwd: &Path) -> PathBuf {
    let digest = Sha256::digest(cwd.as_os_str().as_encoded_bytes());
    Path::new(LAYOUT)
        .join("runs")
        .join(format!("{}.json", hex::encode(&digest[..12])))
}

/// Why a file or directory is not this user's alone to write, if it is not.
#[cfg(unix)]
fn foreign(meta: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Some(format!(
            "it is owned by user {}, not by you ({me})",
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Some(format!(
            "other users can write it (mode {:o})",
            meta.mode() & 0o7777
        ));
    }
    None
}

#[cfg(not(unix))]
fn foreign(_meta: &std::fs::Metadata) -> Option<String> {
    None
}

/// Creates one directory readable and writable by this user only.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

fn checksum<T: Serialize>(entry: &T) -> Option<String> {
    let canonical = serde_json::to_vec(entry).ok()?;
    Some(hex::encode(Sha256::digest(canonical)))
}

/// Hostnames may carry `:port`, which is not a portable file-name character.
fn path_safe(part: &str) -> String {
    part.chars()
        .map(|c| match c {
            ':' | '/' | '\\' => '_',
            c => c,
        })
        .collect()
}

/// The time now in Unix seconds (0 before 1970), as cache entries record it.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_vocab::addr::TERRAFORM_REGISTRY;

    fn addr() -> ProviderAddr {
        ProviderAddr::parse("127.0.0.1:8080/hashicorp/null", TERRAFORM_REGISTRY).unwrap()
    }

    fn entry() -> PlatformEntry {
        PlatformEntry {
            h1: "h1:abc=".into(),
            zh: "zh:00".into(),
            size: 3,
            origin: Origin::Download,
        }
    }

    #[test]
    fn round_trip_and_heal() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path().join("cache")).unwrap();
        let platform: Platform = "linux_amd64".parse().unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), None);
        cache.put_platform(&addr(), "1.0.0", &platform, &entry());
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), Some(entry()));

        // Truncate the file: the entry must read as missing, and a rewrite heals it.
        let file = dir
            .path()
            .join("cache/v2/packages/127.0.0.1_8080/hashicorp/null/1.0.0/linux_amd64.json");
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), None);

        // A well-formed but edited entry fails its checksum.
        let edited = String::from_utf8(bytes)
            .unwrap()
            .replace("h1:abc=", "h1:xyz=");
        std::fs::write(&file, edited).unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), None);

        cache.put_platform(&addr(), "1.0.0", &platform, &entry());
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), Some(entry()));
        let leftovers: Vec<_> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tfsum-"))
            .collect();
        assert!(leftovers.is_empty());
    }

    /// An entry copied where another belongs is refused and counted; one from before
    /// entries named what they are about is a plain miss; damage is counted too; and
    /// the run hears of it all in one warning.
    #[test]
    fn misplaced_old_and_damaged_entries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path().to_path_buf()).unwrap();
        let linux: Platform = "linux_amd64".parse().unwrap();
        let darwin: Platform = "darwin_arm64".parse().unwrap();
        cache.put_platform(&addr(), "1.0.0", &linux, &entry());
        let file = |p: &Platform| dir.path().join(platform_file(&addr(), "1.0.0", p));
        std::fs::copy(file(&linux), file(&darwin)).unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &darwin), None);
        assert_eq!(cache.platform(&addr(), "1.0.0", &linux), Some(entry()));
        let refused = &cache.health().refused;
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(
            refused[0].reason.contains("it is about the h1: of 127.0.0.1:8080/hashicorp/null 1.0.0 linux_amd64, not the h1: of 127.0.0.1:8080/hashicorp/null 1.0.0 darwin_arm64"),
            "{refused:?}"
        );

        let old = serde_json::json!({ "check": checksum(&entry()).unwrap(), "entry": entry() });
        std::fs::write(file(&darwin), old.to_string()).unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &darwin), None);
        assert_eq!(
            cache.health().refused.len(),
            1,
            "an old entry is no refusal"
        );

        std::fs::write(file(&darwin), b"{").unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &darwin), None);
        let warning = cache.health().refused_warning().unwrap().to_string();
        assert!(
            warning.starts_with("ignoring 2 cache entries, fetched again; the first: "),
            "{warning}"
        );
    }

    /// A cache that cannot be written says so once, with how many entries were lost
    /// (a file where a directory belongs stands in for a full or read-only disk, which
    /// the test's user might be allowed past).
    #[test]
    fn failed_writes_are_one_warning() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path().join("cache")).unwrap();
        cache.private_dirs(Path::new(LAYOUT)).unwrap();
        std::fs::write(dir.path().join("cache").join(LAYOUT).join("packages"), b"").unwrap();
        let linux: Platform = "linux_amd64".parse().unwrap();
        for version in ["1.0.0", "1.0.1"] {
            cache.put_platform(&addr(), version, &linux, &entry());
        }
        let health = cache.health();
        assert_eq!(health.unwritten, 2);
        assert_eq!(health.refused_warning(), None);
        let warning = health.unwritable_warning(cache.root()).unwrap().to_string();
        assert!(
            warning.contains("cannot be written") && warning.contains("2 entries were not stored"),
            "{warning}"
        );
    }

    #[test]
    fn versions_expire_and_future_dates_are_expired() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path().to_path_buf()).unwrap();
        cache.put_versions(&addr(), &["1.0.0".to_string()]);
        assert_eq!(
            cache.versions(&addr(), Duration::from_secs(60)),
            Some(vec!["1.0.0".to_string()])
        );
        let future = VersionsEntry {
            fetched_at: now_secs() + 3600,
            versions: vec!["6.6.6".to_string()],
        };
        let about = format!("the versions of {}", addr());
        cache.write(&versions_file(&addr()), &about, &future);
        assert_eq!(cache.versions(&addr(), Duration::MAX), None);
        let disabled = Cache::disabled();
        disabled.put_versions(&addr(), &["1.0.0".to_string()]);
        assert_eq!(disabled.versions(&addr(), Duration::from_secs(60)), None);
    }

    /// The directory is created private; one others can write is refused; an entry that
    /// is a link or writable by others is ignored with a warning, and writing replaces a
    /// planted link instead of following it.
    #[cfg(unix)]
    #[test]
    fn refuses_what_others_can_write() {
        use std::os::unix::fs::{symlink, PermissionsExt as _};
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("cache");
        let cache = Cache::open(root.clone()).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root), 0o700);

        let platform: Platform = "linux_amd64".parse().unwrap();
        cache.put_platform(&addr(), "1.0.0", &platform, &entry());
        let file = root.join("v2/packages/127.0.0.1_8080/hashicorp/null/1.0.0/linux_amd64.json");
        assert_eq!(mode(file.parent().unwrap()), 0o700);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), None);
        assert!(
            cache.health().refused[0]
                .reason
                .contains("other users can write it"),
            "{:?}",
            cache.health()
        );

        let outside = tmp.path().join("outside");
        std::fs::write(&outside, "precious").unwrap();
        std::fs::remove_file(&file).unwrap();
        symlink(&outside, &file).unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), None);
        assert!(cache.health().refused[1].reason.contains("symbolic link"));
        let warning = cache.health().refused_warning().unwrap().to_string();
        assert!(warning.starts_with("ignoring 2 cache entries"), "{warning}");
        cache.put_platform(&addr(), "1.0.0", &platform, &entry());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), Some(entry()));

        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = Cache::open(root.clone()).unwrap_err().to_string();
        assert!(err.contains("other users can write it (mode 777)"), "{err}");
        assert!(err.contains("chmod 700"), "{err}");
    }
}
