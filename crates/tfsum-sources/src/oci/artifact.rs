//! What an OpenTofu provider version looks like in an OCI repository, read and written
//! exactly as OpenTofu reads it (v1.12.6 `internal/getproviders/oci_registry_mirror_source.go`
//! and `package_location_oci_blob_archive.go`; docs/spec in
//! `website/docs/cli/oci_registries/provider-mirror.mdx:80-107`):
//!
//! ```text
//! tag <version, + as _> ──▶ image index        artifactType application/vnd.opentofu.provider
//!                             └─ manifests[]   one per os/arch: an image manifest descriptor with
//!                                               artifactType …provider-target and its platform
//!                                 └─ image manifest (artifactType …provider-target)
//!                                     ├─ config  the empty descriptor {} (ignored by readers)
//!                                     └─ layers  exactly one archive/zip: the provider's
//!                                                official zip, whose digest is its zh:
//! ```
//!
//! Reading: [`check_resolved`], [`read_index`], [`select_manifest`],
//! [`read_platform_manifest`] and [`select_layer`], each failing with the rule broken
//! ([`Broken`], in OpenTofu's words). Writing, for `tfsum mirror --layout oci`:
//! [`platform_manifest`] and [`index`], deterministic bytes, so that the same packages
//! always make the same digests and a second push finds everything in place.

use std::collections::BTreeMap;
use std::fmt;

use bytes::Bytes;

use tfsum_net::oci::{Descriptor, Digest, ImageIndex, ImageManifest, Platform as OciPlatform};
use tfsum_net::oci::{OCI_EMPTY, OCI_INDEX, OCI_MANIFEST};
use tfsum_vocab::addr::Platform;

/// The artifact type of a provider version's index (`oci_registry_mirror_source.go:33`).
pub(crate) const PROVIDER: &str = "application/vnd.opentofu.provider";
/// The artifact type of one platform's image manifest (`:58`).
pub(crate) const PROVIDER_TARGET: &str = "application/vnd.opentofu.provider-target";
/// The artifact type of a module package (`internal/getmodules/oci_getter.go:29`).
pub(crate) const MODULE_PACKAGE: &str = "application/vnd.opentofu.modulepkg";
/// The media type of the layer holding a zip (`package_location_oci_blob_archive.go:33`).
pub(crate) const ARCHIVE_ZIP: &str = "archive/zip";
/// The annotation naming a layer's file.
pub(crate) const TITLE: &str = "org.opencontainers.image.title";

/// The tag of a provider version: `+` is not allowed in tags, `_` stands for it
/// (`oci_registry_mirror_source.go:487-491`).
pub fn version_tag(version: &str) -> String {
    version.replace('+', "_")
}

/// The version a tag names, if it names one (`:176-216`): `_` read as `+`.
pub(crate) fn tag_version(tag: &str) -> String {
    tag.replace('_', "+")
}

/// A rule of OpenTofu's reader that an artifact breaks; the text is OpenTofu's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Broken {
    #[error("tag refers directly to image manifest, but OpenTofu providers require an index manifest for multi-platform support")]
    TagIsImageManifest,
    #[error("unsupported media type {0:?} for OCI index manifest")]
    TagMediaType(String),
    #[error("found image manifest but need index manifest")]
    FoundImageManifest,
    #[error("found index manifest but need image manifest")]
    FoundIndexManifest,
    #[error("invalid manifest content: {0}")]
    Invalid(String),
    #[error("unexpected manifest media type {0:?}")]
    MediaType(String),
    #[error("unexpected artifact type {0:?}")]
    ArtifactType(String),
    #[error("selected OCI artifact is an OpenTofu module package, not a provider package")]
    ModulePackage,
    #[error("provider image manifest has unsupported media type {0:?}")]
    TargetMediaType(String),
    #[error("provider image manifest lacks the required platform constraints")]
    TargetPlatformMissing,
    #[error("provider image manifest has unsupported artifact type {0:?}")]
    TargetArtifactType(String),
    #[error("provider image manifest has unsupported artifact type; is this a container image, rather than an OpenTofu provider?")]
    ContainerImage,
    #[error("ambiguous manifest has multiple descriptors for platform {0}")]
    AmbiguousPlatform(Platform),
    #[error("image manifest contains no layers of type \"archive/zip\"{}", if *.others { ", but has other unsupported formats; this OCI artifact might be intended for a different version of OpenTofu" } else { "" })]
    NoZipLayer { others: bool },
    #[error("ambiguous manifest declares multiple eligible provider packages")]
    AmbiguousLayer,
    #[error("selected OCI artifact is for {found}, but was expected to be for {wanted}")]
    LayerPlatform { found: String, wanted: Platform },
}

