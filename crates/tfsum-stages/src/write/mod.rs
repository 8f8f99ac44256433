//! Stage 5 of the pipeline (docs/design.md "write"): each planned root's new lock file, built
//! from its old one by the `providers lock` merge (spec §9) plus `init`'s pruning of
//! providers no longer required, rendered whole, compared with what is on disk and
//! replaced atomically ([`tfsum_disk::atomic`]) only when the bytes differ: a chunk of
//! roots at a time, whose files are made durable together. What changes
//! is described provider by provider ([`changes`]) and, where that says nothing, for the
//! file as a whole ([`drift`]). In check mode nothing is written, and a unified diff shows
//! what would change.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub mod changes;
pub mod diff;
pub mod drift;
mod outcome;
pub mod prepared;

pub use outcome::{RootOutcome, RootReport};

use crate::hash::Hashes;
use crate::parallel;
use crate::resolve::Planned;
use crate::root::{Root, RootError, RootKind};
use changes::ProviderChange;
use tfsum_sources::{HashOrigin, Package, PackageError, PackageHashes, PackageProblem};
use tfsum_vocab::addr::{Platform, ProviderAddr};
use tfsum_vocab::lockfile::{self, LockFile, LockForm};
use tfsum_vocab::progress::Progress;

pub use tfsum_vocab::lockfile::LOCK_FILE_NAME;

/// What a write did (or, in check mode, would do) to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The file did not exist.
    Created,
    /// The file was replaced.
    Updated,
    /// The file already held exactly these bytes and was not touched.
    Unchanged,
}

impl Change {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Change::Created => "created",
            Change::Updated => "updated",
            Change::Unchanged => "unchanged",
        }
    }
}

/// What writing `new` over `old` (the current bytes, if any) would do.
pub fn compare(old: Option<&[u8]>, new: &str) -> Change {
    match old {
        None => Change::Created,
        Some(old) if old == new.as_bytes() => Change::Unchanged,
        Some(_) => Change::Updated,
    }
}

/// Stage 5: every root's outcome, in order; `check` writes nothing. Roots are handled
/// [`CHUNK`] at a time: their new files are written together
/// ([`tfsum_disk::atomic::replace_files`]), then their data is dropped. With `narrow`,
/// the new `h1:` hashes of roots other than Terraform Stacks are only those of its
/// platforms (the run hashed more for stacks: [`Narrow`]).
pub fn write(
    roots: Vec<Root<Planned>>,
    hashes: &Hashes,
    narrow: Narrow<'_>,
    check: bool,
    progress: &dyn Progress,
) -> Vec<RootReport> {
    let mut reports = Vec::with_capacity(roots.len());
    let mut roots = roots.into_iter().peekable();
    while roots.peek().is_some() {
        let chunk: Vec<Root<Planned>> = roots.by_ref().take(CHUNK).collect();
        // Merged, rendered and compared on every core.
        let finished: Vec<(PathBuf, RootKind, Result<Finished, RootError>)> = parallel::run(|| {
            chunk
                .into_par_iter()
                .map(|root| {
                    let finished = root
                        .stage
                        .and_then(|planned| finish(&root.dir, planned, hashes, narrow, check));
                    (root.dir, root.kind, finished)
                })
                .collect()
        });
        let writes: Vec<(&Path, &[u8])> = finished
            .iter()
            .filter_map(|(_, _, f)| f.as_ref().ok()?.write.as_ref())
            .map(|(path, content)| (path.as_path(), content.as_bytes()))
            .collect();
        let mut written = parallel::run(|| tfsum_disk::atomic::replace_files(&writes)).into_iter();
        for (dir, kind, finished) in finished {
            let outcome = match finished {
                Ok(Finished {
                    outcome,
                    write: Some((path, _)),
                }) => match written.next() {
                    Some(Err(source)) => RootOutcome::Failed(RootError::Write { path, source }),
                    _ => outcome,
                },
                Ok(Finished { outcome, .. }) => outcome,
                Err(e) => RootOutcome::Failed(e),
            };
            progress.root_done(&dir, outcome.word(check));
            reports.push(RootReport { dir, kind, outcome });
        }
    }
    reports
}

