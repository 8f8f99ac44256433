//! The `upgrade` command: move version constraints across a repository, then relock every
//! root they touch, in one run.
//!
//! ```text
//! discover ─▶ scope ─▶ sites ─▶ new values ─▶ edits (in memory)
//!                                                │
//!        load (edited) ─▶ resolve ─▶ hash ─▶ prepare ─▶ write all, or none
//! ```
//!
//! The configuration layer reads the module directories in scope and finds the values
//! the subject names ([`tfsum_config::edit`]); this file decides the new values (the
//! given constraint, or the newest published version through the run's cache and
//! `--strategy`), checks that a published version satisfies each, and runs the `lock`
//! pipeline over the configuration as edited (the one driver, [`super::run`]: one load,
//! one resolve, one hash stage) for the roots whose module tree holds an edit. Nothing
//! is written until every edit and every relocked root succeeded; then every file is
//! replaced, all or none ([`tfsum_disk::atomic::replace_all`]). [`run`] reads as those
//! phases: [`edit`], [`Relock`], [`write_all`].

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use regex::Regex;

use super::cli::{
    Format, MatchArg, StrategyArg, UpgradeCommand, UpgradeCoreArgs, UpgradeModuleArgs,
    UpgradeOptions, UpgradeProviderArgs,
};
use super::lock::{FatalError, Targets};
use super::run::{Finish, Pipeline};
use super::settings::{Services, UpgradeSettings};
use super::{exit, note, EXIT_FAILED, EXIT_USAGE};
use tfsum_config::edit::{
    is_editable, is_stack_file, is_version_tag, Edited, EditedFile, ModuleMatch, ProviderName,
    Scope, Site, Subject, Target,
};
use tfsum_config::files::Dialect;
use tfsum_config::{ConfigError, Location};
use tfsum_disk::atomic::{link_target, link_trees, replace_all, Replacement};
use tfsum_report::upgrade::{self, ConstraintEdit, UpgradeNote, UpgradeReport};
use tfsum_report::{RunReport, Verbosity};
use tfsum_sources::modules::ModuleError;
use tfsum_sources::VersionsError;
use tfsum_stages::discover::{self, Discovery};
use tfsum_stages::load::{detect_flavor, Loaded};
use tfsum_stages::root::Root;
use tfsum_stages::warning::Warning;
use tfsum_stages::write::LOCK_FILE_NAME;
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::goversion::{select_version, GoConstraints, VersionList};
use tfsum_vocab::lockfile::Flavor;
use tfsum_vocab::paths::{normalize_path, slash_path};
use tfsum_vocab::progress::Progress;
use tfsum_vocab::version::strategy::{rewrite, Strategy};
use tfsum_vocab::version::{newest_allowed, newest_stable, Constraints, Version};

/// What to move, from the command line.
#[derive(Debug)]
pub(crate) struct Request {
    /// The command as written, for the markdown heading.
    pub title: String,
    pub subject: Subject,
    /// `None`: the newest published stable version (`latest`).
    pub constraint: Option<String>,
    pub strategy: Strategy,
    pub no_lock: bool,
}

