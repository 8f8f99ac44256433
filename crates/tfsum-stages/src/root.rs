//! A root as it moves through the pipeline: [`Root<T>`] carries the stage value `T` it
//! has reached (loaded, planned) or the typed [`RootError`] that stopped it. Each stage consumes the roots of the stage before and
//! passes on the ones that stopped untouched, so the report sees every root once, with
//! the error of the stage that stopped it.

use std::path::PathBuf;

use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::version::Version;

use tfsum_config::terragrunt::TerragruntError;
use tfsum_config::{ConfigError, Declared, InvalidConstraint};
use tfsum_disk::atomic::LinkEscape;
use tfsum_sources::{PackageError, VersionsError};
use tfsum_vocab::lockfile::ReadError;

/// What kind of directory a root is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootKind {
    /// A root module: a directory of Terraform configuration.
    Module,
    /// A Terragrunt unit: a `terragrunt.hcl` whose source module is the configuration.
    Unit,
    /// A Terragrunt stack that could not be evaluated: it stands for the units it would
    /// have generated.
    Stack,
    /// A Terraform Stack (HCP Terraform, `*.tfcomponent.hcl`): its lock file holds its
    /// `required_providers`, in the stacks plugin's form.
    TerraformStack,
}

/// One root at one stage.
#[derive(Debug)]
pub struct Root<T> {
    /// The directory holding the lock file.
    pub dir: PathBuf,
    pub kind: RootKind,
    pub stage: Result<T, RootError>,
}

impl<T> Root<T> {
    /// The next stage: `f` runs only on a root that has not stopped.
    pub(crate) fn then<U>(self, f: impl FnOnce(T) -> Result<U, RootError>) -> Root<U> {
        Root {
            dir: self.dir,
            kind: self.kind,
            stage: self.stage.and_then(f),
        }
    }

    pub(crate) fn failed(dir: PathBuf, kind: RootKind, error: RootError) -> Root<T> {
        Root {
            dir,
            kind,
            stage: Err(error),
        }
    }
}

/// Why a root failed. Each names what the user can act on: the file and line, the
/// provider, version and platform, the URL.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Terragrunt(#[from] TerragruntError),
    /// A unit's remote `terraform.source` could not be fetched.
    #[error("{}: terraform.source {:?}: {error}", unit.display(), tfsum_vocab::module_source::redacted_source(module_source))]
    UnitSource {
        unit: PathBuf,
        module_source: String,
        error: Box<tfsum_sources::modules::ModuleError>,
    },
    /// The existing lock file could not be read or is not a valid lock file.
    #[error("{}: {problem}", path.display())]
    LockFile { path: PathBuf, problem: LockProblem },
    /// A lock file that is a link leading out of the tree.
    #[error(transparent)]
    Link(#[from] LinkEscape),
    /// What HCP Terraform would refuse in a Terraform Stack's components, each naming
    /// the stack's file and line, the component, the module and the provider; with the
    /// module directories the stack's configuration reaches (for changed-files mode: an
    /// edit of a module can be what made it fail).
    #[error("{}", lines(problems))]
    Stack {
        problems: Vec<ConfigError>,
        modules: Vec<PathBuf>,
    },
    /// An invalid version constraint in the configuration.
    #[error(transparent)]
    Constraint(Box<InvalidConstraint>),
    /// No version could be chosen for one or more providers.
    #[error("{}", lines(.0))]
    Selection(Vec<SelectionError>),
    /// One or more packages could not be hashed.
    #[error("{}", lines(.0))]
    Packages(Vec<PackageError>),
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What is wrong with an existing lock file.
#[derive(Debug, thiserror::Error)]
pub enum LockProblem {
    #[error("{0}")]
    Read(#[source] std::io::Error),
    /// Not UTF-8, leftover merge-conflict markers, or not a valid lock file.
    #[error("{0}\n(the lock file was left untouched)")]
    Unreadable(#[source] ReadError),
}

/// Why no version was chosen for one provider.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SelectionError {
    /// Its version list could not be had.
    #[error("{0}")]
    VersionList(VersionsError),
    #[error(transparent)]
    NoMatch(Box<NoMatch>),
}

/// The details of a provider no available version satisfies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", no_match_message(provider, declared, available, locked))]
pub struct NoMatch {
    pub provider: ProviderAddr,
    pub declared: Vec<Declared>,
    pub available: Vec<Version>,
    pub locked: Option<Version>,
}

fn lines<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

fn no_match_message(
    provider: &ProviderAddr,
    declared: &[Declared],
    available: &[Version],
    locked: &Option<Version>,
) -> String {
    let mut msg = format!("no available version of {provider} matches the constraints");
    if declared.is_empty() {
        msg.push_str(" (none declared; prereleases must be requested exactly)");
    }
    for d in declared {
        msg.push_str(&format!(
            "\n  {:?} declared at {}:{}",
            d.text,
            d.file.display(),
            d.line
        ));
    }
    if let Some(v) = locked {
        msg.push_str(&format!("\n  locked version: {v}"));
    }
    if available.is_empty() {
        msg.push_str("\n  the registry lists no versions");
    } else {
        let mut newest: Vec<&Version> = available.iter().collect();
        newest.sort();
        let shown: Vec<String> = newest.iter().rev().take(8).map(|v| v.to_string()).collect();
        msg.push_str(&format!("\n  newest available: {}", shown.join(", ")));
    }
    msg
}
