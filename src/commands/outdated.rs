//! The `outdated` command: where the repository stands. It runs the lock pipeline's
//! first two stages (discover, load) over the roots, reads the module calls of the
//! repository's own modules ([`tfsum_config::edit::Scope`]), and compares what is
//! locked and allowed with the published versions, each list fetched once through the
//! run's cache. Nothing is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::cli::{Format, OutdatedArgs};
use super::lock::{FatalError, Targets};
use super::settings::{self, OutdatedSettings, Services};
use super::upgrade::read_scope;
use super::{exit, EXIT_FAILED, EXIT_USAGE};
use tfsum_config::edit::{is_stack_file, RemoteCall};
use tfsum_report::outdated::{
    self, Behind, DeclaredAt, FailedRoot, Item, ItemKind, OutdatedReport, ReadRoot,
};
use tfsum_report::Verbosity;
use tfsum_stages::discover;
use tfsum_stages::load;
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::goversion::{select_version, VersionList};
use tfsum_vocab::module_source::ModuleSource;
use tfsum_vocab::paths::normalize_path;
use tfsum_vocab::progress::Progress;
use tfsum_vocab::version::{newest_allowed, newest_stable, Version};

/// `tfsum outdated`: exit 0, or 1 when a root or a version list could not be read or
/// (with `--exit-code`) something is behind; 2 on a usage error.
pub(crate) fn main(args: OutdatedArgs, verbosity: Verbosity, logging: bool) -> ExitCode {
    let settings = match super::settings_here(&args, settings::outdated) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    let result = super::run_with_progress(verbosity, logging, false, |progress| {
        run(&settings, progress)
    });
    let report = match result {
        Err(code) => return code,
        Ok(Ok(report)) => report,
        Ok(Err(e)) if e.is_usage() => return exit(EXIT_USAGE, e),
        Ok(Err(e)) => return exit(EXIT_FAILED, e),
    };
    let mut stdout = super::report_stdout();
    let printed = match settings.format {
        Format::Text => outdated::print_outdated_text(&report, &mut stdout),
        Format::Json => outdated::print_outdated_json(&report, settings.exit_code, &mut stdout),
        Format::Markdown => outdated::print_outdated_markdown(&report, &mut stdout),
    };
    let printed = std::io::Write::flush(&mut stdout).and(printed);
    super::finish(printed, report.is_failure(settings.exit_code))
}

/// Runs `tfsum outdated`.
pub(crate) async fn run(
    settings: &OutdatedSettings,
    progress: Arc<dyn Progress>,
) -> Result<OutdatedReport, FatalError> {
    let services = settings.sources.services(progress)?;
    let targets = Targets::new(&settings.paths, settings.recursive)?;
    let discovery = discover::discover(&targets.search, targets.recursive, &settings.ignore)?;
    let options = targets.load_options(settings.sources.flavor, &settings.values);
    let (mut roots, warnings) = load::roots(&discovery, &options, &services.modules).await;
    targets.keep_affected(&mut roots);
    let mut report = OutdatedReport {
        warnings: warnings.iter().map(ToString::to_string).collect(),
        ..OutdatedReport::default()
    };
    let mut loaded = Vec::new();
    for root in roots {
        report.roots.push(ReadRoot {
            dir: root.dir.clone(),
            kind: root.kind,
        });
        match root.stage {
            Ok(stage) => loaded.push((root.dir, stage)),
            Err(e) => report.failed.push(FailedRoot {
                root: root.dir,
                kind: root.kind,
                error: e.to_string(),
            }),
        }
    }
    providers(&services, &loaded, &mut report).await;
    match read_scope(
        settings.sources.flavor,
        &settings.ignore,
        &targets,
        &discovery,
    ) {
        Ok(scope) => modules(&services, &scope.remote_calls(), &loaded, &mut report).await,
        Err(e) => {
            // The roots' own evaluated calls (a stack's components among them) stand.
            report.warnings.push(format!("module calls not read: {e}"));
            modules(&services, &[], &loaded, &mut report).await;
        }
    }
    let cache = super::run::refused_entries(&services);
    report.warnings.extend(cache.map(|w| w.to_string()));
    report.sort();
    Ok(report)
}

