//! What a run noticed that stopped nothing: [`Warning`], a value with its kind and, where
//! it has one, its location (a file and line, a path, a provider). The stages return
//! them with their results; the report prints each as one line of text, and the JSON
//! report lists them with their kind and location as well.

use std::path::{Path, PathBuf};

use crate::config::tree::TreeWarning;
use crate::disk::cache::CacheWarning;
use crate::disk::walk::DiscoverWarning;
use crate::net::cliconfig::CliConfigWarning;
use crate::net::oci::CredentialsWarning;
use crate::net::shared_store::SharedWarning;
use crate::sources::SourceWarning;
use crate::vocab::addr::ProviderAddr;

/// One warning of a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Warning {
    /// A directory the walk could not search (unreadable, a link loop).
    #[error("{0}")]
    Discover(DiscoverWarning),
    /// Something a module tree's walk could not follow.
    #[error("{0}")]
    Module(TreeWarning),
    /// An entry a filesystem mirror skipped, a `dev_overrides` entry ignored.
    #[error("{0}")]
    Source(SourceWarning),
    /// The registry's own warning about a provider (a deprecation, say).
    #[error("{provider}: the registry says: {message}")]
    Registry {
        provider: ProviderAddr,
        message: String,
    },
    /// A version the registry lists that does not parse; ignored, as Terraform does.
    #[error("{provider}: the registry lists an unparsable version {text:?}; ignored")]
    UnparsableVersion {
        provider: ProviderAddr,
        text: String,
    },
    /// From reading Terraform's CLI configuration.
    #[error("{0}")]
    CliConfig(CliConfigWarning),
    /// The local cache (provider and module entries together) refused entries or could
    /// not be written.
    #[error("{0}")]
    Cache(CacheWarning),
    /// The shared cache was unavailable, refused a write, or held an object that was
    /// not believed; the run went on without it.
    #[error("{0}")]
    SharedCache(SharedWarning),
    /// `--use-cli-config-installation` without a `provider_installation` block.
    #[error("the CLI configuration has no provider_installation block; every provider comes from its registry")]
    NoInstallation,
    /// The configuration index in the cache was damaged, truncated or about something
    /// else: it was not used, and the run rebuilt it (`crate::disk::index`).
    #[error("ignoring the configuration index {}: {reason}; every file was read again and the index rebuilt", file.display())]
    Index { file: PathBuf, reason: String },
    /// The record `--retry-failed` reads could not be saved.
    #[error("cannot save the run record for --retry-failed to {}: {error}", file.display())]
    RunRecord { file: PathBuf, error: String },
    /// The provider directory's JSON indexes could not be written (`--layout packed`).
    #[error("{0}")]
    Mirror(String),
    /// `tfsum upgrade` could not replace its files, so the lock files it reports were
    /// not written either (all or none).
    #[error("the lock files below were not written")]
    NotWritten,
    /// A Terragrunt stack's unit source carries a lock file of its own: `stack generate`
    /// copies it over the one tfsum writes at the generated path.
    #[error(
        "{}: the unit source's {} is copied by `terragrunt stack generate` over the lock file tfsum writes to {}; remove it from the source (the generated path's lock file is the one to commit)",
        stack_file.display(),
        source_lock.display(),
        unit_dir.display()
    )]
    SourceLockFile {
        stack_file: PathBuf,
        source_lock: PathBuf,
        unit_dir: PathBuf,
    },
    /// A lock file under a stack's `.terragrunt-stack/` that no unit of the stack
    /// generates any more (a renamed `path`, a removed block): removed by the write
    /// stage unless `removed` is false (`--check`).
    #[error(
        "{}: no unit of {} is generated there any more; {}",
        lock.display(),
        stack_file.display(),
        if *removed { "removed" } else { "it would be removed" }
    )]
    StaleStackLock {
        lock: PathBuf,
        stack_file: PathBuf,
        removed: bool,
    },
    /// A Docker-style credentials file found by searching that could not be read.
    #[error("{0}")]
    OciCredentials(CredentialsWarning),
}

impl Warning {
    /// About this machine's setup (its CLI configuration) rather than the repository.
    pub(crate) fn is_about_environment(&self) -> bool {
        matches!(
            self,
            Warning::CliConfig(_) | Warning::NoInstallation | Warning::OciCredentials(_)
        )
    }

    /// What kind of warning it is, as the JSON report names it.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Warning::Discover(_) => "directory_skipped",
            Warning::Module(_) => "module",
            Warning::Source(SourceWarning::FsMirrorSkipped { .. }) => "fs_mirror_entry_skipped",
            Warning::Source(SourceWarning::DevOverride { .. }) => "dev_override_ignored",
            Warning::Registry { .. } => "registry",
            Warning::UnparsableVersion { .. } => "unparsable_version",
            Warning::CliConfig(_) => "cli_config",
            Warning::Cache(CacheWarning::Refused { .. }) => "cache_entry_refused",
            Warning::Cache(CacheWarning::Unwritable { .. }) => "cache_unwritable",
            Warning::SharedCache(_) => "shared_cache",
            Warning::NoInstallation => "no_provider_installation",
            Warning::RunRecord { .. } => "run_record",
            Warning::Index { .. } => "index_refused",
            Warning::NotWritten => "not_written",
            Warning::Mirror(_) => "mirror_index",
            Warning::SourceLockFile { .. } => "stack_source_lock_file",
            Warning::StaleStackLock { removed: true, .. } => "stale_stack_lock_removed",
            Warning::StaleStackLock { removed: false, .. } => "stale_stack_lock",
            Warning::OciCredentials(_) => "oci_credentials",
        }
    }

    /// The file or directory it is about, if any.
    pub(crate) fn path(&self) -> Option<&Path> {
        match self {
            Warning::Discover(w) => Some(&w.path),
            Warning::Module(w) => Some(&w.at.file),
            Warning::Source(SourceWarning::FsMirrorSkipped { path, .. }) => Some(path),
            Warning::Source(SourceWarning::DevOverride { file, .. }) => Some(file),
            Warning::RunRecord { file, .. } => Some(file),
            Warning::Index { file, .. } => Some(file),
            Warning::SourceLockFile { source_lock, .. } => Some(source_lock),
            Warning::StaleStackLock { lock, .. } => Some(lock),
            Warning::OciCredentials(w) => Some(&w.file),
            _ => None,
        }
    }

    /// The line of [`Warning::path`] it is about, if it has one.
    pub(crate) fn line(&self) -> Option<usize> {
        match self {
            Warning::Module(w) => Some(w.at.line),
            _ => None,
        }
    }

    /// The provider it is about, if any.
    pub(crate) fn provider(&self) -> Option<&ProviderAddr> {
        match self {
            Warning::Registry { provider, .. } | Warning::UnparsableVersion { provider, .. } => {
                Some(provider)
            }
            _ => None,
        }
    }
}

impl From<SourceWarning> for Warning {
    fn from(warning: SourceWarning) -> Warning {
        Warning::Source(warning)
    }
}
