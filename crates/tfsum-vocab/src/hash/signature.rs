//! OpenPGP verification of a provider's SHA256SUMS document and the trust level it earns
//! (spec §5.4 step 3, §11 item 9).
//!
//! The registry sends the document, a **binary** detached signature over it, and the
//! author's public keys. [`verify_sums`] finds the key that made the signature, then
//! classifies the result: a signature HashiCorp's own key also accepts is
//! [`Trust::Official`]; a key vouched for by HashiCorp's partners key (its
//! `trust_signature`) is [`Trust::Partner`]; any other valid signature is
//! [`Trust::Community`]. Only a verified document makes its `zh:` hashes acceptable
//! (spec §5.4), so the caller records those only after this returns `Ok`.
//!
//! Key expiry is deliberately not checked: HashiCorp's signing subkey has expired and
//! Terraform accepts its signatures anyway (it treats `ErrKeyExpired` as success).

use std::fmt;
use std::io::Read;

use pgp::composed::{Deserializable, DetachedSignature, SignedPublicKey};
use pgp::types::KeyDetails;

/// HashiCorp's release key (`34365D9472D7468F`), Terraform's built-in `HashicorpPublicKey`.
const HASHICORP_KEY: &str = include_str!("keys/hashicorp_public_key.asc");

/// HashiCorp's partner-signing key (`7D72D4268E4660FC`), which makes `trust_signature`s.
const PARTNERS_KEY: &str = include_str!("keys/hashicorp_partners_key.asc");

/// One entry of the registry's `signing_keys.gpg_public_keys`, as sent (spec §5.3).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SigningKey {
    pub ascii_armor: String,
    /// Armored detached signature by the partners key over this key's binary packets;
    /// empty for non-partner keys.
    pub trust_signature: String,
}

/// Who vouches for a verified SHA256SUMS document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    Official,
    Partner,
    Community,
}

impl fmt::Display for Trust {
    /// Terraform's wording for each level.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Trust::Official => "signed by HashiCorp",
            Trust::Partner => "signed by a HashiCorp partner",
            Trust::Community => "self-signed",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub trust: Trust,
    /// The **primary** key ID of the key that verified, 16 uppercase hex digits, even when
    /// a subkey made the signature (as Terraform reports it).
    pub key_id: String,
}

/// Why a signature check failed. The messages follow Terraform's so that operators can
/// search for them.
#[derive(Debug, thiserror::Error)]
pub enum SignatureError {
    /// The signature bytes do not parse, or a key whose ID the signature names does not
    /// verify it: the document or signature was tampered with or corrupted.
    #[error("error checking signature: {0}")]
    Invalid(String),

    /// A registry-supplied key (position `index` in `gpg_public_keys`) does not parse.
    #[error("error decoding signing key #{index}: {reason}")]
    BadKey { index: usize, reason: String },

    /// None of the registry's keys made the signature.
    #[error("authentication signature from unknown issuer (signature names {issuers})")]
    UnknownIssuer { issuers: String },

    /// The key carries a partner trust signature, but it does not verify.
    #[error("error verifying trust signature: {0}")]
    TrustSignature(String),

