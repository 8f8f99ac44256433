//! Terraform configuration, as the load stage (`tfsum_stages::load`) reads it: one
//! module directory into a [`Module`] that says which providers it needs and which
//! modules it calls.
//!
//! `tfsum-config` owns the languages: Terraform and OpenTofu modules, module trees, test
//! files, Terragrunt units and stacks, Terraform Stacks, the one expression evaluator
//! and constraint edits in place; it is the only crate that takes the HCL parsers. It
//! uses the package sources' module types, the disk and the vocabulary, and never the
//! network (a remote module reaches it fetched); it knows nothing of stages or
//! commands.
//!
//! The parts:
//!
//! * [`files`] picks the effective file set (the `.tofu`-over-`.tf` rule of spec §10,
//!   primary versus override files);
//! * `hcl` and `json` read one file each, native or JSON syntax, into the same
//!   syntax-neutral `FileContent`;
//! * this file merges the files of a directory the way Terraform's `configs.NewModule`
//!   does (overrides last) and maps provider local names to addresses (spec §3);
//! * [`manifest`] reads `.terraform/modules/modules.json` for remote module calls;
//! * [`test_files`] reads a root's `*.tftest.hcl` files and decides when they count;
//! * [`tree`] walks module trees and decides which directories are roots.
//!
//! tfsum is not a validator: constructs that cannot change which providers are selected
//! are skipped, not checked. Version constraints are kept as raw text
//! ([`RawConstraint`]); parsing them is the resolver's job (spec §4.2).

#![warn(unreachable_pub)]

pub mod early;
pub mod edit;
pub(crate) mod eval;
pub mod files;
mod hcl;
mod json;
pub(crate) mod manifest;
pub mod parsed;
pub mod paths;
mod reqs;
pub mod terragrunt;
pub mod test_files;
pub mod tf_stack;
pub mod tree;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::parsed::ParsedFiles;
use tfsum_disk::walk::Listings;
use tfsum_vocab::addr::{AddrError, ProviderAddr};
use tfsum_vocab::module_source::redacted_source;

pub(crate) use files::{Dialect, FileSet};
pub use hcl::PARSE_STACK;
pub use manifest::{manifest_entry_for_call, read_modules_manifest, ModulesManifest, DATA_DIR};
pub use reqs::{collect, Declared, InvalidConstraint, ProviderReqs};

/// A position in a configuration file, shown as `file:line` (one-based).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub file: Arc<Path>,
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// A version constraint string exactly as written, and where. The resolver parses it and
/// reports syntax errors at `at` (Terraform's "Invalid version constraint", spec §4.2).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RawConstraint {
    pub text: String,
    pub at: Location,
}

/// One `required_providers` entry, after override files were applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRequirement {
    pub local_name: String,
    /// From `source`, or implied from the local name when there is none (spec §3).
    pub addr: ProviderAddr,
    pub version: Option<RawConstraint>,
    pub at: Location,
}

/// A `provider "name" { … }` configuration block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderBlock {
    pub local_name: String,
    pub alias: Option<String>,
    /// The deprecated `version` argument, still honoured as a constraint (spec §4.2).
    pub version: Option<RawConstraint>,
    pub at: Location,
}

/// A `module "name" { source = … }` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleCall {
    pub name: String,
    /// The source string; for a non-literal source (OpenTofu evaluates some expressions
    /// statically) the expression's text as written.
    pub source: String,
    /// False when `source` is an expression rather than a literal string.
    pub literal: bool,
    /// The `version` argument (registry sources only), when it is a literal string.
    pub version: Option<String>,
    /// What early evaluation reads of the call: `source` and `version` when they are
    /// expressions, and the arguments it passes to the module's variables
    /// ([`crate::early`]). Shared: a module's calls are cloned with it.
    pub written: Arc<CallExprs>,
    pub at: Location,
}

/// The expressions of a module call, as written ([`ModuleCall::written`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallExprs {
    /// `source`, when it is not a literal string.
    pub source: Option<WrittenExpr>,
    /// `version`, when it is not a literal string (`version = var.v`, `version = null`).
    pub version: Option<WrittenExpr>,
    /// Every argument that is not a meta-argument, by name: the values of the called
    /// module's variables.
    pub args: CallArgs,
}

/// A module call's arguments by name, kept sorted in a list: most calls have a handful,
/// and a map's smallest node (eleven slots) copied into every root that holds the call
/// cost megabytes over thousands of roots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallArgs(Vec<(String, WrittenExpr)>);

impl CallArgs {
    /// Sets `name` (a later argument of one name replaces the earlier, as in a map).
    pub fn insert(&mut self, name: String, expr: WrittenExpr) {
        match self.0.binary_search_by(|(n, _)| n.as_str().cmp(&name)) {
            Ok(i) => self.0[i].1 = expr,
            Err(i) => self.0.insert(i, (name, expr)),
        }
    }

