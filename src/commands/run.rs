//! The one driver of the stages, for `lock`, `upgrade`'s relock and `mirror`:
//!
//! ```text
//! Discovery ──▶ load ──▶ (keep) ──▶ resolve ──▶ hash ──▶ write now, or prepare
//!               Root<Loaded>        Plan         Hashes   RootReport (+ the writes)
//!                          └──────▶ install (mirror: the lock files as they are)
//!                      write ──▶ install (lock --mirror: the lock files written)
//! ```
//!
//! The caller discovers (an upgrade reads the scope of its edits from the same
//! discovery), says which loaded roots to keep (changed-files mode, the roots an edit
//! touches) and how the write stage ends: each lock file written as its root is done
//! (`lock`), or every one prepared, to be written with the edited configuration, all
//! or none (`upgrade`). What happens around it (the mirror, the run record, the edits)
//! stays with the command.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use super::settings::Services;
use tfsum_config::edit::Edited;
use tfsum_disk::atomic::Replacement;
use tfsum_disk::provider_dir::ProviderDir;
use tfsum_report::mirror::{MirrorReport, RootProblem};
use tfsum_report::RunReport;
use tfsum_sources::kept::KeptPackages;
use tfsum_sources::oci::publish::OciTarget;
use tfsum_stages::discover::Discovery;
use tfsum_stages::index::IndexedRun;
use tfsum_stages::install::{self, LockedRoot};
use tfsum_stages::load::{self, LoadOptions, Loaded, Loading, Prior};
use tfsum_stages::publish::{self, VersionPush};
use tfsum_stages::root::Root;
use tfsum_stages::warning::Warning;
use tfsum_stages::write::prepared::{prepare, Prepared};
use tfsum_stages::write::{self, RootOutcome, RootReport};
use tfsum_stages::{hash, parallel, resolve};
use tfsum_vocab::addr::Platform;
use tfsum_vocab::lockfile::Flavor;
use tfsum_vocab::progress::Progress;

/// What one run of the pipeline works with.
pub(crate) struct Pipeline<'a> {
    pub services: &'a Services,
    pub options: LoadOptions,
    /// The configuration as an upgrade leaves it; empty for `lock`.
    pub edited: Arc<Edited>,
    /// Choose the newest allowed version even when the locked one still satisfies.
    pub upgrade: bool,
    pub platforms: &'a [Platform],
    /// Nothing said which platforms: `platforms` is this machine's, and a Terraform
    /// Stack also locks `linux_amd64`, where HCP Terraform runs it.
    pub platforms_defaulted: bool,
    pub progress: &'a dyn Progress,
}

/// How the write stage ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    /// Each lock file written as its root is done (with `check`: compared only).
    Write { check: bool },
    /// Every lock file prepared and returned, to be written together with other files.
    Prepare,
}

/// What the pipeline did: every kept root's report, in path order, the lock files still
/// to be written ([`Finish::Prepare`]) and the warnings met on the way.
pub(crate) struct Driven {
    pub roots: Vec<RootReport>,
    pub writes: Vec<Replacement>,
    pub warnings: Vec<Warning>,
}

impl<'a> Pipeline<'a> {
    /// A pipeline over the configuration as it is on disk, keeping the versions locked
    /// while the constraints allow them.
    pub(crate) fn new(
        services: &'a Services,
        options: LoadOptions,
        platforms: &'a [Platform],
        progress: &'a dyn Progress,
    ) -> Pipeline<'a> {
        Pipeline {
            services,
            options,
            edited: Arc::default(),
            upgrade: false,
            platforms,
            platforms_defaulted: false,
            progress,
        }
    }

    /// Runs load, resolve, hash and write over the roots of `discovery` that `keep`
    /// keeps once loaded.
    pub(crate) async fn run(
        &self,
        discovery: Discovery,
        keep: impl FnMut(&Root<Loaded>) -> bool,
        finish: Finish,
    ) -> Driven {
        self.run_indexed(discovery, keep, finish, None).await
    }

    /// [`Pipeline::run`] with the configuration index of a `lock` run
    /// ([`tfsum_stages::index`]): the roots it answers are reported unchanged without
    /// being read, and it learns what the stages read and wrote.
    pub(crate) async fn run_indexed(
        &self,
        discovery: Discovery,
        keep: impl FnMut(&Root<Loaded>) -> bool,
        finish: Finish,
        mut index: Option<&mut IndexedRun>,
    ) -> Driven {
        let services = self.services;
        let (roots, mut warnings, answered) =
            self.load(discovery, keep, index.as_deref_mut()).await;
        let plan = resolve::plan(roots, &services.sources, self.upgrade).await;
        warnings.extend(plan.warnings);
        let stack_platforms = self.stack_platforms(&plan.roots);
        let platforms = stack_platforms.as_deref().unwrap_or(self.platforms);
        let narrow = stack_platforms.as_ref().map(|_| self.platforms);
        let hashes = hash::hash_packages(&services.sources, &plan.packages, platforms).await;
        let (mut roots, writes) = match finish {
            Finish::Write { check } => {
                let reports = write::write(plan.roots, &hashes, narrow, check, self.progress);
                if !check {
                    remove_stale_stack_locks(&mut warnings);
                }
                (reports, Vec::new())
            }
            Finish::Prepare => pending(prepare(plan.roots, &hashes, narrow, self.progress)),
        };
        if let Some(index) = index {
            index.learn_written(&roots);
        }
        if !answered.is_empty() {
            roots.extend(answered);
            roots.sort_by(|a, b| a.dir.cmp(&b.dir));
        }
        Driven {
            roots,
            writes,
            warnings,
        }
    }
}

