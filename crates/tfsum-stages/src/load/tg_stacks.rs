//! Terragrunt stacks in the load stage: each `terragrunt.stack.hcl` discovery found is
//! evaluated, with every stack it generates, into the units it generates under its
//! `.terragrunt-stack/`; each unit is then read at its generated directory and locked as
//! a unit of its own.
//!
//! Stacks are evaluated in rounds ([`expand_stacks`]): the remote sources of a round are
//! fetched together (each once), and the stacks that waited on them are evaluated again,
//! until none waits. What each discovered stack came to ([`DiscoveredStack`]: its
//! failures, the units it generates) is settled only at the end, once every stack is
//! known: a stack another stack copies is a template (a catalog's), whose own units and
//! failures do not count, and a stack whose tree evaluated whole also names the lock files
//! under its `.terragrunt-stack/` that no unit of it generates any more.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{edited_texts, Fetches, Loaded};
use crate::discover::Discovery;
use crate::root::{Root, RootError, RootKind};
use crate::warning::Warning;
use tfsum_config::edit::Edited;
use tfsum_config::paths::absolute;
use tfsum_config::terragrunt::stack::{self, Mapping};
use tfsum_config::terragrunt::{self, UnitConfig};
use tfsum_config::tree::Remote;
use tfsum_sources::modules::ModuleFetcher;
use tfsum_vocab::lockfile::LOCK_FILE_NAME;
use tfsum_vocab::paths::{STACK_DIR_NAME, STACK_FILE_NAME};

/// What the Terragrunt stacks of a discovery generate ([`expand_stacks`]).
#[derive(Default)]
pub(super) struct StackUnits {
    /// Each generated unit's directory, and the unit read there.
    pub(super) units: Vec<(PathBuf, Result<UnitConfig, terragrunt::TerragruntError>)>,
    /// A stack that could not be evaluated, at its directory.
    pub(super) failed: Vec<Root<Loaded>>,
    pub(super) warnings: Vec<Warning>,
    /// Local directories that components come from (absolute): templates, not units or
    /// stacks of their own.
    pub(super) sources: BTreeSet<PathBuf>,
}

/// A stack discovery found, and what its tree came to so far.
struct DiscoveredStack {
    dir: PathBuf,
    /// Its tree failed somewhere: which lock files it no longer generates is not known.
    broken: bool,
    /// The units it generates (absolute).
    generated: Vec<PathBuf>,
    /// Its tree's failures, kept until we know it is not some other stack's template.
    failures: Vec<Root<Loaded>>,
}

impl DiscoveredStack {
    fn new(dir: PathBuf) -> DiscoveredStack {
        DiscoveredStack {
            dir,
            broken: false,
            generated: Vec::new(),
            failures: Vec::new(),
        }
    }

    /// Something of its tree failed at `dir` (a stack, or a unit, by `kind`).
    fn fail(&mut self, dir: PathBuf, kind: RootKind, error: RootError) {
        self.broken = true;
        self.failures.push(Root::failed(dir, kind, error));
    }
}

/// A stack waiting to be evaluated: the discovered stack it belongs to (its number in
/// the list of [`DiscoveredStack`]s), and where.
struct PendingStack {
    root: usize,
    site: stack::StackSite,
}

/// A unit a stack generates, to be read once every stack was evaluated.
struct ToRead {
    /// The discovered stack it belongs to.
    root: usize,
    component: stack::Component,
    mappings: Vec<Mapping>,
    defined_by: Vec<PathBuf>,
    generated_by: Vec<terragrunt::WrittenSource>,
    repo_root: PathBuf,
}

/// Evaluates every stack of `discovery`, and every stack they generate, in rounds (module
/// docs). Each generated unit is read at its generated directory.
pub(super) async fn expand_stacks(
    discovery: &Discovery,
    fetcher: &ModuleFetcher,
    edited: &Arc<Edited>,
) -> StackUnits {
    let mut out = StackUnits::default();
    if discovery.stack_dirs.is_empty() {
        return out;
    }
    let mut stacks: Vec<DiscoveredStack> = discovery
        .stack_dirs
        .iter()
        .cloned()
        .map(DiscoveredStack::new)
        .collect();
    let mut pending = sites(&stacks, &mut out);
    let mut fetches = Fetches::default();
    let mut to_read = Vec::new();
    while !pending.is_empty() {
        let mut next = Vec::new();
        for PendingStack { root, site } in pending {
            match expand(root, &mut stacks[root], &site, &fetches, edited, &mut out) {
                Expanded::Waiting => next.push(PendingStack { root, site }),
                Expanded::Done { nested, units } => {
                    next.extend(nested.into_iter().map(|site| PendingStack { root, site }));
                    to_read.extend(units);
                }
            }
        }
        fetches.fetch_wanted(fetcher).await;
        pending = next;
    }
    for read in to_read {
        let unit = read_unit(&read, &stacks[read.root].dir, edited);
        out.units.push((read.component.dir, unit));
    }
    settle(stacks, &mut out);
    out
}

