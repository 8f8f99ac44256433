//! Editing version constraints where the configuration declares them, for `tfsum upgrade`
//! (docs/spec/upgrade.md): `required_providers` entries (object and legacy string form),
//! the deprecated `version` of `provider` blocks, module calls' `version` (registry
//! modules) and `?ref=` (git modules), and `required_version`; in `.tf`, `.tofu`,
//! `.tf.json` and `.tofu.json` files. In a Terraform Stack's files (`*.tfcomponent.hcl`,
//! `.tfcomponent.json`, legacy `*.tfstack.*`; docs/spec/stacks.md §2) the top-level
//! `required_providers` entries, and the `source`/`version` of `component`, `removed`
//! and `stack` blocks, which play the part of module calls.
//!
//! Nothing is re-rendered. A [`Scope`] reads each file once, keeping the byte span of every
//! value that holds a constraint (`hcl` for native syntax through hcl-edit, `json` for
//! JSON syntax); [`Scope::sites`] picks the values one [`Subject`] names ([`Site`]), and
//! [`Scope::apply`] replaces exactly their bytes. In a native file the trailing comments
//! of an edited line's run are aligned again where `terraform fmt` had aligned them
//! ([`align`]), so a formatted file stays formatted; nothing else moves.
//!
//! Which values a subject names, and how tfsum differs from tfupdate there, is in
//! docs/spec/upgrade.md §3 and §5 and in docs/upgrade.md ("How tfsum upgrade differs
//! from tfupdate").

mod align;
mod hcl;
mod json;
mod overlay;

pub use overlay::Edited;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use regex::Regex;

use super::files::{self, Dialect, FileSet};
use super::{ConfigError, Location};
use tfsum_vocab::addr::{ProviderAddr, TERRAFORM_REGISTRY};
use tfsum_vocab::hcl_string::{self, Templates};
use tfsum_vocab::module_source::{parse_source_for, ModuleSource};
use tfsum_vocab::paths::{is_config_file_name, normalize_path, stack_file_name};

/// A value in a file: where its bytes are and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub at: Location,
    /// The bytes of the whole value in the file (a string with its quotes).
    pub span: Range<usize>,
    /// The decoded text of a literal string; `None` for anything else (a reference, a
    /// template, `null`, a number).
    pub text: Option<String>,
    /// The value as written, for messages.
    pub written: String,
}

/// What one file says about constraints.
#[derive(Debug, Clone, Default)]
struct Facts {
    entries: Vec<EntryFact>,
    /// `provider "NAME"` blocks and their `version`.
    provider_blocks: Vec<(String, Option<Value>)>,
    module_calls: Vec<CallFact>,
    /// The `required_version` of each `terraform` block that has one.
    required_versions: Vec<Value>,
}

/// A `required_providers` entry.
#[derive(Debug, Clone)]
struct EntryFact {
    local_name: String,
    source: Option<String>,
    /// The legacy string, or the object's `version`.
    version: Option<Value>,
    legacy: bool,
}

/// A `module` block, or a stack's block that sources a module or a stack.
#[derive(Debug, Clone)]
struct CallFact {
    kind: CallKind,
    /// The block's label (a removed block's: its `from` as written).
    name: String,
    at: Location,
    source: Option<Value>,
    version: Option<Value>,
}

/// Which block a [`CallFact`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    Module,
    /// A stack's `component "NAME"`.
    Component,
    /// A stack's `stack "NAME"` (an embedded stack).
    Stack,
    /// A stack's `removed { from = … }`, of a component or an embedded stack.
    Removed,
}

impl CallFact {
    /// How messages name it: `module "vpc"`, `component "pet"`, `removed block (from
    /// component.pet)`, as the stack loader does ([`crate::tf_stack::Component`]).
    fn label(&self) -> String {
        match self.kind {
            CallKind::Module => format!("module {:?}", self.name),
            CallKind::Component => format!("component {:?}", self.name),
            CallKind::Stack => format!("stack {:?}", self.name),
            CallKind::Removed => format!("removed block (from {})", self.name),
        }
    }
}