    /// One of the keys compiled into tfsum does not parse; a build problem, not input.
    #[error("built-in {name} key is unusable: {reason}")]
    EmbeddedKey { name: &'static str, reason: String },
}

/// Verifies `signature` (binary, detached) over `document` with the registry's `keys`
/// and classifies the signer (spec §5.4 step 3).
///
/// Keys are tried in order, each through its primary key and then its subkeys. A key
/// whose IDs the signature does not name is skipped; a key it names must verify, else the
/// whole check fails.
pub fn verify_sums(
    document: &[u8],
    signature: &[u8],
    keys: &[SigningKey],
) -> Result<Verified, SignatureError> {
    let sig = DetachedSignature::from_bytes(signature).map_err(|e| {
        SignatureError::Invalid(format!("the signature does not parse: {}", short(&e)))
    })?;
    let issuers = issuer_ids(&sig);
    if issuers.is_empty() {
        return Err(SignatureError::Invalid(
            "signature doesn't name its issuer".to_string(),
        ));
    }

    for (index, key) in keys.iter().enumerate() {
        let keyring = parse_keyring(&key.ascii_armor)
            .map_err(|reason| SignatureError::BadKey { index, reason })?;
        let signer = match check(&sig, &keyring, document) {
            Outcome::UnknownIssuer => continue,
            Outcome::Failed(reason) => return Err(SignatureError::Invalid(reason)),
            Outcome::Verified(signer) => signer,
        };
        let key_id = hex::encode_upper(signer.primary_key.legacy_key_id());

        let hashicorp = embedded("HashiCorp", HASHICORP_KEY)?;
        if matches!(check(&sig, &hashicorp, document), Outcome::Verified(_)) {
            return Ok(Verified {
                trust: Trust::Official,
                key_id,
            });
        }
        if !key.trust_signature.is_empty() {
            verify_trust(key)?;
            return Ok(Verified {
                trust: Trust::Partner,
                key_id,
            });
        }
        return Ok(Verified {
            trust: Trust::Community,
            key_id,
        });
    }
    Err(SignatureError::UnknownIssuer {
        issuers: issuers.join(", "),
    })
}

/// A partner key's `trust_signature` is the partners key's detached signature over the
/// author key's binary (dearmored) packets.
fn verify_trust(key: &SigningKey) -> Result<(), SignatureError> {
    let trust_err = |e: String| SignatureError::TrustSignature(e);
    let partners = embedded("HashiCorp partners", PARTNERS_KEY)?;
    let mut author_packets = Vec::new();
    pgp::armor::Dearmor::new(key.ascii_armor.as_bytes())
        .read_to_end(&mut author_packets)
        .map_err(|e| trust_err(format!("dearmoring the signing key: {e}")))?;
    let (sig, _) = DetachedSignature::from_armor_single(key.trust_signature.as_bytes())
        .map_err(|e| trust_err(format!("the trust signature does not parse: {}", short(&e))))?;
    match check(&sig, &partners, &author_packets) {
        Outcome::Verified(_) => Ok(()),
        Outcome::Failed(reason) => Err(trust_err(reason)),
        Outcome::UnknownIssuer => Err(trust_err(format!(
            "made by {}, not the HashiCorp partners key",
            issuer_ids(&sig).join(", ")
        ))),
    }
}

enum Outcome<'k> {
    /// Verified by this key (its primary key or one of its subkeys).
    Verified(&'k SignedPublicKey),
    /// No key in the keyring is the one the signature names.
    UnknownIssuer,
    /// A named key did not verify; the reason from the last one tried.
    Failed(String),
}

/// Tries, for each key of the keyring, the primary key and then each subkey whose key ID
/// or fingerprint the signature names. Subkeys whose binding to their primary key does
/// not verify are ignored, as Go's keyring reader drops them.
fn check<'k>(sig: &DetachedSignature, keyring: &'k [SignedPublicKey], data: &[u8]) -> Outcome<'k> {
    let mut failure = None;
    for key in keyring {
        if names(sig, &key.primary_key) {
            match sig.verify(&key.primary_key, data) {
                Ok(()) => return Outcome::Verified(key),
                Err(e) => failure = Some(mismatch(&key.primary_key, &e)),
            }
        }
        for sub in &key.public_subkeys {
            if names(sig, &sub.key) && sub.verify_bindings(&key.primary_key).is_ok() {
                match sig.verify(&sub.key, data) {
                    Ok(()) => return Outcome::Verified(key),
                    Err(e) => failure = Some(mismatch(&sub.key, &e)),
                }
            }
        }
    }
    match failure {
        Some(reason) => Outcome::Failed(reason),
        None => Outcome::UnknownIssuer,
    }
}

fn mismatch(key: &impl KeyDetails, e: &pgp::errors::Error) -> String {
    format!(
        "the signature by key {} does not match the signed data ({})",
        hex::encode_upper(key.legacy_key_id()),
        short(e)
    )
}

