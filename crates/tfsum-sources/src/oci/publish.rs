//! Pushing provider versions into an OCI registry in the layout OpenTofu reads
//! ([`super::artifact`]): [`OciTarget`], for `tfsum mirror --layout oci`.
//!
//! One provider version is one tag. [`OciTarget::held`] reads what the tag holds now
//! (nothing, a provider index, or something OpenTofu could not read as one); the
//! caller decides per platform what is already there and what must be fetched, then
//! [`OciTarget::push_platform`] and [`OciTarget::update_tag`] write, in the order that
//! keeps every reader whole:
//!
//! 1. each blob (the zips, the empty config) unless the repository has it (`HEAD`);
//! 2. each platform's image manifest, by its digest (a tag never names half an
//!    artifact: distribution refuses an index whose manifests are missing);
//! 3. the index, by the tag, and only when the tag is absent or holds a provider index
//!    whose entries for our platforms are ours (same zips): the index written keeps the
//!    other platforms' entries as they were, so a run for more platforms extends a tag
//!    and never takes a platform away. The distribution API has no compare-and-swap, so
//!    another run may write the tag from what it read before our write: a moment after
//!    writing, the tag is read again and, while ours are not all in it, merged and
//!    written again; concurrent runs for different platforms converge on the union. At
//!    worst (runs that keep overwriting each other past the attempts) a platform is
//!    missing from the index until the next run adds it; no entry ever names other
//!    bytes.
//!
//! A tag whose entry for one of our platforms holds another zip, or that holds
//! something else than a provider index, is refused ([`PushFault::Conflict`],
//! [`PushFault::Foreign`]) and never written: content behind a published tag does not
//! change.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;

use tfsum_net::oci::{
    CredentialsError, Descriptor, Digest, OciAccess, OciClient, OciError, Reference,
    RepositoryAddr, Tag, OCI_MANIFEST,
};
use tfsum_vocab::addr::{Platform, ProviderAddr};
use tfsum_vocab::version::Version;

use super::artifact::{self, Broken, Built, ZipLayer};
use super::template::{RepositoryTemplate, TemplateError};

/// How many times the index is merged and written when other runs keep writing the
/// tag.
const MERGE_ATTEMPTS: usize = 6;

/// How long after writing a tag it is read again, for the writes of runs that read it
/// before ours.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(250);

/// How many times a manifest is put while the registry says what it names is still
/// being written (50 ms, doubling: about 1.5 s in all).
const RACING_PUTS: usize = 6;

/// Why a version could not be pushed ([`PushFault`], boxed).
#[derive(Debug, Clone, thiserror::Error)]
#[error(transparent)]
pub struct PushError(Box<PushFault>);

impl PushError {
    pub fn fault(&self) -> &PushFault {
        &self.0
    }
}

impl From<PushFault> for PushError {
    fn from(fault: PushFault) -> PushError {
        PushError(Box::new(fault))
    }
}

impl From<OciError> for PushError {
    fn from(error: OciError) -> PushError {
        PushFault::Registry(Arc::new(error)).into()
    }
}

impl From<TemplateError> for PushError {
    fn from(error: TemplateError) -> PushError {
        PushFault::Template(error).into()
    }
}

impl From<CredentialsError> for PushError {
    fn from(error: CredentialsError) -> PushError {
        PushFault::Credentials(error).into()
    }
}

/// What a [`PushError`] holds. Each names the repository and tag.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PushFault {
    #[error(transparent)]
    Template(TemplateError),
    #[error("{0}")]
    Credentials(CredentialsError),
    #[error("{0}")]
    Registry(Arc<OciError>),
    /// The tag holds something OpenTofu could not read as a provider version.
    #[error("{repository}:{tag} already holds something that is not an OpenTofu provider version ({rule}); refused, not overwritten")]
    Foreign {
        repository: RepositoryAddr,
        tag: String,
        rule: Broken,
    },
    /// The tag's entry for a platform holds another zip than the origin's.
    #[error("{repository}:{tag} already holds another package for {platform} ({held}, where the origin's is {ours}); refused, not overwritten")]
    Conflict {
        repository: RepositoryAddr,
        tag: String,
        platform: Platform,
        held: Digest,
        ours: Digest,
    },
    /// Other runs kept rewriting the tag.
    #[error(
        "{repository}:{tag} kept changing while it was written ({attempts} attempts); run again"
    )]
    Raced {
        repository: RepositoryAddr,
        tag: String,
        attempts: usize,
    },
}

/// What a tag holds.
#[derive(Debug, Clone)]
pub enum Held {
    Absent,
    Index(HeldIndex),
}

