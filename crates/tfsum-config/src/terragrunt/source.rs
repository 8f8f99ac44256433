//! Where a unit's `terraform.source` points.
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
//! A remote source is fetched by the load stage like a module source (`tfsum_sources::modules`
//! parses it, `tfr://` included); Terragrunt's own `.terragrunt-cache` is never read, so a
//! stale download there cannot change a lock file.

use std::path::{Path, PathBuf};

use tfsum_vocab::module_source::{
    parse_terragrunt_source, ModuleSource, SourceError, TerragruntSource,
};
use tfsum_vocab::paths::normalize_path;

/// A `terraform.source` after classification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Classified {
    /// The module directory, absolute and normalised.
    Local(PathBuf),
    /// A source to fetch (`tfsum_sources::modules` parsed it as Terragrunt does).
    Remote(TerragruntSource),
}

/// Classifies `source`, resolving a local one against `unit_dir` (absolute).
pub(crate) fn classify(source: &str, unit_dir: &Path) -> Result<Classified, SourceError> {
    let source = source.trim();
    let forced_local = source
        .strip_prefix("file::")
        .or_else(|| source.strip_prefix("file://"));
    if forced_local.is_none() {
        let parsed = parse_terragrunt_source(source)?;
        if !matches!(
            parsed.source,
            ModuleSource::Local(_) | ModuleSource::Directory { .. }
        ) {
            return Ok(Classified::Remote(parsed));
        }
    }
    let path = forced_local.unwrap_or(source);
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let (root, subdir) = split_subdir(path);
    let mut dir = unit_dir.join(root);
    if !subdir.is_empty() {
        dir.push(subdir);
    }
    Ok(Classified::Local(normalize_path(&dir)))
}

/// Splits a local path at its first `//` (a path that *starts* with `//` has none).
fn split_subdir(path: &str) -> (&str, &str) {
    match path.get(1..).and_then(|rest| rest.find("//")) {
        Some(i) => (&path[..i + 1], path[i + 3..].trim_start_matches('/')),
        None => (path, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_sources() {
        let unit = Path::new("/r/live/prod/vpc");
        let local = |p: &str| Some(PathBuf::from(p));
        let remote = None;
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
                remote.clone(),
            ),
            (
                "git::git@github.com:acme/modules.git//net/vpc?ref=v1",
                remote.clone(),
            ),
            ("github.com/acme/modules//vpc?ref=v1", remote.clone()),
            ("git@github.com:acme/vpc.git?ref=v1", remote.clone()),
            (
                "tfr://registry.terraform.io/terraform-aws-modules/vpc/aws?version=5.0.0",
                remote.clone(),
            ),
            (
                "tfr:///terraform-aws-modules/vpc/aws?version=5.0.0",
                remote.clone(),
            ),
            ("https://example.com/vpc.zip//vpc", remote.clone()),
            ("s3::https://s3.amazonaws.com/b/vpc.zip", remote.clone()),
            ("acme-bucket.s3.amazonaws.com/vpc.zip", remote.clone()),
        ];
        for (source, want) in cases {
            let got = match classify(source, unit) {
                Ok(Classified::Local(dir)) => Some(dir),
                Ok(Classified::Remote(_)) => None,
                Err(e) => panic!("{source}: {e}"),
            };
            assert_eq!(got, want, "{source}");
        }
        let err = classify("tfr:///ns/n/s", unit).unwrap_err().to_string();
        assert!(err.contains("needs ?version="), "{err}");
    }
}