/// Accumulates one item per name, locked version and newest allowed version: roots that
/// lock the same version but whose constraints allow different newest versions get an
/// item each, since they need different edits to move on (docs/outdated.md, "Rows").
#[derive(Default)]
struct Items {
    items: BTreeMap<(ItemKind, String, Option<String>, Option<String>), Item>,
}

impl Items {
    fn add(
        &mut self,
        kind: ItemKind,
        name: String,
        current: (Option<String>, Option<String>),
        latest: Option<&Version>,
        root: &PathBuf,
        declared: impl IntoIterator<Item = DeclaredAt>,
    ) {
        let (locked, allowed) = current;
        let key = (kind, name.clone(), locked.clone(), allowed.clone());
        let item = self.items.entry(key).or_insert_with(|| {
            let now = locked.as_deref().or(allowed.as_deref());
            let (behind, distance) = how_far(now, latest);
            Item {
                kind,
                name,
                locked,
                allowed,
                latest: latest.map(Version::to_string),
                behind,
                distance,
                declared: Vec::new(),
                roots: Vec::new(),
            }
        });
        item.declared.extend(declared);
        item.declared.sort();
        item.declared.dedup();
        if !item.roots.contains(root) {
            item.roots.push(root.clone());
            item.roots.sort();
        }
    }
}

/// How far `now` is behind `latest`, and by how many of the part that differs first.
fn how_far(now: Option<&str>, latest: Option<&Version>) -> (Behind, (u64, u64, u64)) {
    let (Some(now), Some(latest)) = (now.and_then(|v| Version::parse(v).ok()), latest) else {
        return (Behind::Unknown, (0, 0, 0));
    };
    if latest.major > now.major {
        (Behind::Major, (latest.major - now.major, 0, 0))
    } else if latest.major == now.major && latest.minor > now.minor {
        (Behind::Minor, (0, latest.minor - now.minor, 0))
    } else if latest.major == now.major && latest.minor == now.minor && latest.patch > now.patch {
        (Behind::Patch, (0, 0, latest.patch - now.patch))
    } else {
        (Behind::None, (0, 0, 0))
    }
}

/// One item per provider and locked version, from every root's requirements and lock
/// file; each version list fetched once.
async fn providers(
    services: &Services,
    loaded: &[(PathBuf, tfsum_stages::load::Loaded)],
    report: &mut OutdatedReport,
) {
    let wanted: BTreeSet<&ProviderAddr> = loaded.iter().flat_map(|(_, l)| l.reqs.keys()).collect();
    let fetched = futures::future::join_all(
        wanted
            .into_iter()
            .map(|addr| async move { (addr, services.sources.versions(addr).await) }),
    )
    .await;
    let mut lists: BTreeMap<&ProviderAddr, Vec<Version>> = BTreeMap::new();
    for (addr, found) in fetched {
        match found {
            Ok(found) => {
                let versions = found
                    .versions
                    .iter()
                    .filter_map(|v| Version::parse(v).ok())
                    .collect();
                lists.insert(addr, versions);
            }
            Err(e) => report.warnings.push(e.to_string()),
        }
    }
    let mut items = Items::default();
    for (dir, stage) in loaded {
        for (addr, reqs) in &stage.reqs {
            let locked = stage
                .old
                .as_ref()
                .and_then(|old| old.lock.providers.get(addr))
                .map(|entry| entry.version.to_string());
            let list = lists.get(addr).map(Vec::as_slice).unwrap_or(&[]);
            let allowed = newest_allowed(list, &reqs.constraints).map(Version::to_string);
            let declared = reqs.declared.iter().map(|d| DeclaredAt {
                file: d.file.display().to_string(),
                line: d.line,
                constraint: d.text.clone(),
                via: None,
            });
            items.add(
                ItemKind::Provider,
                addr.to_string(),
                (locked, allowed),
                lists.get(addr).and_then(newest_stable),
                dir,
                declared,
            );
        }
    }
    report.items.extend(items.items.into_values());
}

