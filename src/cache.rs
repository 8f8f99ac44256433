//! The persistent on-disk hash cache.
//!
//! A published provider version never changes, so what tfsum learns about it once is
//! true forever: the signed `zh:` list of its SHA256SUMS (with the signature's trust
//! level) and, per platform, the `h1:` of a verified download. Those facts are stored
//! here, one small JSON file per fact:
//!
//! ```text
//! <root>/v1/packages/<host>/<namespace>/<type>/<version>/sums.json
//! <root>/v1/packages/<host>/<namespace>/<type>/<version>/<os>_<arch>.json
//! <root>/v1/versions/<host>/<namespace>/<type>.json      (version lists, with a TTL)
//! ```
//!
//! Entries are immutable and written atomically (temporary file in the same directory,
//! then rename), so any number of tfsum processes can share one cache without locks:
//! the worst case is two processes writing the same true fact. Each entry carries a
//! SHA-256 of its own payload; an entry that fails to parse or to check (truncated,
//! edited, half-copied) is treated as missing and rewritten, never trusted.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::addr::{Platform, ProviderAddr};
use crate::hash::Hash;

/// One file named by a verified SHA256SUMS document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SumLine {
    pub filename: String,
    /// Lowercase hex SHA-256; `None` when the document's line for the file is not a
    /// valid checksum.
    pub sha256: Option<String>,
}

/// What a verified SHA256SUMS document contributes to every lock entry of a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SumsEntry {
    /// The `zh:` of every line, in file order (spec §5.4); empty when the document does
    /// not look like a checksum list, in which case each platform records only its own
    /// zip's `zh:` (Terraform's fallback).
    pub zh: Vec<String>,
    /// The checksum of each listed file, to check a platform's `shasum` against.
    pub files: Vec<SumLine>,
    /// "signed by HashiCorp", "signed by a HashiCorp partner" or "self-signed".
    pub trust: String,
    /// The key that signed the document (16 upper-case hex digits).
    pub key_id: String,
}

impl SumsEntry {
    /// The checksum listed for `filename` (spec §5.4 step 1): `None` if unlisted,
    /// `Some(None)` if listed with an invalid checksum.
    pub fn entry(&self, filename: &str) -> Option<Option<&str>> {
        self.files
            .iter()
            .find(|l| l.filename == filename)
            .map(|l| l.sha256.as_deref())
    }
}

/// What a verified download of one platform's package contributes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlatformEntry {
    /// `h1:` of the unpacked package.
    pub h1: String,
    /// `zh:` of the zip (also listed in [`SumsEntry::zh`]).
    pub zh: String,
    /// Size of the zip in bytes.
    pub size: u64,
}

/// A cached version list and when it was fetched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionsEntry {
    pub fetched_at: u64,
    pub versions: Vec<String>,
}

/// The on-disk envelope: the payload and a SHA-256 of its canonical JSON.
#[derive(Serialize, Deserialize)]
struct Envelope<T> {
    check: String,
    entry: T,
}

/// A handle on the cache directory; a disabled cache answers every lookup with a miss.
#[derive(Debug, Clone)]
pub struct Cache {
    root: Option<PathBuf>,
}

impl Cache {
    /// A cache rooted at `root`. The directory is created on the first write.
    pub fn new(root: PathBuf) -> Cache {
        Cache { root: Some(root) }
    }

    /// A cache that stores nothing (`--no-cache`).
    pub fn disabled() -> Cache {
        Cache { root: None }
    }

    /// The default location: `$XDG_CACHE_HOME/tfsum`, `~/Library/Caches/tfsum`, … .
    pub fn default_dir() -> Option<PathBuf> {
        dirs::cache_dir().map(|d| d.join("tfsum"))
    }

    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    pub fn sums(&self, addr: &ProviderAddr, version: &str) -> Option<SumsEntry> {
        self.read(&self.package_dir(addr, version)?.join("sums.json"))
    }

    pub fn put_sums(&self, addr: &ProviderAddr, version: &str, entry: &SumsEntry) {
        if let Some(dir) = self.package_dir(addr, version) {
            self.write(&dir.join("sums.json"), entry);
        }
    }

    pub fn platform(
        &self,
        addr: &ProviderAddr,
        version: &str,
        platform: &Platform,
    ) -> Option<PlatformEntry> {
        let file = format!("{platform}.json");
        self.read(&self.package_dir(addr, version)?.join(file))
    }

    pub fn put_platform(
        &self,
        addr: &ProviderAddr,
        version: &str,
        platform: &Platform,
        entry: &PlatformEntry,
    ) {
        if let Some(dir) = self.package_dir(addr, version) {
            self.write(&dir.join(format!("{platform}.json")), entry);
        }
    }