/// Where each discovered stack's evaluation starts. "A component must be either a unit
/// or a stack, not both" (Terragrunt's discovery, `CoexistenceError`): a directory that
/// holds both stands for neither, and fails.
fn sites(stacks: &[DiscoveredStack], out: &mut StackUnits) -> Vec<PendingStack> {
    let mut pending = Vec::new();
    for (root, DiscoveredStack { dir, .. }) in stacks.iter().enumerate() {
        if dir.join(terragrunt::UNIT_FILE_NAME).is_file() {
            out.sources.insert(absolute(dir));
            let error = terragrunt::TerragruntError::Invalid {
                file: dir.join(STACK_FILE_NAME),
                line: 1,
                message: format!(
                    "{} holds both {} and {STACK_FILE_NAME}: a directory is either a unit or a stack, not both",
                    dir.display(),
                    terragrunt::UNIT_FILE_NAME,
                ),
            };
            out.failed
                .push(Root::failed(dir.clone(), RootKind::Stack, error.into()));
            continue;
        }
        pending.push(PendingStack {
            root,
            site: stack::StackSite {
                dir: dir.clone(),
                values: None,
                mappings: Vec::new(),
                chain: Vec::new(),
                values_written: BTreeMap::new(),
                generated_by: Vec::new(),
            },
        });
    }
    pending
}

/// What evaluating one stack site came to.
enum Expanded {
    /// A remote source is not fetched yet: the site is evaluated whole again next round.
    Waiting,
    /// The stacks it generates, to evaluate next round, and the units, to read at the
    /// end.
    Done {
        nested: Vec<stack::StackSite>,
        units: Vec<ToRead>,
    },
}

/// Evaluates the stack at `site`, part of the tree of `stack` (number `root`), with the
/// sources fetched so far; what fails is recorded in `stack`.
fn expand(
    root: usize,
    stack: &mut DiscoveredStack,
    site: &stack::StackSite,
    fetches: &Fetches,
    edited: &Arc<Edited>,
    out: &mut StackUnits,
) -> Expanded {
    let repo_root = terragrunt::find_repo_root(&stack.dir);
    let evaluate = || stack::evaluate_stack(site, &repo_root);
    let components = match terragrunt::with_edited(edited_texts(edited), evaluate) {
        Ok(components) => components,
        Err(e) => {
            stack.fail(site.dir.clone(), RootKind::Stack, e.into());
            return Expanded::Done {
                nested: Vec::new(),
                units: Vec::new(),
            };
        }
    };
    let Some(sources) = component_sources(&components, fetches) else {
        return Expanded::Waiting;
    };
    let mut nested = Vec::new();
    let mut units = Vec::new();
    for (component, source) in components.into_iter().zip(sources) {
        let source = match source {
            Ok(dir) => dir,
            Err(e) => {
                stack.fail(component.dir.clone(), RootKind::Unit, e);
                continue;
            }
        };
        match component.validate(&source) {
            Ok(true) => {}
            // An unchecked copy of a directory that is no unit: nothing to lock.
            Ok(false) => continue,
            Err(e) => {
                stack.fail(component.dir.clone(), RootKind::Stack, e.into());
                continue;
            }
        }
        if matches!(component.source, stack::Source::Local(_)) {
            out.sources.insert(source.clone());
        }
        let mut mappings = site.mappings.clone();
        mappings.push(Mapping {
            generated: absolute(&component.dir),
            source: source.clone(),
        });
        let mut chain = site.chain.clone();
        chain.push(component.file.clone());
        // In the style the stack was found (relative stays relative), as the other
        // module directories of a root are kept.
        let style = |abs: &Path| tfsum_config::paths::in_style_of(abs, &stack.dir);
        let mut generated_by = site.generated_by.clone();
        generated_by.extend(component.written_source().map(|s| s.styled(style)));
        match component.kind {
            stack::Kind::Stack if chain.len() >= stack::MAX_STACK_DEPTH => {
                let error = terragrunt::TerragruntError::Invalid {
                    file: component.file.clone(),
                    line: component.line,
                    message: format!("stacks nest more than {} deep", stack::MAX_STACK_DEPTH),
                };
                stack.fail(component.dir, RootKind::Stack, error.into());
            }
            stack::Kind::Stack => nested.push(stack::StackSite {
                dir: component.dir,
                values: component.values,
                mappings,
                chain,
                values_written: component.values_written,
                generated_by,
            }),
            stack::Kind::Unit => {
                let source_lock = source.join(LOCK_FILE_NAME);
                if source_lock.is_file() {
                    out.warnings.push(Warning::SourceLockFile {
                        stack_file: component.file.clone(),
                        source_lock,
                        unit_dir: component.dir.clone(),
                    });
                }
                stack.generated.push(absolute(&component.dir));
                let mut defined_by: Vec<PathBuf> = chain
                    .iter()
                    .filter_map(|file| file.parent().map(style))
                    .collect();
                defined_by.push(style(&source));
                units.push(ToRead {
                    root,
                    component,
                    mappings,
                    defined_by,
                    generated_by,
                    repo_root: repo_root.clone(),
                });
            }
        }
    }
    Expanded::Done { nested, units }
}

