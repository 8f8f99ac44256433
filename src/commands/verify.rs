//! `tfsum verify`: audits existing lock files, never writing one.
//!
//! Terraform's `providers lock` keeps every hash already in a file (spec §9), so a planted
//! `h1:` survives every re-lock and lets `init` accept another binary. `verify` asks, for
//! every hash of every entry, who vouches for it:
//!
//! - a `zh:` must be a line of the version's SHA256SUMS whose signature verifies (the
//!   same checks as `lock`, spec §5.4);
//! - an `h1:` must be the `h1:` of one of the version's published packages: every
//!   platform the signed SHA256SUMS lists (or the configured mirror holds), each hashed
//!   once, through the cache.
//!
//! It reuses the stages of `lock` rather than copying them: the one lock-file finder, the
//! lock-file parser (with lines), and the hash stage's [`Sources`], so the registry,
//! mirrors, cache and their checks are exactly those of `lock`. Each provider's versions
//! are listed once, and each unique (provider, version) is checked once for all files,
//! Terraform's and OpenTofu's alike. A hash nobody vouches for, a version its registry
//! does not publish, and a package that cannot be checked are each a finding that names
//! the file, line, provider and version. The report and its printers are
//! [`tfsum_report::verify`].

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::commands::lock::FatalError;
use crate::commands::settings::VerifySettings;
use tfsum_report::verify::{
    FileError, Finding, FindingKind, Unchecked, VerifiedFile, VerifyReport,
};
use tfsum_sources::{PackageHashes, Sources, VersionsError, VersionsFound};
use tfsum_vocab::addr::{Platform, ProviderAddr};
use tfsum_vocab::lockfile::{self, Flavor, LockFile};
use tfsum_vocab::progress::Progress;
use tfsum_vocab::version::Version;

/// What the sources say about one package.
#[derive(Debug)]
enum Verdict {
    Published {
        hashes: PackageHashes,
        platforms: Vec<Platform>,
    },
    Missing(Vec<String>),
    Unchecked(Unchecked),
}

/// A parsed lock file and the lines of its parts.
struct Parsed {
    lock: LockFile,
    lines: lockfile::Lines,
}

/// Runs `tfsum verify` over `settings.paths` (lock files, directories holding one, or
/// with `recursive` trees to search).
pub(crate) async fn run(
    settings: &VerifySettings,
    progress: Arc<dyn Progress>,
) -> Result<VerifyReport, FatalError> {
    let started = Instant::now();
    for path in &settings.paths {
        if !path.exists() {
            return Err(FatalError::NotFound(path.clone()));
        }
    }
    let services = settings.sources.services(progress)?;
    let files = read_all(settings);
    let sources = &services.sources;
    let verdicts = check_all(sources, &locked_packages(&files)).await;
    let files = files
        .into_iter()
        .map(|(path, parsed)| VerifiedFile {
            path,
            outcome: parsed.map(|parsed| findings(&parsed, &verdicts)),
        })
        .collect();
    let mut warnings = services.warnings.clone();
    warnings.extend(super::run::refused_entries(&services));
    Ok(VerifyReport {
        files,
        warnings,
        stats: sources.stats(),
        elapsed: started.elapsed(),
    })
}

/// Every lock file `settings.paths` stand for, each read once however many paths lead to
/// it, or why a path stands for none.
fn read_all(settings: &VerifySettings) -> Vec<(PathBuf, Result<Parsed, FileError>)> {
    let within = tfsum_disk::atomic::link_trees(&settings.paths);
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for path in &settings.paths {
        for found in tfsum_disk::walk::lock_files(path, settings.recursive) {
            match found {
                Ok(file) => {
                    let key = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
                    if seen.insert(key) {
                        let parsed = read(&file, &within);
                        files.push((file, parsed));
                    }
                }
                Err((path, error)) => files.push((path, Err(FileError::Find(error)))),
            }
        }
    }
    files
}

/// Each (provider, version) once, under the rules of the roots that lock it: when a
/// Terraform file names it, every package is downloaded, and those hashes vouch for an
/// OpenTofu file's entry too; OpenTofu files alone may take the `packages` map.
fn locked_packages(
    files: &[(PathBuf, Result<Parsed, FileError>)],
) -> BTreeMap<(ProviderAddr, Version), Flavor> {
    let mut packages: BTreeMap<(ProviderAddr, Version), Flavor> = BTreeMap::new();
    for (_, parsed) in files {
        let Ok(parsed) = parsed else { continue };
        for (addr, entry) in &parsed.lock.providers {
            let flavor = packages
                .entry((addr.clone(), entry.version.clone()))
                .or_insert(parsed.lock.flavor);
            if parsed.lock.flavor == Flavor::Terraform {
                *flavor = Flavor::Terraform;
            }
        }
    }
    packages
}

