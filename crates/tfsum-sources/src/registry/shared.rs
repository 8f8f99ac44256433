//! The organisation's shared cache as the registry source sees it: what an object says,
//! who vouches for it, and which objects a reader may believe.
//!
//! Two kinds of object, one per fact the local cache keeps
//! ([`tfsum_disk::cache`]), at the same relative paths below `v1/`:
//!
//! - `sums.json`: a version's SHA256SUMS document, its OpenPGP signature and the
//!   registry's keys. Anyone can check it again, so every reader uses it: a reader that
//!   trusts the object's writer checks it against the keys inside it, as a local entry
//!   is checked; any other reader checks it against the keys the registry itself serves
//!   for the package in this run, which makes it exactly as good as fetching it.
//! - `<os>_<arch>.json`: a platform's `h1:` (with its `zh:` and size). It cannot be
//!   derived again without the package, so a reader believes it only when a writer key
//!   the reader trusts signed it, and its `zh:` is a line of the verified SHA256SUMS.
//!
//! An object is a statement (JSON naming the provider, version and platform it is about,
//! so that a signed object cannot be replayed under another name) as the exact bytes that
//! were signed, plus Ed25519 signatures over those bytes. Keys are the standard
//! encodings `openssl genpkey -algorithm ed25519` writes: a PKCS#8 PEM private key, and
//! the public key as PEM or as the base64 of its DER (the PEM's one body line).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use base64::Engine as _;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePublicKey};
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use tfsum_disk::cache::{package_dir, Origin, PlatformEntry, SignedSums};
use tfsum_net::shared_store::{Fetched, SharedStore, SharedWarning, Stored};
use tfsum_vocab::addr::{Platform, ProviderAddr};

/// What a statement's `format` says; another value is not read.
const FORMAT: &str = "tfsum-shared-cache/1";

/// A public key whose signatures a reader believes.
#[derive(Clone, PartialEq, Eq)]
pub struct TrustedKey(VerifyingKey);

impl std::fmt::Debug for TrustedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TrustedKey({})", self.encoded())
    }
}

/// The private key that signs what this run writes (only trusted jobs hold it).
#[derive(Clone)]
pub struct WriterKey(SigningKey);

impl std::fmt::Debug for WriterKey {
    /// The public half only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WriterKey({})", self.public().encoded())
    }
}

/// A key that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct KeyError(String);

impl TrustedKey {
    /// A PEM public key (`-----BEGIN PUBLIC KEY-----`), or the base64 of its DER.
    pub fn parse(text: &str) -> Result<TrustedKey, KeyError> {
        let text = text.trim();
        let key = if text.starts_with("-----BEGIN") {
            VerifyingKey::from_public_key_pem(text).map_err(|e| KeyError(e.to_string()))?
        } else {
            let der = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| KeyError(format!("not a PEM key nor base64: {e}")))?;
            VerifyingKey::from_public_key_der(&der).map_err(|e| KeyError(e.to_string()))?
        };
        Ok(TrustedKey(key))
    }

    /// The base64 of the DER encoding: how objects and messages name the key.
    pub fn encoded(&self) -> String {
        self.0
            .to_public_key_der()
            .map(|der| base64::engine::general_purpose::STANDARD.encode(der.as_bytes()))
            .unwrap_or_default()
    }
}

impl WriterKey {
    /// A PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`).
    pub fn parse(text: &str) -> Result<WriterKey, KeyError> {
        SigningKey::from_pkcs8_pem(text.trim())
            .map(WriterKey)
            .map_err(|e| KeyError(format!("not an Ed25519 PKCS#8 PEM private key: {e}")))
    }

    pub(crate) fn public(&self) -> TrustedKey {
        TrustedKey(self.0.verifying_key())
    }
}

/// What one object is about, and the fact.
#[derive(Debug, Serialize, Deserialize)]
struct Statement<T> {
    format: String,
    provider: String,
    version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    platform: Option<String>,
    entry: T,
}

