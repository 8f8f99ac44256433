//! The module manifest `terraform init` writes: `.terraform/modules/modules.json`.
//!
//! It maps each module call, by its *key* (the call names from the root joined with `.`,
//! e.g. `network.subnet`; the root itself is `""`), to the directory its code was
//! installed in. `Dir` is relative to the root module's directory (or absolute). tfsum uses
//! it to follow remote module calls (registry, git, http, …) without downloading anything:
//! providers required by an installed remote module count for the root, exactly as they do
//! for `terraform init`. The data directory is assumed to be `.terraform` (`TF_DATA_DIR`
//! is not consulted, as nothing below the CLI layer reads the environment).
//!
//! Whether an entry of `.terraform/modules/modules.json` (written by an earlier `init`)
//! still stands for a module call, decided as `terraform init` without `-upgrade`
//! decides whether to keep an installed module (`ModuleInstaller.InstallModules`,
//! v1.0.3; docs/spec/modules.md §7):
//!
//! - the entry's `Source` equals the call's `source` string exactly (v1.0.3 records the
//!   string as written), or both name the same module once parsed (v1.1 and later record
//!   the normalised address, `registry.terraform.io/ns/name/system`);
//! - when the entry has a `Version`, the call's `version` constraint (go-version rules,
//!   [`tfsum_vocab::goversion`]) still allows it; no constraint allows anything;
//! - the entry's `Dir` exists and is a directory.
//!
//! When a module is reinstalled, `init` also discards the entries of every module below
//! it, so a caller walking the tree consults the manifest for a child only while every
//! ancestor's entry was kept.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ConfigError;
use tfsum_vocab::goversion::{GoConstraints, GoVersion};

/// One installed module.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ManifestEntry {
    #[serde(rename = "Key")]
    pub key: String,
    #[serde(rename = "Source", default)]
    pub source: String,
    #[serde(rename = "Version", default)]
    pub version: Option<String>,
    #[serde(rename = "Dir")]
    pub dir: String,
}

/// The parsed `modules.json` of one root module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModulesManifest {
    /// The root module directory the manifest belongs to; relative `Dir`s resolve here.
    pub root: PathBuf,
    pub modules: Vec<ManifestEntry>,
}

#[derive(Deserialize)]
struct Raw {
    #[serde(rename = "Modules", default)]
    modules: Vec<ManifestEntry>,
}

impl ModulesManifest {
    /// The installed directory for a module key, if the manifest has it and it lies
    /// under the root's `.terraform/modules`, where `init` installs remote modules: the
    /// manifest is a file of the checkout, so it may not send the walk elsewhere. The
    /// test is on resolved paths, so a committed symlink (`.terraform/modules/NAME`
    /// pointing out of the tree) cannot lead elsewhere either.
    pub(crate) fn dir_for(&self, key: &str) -> Option<PathBuf> {
        let entry = self.modules.iter().find(|m| m.key == key)?;
        let dir = tfsum_vocab::paths::normalize_path(&self.root.join(&entry.dir));
        let installs = installs_dir(&self.root)?.canonicalize().ok()?;
        let resolved = dir.canonicalize().ok()?;
        (resolved.starts_with(&installs) && resolved != installs).then_some(dir)
    }
}

/// Where the manifest of `root` lives.
pub(crate) fn manifest_path(root: &Path) -> PathBuf {
    root.join(".terraform").join("modules").join("modules.json")
}

/// The directory in a root where `init` keeps what it installed.
pub const DATA_DIR: &str = ".terraform";

/// The root's `.terraform/modules`, when `.terraform` and `.terraform/modules` are
/// plain directories: a checkout may commit either as a symlink to anywhere, and then
/// neither the manifest nor what it names is the root's own.
fn installs_dir(root: &Path) -> Option<PathBuf> {
    let data = root.join(DATA_DIR);
    let installs = data.join("modules");
    for dir in [&data, &installs] {
        let meta = std::fs::symlink_metadata(dir).ok()?;
        if !meta.is_dir() {
            return None;
        }
    }
    Some(installs)
}

/// Reads the manifest of the root module in `root`. `Ok(None)` when there is none (no
/// `init` yet, or no module calls, or a `.terraform` or `.terraform/modules` that is a
/// symlink, which is ignored); an error when it exists but cannot be read or parsed,
/// since silently ignoring it would drop the providers of every remote module.
pub fn read_modules_manifest(root: &Path) -> Result<Option<ModulesManifest>, ConfigError> {
    if installs_dir(root).is_none() {
        return Ok(None);
    }
    let path = manifest_path(root);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ConfigError::Read { path, source }),
    };
    let raw: Raw = serde_json::from_str(&text).map_err(|e| ConfigError::Syntax {
        file: path.clone(),
        line: e.line(),
        column: e.column(),
        // serde_json appends " at line L column C", which the error already shows.
        message: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_string(),
    })?;
    Ok(Some(ModulesManifest {
        root: root.to_path_buf(),
        modules: raw.modules,
    }))
}

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
    let parsed = |s: &str| tfsum_vocab::module_source::parse_source_for(s, default_host).ok();
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
    use tfsum_vocab::addr::TERRAFORM_REGISTRY;

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
