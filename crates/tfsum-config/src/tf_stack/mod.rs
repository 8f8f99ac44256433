//! Terraform Stacks (HCP Terraform): one stack directory's configuration, as far as its
//! lock file depends on it (docs/spec/stacks.md).
//!
//! A stack is a directory of `*.tfcomponent.hcl` / `*.tfcomponent.json` files (legacy
//! `*.tfstack.*` up to Terraform 1.13), read as one configuration: only that directory,
//! everything else in it ignored (`.tf` files, `*.tfdeploy.hcl`, `.terraform-version`).
//! Its lock file holds the providers of its `required_providers` and of the stacks it
//! embeds; its `component` and `removed` blocks name the modules that run against those
//! providers, and [`check`] holds them to what HCP Terraform checks at plan.
//!
//! The rules cite `internal/stacks/stackconfig/` of hashicorp/terraform at 883c7221
//! (`../shared/research/terraform-stacks.md` has the study); where the closed-source lock
//! writer decides, docs/spec/stacks.md says what tfsum decided and why. This is not
//! Terraform Stacks' validator: what cannot change the lock file is skipped.
//!
//! Not Terragrunt's stacks (`terragrunt.stack.hcl`): those are [`super::terragrunt::stack`].

pub mod check;
mod json;
mod native;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::early::TextOverrides;
use super::{ConfigError, Location, RawConstraint};
use tfsum_disk::walk::{EntryType, Listings};
use tfsum_vocab::addr::{ProviderAddr, TERRAFORM_REGISTRY};
use tfsum_vocab::module_source::{parse_source, ModuleSource};
use tfsum_vocab::paths::{normalize_path, stack_file_name, StackFileName};

/// How deeply `stack` blocks may nest (`stackconfig/config.go`
/// `maxEmbeddedStackNesting`).
pub const MAX_STACK_NESTING: usize = 20;

/// The one built-in provider (`builtin/providers/factories.go:11-17`): every stack may
/// configure it without a `required_providers` entry, and it is never locked.
const BUILTIN_PROVIDER: &str = "terraform";

/// The only language edition a stack file may name (`stackconfig/file.go:18`).
const LANGUAGE_EDITION: &str = "TFStack2023";

/// One stack directory's configuration, its files merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackConfig {
    pub dir: PathBuf,
    /// The files read, by name.
    pub files: Vec<PathBuf>,
    /// Its files have the legacy names (`*.tfstack.hcl`), which Terraform 1.14 and later
    /// ignore.
    pub legacy: bool,
    /// The `required_providers` entries, by local name; the built-in `terraform` provider
    /// included when named.
    pub required_providers: Vec<StackRequirement>,
    /// `provider "TYPE" "NAME"` blocks.
    pub provider_configs: Vec<ProviderConfig>,
    /// `component` blocks, and `removed` blocks whose `from` is a component.
    pub components: Vec<Component>,
    /// `stack` blocks, and `removed` blocks whose `from` is an embedded stack.
    pub stacks: Vec<EmbeddedStack>,
}

/// One `required_providers` entry of a stack: `source` is required (no implied
/// `hashicorp/`), `version` too for an installable provider
/// (`stackconfig/provider_requirements.go:123-172`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackRequirement {
    pub local_name: String,
    pub addr: ProviderAddr,
    /// `None` only for a built-in provider, which may not have one.
    pub version: Option<RawConstraint>,
    pub at: Location,
}

/// `provider "TYPE" "NAME" { … }`: a configuration components are given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    pub local_name: String,
    pub name: String,
    pub at: Location,
}

/// Which block declared a component or an embedded stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// `component "NAME"` or `stack "NAME"`.
    Declared,
    /// `removed { from = … }`: still type-checked against the lock file
    /// (`stackeval/removed_component_config.go:137-143`).
    Removed,
}

/// A `component` block (or a `removed` block of a component): a module that runs with
/// the providers its `providers` map passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    pub kind: BlockKind,
    /// The block's label (a removed block's: its `from` as written).
    pub name: String,
    pub source: SourceArg,
    /// The `providers` map's entries, as written.
    pub providers: Vec<ProviderSlot>,
    pub at: Location,
}

impl Component {
    /// How messages name it: `component "pet"`, `removed block (from component.pet)`.
    pub fn label(&self) -> String {
        match self.kind {
            BlockKind::Declared => format!("component {:?}", self.name),
            BlockKind::Removed => format!("removed block (from {})", self.name),
        }
    }
}

/// A `stack` block (or a `removed` block of one): a stack embedded in this one, whose
/// `required_providers` the one lock file must satisfy as well.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedStack {
    pub kind: BlockKind,
    pub name: String,
    pub source: SourceArg,
    pub at: Location,
}