/// Why an upgrade stopped before writing anything.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UpgradeError {
    #[error(transparent)]
    Fatal(#[from] FatalError),
    /// A bad argument: exit 2.
    #[error("{0}")]
    Usage(String),
    /// A configuration file that cannot be read or parsed.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A constraint that cannot be set where it is declared.
    #[error("{at}: {message}")]
    Site { at: Location, message: String },
    /// A provider's version list that could not be had.
    #[error(transparent)]
    Versions(#[from] VersionsError),
    /// A module's version list, or a git repository's tags, that could not be had.
    #[error("{subject}: {source}")]
    ModuleVersions {
        subject: String,
        #[source]
        source: Box<ModuleError>,
    },
}

impl UpgradeError {
    fn is_usage(&self) -> bool {
        match self {
            UpgradeError::Fatal(e) => e.is_usage(),
            UpgradeError::Usage(_) => true,
            _ => false,
        }
    }
}

/// `tfsum upgrade …`: parses the request, runs it, prints the report; the exit code.
pub(crate) fn main(command: UpgradeCommand, verbosity: Verbosity, logging: bool) -> ExitCode {
    let (request, options, paths) = match request(command) {
        Ok(parts) => parts,
        Err(message) => return exit(EXIT_USAGE, message),
    };
    let layer = |options: &UpgradeOptions, env: &_, cwd: &_| {
        super::settings::upgrade(options, &paths, env, cwd)
    };
    let settings = match super::settings_here(&options, layer) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    tfsum_disk::atomic::set_test_delay(settings.write_delay);
    if !request.no_lock && !settings.check && settings.platforms_defaulted {
        let current = &settings.platforms[0];
        note(verbosity, format!("no platform given (--platform, TFSUM_PLATFORMS or .tfsum.toml); relocking for this machine's platform, {current}"));
    }
    let result = super::run_with_progress(verbosity, logging, true, |progress| {
        run(&settings, &request, progress)
    });
    let report = match result {
        Err(code) => return code,
        Ok(Ok(report)) => report,
        Ok(Err(e)) if e.is_usage() => return exit(EXIT_USAGE, e),
        Ok(Err(e)) => return exit(EXIT_FAILED, format!("{e}\n(nothing was written)")),
    };
    if let (Format::Text, Some(lock)) = (settings.format, &report.lock) {
        // Best effort, as the notes: stderr that cannot be written changes nothing.
        let _ = tfsum_report::print_environment_warnings(lock, verbosity, &mut std::io::stderr());
    }
    let mut stdout = super::report_stdout();
    let printed = match settings.format {
        Format::Text => upgrade::print_upgrade_text(&report, verbosity, &mut stdout),
        Format::Json => upgrade::print_upgrade_json(&report, &mut stdout),
        Format::Markdown => upgrade::print_upgrade_markdown(&report, &mut stdout),
    };
    let printed = std::io::Write::flush(&mut stdout).and(printed);
    if let Some(reason) = &report.aborted {
        eprintln!("error: {reason}");
    }
    super::finish(printed, report.is_failure())
}

/// The request, the shared options and the paths of one `upgrade` subcommand.
fn request(command: UpgradeCommand) -> Result<(Request, UpgradeOptions, Vec<PathBuf>), String> {
    let parts = match command {
        UpgradeCommand::Provider(args) => provider_parts(args)?,
        UpgradeCommand::Module(args) => module_parts(args)?,
        UpgradeCommand::Terraform(args) => core_parts(args, Dialect::Terraform)?,
        UpgradeCommand::Opentofu(args) => core_parts(args, Dialect::OpenTofu)?,
    };
    let constraint = parts.constraint.filter(|c| c != "latest");
    if let Some(c) = &constraint {
        check_constraint(&parts.subject, c)?;
    }
    let request = Request {
        title: parts.title,
        subject: parts.subject,
        constraint,
        strategy: parts.strategy,
        no_lock: parts.options.no_lock,
    };
    Ok((request, parts.options, parts.paths))
}

/// One subcommand's arguments, read, before the checks every subcommand shares.
struct Parts {
    title: String,
    subject: Subject,
    constraint: Option<String>,
    strategy: Strategy,
    options: UpgradeOptions,
    paths: Vec<PathBuf>,
}

impl Parts {
    /// The parts of `upgrade provider|module`: `[CONSTRAINT] [PATH]...` after the subject,
    /// and `--strategy` checked against the constraint.
    fn of_subject(
        title: String,
        subject: Subject,
        strategy_arg: Option<StrategyArg>,
        (constraint, paths): (Option<String>, Vec<PathBuf>),
        options: UpgradeOptions,
    ) -> Result<Parts, String> {
        Ok(Parts {
            title,
            subject,
            strategy: strategy(strategy_arg, &constraint)?,
            constraint,
            options,
            paths,
        })
    }
}

/// `--strategy`, which only a constraint omitted or `latest` takes.
fn strategy(arg: Option<StrategyArg>, constraint: &Option<String>) -> Result<Strategy, String> {
    if arg.is_some() && constraint.as_deref().is_some_and(|c| c != "latest") {
        return Err("--strategy applies only when CONSTRAINT is omitted or `latest`".to_string());
    }
    Ok(match arg {
        None | Some(StrategyArg::Pin) => Strategy::Pin,
        Some(StrategyArg::Bump) => Strategy::Bump,
        Some(StrategyArg::Widen) => Strategy::Widen,
    })
}

/// `upgrade provider NAME [CONSTRAINT] [PATH]...`
fn provider_parts(args: UpgradeProviderArgs) -> Result<Parts, String> {
    let positionals = split_positionals(args.constraint, args.paths);
    let name = if args.name.contains('/') {
        ProviderAddr::parse(&args.name, tfsum_vocab::addr::TERRAFORM_REGISTRY)
            .map_err(|e| format!("NAME {:?} is not a provider address: {e}", args.name))?;
        ProviderName::Address(args.name.clone())
    } else {
        ProviderName::Local(args.name.clone())
    };
    let title = format!("tfsum upgrade provider {}", args.name);
    let subject = Subject::Provider(name);
    Parts::of_subject(title, subject, args.strategy, positionals, args.options)
}

/// `upgrade module SOURCE [CONSTRAINT] [PATH]...`
fn module_parts(args: UpgradeModuleArgs) -> Result<Parts, String> {
    let positionals = split_positionals(args.constraint, args.paths);
    let matcher = match args.match_type {
        MatchArg::Regex => ModuleMatch::Regex(
            Regex::new(&args.source)
                .map_err(|e| format!("invalid --match regex SOURCE {:?}: {e}", args.source))?,
        ),
        MatchArg::Full => {
            check_module_source(&args.source)?;
            ModuleMatch::Source(args.source.clone())
        }
    };
    let title = format!("tfsum upgrade module {}", args.source);
    let subject = Subject::Module(matcher);
    Parts::of_subject(title, subject, args.strategy, positionals, args.options)
}

/// `upgrade terraform|opentofu CONSTRAINT [PATH]...`
fn core_parts(args: UpgradeCoreArgs, dialect: Dialect) -> Result<Parts, String> {
    if args.constraint == "latest" {
        return Err(
            "upgrade terraform/opentofu needs a CONSTRAINT: tfsum does not look up CLI releases"
                .to_string(),
        );
    }
    let word = match dialect {
        Dialect::Terraform => "terraform",
        Dialect::OpenTofu => "opentofu",
    };
    Ok(Parts {
        title: format!("tfsum upgrade {word}"),
        subject: Subject::RequiredVersion(dialect),
        constraint: Some(args.constraint),
        strategy: Strategy::Pin,
        options: args.options,
        paths: args.paths,
    })
}

/// `[CONSTRAINT] [PATH]...`: a first word that does not read as a constraint (or
/// `latest`) is the first path.
fn split_positionals(
    constraint: Option<String>,
    mut paths: Vec<PathBuf>,
) -> (Option<String>, Vec<PathBuf>) {
    match constraint {
        Some(word) if !reads_as_constraint(&word) => {
            paths.insert(0, PathBuf::from(word));
            (None, paths)
        }
        other => (other, paths),
    }
}

fn reads_as_constraint(word: &str) -> bool {
    word == "latest"
        || Constraints::parse(word).is_ok()
        || GoConstraints::parse(word).is_ok_and(|_| !word.trim().is_empty())
        || word.strip_prefix('v').is_some_and(is_version_tag)
}

/// A `SOURCE` must name something with a version: a registry module or a git
/// repository.
fn check_module_source(source: &str) -> Result<(), String> {
    use tfsum_vocab::module_source::ModuleSource;
    match tfsum_vocab::module_source::parse_source(source) {
        Ok(ModuleSource::Registry(_) | ModuleSource::Git(_)) => Ok(()),
        Ok(ModuleSource::Local(_)) => Err(format!(
            "SOURCE {source:?} is a local module: it has no version to upgrade"
        )),
        Ok(_) => Err(format!(
            "SOURCE {source:?} is neither a registry module nor a git repository: tfsum upgrades registry versions and git ?ref= tags"
        )),
        Err(e) => Err(format!("SOURCE: {e}")),
    }
}

/// A given constraint must read as one for what it constrains: Terraform's provider
/// constraint syntax, go-version's for module versions and `required_version`, one
/// version for a git ref (checked per site, since only git calls need it).
fn check_constraint(subject: &Subject, constraint: &str) -> Result<(), String> {
    let checked = match subject {
        Subject::Provider(_) => Constraints::parse(constraint)
            .map(drop)
            .map_err(|e| e.to_string()),
        Subject::Module(_) => {
            if constraint
                .strip_prefix('v')
                .unwrap_or(constraint)
                .is_empty()
            {
                Err("it is empty".to_string())
            } else if is_version_tag(constraint.strip_prefix('v').unwrap_or(constraint)) {
                Ok(())
            } else {
                GoConstraints::parse(constraint).map(drop)
            }
        }
        Subject::RequiredVersion(_) => GoConstraints::parse(constraint).map(drop),
    };
    match checked {
        Ok(()) if constraint.trim().is_empty() => Err("CONSTRAINT is empty".to_string()),
        Ok(()) => Ok(()),
        Err(reason) => Err(format!("invalid CONSTRAINT {constraint:?}: {reason}")),
    }
}

/// Runs `tfsum upgrade`: the edits, then the relock of the roots they touch, then every
/// file written, all or none.
pub(crate) async fn run(
    settings: &UpgradeSettings,
    request: &Request,
    progress: Arc<dyn Progress>,
) -> Result<UpgradeReport, UpgradeError> {
    let started = Instant::now();
    let services = settings
        .sources
        .services(progress.clone())
        .map_err(FatalError::from)?;
    let targets = Targets::new(&settings.paths, settings.recursive)?;
    let discovery = discover::discover(&targets.search, targets.recursive, &settings.ignore)
        .map_err(FatalError::from)?;
    let Edits {
        mut report,
        mut writes,
        edited,
    } = edit(settings, request, &services, &targets, &discovery).await?;
    if !request.no_lock && !edited.is_empty() {
        let relock = Relock {
            settings,
            services: &services,
            targets: &targets,
            progress: progress.as_ref(),
        };
        let (lock, lock_writes) = relock.run(discovery, edited, started).await;
        if lock.failed() > 0 {
            report.aborted = Some(format!(
                "nothing was written: {} {} could not be relocked with the new constraints",
                lock.failed(),
                tfsum_report::plural(lock.failed(), "root", "roots")
            ));
        }
        writes.extend(lock_writes);
        report.lock = Some(lock);
    }
    if !settings.check && report.aborted.is_none() && !writes.is_empty() {
        write_all(&mut report, &writes);
    }
    Ok(report)
}

/// What the edit phase decided: its report so far, the configuration files to write and
/// the configuration as edited (for the relock).
struct Edits {
    report: UpgradeReport,
    writes: Vec<Replacement>,
    edited: Arc<Edited>,
}

/// The edit phase: the sites the request names in scope, their new values, each checked
/// against the published versions, applied in memory.
async fn edit(
    settings: &UpgradeSettings,
    request: &Request,
    services: &Services,
    targets: &Targets,
    discovery: &Discovery,
) -> Result<Edits, UpgradeError> {
    let mut scope = read_scope(
        settings.sources.flavor,
        &settings.ignore,
        targets,
        discovery,
    )?;
    let (mut sites, mut notes) = scope.sites(&request.subject);
    if let Subject::Module(matcher) = &request.subject {
        if scope.has_evaluated_calls()
            || !discovery.unit_dirs.is_empty()
            || !discovery.stack_dirs.is_empty()
        {
            let calls = evaluated_calls(settings, services, targets, discovery).await;
            let (more, more_notes) = scope.evaluated_sites(&calls, matcher);
            sites.extend(more);
            notes.extend(more_notes);
            sites.sort_by(|a, b| {
                (&a.value.at, a.value.span.start).cmp(&(&b.value.at, b.value.span.start))
            });
        }
    }
    let mut lists = Lists::default();
    let values = new_values(request, &sites, services, &mut lists).await?;
    if !request.no_lock || request.constraint.is_none() {
        for (site, new) in &values {
            satisfiable(site, new, services, &mut lists).await?;
        }
    }
    let edited_files = scope.apply(&values);
    let report = UpgradeReport {
        title: request.title.clone(),
        check: settings.check,
        edits: values
            .iter()
            .map(|(site, new)| edit_of(site, new))
            .collect(),
        notes: notes
            .into_iter()
            .map(|n| UpgradeNote {
                at: n.at,
                message: n.message,
            })
            .collect(),
        lock: None,
        written: false,
        aborted: None,
    };
    Ok(Edits {
        report,
        writes: replacements(&edited_files, &settings.paths)?,
        edited: Arc::new(Edited::new(&edited_files, &scope.aliases)),
    })
}

/// The module calls whose source or version is an expression, as every root evaluates
/// them (the load stage over the configuration as it is).
async fn evaluated_calls(
    settings: &UpgradeSettings,
    services: &Services,
    targets: &Targets,
    discovery: &Discovery,
) -> Vec<tfsum_config::tree::EvaluatedCall> {
    let options = targets.load_options(settings.sources.flavor, &settings.values);
    let (roots, _) = tfsum_stages::load::roots(discovery, &options, &services.modules).await;
    // A stack's components are evaluated calls too, for `outdated`; the scope reads
    // their versions in the stack files already (`Scope::sites`).
    let mut calls: Vec<_> = roots
        .into_iter()
        .filter_map(|root| root.stage.ok())
        .flat_map(|loaded| loaded.evaluated_calls)
        .filter(|call| !is_stack_file(&call.at.file))
        .collect();
    // A version written in fetched code (a remote catalog's unit) is not the
    // repository's to edit.
    for call in &mut calls {
        if let Ok(definition) = &call.definition {
            let file = tfsum_config::paths::absolute(&definition.at.file);
            let canonical = std::fs::canonicalize(&file).unwrap_or(file);
            if !options
                .within
                .iter()
                .any(|tree| canonical.starts_with(tree))
            {
                call.definition = Err(format!(
                    "it is written in {}, outside the paths searched",
                    definition.at
                ));
            }
        }
    }
    calls
}

/// The edited files as replacements, each at its own path or, for a link within the
/// trees of `paths`, at its target.
fn replacements(files: &[EditedFile], paths: &[PathBuf]) -> Result<Vec<Replacement>, UpgradeError> {
    let trees = link_trees(paths);
    let mut writes = Vec::new();
    for file in files {
        let path = link_target(&file.path, &trees).map_err(|e| UpgradeError::Site {
            at: Location {
                file: file.path.clone().into(),
                line: 1,
            },
            message: e.to_string(),
        })?;
        writes.push(Replacement {
            path,
            contents: file.new.clone().into_bytes(),
            old: Some(file.old.clone().into_bytes()),
        });
    }
    Ok(writes)
}

/// The write phase: every edited file and lock file replaced, all or none; the report
/// says which.
fn write_all(report: &mut UpgradeReport, writes: &[Replacement]) {
    match replace_all(writes) {
        Ok(()) => report.written = true,
        Err(e) => {
            report.aborted = Some(format!("nothing was written: {e}"));
            if let Some(lock) = &mut report.lock {
                lock.warnings.push(Warning::NotWritten);
            }
        }
    }
}

/// The module directories an upgrade may edit: with file PATHs, those files; else every
/// discovered directory (Terraform Stacks' included) and the local modules they call
/// (a stack's components and embedded stacks too), transitively, minus what
/// `--ignore-path` or `.terraform/` excludes.
pub(crate) fn read_scope(
    flavor: Option<Flavor>,
    ignore: &[Regex],
    targets: &Targets,
    discovery: &Discovery,
) -> Result<Scope, UpgradeError> {
    let host = |dir: &Path| {
        let flavor = flavor.unwrap_or_else(|| {
            let old = std::fs::read(dir.join(LOCK_FILE_NAME)).ok();
            detect_flavor(dir, old.as_deref())
        });
        flavor.default_registry()
    };
    if let Some(files) = &targets.changed {
        return scope_of_files(files, host);
    }
    let mut scope = Scope::default();
    let ignored = |path: &Path| is_ignored(path, &targets.search, ignore);
    let keep_file = |path: &Path| is_editable(path) && !ignored(path);
    let keep_dir = |dir: &Path| is_editable(&dir.join("x.tf")) && !ignored(dir) && dir.is_dir();
    // A Terraform Stack's directory is read with its stack files (`Scope::add_dir`).
    for dir in discovery.dirs.iter().chain(&discovery.tf_stack_dirs) {
        if keep_dir(dir) {
            scope.add_dir(dir, host(dir), &keep_file)?;
        }
    }
    let mut refused = BTreeSet::new();
    loop {
        let next: Vec<PathBuf> = scope
            .local_calls()
            .into_iter()
            .filter(|dir| !refused.contains(dir))
            .collect();
        if next.is_empty() {
            break;
        }
        for dir in next {
            if keep_dir(&dir) {
                scope.add_dir(&dir, host(&dir), &keep_file)?;
            } else {
                refused.insert(dir);
            }
        }
    }
    Ok(scope)
}

/// The scope of changed-files mode: exactly the files given, each a configuration file.
fn scope_of_files(
    files: &[PathBuf],
    host: impl Fn(&Path) -> &'static str,
) -> Result<Scope, UpgradeError> {
    let mut scope = Scope::default();
    for file in files {
        if !is_editable(file) {
            return Err(UpgradeError::Usage(format!(
                "{}: not a configuration file tfsum edits (*.tf, *.tofu, *.tf.json, *.tofu.json, a stack's *.tfcomponent.hcl or .json, outside .terraform/)",
                file.display()
            )));
        }
        let dir = file.parent().unwrap_or(Path::new("."));
        scope.add_file(file, host(dir))?;
    }
    Ok(scope)
}

/// Whether `--ignore-path` excludes `path`, as the walk prunes: when it, or a directory
/// above it below a searched path, matches (relative to that searched path, or as a
/// whole).
fn is_ignored(path: &Path, search: &[PathBuf], ignore: &[Regex]) -> bool {
    let path = normalize_path(path);
    search.iter().any(|root| {
        let root = normalize_path(root);
        let relative = if root == Path::new(".") && path.is_relative() {
            path.as_path()
        } else {
            match path.strip_prefix(&root) {
                Ok(relative) => relative,
                Err(_) => return false,
            }
        };
        relative
            .ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|rel| {
                let full = slash_path(&root.join(rel));
                let rel = slash_path(rel);
                ignore
                    .iter()
                    .any(|re| re.is_match(&rel) || re.is_match(&full))
            })
    }) || ignore.iter().any(|re| re.is_match(&slash_path(&path)))
}