    pub fn get(&self, name: &str) -> Option<&WrittenExpr> {
        self.0
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| &self.0[i].1)
    }

    /// By name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &WrittenExpr)> {
        self.0.iter().map(|(name, expr)| (name, expr))
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut WrittenExpr> {
        self.0.iter_mut().map(|(_, expr)| expr)
    }
}

impl<'a> IntoIterator for &'a CallArgs {
    type Item = (&'a String, &'a WrittenExpr);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, WrittenExpr)>,
        fn(&'a (String, WrittenExpr)) -> (&'a String, &'a WrittenExpr),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(name, expr)| (name, expr))
    }
}

/// An expression kept as its text, to be evaluated only if it is ever needed (almost
/// none are): parsing it again then costs less than keeping every syntax tree. JSON
/// syntax is kept as the native text that means the same ([`json`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenExpr {
    pub text: Arc<str>,
    pub at: Location,
    /// Where `text` starts in the file (native syntax), so a literal inside it can be
    /// edited in place (`tfsum upgrade`); `None` for text tfsum made (JSON syntax).
    pub offset: Option<usize>,
}

impl WrittenExpr {
    /// The expression, parsed; a syntax error names the file and line.
    pub(crate) fn parse(&self) -> Result<::hcl::Expression, ConfigError> {
        stacker::maybe_grow(PARSE_STACK, 2 * PARSE_STACK, || {
            self.text.parse::<::hcl::Expression>().map_err(|e| {
                ConfigError::invalid(
                    self.at.clone(),
                    format!("cannot read the expression {}: {e}", self.text.trim()),
                )
            })
        })
    }
}

/// A `variable` block, after override files were applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub at: Location,
    pub default: Option<WrittenExpr>,
    pub type_constraint: Option<WrittenExpr>,
    /// `const = true|false` (Terraform 1.15, OpenTofu 1.12); `None` when not written.
    pub constant: Option<bool>,
    pub sensitive: bool,
    pub ephemeral: bool,
    /// `nullable = false` makes a null value take the default.
    pub nullable: bool,
    pub validations: Vec<Validation>,
}

/// A variable's `validation` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    pub condition: WrittenExpr,
    pub error_message: Option<WrittenExpr>,
}

impl ModuleCall {
    /// The directory of a local call (`./…`, `../…` and their Windows spellings, as
    /// Terraform's `addrs.ParseModuleSource` tells them), lexically cleaned; `None` for
    /// any other source.
    pub fn local_dir(&self, caller_dir: &Path) -> Option<PathBuf> {
        (self.literal && tfsum_vocab::module_source::is_local_source(&self.source)).then(|| {
            tfsum_vocab::paths::normalize_path(&caller_dir.join(self.source.replace('\\', "/")))
        })
    }
}

/// One provider that a module needs, with the constraint (if any) one declaration adds.
/// The resolver intersects all constraints of one address (spec §4.2).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Requirement {
    pub addr: ProviderAddr,
    pub constraint: Option<RawConstraint>,
    /// The module directory that declared it, for "which module declared each constraint".
    pub declared_in: PathBuf,
}

/// One loaded module directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub dir: PathBuf,
    /// The files read, primary files first, then override files, each group by name.
    pub files: Vec<PathBuf>,
    /// Sorted by local name. At most one `required_providers` block is allowed among the
    /// primary files; override entries replace whole entries by local name.
    pub required_providers: Vec<ProviderRequirement>,
    pub provider_blocks: Vec<ProviderBlock>,
    /// Local names referenced by provider blocks, by `resource`/`data`/`ephemeral` blocks
    /// (implied from the type or named by the `provider` meta-argument) and by `import`
    /// blocks that generate configuration.
    pub implied_local_names: BTreeSet<String>,
    pub module_calls: Vec<ModuleCall>,
    /// `variable` blocks by name.
    pub variables: BTreeMap<String, Variable>,
    /// `locals` by name.
    pub locals: BTreeMap<String, WrittenExpr>,
    /// A `terraform { backend "…" {} }` or `terraform { cloud {} }` block.
    pub has_backend: bool,
    /// The `required_version` constraints of the `terraform` blocks, as written: all the
    /// primary files' together, unless an override file sets its own (which replace them).
    /// Read only to decide whether test files count ([`test_files::tests_count`]).
    pub required_version: Vec<RawConstraint>,
    /// Every local name above mapped to its provider (required_providers, else implied).
    local_names: BTreeMap<String, ProviderAddr>,
}