impl Pipeline<'_> {
    /// The platforms the Terraform Stacks among `roots` lock, when they are more than
    /// the others': with no platform given, `linux_amd64` (HCP Terraform's) beside this
    /// machine's, as `terraform stacks providers-lock` defaults (docs/spec/stacks.md §4).
    fn stack_platforms(&self, roots: &[Root<resolve::Planned>]) -> Option<Vec<Platform>> {
        let hcp = Platform::hcp_terraform();
        let stacks = roots
            .iter()
            .any(|root| root.stage.as_ref().is_ok_and(|p| p.loaded.stack.is_some()));
        if !self.platforms_defaulted || !stacks || self.platforms.contains(&hcp) {
            return None;
        }
        let mut platforms = self.platforms.to_vec();
        platforms.push(hcp);
        platforms.sort();
        Some(platforms)
    }
}

impl Driven {
    /// The run's report: what the pipeline did, the services' counts and the cache
    /// entries they refused.
    pub(crate) fn report(
        self,
        services: &Services,
        check: bool,
        fail_on_write: bool,
        started: Instant,
        mirror: Option<MirrorReport>,
    ) -> RunReport {
        let mut report = RunReport {
            check,
            fail_on_write,
            roots: self.roots,
            warnings: self.warnings,
            stats: services.sources.stats(),
            modules: services.modules.stats(),
            elapsed: started.elapsed(),
            mirror,
        };
        report.warnings.extend(refused_entries(services));
        report
    }
}

impl Pipeline<'_> {
    /// Runs load and install over the roots of `discovery` that `keep` keeps (`tfsum
    /// mirror`): every package their lock files lock, for the pipeline's platforms,
    /// placed in `dir`. A root that does not load, or that has providers but no lock
    /// file, is named in the report; the report's warnings are the run's.
    pub(crate) async fn mirror(
        &self,
        discovery: Discovery,
        keep: impl FnMut(&Root<Loaded>) -> bool,
        dir: Arc<ProviderDir>,
    ) -> MirrorReport {
        let (roots, mut warnings, _) = self.load(discovery, keep, None).await;
        let (locked, problems) = locked_roots(roots);
        let sources = &self.services.sources;
        let filled = install::fill(dir, sources, None, &locked, self.platforms).await;
        let mut report = MirrorReport::of(filled, self.platforms);
        report.run.roots = problems;
        report.opentofu = locked.iter().any(|r| r.lock.flavor == Flavor::OpenTofu);
        warnings.append(&mut report.run.warnings);
        warnings.extend(refused_entries(self.services));
        report.run.warnings = warnings;
        report
    }

    /// Runs load and publish over the roots of `discovery` that `keep` keeps (`tfsum
    /// mirror --layout oci`): every version their lock files lock, for the pipeline's
    /// platforms, pushed to `target`. A root that does not load, or that has providers
    /// but no lock file, is named in the report.
    pub(crate) async fn publish(
        &self,
        discovery: Discovery,
        keep: impl FnMut(&Root<Loaded>) -> bool,
        target: &OciTarget,
    ) -> (Vec<VersionPush>, Vec<(PathBuf, RootProblem)>, Vec<Warning>) {
        let (roots, mut warnings, _) = self.load(discovery, keep, None).await;
        let (locked, problems) = locked_roots(roots);
        let sources = &self.services.sources;
        let staging = publish_staging(self.services);
        let pushed = publish::publish(target, sources, &locked, self.platforms, &staging).await;
        warnings.extend(refused_entries(self.services));
        (pushed, problems, warnings)
    }

    /// `lock --mirror`, after [`Pipeline::run`]: every package the lock files of the
    /// roots that did not fail lock, placed in `dir` (unpacking what the hash stage kept
    /// there).
    pub(crate) async fn mirror_written(
        &self,
        roots: &[RootReport],
        dir: Arc<ProviderDir>,
        kept: Option<Arc<KeptPackages>>,
    ) -> MirrorReport {
        let written = roots
            .iter()
            .filter(|r| !matches!(r.outcome, RootOutcome::Failed(_)))
            .map(|r| r.dir.clone());
        let locked = install::lock_files_of(written);
        let sources = &self.services.sources;
        let filled = install::fill(dir, sources, kept, &locked, self.platforms).await;
        MirrorReport::of(filled, self.platforms)
    }

    /// The load stage over `discovery`, and the roots `keep` keeps; the warnings start
    /// with the services' own. With an index, also the reports of the roots it
    /// answered.
    async fn load(
        &self,
        discovery: Discovery,
        keep: impl FnMut(&Root<Loaded>) -> bool,
        index: Option<&mut IndexedRun>,
    ) -> (Vec<Root<Loaded>>, Vec<Warning>, Vec<RootReport>) {
        let services = self.services;
        let mut warnings = services.warnings.clone();
        let edited = self.edited.clone();
        let prior = index.as_deref().map(|index| index as &dyn Prior);
        let t = std::time::Instant::now();
        let loading =
            load::roots_with(&discovery, &self.options, &services.modules, edited, prior).await;
        tracing::debug!("load stage done in {:?}", t.elapsed());
        let answered = match index {
            Some(index) => {
                index.learn(&loading, &discovery);
                index.up_to_date_reports(&loading.skipped)
            }
            None => Vec::new(),
        };
        parallel::drop_aside(discovery);
        let Loading {
            mut roots,
            warnings: found,
            ..
        } = loading;
        warnings.extend(found);
        roots.retain(keep);
        (roots, warnings, answered)
    }
}