/// What a file is, for scanning: a module's configuration file, or a stack's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileForm {
    Module,
    /// A Terraform Stack's file: top-level `required_providers`, `component`, `removed`
    /// and `stack` blocks.
    Stack,
}

/// One configuration file as read.
#[derive(Debug, Clone)]
pub struct ScannedFile {
    pub path: PathBuf,
    pub text: String,
    facts: Facts,
}

impl ScannedFile {
    fn is_json(&self) -> bool {
        files::is_json(&self.path)
    }
}

/// A module directory in scope: its files (indexes into [`Scope::files`]), all of them by
/// name, and the registry host short addresses mean there.
#[derive(Debug, Clone)]
struct ScopeDir {
    files: Vec<usize>,
    default_host: &'static str,
}

/// The configuration files an upgrade may edit, each read once.
#[derive(Debug, Default)]
pub struct Scope {
    pub files: Vec<ScannedFile>,
    dirs: BTreeMap<PathBuf, ScopeDir>,
    /// Files already read: canonical path → the path it was read by. A file reached
    /// twice (through a link) is read and edited once.
    seen: BTreeMap<PathBuf, PathBuf>,
    /// The other paths that reached a file already read: path → the path it was read by.
    pub aliases: BTreeMap<PathBuf, PathBuf>,
}

/// What the user asked to move.
#[derive(Debug, Clone)]
pub enum Subject {
    /// `upgrade provider NAME`: a local name (`aws`), or a source address parsed in each
    /// module with its default registry host.
    Provider(ProviderName),
    /// `upgrade module SOURCE`.
    Module(ModuleMatch),
    /// `upgrade terraform` / `upgrade opentofu`: `required_version` in the files that
    /// dialect reads.
    RequiredVersion(Dialect),
}

#[derive(Debug, Clone)]
pub enum ProviderName {
    Local(String),
    Address(String),
}

#[derive(Debug, Clone)]
pub enum ModuleMatch {
    /// A registry address or a git URL: calls of the same package (the same registry
    /// module, the same repository), any `//subdir` unless one is given.
    Source(String),
    /// A regular expression, searched in each source without its `ref` parameter.
    Regex(Regex),
}

/// One value the subject names, that an upgrade may replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub value: Value,
    /// The decoded text of the value (a literal string).
    pub text: String,
    /// The bytes of `text` that are the version: all of it, but the version inside a git
    /// source's `ref` (after any `v` or `refs/tags/`).
    pub slot: Range<usize>,
    pub target: Target,
}

impl Site {
    /// The constraint (or version) the site holds now.
    pub fn current(&self) -> &str {
        &self.text[self.slot.clone()]
    }
}

/// What a [`Site`] constrains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A `required_providers` entry, or a `provider` block's `version` (`block`).
    Provider {
        addr: ProviderAddr,
        local_name: String,
        block: bool,
    },
    /// A registry module call's `version`; `exact` when it takes one version, not a
    /// constraint (a Terragrunt `tfr://` source's `?version=`).
    ModuleVersion {
        call: String,
        module: tfsum_vocab::module_source::RegistryModule,
        exact: bool,
    },
    /// A git module call's `ref`, a version tag.
    ModuleRef {
        call: String,
        git: tfsum_vocab::module_source::GitSource,
    },
    RequiredVersion,
}

impl Target {
    /// What the constraint is on, for reports: a provider address, a module source, or
    /// `terraform`.
    pub fn subject(&self) -> String {
        match self {
            Target::Provider { addr, .. } => addr.to_string(),
            Target::ModuleVersion { module, .. } => module.to_string(),
            Target::ModuleRef { git, .. } => {
                tfsum_vocab::module_source::redacted(&without_ref(&git.url))
            }
            Target::RequiredVersion => "required_version".to_string(),
        }
    }
}

/// A `module` block calling a registry module or a git repository.
#[derive(Debug, Clone)]
pub struct RemoteCall {
    /// The calling module's directory.
    pub dir: PathBuf,
    pub at: Location,
    pub source: ModuleSource,
    /// The `version` constraint of a registry call; the version in a git call's `ref`.
    pub version: Option<String>,
}

