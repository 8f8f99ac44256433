//! Where a unit's `terraform.source` points, and finding a downloaded copy of a remote one.
//!
//! Terragrunt hands the source to go-getter (`tf/source.go`), relative to the unit
//! directory. go-getter's file detector takes anything no other detector claims, so a
//! source is **remote** when it has a forced getter (`git::`, `s3::`, …), a URL scheme
//! (`tfr://`, `https://`, `git@…`), or a host go-getter recognises without one
//! (`github.com/…`, `bitbucket.org/…`, `*.amazonaws.com/…`, `www.googleapis.com/…`);
//! everything else is a **local** path (`../modules//vpc`, `/abs/x`, `modules/vpc`), as
//! are `file::` and `file://`. A query (`?ref=v1.2.0`) means nothing for a local path.
//!
//! The `//` in a source separates the part Terragrunt downloads (copies) from the
//! subdirectory it runs Terraform in: `../modules//vpc` copies `../modules` and runs in
//! its `vpc`; for tfsum the module directory is simply `../modules/vpc`.
//!
//! A remote source is never fetched. Terragrunt keeps what it downloaded in the unit's
//! `.terragrunt-cache/<hash of unit dir>/<hash of source>/`, running Terraform in that
//! directory's `//` subdirectory ([`cached_copy`]).

use std::path::{Path, PathBuf};

use crate::discover::{is_config_file_name, normalize_path};

/// A `terraform.source` after classification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Classified {
    /// The module directory, absolute and normalised.
    Local(PathBuf),
    /// A remote source and its `//` subdirectory (empty when there is none).
    Remote { subdir: String },
}

/// Classifies `source`, resolving a local one against `unit_dir` (absolute).
pub(crate) fn classify(source: &str, unit_dir: &Path) -> Classified {
    let source = source.trim();
    let local = source
        .strip_prefix("file::")
        .or_else(|| source.strip_prefix("file://"));
    if local.is_none() && is_remote(source) {
        return Classified::Remote {
            subdir: remote_subdir(source),
        };
    }
    let path = local.unwrap_or(source);
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let (root, subdir) = split_subdir(path);
    let mut dir = unit_dir.join(root);
    if !subdir.is_empty() {
        dir.push(subdir);
    }
    Classified::Local(normalize_path(&dir))
}

fn is_remote(source: &str) -> bool {
    let forced = source.split_once("::").is_some_and(|(getter, _)| {
        !getter.is_empty() && getter.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let scheme = source.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    let known_host = [
        "github.com/",
        "gitlab.com/",
        "bitbucket.org/",
        "git@",
        "www.googleapis.com/",
    ]
    .iter()
    .any(|p| source.starts_with(p))
        || source
            .split('/')
            .next()
            .is_some_and(|host| host.ends_with(".amazonaws.com"));
    forced || scheme || known_host
}

/// Splits a local path at its first `//` (a path that *starts* with `//` has none).
fn split_subdir(path: &str) -> (&str, &str) {
    match path.get(1..).and_then(|rest| rest.find("//")) {
        Some(i) => (&path[..i + 1], path[i + 3..].trim_start_matches('/')),
        None => (path, ""),
    }
}

/// The `//` subdirectory of a remote source (go-getter's `SourceDirSubdir`): the first
/// `//` after the scheme's `://`, up to the query.
fn remote_subdir(source: &str) -> String {
    let without_forced = match source.split_once("::") {
        Some((_, rest)) => rest,
        None => source,
    };
    let start = without_forced.find("://").map_or(0, |i| i + 3);
    let rest = &without_forced[start..];
    let Some(i) = rest.find("//") else {
        return String::new();
    };
    let subdir = &rest[i + 2..];
    let subdir = subdir.split_once('?').map_or(subdir, |(s, _)| s);
    subdir.trim_matches('/').to_string()
}

/// The directory Terragrunt last ran Terraform in for a remote source, if it is still in
/// `<unit>/.terragrunt-cache`: a `<hash>/<hash>/<subdir>` directory holding configuration
/// files. Several candidates (the source changed, or the unit moved) are told apart by the
/// newest `.terragrunt-source-version` file, which Terragrunt rewrites on each download.
///
/// tfsum cannot check that the copy matches the source's `?ref=` (that needs the SHA-1
/// names Terragrunt derives from the canonical URL), so a copy downloaded for an older ref
/// is used until `terragrunt init` refreshes it.
pub(crate) fn cached_copy(unit_dir: &Path, subdir: &str) -> Option<PathBuf> {
    let cache = unit_dir.join(super::CACHE_DIR_NAME);
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    for outer in sorted_dirs(&cache) {
        for download in sorted_dirs(&outer) {
            let working = if subdir.is_empty() {
                download.clone()
            } else {
                normalize_path(&download.join(subdir))
            };
            if !has_config_files(&working) {
                continue;
            }
            let stamp = std::fs::metadata(download.join(".terragrunt-source-version"))
                .or_else(|_| std::fs::metadata(&download))
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            if best.as_ref().is_none_or(|(t, _)| stamp > *t) {
                best = Some((stamp, working));
            }
        }
    }
    best.map(|(_, dir)| dir)
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Whether `dir` directly holds a Terraform or OpenTofu configuration file.
pub(crate) fn has_config_files(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries
        .flatten()
        .any(|e| e.file_name().to_str().is_some_and(is_config_file_name) && e.path().is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_sources() {
        let unit = Path::new("/r/live/prod/vpc");
        let local = |p: &str| Classified::Local(PathBuf::from(p));
        let remote = |s: &str| Classified::Remote { subdir: s.into() };
        let cases = [
            ("../../../modules/vpc", local("/r/modules/vpc")),
            ("../../../modules//vpc", local("/r/modules/vpc")),
            (
                "../../../modules//net/vpc?ref=v1.2.0",
                local("/r/modules/net/vpc"),
            ),
            ("/r/modules//vpc", local("/r/modules/vpc")),
            ("modules/vpc", local("/r/live/prod/vpc/modules/vpc")),
            ("file:///r/modules/vpc", local("/r/modules/vpc")),
            ("file::../x", local("/r/live/prod/x")),
            (
                "git::https://github.com/acme/modules.git//vpc?ref=v1.0.0",
                remote("vpc"),
            ),
            (
                "git::git@github.com:acme/modules.git//net/vpc?ref=v1",
                remote("net/vpc"),
            ),
            ("github.com/acme/modules//vpc?ref=v1", remote("vpc")),
            ("git@github.com:acme/vpc.git?ref=v1", remote("")),
            (
                "tfr://registry.terraform.io/terraform-aws-modules/vpc/aws?version=5.0.0",
                remote(""),
            ),
            (
                "tfr:///terraform-aws-modules/vpc/aws?version=5.0.0",
                remote(""),
            ),
            ("https://example.com/vpc.zip//vpc", remote("vpc")),
            ("s3::https://s3.amazonaws.com/b/vpc.zip", remote("")),
            ("acme-bucket.s3.amazonaws.com/vpc.zip", remote("")),
        ];
        for (source, want) in cases {
            assert_eq!(classify(source, unit), want, "{source}");
        }
    }
}