impl Module {
    /// The provider a local name stands for in this module
    /// (`Module.ImpliedProviderForUnqualifiedType`), if the name is used here.
    pub fn provider_for_local_name(&self, local_name: &str) -> Option<&ProviderAddr> {
        self.local_names.get(local_name)
    }

    /// What this module contributes to `terraform init`'s provider requirements, following
    /// `Config.addProviderRequirements`: every `required_providers` entry (with its
    /// `version`, if any), every provider block (with its legacy `version`), and every
    /// provider implied by resources, data sources and imports (no constraint).
    ///
    /// Built-in providers (`terraform.io/builtin/terraform`, for `terraform_remote_state`
    /// and `terraform_data`) are **included**; callers drop `!is_lockable()` addresses, as
    /// `providers lock` does (spec §3, §9). An unconstrained entry is only listed when the
    /// module has no other requirement for the same address.
    pub fn requirements(&self) -> Vec<Requirement> {
        let mut out = Vec::new();
        let make = |addr: &ProviderAddr, constraint: Option<&RawConstraint>| Requirement {
            addr: addr.clone(),
            constraint: constraint.cloned(),
            declared_in: self.dir.clone(),
        };
        for rp in &self.required_providers {
            out.push(make(&rp.addr, rp.version.as_ref()));
        }
        for block in &self.provider_blocks {
            if let (Some(addr), Some(version)) = (
                self.local_names.get(&block.local_name),
                block.version.as_ref(),
            ) {
                out.push(make(addr, Some(version)));
            }
        }
        let mut seen: BTreeSet<ProviderAddr> = out.iter().map(|r| r.addr.clone()).collect();
        for name in &self.implied_local_names {
            if let Some(addr) = self.local_names.get(name) {
                if seen.insert(addr.clone()) {
                    out.push(make(addr, None));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// Why a module directory could not be loaded. Every variant names a file (and a line
/// where there is one) so the message is actionable on its own.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: no {} configuration files in this directory{hint}", dir.display(), dialect.extensions())]
    NoConfiguration {
        dir: PathBuf,
        dialect: Dialect,
        hint: String,
    },
    #[error("{}:{line}:{column}: syntax error: {message}", file.display())]
    Syntax {
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{at}: {source}")]
    ProviderSource {
        at: Location,
        #[source]
        source: AddrError,
    },
    #[error("{at}: {message}")]
    Invalid { at: Location, message: String },
    /// A remote module call whose code could not be fetched.
    #[error(
        "{at}: module {name:?} (source {:?}): {error}",
        redacted_source(module_source)
    )]
    RemoteModule {
        at: Location,
        name: String,
        module_source: String,
        error: Box<tfsum_sources::modules::ModuleError>,
    },
    /// A module call's `source` or `version` expression that cannot be evaluated as
    /// `init` would evaluate it ([`early`]).
    #[error("{at}: module {name:?}: {argument}: {message}")]
    EarlyEval {
        at: Location,
        name: String,
        argument: early::Argument,
        message: String,
    },
    /// A Terraform Stack's component (or removed block) whose module could not be read.
    #[error(
        "{at}: {label} (source {:?}): {source}",
        redacted_source(module_source)
    )]
    Component {
        at: Location,
        label: String,
        module_source: String,
        #[source]
        source: Box<ConfigError>,
    },
    /// A Terraform Stack's component or embedded stack whose remote source could not be
    /// fetched.
    #[error("{at}: {label} (source {:?}): {error}", redacted_source(module_source))]
    RemoteComponent {
        at: Location,
        label: String,
        module_source: String,
        error: Box<tfsum_sources::modules::ModuleError>,
    },
    /// A module call whose directory could not be loaded; wraps the reason.
    #[error(
        "{at}: module {name:?} (source {:?}): {source}",
        redacted_source(module_source)
    )]
    ModuleCall {
        at: Location,
        name: String,
        module_source: String,
        #[source]
        source: Box<ConfigError>,
    },
}

impl ConfigError {
    pub fn invalid(at: Location, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            at,
            message: message.into(),
        }
    }
}

/// Loads the module in `dir`. `default_host` is the registry for short and implied
/// provider sources; it also selects the dialect: `registry.opentofu.org` means OpenTofu
/// (reads `.tofu` files, spec §10), anything else Terraform (which ignores them).
pub(crate) fn load_module(dir: &Path, default_host: &str) -> Result<Module, ConfigError> {
    load_module_with_overlay(
        dir,
        default_host,
        &[],
        &Listings::default(),
        &ParsedFiles::default(),
    )
}