/// Something the subject names that tfsum will not edit, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Note {
    pub at: Location,
    pub message: String,
}

/// A file with its values replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditedFile {
    pub path: PathBuf,
    pub old: String,
    pub new: String,
}

impl Scope {
    /// Reads every configuration file directly in `dir` (those `keep` accepts), and the
    /// files of a Terraform Stack there, unless the directory is already in scope.
    /// `default_host` is the registry that short provider and module addresses mean
    /// there; in a stack's directory, `registry.terraform.io` (Stacks run on HCP
    /// Terraform, whose loader reads addresses so: `stackconfig/provider_requirements.go`).
    pub fn add_dir(
        &mut self,
        dir: &Path,
        default_host: &'static str,
        keep: &dyn Fn(&Path) -> bool,
    ) -> Result<(), ConfigError> {
        let dir = normalize_path(dir);
        if self.dirs.contains_key(&dir) {
            return Ok(());
        }
        let names = file_names(&dir)?;
        let default_host = if names.iter().any(|n| stack_file_name(n).is_some()) {
            TERRAFORM_REGISTRY
        } else {
            default_host
        };
        self.dirs.insert(
            dir.clone(),
            ScopeDir {
                files: Vec::new(),
                default_host,
            },
        );
        for name in names {
            let path = dir.join(&name);
            if keep(&path) {
                self.add_file(&path, default_host)?;
            }
        }
        Ok(())
    }

    /// Reads one configuration file (or a stack's file) into scope (its directory joins
    /// the scope with only the files added so far).
    pub fn add_file(&mut self, path: &Path, default_host: &'static str) -> Result<(), ConfigError> {
        let path = normalize_path(path);
        let (form, default_host) = if is_stack_file(&path) {
            (FileForm::Stack, TERRAFORM_REGISTRY)
        } else {
            (FileForm::Module, default_host)
        };
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if let Some(first) = self.seen.get(&canonical) {
            if *first != path {
                self.aliases.insert(path, first.clone());
            }
            return Ok(());
        }
        self.seen.insert(canonical, path.clone());
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let facts = if files::is_json(&path) {
            json::facts(&path, &text, form)?
        } else {
            hcl::facts(&path, &text, form)?
        };
        let dir = path.parent().map(normalize_path).unwrap_or_default();
        let index = self.files.len();
        self.files.push(ScannedFile { path, text, facts });
        self.dirs
            .entry(dir)
            .or_insert(ScopeDir {
                files: Vec::new(),
                default_host,
            })
            .files
            .push(index);
        Ok(())
    }

    /// The directories of the local modules that the modules in scope call (`./…`,
    /// `../…`), normalised, not yet in scope.
    pub fn local_calls(&self) -> Vec<PathBuf> {
        let mut out = BTreeSet::new();
        for (dir, info) in &self.dirs {
            for &i in &info.files {
                for call in &self.files[i].facts.module_calls {
                    let Some(source) = call.source.as_ref().and_then(|v| v.text.as_deref()) else {
                        continue;
                    };
                    if tfsum_vocab::module_source::is_local_source(source) {
                        let target = normalize_path(&dir.join(source.replace('\\', "/")));
                        if !self.dirs.contains_key(&target) {
                            out.insert(target);
                        }
                    }
                }
            }
        }
        out.into_iter().collect()
    }

    /// Every call of a registry or git module in the modules in scope, in file order.
    /// A stack's components are not among them: `outdated` has them from the stack
    /// roots the load stage read (their evaluated calls), which know which roots use them.
    pub fn remote_calls(&self) -> Vec<RemoteCall> {
        let mut out = Vec::new();
        for (dir, info) in &self.dirs {
            for call in info
                .files
                .iter()
                .flat_map(|&i| &self.files[i].facts.module_calls)
                .filter(|call| call.kind == CallKind::Module)
            {
                let Some(written) = call.source.as_ref().and_then(|v| v.text.as_deref()) else {
                    continue;
                };
                let source = match parse_source_for(written, info.default_host) {
                    Ok(source @ (ModuleSource::Registry(_) | ModuleSource::Git(_))) => source,
                    _ => continue,
                };
                let version = match &source {
                    ModuleSource::Git(_) => ref_of(written),
                    _ => call.version.as_ref().and_then(|v| v.text.clone()),
                };
                out.push(RemoteCall {
                    dir: dir.clone(),
                    at: call.at.clone(),
                    source,
                    version,
                });
            }
        }
        out.sort_by(|a, b| a.at.cmp(&b.at));
        out
    }

