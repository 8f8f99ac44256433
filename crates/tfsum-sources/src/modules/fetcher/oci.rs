//! OpenTofu's `oci://` module sources (v1.12.6 `internal/getmodules/oci_getter.go`):
//! the tag (`latest` when none is given) or digest resolved to an image manifest with
//! `artifactType` `application/vnd.opentofu.modulepkg`, its one `archive/zip` layer
//! fetched and verified against its digest, and unpacked with the limits every module
//! archive has. The whole package is unpacked; a `//subdir` then selects inside it
//! (`oci_getter.go:201-205`).
//!
//! A package is kept in the module cache under the manifest's digest, which names its
//! content for ever: a `?digest=` source found there needs no request at all (and works
//! `--offline`); a tag is resolved once per run.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::super::archive::read_archive;
use super::super::cache::{PackageKey, StoredPackage};
use super::super::error::{OciFault, OciModuleError};
use super::super::package::Materialized;
use super::super::{ModuleError, PackageFault};
use super::http::FileSink;
use super::ModuleFetcher;
use crate::oci::artifact::{self, Broken, MODULE_PACKAGE};
use tfsum_net::oci::{Descriptor, Digest, OciClient, Reference, RepositoryAddr, Tag, OCI_MANIFEST};
use tfsum_vocab::module_source::{ArchiveFormat, ModuleSource, OciReference, OciSource};

impl ModuleFetcher {
    /// The package an `oci://` source names, stored under its manifest's digest.
    pub(super) async fn oci_package(&self, oci: &OciSource) -> Result<StoredPackage, ModuleError> {
        let (repository, reference) = oci_address(oci)?;
        // A digest names the content: the cache may have it without asking anyone.
        if let Reference::Digest(digest) = &reference {
            let key = PackageKey::Oci {
                digest: digest.to_string(),
            };
            if let Some(stored) = self.inner.cache.package(&key) {
                self.inner.from_cache.fetch_add(1, Ordering::Relaxed);
                return Ok(stored);
            }
        }
        if self.inner.options.offline {
            return Err(ModuleError::Offline {
                what: format!("module package {}", oci_shown(oci)),
            });
        }
        let (client, resolved) = self.oci_resolved(oci, &repository, &reference).await?;
        let key = PackageKey::Oci {
            digest: resolved.digest.to_string(),
        };
        self.inner
            .oci_packages
            .get(&key, || async {
                if let Some(stored) = self.inner.cache.package(&key) {
                    self.inner.from_cache.fetch_add(1, Ordering::Relaxed);
                    return Ok(stored);
                }
                let package = self
                    .oci_materialized(oci, &client, &repository, &resolved)
                    .await?;
                self.inner.fetched.fetch_add(1, Ordering::Relaxed);
                self.keep(&key, &package, "", None)
            })
            .await
    }

    /// An `oci://` location a module registry answered with: resolved, fetched and
    /// unpacked, not stored (the registry version it stands for is).
    pub(super) async fn oci_unpacked(&self, oci: &OciSource) -> Result<Materialized, ModuleError> {
        let (repository, reference) = oci_address(oci)?;
        let (client, resolved) = self.oci_resolved(oci, &repository, &reference).await?;
        let package = self
            .oci_materialized(oci, &client, &repository, &resolved)
            .await?;
        self.inner.fetched.fetch_add(1, Ordering::Relaxed);
        Ok(package)
    }

    /// The image manifest `reference` names in `repository`, and the client that asked
    /// (`resolveManifestDescriptor`, `oci_getter.go:303-317`).
    async fn oci_resolved(
        &self,
        oci: &OciSource,
        repository: &RepositoryAddr,
        reference: &Reference,
    ) -> Result<(Arc<OciClient>, Descriptor), ModuleError> {
        let fail = |fault: OciFault| oci_error(oci, fault);
        let client = self.oci_client(oci)?;
        let resolved = {
            let _permit = self.permit().await?;
            client
                .resolve(repository, reference)
                .await
                .map_err(|e| fail(e.into()))?
        };
        if resolved.media_type != OCI_MANIFEST {
            return Err(fail(OciFault::NotImageManifest(resolved.media_type)));
        }
        Ok((client, resolved))
    }