/// What a tag resolved to must be an index (`fetchOCIDescriptorForVersion`,
/// `oci_registry_mirror_source.go:506-541`; a registry's HEAD says no artifact type, so
/// that is checked on the index itself).
pub(crate) fn check_resolved(resolved: &Descriptor) -> Result<(), Broken> {
    match resolved.artifact_type.as_deref() {
        None | Some(PROVIDER) => {}
        Some(PROVIDER_TARGET) => return Err(Broken::TagIsImageManifest),
        Some(MODULE_PACKAGE) => return Err(Broken::ModulePackage),
        Some(other) => return Err(Broken::ArtifactType(other.to_string())),
    }
    match resolved.media_type.as_str() {
        OCI_INDEX => Ok(()),
        OCI_MANIFEST => Err(Broken::TagIsImageManifest),
        other => Err(Broken::TagMediaType(other.to_string())),
    }
}

/// A provider version's index, checked (`fetchOCIIndexManifest`, `:544-594`): its
/// `mediaType` must be present and the index type, its `artifactType` the provider's.
pub(crate) fn read_index(bytes: &[u8]) -> Result<ImageIndex, Broken> {
    let index: ImageIndex = match serde_json::from_slice(bytes) {
        Ok(index) => index,
        Err(e) => {
            let manifest = serde_json::from_slice::<ImageManifest>(bytes);
            if manifest.is_ok_and(|m| m.media_type.as_deref() == Some(OCI_MANIFEST)) {
                return Err(Broken::FoundImageManifest);
            }
            return Err(Broken::Invalid(e.to_string()));
        }
    };
    let media_type = index.media_type.clone().unwrap_or_default();
    if media_type != OCI_INDEX {
        return Err(Broken::MediaType(media_type));
    }
    match index.artifact_type.as_deref() {
        Some(PROVIDER) => Ok(index),
        Some(MODULE_PACKAGE) => Err(Broken::ModulePackage),
        other => Err(Broken::ArtifactType(other.unwrap_or_default().to_string())),
    }
}

/// The index entry for `platform`: `None` when the version is not published for it
/// (`selectOCIImageManifest`, `:648-716`). Entries of another artifact type are
/// ignored; a provider-target entry must be an image manifest with a platform; `os`
/// and `architecture` must match and `os.version` be empty (`variant` is not looked at,
/// so two entries differing only in it are ambiguous).
pub(crate) fn select_manifest<'a>(
    index: &'a ImageIndex,
    platform: &Platform,
) -> Result<Option<&'a Descriptor>, Broken> {
    let mut found = Vec::new();
    let mut wrong_type = None;
    let mut other_platforms = 0;
    for entry in &index.manifests {
        if entry.artifact_type.as_deref() != Some(PROVIDER_TARGET) {
            if let Some(other) = entry.artifact_type.as_deref().filter(|t| !t.is_empty()) {
                wrong_type = Some(other.to_string());
            }
            continue;
        }
        if entry.media_type != OCI_MANIFEST {
            return Err(Broken::TargetMediaType(entry.media_type.clone()));
        }
        let Some(target) = &entry.platform else {
            return Err(Broken::TargetPlatformMissing);
        };
        let matches = target.os_version.as_deref().unwrap_or_default().is_empty()
            && target.os == platform.os
            && target.architecture == platform.arch;
        if matches {
            found.push(entry);
        } else {
            other_platforms += 1;
        }
    }
    match (found.as_slice(), other_platforms, wrong_type) {
        ([one], _, _) => Ok(Some(one)),
        ([_, _, ..], _, _) => Err(Broken::AmbiguousPlatform(platform.clone())),
        ([], n, _) if n > 0 => Ok(None),
        ([], _, Some(other)) => Err(Broken::TargetArtifactType(other)),
        ([], _, None) => Err(Broken::ContainerImage),
    }
}