/// A provider index a tag holds, and the zip of each platform asked about that it has.
#[derive(Debug, Clone)]
pub struct HeldIndex {
    pub entries: Vec<Descriptor>,
    /// Per platform asked about: the zip layer's digest, when the index has the
    /// platform.
    pub zips: BTreeMap<Platform, Digest>,
}

/// One platform's zip to push, held in memory while it is sent.
#[derive(Debug, Clone)]
pub struct ZipToPush {
    pub platform: Platform,
    pub filename: String,
    pub bytes: Bytes,
}

/// A platform pushed: the index entry naming its manifest, and its zip's digest.
#[derive(Debug, Clone)]
pub struct Ours {
    pub platform: Platform,
    pub entry: Descriptor,
    pub zip: Digest,
}

/// What a push did to the tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TagChange {
    /// The tag did not exist; it names the index now.
    Created,
    /// The tag held the version for fewer platforms; the index adds ours.
    Extended,
    /// The tag already held everything: nothing was written.
    Unchanged,
}

/// What a push wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Pushed {
    /// Blobs uploaded, and their bytes.
    pub blobs_uploaded: usize,
    pub bytes_uploaded: u64,
    /// Blobs the repository already had.
    pub blobs_present: usize,
    /// Manifests written (platform manifests and the index).
    pub manifests_written: usize,
}

/// Where `tfsum mirror --layout oci` pushes: repositories named by a template.
#[derive(Debug, Clone)]
pub struct OciTarget {
    template: RepositoryTemplate,
    access: OciAccess,
}

impl OciTarget {
    pub fn new(template: RepositoryTemplate, access: OciAccess) -> OciTarget {
        OciTarget { template, access }
    }

    fn client(&self) -> Result<Arc<OciClient>, PushError> {
        Ok(self.access.client()?)
    }

    /// The repository and tag of a provider version.
    pub fn reference(
        &self,
        provider: &ProviderAddr,
        version: &Version,
    ) -> Result<(RepositoryAddr, Tag), PushError> {
        let repository = self.template.repository(provider)?;
        let tag =
            Tag::parse(&artifact::version_tag(&version.to_string())).map_err(OciError::from)?;
        Ok((repository, tag))
    }

    /// What the tag holds, with the zip of each of `platforms` it has.
    pub async fn held(
        &self,
        repository: &RepositoryAddr,
        tag: &Tag,
        platforms: &[Platform],
    ) -> Result<Held, PushError> {
        let client = self.client()?;
        let foreign = |rule| -> PushError {
            PushFault::Foreign {
                repository: repository.clone(),
                tag: tag.to_string(),
                rule,
            }
            .into()
        };
        let resolved = match client
            .resolve(repository, &Reference::Tag(tag.clone()))
            .await
        {
            Ok(resolved) => resolved,
            Err(e) if e.is_not_found() => return Ok(Held::Absent),
            Err(e) => return Err(e.into()),
        };
        artifact::check_resolved(&resolved).map_err(foreign)?;
        let bytes = client.fetch_manifest(repository, &resolved).await?;
        let index = artifact::read_index(&bytes).map_err(foreign)?;
        let mut zips = BTreeMap::new();
        for platform in platforms {
            let Some(entry) = artifact::select_manifest(&index, platform).map_err(foreign)? else {
                continue;
            };
            let manifest = client.fetch_manifest(repository, entry).await?;
            let manifest = artifact::read_platform_manifest(&manifest, entry).map_err(foreign)?;
            let layer = artifact::select_layer(&manifest, Some(platform)).map_err(foreign)?;
            zips.insert(platform.clone(), layer.digest);
        }
        Ok(Held::Index(HeldIndex {
            entries: index.manifests,
            zips,
        }))
    }

    /// Pushes the empty config every platform manifest names, unless the repository
    /// has it: once per version, before its platforms.
    pub async fn push_config(&self, repository: &RepositoryAddr) -> Result<Pushed, PushError> {
        let client = self.client()?;
        let mut pushed = Pushed::default();
        let config = Bytes::from_static(artifact::EMPTY_CONFIG);
        self.blob(&client, repository, &config, &mut pushed).await?;
        Ok(pushed)
    }

    /// Pushes one platform's zip (unless the repository has it) and its image manifest
    /// (by digest; the config must be there: [`OciTarget::push_config`]); returns the
    /// index entry that names it.
    pub async fn push_platform(
        &self,
        repository: &RepositoryAddr,
        zip: &ZipToPush,
    ) -> Result<(Ours, Pushed), PushError> {
        let client = self.client()?;
        let mut pushed = Pushed::default();
        self.blob(&client, repository, &zip.bytes, &mut pushed)
            .await?;
        let layer = ZipLayer {
            digest: Digest::of(&zip.bytes),
            size: zip.bytes.len() as u64,
            filename: zip.filename.clone(),
        };
        let Built { bytes, descriptor } = artifact::platform_manifest(&zip.platform, &layer);
        let reference = Reference::Digest(descriptor.digest);
        put_racing(&client, repository, &reference, OCI_MANIFEST, &bytes).await?;
        pushed.manifests_written += 1;
        let ours = Ours {
            platform: zip.platform.clone(),
            entry: descriptor,
            zip: layer.digest,
        };
        Ok((ours, pushed))
    }