    /// The cached version list if it is younger than `ttl`.
    pub fn versions(&self, addr: &ProviderAddr, ttl: Duration) -> Option<Vec<String>> {
        let entry: VersionsEntry = self.read(&self.versions_file(addr)?)?;
        let age = now_secs().saturating_sub(entry.fetched_at);
        (age <= ttl.as_secs()).then_some(entry.versions)
    }

    pub fn put_versions(&self, addr: &ProviderAddr, versions: &[String]) {
        if let Some(file) = self.versions_file(addr) {
            let entry = VersionsEntry {
                fetched_at: now_secs(),
                versions: versions.to_vec(),
            };
            self.write(&file, &entry);
        }
    }

    fn package_dir(&self, addr: &ProviderAddr, version: &str) -> Option<PathBuf> {
        let root = self.root.as_ref()?;
        Some(
            root.join("v1/packages")
                .join(path_safe(addr.hostname.as_str()))
                .join(path_safe(&addr.namespace))
                .join(path_safe(&addr.r#type))
                .join(path_safe(version)),
        )
    }

    fn versions_file(&self, addr: &ProviderAddr) -> Option<PathBuf> {
        let root = self.root.as_ref()?;
        Some(
            root.join("v1/versions")
                .join(path_safe(addr.hostname.as_str()))
                .join(path_safe(&addr.namespace))
                .join(format!("{}.json", path_safe(&addr.r#type))),
        )
    }

    /// Reads and checks an entry; anything unreadable or inconsistent is a miss.
    fn read<T: DeserializeOwned + Serialize>(&self, path: &Path) -> Option<T> {
        let bytes = std::fs::read(path).ok()?;
        let envelope: Envelope<T> = serde_json::from_slice(&bytes).ok()?;
        (checksum(&envelope.entry)? == envelope.check).then_some(envelope.entry)
    }

    /// Writes an entry atomically. Failures are ignored: the cache is an optimisation,
    /// and a fact that could not be stored is simply fetched again next time.
    fn write<T: Serialize>(&self, path: &Path, entry: &T) {
        let _ = write_entry(path, entry);
    }
}

fn write_entry<T: Serialize>(path: &Path, entry: &T) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let check = checksum(entry).ok_or_else(|| std::io::Error::other("unserialisable"))?;
    let bytes =
        serde_json::to_vec_pretty(&Envelope { check, entry }).map_err(std::io::Error::other)?;
    crate::atomic::replace_file(path, &bytes)
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

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Hash strings from the cache are re-parsed; a bad one makes the whole entry a miss.
pub fn parse_hashes<'a>(items: impl IntoIterator<Item = &'a String>) -> Option<Vec<Hash>> {
    items.into_iter().map(|s| Hash::parse(s).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::addr::TERRAFORM_REGISTRY;

    fn addr() -> ProviderAddr {
        ProviderAddr::parse("127.0.0.1:8080/hashicorp/null", TERRAFORM_REGISTRY).unwrap()
    }

    #[test]
    fn round_trip_and_heal() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_path_buf());
        let platform: Platform = "linux_amd64".parse().unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), None);
        let entry = PlatformEntry {
            h1: "h1:abc=".into(),
            zh: "zh:00".into(),
            size: 3,
        };
        cache.put_platform(&addr(), "1.0.0", &platform, &entry);
        assert_eq!(
            cache.platform(&addr(), "1.0.0", &platform),
            Some(entry.clone())
        );

        // Truncate the file: the entry must read as missing, and a rewrite heals it.
        let file = dir
            .path()
            .join("v1/packages/127.0.0.1_8080/hashicorp/null/1.0.0/linux_amd64.json");
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), None);

        // A well-formed but edited entry fails its checksum.
        let edited = String::from_utf8(bytes)
            .unwrap()
            .replace("h1:abc=", "h1:xyz=");
        std::fs::write(&file, edited).unwrap();
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), None);

        cache.put_platform(&addr(), "1.0.0", &platform, &entry);
        assert_eq!(cache.platform(&addr(), "1.0.0", &platform), Some(entry));
        let leftovers: Vec<_> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tfsum-"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn versions_expire() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_path_buf());
        cache.put_versions(&addr(), &["1.0.0".to_string()]);
        assert_eq!(
            cache.versions(&addr(), Duration::from_secs(60)),
            Some(vec!["1.0.0".to_string()])
        );
        let disabled = Cache::disabled();
        disabled.put_versions(&addr(), &["1.0.0".to_string()]);
        assert_eq!(disabled.versions(&addr(), Duration::from_secs(60)), None);
    }
}
