//! The resolve stage over all roots: fetch each needed version list once, choose every
//! root's versions, and collect the unique packages the hash stage must hash ([`Plan`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::sources::{Package, Sources};
use crate::stages::load::Loaded;
use crate::stages::root::{Root, RootError, SelectionError};
use crate::vocab::addr::ProviderAddr;
use crate::vocab::version::Version;

use super::{needs_version_list, select};

/// A root with a version chosen for every provider it requires.
#[derive(Debug)]
pub(crate) struct Planned {
    pub loaded: Loaded,
    pub selected: BTreeMap<ProviderAddr, Version>,
}

/// What the hash stage needs: every root's choices, and each package once.
#[derive(Debug)]
pub(crate) struct Plan {
    pub roots: Vec<Root<Planned>>,
    pub packages: BTreeSet<Package>,
}

/// Each provider's published versions, or why they could not be listed.
type VersionLists = HashMap<ProviderAddr, Result<Vec<Version>, String>>;

/// Stage 3: chooses versions for every root. Only providers whose locked version cannot
/// stand (or `upgrade`) need their version list; each list is fetched once for all roots.
pub(crate) async fn plan(
    roots: Vec<Root<Loaded>>,
    sources: &Sources,
    upgrade: bool,
    warnings: &mut Vec<String>,
) -> Plan {
    let mut wanted: BTreeSet<ProviderAddr> = BTreeSet::new();
    for loaded in roots.iter().filter_map(|r| r.stage.as_ref().ok()) {
        for (addr, reqs) in &loaded.reqs {
            if needs_version_list(reqs, locked(loaded, addr), upgrade) {
                wanted.insert(addr.clone());
            }
        }
    }
    let lists = version_lists(sources, wanted, warnings).await;
    let roots: Vec<Root<Planned>> = roots
        .into_iter()
        .map(|root| root.then(|loaded| choose(loaded, &lists, upgrade)))
        .collect();
    let mut packages = BTreeSet::new();
    for planned in roots.iter().filter_map(|r| r.stage.as_ref().ok()) {
        for (addr, version) in &planned.selected {
            packages.insert(Package {
                addr: addr.clone(),
                version: version.clone(),
                flavor: planned.loaded.flavor,
            });
        }
    }
    Plan { roots, packages }
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
    warnings: &mut Vec<String>,
) -> VersionLists {
    let fetches = wanted.into_iter().map(|addr| async move {
        let found = sources.versions(&addr).await;
        (addr, found)
    });
    let mut lists = HashMap::new();
    for (addr, found) in futures::future::join_all(fetches).await {
        let parsed = found.map(|found| {
            for w in found.warnings {
                warnings.push(format!("{addr}: the registry says: {w}"));
            }
            let mut versions = Vec::new();
            for text in found.versions {
                match Version::parse(&text) {
                    Ok(v) => versions.push(v),
                    Err(_) => warnings.push(format!(
                        "{addr}: the registry lists an unparsable version {text:?}; ignored"
                    )),
                }
            }
            versions
        });
        lists.insert(addr, parsed);
    }
    lists
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
    Ok(Planned { loaded, selected })
}