    /// Whether some module call in scope writes its source or version as an expression,
    /// so that only evaluating it tells what it calls (a stack's blocks take literals
    /// only, and its loader refuses anything else).
    pub fn has_evaluated_calls(&self) -> bool {
        self.files
            .iter()
            .flat_map(|f| &f.facts.module_calls)
            .filter(|call| call.kind == CallKind::Module)
            .any(|call| {
                call.source.as_ref().is_some_and(|v| v.text.is_none())
                    || call.version.as_ref().is_some_and(|v| v.text.is_none())
            })
    }

    /// Adds `path` as a file whose values may be edited though it is not configuration
    /// (a `.tfvars` file holding a module's version), unless it is in scope already: the
    /// path the scope knows it by.
    fn add_plain_file(&mut self, path: &Path) -> Result<PathBuf, ConfigError> {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| normalize_path(path));
        if let Some(known) = self.seen.get(&canonical) {
            return Ok(known.clone());
        }
        let text = tfsum_disk::read::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        self.seen.insert(canonical, path.to_path_buf());
        self.files.push(ScannedFile {
            path: path.to_path_buf(),
            text,
            facts: Facts::default(),
        });
        Ok(path.to_path_buf())
    }

    /// The values `matcher` names among calls whose version comes from a variable or a
    /// local value (`calls`, as the roots evaluated them): the literal each one's version
    /// is written in ([`crate::early::Definition`]), once however many roots
    /// reach it, or a note saying why it is not edited.
    pub fn evaluated_sites(
        &mut self,
        calls: &[crate::tree::EvaluatedCall],
        matcher: &ModuleMatch,
    ) -> (Vec<Site>, Vec<Note>) {
        let mut sites: Vec<Site> = Vec::new();
        let mut notes = Vec::new();
        for call in calls {
            let host = self
                .dirs
                .get(&normalize_path(&call.dir))
                .map_or(tfsum_vocab::addr::TERRAFORM_REGISTRY, |d| d.default_host);
            let Ok(source) = parse_source_for(&call.source, host) else {
                continue;
            };
            if !selects(matcher, host, &call.source, &source) {
                continue;
            }
            let definition = match &call.definition {
                Ok(definition) => definition,
                Err(why) => {
                    notes.push(Note {
                        at: call.at.clone(),
                        message: format!(
                            "{}: its version is evaluated, and not edited: {why}",
                            call.label()
                        ),
                    });
                    continue;
                }
            };
            let Some(span) = definition.span.clone() else {
                notes.push(Note {
                    at: definition.at.clone(),
                    message: format!(
                        "{}: its version is written in {}, which tfsum does not edit (JSON syntax)",
                        call.label(),
                        definition.what
                    ),
                });
                continue;
            };
            let (slot, target) = match source {
                // A Terragrunt `tfr://` source takes one version, in its `?version=`
                // when the literal is the whole source.
                ModuleSource::Registry(module) => (
                    query_slot(&definition.text, "version").unwrap_or(0..definition.text.len()),
                    Target::ModuleVersion {
                        call: call.name.clone(),
                        module,
                        exact: call.unit.is_some(),
                    },
                ),
                ModuleSource::Git(git) => {
                    let slot = if definition.text.contains('?') {
                        ref_slot(&definition.text)
                    } else {
                        bare_ref_slot(&definition.text)
                    };
                    match slot {
                        Some(Ok(slot)) => (
                            slot,
                            Target::ModuleRef {
                                call: call.name.clone(),
                                git,
                            },
                        ),
                        Some(Err(reference)) => {
                            notes.push(Note {
                                at: definition.at.clone(),
                                message: format!("{}: ref {reference:?} ({}) is not a version tag; left as it is", call.label(), definition.what),
                            });
                            continue;
                        }
                        None => continue,
                    }
                }
                _ => continue,
            };
            let same = |s: &Site| {
                s.value.span == span
                    && std::fs::canonicalize(&s.value.at.file).ok()
                        == std::fs::canonicalize(&definition.at.file).ok()
            };
            if sites.iter().any(same) {
                continue;
            }
            let file = match self.add_plain_file(&definition.at.file) {
                Ok(file) => file,
                Err(e) => {
                    notes.push(Note {
                        at: definition.at.clone(),
                        message: format!("{}: {e}", call.label()),
                    });
                    continue;
                }
            };
            sites.push(Site {
                value: Value {
                    at: Location {
                        file: file.into(),
                        line: definition.at.line,
                    },
                    span,
                    text: Some(definition.text.clone()),
                    written: format!("{:?} ({})", definition.text, definition.what),
                },
                text: definition.text.clone(),
                slot,
                target,
            });
        }
        notes.sort();
        notes.dedup();
        (sites, notes)
    }

    /// Every value `subject` names, in file order, and the ones it names but tfsum will
    /// not edit.
    pub fn sites(&self, subject: &Subject) -> (Vec<Site>, Vec<Note>) {
        let mut sites = Vec::new();
        let mut notes = Vec::new();
        for (dir, info) in &self.dirs {
            let mut found = Found {
                sites: &mut sites,
                notes: &mut notes,
            };
            match subject {
                Subject::Provider(name) => self.providers(info, name, &mut found),
                Subject::Module(matcher) => self.modules(info, matcher, &mut found),
                Subject::RequiredVersion(dialect) => {
                    self.required_versions(dir, info, *dialect, &mut found)
                }
            }
        }
        sites.sort_by(|a, b| {
            (&a.value.at, a.value.span.start).cmp(&(&b.value.at, b.value.span.start))
        });
        notes.sort();
        notes.dedup();
        (sites, notes)
    }

    /// `required_providers` entries and `provider` blocks of one directory.
    fn providers(&self, dir: &ScopeDir, name: &ProviderName, found: &mut Found<'_>) {
        let host = dir.default_host;
        let facts = || dir.files.iter().map(|&i| &self.files[i].facts);
        // The address each local name stands for in this module: its `source` where an
        // entry gives one (the first, in file order), else the implied `hashicorp/NAME`.
        let mut sourced: BTreeMap<&str, ProviderAddr> = BTreeMap::new();
        for entry in facts().flat_map(|f| &f.entries) {
            if let Some(addr) = entry
                .source
                .as_deref()
                .and_then(|s| ProviderAddr::parse(s, host).ok())
            {
                sourced.entry(&entry.local_name).or_insert(addr);
            }
        }
        let addr_of = |local: &str, source: Option<&str>| {
            source
                .and_then(|s| ProviderAddr::parse(s, host).ok())
                .or_else(|| sourced.get(local).cloned())
                .or_else(|| ProviderAddr::implied(local, host).ok())
        };
        let wanted = match name {
            ProviderName::Local(_) => None,
            ProviderName::Address(given) => match ProviderAddr::parse(given, host) {
                Ok(addr) => Some(addr),
                Err(_) => return,
            },
        };
        let selected = |local: &str, addr: &Option<ProviderAddr>| match (name, &wanted) {
            (ProviderName::Local(want), _) => local == want,
            (ProviderName::Address(_), Some(want)) => addr.as_ref() == Some(want),
            (ProviderName::Address(_), None) => false,
        };
        for entry in facts().flat_map(|f| &f.entries) {
            let addr = addr_of(&entry.local_name, entry.source.as_deref());
            if !selected(&entry.local_name, &addr) {
                continue;
            }
            let (Some(addr), Some(value)) = (addr, &entry.version) else {
                continue;
            };
            let what = if entry.legacy {
                format!("required_providers entry {:?}", entry.local_name)
            } else {
                format!(
                    "the version of required_providers entry {:?}",
                    entry.local_name
                )
            };
            found.constraint(
                value,
                &what,
                Target::Provider {
                    addr,
                    local_name: entry.local_name.clone(),
                    block: false,
                },
            );
        }
        for (label, version) in facts().flat_map(|f| &f.provider_blocks) {
            let addr = addr_of(label, None);
            let (true, Some(addr), Some(value)) = (selected(label, &addr), addr, version) else {
                continue;
            };
            found.constraint(
                value,
                &format!("the version of provider block {label:?}"),
                Target::Provider {
                    addr,
                    local_name: label.clone(),
                    block: true,
                },
            );
        }
    }

    /// Module calls of one directory whose source `matcher` selects.
    fn modules(&self, dir: &ScopeDir, matcher: &ModuleMatch, found: &mut Found<'_>) {
        let host = dir.default_host;
        for call in dir
            .files
            .iter()
            .flat_map(|&i| &self.files[i].facts.module_calls)
        {
            let Some(source_value) = &call.source else {
                continue;
            };
            let Some(written) = source_value.text.as_deref() else {
                continue;
            };
            let Ok(source) = parse_source_for(written, host) else {
                continue;
            };
            if !selects(matcher, host, written, &source) {
                continue;
            }
            match source {
                ModuleSource::Registry(module) => {
                    if let Some(version) = &call.version {
                        found.constraint(
                            version,
                            &format!("the version of {}", call.label()),
                            Target::ModuleVersion {
                                call: call.name.clone(),
                                module,
                                exact: false,
                            },
                        );
                    }
                }
                ModuleSource::Git(git) => {
                    if let Some(version) = &call.version {
                        found.note(
                            &version.at,
                            format!("{}: a git module takes no version argument (Terraform rejects it); left as it is", call.label()),
                        );
                    }
                    match ref_slot(written) {
                        Some(Ok(slot)) => found.sites.push(Site {
                            value: source_value.clone(),
                            text: written.to_string(),
                            slot,
                            target: Target::ModuleRef {
                                call: call.name.clone(),
                                git,
                            },
                        }),
                        Some(Err(reference)) => found.note(
                            &source_value.at,
                            format!(
                                "{}: ref {reference:?} is not a version tag; left as it is",
                                call.label()
                            ),
                        ),
                        None => {}
                    }
                }
                _ => {}
            }
        }
    }

    /// `required_version` in the files `dialect` reads (Terraform: `.tf`, `.tf.json`;
    /// OpenTofu: `.tofu` and `.tofu.json`, and the `.tf` files they do not replace).
    fn required_versions(
        &self,
        dir: &Path,
        info: &ScopeDir,
        dialect: Dialect,
        found: &mut Found<'_>,
    ) {
        let names: BTreeSet<String> = info
            .files
            .iter()
            .filter_map(|&i| self.files[i].path.file_name())
            .filter_map(|n| n.to_str())
            .map(str::to_string)
            .collect();
        let set = FileSet::select(dir, &names, dialect);
        let read: BTreeSet<&std::ffi::OsStr> = set
            .primary
            .iter()
            .chain(&set.overrides)
            .filter_map(|p| p.file_name())
            .collect();
        for &i in &info.files {
            let file = &self.files[i];
            if !file.path.file_name().is_some_and(|n| read.contains(n)) {
                continue;
            }
            for value in &file.facts.required_versions {
                found.constraint(value, "required_version", Target::RequiredVersion);
            }
        }
    }

    /// The files with `edits` applied: `(site, new version text)`, the new text going
    /// into the site's slot. Files with no edit are not listed.
    pub fn apply(&self, edits: &[(&Site, String)]) -> Vec<EditedFile> {
        let mut per_file: BTreeMap<&Path, Vec<(Range<usize>, String)>> = BTreeMap::new();
        for (site, new) in edits {
            let mut text = site.text.clone();
            text.replace_range(site.slot.clone(), new);
            let file = &*site.value.at.file;
            let literal = if files::is_json(file) {
                serde_json::to_string(&text).unwrap_or_default()
            } else {
                hcl_string::quote(&text, Templates::Literal)
            };
            per_file
                .entry(file)
                .or_default()
                .push((site.value.span.clone(), literal));
        }
        let mut out = Vec::new();
        for file in &self.files {
            let Some(mut edits) = per_file.remove(file.path.as_path()) else {
                continue;
            };
            edits.sort_by_key(|(span, _)| span.start);
            edits.dedup_by_key(|(span, _)| span.start);
            let new = if file.is_json() {
                align::replace_only(&file.text, &edits)
            } else {
                align::replace(&file.text, &edits)
            };
            if new != file.text {
                out.push(EditedFile {
                    path: file.path.clone(),
                    old: file.text.clone(),
                    new,
                });
            }
        }
        out
    }
}