    fn oci_client(&self, oci: &OciSource) -> Result<Arc<OciClient>, ModuleError> {
        let access = self
            .inner
            .oci_access
            .as_ref()
            .ok_or_else(|| oci_error(oci, OciFault::NoClient))?;
        access
            .client()
            .map_err(|e| oci_error(oci, OciFault::Credentials(e)))
    }

    /// The manifest checked (`fetchOCIImageManifest`, `selectOCILayerBlob`,
    /// `oci_getter.go:319-446`), its zip fetched into the scratch directory (capped,
    /// verified as it streams) and read with the module archive limits.
    async fn oci_materialized(
        &self,
        oci: &OciSource,
        client: &OciClient,
        repository: &RepositoryAddr,
        resolved: &Descriptor,
    ) -> Result<Materialized, ModuleError> {
        let fail = |fault: OciFault| oci_error(oci, fault);
        let _permit = self.permit().await?;
        let bytes = client
            .fetch_manifest(repository, resolved)
            .await
            .map_err(|e| fail(e.into()))?;
        let manifest = artifact::read_image_manifest(&bytes, OCI_MANIFEST, Some(MODULE_PACKAGE))
            .map_err(|e| fail(OciFault::Manifest(e)))?;
        // The provider installer's choice, in the module getter's words.
        let layer = artifact::select_layer(&manifest, None).map_err(|broken| {
            fail(match broken {
                Broken::NoZipLayer { others } => OciFault::NoLayer { others },
                Broken::AmbiguousLayer => OciFault::MultipleLayers,
                other => OciFault::Manifest(other),
            })
        })?;
        let work = self.new_work_dir()?;
        let file: PathBuf = work.path().join("package.zip");
        let limits = self.inner.options.limits.clone();
        client
            .fetch_blob_into(
                repository,
                layer.digest,
                layer.size,
                limits.max_download_bytes,
                || Ok(FileSink::new(file.clone())),
            )
            .await
            .map_err(|e| fail(e.into()))?;
        let _unpacking = self.unpack_permit().await?;
        let shown = oci_shown(oci);
        let read = tokio::task::spawn_blocking(move || {
            let tree = read_archive(&file, ArchiveFormat::Zip, &limits)?;
            Ok::<_, PackageFault>(tree.materialize()?)
        })
        .await
        .map_err(|e| fail(OciFault::Task(e.to_string())))?;
        drop(work);
        read.map_err(|error| ModuleError::Package { url: shown, error })
    }
}

fn oci_shown(oci: &OciSource) -> String {
    ModuleSource::Oci(OciSource {
        subdir: String::new(),
        ..oci.clone()
    })
    .to_string()
}

fn oci_error(oci: &OciSource, fault: OciFault) -> ModuleError {
    ModuleError::Oci {
        source_str: oci_shown(oci),
        error: OciModuleError(fault),
    }
}

/// The repository and the tag or digest an `oci://` source names.
fn oci_address(oci: &OciSource) -> Result<(RepositoryAddr, Reference), ModuleError> {
    let fail = |fault: OciFault| oci_error(oci, fault);
    let repository =
        RepositoryAddr::new(&oci.registry, &oci.repository).map_err(|e| fail(e.into()))?;
    let reference = match &oci.reference {
        OciReference::Tag(tag) => Reference::Tag(Tag::parse(tag).map_err(|e| fail(e.into()))?),
        OciReference::Digest(digest) => {
            Reference::Digest(Digest::parse(digest).map_err(|e| fail(e.into()))?)
        }
    };
    Ok((repository, reference))
}