/// Published versions fetched in this run, each list once.
#[derive(Default)]
struct Lists {
    providers: HashMap<ProviderAddr, Vec<Version>>,
    modules: HashMap<String, Arc<VersionList>>,
    tags: HashMap<String, Vec<String>>,
}

impl Lists {
    async fn provider(
        &mut self,
        services: &Services,
        addr: &ProviderAddr,
    ) -> Result<&[Version], UpgradeError> {
        if !self.providers.contains_key(addr) {
            let found = services
                .sources
                .versions(addr)
                .await
                .map_err(UpgradeError::Versions)?;
            let versions = found
                .versions
                .iter()
                .filter_map(|v| Version::parse(v).ok())
                .collect();
            self.providers.insert(addr.clone(), versions);
        }
        Ok(self.providers.get(addr).map(Vec::as_slice).unwrap_or(&[]))
    }

    async fn module(
        &mut self,
        services: &Services,
        module: &tfsum_vocab::module_source::RegistryModule,
    ) -> Result<Arc<VersionList>, UpgradeError> {
        let key = module.package_id();
        if let Some(list) = self.modules.get(&key) {
            return Ok(list.clone());
        }
        let list = services
            .modules
            .module_versions(module)
            .await
            .map_err(|source| UpgradeError::ModuleVersions {
                subject: format!("module {module}"),
                source: Box::new(source),
            })?;
        self.modules.insert(key, list.clone());
        Ok(list)
    }