    /// Points the tag at an index holding `ours` and every entry the tag already had;
    /// see the module documentation. Returns what changed and how many indexes were
    /// written.
    pub async fn update_tag(
        &self,
        repository: &RepositoryAddr,
        tag: &Tag,
        ours: &[Ours],
    ) -> Result<(TagChange, usize), PushError> {
        let client = self.client()?;
        let platforms: Vec<Platform> = ours.iter().map(|o| o.platform.clone()).collect();
        let mut change = None;
        for attempt in 0..=MERGE_ATTEMPTS {
            let held = self.held(repository, tag, &platforms).await?;
            let (entries, now) = match &held {
                // `attempt` indexes have been written so far.
                Held::Absent if ours.is_empty() => return Ok((TagChange::Unchanged, attempt)),
                Held::Absent => (
                    ours.iter().map(|o| o.entry.clone()).collect(),
                    TagChange::Created,
                ),
                Held::Index(held) => {
                    check_ours(repository, tag, held, ours)?;
                    let missing: Vec<Descriptor> = ours
                        .iter()
                        .filter(|o| !held.zips.contains_key(&o.platform))
                        .map(|o| o.entry.clone())
                        .collect();
                    if missing.is_empty() {
                        return Ok((change.unwrap_or(TagChange::Unchanged), attempt));
                    }
                    let mut entries = held.entries.clone();
                    entries.extend(missing);
                    (entries, TagChange::Extended)
                }
            };
            if attempt == MERGE_ATTEMPTS {
                break;
            }
            let index = artifact::index(entries);
            let reference = Reference::Tag(tag.clone());
            let media_type = &index.descriptor.media_type;
            put_racing(&client, repository, &reference, media_type, &index.bytes).await?;
            change.get_or_insert(now);
            // Another run may write the tag from what it read before our write: after a
            // pause, read it again, and merge again if ours are not all in it.
            tokio::time::sleep(SETTLE).await;
        }
        Err(PushFault::Raced {
            repository: repository.clone(),
            tag: tag.to_string(),
            attempts: MERGE_ATTEMPTS,
        }
        .into())
    }

    /// Uploads `blob` unless the repository has it.
    async fn blob(
        &self,
        client: &OciClient,
        repository: &RepositoryAddr,
        blob: &Bytes,
        pushed: &mut Pushed,
    ) -> Result<(), PushError> {
        if client.blob_exists(repository, Digest::of(blob)).await? {
            pushed.blobs_present += 1;
            return Ok(());
        }
        client.push_blob(repository, blob, None).await?;
        pushed.blobs_uploaded += 1;
        pushed.bytes_uploaded += blob.len() as u64;
        Ok(())
    }
}

/// Puts a manifest; when the registry refuses it because what it names is still being
/// written by another run ([`OciError::names_unfinished_content`]), waits and tries again,
/// a few times.
async fn put_racing(
    client: &OciClient,
    repository: &RepositoryAddr,
    reference: &Reference,
    media_type: &str,
    bytes: &Bytes,
) -> Result<Digest, OciError> {
    let mut wait = std::time::Duration::from_millis(50);
    for _ in 1..RACING_PUTS {
        match client
            .put_manifest(repository, reference, media_type, bytes)
            .await
        {
            Err(e) if e.names_unfinished_content() => {
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
            other => return other,
        }
    }
    client
        .put_manifest(repository, reference, media_type, bytes)
        .await
}

/// The tag's entries for our platforms, where it has them, must hold our zips.
fn check_ours(
    repository: &RepositoryAddr,
    tag: &Tag,
    held: &HeldIndex,
    ours: &[Ours],
) -> Result<(), PushError> {
    for our in ours {
        match held.zips.get(&our.platform) {
            Some(digest) if *digest != our.zip => {
                return Err(PushFault::Conflict {
                    repository: repository.clone(),
                    tag: tag.to_string(),
                    platform: our.platform.clone(),
                    held: *digest,
                    ours: our.zip,
                }
                .into())
            }
            _ => {}
        }
    }
    Ok(())
}

impl std::ops::AddAssign for Pushed {
    fn add_assign(&mut self, other: Pushed) {
        self.blobs_uploaded += other.blobs_uploaded;
        self.bytes_uploaded += other.bytes_uploaded;
        self.blobs_present += other.blobs_present;
        self.manifests_written += other.manifests_written;
    }
}
