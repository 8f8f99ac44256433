//! The module manifest `terraform init` writes: `.terraform/modules/modules.json`.
//!
//! It maps each module call, by its *key* (the call names from the root joined with `.`,
//! e.g. `network.subnet`; the root itself is `""`), to the directory its code was
//! installed in. `Dir` is relative to the root module's directory (or absolute). tfsum uses
//! it to follow remote module calls (registry, git, http, …) without downloading anything:
//! providers required by an installed remote module count for the root, exactly as they do
//! for `terraform init`. The data directory is assumed to be `.terraform` (`TF_DATA_DIR`
//! is not consulted, as nothing below the CLI layer reads the environment).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ConfigError;

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
    /// manifest is a file of the checkout, so it may not send the walk elsewhere.
    pub fn dir_for(&self, key: &str) -> Option<PathBuf> {
        let entry = self.modules.iter().find(|m| m.key == key)?;
        let dir = crate::discover::normalize_path(&self.root.join(&entry.dir));
        let installs = crate::discover::normalize_path(&manifest_path(&self.root));
        dir.starts_with(installs.parent()?).then_some(dir)
    }
}

/// Where the manifest of `root` lives.
pub fn manifest_path(root: &Path) -> PathBuf {
    root.join(".terraform").join("modules").join("modules.json")
}

/// Reads the manifest of the root module in `root`. `Ok(None)` when there is none (no
/// `init` yet, or no module calls); an error when it exists but cannot be read or parsed,
/// since silently ignoring it would drop the providers of every remote module.
pub fn read_modules_manifest(root: &Path) -> Result<Option<ModulesManifest>, ConfigError> {
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
