//! Stage 1 of the pipeline (docs/design.md "discover"): find the directories that hold
//! Terraform/OpenTofu configuration and Terragrunt units, in one walk.
//!
//! A module is a directory's top-level `*.tf`, `*.tf.json`, `*.tofu` and `*.tofu.json`
//! files (spec §10 for the OpenTofu extensions); a Terragrunt unit candidate is a
//! directory holding `terragrunt.hcl`. Which of those are *roots* is decided later, after
//! loading ([`crate::load`]); this stage only walks the filesystem. [`tfsum_disk::walk::walk`] is the one
//! directory walker of tfsum: `tfsum fmt` finds lock files with it too.
//!
//! Recursive walks skip `.terraform/` (downloaded modules and providers), `.git/` and every
//! other dot-directory, plus anything matching an `--ignore-path` regex. An ignore regex is
//! tried against two spellings of each directory and prunes it when either matches:
//!
//! * the path relative to the given root, with `/` separators (`envs/prod`, `modules/vpc`);
//! * the full path as walked, i.e. the given root joined with the relative path, also with
//!   `/` separators (`./infra/envs/prod` when the root was `./infra`).
//!
//! The given root itself is never ignored: the user named it explicitly.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::parallel;
use tfsum_disk::walk::{dir_holds, walk_knowing, DiscoverWarning, KnownListings, Listings, Walked};
use tfsum_vocab::paths::{normalize_path, STACK_FILE_NAME, UNIT_FILE_NAME};

/// Why discovery could not even start for one of the given paths.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a directory", path.display())]
    NotADirectory { path: PathBuf },
    #[error(
        "{}: no Terraform configuration files (*.tf, *.tf.json, *.tofu, *.tofu.json, \
         *.tfcomponent.hcl) in this directory; pass --recursive to search its subdirectories",
        path.display()
    )]
    NoConfiguration { path: PathBuf },
}

/// The result of a discovery run: module directories and Terragrunt unit candidates
/// (each sorted, deduplicated, lexically normalised with [`normalize_path`]) and the
/// warnings collected on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    pub dirs: Vec<PathBuf>,
    /// Those of `dirs` holding `*.tofu` or `*.tofu.json` files, as a recursive walk saw
    /// them (empty otherwise), so that telling a root's flavor need not list it again.
    pub tofu_dirs: BTreeSet<PathBuf>,
    pub unit_dirs: Vec<PathBuf>,
    /// Directories holding a Terragrunt stack file (`terragrunt.stack.hcl`).
    pub stack_dirs: Vec<PathBuf>,
    /// Directories holding a Terraform Stack (`*.tfcomponent.hcl`, HCP Terraform).
    pub tf_stack_dirs: Vec<PathBuf>,
    /// What each walked directory held, so that loading need not list it again.
    pub listings: Listings,
    pub warnings: Vec<DiscoverWarning>,
}

/// Finds every module directory and Terragrunt unit candidate under `paths`.
///
/// Without `recursive` each given path is itself the directory, and it is an error if it
/// holds neither configuration files nor `terragrunt.hcl` (a typo in a path should not
/// silently lock nothing). With `recursive`, the given paths are walked (see the module
/// docs for what is skipped); symbolic links to directories are not followed, which also
/// keeps link loops out.
pub fn discover(
    paths: &[PathBuf],
    recursive: bool,
    ignore: &[Regex],
) -> Result<Discovery, DiscoverError> {
    discover_knowing(paths, recursive, ignore, &NoListing)
}

/// No directory's listing is known: each is read.
struct NoListing;

impl KnownListings for NoListing {
    fn known(&self, _dir: &Path) -> Option<std::sync::Arc<tfsum_disk::walk::Listing>> {
        None
    }
}

