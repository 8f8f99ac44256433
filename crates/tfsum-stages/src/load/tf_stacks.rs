//! Terraform Stacks (HCP Terraform) in the load stage: each stack directory becomes one
//! root whose lock file holds its `required_providers` and those of the stacks it
//! embeds, in the form `terraform stacks providers-lock` writes (docs/spec/stacks.md);
//! the modules its components source are read for HCP Terraform's checks, and are no
//! roots of their own.
//!
//! [`TfStacks::find`] reads every discovered stack once, before root detection, for what
//! it needs: which directories are stacks and which modules their components source.
//! [`TfStacks::load`] then evaluates each stack root in rounds, as module trees are
//! walked: what it embeds and what its components source, local or fetched (each
//! package once per round, for every stack at once), and each component's module tree,
//! until nothing waits.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

mod calls;

use super::{read_listed_lock, Fetches, Loaded, Loader, OldLock, Reader, StackLoaded};
use crate::discover::Discovery;
use crate::parallel;
use crate::root::{Root, RootError, RootKind};
use crate::warning::Warning;
use tfsum_config::early::{RootInputs, Rules, ValueInputs};
use tfsum_config::edit::Edited;
use tfsum_config::tf_stack::{self, Component, SourceArg, StackConfig, MAX_STACK_NESTING};
use tfsum_config::tree::{self, ModuleReader, Remote};
use tfsum_config::{self as config, ConfigError, Location, Requirement};
use tfsum_disk::walk::Listings;
use tfsum_sources::modules::ModuleFetcher;
use tfsum_vocab::addr::TERRAFORM_REGISTRY;
use tfsum_vocab::lockfile::{self, Flavor, LOCK_FILE_NAME};
use tfsum_vocab::paths::{normalize_path, stack_file_name};

pub(super) use crate::warning::ModuleConstraint;

/// The Terraform Stacks of a discovery, as root detection needs them.
#[derive(Default)]
pub(super) struct TfStacks {
    /// The stacks that get a lock file: every discovered stack but those another one
    /// embeds from a local directory without keeping a lock file of their own.
    roots: Vec<PathBuf>,
    /// Every discovered stack directory (normalised): no module root, whatever `.tf`
    /// files it holds.
    dirs: BTreeSet<PathBuf>,
    /// The directories that components, removed blocks and embedded stacks source
    /// locally (normalised), each with the block that names it first: modules, never
    /// roots.
    sources: BTreeMap<PathBuf, Location>,
}

impl TfStacks {
    /// Reads every stack of `discovery` (a stack that cannot be read is still a root: its
    /// evaluation names the problem).
    pub(super) fn find(discovery: &Discovery, edited: &Edited, listings: &Listings) -> TfStacks {
        let mut found = TfStacks::default();
        if discovery.tf_stack_dirs.is_empty() {
            return found;
        }
        let configs: Vec<(PathBuf, Option<StackConfig>)> = parallel::run(|| {
            discovery
                .tf_stack_dirs
                .par_iter()
                .map(|dir| {
                    (
                        dir.clone(),
                        tf_stack::load_stack(dir, edited, listings).ok(),
                    )
                })
                .collect()
        });
        let mut embedded = BTreeSet::new();
        for (dir, config) in &configs {
            found.dirs.insert(normalize_path(dir));
            let Some(config) = config else {
                // Its evaluation names the problem; meanwhile what it sources is no root.
                let scanned = tree::scan_local_sources(dir, |name| stack_file_name(name).is_some());
                for path in scanned {
                    let at = Location {
                        file: dir.join("*.tfcomponent.hcl").into(),
                        line: 1,
                    };
                    found.sources.entry(path).or_insert(at);
                }
                continue;
            };
            let local = |source: &SourceArg| match source.resolve(&config.dir) {
                Ok(tf_stack::Source::Local(path)) => Some(path),
                _ => None,
            };
            for component in &config.components {
                if let Some(path) = local(&component.source) {
                    found.sources.entry(path).or_insert(component.at.clone());
                }
            }
            for stack in &config.stacks {
                if let Some(path) = local(&stack.source) {
                    embedded.insert(path.clone());
                    found.sources.entry(path).or_insert(stack.at.clone());
                }
            }
        }
        found.roots = configs
            .into_iter()
            .map(|(dir, _)| dir)
            .filter(|dir| {
                !embedded.contains(&normalize_path(dir)) || dir.join(LOCK_FILE_NAME).is_file()
            })
            .collect();
        found
    }