/// Reads one configuration file's text as [`load_module`] reads each file (native or JSON
/// syntax by the name's extension), without the directory around it: what the fuzzer and
/// the differential test against Terraform's parser (`scripts/hcl-differential.sh`) drive.
pub fn check_file(path: &Path, text: &str, default_host: &str) -> Result<(), ConfigError> {
    if files::is_json(path) {
        json::parse_file(path, text, default_host).map(drop)
    } else {
        hcl::parse_file(path, text, default_host).map(drop)
    }
}

/// A configuration file given in memory, laid over a module directory by
/// [`load_module_with_overlay`].
///
/// Terragrunt runs Terraform in a *working copy* of a unit's source module into which it
/// first copies the unit's own files and then writes the files of its `generate` blocks
/// (see `crate::terragrunt`). tfsum never builds that copy; it describes the extra files
/// with this type instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverlayFile {
    /// The file name inside the module directory, without any directory part.
    pub name: String,
    pub contents: String,
    /// The file messages point at: the real file for a copied one, the Terragrunt
    /// configuration that declared it for a generated one.
    pub origin: PathBuf,
    /// The line of `origin` on which `contents` begins (1 for a whole file; the first line
    /// inside the heredoc for a generated one), so `file:line` points into `origin`.
    pub first_line: usize,
}

/// Loads the module in `dir` as [`load_module`] does, with `overlay` files parsed as if
/// they existed in `dir`. An overlay file whose name matches a file on disk *replaces* it
/// (Terragrunt's copy and `if_exists = "overwrite"` do exactly that; callers resolve the
/// other `if_exists` modes before calling). Overlay names that are not configuration file
/// names (`terraform.tfvars`, `x.yaml`) are ignored, as Terraform ignores such files. The
/// `.tofu`-over-`.tf` rule and the override-file split apply to the union of both sets.
/// The directory's entries come from `listings` when it holds them (a run lists each
/// directory once), and a file whose text was parsed before is taken from `parsed`.
pub(crate) fn load_module_with_overlay(
    dir: &Path,
    default_host: &str,
    overlay: &[OverlayFile],
    listings: &Listings,
    parsed: &ParsedFiles,
) -> Result<Module, ConfigError> {
    let dialect = Dialect::for_registry(default_host);
    let mut names = files::config_file_names_listed(dir, listings)?;
    let overlay: BTreeMap<&str, &OverlayFile> = overlay
        .iter()
        .filter(|f| tfsum_vocab::paths::is_config_file_name(&f.name))
        .map(|f| (f.name.as_str(), f))
        .collect();
    names.extend(overlay.keys().map(|name| name.to_string()));
    let set = FileSet::select(dir, &names, dialect);
    if set.primary.is_empty() && set.overrides.is_empty() {
        let hint = if dialect == Dialect::Terraform && set.skipped_tofu {
            "; its *.tofu files are read only by OpenTofu".to_string()
        } else {
            String::new()
        };
        return Err(ConfigError::NoConfiguration {
            dir: dir.to_path_buf(),
            dialect,
            hint,
        });
    }
    let in_overlay = |path: &PathBuf| {
        path.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| overlay.get(n).copied())
    };
    let parse = |path: &PathBuf| -> Result<FileContent, ConfigError> {
        let (shown, text) = match in_overlay(path) {
            // Blank lines in front keep the parser's line numbers pointing into `origin`.
            Some(file) => (
                file.origin.clone(),
                "\n".repeat(file.first_line.saturating_sub(1)) + &file.contents,
            ),
            None => {
                let text =
                    tfsum_disk::read::read_to_string(path).map_err(|source| ConfigError::Read {
                        path: path.clone(),
                        source,
                    })?;
                (path.clone(), text)
            }
        };
        parsed.parse(&shown, &text, files::is_json(path), default_host)
    };
    let primary = set
        .primary
        .iter()
        .map(parse)
        .collect::<Result<Vec<_>, _>>()?;
    let overrides = set
        .overrides
        .iter()
        .map(parse)
        .collect::<Result<Vec<_>, _>>()?;
    let mut module = merge(dir, primary, overrides, default_host)?;
    module.files = set
        .primary
        .into_iter()
        .chain(set.overrides)
        .map(|path| in_overlay(&path).map_or(path, |file| file.origin.clone()))
        .collect();
    Ok(module)
}

/// Parses one file's text, native or JSON syntax, into the syntax-neutral content.
pub(crate) fn parse_file(
    shown: &Path,
    text: &str,
    is_json: bool,
    default_host: &str,
) -> Result<FileContent, ConfigError> {
    if is_json {
        json::parse_file(shown, text, default_host)
    } else {
        hcl::parse_file(shown, text, default_host)
    }
}