/// Where each component's source is: a local directory, a fetched one, or why it could
/// not be fetched; `None` while one waits for a fetch (it is wanted for the next round).
fn component_sources(
    components: &[stack::Component],
    fetches: &Fetches,
) -> Option<Vec<Result<PathBuf, RootError>>> {
    let mut sources = Vec::new();
    let mut waiting = false;
    for component in components {
        match &component.source {
            stack::Source::Local(dir) => sources.push(Ok(dir.clone())),
            stack::Source::Remote(remote) => {
                match fetches.get(&remote.source, remote.version.as_deref()) {
                    Remote::Fetched(fetched) => sources.push(Ok(fetched.dir)),
                    Remote::Pending => waiting = true,
                    Remote::Failed(error) => sources.push(Err(RootError::UnitSource {
                        unit: component.file.clone(),
                        module_source: component.source_text.clone(),
                        error: Box::new(error),
                    })),
                }
            }
        }
    }
    (!waiting).then_some(sources)
}

/// The unit `read` names, read at its generated directory with the edited files' new
/// text; `stack_dir`: the discovered stack below which its lock file's directories are
/// created.
fn read_unit(
    read: &ToRead,
    stack_dir: &Path,
    edited: &Arc<Edited>,
) -> Result<UnitConfig, terragrunt::TerragruntError> {
    let component = &read.component;
    let load = || {
        terragrunt::load_generated_unit(&component.dir, &read.repo_root, component, &read.mappings)
    };
    terragrunt::with_edited(edited_texts(edited), load).map(|mut unit| {
        unit.defined_by = read.defined_by.clone();
        let own = std::mem::take(&mut unit.sources);
        unit.sources = read.generated_by.iter().cloned().chain(own).collect();
        unit.create_below = Some(absolute(stack_dir));
        edited.apply_to_unit(&mut unit);
        unit
    })
}

/// What each discovered stack came to, once every stack is known. A stack another stack
/// copies is a template (a catalog's stack): nothing of its own is generated from where
/// it is. Every other one reports its failures and, when its tree evaluated whole, the
/// lock files under its `.terragrunt-stack/` that no unit of it generates any more.
fn settle(stacks: Vec<DiscoveredStack>, out: &mut StackUnits) {
    for stack in stacks {
        let DiscoveredStack {
            dir,
            broken,
            generated,
            failures,
        } = stack;
        if out.sources.contains(&absolute(&dir)) {
            out.units
                .retain(|(unit, _)| !unit.starts_with(dir.join(STACK_DIR_NAME)));
            continue;
        }
        out.failed.extend(failures);
        if broken {
            continue;
        }
        let stack_file = dir.join(STACK_FILE_NAME);
        for lock in tfsum_disk::walk::stack_lock_files(&dir) {
            let unit = lock.parent().map(absolute);
            if unit.is_some_and(|unit| !generated.contains(&unit)) {
                out.warnings.push(Warning::StaleStackLock {
                    lock,
                    stack_file: stack_file.clone(),
                    removed: false,
                });
            }
        }
    }
}