/// Roots whose files are written together: enough that a flush serves many files, few
/// enough that the rendered files held meanwhile stay small and their temporary files
/// stay well inside the usual limit of 1,024 open files.
const CHUNK: usize = 512;

/// A root's outcome, and the file to write for it to be true.
struct Finished {
    outcome: RootOutcome,
    /// Where, and what.
    write: Option<(PathBuf, String)>,
}

fn finish(
    dir: &Path,
    planned: Planned,
    hashes: &Hashes,
    narrow: Narrow<'_>,
    check: bool,
) -> Result<Finished, RootError> {
    let (new, origins) = merge(&planned, hashes, narrow)?;
    let old = planned.loaded.old.as_ref();
    let unchanged = || Finished {
        outcome: RootOutcome::Done {
            change: Change::Unchanged,
            file: None,
            changes: Vec::new(),
            diff: None,
        },
        write: None,
    };
    // Most roots of a run change nothing: a new lock file equal to an old one that is its
    // own rendering would render to the old bytes, so it is not rendered.
    if old.is_some_and(|o| o.rendered && o.lock == new) {
        return Ok(unchanged());
    }
    let content = new.render();
    let change = compare(old.map(|o| o.bytes.as_slice()), &content);
    if change == Change::Unchanged {
        return Ok(unchanged());
    }
    let changes: Vec<ProviderChange> = changes::between(old.map(|o| &o.lock), &new, &origins);
    let file = drift::file_change(old.map(|o| &o.lock), &new, &changes);
    if check {
        let path = dir.join(LOCK_FILE_NAME);
        let label = path.display().to_string();
        let label = label.strip_prefix("./").unwrap_or(&label);
        let old_text = old.map(|o| String::from_utf8_lossy(&o.bytes).into_owned());
        let old_label = match old {
            Some(_) => format!("a/{label}"),
            None => "/dev/null".to_string(),
        };
        let diff = diff::unified(
            old_text.as_deref().unwrap_or(""),
            &content,
            &old_label,
            &format!("b/{label}"),
        );
        let outcome = RootOutcome::Done {
            change,
            file,
            changes,
            diff: Some(diff),
        };
        return Ok(Finished {
            outcome,
            write: None,
        });
    }
    let outcome = RootOutcome::Done {
        change,
        file,
        changes,
        diff: None,
    };
    if let Some(base) = &planned.loaded.create_below {
        let dir = planned.loaded.lock_path.parent().unwrap_or(Path::new("."));
        tfsum_disk::atomic::make_dirs_below(base, &tfsum_config::paths::absolute(dir)).map_err(
            |source| RootError::Write {
                path: planned.loaded.lock_path.clone(),
                source,
            },
        )?;
    }
    Ok(Finished {
        outcome,
        write: Some((planned.loaded.lock_path, content)),
    })
}

/// The platforms a run's roots lock when a Terraform Stack among them locks more: with
/// no platform given, a stack locks `linux_amd64` (where HCP Terraform runs it) beside
/// this machine's, the others this machine's alone (docs/spec/stacks.md §4). `None`:
/// every root locks what was hashed.
pub(crate) type Narrow<'a> = Option<&'a [Platform]>;