    async fn tags(&mut self, services: &Services, url: &str) -> Result<&[String], UpgradeError> {
        if !self.tags.contains_key(url) {
            let tags = services.modules.git_tags(url).await.map_err(|source| {
                UpgradeError::ModuleVersions {
                    subject: tfsum_vocab::module_source::redacted(url),
                    source: Box::new(source),
                }
            })?;
            self.tags.insert(url.to_string(), tags);
        }
        Ok(self.tags.get(url).map(Vec::as_slice).unwrap_or(&[]))
    }
}

/// What a git ref holds before its version: `v`, ``, `refs/tags/v`, …
fn ref_prefix(site: &Site) -> &str {
    let before = &site.text[..site.slot.start];
    before
        .rsplit_once("ref=")
        .map_or(before, |(_, prefix)| prefix)
}

/// The tag a git ref names.
fn tag_of(site: &Site, version: &str) -> String {
    let prefix = ref_prefix(site);
    format!(
        "{}{version}",
        prefix.strip_prefix("refs/tags/").unwrap_or(prefix)
    )
}

/// The new text of every site that changes: the given constraint, or the newest
/// published stable version through the strategy. Sites that would keep their value are
/// left out.
async fn new_values<'s>(
    request: &Request,
    sites: &'s [Site],
    services: &Services,
    lists: &mut Lists,
) -> Result<Vec<(&'s Site, String)>, UpgradeError> {
    let mut out = Vec::new();
    for site in sites {
        let new = match &request.constraint {
            Some(given) => given_value(site, given)?,
            None => newest_value(request.strategy, site, services, lists).await?,
        };
        if new != site.current() {
            out.push((site, new));
        }
    }
    Ok(out)
}

