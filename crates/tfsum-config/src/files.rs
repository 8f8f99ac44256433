//! Which files of a module directory are read, and in which order.
//!
//! Terraform (`configs.Parser.dirFiles`) reads the directory's `*.tf` and `*.tf.json`
//! files, sorted by name, splitting off *override* files (`override.tf`, `*_override.tf`
//! and the JSON forms), which are merged last. OpenTofu (spec §10) also reads `*.tofu` and
//! `*.tofu.json`, and when `foo.tofu` exists it ignores `foo.tf` (likewise `foo.tofu.json`
//! and `foo.tf.json`; `filterTfPathsWithTofuAlternatives`). Terraform ignores `.tofu`
//! files altogether, so the two dialects see different file sets in a mixed directory.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use super::ConfigError;
use tfsum_disk::walk::{EntryType, Listings};
use tfsum_vocab::paths::is_config_file_name;

/// Which tool's file rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Terraform,
    OpenTofu,
}

impl Dialect {
    /// The dialect a default registry host stands for: `registry.opentofu.org` means
    /// OpenTofu (spec §10), anything else Terraform.
    pub fn for_registry(default_host: &str) -> Dialect {
        if default_host == tfsum_vocab::addr::OPENTOFU_REGISTRY {
            Dialect::OpenTofu
        } else {
            Dialect::Terraform
        }
    }

    /// The extensions this dialect reads, for messages.
    pub fn extensions(self) -> &'static str {
        match self {
            Dialect::Terraform => "Terraform (*.tf, *.tf.json)",
            Dialect::OpenTofu => "OpenTofu (*.tf, *.tf.json, *.tofu, *.tofu.json)",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Terraform => "Terraform",
            Dialect::OpenTofu => "OpenTofu",
        })
    }
}

/// The effective files of one directory, each list sorted by file name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FileSet {
    pub primary: Vec<PathBuf>,
    pub overrides: Vec<PathBuf>,
    /// Terraform dialect only: the directory had `.tofu` files that were not read.
    pub skipped_tofu: bool,
}

impl FileSet {
    /// Picks and orders the configuration files among `names` by the dialect's rules.
    pub(crate) fn select(dir: &Path, names: &BTreeSet<String>, dialect: Dialect) -> FileSet {
        let mut set = FileSet::default();
        for name in names {
            let Some((stem, ext)) = split_ext(name) else {
                continue;
            };
            let keep = match (dialect, ext) {
                (Dialect::Terraform, ".tofu" | ".tofu.json") => {
                    set.skipped_tofu = true;
                    false
                }
                (Dialect::Terraform, _) => true,
                (Dialect::OpenTofu, ".tf") => !names.contains(&format!("{stem}.tofu")),
                (Dialect::OpenTofu, ".tf.json") => !names.contains(&format!("{stem}.tofu.json")),
                (Dialect::OpenTofu, _) => true,
            };
            if !keep {
                continue;
            }
            let path = dir.join(name);
            if stem == "override" || stem.ends_with("_override") {
                set.overrides.push(path);
            } else {
                set.primary.push(path);
            }
        }
        set
    }
}

/// The names of the configuration files directly in `dir`, of every dialect (the
/// dialect's rules are [`FileSet::select`]'s job).
pub fn config_file_names(dir: &Path) -> Result<BTreeSet<String>, ConfigError> {
    config_file_names_listed(dir, &Listings::default())
}

/// [`config_file_names`] from the listing of `dir` in `listings` when there is one.
pub(crate) fn config_file_names_listed(
    dir: &Path,
    listings: &Listings,
) -> Result<BTreeSet<String>, ConfigError> {
    file_names(dir, listings, is_config_file_name)
}

/// The names in `dir` (as listed in `listings`, or listed now) that `wanted` accepts and
/// that are files to read ([`config_entry_is_file`]).
pub(super) fn file_names(
    dir: &Path,
    listings: &Listings,
    wanted: impl Fn(&str) -> bool,
) -> Result<BTreeSet<String>, ConfigError> {
    let listing = listings.listing(dir).map_err(|source| ConfigError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut names = BTreeSet::new();
    for (name, kind) in listing.entries() {
        if !wanted(name) {
            continue;
        }
        // The listing's own type spares a `stat` per file; only a link is followed.
        let is_file = match kind {
            EntryType::File => true,
            EntryType::Link => config_entry_is_file(&dir.join(name))?,
            EntryType::Dir | EntryType::Other => false,
        };
        if is_file {
            names.insert(name.to_string());
        }
    }
    Ok(names)
}

/// Whether an entry with a configuration file name is a file to read, following
/// symlinks. Terraform lists a directory with `Lstat` and then reads every such name, so
/// a link it cannot resolve (dangling, or a loop) fails the module; skipping it would
/// silently drop part of the configuration.
pub(super) fn config_entry_is_file(path: &Path) -> Result<bool, ConfigError> {
    std::fs::metadata(path)
        .map(|meta| meta.is_file())
        .map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })
}

/// Splits a configuration file name into stem and extension (the JSON forms first, so
/// `a.tf.json` is `a` + `.tf.json`).
fn split_ext(name: &str) -> Option<(&str, &'static str)> {
    [".tf.json", ".tofu.json", ".tf", ".tofu"]
        .into_iter()
        .find_map(|ext| name.strip_suffix(ext).map(|stem| (stem, ext)))
}

/// Whether a configuration file uses the JSON syntax.
pub(crate) fn is_json(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_files_per_dialect() {
        let names: BTreeSet<String> = [
            "main.tf",
            "main.tofu",
            "vars.tf",
            "data.tf.json",
            "data.tofu.json",
            "net.tf.json",
            "override.tf",
            "a_override.tf.json",
            "b_override.tofu",
            "b_override.tf",
            "notoverride.tf",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        let names_of = |paths: &[PathBuf]| -> Vec<String> {
            paths
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        let cases = [
            (
                Dialect::Terraform,
                vec![
                    "data.tf.json",
                    "main.tf",
                    "net.tf.json",
                    "notoverride.tf",
                    "vars.tf",
                ],
                vec!["a_override.tf.json", "b_override.tf", "override.tf"],
                true,
            ),
            (
                Dialect::OpenTofu,
                vec![
                    "data.tofu.json",
                    "main.tofu",
                    "net.tf.json",
                    "notoverride.tf",
                    "vars.tf",
                ],
                vec!["a_override.tf.json", "b_override.tofu", "override.tf"],
                false,
            ),
        ];
        for (dialect, primary, overrides, skipped) in cases {
            let set = FileSet::select(Path::new("d"), &names, dialect);
            assert_eq!(names_of(&set.primary), primary, "{dialect}");
            assert_eq!(names_of(&set.overrides), overrides, "{dialect}");
            assert_eq!(set.skipped_tofu, skipped, "{dialect}");
        }
    }
}