/// Where the matching of one directory puts what it finds.
struct Found<'a> {
    sites: &'a mut Vec<Site>,
    notes: &'a mut Vec<Note>,
}

impl Found<'_> {
    /// A constraint value: a site when it is a non-empty literal string; a note when it
    /// is an expression (Terraform would not accept it anyway, and tfsum cannot know its
    /// value). An empty string is no constraint, and stays so.
    fn constraint(&mut self, value: &Value, what: &str, target: Target) {
        match &value.text {
            Some(text) if text.trim().is_empty() => {}
            Some(text) => self.sites.push(Site {
                value: value.clone(),
                text: text.clone(),
                slot: 0..text.len(),
                target,
            }),
            None => self.note(
                &value.at,
                format!(
                    "{what} is {}, not a literal string; tfsum cannot edit it and left it as it is",
                    value.written.trim()
                ),
            ),
        }
    }

    fn note(&mut self, at: &Location, message: String) {
        self.notes.push(Note {
            at: at.clone(),
            message,
        });
    }
}

/// Whether `call` uses the package `wanted` names: the same registry module (host
/// default and case as Terraform compares them) or the same git repository, and the same
/// `//subdir` when `wanted` gives one. A `ref` in `wanted` must be the call's too.
fn same_package(wanted: &ModuleSource, call: &ModuleSource) -> bool {
    let subdir_ok =
        |want: &str, got: &str| want.is_empty() || want.trim_matches('/') == got.trim_matches('/');
    match (wanted, call) {
        (ModuleSource::Registry(w), ModuleSource::Registry(c)) => {
            w.host == c.host
                && w.namespace.eq_ignore_ascii_case(&c.namespace)
                && w.name.eq_ignore_ascii_case(&c.name)
                && w.system.eq_ignore_ascii_case(&c.system)
                && subdir_ok(&w.subdir, &c.subdir)
        }
        (ModuleSource::Git(w), ModuleSource::Git(c)) => {
            w.url == c.url
                && subdir_ok(&w.subdir, &c.subdir)
                && (w.reference.is_none() || w.reference == c.reference)
        }
        _ => false,
    }
}