/// The verdict on every package: each provider's versions listed once, then every
/// (provider, version) checked, all concurrently.
async fn check_all(
    sources: &Sources,
    packages: &BTreeMap<(ProviderAddr, Version), Flavor>,
) -> Verdicts {
    let providers: BTreeSet<&ProviderAddr> = packages.keys().map(|(addr, _)| addr).collect();
    let listed: HashMap<&ProviderAddr, Result<VersionsFound, VersionsError>> =
        futures::future::join_all(
            providers
                .into_iter()
                .map(|addr| async move { (addr, sources.versions(addr).await) }),
        )
        .await
        .into_iter()
        .collect();
    futures::future::join_all(packages.iter().map(|((addr, version), flavor)| {
        let listed = listed.get(addr);
        async move {
            let verdict = check(sources, addr, version, *flavor, listed).await;
            ((addr.clone(), version.clone()), verdict)
        }
    }))
    .await
    .into_iter()
    .collect()
}

/// Reads and parses one lock file, as `fmt` reads it (a link only within the trees,
/// UTF-8, no conflict markers), keeping the lines of its hashes.
fn read(path: &std::path::Path, within: &[PathBuf]) -> Result<Parsed, FileError> {
    let target = tfsum_disk::atomic::link_target(path, within).map_err(FileError::Link)?;
    let bytes = std::fs::read(&target).map_err(FileError::Read)?;
    let lock = lockfile::read(&bytes).map_err(FileError::Invalid)?;
    // `read` accepted the bytes, so they are UTF-8 and parse again the same way.
    let src = String::from_utf8_lossy(&bytes);
    let lines = lockfile::parse_located(&src, lock.flavor.default_registry())
        .map(|(_, lines)| lines)
        .unwrap_or_default();
    Ok(Parsed { lock, lines })
}

/// Each (provider, version)'s verdict.
type Verdicts = BTreeMap<(ProviderAddr, Version), Verdict>;

/// Asks the sources about one package, given its provider's version list: is the
/// version published, for which platforms, and what are the hashes of all of them.
async fn check(
    sources: &Sources,
    addr: &ProviderAddr,
    version: &Version,
    flavor: Flavor,
    listed: Option<&Result<VersionsFound, VersionsError>>,
) -> Verdict {
    let listed = match listed {
        Some(Ok(found)) => &found.versions,
        Some(Err(e)) => return Verdict::Unchecked(Unchecked::Versions(e.clone())),
        None => return Verdict::Unchecked(Unchecked::NotChecked),
    };
    let published = listed
        .iter()
        .any(|v| Version::parse(v).is_ok_and(|v| v == *version));
    if !published {
        let mut parsed: Vec<Version> = listed
            .iter()
            .filter_map(|v| Version::parse(v).ok())
            .collect();
        parsed.sort();
        return Verdict::Missing(parsed.iter().map(Version::to_string).collect());
    }
    let platforms = match sources.published_platforms(addr, version).await {
        Ok(platforms) if platforms.is_empty() => return Verdict::Unchecked(Unchecked::NoPackages),
        Ok(platforms) => platforms,
        Err(e) => return Verdict::Unchecked(Unchecked::Package(e)),
    };
    match sources
        .package_hashes(addr, version, &platforms, flavor)
        .await
    {
        Ok(hashes) => Verdict::Published { hashes, platforms },
        Err(e) => Verdict::Unchecked(Unchecked::Package(e)),
    }
}

/// The findings of one file: per entry, the package's verdict, or per hash, whether it
/// is vouched for.
fn findings(parsed: &Parsed, verdicts: &Verdicts) -> Vec<Finding> {
    let mut found = Vec::new();
    for (addr, entry) in &parsed.lock.providers {
        let package = (addr.clone(), entry.version.clone());
        let block_line = parsed.lines.providers.get(addr).copied().unwrap_or(1);
        let finding = |line, problem| Finding {
            line,
            provider: addr.clone(),
            version: entry.version.clone(),
            problem,
        };
        match verdicts.get(&package) {
            Some(Verdict::Published { hashes, platforms }) => {
                for hash in entry.hashes.iter().filter(|h| !hashes.contains_key(h)) {
                    let line = parsed
                        .lines
                        .hashes
                        .get(&(addr.clone(), hash.clone()))
                        .copied()
                        .unwrap_or(block_line);
                    found.push(finding(
                        line,
                        FindingKind::Unvouched {
                            hash: hash.clone(),
                            checked: platforms.clone(),
                        },
                    ));
                }
            }
            Some(Verdict::Missing(available)) => found.push(finding(
                block_line,
                FindingKind::VersionMissing {
                    available: available.clone(),
                },
            )),
            Some(Verdict::Unchecked(reason)) => found.push(finding(
                block_line,
                FindingKind::Unchecked {
                    reason: reason.clone(),
                },
            )),
            None => found.push(finding(
                block_line,
                FindingKind::Unchecked {
                    reason: Unchecked::NotChecked,
                },
            )),
        }
    }
    found.sort_by_key(|f| f.line);
    found
}