/// One item per remote module (registry module or git repository) and version in use,
/// from the calls the repository's own modules make.
async fn modules(
    services: &Services,
    calls: &[RemoteCall],
    loaded: &[(PathBuf, tfsum_stages::load::Loaded)],
    report: &mut OutdatedReport,
) {
    let mut items = Items::default();
    let mut lists = ModuleLists::default();
    for call in calls {
        let roots = roots_calling(loaded, call);
        if roots.is_empty() {
            continue;
        }
        let declared = DeclaredAt {
            file: call.at.file.display().to_string(),
            line: call.at.line,
            constraint: call.version.clone().unwrap_or_default(),
            via: None,
        };
        let Some((name, current, latest)) =
            module_versions(services, call, &mut lists, &mut report.warnings).await
        else {
            continue;
        };
        for root in roots {
            items.add(
                ItemKind::Module,
                name.clone(),
                current.clone(),
                latest.as_ref(),
                root,
                [declared.clone()],
            );
        }
    }
    for (root, stage) in loaded {
        for evaluated in &stage.evaluated_calls {
            let Some((call, declared)) = evaluated_call(root, evaluated) else {
                continue;
            };
            let Some((name, current, latest)) =
                module_versions(services, &call, &mut lists, &mut report.warnings).await
            else {
                continue;
            };
            items.add(
                ItemKind::Module,
                name,
                current,
                latest.as_ref(),
                root,
                [declared],
            );
        }
    }
    report.items.extend(items.items.into_values());
}

/// A call whose source or version is an expression, as one root evaluated it: the call
/// to look versions up for, and where its version is written (the variable's default, a
/// local, a var file entry), or the call itself with why no one place holds it.
fn evaluated_call(
    root: &std::path::Path,
    evaluated: &tfsum_config::tree::EvaluatedCall,
) -> Option<(RemoteCall, DeclaredAt)> {
    let host = tfsum_vocab::addr::TERRAFORM_REGISTRY;
    let source = match tfsum_vocab::module_source::parse_source_for(&evaluated.source, host) {
        Ok(source @ (ModuleSource::Registry(_) | ModuleSource::Git(_))) => source,
        _ => return None,
    };
    let version = match &source {
        ModuleSource::Git(_) => tfsum_config::edit::ref_of(&evaluated.source),
        _ => evaluated.version.clone(),
    };
    let call_at = format!("{} at {}", evaluated.label(), evaluated.at);
    let declared = match &evaluated.definition {
        // A Terraform Stack's component: its version is a literal in the stack file,
        // listed there as a module call's is at its block.
        Ok(definition) if is_stack_file(&definition.at.file) => DeclaredAt {
            file: definition.at.file.display().to_string(),
            line: definition.at.line,
            constraint: version.clone().unwrap_or_default(),
            via: None,
        },
        Ok(definition) => DeclaredAt {
            file: definition.at.file.display().to_string(),
            line: definition.at.line,
            constraint: version.clone().unwrap_or_default(),
            via: Some(format!(
                "{}, for {call_at} in {}",
                definition.what,
                root.display()
            )),
        },
        Err(why) => DeclaredAt {
            file: evaluated.at.file.display().to_string(),
            line: evaluated.at.line,
            constraint: version.clone().unwrap_or_default(),
            via: Some(format!("evaluated for {}: {why}", root.display())),
        },
    };
    let call = RemoteCall {
        dir: evaluated.dir.clone(),
        at: evaluated.at.clone(),
        source,
        version,
    };
    Some((call, declared))
}

/// The roots whose module tree holds the calling module of `call`.
fn roots_calling<'l>(
    loaded: &'l [(PathBuf, tfsum_stages::load::Loaded)],
    call: &RemoteCall,
) -> Vec<&'l PathBuf> {
    let dir = normalize_path(&call.dir);
    loaded
        .iter()
        .filter(|(_, l)| l.modules.iter().any(|m| normalize_path(m) == dir))
        .map(|(root, _)| root)
        .collect()
}

/// The version lists of remote modules, each fetched once: a registry module's by its
/// package, a git repository's tags by its URL. `None` when the fetch failed.
#[derive(Default)]
struct ModuleLists {
    registry: BTreeMap<String, Option<Arc<VersionList>>>,
    tags: BTreeMap<String, Option<Vec<String>>>,
}