/// The given constraint as `site` takes it: as written, or one bare version for a git
/// ref.
fn given_value(site: &Site, given: &str) -> Result<String, UpgradeError> {
    if let Target::ModuleVersion { exact: true, .. } = &site.target {
        return match Version::parse(given) {
            Ok(_) => Ok(given.to_string()),
            Err(_) => Err(UpgradeError::Usage(format!(
                "{}: a tfr:// source takes one version ({:?}); give one (1.3.0), not {given:?}",
                site.value.at,
                site.current()
            ))),
        };
    }
    let Target::ModuleRef { .. } = &site.target else {
        return Ok(given.to_string());
    };
    let bare = given.strip_prefix('v').unwrap_or(given);
    if !is_version_tag(bare) {
        return Err(UpgradeError::Usage(format!(
            "{}: module git ref {:?}: a ref pins one version; give one (1.3.0), not {given:?}",
            site.value.at,
            site.current()
        )));
    }
    Ok(bare.to_string())
}

/// The newest published stable version for `site`, through `strategy` (a git ref: the
/// newest release tag spelled as the ref is).
async fn newest_value(
    strategy: Strategy,
    site: &Site,
    services: &Services,
    lists: &mut Lists,
) -> Result<String, UpgradeError> {
    let newest = match &site.target {
        Target::ModuleRef { git, .. } => return newest_tag(site, &git.url, services, lists).await,
        Target::Provider { addr, .. } => {
            newest_stable(lists.provider(services, addr).await?).cloned()
        }
        Target::ModuleVersion { module, .. } => {
            let listed = lists.module(services, module).await?;
            let parsed: Vec<Version> = listed
                .texts()
                .filter_map(|v| Version::parse(v).ok())
                .collect();
            newest_stable(&parsed).cloned()
        }
        Target::RequiredVersion => None,
    };
    let Some(newest) = newest else {
        return Err(UpgradeError::Site {
            at: site.value.at.clone(),
            message: format!("{} has no published stable version", site.target.subject()),
        });
    };
    if let Target::ModuleVersion { exact: true, .. } = &site.target {
        return Ok(newest.to_string());
    }
    rewrite(strategy, site.current(), &newest).map_err(|e| UpgradeError::Site {
        at: site.value.at.clone(),
        message: format!("{}: {e}", site.target.subject()),
    })
}