/// Every platform the index has exactly one usable entry for, sorted (for `tfsum
/// verify`, which must know every package an `h1:` could be the hash of).
pub(crate) fn index_platforms(index: &ImageIndex) -> Vec<Platform> {
    let mut platforms: Vec<Platform> = index
        .manifests
        .iter()
        .filter(|e| e.artifact_type.as_deref() == Some(PROVIDER_TARGET))
        .filter_map(|e| e.platform.as_ref())
        .filter(|p| p.os_version.as_deref().unwrap_or_default().is_empty())
        .map(|p| Platform {
            os: p.os.clone(),
            arch: p.architecture.clone(),
        })
        .filter(|p| matches!(select_manifest(index, p), Ok(Some(_))))
        .collect();
    platforms.sort();
    platforms.dedup();
    platforms
}

/// One platform's image manifest, checked against the index entry that named it
/// (`fetchOCIImageManifest`, `:596-646`): its `mediaType` and `artifactType` must be
/// the entry's.
pub(crate) fn read_platform_manifest(
    bytes: &[u8],
    entry: &Descriptor,
) -> Result<ImageManifest, Broken> {
    read_image_manifest(bytes, &entry.media_type, entry.artifact_type.as_deref())
}

/// An image manifest whose `mediaType` must be `media_type` and `artifactType`
/// `artifact_type` (for module packages too: `internal/getmodules/oci_getter.go:315-373`).
pub(crate) fn read_image_manifest(
    bytes: &[u8],
    media_type: &str,
    artifact_type: Option<&str>,
) -> Result<ImageManifest, Broken> {
    let manifest: ImageManifest = match serde_json::from_slice(bytes) {
        Ok(manifest) => manifest,
        Err(e) => {
            let index = serde_json::from_slice::<ImageIndex>(bytes);
            if index.is_ok_and(|i| i.media_type.as_deref() == Some(OCI_INDEX)) {
                return Err(Broken::FoundIndexManifest);
            }
            return Err(Broken::Invalid(e.to_string()));
        }
    };
    let got = manifest.media_type.clone().unwrap_or_default();
    if got != media_type {
        return Err(Broken::MediaType(got));
    }
    if manifest.artifact_type.as_deref().unwrap_or_default() != artifact_type.unwrap_or_default() {
        return Err(Broken::ArtifactType(
            manifest.artifact_type.clone().unwrap_or_default(),
        ));
    }
    Ok(manifest)
}

/// The one `archive/zip` layer (`selectOCILayerBlob`, `:718-747`); other layers are
/// ignored. A layer that names a platform must name `platform`
/// (`checkOCIBlobDescriptor`, `package_location_oci_blob_archive.go:287-304`).
pub(crate) fn select_layer<'a>(
    manifest: &'a ImageManifest,
    platform: Option<&Platform>,
) -> Result<&'a Descriptor, Broken> {
    let zips: Vec<&Descriptor> = manifest
        .layers
        .iter()
        .filter(|l| l.media_type == ARCHIVE_ZIP)
        .collect();
    let layer = match zips.as_slice() {
        [one] => *one,
        [] => {
            return Err(Broken::NoZipLayer {
                others: !manifest.layers.is_empty(),
            })
        }
        _ => return Err(Broken::AmbiguousLayer),
    };
    if let (Some(found), Some(wanted)) = (&layer.platform, platform) {
        if found.os != wanted.os || found.architecture != wanted.arch {
            return Err(Broken::LayerPlatform {
                found: format!("{}_{}", found.os, found.architecture),
                wanted: wanted.clone(),
            });
        }
    }
    Ok(layer)
}

