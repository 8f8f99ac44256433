//! Package hashes: the `h1:` dirhash and the legacy `zh:` zip hash (spec §2), the
//! SHA256SUMS document, and OpenPGP verification of its signature (spec §5.4).
//!
//! The parts, each in its own file:
//!
//! * [`dirhash`]: the `h1:` summary (golang.org/x/mod `dirhash.Hash1`) and hashing an
//!   unpacked package directory with it;
//! * [`zipstream`]: one forward pass over a provider zip as it downloads, giving its
//!   SHA-256 (`zh:` / `shasum`) and the `h1:` the package will have once unpacked;
//! * [`sums`]: the SHA256SUMS document: the entry for one file and the `zh:` list a
//!   signed document makes acceptable;
//! * [`signature`]: the OpenPGP check of that document and the official / partner /
//!   community classification.
//!
//! [`struct@Hash`] is the string form all of them produce and the lock file stores.

pub mod dirhash;
pub mod signature;
pub(crate) mod sums;
pub mod zipstream;

pub use dirhash::h1_dir;
pub use signature::{verify_sums, SigningKey};
pub use sums::ShaSums;
pub use zipstream::{hash_zip_file, ZipLimits};

mod error;
pub use error::HashError;

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The hashes a lock file records for a package on disk, as Terraform computes them:
/// `h1:` (of the files it unpacks to) and `zh:` (of the zip itself) for a zip, `h1:` for
/// an unpacked provider directory.
pub fn hash_path(path: &Path) -> Result<Vec<Hash>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.is_dir() {
        return h1_dir(path).map(|h1| vec![h1]).map_err(|e| e.to_string());
    }
    let hashed = hash_zip_file(path, &ZipLimits::default()).map_err(|e| e.to_string())?;
    let zh = hashed.zh();
    Ok(vec![hashed.h1, zh])
}

/// A hash string as it appears in a lock file: `scheme:value`.
///
/// Ordering is byte-wise on the whole string, which is how Terraform sorts the `hashes`
/// list (spec §1.7), so a `BTreeSet<Hash>` renders in lock-file order. Shared, not
/// copied: every root's lock file and change report holds the same package hashes, and
/// a clone must not cost an allocation per root (issue 25).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hash(Arc<str>);

/// Hashes read on this thread so far (at most [`INTERNED`]), so that the same hash read
/// from a thousand lock files is one allocation, and comparing two of them compares
/// pointers.
fn intern(s: &str) -> Arc<str> {
    thread_local! {
        static SEEN: std::cell::RefCell<std::collections::HashSet<Arc<str>>> =
            Default::default();
    }
    SEEN.with_borrow_mut(|seen| {
        if let Some(known) = seen.get(s) {
            return known.clone();
        }
        let new: Arc<str> = s.into();
        if seen.len() < INTERNED {
            seen.insert(new.clone());
        }
        new
    })
}

/// How many distinct hashes a thread remembers: every package of a large repository
/// (a lock file holds a few dozen), while a file of millions made up stays bounded.
const INTERNED: usize = 1 << 14;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid hash {0:?}: expected SCHEME:VALUE")]
pub struct HashParseError(pub String);

impl Hash {
    /// `ParseHash`: any scheme with at least one character before the first `:`.
    /// Unknown schemes are kept verbatim.
    pub fn parse(s: &str) -> Result<Hash, HashParseError> {
        match s.find(':') {
            Some(i) if i > 0 => Ok(Hash(intern(s))),
            _ => Err(HashParseError(s.to_string())),
        }
    }

    /// `h1:` + standard base64 of a dirhash summary digest.
    pub fn h1_from_digest(digest: &[u8; 32]) -> Hash {
        use base64::Engine as _;
        Hash(
            format!(
                "h1:{}",
                base64::engine::general_purpose::STANDARD.encode(digest)
            )
            .into(),
        )
    }

    /// `zh:` + lowercase hex of a zip file's SHA-256.
    pub fn zh_from_digest(digest: &[u8; 32]) -> Hash {
        Hash(format!("zh:{}", hex::encode(digest)).into())
    }

    pub fn scheme(&self) -> &str {
        self.0.split_once(':').map(|(s, _)| s).unwrap_or("")
    }

    /// `h1:` and `zh:` are the schemes Terraform prefers and checks (spec §2.3).
    pub fn is_preferred(&self) -> bool {
        matches!(self.scheme(), "h1" | "zh")
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_order() {
        assert!(Hash::parse("h1:abc").is_ok());
        assert!(Hash::parse("test:").is_ok());
        assert!(Hash::parse(":abc").is_err());
        assert!(Hash::parse("abc").is_err());
        let mut v = [
            Hash::parse("zh:00").unwrap(),
            Hash::parse("test:aa").unwrap(),
            Hash::parse("h1:A").unwrap(),
            Hash::parse("h1:+").unwrap(),
        ];
        v.sort();
        let got: Vec<&str> = v.iter().map(Hash::as_str).collect();
        assert_eq!(got, ["h1:+", "h1:A", "test:aa", "zh:00"]);
    }
}