    /// Whether the module directory `dir` can be a root: not a stack, nor a module a
    /// stack sources.
    pub(super) fn may_be_root(&self, dir: &Path) -> bool {
        let dir = normalize_path(dir);
        !self.dirs.contains(&dir) && !self.sources.contains_key(&dir)
    }

    /// What root detection notices on the way: a stack directory that also holds a root
    /// module's files, and a lock file in a directory a stack uses as a module.
    pub(super) fn warnings(&self, discovery: &Discovery) -> Vec<Warning> {
        let mut out = Vec::new();
        for dir in &discovery.dirs {
            let normal = normalize_path(dir);
            if self.dirs.contains(&normal) {
                // Unless those files are the module of one of its components
                // (`source = "./"`), as in many of upstream's own stacks.
                if !self.sources.contains_key(&normal) {
                    out.push(Warning::StackWithModuleFiles { dir: dir.clone() });
                }
            } else if let Some(at) = self.sources.get(&normal) {
                let lock = dir.join(LOCK_FILE_NAME);
                if lock.is_file() {
                    out.push(Warning::UnusedLockFile {
                        lock,
                        by: at.clone(),
                    });
                }
            }
        }
        out
    }

    /// Every stack root, loaded or failed, with the warnings met.
    pub(super) async fn load(
        self,
        loader: &Loader<'_>,
        fetcher: &ModuleFetcher,
        within: &[PathBuf],
    ) -> (Vec<Root<Loaded>>, Vec<Warning>) {
        let mut roots = Vec::new();
        let mut warnings = Vec::new();
        let mut fetches = Fetches::default();
        let mut waiting = self.roots;
        let values = ValueInputs::default();
        while !waiting.is_empty() {
            let evaluated: Vec<(PathBuf, Evaluated)> = parallel::run(|| {
                waiting
                    .into_par_iter()
                    .map(|dir| {
                        let context = Context {
                            loader,
                            fetches: &fetches,
                            within,
                            values: &values,
                        };
                        let evaluated = context.stack_root(&dir);
                        (dir, evaluated)
                    })
                    .collect()
            });
            let mut still = Vec::new();
            for (dir, evaluated) in evaluated {
                match evaluated {
                    Evaluated::Waiting => still.push(dir),
                    Evaluated::Done(Ok(done)) => {
                        let (loaded, met) = *done;
                        warnings.extend(met);
                        roots.push(Root {
                            dir,
                            kind: RootKind::TerraformStack,
                            stage: Ok(loaded),
                        });
                    }
                    Evaluated::Done(Err(error)) => {
                        roots.push(Root::failed(dir, RootKind::TerraformStack, error))
                    }
                }
            }
            fetches.fetch_wanted(fetcher).await;
            waiting = still;
        }
        (roots, warnings)
    }
}

/// One stack root, evaluated with the packages fetched so far.
enum Evaluated {
    Done(Result<Box<(Loaded, Vec<Warning>)>, RootError>),
    /// A package it needs is not fetched yet.
    Waiting,
}

/// What evaluating a stack reads with.
struct Context<'a> {
    loader: &'a Loader<'a>,
    fetches: &'a Fetches,
    within: &'a [PathBuf],
    /// No variable has a value: Stacks evaluate no module source early.
    values: &'a ValueInputs,
}

/// A stack of the tree, read.
struct Read {
    config: StackConfig,
    /// What its local sources may not leave: the repository, or the fetched package.
    bound: PathBuf,
}

/// A component's module, walked.
struct Walked {
    /// Which stack of the tree declares it, and which of its components it is.
    stack: usize,
    component: usize,
    root: Arc<config::Module>,
    tree: tree::TreeRequirements,
}

/// Where a source leads, as far as is known.
enum Located {
    /// The directory, and what its own local sources may not leave.
    Dir {
        dir: PathBuf,
        bound: PathBuf,
    },
    Pending,
}

