//! The OCI image-spec documents a registry stores, as plain serde structs: a
//! [`Descriptor`], an [`ImageManifest`], an [`ImageIndex`], and the media types that
//! name them. Only the fields OpenTofu's artifacts use are modelled (`artifactType`,
//! descriptors' `platform`, inline `data`); reading ignores the rest, and what is pushed
//! is the caller's exact bytes, so nothing is lost in a round trip.
//!
//! Field names and media types are image-spec v1.1's (`specs-go/v1/descriptor.go`,
//! `manifest.go`, `index.go`, `mediatype.go`); the Accept list for resolving a tag is
//! ORAS-Go's (`registry/remote/manifest.go:28-38` at oras-go v2.6.2), which is what
//! OpenTofu sends (`internal/getproviders/oci_registry_mirror_source.go`).

use serde::{Deserialize, Serialize};

use super::reference::Digest;

pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const OCI_EMPTY: &str = "application/vnd.oci.empty.v1+json";
#[cfg(test)]
const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
#[cfg(test)]
const DOCKER_MANIFEST_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
#[cfg(test)]
const OCI_ARTIFACT_MANIFEST: &str = "application/vnd.oci.artifact.manifest.v1+json";

/// The `Accept` of a manifest request by tag: the five media types above, in ORAS's
/// order, joined as ORAS joins them (a test keeps the two lists equal).
pub(crate) const MANIFEST_ACCEPT: &str = "application/vnd.docker.distribution.manifest.v2+json, \
     application/vnd.docker.distribution.manifest.list.v2+json, \
     application/vnd.oci.image.manifest.v1+json, \
     application/vnd.oci.image.index.v1+json, \
     application/vnd.oci.artifact.manifest.v1+json";

/// Whether a media type names a manifest (pushed and fetched under `/manifests/`).
#[cfg(test)]
pub(crate) fn is_manifest(media_type: &str) -> bool {
    [
        DOCKER_MANIFEST,
        DOCKER_MANIFEST_LIST,
        OCI_MANIFEST,
        OCI_INDEX,
        OCI_ARTIFACT_MANIFEST,
    ]
    .contains(&media_type)
}

/// What a content descriptor says: the type, digest and size of a blob or manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    pub media_type: String,
    pub digest: Digest,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// The content itself, base64, for tiny blobs (the empty config `{}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Free-form labels (`org.opencontainers.image.title`: the file name ORAS and
    /// `oras pull` use for a layer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<std::collections::BTreeMap<String, String>>,
}

impl Descriptor {
    /// A descriptor with only the three required fields.
    pub fn new(media_type: &str, digest: Digest, size: u64) -> Descriptor {
        Descriptor {
            media_type: media_type.to_string(),
            digest,
            size,
            artifact_type: None,
            platform: None,
            data: None,
            annotations: None,
        }
    }
}

/// The platform a manifest in an index is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Platform {
    pub architecture: String,
    pub os: String,
    #[serde(
        rename = "os.version",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub os_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// An image manifest: a config and layers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageManifest {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    pub config: Descriptor,
    #[serde(default)]
    pub layers: Vec<Descriptor>,
}

/// An image index: a list of manifests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageIndex {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    #[serde(default)]
    pub manifests: Vec<Descriptor>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenTofu's own fixture shapes read back field for field
    /// (`internal/command/e2etest/testdata/oci-provider-mirror/fake-registry/foo/`).
    #[test]
    fn opentofu_fixture_shapes() {
        let zero = format!("sha256:{}", "0".repeat(64));
        let index: ImageIndex = serde_json::from_value(serde_json::json!({
            "schemaVersion": 2,
            "mediaType": OCI_INDEX,
            "artifactType": "application/vnd.opentofu.provider",
            "manifests": [{"mediaType": OCI_MANIFEST, "digest": zero, "size": 535,
                "platform": {"architecture": "amd64", "os": "linux"},
                "artifactType": "application/vnd.opentofu.provider-target"}],
            "annotations": {"ignored": "yes"},
        }))
        .unwrap();
        assert_eq!(index.manifests[0].platform.as_ref().unwrap().os, "linux");
        let manifest: ImageManifest = serde_json::from_value(serde_json::json!({
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "artifactType": "application/vnd.opentofu.provider-target",
            "config": {"mediaType": OCI_EMPTY, "digest": Digest::of(b"{}"), "size": 2, "data": "e30="},
            "layers": [{"mediaType": "archive/zip", "digest": zero, "size": 268}],
        }))
        .unwrap();
        assert_eq!(manifest.config.data.as_deref(), Some("e30="));
        assert_eq!(manifest.layers[0].media_type, "archive/zip");
        let bad = serde_json::json!({"mediaType": "x", "digest": "sha512:00", "size": 1});
        assert!(serde_json::from_value::<Descriptor>(bad).is_err());
        let oras_order = [
            DOCKER_MANIFEST,
            DOCKER_MANIFEST_LIST,
            OCI_MANIFEST,
            OCI_INDEX,
            OCI_ARTIFACT_MANIFEST,
        ];
        assert_eq!(MANIFEST_ACCEPT, oras_order.join(", "));
        assert!(oras_order.iter().all(|t| is_manifest(t)));
        assert!(!is_manifest("archive/zip"));
    }
}