/// The newest release tag of the repository at `url` spelled as `site`'s ref is, bare.
async fn newest_tag(
    site: &Site,
    url: &str,
    services: &Services,
    lists: &mut Lists,
) -> Result<String, UpgradeError> {
    let shape = tag_of(site, "");
    let tags = lists.tags(services, url).await?;
    let newest = tags
        .iter()
        .filter_map(|tag| tag.strip_prefix(shape.as_str()))
        .filter(|bare| is_version_tag(bare))
        .filter_map(|bare| Some((Version::parse(bare).ok()?, bare)))
        .filter(|(v, _)| !v.is_prerelease())
        .max_by(|a, b| a.0.cmp(&b.0));
    match newest {
        Some((_, bare)) => Ok(bare.to_string()),
        None => Err(UpgradeError::Site {
            at: site.value.at.clone(),
            message: format!(
                "{} has no release tag spelled like {:?}",
                site.target.subject(),
                tag_of(site, site.current())
            ),
        }),
    }
}

/// Fails, naming the place, when no published version satisfies the new constraint on
/// its own (a provider or registry module), or the new git ref names no tag.
async fn satisfiable(
    site: &Site,
    new: &str,
    services: &Services,
    lists: &mut Lists,
) -> Result<(), UpgradeError> {
    let fail = |detail: String| UpgradeError::Site {
        at: site.value.at.clone(),
        message: format!(
            "no published version of {} satisfies {new:?}{detail}",
            site.target.subject()
        ),
    };
    match &site.target {
        Target::Provider { addr, .. } => {
            let available = lists.provider(services, addr).await?;
            let constraints = Constraints::parse(new).map_err(|e| UpgradeError::Site {
                at: site.value.at.clone(),
                message: e.to_string(),
            })?;
            if newest_allowed(available, &constraints).is_none() {
                let mut newest: Vec<&Version> = available.iter().collect();
                newest.sort();
                let shown: Vec<String> =
                    newest.iter().rev().take(5).map(|v| v.to_string()).collect();
                return Err(fail(format!(" (newest: {})", shown.join(", "))));
            }
        }
        Target::ModuleVersion { module, .. } => {
            let listed = lists.module(services, module).await?;
            if let Err(e) = select_version(&listed, Some(new)) {
                return Err(fail(format!(": {e}")));
            }
        }
        Target::ModuleRef { git, .. } => {
            let tag = tag_of(site, new);
            if !lists.tags(services, &git.url).await?.contains(&tag) {
                return Err(fail(format!(": the repository has no tag {tag:?}")));
            }
        }
        Target::RequiredVersion => {}
    }
    Ok(())
}