/// The provider-relevant content of one file, before merging. Shared by both syntaxes.
/// Every [`Location`] in it is visited by [`FileContent::each_location`] (a file read
/// again from another path is this content with its locations moved, [`parsed`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct FileContent {
    /// One entry list per `required_providers` block, with the block's location.
    pub required_providers: Vec<(Location, Vec<ProviderRequirement>)>,
    pub provider_blocks: Vec<ProviderBlock>,
    pub resources: Vec<ResourceDecl>,
    pub imports: Vec<ImportDecl>,
    pub module_calls: Vec<ModuleCallDecl>,
    pub variables: Vec<VariableDecl>,
    /// `locals` attributes, by name, in file order.
    pub locals: Vec<(String, WrittenExpr)>,
    /// Locations of `backend` and `cloud` blocks.
    pub backends: Vec<Location>,
    /// Literal `required_version` arguments of `terraform` blocks.
    pub required_version: Vec<RawConstraint>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ResourceMode {
    Managed,
    Data,
    Ephemeral,
    /// Terraform 1.14's `action "TYPE" "NAME"` blocks, which imply their provider as a
    /// resource does (`internal/configs/config.go`, `addProviderRequirements`).
    Action,
}

/// A `resource`, `data`, `ephemeral` or `action` block (data blocks nested in `check`
/// included).
#[derive(Debug, Clone)]
pub(crate) struct ResourceDecl {
    pub mode: ResourceMode,
    pub r#type: String,
    pub name: String,
    /// Local name from the `provider` meta-argument.
    pub provider: Option<String>,
    pub at: Location,
}

/// An `import` block. `target` is the managed resource `(type, name)` it imports into,
/// `None` when the target is inside a child module (that module supplies the provider).
#[derive(Debug, Clone)]
pub(crate) struct ImportDecl {
    pub target: Option<(String, String)>,
    pub provider: Option<String>,
}

/// A `module` block; an override may leave `source` out.
#[derive(Debug, Clone)]
pub(crate) struct ModuleCallDecl {
    pub name: String,
    /// The source's text (an expression's as written) and whether it is a literal.
    pub source: Option<(String, bool)>,
    /// A literal `version`.
    pub version: Option<String>,
    pub written: CallExprs,
    pub at: Location,
}

/// A `variable` block of one file: every argument optional, so that an override file's
/// block says only what it changes (`Module.mergeFile`).
#[derive(Debug, Clone)]
pub(crate) struct VariableDecl {
    pub name: String,
    pub at: Location,
    pub default: Option<WrittenExpr>,
    pub type_constraint: Option<WrittenExpr>,
    pub constant: Option<bool>,
    pub sensitive: Option<bool>,
    pub ephemeral: Option<bool>,
    pub nullable: Option<bool>,
    pub validations: Vec<Validation>,
}

/// Arguments of a `module` block that are not the called module's variables.
pub(crate) const MODULE_META_ARGUMENTS: &[&str] = &[
    "source",
    "version",
    "count",
    "for_each",
    "providers",
    "depends_on",
    "ignore_nested_deprecations",
];

/// Builds a [`ProviderRequirement`]: `source` parsed with the default host, or the address
/// implied by the local name when there is no `source` (spec §3).
pub(crate) fn requirement(
    local_name: &str,
    source: Option<(&str, Location)>,
    version: Option<RawConstraint>,
    at: Location,
    default_host: &str,
) -> Result<ProviderRequirement, ConfigError> {
    let addr = match source {
        Some((source, source_at)) => ProviderAddr::parse(source, default_host)
            .map_err(|e| ConfigError::ProviderSource { at: source_at, source: e })?,
        None => ProviderAddr::implied(local_name, default_host).map_err(|e| {
            ConfigError::invalid(
                at.clone(),
                format!("required_providers entry {local_name:?} has no source and its name is not a valid provider type: {e}"),
            )
        })?,
    };
    Ok(ProviderRequirement {
        local_name: local_name.to_string(),
        addr,
        version,
        at,
    })
}

/// An attribute of a `required_providers` object other than `source`, `version` and
/// `configuration_aliases`: Terraform's "Invalid required_providers object" (a misspelt
/// `version` would otherwise drop the constraint without a word).
pub(crate) fn invalid_entry_key(local_name: &str, key: &str, at: Location) -> ConfigError {
    ConfigError::invalid(
        at,
        format!(
            "invalid required_providers object {local_name:?}: it has {key:?}, but \
             required_providers objects can only contain \"version\", \"source\" and \
             \"configuration_aliases\" attributes; to configure a provider, use a \
             \"provider\" block"
        ),
    )
}

/// The local name a resource type implies: the part before the first `_`
/// (`addrs.Resource.ImpliedProvider`).
pub(crate) fn implied_local_name(resource_type: &str) -> &str {
    resource_type
        .split_once('_')
        .map_or(resource_type, |(prefix, _)| prefix)
}