/// [`discover`], taking the listing of each directory `known` vouches for instead of
/// reading it (the configuration index, `tfsum_disk::index`): the same discovery.
pub fn discover_knowing(
    paths: &[PathBuf],
    recursive: bool,
    ignore: &[Regex],
    known: &dyn KnownListings,
) -> Result<Discovery, DiscoverError> {
    let mut all = Walked::default();
    for root in paths {
        let meta = std::fs::metadata(root).map_err(|source| DiscoverError::Io {
            path: root.clone(),
            source,
        })?;
        if !meta.is_dir() {
            return Err(DiscoverError::NotADirectory { path: root.clone() });
        }
        if recursive {
            let walked = parallel::run(|| walk_knowing(root, ignore, known));
            all.module_dirs.extend(walked.module_dirs);
            all.tofu_dirs.extend(walked.tofu_dirs);
            all.unit_dirs.extend(walked.unit_dirs);
            all.stack_dirs.extend(walked.stack_dirs);
            all.tf_stack_dirs.extend(walked.tf_stack_dirs);
            all.listings.extend(walked.listings);
            all.warnings.extend(walked.warnings);
            continue;
        }
        tfsum_disk::leftovers::sweep(root);
        let holds = dir_holds(root).map_err(|source| DiscoverError::Io {
            path: root.clone(),
            source,
        })?;
        let has_config = holds.config;
        let is_unit = root.join(UNIT_FILE_NAME).is_file();
        let is_stack = root.join(STACK_FILE_NAME).is_file();
        if !has_config && !is_unit && !is_stack && !holds.tf_stack {
            return Err(DiscoverError::NoConfiguration { path: root.clone() });
        }
        if is_stack {
            all.stack_dirs.insert(normalize_path(root));
        }
        if holds.tf_stack {
            all.tf_stack_dirs.insert(normalize_path(root));
        }
        if is_unit {
            all.unit_dirs.insert(normalize_path(root));
        } else if has_config {
            all.module_dirs.insert(normalize_path(root));
        }
    }
    Ok(Discovery {
        dirs: all.module_dirs.into_iter().collect(),
        tofu_dirs: all.tofu_dirs,
        unit_dirs: all.unit_dirs.into_iter().collect(),
        stack_dirs: all.stack_dirs.into_iter().collect(),
        tf_stack_dirs: all.tf_stack_dirs.into_iter().collect(),
        listings: all.listings,
        warnings: all.warnings,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use tfsum_vocab::paths::slash_path;

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .expect("the repository")
            .join("testdata/config")
            .join(rel)
    }

    fn relative(dirs: &[PathBuf], root: &Path) -> Vec<String> {
        dirs.iter()
            .map(|d| slash_path(d.strip_prefix(root).unwrap_or(d)))
            .collect()
    }

    #[test]
    fn recursive_walk_skips_dot_dirs_and_ignored_paths() {
        let root = fixture("tree");
        let found = discover(std::slice::from_ref(&root), true, &[]).unwrap();
        assert!(found.warnings.is_empty(), "{:?}", found.warnings);
        let root_n = normalize_path(&root);
        let all = [
            "envs/dev",
            "envs/prod",
            "envs/prod/bootstrap",
            "modules/cycle-a",
            "modules/cycle-b",
            "modules/locked",
            "modules/network",
            "modules/network/subnet",
            "modules/shared",
        ];
        assert_eq!(relative(&found.dirs, &root_n), all);

        let without = |gone: &[&str]| -> Vec<&str> {
            all.iter().copied().filter(|d| !gone.contains(d)).collect()
        };
        let cases: [(&str, Vec<&str>); 5] = [
            // The relative form, anchored.
            ("^modules/", without(&all[3..])),
            // Pruning a directory prunes what is below it.
            (
                "^modules/network$",
                without(&["modules/network", "modules/network/subnet"]),
            ),
            ("/bootstrap$", without(&["envs/prod/bootstrap"])),
            // The full form includes the given root.
            ("tree/envs", without(&all[..3])),
            ("^nothing$", all.to_vec()),
        ];
        for (re, want) in cases {
            let ignore = [Regex::new(re).unwrap()];
            let found = discover(std::slice::from_ref(&root), true, &ignore).unwrap();
            assert_eq!(relative(&found.dirs, &root_n), want, "ignore {re}");
        }
    }

    #[test]
    fn non_recursive_requires_configuration() {
        let prod = fixture("tree/envs/prod");
        let found = discover(std::slice::from_ref(&prod), false, &[]).unwrap();
        assert_eq!(found.dirs, [normalize_path(&prod)]);

        let empty = fixture("tree/envs");
        let err = discover(&[empty], false, &[]).unwrap_err();
        assert!(matches!(err, DiscoverError::NoConfiguration { .. }));
        assert!(
            err.to_string().contains("no Terraform configuration files"),
            "{err}"
        );

        let missing = fixture("does-not-exist");
        assert!(matches!(
            discover(&[missing], true, &[]),
            Err(DiscoverError::Io { .. })
        ));
        let file = fixture("tree/envs/prod/main.tf");
        assert!(matches!(
            discover(&[file], false, &[]),
            Err(DiscoverError::NotADirectory { .. })
        ));
    }

    #[test]
    fn duplicate_roots_are_merged() {
        let root = fixture("tree/envs");
        let found = discover(&[root.clone(), root.join("prod")], true, &[]).unwrap();
        assert_eq!(
            relative(&found.dirs, &normalize_path(&root)),
            ["dev", "prod", "prod/bootstrap"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn unreadable_directories_become_warnings() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let ok = tmp.path().join("ok");
        let locked = tmp.path().join("locked");
        std::fs::create_dir_all(&ok).unwrap();
        std::fs::create_dir_all(locked.join("inner")).unwrap();
        std::fs::write(ok.join("main.tf"), "").unwrap();
        std::fs::write(locked.join("inner/main.tf"), "").unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        let readable_anyway = std::fs::read_dir(&locked).is_ok(); // running as root
        let found = discover(&[tmp.path().to_path_buf()], true, &[]).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(found.dirs.contains(&normalize_path(&ok)));
        if !readable_anyway {
            assert_eq!(found.warnings.len(), 1, "{:?}", found.warnings);
            assert!(found.warnings[0].to_string().contains("cannot read"));
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_are_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::write(a.join("main.tf"), "").unwrap();
        std::os::unix::fs::symlink(tmp.path(), a.join("loop")).unwrap();
        let found = discover(&[tmp.path().to_path_buf()], true, &[]).unwrap();
        assert_eq!(found.dirs, [normalize_path(&a)]);
    }
}