/// A `source` argument and the `version` beside it: literal strings, read without any
/// variable in scope (`stackconfig/component.go:173-240`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceArg {
    pub text: String,
    pub at: Location,
    pub version: Option<RawConstraint>,
}

/// Where a source argument leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A directory relative to the stack's (normalised; not yet checked against any
    /// boundary).
    Local(PathBuf),
    /// A package to fetch: a registry module (with its `version`), git, an archive.
    Remote {
        source: ModuleSource,
        version: Option<String>,
    },
}

impl SourceArg {
    /// Where the source leads from the stack directory `dir`. Registry sources need a
    /// `version` and other sources may not have one (`component.go:198-236`); a
    /// component-registry address (`HOST/ORG/NAME`, HCP's private registry of stacks)
    /// is refused: tfsum cannot read that registry.
    pub fn resolve(&self, dir: &Path) -> Result<Source, ConfigError> {
        let invalid = |message: String| ConfigError::invalid(self.at.clone(), message);
        if tfsum_vocab::module_source::is_local_source(&self.text) {
            if self.version.is_some() {
                return Err(invalid(format!(
                    "source {:?} is a local path, which takes no version argument",
                    self.text
                )));
            }
            let path = normalize_path(&dir.join(self.text.replace('\\', "/")));
            return Ok(Source::Local(path));
        }
        let parsed = match parse_source(&self.text) {
            Ok(parsed) => parsed,
            Err(_) if is_component_registry(&self.text) => {
                return Err(invalid(format!(
                    "source {:?} is an address in HCP Terraform's private registry of stacks, \
                     which tfsum cannot read; embed the stack by its git or local source",
                    self.text
                )))
            }
            Err(e) => return Err(invalid(format!("invalid source {:?}: {e}", self.text))),
        };
        match (&parsed, &self.version) {
            (ModuleSource::Registry(_), None) => Err(invalid(format!(
                "source {:?} is a registry address, which needs a version argument",
                self.text
            ))),
            (ModuleSource::Registry(_), Some(version)) => Ok(Source::Remote {
                source: parsed,
                version: Some(version.text.clone()),
            }),
            (_, Some(_)) => Err(invalid(format!(
                "source {:?} is not a registry address, so it takes no version argument",
                self.text
            ))),
            (ModuleSource::Directory { .. } | ModuleSource::Unsupported { .. }, None) => {
                Err(invalid(format!(
                    "source {:?}: Terraform Stacks read local paths, registry addresses and \
                     remote packages (git, https) only",
                    self.text
                )))
            }
            (_, None) => Ok(Source::Remote {
                source: parsed,
                version: None,
            }),
        }
    }
}

/// `HOST/ORG/NAME` with a host that has a dot: the address form of HCP Terraform's
/// component registry (`sourceaddrs.ComponentSource`), which no module source matches.
fn is_component_registry(text: &str) -> bool {
    let parts: Vec<&str> = text.split('/').collect();
    parts.len() == 3 && parts[0].contains('.') && parts.iter().all(|p| !p.is_empty())
}

/// One entry of a `providers` map: `random = provider.random.this` or
/// `aws.west = provider.aws.configurations["west"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderSlot {
    /// The module's local name (the key before any `.alias`).
    pub local_name: String,
    pub alias: Option<String>,
    /// `provider.TYPE.…`: the stack's local name of the configuration given; `None` when
    /// the value is anything else (an input variable of a provider type, say), whose
    /// type only evaluation tells.
    pub given: Option<String>,
    pub at: Location,
}

/// The declarations of one file, before merging.
#[derive(Debug, Clone, Default)]
struct StackFile {
    /// Each `required_providers` block: its location and entries.
    required_providers: Vec<(Location, Vec<StackRequirement>)>,
    provider_configs: Vec<ProviderConfig>,
    components: Vec<Component>,
    stacks: Vec<EmbeddedStack>,
}