/// A module source as written without its `ref` query parameter (what `--match regex`
/// searches, and how a repository is named in reports).
pub(crate) fn without_ref(source: &str) -> String {
    let Some((base, query)) = source.split_once('?') else {
        return source.to_string();
    };
    let rest: Vec<&str> = query
        .split('&')
        .filter(|p| !p.starts_with("ref="))
        .collect();
    if rest.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", rest.join("&"))
    }
}

/// Where the version is in a git source's `ref` parameter (`?ref=v1.2.3`,
/// `&ref=1.2.3`, `ref=refs/tags/v1.2.3`): `None` when there is no `ref`, `Err` with the
/// ref when it is not a version (a branch, a commit).
fn ref_slot(source: &str) -> Option<Result<Range<usize>, String>> {
    let query_start = source.find('?')? + 1;
    let mut at = query_start;
    for param in source[query_start..].split('&') {
        if let Some(value) = param.strip_prefix("ref=") {
            let value_start = at + "ref=".len();
            let bare = value.strip_prefix("refs/tags/").unwrap_or(value);
            let bare_v = bare.strip_prefix('v').unwrap_or(bare);
            let start = value_start + (value.len() - bare_v.len());
            return Some(if is_version_tag(bare_v) {
                Ok(start..start + bare_v.len())
            } else {
                Err(value.to_string())
            });
        }
        at += param.len() + 1;
    }
    None
}