/// A module's name, its versions in use (locked, allowed) and its newest release; `None`
/// for a source that has no versions (a local path, an archive URL, …).
async fn module_versions(
    services: &Services,
    call: &RemoteCall,
    lists: &mut ModuleLists,
    warnings: &mut Vec<String>,
) -> Option<(String, (Option<String>, Option<String>), Option<Version>)> {
    match &call.source {
        ModuleSource::Registry(module) => {
            let key = module.package_id();
            let list = fetched_once(&mut lists.registry, &key, call, warnings, || {
                services.modules.module_versions(module)
            })
            .await;
            let empty = VersionList::default();
            let listed = list.as_deref().unwrap_or(&empty);
            let picked = select_version(listed, call.version.as_deref())
                .ok()
                .map(|s| s.chosen.to_string());
            let parsed: Vec<Version> = listed
                .texts()
                .filter_map(|v| Version::parse(v).ok())
                .collect();
            let latest = newest_stable(&parsed).cloned();
            Some((key, (picked.clone(), picked), latest))
        }
        ModuleSource::Git(git) => {
            let name = format!("git::{}", tfsum_vocab::module_source::redacted(&git.url));
            let tags = fetched_once(&mut lists.tags, &git.url, call, warnings, || {
                services.modules.git_tags(&git.url)
            })
            .await
            .unwrap_or_default();
            let versions: Vec<Version> = tags
                .iter()
                .map(|t| t.strip_prefix('v').unwrap_or(t))
                .filter(|t| tfsum_config::edit::is_version_tag(t))
                .filter_map(|t| Version::parse(t).ok())
                .collect();
            let latest = newest_stable(&versions).cloned();
            Some((name, (call.version.clone(), call.version.clone()), latest))
        }
        _ => None,
    }
}

/// What `fetch` gives for `key`, fetched the first time `key` is asked for and kept in
/// `memo`. A failure is a warning naming the call that asked first, then `None` for
/// every call.
async fn fetched_once<
    T: Clone,
    E: std::fmt::Display,
    F: std::future::Future<Output = Result<T, E>>,
>(
    memo: &mut BTreeMap<String, Option<T>>,
    key: &str,
    call: &RemoteCall,
    warnings: &mut Vec<String>,
    fetch: impl FnOnce() -> F,
) -> Option<T> {
    if !memo.contains_key(key) {
        let fetched = match fetch().await {
            Ok(value) => Some(value),
            Err(e) => {
                warnings.push(format!("{}: {e}", call.at));
                None
            }
        };
        memo.insert(key.to_string(), fetched);
    }
    memo.get(key).cloned().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows rule of docs/outdated.md: one row per name, locked version and newest
    /// allowed version; roots that agree on all three share it.
    #[test]
    fn a_row_per_locked_and_allowed_version() {
        let latest = Version::parse("5.32.1").unwrap();
        let v = |s: &str| Some(s.to_string());
        let mut items = Items::default();
        for (root, locked, allowed) in [
            ("a", v("4.67.0"), v("4.67.0")),
            ("b", v("4.67.0"), v("5.32.1")),
            ("c", v("4.67.0"), v("4.67.0")),
            ("d", v("5.32.1"), v("5.32.1")),
            ("e", None, v("5.32.1")),
        ] {
            let root = PathBuf::from(root);
            let current = (locked, allowed);
            let name = "registry.terraform.io/hashicorp/aws".to_string();
            items.add(ItemKind::Provider, name, current, Some(&latest), &root, []);
        }
        let rows: Vec<_> = items
            .items
            .values()
            .map(|i| {
                let roots: Vec<_> = i.roots.iter().map(|r| r.display().to_string()).collect();
                (i.locked.as_deref(), i.allowed.as_deref(), roots, i.behind)
            })
            .collect();
        let expected = [
            (None, v("5.32.1"), vec!["e"], Behind::None),
            (v("4.67.0"), v("4.67.0"), vec!["a", "c"], Behind::Major),
            (v("4.67.0"), v("5.32.1"), vec!["b"], Behind::Major),
            (v("5.32.1"), v("5.32.1"), vec!["d"], Behind::None),
        ];
        let expected: Vec<_> = expected
            .iter()
            .map(|(l, a, r, b)| {
                let roots: Vec<String> = r.iter().map(|r| r.to_string()).collect();
                (l.as_deref(), a.as_deref(), roots, *b)
            })
            .collect();
        assert_eq!(rows, expected);
    }
}