impl Context<'_> {
    fn stack_root(&self, dir: &Path) -> Evaluated {
        match self.evaluate(dir) {
            Ok(Some(done)) => Evaluated::Done(Ok(Box::new(done))),
            Ok(None) => Evaluated::Waiting,
            Err(error) => Evaluated::Done(Err(error)),
        }
    }

    /// The stack root `dir`, or `None` while something it needs is not fetched.
    fn evaluate(&self, dir: &Path) -> Result<Option<(Loaded, Vec<Warning>)>, RootError> {
        let (lock_path, bytes) = read_listed_lock(dir, self.within, self.loader.listings)?;
        let read = |b: &[u8]| lockfile::read_noting_form(b, Some(Flavor::Terraform));
        let old = bytes
            .map(|bytes| OldLock::read(dir, bytes, read))
            .transpose()?;
        let mut warnings = Vec::new();
        let Some(stacks) = self.stack_tree(dir, &mut warnings)? else {
            return Ok(None);
        };
        let Some(walked) = self.components(&stacks)? else {
            return Ok(None);
        };
        // The lock file holds every stack's requirements: core checks each stack of the
        // tree against the one file (`stackeval/walk_static.go:40-91`).
        let requirements: Vec<Requirement> = stacks
            .iter()
            .flat_map(|read| {
                read.config.required_providers.iter().map(|r| Requirement {
                    addr: r.addr.clone(),
                    constraint: r.version.clone(),
                    declared_in: read.config.dir.clone(),
                })
            })
            .collect();
        let reqs = config::collect(&requirements).map_err(RootError::Constraint)?;
        let locked = reqs.keys().cloned().collect();
        let mut problems = Vec::new();
        let mut module_constraints = BTreeSet::new();
        let mut modules: BTreeSet<PathBuf> = BTreeSet::new();
        for read in &stacks {
            modules.insert(read.config.dir.clone());
        }
        for walked in &walked {
            let read = &stacks[walked.stack];
            let component = &read.config.components[walked.component];
            problems.extend(tf_stack::check::component(
                &read.config,
                component,
                &walked.root,
                &walked.tree.requirements,
                &locked,
            ));
            modules.insert(walked.root.dir.clone());
            modules.extend(walked.tree.modules.iter().cloned());
            warnings.extend(walked.tree.warnings.iter().cloned().map(Warning::Module));
            for req in &walked.tree.requirements {
                let Some(constraint) = &req.constraint else {
                    continue;
                };
                if reqs.contains_key(&req.addr) {
                    module_constraints.insert(ModuleConstraint {
                        component: component.label(),
                        at: component.at.clone(),
                        provider: req.addr.clone(),
                        constraint: constraint.clone(),
                    });
                }
            }
        }
        let modules: Vec<PathBuf> = modules.into_iter().collect();
        if !problems.is_empty() {
            return Err(RootError::Stack { problems, modules });
        }
        let loaded = Loaded {
            flavor: Flavor::Terraform,
            old,
            reqs,
            modules,
            value_files: Vec::new(),
            evaluated_local: Vec::new(),
            evaluated_calls: calls::remote_components(&stacks),
            lock_path,
            create_below: None,
            self_contained: false,
            stack: Some(Box::new(StackLoaded {
                module_constraints: module_constraints.into_iter().collect(),
            })),
        };
        Ok(Some((loaded, warnings)))
    }

    /// The stack in `dir` and every stack it embeds (`stack` blocks and the stacks
    /// `removed` blocks name), breadth first; `None` while one waits for a fetch.
    fn stack_tree(
        &self,
        dir: &Path,
        warnings: &mut Vec<Warning>,
    ) -> Result<Option<Vec<Read>>, RootError> {
        let mut out: Vec<Read> = Vec::new();
        let mut waiting = false;
        let bound = boundary(dir, self.within);
        // Each stack with the chain of blocks that embedded it.
        let mut queue: Vec<(PathBuf, PathBuf, Vec<Location>)> =
            vec![(dir.to_path_buf(), bound, Vec::new())];
        while let Some((dir, bound, chain)) = queue.pop() {
            let config =
                tf_stack::load_stack(&dir, self.loader.edited.as_ref(), self.loader.listings)?;
            if config.legacy {
                warnings.push(Warning::LegacyStackFiles {
                    dir: dir.clone(),
                    files: config.files.clone(),
                });
            }
            for embedded in &config.stacks {
                if chain.len() + 1 > MAX_STACK_NESTING {
                    let error = ConfigError::invalid(
                        embedded.at.clone(),
                        format!(
                            "stack {:?}: stacks embed one another more than {MAX_STACK_NESTING} deep \
                             (Terraform's limit); the chain: {}",
                            embedded.name,
                            chain.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                        ),
                    );
                    return Err(error.into());
                }
                let label = format!("stack {:?}", embedded.name);
                match self.locate(&embedded.source, &config.dir, &bound, &label)? {
                    Located::Dir { dir, bound } => {
                        let mut chain = chain.clone();
                        chain.push(embedded.at.clone());
                        queue.push((dir, bound, chain));
                    }
                    Located::Pending => waiting = true,
                }
            }
            out.push(Read { config, bound });
        }
        Ok((!waiting).then_some(out))
    }

    /// Every component's module of `stacks`, walked; `None` while one waits for a fetch.
    fn components(&self, stacks: &[Read]) -> Result<Option<Vec<Walked>>, RootError> {
        let mut out = Vec::new();
        let mut waiting = false;
        for (stack, read) in stacks.iter().enumerate() {
            for (index, component) in read.config.components.iter().enumerate() {
                let label = component.label();
                let dir =
                    match self.locate(&component.source, &read.config.dir, &read.bound, &label)? {
                        Located::Dir { dir, .. } => dir,
                        Located::Pending => {
                            waiting = true;
                            continue;
                        }
                    };
                match self.walk(component, &dir)? {
                    Some((root, tree)) => out.push(Walked {
                        stack,
                        component: index,
                        root,
                        tree,
                    }),
                    None => waiting = true,
                }
            }
        }
        Ok((!waiting).then_some(out))
    }

    /// A component's module tree: the module read as a module (no test files, no
    /// early evaluation), its calls followed as `terraform init` follows them.
    fn walk(
        &self,
        component: &Component,
        dir: &Path,
    ) -> Result<Option<(Arc<config::Module>, tree::TreeRequirements)>, RootError> {
        let wrap = |error: ConfigError| {
            RootError::Config(ConfigError::Component {
                at: component.source.at.clone(),
                label: component.label(),
                module_source: component.source.text.clone(),
                source: Box::new(error),
            })
        };
        let mut reader = Reader {
            loader: self.loader,
            remote: self.fetches,
            host: TERRAFORM_REGISTRY,
            // No directory is read as a root with its test files.
            root: PathBuf::new(),
        };
        let inputs = RootInputs::new(Rules::Terraform, dir, self.values);
        let tree = tree::module_tree_requirements(dir, TERRAFORM_REGISTRY, &inputs, &mut reader)
            .map_err(wrap)?;
        if tree.pending > 0 {
            return Ok(None);
        }
        let root = reader.load(&normalize_path(dir)).map_err(wrap)?;
        Ok(Some((root, tree)))
    }

    /// Where `source` (of the stack in `dir`, whose local sources may not leave `bound`)
    /// leads: a local directory, or a package fetched (or still to be).
    fn locate(
        &self,
        source: &SourceArg,
        dir: &Path,
        bound: &Path,
        label: &str,
    ) -> Result<Located, RootError> {
        match source.resolve(dir)? {
            tf_stack::Source::Local(path) => {
                let inside = config::paths::absolute(&path).starts_with(bound);
                if !inside {
                    return Err(ConfigError::invalid(
                        source.at.clone(),
                        format!(
                            "{label}: source {:?} leads out of {} to {}; a stack's local sources \
                             stay inside its repository (or the package it came in)",
                            source.text,
                            bound.display(),
                            path.display()
                        ),
                    )
                    .into());
                }
                Ok(Located::Dir {
                    dir: path,
                    bound: bound.to_path_buf(),
                })
            }
            tf_stack::Source::Remote {
                source: remote,
                version,
            } => match self.fetches.get(&remote, version.as_deref()) {
                Remote::Fetched(fetched) => Ok(Located::Dir {
                    dir: fetched.dir,
                    bound: fetched.package_root,
                }),
                Remote::Pending => Ok(Located::Pending),
                Remote::Failed(error) => Err(RootError::Config(ConfigError::RemoteComponent {
                    at: source.at.clone(),
                    label: label.to_string(),
                    module_source: source.text.clone(),
                    error: Box::new(error),
                })),
            },
        }
    }
}

/// What a stack's local sources may not leave: its repository (the nearest directory
/// holding `.git`), else the searched tree holding it, else its own directory; absolute.
fn boundary(dir: &Path, within: &[PathBuf]) -> PathBuf {
    let absolute = config::paths::absolute(dir);
    if let Some(repository) = tfsum_disk::walk::repository_root(&absolute) {
        return repository;
    }
    let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| absolute.clone());
    within
        .iter()
        .find(|tree| canonical.starts_with(tree))
        .map(|tree| {
            // `within` is canonical; give it in the spelling of `dir`.
            let below = canonical.strip_prefix(tree).unwrap_or(Path::new(""));
            let depth = below.components().count();
            absolute
                .ancestors()
                .nth(depth)
                .map_or_else(|| absolute.clone(), Path::to_path_buf)
        })
        .unwrap_or(absolute)
}