/// The bytes of the value of query parameter `name` in `source`, if it has one.
fn query_slot(source: &str, name: &str) -> Option<Range<usize>> {
    let query_start = source.find('?')? + 1;
    let mut at = query_start;
    for param in source[query_start..].split('&') {
        if let Some(value) = param.strip_prefix(name).and_then(|p| p.strip_prefix('=')) {
            let start = at + name.len() + 1;
            return Some(start..start + value.len());
        }
        at += param.len() + 1;
    }
    None
}

/// Whether `matcher` names the call of `source` (written `written`), in a module whose
/// short registry addresses mean `host`.
fn selects(matcher: &ModuleMatch, host: &str, written: &str, source: &ModuleSource) -> bool {
    match matcher {
        ModuleMatch::Regex(re) => re.is_match(&without_ref(written)),
        ModuleMatch::Source(given) => {
            parse_source_for(given, host).is_ok_and(|want| same_package(&want, source))
        }
    }
}

/// Where the version is in a ref written on its own (`v1.2.3`, `refs/tags/1.2.3`), as
/// [`ref_slot`] finds it in a source.
fn bare_ref_slot(reference: &str) -> Option<Result<Range<usize>, String>> {
    let bare = reference.strip_prefix("refs/tags/").unwrap_or(reference);
    let bare_v = bare.strip_prefix('v').unwrap_or(bare);
    let start = reference.len() - bare_v.len();
    Some(if is_version_tag(bare_v) {
        Ok(start..reference.len())
    } else {
        Err(reference.to_string())
    })
}