/// An object as stored: the signed bytes, and who signed them.
#[derive(Debug, Serialize, Deserialize)]
struct Object {
    statement: String,
    #[serde(default)]
    signatures: Vec<Signature>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Signature {
    /// [`TrustedKey::encoded`].
    key: String,
    /// Standard base64 of the 64-byte Ed25519 signature.
    signature: String,
}

/// Counters for the run summary.
#[derive(Debug, Default)]
pub(crate) struct SharedCounts {
    /// Platform packages whose `h1:` came from the shared cache.
    pub read: AtomicU64,
    /// Objects this run wrote.
    pub written: AtomicU64,
    /// Objects refused: a signature missing, wrong or by an untrusted key, or content
    /// that does not check out.
    pub rejected: AtomicU64,
}

/// What the shared cache had for a version's SHA256SUMS.
#[derive(Debug)]
pub(super) enum SharedSums {
    /// Signed by a trusted writer; still to be checked against its own OpenPGP keys.
    Vouched(SignedSums),
    /// Readable, but no trusted writer signed it: usable only after checking it against
    /// the keys the registry serves now.
    Unvouched(SignedSums),
    /// Nothing usable (a refused object is counted and replaced by a writer).
    None { refused: bool },
}

/// A platform entry read back, or why not.
#[derive(Debug)]
pub(super) enum SharedPlatform {
    Vouched(PlatformEntry),
    None { refused: bool },
}

/// The shared cache of a run: the store, the keys this reader trusts, and the writer key
/// if this run may write.
#[derive(Debug)]
pub struct SharedCache {
    store: Arc<SharedStore>,
    trusted: Vec<TrustedKey>,
    writer: Option<WriterKey>,
    /// Also write what the local cache already had (`--fill-shared-cache`).
    fill: bool,
    counts: SharedCounts,
}

impl SharedCache {
    pub fn new(
        store: Arc<SharedStore>,
        trusted: Vec<TrustedKey>,
        writer: Option<WriterKey>,
        fill: bool,
    ) -> SharedCache {
        SharedCache {
            store,
            trusted,
            writer,
            fill,
            counts: SharedCounts::default(),
        }
    }

    /// Whether entries found in the local cache are written too.
    pub(super) fn fills(&self) -> bool {
        self.fill && self.writer.is_some()
    }

    pub(crate) fn counts(&self) -> &SharedCounts {
        &self.counts
    }

    /// The store's problems and the objects refused, for the run's warnings.
    pub(crate) fn warnings(&self) -> Vec<SharedWarning> {
        self.store.warnings()
    }

    /// Whether this reader may believe `h1:` objects at all.
    pub(super) fn reads_h1(&self) -> bool {
        !self.trusted.is_empty()
    }

    pub(super) async fn sums(&self, provider: &ProviderAddr, version: &str) -> SharedSums {
        let key = sums_key(provider, version);
        let Fetched::Found(bytes) = self.store.get(&key).await else {
            return SharedSums::None { refused: false };
        };
        match self.open::<SignedSums>(&key, &bytes, provider, version, None) {
            Opened::Vouched(sums) => SharedSums::Vouched(sums),
            Opened::Unvouched(sums) => SharedSums::Unvouched(sums),
            Opened::Refused => SharedSums::None { refused: true },
        }
    }

    pub(super) async fn platform(
        &self,
        provider: &ProviderAddr,
        version: &str,
        platform: &Platform,
    ) -> SharedPlatform {
        let key = platform_key(provider, version, platform);
        let Fetched::Found(bytes) = self.store.get(&key).await else {
            return SharedPlatform::None { refused: false };
        };
        let name = platform.to_string();
        match self.open::<PlatformEntry>(&key, &bytes, provider, version, Some(&name)) {
            Opened::Vouched(entry) if entry.origin == Origin::Download => {
                SharedPlatform::Vouched(entry)
            }
            Opened::Vouched(_) => self.refuse_platform(&key, "it is not from a download"),
            // Counted by `open`; a reader without keys does not ask for these.
            Opened::Unvouched(_) | Opened::Refused => SharedPlatform::None { refused: true },
        }
    }

    fn refuse_platform(&self, key: &str, why: &str) -> SharedPlatform {
        self.refuse(key, why);
        SharedPlatform::None { refused: true }
    }

    /// Counts and reports an object refused after all (its content did not check out).
    pub(super) fn refuse(&self, key: &str, why: &str) {
        self.counts.rejected.fetch_add(1, Ordering::Relaxed);
        self.store.warn(SharedWarning::Ignored {
            store: self.store.shown().to_string(),
            key: key.to_string(),
            why: why.to_string(),
        });
    }

    pub(super) fn count_read(&self) {
        self.counts.read.fetch_add(1, Ordering::Relaxed);
    }