/// Combines the files of one directory like Terraform's `configs.NewModule`:
///
/// * at most one `required_providers` block among the primary files ("Duplicate required
///   providers configuration");
/// * each override `required_providers` entry replaces the entry with the same local name
///   wholesale (source, version and aliases together), in override-file order;
/// * an override `provider` block merges into the block with the same name and alias
///   (its `version`, when set, replaces the old one); a default (unaliased) one may be new,
///   an aliased one must override an existing block;
/// * an override `resource`/`data` block must match an existing one, and its `provider`
///   argument, when set, replaces the original's;
/// * an override `module` block must match an existing call, and its `source`, when set,
///   replaces the original's;
/// * a backend or cloud block in any file means the module has one.
fn merge(
    dir: &Path,
    primary: Vec<FileContent>,
    overrides: Vec<FileContent>,
    default_host: &str,
) -> Result<Module, ConfigError> {
    let required = merge_required_providers(&primary, &overrides)?;
    let providers = merge_provider_blocks(&primary, &overrides)?;
    let resources = merge_resources(&primary, &overrides)?;
    let calls = merge_module_calls(&primary, &overrides)?;
    let variables = merge_variables(&primary, &overrides)?;
    let locals = merge_locals(&primary, &overrides)?;
    let all_files = || primary.iter().chain(&overrides);

    // Local names used by provider blocks, resources and imports.
    let provider_names: BTreeSet<String> = providers.keys().map(|(n, _)| n.clone()).collect();
    let mut implied: BTreeSet<String> = provider_names.clone();
    implied.extend(resources.values().cloned());
    for import in all_files().flat_map(|f| &f.imports) {
        let Some((ty, name)) = &import.target else {
            continue;
        };
        // An import into a declared resource takes its provider from that resource.
        if resources.contains_key(&(ResourceMode::Managed, ty.clone(), name.clone())) {
            continue;
        }
        implied.insert(
            import
                .provider
                .clone()
                .unwrap_or_else(|| implied_local_name(ty).to_string()),
        );
    }
    let local_names = map_local_names(
        dir,
        &required,
        &providers,
        &implied,
        &provider_names,
        default_host,
    )?;
    implied.retain(|name| local_names.contains_key(name));

    Ok(Module {
        dir: dir.to_path_buf(),
        files: Vec::new(),
        required_providers: required.into_values().collect(),
        provider_blocks: providers.into_values().collect(),
        implied_local_names: implied,
        module_calls: calls.into_values().collect(),
        variables,
        locals,
        has_backend: all_files().any(|f| !f.backends.is_empty()),
        required_version: merge_required_version(&primary, &overrides),
        local_names,
    })
}

/// `required_version` of all primary files together; an override file that sets it
/// replaces the whole list (`Module.mergeFile`), the last such file winning.
fn merge_required_version(
    primary: &[FileContent],
    overrides: &[FileContent],
) -> Vec<RawConstraint> {
    let mut out: Vec<RawConstraint> = primary
        .iter()
        .flat_map(|f| f.required_version.iter().cloned())
        .collect();
    for file in overrides {
        if !file.required_version.is_empty() {
            out = file.required_version.clone();
        }
    }
    out
}

/// At most one `required_providers` block among the primary files; override entries
/// replace whole entries by local name, in override-file order.
fn merge_required_providers(
    primary: &[FileContent],
    overrides: &[FileContent],
) -> Result<BTreeMap<String, ProviderRequirement>, ConfigError> {
    let mut required = BTreeMap::new();
    let mut first_block: Option<&Location> = None;
    for (at, entries) in primary.iter().flat_map(|f| &f.required_providers) {
        if let Some(previous) = first_block {
            return Err(ConfigError::invalid(
                at.clone(),
                format!("duplicate required_providers block; a module may have only one, and it was already declared at {previous}"),
            ));
        }
        first_block = Some(at);
        for entry in entries {
            required.insert(entry.local_name.clone(), entry.clone());
        }
    }
    for (_, entries) in overrides.iter().flat_map(|f| &f.required_providers) {
        for entry in entries {
            required.insert(entry.local_name.clone(), entry.clone());
        }
    }
    Ok(required)
}