/// The empty config every manifest written names: `{}`.
pub(crate) const EMPTY_CONFIG: &[u8] = b"{}";

fn oci_platform(platform: &Platform) -> OciPlatform {
    OciPlatform {
        architecture: platform.arch.clone(),
        os: platform.os.clone(),
        os_version: None,
        variant: None,
    }
}

/// One platform's zip as a layer: its digest, size and file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ZipLayer {
    pub digest: Digest,
    pub size: u64,
    /// `terraform-provider-TYPE_VERSION_OS_ARCH.zip`, as the annotation says.
    pub filename: String,
}

/// A manifest as pushed: its bytes, and the descriptor an index names it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Built {
    pub bytes: Bytes,
    pub descriptor: Descriptor,
}

/// The image manifest of one platform's package, as OpenTofu's fixtures write it
/// (`internal/command/e2etest/testdata/oci-provider-mirror/`): the empty config, one
/// `archive/zip` layer with the zip's file name as its title, `artifactType`
/// provider-target; its index entry carries the platform.
pub(crate) fn platform_manifest(platform: &Platform, zip: &ZipLayer) -> Built {
    let mut config = Descriptor::new(
        OCI_EMPTY,
        Digest::of(EMPTY_CONFIG),
        EMPTY_CONFIG.len() as u64,
    );
    config.data = Some("e30=".to_string());
    let mut layer = Descriptor::new(ARCHIVE_ZIP, zip.digest, zip.size);
    layer.annotations = Some(BTreeMap::from([(TITLE.to_string(), zip.filename.clone())]));
    let manifest = ImageManifest {
        schema_version: 2,
        media_type: Some(OCI_MANIFEST.to_string()),
        artifact_type: Some(PROVIDER_TARGET.to_string()),
        config,
        layers: vec![layer],
    };
    let bytes = to_bytes(&manifest);
    let mut descriptor = Descriptor::new(OCI_MANIFEST, Digest::of(&bytes), bytes.len() as u64);
    descriptor.artifact_type = Some(PROVIDER_TARGET.to_string());
    descriptor.platform = Some(oci_platform(platform));
    Built { bytes, descriptor }
}

/// A provider version's index over `entries` (image manifest descriptors), sorted by
/// platform so that the same set always gives the same bytes.
pub(crate) fn index(mut entries: Vec<Descriptor>) -> Built {
    entries.sort_by(|a, b| {
        platform_key(a)
            .cmp(&platform_key(b))
            .then(a.digest.cmp(&b.digest))
    });
    let index = ImageIndex {
        schema_version: 2,
        media_type: Some(OCI_INDEX.to_string()),
        artifact_type: Some(PROVIDER.to_string()),
        manifests: entries,
    };
    let bytes = to_bytes(&index);
    let descriptor = Descriptor::new(OCI_INDEX, Digest::of(&bytes), bytes.len() as u64);
    Built { bytes, descriptor }
}

fn platform_key(entry: &Descriptor) -> (String, String) {
    entry
        .platform
        .as_ref()
        .map(|p| (p.os.clone(), p.architecture.clone()))
        .unwrap_or_default()
}

fn to_bytes(value: &impl serde::Serialize) -> Bytes {
    // Serializing these plain structs cannot fail.
    Bytes::from(serde_json::to_vec(value).unwrap_or_default())
}

