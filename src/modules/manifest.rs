//! Whether an entry of `.terraform/modules/modules.json` (written by an earlier `init`)
//! still stands for a module call, decided as `terraform init` without `-upgrade`
//! decides whether to keep an installed module (`ModuleInstaller.InstallModules`,
//! v1.0.3; docs/spec/modules.md §7):
//!
//! - the entry's `Source` equals the call's `source` string exactly (v1.0.3 records the
//!   string as written), or both name the same module once parsed (v1.1 and later record
//!   the normalised address, `registry.terraform.io/ns/name/system`);
//! - when the entry has a `Version`, the call's `version` constraint (go-version rules,
//!   [`super::goversion`]) still allows it; no constraint allows anything;
//! - the entry's `Dir` exists and is a directory.
//!
//! When a module is reinstalled, `init` also discards the entries of every module below
//! it, so a caller walking the tree consults the manifest for a child only while every
//! ancestor's entry was kept.

use std::path::PathBuf;

use super::goversion::{GoConstraints, GoVersion};
use crate::config::ModulesManifest;

/// The installed directory `init` would keep using for the call with manifest key `key`
/// (`parent.child`, as in `modules.json`), or `None` when the call must be fetched.
pub fn manifest_entry_for_call(
    manifest: &ModulesManifest,
    key: &str,
    source: &str,
    version: Option<&str>,
    default_host: &str,
) -> Option<PathBuf> {
    let entry = manifest.modules.iter().find(|m| m.key == key)?;
    let parsed = |s: &str| super::parse_source_for(s, default_host).ok();
    if entry.source != source && (parsed(&entry.source)? != parsed(source)?) {
        return None;
    }
    if let Some(installed) = entry.version.as_deref() {
        let installed = GoVersion::parse(installed).ok()?;
        let constraints = GoConstraints::parse(version.unwrap_or("")).ok()?;
        if !constraints.allows(&installed) {
            return None;
        }
    }
    let dir = manifest.dir_for(key)?;
    dir.is_dir().then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::addr::TERRAFORM_REGISTRY;
    use crate::config::ManifestEntry;

    #[test]
    fn entries_stand_while_source_and_version_agree() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join(".terraform/modules/vpc")).unwrap();
        std::fs::create_dir_all(root.path().join(".terraform/modules/dns")).unwrap();
        let entry = |key: &str, source: &str, version: Option<&str>, dir: &str| ManifestEntry {
            key: key.into(),
            source: source.into(),
            version: version.map(str::to_string),
            dir: dir.into(),
        };
        let manifest = ModulesManifest {
            root: root.path().to_path_buf(),
            modules: vec![
                entry(
                    "vpc",
                    "acme/vpc/aws",
                    Some("5.1.0"),
                    ".terraform/modules/vpc",
                ),
                entry(
                    "dns",
                    "git::https://h/r.git?ref=v1",
                    None,
                    ".terraform/modules/dns",
                ),
                entry(
                    "gone",
                    "acme/gone/aws",
                    Some("1.0.0"),
                    ".terraform/modules/gone",
                ),
                entry(
                    "pre",
                    "acme/pre/aws",
                    Some("2.0.0-beta"),
                    ".terraform/modules/vpc",
                ),
            ],
        };
        let vpc = Some(root.path().join(".terraform/modules/vpc"));
        let cases: &[(&str, &str, Option<&str>, bool)] = &[
            ("vpc", "acme/vpc/aws", Some("~> 5.0"), true),
            ("vpc", "acme/vpc/aws", None, true),
            ("vpc", "acme/vpc/aws", Some(">= 6.0"), false),
            // The source as written, or the address Terraform 1.1+ records.
            ("vpc", "Acme/vpc/aws", Some("~> 5.0"), false),
            (
                "vpc",
                "registry.terraform.io/acme/vpc/aws",
                Some("~> 5.0"),
                true,
            ),
            ("vpc", "example.com/acme/vpc/aws", Some("~> 5.0"), false),
            ("vpc", "acme/vpc/aws", Some("not a constraint"), false),
            ("dns", "git::https://h/r.git?ref=v1", None, true),
            ("dns", "git::https://h/r.git?ref=v2", None, false),
            ("gone", "acme/gone/aws", None, false),
            ("missing", "acme/vpc/aws", None, false),
            // go-version: a constraint without a prerelease never allows one.
            ("pre", "acme/pre/aws", Some(">= 1.0"), false),
            ("pre", "acme/pre/aws", None, true),
        ];
        for (key, source, version, kept) in cases {
            let got = manifest_entry_for_call(&manifest, key, source, *version, TERRAFORM_REGISTRY);
            assert_eq!(got.is_some(), *kept, "{key} {source} {version:?}");
        }
        assert_eq!(
            manifest_entry_for_call(&manifest, "vpc", "acme/vpc/aws", None, TERRAFORM_REGISTRY),
            vpc
        );
    }
}
