//! The resolve stage over all roots: fetch each needed version list once, choose every
//! root's versions, and collect the unique packages the hash stage must hash ([`Plan`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rayon::prelude::*;

use crate::load::Loaded;
use crate::parallel;
use crate::root::{Root, RootError, SelectionError};
use crate::warning::Warning;
use tfsum_sources::{Package, Sources, VersionsError};
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::version::{Constraints, Version};

use super::{needs_version_list, select};

/// A root with a version chosen for every provider it requires.
#[derive(Debug)]
pub struct Planned {
    pub loaded: Loaded,
    pub selected: BTreeMap<ProviderAddr, Version>,
}

/// What the hash stage needs: every root's choices, and each package once; and what the
/// version lists said worth a warning.
#[derive(Debug)]
pub struct Plan {
    pub roots: Vec<Root<Planned>>,
    pub packages: BTreeSet<Package>,
    pub warnings: Vec<Warning>,
}

/// Each provider's published versions, or why they could not be listed.
type VersionLists = HashMap<ProviderAddr, Result<Vec<Version>, VersionsError>>;

/// Stage 3: chooses versions for every root. Only providers whose locked version cannot
/// stand (or `upgrade`) need their version list; each list is fetched once for all roots.
pub async fn plan(roots: Vec<Root<Loaded>>, sources: &Sources, upgrade: bool) -> Plan {
    let mut wanted: BTreeSet<ProviderAddr> = BTreeSet::new();
    for loaded in roots.iter().filter_map(|r| r.stage.as_ref().ok()) {
        for (addr, reqs) in &loaded.reqs {
            if needs_version_list(reqs, locked(loaded, addr), upgrade) {
                wanted.insert(addr.clone());
            }
        }
    }
    let (lists, warnings) = version_lists(sources, wanted).await;
    // Chosen on every core, in order.
    let roots: Vec<Root<Planned>> = parallel::run(|| {
        roots
            .into_par_iter()
            .map(|root| root.then(|loaded| choose(loaded, &lists, upgrade)))
            .collect()
    });
    let mut warnings = warnings;
    let mut packages = BTreeSet::new();
    for planned in roots.iter().filter_map(|r| r.stage.as_ref().ok()) {
        warnings.extend(untested_versions(planned));
        for (addr, version) in &planned.selected {
            packages.insert(Package {
                addr: addr.clone(),
                version: version.clone(),
                flavor: planned.loaded.flavor,
            });
        }
    }
    Plan {
        roots,
        packages,
        warnings,
    }
}

/// A Terraform Stack's component modules whose own constraint excludes the version
/// chosen: Stacks do not apply them (`configs.Config.ProviderTypes` drops them), so
/// nothing fails, but the module runs against a version its author did not allow.
/// A constraint that does not parse is skipped, as Stacks skip it.
fn untested_versions(planned: &Planned) -> Vec<Warning> {
    let Some(stack) = &planned.loaded.stack else {
        return Vec::new();
    };
    stack
        .module_constraints
        .iter()
        .filter_map(|module| {
            let version = planned.selected.get(&module.provider)?;
            let constraints = Constraints::parse(&module.constraint.text).ok()?;
            (!constraints.allows(version)).then(|| Warning::StackModuleConstraint {
                constraint: module.clone(),
                version: version.clone(),
            })
        })
        .collect()
}

fn locked<'a>(loaded: &'a Loaded, addr: &ProviderAddr) -> Option<&'a Version> {
    loaded
        .old
        .as_ref()
        .and_then(|old| old.lock.providers.get(addr))
        .map(|entry| &entry.version)
}

