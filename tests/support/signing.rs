//! The test-only OpenPGP key (`testdata/keys/`) and the binary detached signatures the fake
//! registry serves as `…_SHA256SUMS.sig`.
//!
//! Terraform 1.0.3 verifies with golang.org/x/crypto/openpgp, which needs a v4 signature
//! whose packet carries an Issuer key ID subpacket ("signature doesn't have an issuer"
//! otherwise) and a hash it knows; RSA + SHA-256 with the subpackets below satisfies it.

use std::sync::OnceLock;

use pgp::composed::{Deserializable as _, DetachedSignature, SignedSecretKey};
use pgp::crypto::hash::HashAlgorithm;
use pgp::packet::{SignatureConfig, SignatureType, Subpacket, SubpacketData};
use pgp::ser::Serialize as _;
use pgp::types::{KeyDetails as _, Password};

/// Armored public half, as served in `signing_keys.gpg_public_keys[].ascii_armor`.
pub const PUBLIC_KEY_ARMOR: &str = include_str!("../../testdata/keys/test-signing-key.pub.asc");
const SECRET_KEY_ARMOR: &str = include_str!("../../testdata/keys/test-signing-key.sec.asc");

/// Key ID of the test key, uppercase hex as registries write `key_id`.
pub const KEY_ID: &str = "76B18DF651566CCC";

fn secret_key() -> &'static SignedSecretKey {
    static KEY: OnceLock<SignedSecretKey> = OnceLock::new();
    KEY.get_or_init(|| {
        let (key, _headers) = SignedSecretKey::from_armor_single(SECRET_KEY_ARMOR.as_bytes())
            .expect("testdata/keys/test-signing-key.sec.asc parses");
        key
    })
}

/// A binary (not armored) detached signature of `document`, type 0x00 (binary), SHA-256.
///
/// The creation time is the key's own creation time rather than "now", so the same
/// document always gets the same signature bytes (RSA PKCS#1 v1.5 is deterministic).
pub fn sign_detached(document: &[u8]) -> Vec<u8> {
    let key = secret_key();
    let mut config = SignatureConfig::v4(
        SignatureType::Binary,
        key.algorithm(),
        HashAlgorithm::Sha256,
    );
    config.hashed_subpackets = vec![
        Subpacket::regular(SubpacketData::SignatureCreationTime(key.created_at()))
            .expect("creation time subpacket"),
        Subpacket::regular(SubpacketData::IssuerFingerprint(key.fingerprint()))
            .expect("issuer fingerprint subpacket"),
    ];
    config.unhashed_subpackets =
        vec![
            Subpacket::regular(SubpacketData::IssuerKeyId(key.legacy_key_id()))
                .expect("issuer key ID subpacket"),
        ];
    let signature = config
        .sign(&key.primary_key, &Password::empty(), document)
        .expect("signing with the test key");
    // `DetachedSignature` serializes with the packet header; a bare `Signature` does not.
    DetachedSignature::new(signature)
        .to_bytes()
        .expect("serializing a signature into a Vec cannot fail")
}
