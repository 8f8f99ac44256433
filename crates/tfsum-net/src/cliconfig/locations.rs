//! Where Terraform and OpenTofu look for their CLI configuration (spec §8, §10).

use std::path::{Path, PathBuf};

use super::{CliConfigError, Env};

/// The main configuration file for the tool being imitated (spec §8, §10).
pub(super) fn main_file(env: &Env) -> Option<PathBuf> {
    if cfg!(windows) {
        let appdata = PathBuf::from(env.var("APPDATA")?);
        let legacy = appdata.join("terraform.rc");
        if env.opentofu {
            let new = appdata.join("tofu.rc");
            return Some(if !new.exists() && legacy.exists() {
                legacy
            } else {
                new
            });
        }
        return Some(legacy);
    }
    let home = env.home.as_ref()?;
    let legacy = home.join(".terraformrc");
    if !env.opentofu {
        return Some(legacy);
    }
    let new = home.join(".tofurc");
    match env.var("XDG_CONFIG_HOME") {
        // A fresh OpenTofu install with XDG set uses the XDG location.
        Some(xdg) if !new.exists() && !legacy.exists() => {
            Some(Path::new(xdg).join("opentofu").join("tofurc"))
        }
        _ if !new.exists() && legacy.exists() => Some(legacy),
        _ => Some(new),
    }
}

/// The configuration directory (`~/.terraform.d`; OpenTofu falls back to
/// `$XDG_CONFIG_HOME/opentofu` when that does not exist).
pub(super) fn config_dir(env: &Env) -> Option<PathBuf> {
    if cfg!(windows) {
        return Some(PathBuf::from(env.var("APPDATA")?).join("terraform.d"));
    }
    let dir = env.home.as_ref()?.join(".terraform.d");
    if env.opentofu && !dir.exists() {
        if let Some(xdg) = env.var("XDG_CONFIG_HOME") {
            return Some(Path::new(xdg).join("opentofu"));
        }
    }
    Some(dir)
}

/// `*.tfrc` and `*.tfrc.json` in `dir`, sorted by name like Go's `ioutil.ReadDir`.
pub(super) fn config_dir_files(dir: &Path) -> Result<Vec<PathBuf>, CliConfigError> {
    let read_err = |e: std::io::Error| CliConfigError::Read {
        path: dir.to_path_buf(),
        message: e.to_string(),
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read_err)? {
        let entry = entry.map_err(read_err)?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if (name.ends_with(".tfrc") || name.ends_with(".tfrc.json")) && !name.starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}