/// Provider blocks keyed by (name, alias). An override merges into the block it names
/// (its `version`, when set, wins); a default block may be new, an aliased one may not.
fn merge_provider_blocks(
    primary: &[FileContent],
    overrides: &[FileContent],
) -> Result<BTreeMap<(String, Option<String>), ProviderBlock>, ConfigError> {
    let mut providers: BTreeMap<(String, Option<String>), ProviderBlock> = BTreeMap::new();
    for block in primary.iter().flat_map(|f| &f.provider_blocks) {
        providers
            .entry((block.local_name.clone(), block.alias.clone()))
            .or_insert_with(|| block.clone());
    }
    for block in overrides.iter().flat_map(|f| &f.provider_blocks) {
        let key = (block.local_name.clone(), block.alias.clone());
        match providers.get_mut(&key) {
            Some(existing) => {
                if block.version.is_some() {
                    existing.version = block.version.clone();
                }
            }
            None if block.alias.is_none() => {
                providers.insert(key, block.clone());
            }
            None => {
                return Err(ConfigError::invalid(
                    block.at.clone(),
                    format!(
                    "override for provider {:?} with alias {:?}, but no primary file configures it",
                    block.local_name,
                    block.alias.as_deref().unwrap_or_default()
                ),
                ))
            }
        }
    }
    Ok(providers)
}