/// The version in a git source's `ref` (as `remote_calls` reads it), if it names one.
pub fn ref_of(source: &str) -> Option<String> {
    match ref_slot(source) {
        Some(Ok(slot)) => Some(source[slot].to_string()),
        _ => None,
    }
}

/// `1.2.3`, `1.2`, `1`, `1.3.0-rc.1`, `1.0.0+build`: a version as tags spell one.
pub fn is_version_tag(text: &str) -> bool {
    let core = text.split(['-', '+']).next().unwrap_or("");
    !core.is_empty()
        && core.split('.').count() <= 3
        && core
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()))
}

/// The files directly in `dir` an upgrade reads, in one listing: its configuration
/// files, then a stack's files as Terraform reads them, the current names
/// (`*.tfcomponent.*`) when there is one, else the legacy `*.tfstack.*` (Terraform 1.13
/// reads those, 1.14 ignores them; a mix is the stack loader's error to report).
fn file_names(dir: &Path) -> Result<Vec<String>, ConfigError> {
    let listings = tfsum_disk::walk::Listings::default();
    let names = files::file_names(dir, &listings, |name| {
        is_config_file_name(name) || stack_file_name(name).is_some()
    })?;
    let (stack, mut out): (Vec<String>, Vec<String>) = names
        .into_iter()
        .partition(|name| stack_file_name(name).is_some());
    let current = stack
        .iter()
        .any(|name| stack_file_name(name).is_some_and(|kind| !kind.legacy));
    out.extend(
        stack
            .into_iter()
            .filter(|name| stack_file_name(name).is_some_and(|kind| kind.legacy != current)),
    );
    Ok(out)
}

/// Whether `path` is a Terraform Stack's file (`*.tfcomponent.hcl`, …): a version
/// written there is in an upgrade's scope, which reads stack files itself.
pub fn is_stack_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| stack_file_name(n).is_some())
}

/// Whether `path` names a file tfsum may edit: a configuration file or a stack's file,
/// not under `.terraform/` (downloaded modules) or any other place Terraform installs
/// into.
pub fn is_editable(path: &Path) -> bool {
    let name_ok = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| is_config_file_name(n) || stack_file_name(n).is_some());
    name_ok
        && !path
            .components()
            .any(|c| c.as_os_str() == ".terraform" || c.as_os_str() == ".terragrunt-cache")
}

#[cfg(test)]
mod tests;