/// The new lock file: for each selected provider, the `providers lock` merge of the old
/// entry with the package's hashes (spec §9); providers no longer required are gone, as
/// `init` drops them. Every package that failed is named. Also gives each provider's
/// hashes with their provenance, for the change report.
fn merge<'h>(
    planned: &Planned,
    hashes: &'h Hashes,
    narrow: Narrow<'_>,
) -> Result<(LockFile, BTreeMap<ProviderAddr, &'h PackageHashes>), RootError> {
    let loaded = &planned.loaded;
    let old = loaded.old.as_ref().map(|o| &o.lock);
    let form = loaded.lock_form();
    let only = match form {
        LockForm::Init => narrow,
        LockForm::Stack => None,
    };
    let wanted = |origin: &HashOrigin| match (&origin.platform, only) {
        (Some(platform), Some(only)) => only.contains(&**platform),
        _ => true,
    };
    let mut providers = BTreeMap::new();
    let mut origins = BTreeMap::new();
    let mut errors = Vec::new();
    for (addr, version) in &planned.selected {
        let package = Package {
            addr: addr.clone(),
            version: version.clone(),
            flavor: loaded.flavor,
        };
        let new_hashes = match hashes.get(&package) {
            Some(Ok(hashes)) => hashes,
            Some(Err(e)) => {
                errors.push(e.clone());
                continue;
            }
            None => {
                errors.push(PackageError::new(
                    addr,
                    version,
                    None,
                    PackageProblem::NotComputed,
                ));
                continue;
            }
        };
        // A stack's file records no constraints (docs/spec/stacks.md §3).
        let constraints = match form {
            LockForm::Init => loaded
                .reqs
                .get(addr)
                .map(|r| r.constraints.clone())
                .unwrap_or_default(),
            LockForm::Stack => Default::default(),
        };
        providers.insert(
            addr.clone(),
            lockfile::merge_providers_lock(
                old.and_then(|o| o.providers.get(addr)),
                version.clone(),
                constraints,
                new_hashes
                    .iter()
                    .filter(|(_, origin)| wanted(origin))
                    .map(|(hash, _)| hash.clone()),
            ),
        );
        origins.insert(addr.clone(), new_hashes);
    }
    if !errors.is_empty() {
        return Err(RootError::Packages(errors));
    }
    let lock = LockFile {
        flavor: old.map(|o| o.flavor).unwrap_or(loaded.flavor),
        form,
        providers,
    };
    Ok((lock, origins))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Loaded, OldLock};
    use tfsum_config::ProviderReqs;
    use tfsum_sources::testing::{h1, hashicorp, zh};
    use tfsum_sources::{HashOrigin, PackageProblem, Provenance};
    use tfsum_vocab::addr::Platform;
    use tfsum_vocab::lockfile::Flavor;
    use tfsum_vocab::progress::NoProgress;
    use tfsum_vocab::version::{Constraints, Version};

    #[test]
    fn compare_tells_created_updated_unchanged() {
        assert_eq!(compare(None, "a\n"), Change::Created);
        assert_eq!(compare(Some(b"a\n"), "a\n"), Change::Unchanged);
        assert_eq!(compare(Some(b"a\n"), "b\n"), Change::Updated);
    }

    fn null() -> Package {
        Package {
            addr: hashicorp("null"),
            version: Version::new(3, 2, 1),
            flavor: Flavor::Terraform,
        }
    }

    /// The package's hashes for `platforms`, as the hash stage gives them.
    fn hashed(platforms: &[&str]) -> Hashes {
        let package = null();
        let mut hashes = PackageHashes::new();
        for platform in platforms {
            let platform: Platform = platform.parse().unwrap();
            let origin = HashOrigin::of(Provenance::Download, &platform);
            hashes.insert(h1(&package.addr, &package.version, &platform), origin);
        }
        let signed = HashOrigin {
            provenance: Provenance::SignedSums,
            platform: None,
        };
        hashes.insert(zh(&package.addr, &package.version), signed);
        Hashes::from([(package, Ok(hashes))])
    }

    /// The root `dir` planned with null 3.2.1 under `~> 3.1`, and its lock file as it is
    /// on disk now.
    fn planned(dir: &Path) -> Root<Planned> {
        let lock_path = dir.join(LOCK_FILE_NAME);
        let old = std::fs::read(&lock_path).ok().map(|bytes| {
            let (lock, rendered) = lockfile::read_noting_form(&bytes, None).unwrap();
            OldLock {
                bytes,
                lock,
                rendered,
            }
        });
        let reqs = ProviderReqs {
            constraints: Constraints::parse("~> 3.1").unwrap(),
            declared: Vec::new(),
        };
        Root {
            dir: dir.to_path_buf(),
            kind: RootKind::Module,
            stage: Ok(Planned {
                loaded: Loaded {
                    flavor: Flavor::Terraform,
                    old,
                    reqs: [(null().addr, reqs)].into(),
                    modules: vec![dir.to_path_buf()],
                    value_files: Vec::new(),
                    evaluated_local: Vec::new(),
                    evaluated_calls: Vec::new(),
                    create_below: None,
                    self_contained: false,
                    lock_path,
                    stack: None,
                },
                selected: [(null().addr, null().version)].into(),
            }),
        }
    }

    fn only(mut reports: Vec<RootReport>) -> RootReport {
        assert_eq!(reports.len(), 1);
        reports.remove(0)
    }

    const WRITTEN: &str = "\
# This file is maintained automatically by \"terraform init\".
# Manual edits may be lost in future updates.