/// Resources as (mode, type, name) → provider local name; an override must match an
/// existing resource, and its `provider` argument, when set, wins.
fn merge_resources(
    primary: &[FileContent],
    overrides: &[FileContent],
) -> Result<BTreeMap<(ResourceMode, String, String), String>, ConfigError> {
    let mut resources = BTreeMap::new();
    for r in primary.iter().flat_map(|f| &f.resources) {
        let local = r
            .provider
            .clone()
            .unwrap_or_else(|| implied_local_name(&r.r#type).to_string());
        resources
            .entry((r.mode, r.r#type.clone(), r.name.clone()))
            .or_insert(local);
    }
    for r in overrides.iter().flat_map(|f| &f.resources) {
        let key = (r.mode, r.r#type.clone(), r.name.clone());
        let Some(existing) = resources.get_mut(&key) else {
            let kind = match r.mode {
                ResourceMode::Managed => "resource",
                ResourceMode::Data => "data",
                ResourceMode::Ephemeral => "ephemeral",
                ResourceMode::Action => "action",
            };
            return Err(ConfigError::invalid(
                r.at.clone(),
                format!(
                    "override for {kind} {:?} {:?}, but no primary file declares it",
                    r.r#type, r.name
                ),
            ));
        };
        if let Some(provider) = &r.provider {
            *existing = provider.clone();
        }
    }
    Ok(resources)
}

/// Module calls by name; an override must match an existing call, and its `source` and
/// `version`, when set, win.
fn merge_module_calls(
    primary: &[FileContent],
    overrides: &[FileContent],
) -> Result<BTreeMap<String, ModuleCall>, ConfigError> {
    let mut calls: BTreeMap<String, ModuleCall> = BTreeMap::new();
    for call in primary.iter().flat_map(|f| &f.module_calls) {
        let Some((source, literal)) = &call.source else {
            return Err(ConfigError::invalid(
                call.at.clone(),
                format!("module {:?} has no source argument", call.name),
            ));
        };
        calls
            .entry(call.name.clone())
            .or_insert_with(|| ModuleCall {
                name: call.name.clone(),
                source: source.clone(),
                literal: *literal,
                version: call.version.clone(),
                written: Arc::new(call.written.clone()),
                at: call.at.clone(),
            });
    }
    for call in overrides.iter().flat_map(|f| &f.module_calls) {
        let Some(existing) = calls.get_mut(&call.name) else {
            return Err(ConfigError::invalid(
                call.at.clone(),
                format!(
                    "override for module {:?}, but no primary file calls it",
                    call.name
                ),
            ));
        };
        let written = Arc::make_mut(&mut existing.written);
        if let Some((source, literal)) = &call.source {
            existing.source = source.clone();
            existing.literal = *literal;
            existing.at = call.at.clone();
            written.source = call.written.source.clone();
        }
        if call.version.is_some() || call.written.version.is_some() {
            existing.version = call.version.clone();
            written.version = call.written.version.clone();
        }
        // An override's arguments replace the call's arguments of the same name.
        for (name, arg) in &call.written.args {
            written.args.insert(name.clone(), arg.clone());
        }
    }
    Ok(calls)
}

/// Variables by name: one declaration per name among the primary files ("Duplicate
/// variable declaration"); an override must match a declared variable, and each argument
/// it sets replaces the declaration's (`internal/configs/module_merge.go`, `const`
/// included since Terraform 1.15). Validations are the primary declaration's.
fn merge_variables(
    primary: &[FileContent],
    overrides: &[FileContent],
) -> Result<BTreeMap<String, Variable>, ConfigError> {
    let mut variables: BTreeMap<String, Variable> = BTreeMap::new();
    for decl in primary.iter().flat_map(|f| &f.variables) {
        if let Some(earlier) = variables.get(&decl.name) {
            return Err(ConfigError::invalid(
                decl.at.clone(),
                format!(
                    "duplicate variable declaration: a variable named {:?} was already declared at {}",
                    decl.name, earlier.at
                ),
            ));
        }
        variables.insert(
            decl.name.clone(),
            Variable {
                name: decl.name.clone(),
                at: decl.at.clone(),
                default: decl.default.clone(),
                type_constraint: decl.type_constraint.clone(),
                constant: decl.constant,
                sensitive: decl.sensitive.unwrap_or(false),
                ephemeral: decl.ephemeral.unwrap_or(false),
                nullable: decl.nullable.unwrap_or(true),
                validations: decl.validations.clone(),
            },
        );
    }
    for decl in overrides.iter().flat_map(|f| &f.variables) {
        let Some(variable) = variables.get_mut(&decl.name) else {
            return Err(ConfigError::invalid(
                decl.at.clone(),
                format!(
                    "override for variable {:?}, but no primary file declares it",
                    decl.name
                ),
            ));
        };
        if decl.default.is_some() {
            variable.default = decl.default.clone();
        }
        if decl.type_constraint.is_some() {
            variable.type_constraint = decl.type_constraint.clone();
        }
        if decl.constant.is_some() {
            variable.constant = decl.constant;
        }
        if let Some(sensitive) = decl.sensitive {
            variable.sensitive = sensitive;
        }
        if let Some(ephemeral) = decl.ephemeral {
            variable.ephemeral = ephemeral;
        }
        if let Some(nullable) = decl.nullable {
            variable.nullable = nullable;
        }
    }
    Ok(variables)
}

/// Locals by name: one definition per name among the primary files ("Duplicate local
/// value definition"); an override's replaces it.
fn merge_locals(
    primary: &[FileContent],
    overrides: &[FileContent],
) -> Result<BTreeMap<String, WrittenExpr>, ConfigError> {
    let mut locals: BTreeMap<String, WrittenExpr> = BTreeMap::new();
    for (name, expr) in primary.iter().flat_map(|f| &f.locals) {
        if let Some(earlier) = locals.get(name) {
            return Err(ConfigError::invalid(
                expr.at.clone(),
                format!(
                    "duplicate local value definition: a local value named {name:?} was already defined at {}",
                    earlier.at
                ),
            ));
        }
        locals.insert(name.clone(), expr.clone());
    }
    for (name, expr) in overrides.iter().flat_map(|f| &f.locals) {
        locals.insert(name.clone(), expr.clone());
    }
    Ok(locals)
}

/// Every local name mapped to its provider: `required_providers` first, else the
/// address implied by the name. Terraform rejects provider blocks with invalid names; for
/// resource types it silently skips the implied provider (configs/module.go, #25560).
fn map_local_names(
    dir: &Path,
    required: &BTreeMap<String, ProviderRequirement>,
    providers: &BTreeMap<(String, Option<String>), ProviderBlock>,
    implied: &BTreeSet<String>,
    provider_names: &BTreeSet<String>,
    default_host: &str,
) -> Result<BTreeMap<String, ProviderAddr>, ConfigError> {
    let mut local_names: BTreeMap<String, ProviderAddr> = required
        .iter()
        .map(|(name, rp)| (name.clone(), rp.addr.clone()))
        .collect();
    for name in implied {
        if local_names.contains_key(name) {
            continue;
        }
        match ProviderAddr::implied(name, default_host) {
            Ok(addr) => {
                local_names.insert(name.clone(), addr);
            }
            Err(e) if provider_names.contains(name) => {
                let at = providers
                    .values()
                    .find(|b| &b.local_name == name)
                    .map(|b| b.at.clone())
                    .unwrap_or_else(|| Location {
                        file: dir.to_path_buf().into(),
                        line: 0,
                    });
                return Err(ConfigError::invalid(
                    at,
                    format!("invalid provider name {name:?}: {e}"),
                ));
            }
            Err(_) => {}
        }
    }
    Ok(local_names)
}

/// A syntax error from hcl-edit, where it is (one-based line and column) and what.
pub(crate) struct HclSyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses HCL native syntax as Terraform and Terragrunt files are read: a UTF-8 byte
/// order mark (not HCL) is dropped first, which keeps line numbers intact. Returns the
/// text parsed (without the mark), for line lookups.
pub(crate) fn parse_hcl_body(
    text: &str,
) -> Result<(hcl_edit::structure::Body, &str), HclSyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    hcl_edit::parser::parse_body(text)
        .map(|body| (body, text))
        .map_err(|e| HclSyntaxError {
            line: e.location().line(),
            column: e.location().column(),
            message: e.message().to_string(),
        })
}

#[cfg(test)]
mod tests;
