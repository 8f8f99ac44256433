//! A provider version's SHA256SUMS document as the registry source trusts it: verified
//! against its signature and the registry's keys (spec §5.4), right after the download and
//! again every time it is read back from the cache, by the same code.

use std::sync::Arc;

use base64::Engine as _;

use crate::error::{SumsError, SumsMismatch};
use tfsum_disk::cache::SignedSums;
use tfsum_net::registry::PackageMeta;
use tfsum_vocab::addr::{Platform, ProviderAddr, OPENTOFU_REGISTRY};
use tfsum_vocab::hash::{verify_sums, Hash, ShaSums, SigningKey};

/// What a verified SHA256SUMS document contributes to every lock entry of its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct VerifiedSums {
    /// The `zh:` of every line, in file order (spec §5.4); empty when the document does
    /// not look like a checksum list, in which case each platform records only its own
    /// zip's `zh:` (Terraform's fallback).
    pub zh: Vec<Hash>,
    /// The checksum of each listed file (lowercase hex; `None` for an invalid line), to
    /// check a platform's `shasum` against.
    pub files: Vec<(String, Option<String>)>,
    /// "signed by HashiCorp", "signed by a HashiCorp partner", "self-signed", or why
    /// no signature was required.
    pub trust: String,
}

/// Verifies `signed` for `provider`: the signature over the document must check out
/// against one of the keys (Terraform's rule); only OpenTofu's registry may publish a
/// provider with no key at all, and OpenTofu then takes the document as it is (spec §10).
pub(super) fn verify(
    provider: &ProviderAddr,
    signed: &SignedSums,
) -> Result<VerifiedSums, SumsError> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let document = b64
        .decode(&signed.document)
        .map_err(SumsError::DocumentEncoding)?;
    let trust = if signed.keys.is_empty() && provider.hostname.as_str() == OPENTOFU_REGISTRY {
        format!("unsigned: {OPENTOFU_REGISTRY} lists no signing key")
    } else {
        let signature = b64
            .decode(&signed.signature)
            .map_err(SumsError::SignatureEncoding)?;
        let keys: Vec<SigningKey> = signed
            .keys
            .iter()
            .map(|(ascii_armor, trust_signature)| SigningKey {
                ascii_armor: ascii_armor.clone(),
                trust_signature: trust_signature.clone(),
            })
            .collect();
        let verified = verify_sums(&document, &signature, &keys)
            .map_err(|e| SumsError::Signature(Arc::new(e)))?;
        verified.trust.to_string()
    };
    let sums = ShaSums::parse(&document);
    Ok(VerifiedSums {
        zh: sums.acceptable_hashes().unwrap_or_default(),
        files: sums
            .files()
            .into_iter()
            .map(|(filename, sha256)| (filename, sha256.map(hex::encode)))
            .collect(),
        trust,
    })
}

/// The signed document as fetched, for verifying and caching.
pub(super) fn signed(document: &[u8], signature: &[u8], meta: &PackageMeta) -> SignedSums {
    let b64 = base64::engine::general_purpose::STANDARD;
    SignedSums {
        document: b64.encode(document),
        signature: b64.encode(signature),
        keys: meta.signing_keys.clone(),
    }
}

impl VerifiedSums {
    /// The SHA256SUMS entry for the package's file must equal the registry's `shasum`
    /// (spec §5.4 step 1); the `meta.shasums_url` names the document in messages.
    pub(super) fn vouches_for(&self, meta: &PackageMeta) -> Result<(), SumsMismatch> {
        let want = hex::encode(meta.shasum);
        let listed = self
            .files
            .iter()
            .find(|(name, _)| *name == meta.filename)
            .map(|(_, sha)| sha.as_deref());
        let (sums_url, filename) = (Box::new(meta.shasums_url.clone()), meta.filename.clone());
        match listed {
            Some(Some(listed)) if listed == want => Ok(()),
            Some(Some(listed)) => Err(SumsMismatch::Differs {
                sums_url,
                filename,
                listed: listed.to_string(),
                reported: want,
            }),
            Some(None) => Err(SumsMismatch::Invalid { sums_url, filename }),
            None => Err(SumsMismatch::Missing { sums_url, filename }),
        }
    }

    /// Whether `zh` is one of the signed lines.
    pub(super) fn lists(&self, zh: &str) -> bool {
        self.zh.iter().any(|line| line.as_str() == zh)
    }

    /// The platforms the document lists a package for: its lines named
    /// `terraform-provider-TYPE_VERSION_OS_ARCH.zip` (spec §5.4), in file order. Other
    /// lines (`manifest.json`, …) name no platform.
    pub(super) fn platforms(&self, provider_type: &str, version: &str) -> Vec<Platform> {
        let prefix = format!("terraform-provider-{provider_type}_{version}_");
        let mut platforms: Vec<Platform> = Vec::new();
        for (filename, _) in &self.files {
            let platform = filename
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(".zip"))
                .and_then(|p| p.parse::<Platform>().ok());
            if let Some(platform) = platform.filter(|p| !platforms.contains(p)) {
                platforms.push(platform);
            }
        }
        platforms
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_vocab::addr::TERRAFORM_REGISTRY;

    fn testdata(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .expect("the repository")
            .join("testdata/hash/signatures")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// HashiCorp's signed SHA256SUMS for the `test` provider, as a cache entry keeps it.
    fn genuine() -> SignedSums {
        let b64 = base64::engine::general_purpose::STANDARD;
        let key = include_str!("../../../tfsum-vocab/src/hash/keys/hashicorp_public_key.asc");
        SignedSums {
            document: b64.encode(testdata("testProviderShaSums_SHA256SUMS")),
            signature: b64.encode(testdata("testProviderShaSums_SHA256SUMS.sig")),
            keys: vec![(key.to_string(), String::new())],
        }
    }

    /// What is read back is verified as it was on download: a genuine entry gives every
    /// line's `zh:`; a document with a line added, a dropped signature or a dropped key
    /// does not verify, except where OpenTofu takes documents unsigned.
    #[test]
    fn cached_documents_are_verified_again() {
        let b64 = base64::engine::general_purpose::STANDARD;
        let hashicorp =
            |t: &str| ProviderAddr::parse(&format!("hashicorp/{t}"), TERRAFORM_REGISTRY).unwrap();
        let tofu = ProviderAddr::parse("hashicorp/test", OPENTOFU_REGISTRY).unwrap();
        let verified = verify(&hashicorp("test"), &genuine()).unwrap();
        assert_eq!(verified.trust, "signed by HashiCorp");
        assert!(!verified.zh.is_empty());
        assert_eq!(verified.files.len(), verified.zh.len());

        let mut forged = genuine();
        let mut text = b64.decode(&forged.document).unwrap();
        text.extend_from_slice(format!("{}  evil.zip\n", "ab".repeat(32)).as_bytes());
        forged.document = b64.encode(text);
        let err = verify(&hashicorp("test"), &forged).unwrap_err().to_string();
        assert!(err.contains("does not match the signed data"), "{err}");

        let unsigned = SignedSums {
            signature: String::new(),
            keys: Vec::new(),
            ..genuine()
        };
        assert!(verify(&hashicorp("test"), &unsigned).is_err());
        let taken = verify(&tofu, &unsigned).unwrap();
        assert_eq!(
            taken.trust,
            "unsigned: registry.opentofu.org lists no signing key"
        );
        assert_eq!(taken.zh, verified.zh);
    }
}
