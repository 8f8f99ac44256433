//! What a run noticed that stopped nothing: [`Warning`], a value with its kind and, where
//! it has one, its location (a file and line, a path, a provider). The stages return
//! them with their results; the report prints each as one line of text, and the JSON
//! report lists them with their kind and location as well.

use std::path::{Path, PathBuf};

use tfsum_config::tree::TreeWarning;
use tfsum_config::{Location, RawConstraint};
use tfsum_disk::cache::CacheWarning;
use tfsum_disk::walk::DiscoverWarning;
use tfsum_net::cliconfig::CliConfigWarning;
use tfsum_net::oci::CredentialsWarning;
use tfsum_net::shared_store::SharedWarning;
use tfsum_sources::SourceWarning;
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::version::Version;

/// One warning of a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Warning {
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
    /// else: it was not used, and the run rebuilt it (`tfsum_disk::index`).
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
    /// A Terraform Stack whose files have the legacy names, which Terraform 1.14 and
    /// later ignore: locked, as Terraform 1.13 reads it.
    #[error(
        "{}: the stack's files have the legacy *.tfstack.* names ({}); Terraform 1.14 and later ignore them, so rename them to *.tfcomponent.* before moving past 1.13",
        dir.display(),
        files.iter().filter_map(|f| f.file_name()).map(|n| n.to_string_lossy()).collect::<Vec<_>>().join(", ")
    )]
    LegacyStackFiles { dir: PathBuf, files: Vec<PathBuf> },
    /// A Terraform Stack's directory that also holds a root module's files: Stacks
    /// ignore them, and `terraform init` there would write its own lock file over the
    /// stack's.
    #[error(
        "{}: a Terraform Stack (*.tfcomponent.hcl) that also holds *.tf files; Stacks ignore them, tfsum locks the stack, and `terraform init` there would overwrite the stack's lock file",
        dir.display()
    )]
    StackWithModuleFiles { dir: PathBuf },
    /// A lock file in a directory a Terraform Stack uses as a component's module (or
    /// embeds as a stack): no tool reads it there. Never removed.
    #[error(
        "{}: not used; the directory is a module of a Terraform Stack ({by}), whose providers are locked in the stack's lock file",
        lock.display()
    )]
    UnusedLockFile { lock: PathBuf, by: Location },
    /// A component's module whose own constraint excludes the version the stack locks:
    /// Stacks do not apply module constraints, so it runs against a provider its author
    /// did not test.
    #[error(
        "{}: {}: the module's constraint {:?} ({}) excludes {} {version}, which the stack locks; Stacks ignore module constraints, so the module runs against a version its author did not test",
        constraint.at,
        constraint.component,
        constraint.constraint.text,
        constraint.constraint.at,
        constraint.provider
    )]
    StackModuleConstraint {
        constraint: ModuleConstraint,
        version: Version,
    },
}

/// A version constraint a module of a Terraform Stack's component declares, which the
/// stack does not apply: checked against the version chosen, for a warning.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ModuleConstraint {
    /// The component's block.
    pub at: Location,
    /// How messages name the component (`component "pet"`).
    pub component: String,
    pub provider: ProviderAddr,
    pub constraint: RawConstraint,
}

impl Warning {
    /// About this machine's setup (its CLI configuration) rather than the repository.
    pub fn is_about_environment(&self) -> bool {
        matches!(
            self,
            Warning::CliConfig(_) | Warning::NoInstallation | Warning::OciCredentials(_)
        )
    }

    /// What kind of warning it is, as the JSON report names it.
    pub fn kind(&self) -> &'static str {
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
            Warning::LegacyStackFiles { .. } => "legacy_stack_files",
            Warning::StackWithModuleFiles { .. } => "stack_with_module_files",
            Warning::UnusedLockFile { .. } => "unused_lock_file",
            Warning::StackModuleConstraint { .. } => "stack_module_constraint",
        }
    }

    /// The file or directory it is about, if any.
    pub fn path(&self) -> Option<&Path> {
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
            Warning::LegacyStackFiles { dir, .. } | Warning::StackWithModuleFiles { dir } => {
                Some(dir)
            }
            Warning::UnusedLockFile { lock, .. } => Some(lock),
            Warning::StackModuleConstraint { constraint, .. } => Some(&constraint.at.file),
            _ => None,
        }
    }

    /// The line of [`Warning::path`] it is about, if it has one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Warning::Module(w) => Some(w.at.line),
            Warning::StackModuleConstraint { constraint, .. } => Some(constraint.at.line),
            _ => None,
        }
    }

    /// The provider it is about, if any.
    pub fn provider(&self) -> Option<&ProviderAddr> {
        match self {
            Warning::Registry { provider, .. } | Warning::UnparsableVersion { provider, .. } => {
                Some(provider)
            }
            Warning::StackModuleConstraint { constraint, .. } => Some(&constraint.provider),
            _ => None,
        }
    }
}

impl From<SourceWarning> for Warning {
    fn from(warning: SourceWarning) -> Warning {
        Warning::Source(warning)
    }
}