fn edit_of(site: &Site, new: &str) -> ConstraintEdit {
    let (kind, from, to) = match &site.target {
        Target::Provider { block: false, .. } => (
            "required_providers",
            site.current().to_string(),
            new.to_string(),
        ),
        Target::Provider { block: true, .. } => (
            "provider_block",
            site.current().to_string(),
            new.to_string(),
        ),
        Target::ModuleVersion { .. } => (
            "module_version",
            site.current().to_string(),
            new.to_string(),
        ),
        Target::ModuleRef { .. } => (
            "module_ref",
            format!("ref={}{}", ref_prefix(site), site.current()),
            format!("ref={}{new}", ref_prefix(site)),
        ),
        Target::RequiredVersion => (
            "required_version",
            site.current().to_string(),
            new.to_string(),
        ),
    };
    ConstraintEdit {
        at: site.value.at.clone(),
        kind,
        subject: site.target.subject(),
        from,
        to,
    }
}

/// The relock phase: the lock pipeline ([`Pipeline`]) over the edited configuration,
/// for the roots whose module tree holds an edit.
struct Relock<'a> {
    settings: &'a UpgradeSettings,
    services: &'a Services,
    targets: &'a Targets,
    progress: &'a dyn Progress,
}

impl Relock<'_> {
    /// The relock's report and, unless in check mode, the lock files to write.
    async fn run(
        self,
        discovery: Discovery,
        edited: Arc<Edited>,
        started: Instant,
    ) -> (RunReport, Vec<Replacement>) {
        let settings = self.settings;
        let targets = self.targets;
        // File PATHs: the roots are those of the current directory holding an edit.
        let discovery = match &targets.changed {
            Some(_) => {
                discover::discover(&targets.search, true, &settings.ignore).unwrap_or(discovery)
            }
            None => discovery,
        };
        let options = targets.load_options(settings.sources.flavor, &settings.values);
        let pipeline = Pipeline {
            edited: edited.clone(),
            platforms_defaulted: settings.platforms_defaulted,
            ..Pipeline::new(self.services, options, &settings.platforms, self.progress)
        };
        let keep = |root: &Root<Loaded>| match &root.stage {
            Ok(loaded) => {
                loaded.modules.iter().any(|m| edited.touches_dir(m))
                    || loaded.value_files.iter().any(|f| edited.touches_file(f))
            }
            Err(_) => edited.touches_dir(&root.dir),
        };
        // In check mode nothing is written; else every lock file waits for the edits.
        let finish = if settings.check {
            Finish::Write { check: true }
        } else {
            Finish::Prepare
        };
        let mut driven = pipeline.run(discovery, keep, finish).await;
        let writes = std::mem::take(&mut driven.writes);
        let report = driven.report(self.services, settings.check, false, started, None);
        (report, writes)
    }
}