/// rPGP's message on one line: some of its messages are multi-line assertion dumps
/// whose useful part is the text after the last `: `.
fn short(e: &pgp::errors::Error) -> String {
    let text = e.to_string();
    match text.lines().last() {
        Some(last) if text.contains('\n') => last
            .rsplit_once(": ")
            .map_or(last, |(_, tail)| tail)
            .to_string(),
        _ => text,
    }
}

/// Whether the signature's issuer key ID or issuer fingerprint is this key's.
fn names(sig: &DetachedSignature, key: &impl KeyDetails) -> bool {
    let id = key.legacy_key_id();
    let fingerprint = key.fingerprint();
    sig.signature.issuer_key_id().iter().any(|&i| *i == id)
        || sig
            .signature
            .issuer_fingerprint()
            .iter()
            .any(|&f| *f == fingerprint)
}

fn issuer_ids(sig: &DetachedSignature) -> Vec<String> {
    let mut ids: Vec<String> = sig
        .signature
        .issuer_key_id()
        .iter()
        .map(hex::encode_upper)
        .collect();
    ids.extend(
        sig.signature
            .issuer_fingerprint()
            .iter()
            .map(|f| hex::encode_upper(f.as_bytes())),
    );
    ids
}

/// Every public key in an armored block; like Go's `ReadArmoredKeyRing`, a block may
/// hold more than one.
fn parse_keyring(armor: &str) -> Result<Vec<SignedPublicKey>, String> {
    let (keys, _headers) =
        SignedPublicKey::from_armor_many(armor.as_bytes()).map_err(|e| short(&e))?;
    let keys = keys.collect::<Result<Vec<_>, _>>().map_err(|e| short(&e))?;
    if keys.is_empty() {
        return Err("the armored block holds no public key".to_string());
    }
    Ok(keys)
}