/// Every version list in `wanted`, fetched concurrently (the transport bounds requests
/// per host), parsed; unparsable versions are skipped with a warning, as Terraform does.
async fn version_lists(
    sources: &Sources,
    wanted: BTreeSet<ProviderAddr>,
) -> (VersionLists, Vec<Warning>) {
    let mut warnings = Vec::new();
    let fetches = wanted.into_iter().map(|addr| async move {
        let found = sources.versions(&addr).await;
        (addr, found)
    });
    let mut lists = HashMap::new();
    for (addr, found) in futures::future::join_all(fetches).await {
        let parsed = found.map(|found| {
            for message in found.warnings {
                warnings.push(Warning::Registry {
                    provider: addr.clone(),
                    message,
                });
            }
            let mut versions = Vec::new();
            for text in found.versions {
                match Version::parse(&text) {
                    Ok(v) => versions.push(v),
                    Err(_) => warnings.push(Warning::UnparsableVersion {
                        provider: addr.clone(),
                        text,
                    }),
                }
            }
            versions
        });
        lists.insert(addr, parsed);
    }
    (lists, warnings)
}

/// One root's versions; every provider that cannot be chosen is named.
fn choose(loaded: Loaded, lists: &VersionLists, upgrade: bool) -> Result<Planned, RootError> {
    let mut selected = BTreeMap::new();
    let mut errors = Vec::new();
    for (addr, reqs) in &loaded.reqs {
        let locked = locked(&loaded, addr);
        let available: &[Version] = match lists.get(addr) {
            Some(Ok(list)) => list,
            // Another root needed the list; this one fails only if it needs it too.
            Some(Err(e)) if needs_version_list(reqs, locked, upgrade) => {
                errors.push(SelectionError::VersionList(e.clone()));
                continue;
            }
            Some(Err(_)) | None => &[],
        };
        match select(addr, reqs, locked, available, upgrade) {
            Ok(version) => {
                selected.insert(addr.clone(), version);
            }
            Err(e) => errors.push(SelectionError::NoMatch(e)),
        }
    }
    if !errors.is_empty() {
        return Err(RootError::Selection(errors));
    }
    // From here on only the constraints are read: where each was declared (for the errors
    // above) and the module list (for changed-files mode) are dropped, so that a run over
    // thousands of roots does not hold them all through hashing.
    let mut loaded = loaded;
    loaded.modules = Vec::new();
    for reqs in loaded.reqs.values_mut() {
        reqs.declared = Vec::new();
    }
    Ok(Planned { loaded, selected })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::root::RootKind;
    use tfsum_config::{Declared, ProviderReqs};
    use tfsum_sources::testing::{hashicorp, TableRegistry};
    use tfsum_vocab::lockfile::{self, Flavor};
    use tfsum_vocab::version::Constraints;

    fn reqs(constraints: &str) -> ProviderReqs {
        ProviderReqs {
            constraints: Constraints::parse(constraints).unwrap(),
            declared: vec![Declared {
                text: constraints.to_string(),
                file: PathBuf::from("main.tf"),
                line: 2,
            }],
        }
    }

    /// A root requiring `providers` (name, constraints), with `locked` (name, version)
    /// in its lock file.
    fn root(dir: &str, providers: &[(&str, &str)], locked: &[(&str, &str)]) -> Root<Loaded> {
        let old = (!locked.is_empty()).then(|| {
            let mut text = String::new();
            for (name, version) in locked {
                text.push_str(&format!(
                    "provider \"registry.terraform.io/hashicorp/{name}\" {{\n  version = \"{version}\"\n}}\n"
                ));
            }
            let lock = lockfile::parse(&text, tfsum_vocab::addr::TERRAFORM_REGISTRY).unwrap();
            crate::load::OldLock {
                bytes: text.into_bytes(),
                lock,
                rendered: false,
            }
        });
        Root {
            dir: PathBuf::from(dir),
            kind: RootKind::Module,
            stage: Ok(Loaded {
                flavor: Flavor::Terraform,
                old,
                reqs: providers
                    .iter()
                    .map(|(name, c)| (hashicorp(name), reqs(c)))
                    .collect(),
                modules: vec![PathBuf::from(dir)],
                value_files: Vec::new(),
                evaluated_local: Vec::new(),
                evaluated_calls: Vec::new(),
                create_below: None,
                self_contained: false,
                lock_path: PathBuf::from(dir).join(lockfile::LOCK_FILE_NAME),
                stack: None,
            }),
        }
    }

    fn selected(root: &Root<Planned>) -> Vec<String> {
        match &root.stage {
            Ok(planned) => planned
                .selected
                .iter()
                .map(|(addr, v)| format!("{} {v}", addr.r#type))
                .collect(),
            Err(e) => vec![format!("error: {e}")],
        }
    }

    /// Each needed version list is fetched once for all roots; a locked version the
    /// constraints allow needs none; the packages are each (provider, version) once;
    /// what the lists said worth a warning comes back typed with the plan.
    #[tokio::test]
    async fn versions_once_per_provider_packages_once_per_version() {
        let mut registry = TableRegistry::listing(&[
            ("null", &["3.1.0", "3.2.1", "nonsense"]),
            ("random", &["3.6.0"]),
        ]);
        if let Some(found) = registry.versions.get_mut(&hashicorp("null")) {
            found.warnings.push("deprecated".to_string());
        }
        let registry = Arc::new(registry);
        let sources = Sources::registry(registry.clone());
        let roots = vec![
            root("a", &[("null", "~> 3.1"), ("random", "3.6.0")], &[]),
            root("b", &[("null", ">= 3.0")], &[]),
            root("c", &[("null", "~> 3.1")], &[("null", "3.1.0")]),
            Root::failed(
                PathBuf::from("d"),
                RootKind::Module,
                RootError::Selection(Vec::new()),
            ),
        ];
        let plan = plan(roots, &sources, false).await;
        assert_eq!(registry.asked(), ["versions null", "versions random"]);
        let got: Vec<Vec<String>> = plan.roots.iter().map(selected).collect();
        assert_eq!(
            got,
            [
                vec!["null 3.2.1", "random 3.6.0"],
                vec!["null 3.2.1"],
                vec!["null 3.1.0"],
                vec!["error: "],
            ]
        );
        let packages: Vec<String> = plan
            .packages
            .iter()
            .map(|p| format!("{} {}", p.addr.r#type, p.version))
            .collect();
        assert_eq!(packages, ["null 3.1.0", "null 3.2.1", "random 3.6.0"]);
        let null = hashicorp("null");
        assert_eq!(
            plan.warnings,
            [
                Warning::Registry {
                    provider: null.clone(),
                    message: "deprecated".to_string()
                },
                Warning::UnparsableVersion {
                    provider: null,
                    text: "nonsense".to_string()
                },
            ]
        );
    }

    /// A version list that cannot be had fails exactly the roots that need it, with the
    /// typed reason; a root whose lock still stands is planned without it.
    #[tokio::test]
    async fn a_missing_version_list_fails_only_the_roots_that_need_it() {
        let registry = Arc::new(TableRegistry::listing(&[("random", &["3.6.0"])]));
        let sources = Sources::registry(registry.clone());
        let roots = vec![
            root("a", &[("null", "~> 3.1")], &[]),
            root("b", &[("null", "~> 3.1")], &[("null", "3.1.0")]),
            root("c", &[("null", "~> 3.1"), ("random", "> 9.0")], &[]),
        ];
        let plan = plan(roots, &sources, false).await;
        assert_eq!(selected(&plan.roots[1]), ["null 3.1.0"]);
        let Err(RootError::Selection(errors)) = &plan.roots[2].stage else {
            panic!("c: {:?}", plan.roots[2].stage);
        };
        assert!(
            matches!(
                &errors[0],
                SelectionError::VersionList(e @ VersionsError::Registry(_))
                    if e.is_not_found()
            ),
            "{errors:?}"
        );
        assert!(
            matches!(&errors[1], SelectionError::NoMatch(m) if m.provider == hashicorp("random")),
            "{errors:?}"
        );
        assert!(matches!(
            plan.roots[0].stage,
            Err(RootError::Selection(ref e)) if e.len() == 1
        ));
        assert_eq!(plan.packages.len(), 1, "only b's null 3.1.0");
    }
}
