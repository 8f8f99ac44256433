//! The names tfsum recognises in a directory, and paths compared lexically.
//!
//! A configuration file is `*.tf`, `*.tf.json`, `*.tofu` or `*.tofu.json` (spec §10 for
//! the OpenTofu extensions), minus the editor and hidden files Terraform ignores; a
//! Terragrunt unit is a directory holding [`UNIT_FILE_NAME`]. Paths are compared after
//! [`normalize_path`], so a discovered directory and a local module call that points at
//! it are equal.

use std::path::{Component, Path, PathBuf};

/// The file that makes a directory a Terragrunt unit.
/// The file of a Terragrunt stack: `unit` and `stack` blocks that `terragrunt stack
/// generate` turns into directories under `.terragrunt-stack/` (only this exact name;
/// `app.terragrunt.stack.hcl` is not one).
pub const STACK_FILE_NAME: &str = "terragrunt.stack.hcl";

/// The directory a stack generates its components into.
pub const STACK_DIR_NAME: &str = ".terragrunt-stack";

pub const UNIT_FILE_NAME: &str = "terragrunt.hcl";

/// Editor and hidden files Terraform skips whatever their extension (`IsIgnoredFile`):
/// dot files, `~` backups, `#…#` autosaves.
pub fn is_ignored_file_name(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || (name.starts_with('#') && name.ends_with('#'))
}

/// Configuration file names: the four extensions, minus the names Terraform ignores
/// (`configs.IsIgnoredFile`: leading `.`, trailing `~`, Emacs `#…#` lock files).
pub fn is_config_file_name(name: &str) -> bool {
    !is_ignored_file_name(name)
        && [".tf", ".tf.json", ".tofu", ".tofu.json"]
            .iter()
            .any(|ext| name.len() > ext.len() && name.ends_with(ext))
}

/// OpenTofu's own configuration file names (`*.tofu`, `*.tofu.json`): a directory
/// holding one is an OpenTofu root unless its lock file says otherwise (spec §10).
pub fn is_tofu_file_name(name: &str) -> bool {
    is_config_file_name(name) && (name.ends_with(".tofu") || name.ends_with(".tofu.json"))
}

/// What a file name says about a Terraform Stack (HCP Terraform): a component
/// configuration file, in native or JSON syntax, under its current name or the legacy
/// one Terraform 1.14 stopped reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StackFileName {
    pub json: bool,
    /// `*.tfstack.hcl` / `*.tfstack.json`: read up to Terraform 1.13 (with a deprecation
    /// warning), ignored from 1.14.
    pub legacy: bool,
}

/// The suffixes of a stack's configuration files, as Terraform's stack loader matches
/// them (`internal/stacks/stackconfig/file.go` `validFilenameSuffix`: a plain suffix
/// test, so a hidden file counts too), with what each means.
const STACK_SUFFIXES: [(&str, StackFileName); 4] = [
    (
        ".tfcomponent.hcl",
        StackFileName {
            json: false,
            legacy: false,
        },
    ),
    (
        ".tfcomponent.json",
        StackFileName {
            json: true,
            legacy: false,
        },
    ),
    (
        ".tfstack.hcl",
        StackFileName {
            json: false,
            legacy: true,
        },
    ),
    (
        ".tfstack.json",
        StackFileName {
            json: true,
            legacy: true,
        },
    ),
];

/// The stack file name `name` is, if it is one: a Terraform Stack is a directory holding
/// at least one.
pub fn stack_file_name(name: &str) -> Option<StackFileName> {
    STACK_SUFFIXES
        .iter()
        .find(|(suffix, _)| name.ends_with(suffix))
        .map(|(_, kind)| *kind)
}

/// Lexical path clean-up in the spirit of Go's `filepath.Clean`, which Terraform applies
/// when joining a local module source onto its caller's directory: drops `.` components
/// and folds `name/..` pairs, without touching the filesystem (symlinks are not resolved,
/// exactly as Terraform does not). An empty result is `.`.
///
/// Discovery and the module tree both use it, so a discovered directory and a local
/// module call that points at it compare equal.
pub fn normalize_path(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // `/..` is `/`.
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(component),
            },
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// A path with `/` separators regardless of platform, so ignore regexes are portable.
pub fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
        .replace("//", "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_paths() {
        let cases = [
            ("a/b/../c", "a/c"),
            ("./a/./b", "a/b"),
            ("a/..", "."),
            (".", "."),
            ("../x/../y", "../y"),
            ("../../a", "../../a"),
            ("/a/../../b", "/b"),
            ("envs/prod/../../modules/vpc", "modules/vpc"),
        ];
        for (given, want) in cases {
            assert_eq!(
                normalize_path(Path::new(given)),
                PathBuf::from(want),
                "{given}"
            );
        }
    }

    #[test]
    fn stack_file_names() {
        let new = |json| {
            Some(StackFileName {
                json,
                legacy: false,
            })
        };
        let old = |json| Some(StackFileName { json, legacy: true });
        let cases = [
            ("components.tfcomponent.hcl", new(false)),
            ("components.tfcomponent.json", new(true)),
            (".tfcomponent.hcl", new(false)),
            ("main.tfstack.hcl", old(false)),
            ("main.tfstack.json", old(true)),
            ("deployments.tfdeploy.hcl", None),
            ("main.tf", None),
            ("main.tfcomponent.hcl.bak", None),
            ("main.tfquery.hcl", None),
        ];
        for (name, want) in cases {
            assert_eq!(stack_file_name(name), want, "{name}");
        }
    }

    #[test]
    fn config_file_names() {
        let cases = [
            ("main.tf", true),
            ("main.tf.json", true),
            ("main.tofu", true),
            ("main.tofu.json", true),
            ("override.tf", true),
            (".hidden.tf", false),
            ("main.tf~", false),
            ("#main.tf#", false),
            ("main.tfvars", false),
            ("main.tftest.hcl", false),
            ("main.json", false),
            (".tf", false),
            ("terraform.tfstate", false),
        ];
        for (name, want) in cases {
            assert_eq!(is_config_file_name(name), want, "{name}");
        }
    }
}
