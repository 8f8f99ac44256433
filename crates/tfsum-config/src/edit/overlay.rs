//! The configuration as it will be after an upgrade's edits, before anything is written:
//! the load stage reads edited files from here ([`Edited::load_module`]), so that the
//! relock sees the new constraints and `--check` can show what the relock would do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::EditedFile;
use crate::parsed::ParsedFiles;
use crate::terragrunt::UnitConfig;
use crate::{load_module_with_overlay, ConfigError, Module, OverlayFile};
use tfsum_disk::walk::Listings;
use tfsum_vocab::paths::normalize_path;

/// The directory of a normalised file path (`.` for a bare name).
fn parent(path: &Path) -> PathBuf {
    normalize_path(path.parent().unwrap_or(Path::new(".")))
}

/// Var files an upgrade edits are read from here by the relock.
impl crate::early::TextOverrides for Edited {
    fn text_of(&self, path: &Path) -> Option<&str> {
        if self.is_empty() {
            return None;
        }
        self.files
            .get(&normalize_path(path))
            .or_else(|| self.absolute.get(&crate::paths::absolute(path)))
            .map(String::as_str)
    }
}

/// New file contents by path (lexically normalised), links to an edited file included.
#[derive(Debug, Clone, Default)]
pub struct Edited {
    files: BTreeMap<PathBuf, String>,
    /// The edited files of each directory: the load stage asks once per module.
    by_dir: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// `files` by absolute path, for readers that ask so (Terragrunt's).
    absolute: BTreeMap<PathBuf, String>,
}

impl Edited {
    /// The edits, each also under every other path (`aliases`: path → edited path) that
    /// reaches the same file.
    pub fn new(files: &[EditedFile], aliases: &BTreeMap<PathBuf, PathBuf>) -> Edited {
        let mut out = BTreeMap::new();
        for file in files {
            out.insert(normalize_path(&file.path), file.new.clone());
        }
        for (alias, target) in aliases {
            if let Some(new) = out.get(&normalize_path(target)).cloned() {
                out.insert(normalize_path(alias), new);
            }
        }
        let mut by_dir: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
        for path in out.keys() {
            by_dir.entry(parent(path)).or_default().push(path.clone());
        }
        let absolute = out
            .iter()
            .map(|(path, text)| (crate::paths::absolute(path), text.clone()))
            .collect();
        Edited {
            files: out,
            by_dir,
            absolute,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Whether the file at `path` was edited.
    pub fn touches_file(&self, path: &Path) -> bool {
        crate::early::TextOverrides::text_of(self, path).is_some()
    }

    /// Whether a file directly in `dir` was edited.
    pub fn touches_dir(&self, dir: &Path) -> bool {
        !self.is_empty() && self.by_dir.contains_key(&normalize_path(dir))
    }

    /// The edited files of `dir`, as an overlay over it.
    fn overlay(&self, dir: &Path) -> Vec<OverlayFile> {
        if self.is_empty() {
            return Vec::new();
        }
        let Some(paths) = self.by_dir.get(&normalize_path(dir)) else {
            return Vec::new();
        };
        paths
            .iter()
            .filter_map(|path| {
                Some(OverlayFile {
                    name: path.file_name()?.to_str()?.to_string(),
                    contents: self.files.get(path)?.clone(),
                    origin: path.clone(),
                    first_line: 1,
                })
            })
            .collect()
    }

    /// [`crate::load_module`] with the edited files of `dir` in place of the ones
    /// on disk; the directory's entries from `listings` when it holds them, and texts
    /// parsed before from `parsed`.
    pub fn load_module(
        &self,
        dir: &Path,
        default_host: &str,
        listings: &Listings,
        parsed: &ParsedFiles,
    ) -> Result<Module, ConfigError> {
        load_module_with_overlay(dir, default_host, &self.overlay(dir), listings, parsed)
    }

    /// A Terragrunt unit whose configuration holds edited files: its overlay (the unit's
    /// own files laid over its module) made of the edited texts, and the edited files of
    /// a local module directory added where the unit does not replace them.
    pub fn apply_to_unit(&self, unit: &mut UnitConfig) {
        if self.is_empty() {
            return;
        }
        for file in &mut unit.overlay {
            if file.first_line == 1 {
                if let Some(new) = self.files.get(&normalize_path(&file.origin)) {
                    file.contents = new.clone();
                }
            }
        }
        let Some(dir) = unit.module_dir().map(Path::to_path_buf) else {
            return;
        };
        for file in self.overlay(&dir) {
            if !unit.overlay.iter().any(|o| o.name == file.name) {
                unit.overlay.push(file);
            }
        }
        unit.overlay.sort_by(|a, b| a.name.cmp(&b.name));
    }
}