fn embedded(name: &'static str, armor: &str) -> Result<Vec<SignedPublicKey>, SignatureError> {
    parse_keyring(armor).map_err(|reason| SignatureError::EmbeddedKey { name, reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn testdata(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .expect("the repository")
            .join("testdata/hash/signatures")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn text(name: &str) -> String {
        String::from_utf8(testdata(name)).unwrap()
    }

    /// One armored block holding the packets of several armored keys.
    fn armored_keyring(armors: &[&str]) -> String {
        use base64::Engine as _;
        let mut packets = Vec::new();
        for armor in armors {
            pgp::armor::Dearmor::new(armor.as_bytes())
                .read_to_end(&mut packets)
                .unwrap();
        }
        let b64 = base64::engine::general_purpose::STANDARD.encode(&packets);
        let lines: Vec<&str> = b64
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        format!(
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{}\n-----END PGP PUBLIC KEY BLOCK-----\n",
            lines.join("\n")
        )
    }

    fn key(armor: &str, trust: &str) -> SigningKey {
        SigningKey {
            ascii_armor: text(armor),
            trust_signature: if trust.is_empty() {
                String::new()
            } else {
                text(trust)
            },
        }
    }

    /// Vectors C1–C7 (VECTORS.md §C): document, signature, registry keys → outcome.
    #[test]
    fn signature_vectors_c1_to_c7() {
        let hashicorp = SigningKey {
            ascii_armor: HASHICORP_KEY.to_string(),
            trust_signature: String::new(),
        };
        let partners = SigningKey {
            ascii_armor: PARTNERS_KEY.to_string(),
            trust_signature: String::new(),
        };
        let author = key("test_author_key.asc", "");
        let author_trusted = key("test_author_key.asc", "test_author_key_trust_signature.asc");
        let author_bad_trust = key("test_author_key.asc", "test_other_key_trust_signature.asc");

        let sums = "testProviderShaSums_SHA256SUMS";
        let placeholder = "testShaSumsPlaceholder.txt";
        let ok = |trust, id: &str| Ok::<_, &str>((trust, id.to_string()));
        // (label, document, signature, registry keys, trust and key ID or error)
        type Case = (
            &'static str,
            &'static str,
            &'static str,
            Vec<SigningKey>,
            Result<(Trust, String), &'static str>,
        );
        let cases: Vec<Case> = vec![
            (
                "C1 official, expired subkey",
                sums,
                "testProviderShaSums_SHA256SUMS.sig",
                vec![hashicorp.clone()],
                ok(Trust::Official, "34365D9472D7468F"),
            ),
            (
                "C2 partner",
                placeholder,
                "testShaSumsPlaceholder.txt.sig",
                vec![author_trusted],
                ok(Trust::Partner, "37A6AB3BCF2C170A"),
            ),
            (
                "C3 community",
                placeholder,
                "testShaSumsPlaceholder.txt.sig",
                vec![author.clone()],
                ok(Trust::Community, "37A6AB3BCF2C170A"),
            ),
            (
                "C4 unknown issuer moves on to the next key",
                placeholder,
                "testShaSumsPlaceholder.txt.sig",
                vec![partners, author.clone()],
                ok(Trust::Community, "37A6AB3BCF2C170A"),
            ),
            (
                "C5 trust signature by another key",
                placeholder,
                "testShaSumsPlaceholder.txt.sig",
                vec![author_bad_trust],
                Err("error verifying trust signature"),
            ),
            (
                "C6 malformed signature",
                placeholder,
                "bad_signature.sig",
                vec![author.clone()],
                Err("error checking signature"),
            ),
            (
                "C7 no key matches",
                placeholder,
                "testShaSumsPlaceholder.txt.sig",
                vec![hashicorp.clone()],
                Err("authentication signature from unknown issuer"),
            ),
            // Beyond the upstream vectors: one armored block holding two keys, a
            // tampered document, no keys at all, a key that does not parse.
            (
                "keyring block, signer second",
                sums,
                "testProviderShaSums_SHA256SUMS.sig",
                vec![SigningKey {
                    ascii_armor: armored_keyring(&[&text("test_author_key.asc"), HASHICORP_KEY]),
                    trust_signature: String::new(),
                }],
                ok(Trust::Official, "34365D9472D7468F"),
            ),
            (
                "tampered document",
                placeholder,
                "testShaSumsPlaceholder.txt.sig",
                vec![author.clone()],
                Err("error checking signature"),
            ),
            (
                "no keys",
                sums,
                "testProviderShaSums_SHA256SUMS.sig",
                vec![],
                Err("authentication signature from unknown issuer"),
            ),
            (
                "unparsable key",
                sums,
                "testProviderShaSums_SHA256SUMS.sig",
                vec![SigningKey {
                    ascii_armor: "not a key".to_string(),
                    trust_signature: String::new(),
                }],
                Err("error decoding signing key #0"),
            ),
        ];

        for (label, doc, sig, keys, want) in cases {
            let mut document = testdata(doc);
            if label == "tampered document" {
                document.push(b'!');
            }
            let got = verify_sums(&document, &testdata(sig), &keys);
            match (&want, &got) {
                (Ok((trust, id)), Ok(v)) => {
                    assert_eq!((&v.trust, &v.key_id), (trust, id), "{label}")
                }
                (Err(w), Err(e)) => assert!(e.to_string().contains(w), "{label}: {e}"),
                _ => panic!("{label}: want {want:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn trust_display() {
        let shown: Vec<String> = [Trust::Official, Trust::Partner, Trust::Community]
            .iter()
            .map(Trust::to_string)
            .collect();
        assert_eq!(
            shown,
            [
                "signed by HashiCorp",
                "signed by a HashiCorp partner",
                "self-signed"
            ]
        );
    }

    /// The embedded keys parse and carry the IDs Terraform documents.
    #[test]
    fn embedded_keys() {
        for (armor, id) in [
            (HASHICORP_KEY, "34365D9472D7468F"),
            (PARTNERS_KEY, "7D72D4268E4660FC"),
        ] {
            let keyring = parse_keyring(armor).unwrap();
            assert_eq!(keyring.len(), 1);
            assert_eq!(
                hex::encode_upper(keyring[0].primary_key.legacy_key_id()),
                id
            );
        }
    }
}