    /// Signs and writes a version's verified SHA256SUMS, when this run may write.
    pub(super) async fn put_sums(
        &self,
        provider: &ProviderAddr,
        version: &str,
        sums: &SignedSums,
        replace: bool,
    ) {
        let key = sums_key(provider, version);
        self.put(&key, provider, version, None, sums, replace).await;
    }

    /// Signs and writes a platform's entry from a verified download, when this run may
    /// write.
    pub(super) async fn put_platform(
        &self,
        provider: &ProviderAddr,
        version: &str,
        platform: &Platform,
        entry: &PlatformEntry,
        replace: bool,
    ) {
        if entry.origin != Origin::Download {
            return;
        }
        let key = platform_key(provider, version, platform);
        let name = platform.to_string();
        self.put(&key, provider, version, Some(&name), entry, replace)
            .await;
    }

    async fn put<T: Serialize>(
        &self,
        key: &str,
        provider: &ProviderAddr,
        version: &str,
        platform: Option<&str>,
        entry: &T,
        replace: bool,
    ) {
        let Some(writer) = &self.writer else {
            return;
        };
        let Some(bytes) = seal(writer, provider, version, platform, entry) else {
            return;
        };
        if self.store.put(key, bytes, replace).await == Stored::Written {
            self.counts.written.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Reads an object: its statement must parse and be about what was asked; then it is
    /// vouched for when a trusted key signed the exact bytes. A reader with trusted keys
    /// counts an object none of them signed as refused.
    fn open<T: DeserializeOwned>(
        &self,
        key: &str,
        bytes: &[u8],
        provider: &ProviderAddr,
        version: &str,
        platform: Option<&str>,
    ) -> Opened<T> {
        let refuse = |why: &str| {
            self.refuse(key, why);
            Opened::Refused
        };
        let Ok(object) = serde_json::from_slice::<Object>(bytes) else {
            return refuse("it is not a tfsum shared-cache object");
        };
        let Ok(statement) = serde_json::from_str::<Statement<T>>(&object.statement) else {
            return refuse("its statement does not parse");
        };
        let about = statement.format == FORMAT
            && statement.provider == provider.to_string()
            && statement.version == version
            && statement.platform.as_deref() == platform;
        if !about {
            return refuse("it is about another package");
        }
        if self.trusted.is_empty() {
            return Opened::Unvouched(statement.entry);
        }
        let signed = self
            .trusted
            .iter()
            .any(|key| signed_by(&object, key, object.statement.as_bytes()));
        if signed {
            return Opened::Vouched(statement.entry);
        }
        let why = if object.signatures.is_empty() {
            "it is not signed"
        } else {
            "no trusted writer key signed it (a wrong signature or another key)"
        };
        self.refuse(key, why);
        Opened::Unvouched(statement.entry)
    }
}

enum Opened<T> {
    Vouched(T),
    Unvouched(T),
    Refused,
}

fn signed_by(object: &Object, key: &TrustedKey, message: &[u8]) -> bool {
    let b64 = base64::engine::general_purpose::STANDARD;
    let name = key.encoded();
    object
        .signatures
        .iter()
        .filter(|s| s.key == name)
        .filter_map(|s| b64.decode(&s.signature).ok())
        .filter_map(|raw| ed25519_dalek::Signature::from_slice(&raw).ok())
        .any(|signature| key.0.verify_strict(message, &signature).is_ok())
}

/// The object for `entry`, signed by `writer`.
fn seal<T: Serialize>(
    writer: &WriterKey,
    provider: &ProviderAddr,
    version: &str,
    platform: Option<&str>,
    entry: &T,
) -> Option<Vec<u8>> {
    let statement = Statement {
        format: FORMAT.to_string(),
        provider: provider.to_string(),
        version: version.to_string(),
        platform: platform.map(str::to_string),
        entry,
    };
    let statement = serde_json::to_string(&statement).ok()?;
    let signature = writer.0.sign(statement.as_bytes());
    let object = Object {
        signatures: vec![Signature {
            key: writer.public().encoded(),
            signature: base64::engine::general_purpose::STANDARD.encode(signature.to_bytes()),
        }],
        statement,
    };
    serde_json::to_vec_pretty(&object).ok()
}

fn sums_key(provider: &ProviderAddr, version: &str) -> String {
    object_key(provider, version, "sums.json")
}

fn platform_key(provider: &ProviderAddr, version: &str, platform: &Platform) -> String {
    object_key(provider, version, &format!("{platform}.json"))
}

/// `v1/packages/<host>/<namespace>/<type>/<version>/<file>`: the local cache's layout.
fn object_key(provider: &ProviderAddr, version: &str, file: &str) -> String {
    let dir = package_dir(provider, version);
    let parts: Vec<String> = dir
        .components()
        .skip(1)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    format!("v1/{}/{file}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tfsum_net::shared_store::StoreOptions;

    const WRITER: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIK6CVczj9VUUQNkxKbDDKhEOTaDKDHZsGHotl9dlqMzU
-----END PRIVATE KEY-----";
    const OTHER: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEII4pbeZKW5vAp7m0SR5T9kJAO1BiVeI3asPT7jGqYIMs
-----END PRIVATE KEY-----";

    fn entry() -> PlatformEntry {
        PlatformEntry {
            h1: "h1:AAAA".into(),
            zh: "zh:00".into(),
            size: 3,
            origin: Origin::Download,
        }
    }

    fn cache(dir: &std::path::Path, trusted: &[&str], writer: Option<&str>) -> SharedCache {
        let store = SharedStore::open(
            &StoreOptions {
                url: url::Url::from_directory_path(dir).unwrap(),
                vars: Vec::new(),
                allow_http: false,
                deadline: Duration::from_secs(5),
            },
            &tfsum_net::http::HttpConfig::default(),
        )
        .unwrap();
        SharedCache::new(
            Arc::new(store),
            trusted
                .iter()
                .map(|w| WriterKey::parse(w).unwrap().public())
                .collect(),
            writer.map(|w| WriterKey::parse(w).unwrap()),
            false,
        )
    }

    #[test]
    fn public_keys_parse_as_pem_or_base64_der() {
        let public = WriterKey::parse(WRITER).unwrap().public();
        let encoded = public.encoded();
        assert!(encoded.starts_with("MCowBQYDK2VwAyEA"), "{encoded}");
        assert_eq!(TrustedKey::parse(&encoded).unwrap(), public);
        let pem = format!("-----BEGIN PUBLIC KEY-----\n{encoded}\n-----END PUBLIC KEY-----\n");
        assert_eq!(TrustedKey::parse(&pem).unwrap(), public);
        assert!(TrustedKey::parse("not a key").is_err());
        assert!(WriterKey::parse(&pem).is_err());
    }

    #[tokio::test]
    async fn only_entries_a_trusted_key_signed_are_believed() {
        let dir = tempfile::tempdir().unwrap();
        let aws =
            ProviderAddr::parse("hashicorp/aws", tfsum_vocab::addr::TERRAFORM_REGISTRY).unwrap();
        let linux: Platform = "linux_amd64".parse().unwrap();
        let writer = cache(dir.path(), &[], Some(WRITER));
        writer
            .put_platform(&aws, "5.0.0", &linux, &entry(), false)
            .await;
        assert_eq!(writer.counts().written.load(Ordering::Relaxed), 1);

        let reader = cache(dir.path(), &[WRITER], None);
        assert!(matches!(
            reader.platform(&aws, "5.0.0", &linux).await,
            SharedPlatform::Vouched(e) if e == entry()
        ));
        // Replayed under another name: refused.
        let other: Platform = "darwin_arm64".parse().unwrap();
        let key = platform_key(&aws, "5.0.0", &linux);
        let moved = dir.path().join(platform_key(&aws, "5.0.0", &other));
        std::fs::copy(dir.path().join(&key), &moved).unwrap();
        assert!(matches!(
            reader.platform(&aws, "5.0.0", &other).await,
            SharedPlatform::None { refused: true }
        ));
        // Another key's reader refuses and counts it.
        let stranger = cache(dir.path(), &[OTHER], None);
        assert!(matches!(
            stranger.platform(&aws, "5.0.0", &linux).await,
            SharedPlatform::None { refused: true }
        ));
        assert_eq!(stranger.counts().rejected.load(Ordering::Relaxed), 1);
        // An edited statement breaks the signature.
        let path = dir.path().join(&key);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("h1:AAAA", "h1:BBBB")).unwrap();
        assert!(matches!(
            reader.platform(&aws, "5.0.0", &linux).await,
            SharedPlatform::None { refused: true }
        ));
        // A reader without keys does not believe `h1:` objects at all.
        assert!(!cache(dir.path(), &[], None).reads_h1());
    }
}