impl fmt::Display for ZipLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {} bytes)",
            self.filename, self.digest, self.size
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn platform(text: &str) -> Platform {
        text.parse().unwrap()
    }

    fn zip(name: &str) -> ZipLayer {
        ZipLayer {
            digest: Digest::of(name.as_bytes()),
            size: name.len() as u64,
            filename: name.to_string(),
        }
    }

    /// What is written reads back under OpenTofu's rules, byte for byte the same every
    /// time, and in the shape of OpenTofu's own fixture.
    #[test]
    fn written_artifacts_read_back() {
        let linux = platform("linux_amd64");
        let darwin = platform("darwin_arm64");
        let built: Vec<(Platform, Built)> = [&linux, &darwin]
            .into_iter()
            .map(|p| {
                (
                    p.clone(),
                    platform_manifest(p, &zip(&format!("terraform-provider-x_1.0.0_{p}.zip"))),
                )
            })
            .collect();
        let entries: Vec<Descriptor> = built.iter().map(|(_, b)| b.descriptor.clone()).collect();
        let reversed: Vec<Descriptor> = entries.iter().rev().cloned().collect();
        let idx = index(entries);
        assert_eq!(idx.bytes, index(reversed).bytes, "order does not matter");
        check_resolved(&idx.descriptor).unwrap();
        let read = read_index(&idx.bytes).unwrap();
        assert_eq!(index_platforms(&read), [darwin.clone(), linux.clone()]);
        for (p, built) in &built {
            let entry = select_manifest(&read, p).unwrap().unwrap();
            assert_eq!(entry, &built.descriptor);
            let manifest = read_platform_manifest(&built.bytes, entry).unwrap();
            let layer = select_layer(&manifest, Some(p)).unwrap();
            assert_eq!(
                layer.digest,
                Digest::of(format!("terraform-provider-x_1.0.0_{p}.zip").as_bytes())
            );
        }
        assert_eq!(select_manifest(&read, &platform("windows_amd64")), Ok(None));
        let json: serde_json::Value = serde_json::from_slice(&built[0].1.bytes).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "schemaVersion": 2,
                "mediaType": OCI_MANIFEST,
                "artifactType": PROVIDER_TARGET,
                "config": {"mediaType": OCI_EMPTY, "digest": Digest::of(b"{}"), "size": 2, "data": "e30="},
                "layers": [{"mediaType": "archive/zip", "digest": Digest::of(b"terraform-provider-x_1.0.0_linux_amd64.zip"),
                    "size": 42, "annotations": {TITLE: "terraform-provider-x_1.0.0_linux_amd64.zip"}}],
            })
        );
    }

    /// Each rule of OpenTofu's reader, broken once.
    #[test]
    fn reader_rules() {
        let linux = platform("linux_amd64");
        let good = platform_manifest(&linux, &zip("z"));
        let mut resolved = good.descriptor.clone();
        resolved.artifact_type = None;
        assert_eq!(check_resolved(&resolved), Err(Broken::TagIsImageManifest));
        resolved.media_type = "application/vnd.docker.distribution.manifest.v2+json".into();
        assert!(matches!(
            check_resolved(&resolved),
            Err(Broken::TagMediaType(_))
        ));
        resolved.artifact_type = Some(MODULE_PACKAGE.into());
        assert_eq!(check_resolved(&resolved), Err(Broken::ModulePackage));

        let index_of = |value: serde_json::Value| read_index(value.to_string().as_bytes());
        assert_eq!(
            index_of(serde_json::json!({"schemaVersion": 2, "manifests": []})),
            Err(Broken::MediaType(String::new()))
        );
        assert_eq!(
            index_of(
                serde_json::json!({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": []})
            ),
            Err(Broken::ArtifactType(String::new()))
        );
        assert_eq!(
            read_index(&good.bytes),
            Err(Broken::MediaType(OCI_MANIFEST.into()))
        );
        assert!(matches!(read_index(b"[]"), Err(Broken::Invalid(_))));

        let entry = |artifact: Option<&str>,
                     media: &str,
                     platform: Option<(&str, &str)>,
                     os_version: Option<&str>| {
            let mut d = Descriptor::new(media, Digest::of(b"m"), 1);
            d.artifact_type = artifact.map(str::to_string);
            d.platform = platform.map(|(os, arch)| OciPlatform {
                os: os.into(),
                architecture: arch.into(),
                os_version: os_version.map(str::to_string),
                variant: None,
            });
            d
        };
        let with = |entries: Vec<Descriptor>| ImageIndex {
            schema_version: 2,
            media_type: Some(OCI_INDEX.into()),
            artifact_type: Some(PROVIDER.into()),
            manifests: entries,
        };
        let target = Some(PROVIDER_TARGET);
        let cases: Vec<(Vec<Descriptor>, Result<bool, Broken>)> = vec![
            (
                vec![entry(target, OCI_MANIFEST, Some(("linux", "amd64")), None)],
                Ok(true),
            ),
            (
                vec![entry(target, OCI_MANIFEST, Some(("darwin", "amd64")), None)],
                Ok(false),
            ),
            (
                vec![entry(
                    target,
                    OCI_MANIFEST,
                    Some(("linux", "amd64")),
                    Some("10"),
                )],
                Ok(false),
            ),
            (
                vec![
                    entry(Some("application/x"), OCI_MANIFEST, None, None),
                    entry(target, OCI_MANIFEST, Some(("linux", "amd64")), None),
                ],
                Ok(true),
            ),
            (
                vec![entry(target, OCI_INDEX, Some(("linux", "amd64")), None)],
                Err(Broken::TargetMediaType(OCI_INDEX.into())),
            ),
            (
                vec![entry(target, OCI_MANIFEST, None, None)],
                Err(Broken::TargetPlatformMissing),
            ),
            (
                vec![entry(Some("application/x"), OCI_MANIFEST, None, None)],
                Err(Broken::TargetArtifactType("application/x".into())),
            ),
            (
                vec![entry(None, OCI_MANIFEST, Some(("linux", "amd64")), None)],
                Err(Broken::ContainerImage),
            ),
            (
                vec![
                    entry(target, OCI_MANIFEST, Some(("linux", "amd64")), None),
                    entry(target, OCI_MANIFEST, Some(("linux", "amd64")), None),
                ],
                Err(Broken::AmbiguousPlatform(linux.clone())),
            ),
        ];
        for (entries, want) in cases {
            let shown = format!("{entries:?}");
            let index = with(entries);
            assert_eq!(
                select_manifest(&index, &linux).map(|e| e.is_some()),
                want,
                "{shown}"
            );
        }

        let manifest = read_platform_manifest(&good.bytes, &good.descriptor).unwrap();
        let mut wrong = good.descriptor.clone();
        wrong.artifact_type = Some(PROVIDER.into());
        assert_eq!(
            read_platform_manifest(&good.bytes, &wrong),
            Err(Broken::ArtifactType(PROVIDER_TARGET.into()))
        );
        let idx = index(vec![good.descriptor.clone()]);
        assert_eq!(
            read_platform_manifest(&idx.bytes, &good.descriptor),
            Err(Broken::FoundIndexManifest)
        );
        let mut layers = manifest.clone();
        layers.layers[0].media_type = "application/octet-stream".into();
        assert_eq!(
            select_layer(&layers, Some(&linux)),
            Err(Broken::NoZipLayer { others: true })
        );
        layers.layers.clear();
        assert_eq!(
            select_layer(&layers, Some(&linux)),
            Err(Broken::NoZipLayer { others: false })
        );
        let mut two = manifest.clone();
        two.layers.push(two.layers[0].clone());
        assert_eq!(
            select_layer(&two, Some(&linux)),
            Err(Broken::AmbiguousLayer)
        );
        let mut elsewhere = manifest.clone();
        elsewhere.layers[0].platform = Some(oci_platform(&platform("darwin_arm64")));
        assert!(matches!(
            select_layer(&elsewhere, Some(&linux)),
            Err(Broken::LayerPlatform { .. })
        ));
        assert_eq!(version_tag("1.0.0+ent.1"), "1.0.0_ent.1");
        assert_eq!(tag_version("1.0.0_ent.1"), "1.0.0+ent.1");
    }
}