provider \"registry.terraform.io/hashicorp/null\" {
  version     = \"3.2.1\"
  constraints = \"~> 3.1\"
  hashes = [
    \"h1:null-3.2.1-linux_amd64\",
    \"zh:null-3.2.1\",
  ]
}
";

    /// A new file is written whole and described; the same plan again touches nothing;
    /// check mode writes nothing and gives the diff; a package that failed stops its
    /// root with the typed error and leaves the file as it was; a root that stopped
    /// earlier passes through.
    #[test]
    fn writes_describes_checks_and_stops() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("root");
        std::fs::create_dir_all(&dir).unwrap();
        let lock_path = dir.join(LOCK_FILE_NAME);

        let created = only(write(
            vec![planned(&dir)],
            &hashed(&["linux_amd64"]),
            None,
            false,
            &NoProgress,
        ));
        assert_eq!(std::fs::read_to_string(&lock_path).unwrap(), WRITTEN);
        assert_eq!(created.outcome.change(), Some(Change::Created));
        assert_eq!(
            created.outcome.file_change(),
            Some(drift::FileChange::Missing)
        );
        assert_eq!(created.outcome.diff(), None);
        let lines: Vec<String> = created
            .outcome
            .changes()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            lines,
            [
                "added registry.terraform.io/hashicorp/null 3.2.1 (constraints \"~> 3.1\")",
                "registry.terraform.io/hashicorp/null 3.2.1: h1: added for linux_amd64 (registry download); zh: 1 added (signed SHA256SUMS)",
            ]
        );

        let again = only(write(
            vec![planned(&dir)],
            &hashed(&["linux_amd64"]),
            None,
            false,
            &NoProgress,
        ));
        assert_eq!(again.outcome.change(), Some(Change::Unchanged));
        assert!(again.outcome.changes().is_empty());

        let checked = only(write(
            vec![planned(&dir)],
            &hashed(&["darwin_arm64", "linux_amd64"]),
            None,
            true,
            &NoProgress,
        ));
        assert_eq!(checked.outcome.change(), Some(Change::Updated));
        assert_eq!(checked.outcome.file_change(), None);
        assert_eq!(std::fs::read_to_string(&lock_path).unwrap(), WRITTEN);
        let diff = checked.outcome.diff().expect("a diff in check mode");
        assert!(
            diff.contains("+    \"h1:null-3.2.1-darwin_arm64\","),
            "{diff}"
        );
        assert_eq!(checked.outcome.changes().len(), 1);

        let problem = PackageProblem::Offline {
            missing: vec!["darwin_arm64".parse().unwrap()],
        };
        let error = PackageError::new(&null().addr, &null().version, None, problem);
        let failing = Hashes::from([(null(), Err(error))]);
        let stopped = Root::failed(
            PathBuf::from("earlier"),
            RootKind::Unit,
            RootError::Selection(Vec::new()),
        );
        let reports = write(
            vec![planned(&dir), stopped],
            &failing,
            None,
            false,
            &NoProgress,
        );
        assert_eq!(std::fs::read_to_string(&lock_path).unwrap(), WRITTEN);
        let Some(RootError::Packages(errors)) = reports[0].outcome.error() else {
            panic!("{:?}", reports[0].outcome);
        };
        assert!(
            matches!(errors[0].problem, PackageProblem::Offline { .. }),
            "{errors:?}"
        );
        assert_eq!(errors[0].provider, null().addr);
        assert_eq!(reports[1].dir, PathBuf::from("earlier"));
        assert!(matches!(
            reports[1].outcome.error(),
            Some(RootError::Selection(_))
        ));
    }
}