/// Reads the stack in `dir`: its files listed from `listings` (or the directory), each
/// read with the text `edited` gives it (an upgrade's edits) or its own.
///
/// Errors, each naming a file and line: an entry with a stack file's name that is a
/// directory; legacy and current names mixed; a file that does not parse; two
/// `required_providers` blocks (in one file, as Terraform; in two files too, where
/// Terraform keeps the first and silently drops the other); an entry without `source` or
/// `version`, with another key, or naming a provider twice; a `provider` block whose
/// local name `required_providers` does not declare; two blocks of one name.
pub fn load_stack(
    dir: &Path,
    edited: &dyn TextOverrides,
    listings: &Listings,
) -> Result<StackConfig, ConfigError> {
    let listing = listings.listing(dir).map_err(|source| ConfigError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut names: Vec<(String, StackFileName)> = Vec::new();
    for (name, kind) in listing.entries() {
        let Some(file) = stack_file_name(name) else {
            continue;
        };
        let path = dir.join(name);
        let is_dir = match kind {
            EntryType::Dir => true,
            EntryType::Link => path.is_dir(),
            _ => false,
        };
        if is_dir {
            // "Invalid stack configuration directory" (`stackconfig/stack.go:112-118`).
            return Err(ConfigError::invalid(
                Location {
                    file: path.into(),
                    line: 1,
                },
                "is a directory; every entry named like a stack configuration file must be a file",
            ));
        }
        names.push((name.to_string(), file));
    }
    let legacy: Vec<&str> = names
        .iter()
        .filter(|(_, kind)| kind.legacy)
        .map(|(name, _)| name.as_str())
        .collect();
    let current = names.iter().find(|(_, kind)| !kind.legacy);
    if let (Some(old), Some((new, _))) = (legacy.first(), current) {
        // Terraform 1.13 refused to mix them; 1.14 ignores the legacy names outright.
        return Err(ConfigError::invalid(
            Location {
                file: dir.join(old).into(),
                line: 1,
            },
            format!(
                "the stack mixes legacy *.tfstack.* files ({old}) with *.tfcomponent.* files \
                 ({new}); rename every file to the .tfcomponent.* names"
            ),
        ));
    }
    let mut files = Vec::new();
    let mut merged = StackFile::default();
    for (name, kind) in &names {
        let path = dir.join(name);
        let text = match edited.text_of(&path) {
            Some(text) => text.to_string(),
            None => {
                tfsum_disk::read::read_to_string(&path).map_err(|source| ConfigError::Read {
                    path: path.clone(),
                    source,
                })?
            }
        };
        let file = if kind.json {
            json::parse_file(&path, &text)?
        } else {
            native::parse_file(&path, &text)?
        };
        merged.required_providers.extend(file.required_providers);
        merged.provider_configs.extend(file.provider_configs);
        merged.components.extend(file.components);
        merged.stacks.extend(file.stacks);
        files.push(path);
    }
    let required_providers = merge_requirements(merged.required_providers)?;
    let config = StackConfig {
        dir: dir.to_path_buf(),
        files,
        legacy: !legacy.is_empty(),
        required_providers,
        provider_configs: merged.provider_configs,
        components: merged.components,
        stacks: merged.stacks,
    };
    config.check_names()?;
    Ok(config)
}

/// The one `required_providers` block of a stack, its entries by local name.
fn merge_requirements(
    blocks: Vec<(Location, Vec<StackRequirement>)>,
) -> Result<Vec<StackRequirement>, ConfigError> {
    let mut blocks = blocks.into_iter();
    let Some((first_at, entries)) = blocks.next() else {
        return Ok(Vec::new());
    };
    if let Some((at, _)) = blocks.next() {
        return Err(ConfigError::invalid(
            at,
            format!(
                "a second required_providers block; a stack has one, and the first is at {first_at} \
                 (Terraform keeps the first and ignores this one without a word when they are \
                 in different files)"
            ),
        ));
    }
    let mut by_name: BTreeMap<String, StackRequirement> = BTreeMap::new();
    let mut by_addr: BTreeMap<ProviderAddr, Location> = BTreeMap::new();
    for entry in entries {
        if let Some(existing) = by_name.get(&entry.local_name) {
            return Err(ConfigError::invalid(
                entry.at.clone(),
                format!(
                    "duplicate provider local name {:?}: already declared at {}",
                    entry.local_name, existing.at
                ),
            ));
        }
        if let Some(existing) = by_addr.get(&entry.addr) {
            return Err(ConfigError::invalid(
                entry.at.clone(),
                format!(
                    "{} is already required under another local name at {existing}; a stack \
                     names each provider once",
                    entry.addr
                ),
            ));
        }
        by_addr.insert(entry.addr.clone(), entry.at.clone());
        by_name.insert(entry.local_name.clone(), entry);
    }
    Ok(by_name.into_values().collect())
}

impl StackConfig {
    /// The `required_providers` entry of a local name of this stack.
    pub(crate) fn provider(&self, local_name: &str) -> Option<&StackRequirement> {
        self.required_providers
            .iter()
            .find(|r| r.local_name == local_name)
    }

    /// The provider a local name of this stack stands for: its `required_providers`
    /// entry, or the built-in provider of that name, which every stack has without
    /// naming it (`provider_requirements.go:39-58`).
    pub(crate) fn provider_addr(&self, local_name: &str) -> Option<ProviderAddr> {
        match self.provider(local_name) {
            Some(entry) => Some(entry.addr.clone()),
            None => (local_name == BUILTIN_PROVIDER).then(ProviderAddr::builtin_terraform),
        }
    }

    /// Provider blocks name declared providers (`stackconfig/stack.go:149-164`), and no
    /// two components, embedded stacks or provider configurations share a name
    /// (`declarations.go`).
    fn check_names(&self) -> Result<(), ConfigError> {
        for config in &self.provider_configs {
            if self.provider_addr(&config.local_name).is_none() {
                return Err(ConfigError::invalid(
                    config.at.clone(),
                    format!(
                        "provider {:?} {:?}: the required_providers block declares no local name \
                         {:?}",
                        config.local_name, config.name, config.local_name
                    ),
                ));
            }
        }
        let mut seen: BTreeMap<(&str, &str), &Location> = BTreeMap::new();
        let declared = self
            .components
            .iter()
            .filter(|c| c.kind == BlockKind::Declared)
            .map(|c| (("component", c.name.as_str()), &c.at))
            .chain(
                self.stacks
                    .iter()
                    .filter(|s| s.kind == BlockKind::Declared)
                    .map(|s| (("stack", s.name.as_str()), &s.at)),
            );
        for (key, at) in declared {
            if let Some(first) = seen.insert(key, at) {
                return Err(ConfigError::invalid(
                    at.clone(),
                    format!(
                        "duplicate {} block {:?}: the first is at {first}",
                        key.0, key.1
                    ),
                ));
            }
        }
        let mut configs: BTreeMap<(&str, &str), &Location> = BTreeMap::new();
        for p in &self.provider_configs {
            if let Some(first) = configs.insert((&p.local_name, &p.name), &p.at) {
                return Err(ConfigError::invalid(
                    p.at.clone(),
                    format!(
                        "duplicate provider {:?} {:?} block: the first is at {first}",
                        p.local_name, p.name
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A stack's `required_providers` entry from its parts: `source` and (unless built in)
/// `version` required, no other key (`provider_requirements.go:123-172`).
fn requirement(
    local_name: &str,
    source: Option<(String, Location)>,
    version: Option<RawConstraint>,
    other_keys: &[(String, Location)],
    at: Location,
) -> Result<StackRequirement, ConfigError> {
    if !is_identifier(local_name) {
        return Err(ConfigError::invalid(
            at,
            format!("invalid local name for a provider: {local_name:?}"),
        ));
    }
    let Some((source, source_at)) = source else {
        return Err(ConfigError::invalid(
            at,
            format!(
                "required_providers entry {local_name:?} has no source: every entry of a stack \
                 gives the provider's source address (there is no implied hashicorp/{local_name})"
            ),
        ));
    };
    let addr = ProviderAddr::parse(&source, TERRAFORM_REGISTRY).map_err(|e| {
        ConfigError::ProviderSource {
            at: source_at,
            source: e,
        }
    })?;
    let builtin = !addr.is_lockable();
    if builtin {
        if let Some(version) = version {
            return Err(ConfigError::invalid(
                version.at,
                format!(
                    "required_providers entry {local_name:?}: {addr} is built in to Terraform, so \
                     it takes no version constraint"
                ),
            ));
        }
    } else {
        if let Some((key, key_at)) = other_keys.first() {
            return Err(ConfigError::invalid(
                key_at.clone(),
                format!(
                    "required_providers entry {local_name:?} has {key:?}: a stack's entries take \
                     only source and version"
                ),
            ));
        }
        if version.is_none() {
            return Err(ConfigError::invalid(
                at,
                format!(
                    "required_providers entry {local_name:?} has no version: a stack gives every \
                     installable provider a version constraint"
                ),
            ));
        }
    }
    Ok(StackRequirement {
        local_name: local_name.to_string(),
        addr,
        version,
        at,
    })
}

/// HCL's identifier rule (`hclsyntax.ValidIdentifier`), for local names.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// What a removed block's `from` names: a component or an embedded stack, by the last of
/// its `component.NAME` / `stack.NAME` steps (`stack.a.component.b` is a component of the
/// embedded stack `a`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RemovedTarget {
    Component,
    Stack,
}

/// The target kind of a `from` address written as `component.x`, `stack.a["k"].component.b`
/// and so on: the step names, index steps dropped.
fn removed_target(steps: &[&str]) -> Option<RemovedTarget> {
    steps
        .iter()
        .step_by(2)
        .filter_map(|step| match *step {
            "component" => Some(RemovedTarget::Component),
            "stack" => Some(RemovedTarget::Stack),
            _ => None,
        })
        .next_back()
}