/// Where `mirror --layout oci` stages the zips it fetches: a private directory in the
/// cache (what a killed run left there removed first), else the system's temporary
/// directory.
fn publish_staging(services: &Services) -> PathBuf {
    let relative = std::path::Path::new(tfsum_disk::cache::LAYOUT).join("publish");
    match services.cache.private_dirs(&relative) {
        Ok(Some(dir)) => {
            tfsum_disk::leftovers::sweep_once(&dir);
            dir
        }
        _ => std::env::temp_dir(),
    }
}

/// The lock files of loaded roots, and the roots that give none: a root that did not
/// load, or that has providers but no lock file (Terraform writes none for a
/// configuration without providers).
fn locked_roots(roots: Vec<Root<Loaded>>) -> (Vec<LockedRoot>, Vec<(PathBuf, RootProblem)>) {
    let mut locked = Vec::new();
    let mut problems = Vec::new();
    for root in roots {
        match root.stage {
            Ok(loaded) => match loaded.old {
                Some(old) => locked.push(LockedRoot {
                    lock_path: loaded.lock_path,
                    lock: Arc::new(old.lock),
                }),
                None if loaded.reqs.is_empty() => {}
                None => problems.push((root.dir, RootProblem::NoLockFile)),
            },
            Err(e) => problems.push((root.dir, RootProblem::Root(e))),
        }
    }
    (locked, problems)
}

/// How the caches degraded: one warning for the entries the local cache (provider and
/// module namespaces together) refused, one if it could not be written, and the
/// shared cache's own; and the OCI credentials files skipped, when a registry was used.
pub(crate) fn refused_entries(services: &Services) -> impl Iterator<Item = Warning> {
    let mut health = services.cache.health();
    health.absorb(services.modules.cache_health());
    let shared = services.sources.shared_warnings().into_iter();
    let unwritable = health.unwritable_warning(services.cache.root());
    let oci = services
        .oci
        .as_ref()
        .map(|oci| oci.warnings())
        .unwrap_or_default();
    health
        .refused_warning()
        .into_iter()
        .chain(unwritable)
        .map(Warning::Cache)
        .chain(shared.map(Warning::SharedCache))
        .chain(oci.into_iter().map(Warning::OciCredentials))
}

/// Removes the lock files no unit of their Terragrunt stack generates any more (the load
/// stage names them), and the directories that leaves empty below the stack's
/// `.terragrunt-stack/`; each warning then says it was removed (or why not).
fn remove_stale_stack_locks(warnings: &mut [Warning]) {
    for warning in warnings.iter_mut() {
        let Warning::StaleStackLock { lock, removed, .. } = warning else {
            continue;
        };
        if std::fs::remove_file(&*lock).is_err() {
            continue;
        }
        *removed = true;
        let mut dir = lock.parent().map(std::path::Path::to_path_buf);
        while let Some(current) = dir {
            let is_top = current
                .file_name()
                .is_some_and(|n| n == tfsum_vocab::paths::STACK_DIR_NAME);
            if is_top || std::fs::remove_dir(&current).is_err() {
                break;
            }
            dir = current.parent().map(std::path::Path::to_path_buf);
        }
    }
}

/// The reports of prepared roots, and the lock files of those that succeeded.
fn pending(prepared: Vec<Prepared>) -> (Vec<RootReport>, Vec<Replacement>) {
    let mut reports = Vec::with_capacity(prepared.len());
    let mut writes = Vec::new();
    for Prepared { report, write } in prepared {
        if let (Some(write), RootOutcome::Done { .. }) = (write, &report.outcome) {
            writes.push(Replacement {
                path: write.path,
                contents: write.content.into_bytes(),
                old: write.old,
            });
        }
        reports.push(report);
    }
    (reports, writes)
}
