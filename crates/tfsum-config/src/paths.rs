//! Lexical path helpers, shared by the configuration readers.
//!
//! Terragrunt's path functions answer with absolute, `/`-separated paths and compute
//! relative paths with Go's `filepath.Rel`; both are lexical (symbolic links are not
//! resolved). tfsum evaluates with absolute paths too, then hands paths back in the style
//! the caller used (relative stays relative), so a unit's module directory compares equal
//! to the same directory found by plain discovery.

use std::path::{Component, Path, PathBuf};

use tfsum_vocab::paths::normalize_path;

/// `path` made absolute against the current directory and normalised, without touching
/// the filesystem (`std::path::absolute`, like Go's `filepath.Abs`).
pub fn absolute(path: &Path) -> PathBuf {
    normalize_path(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// `path` relative to `base` (both absolute and normalised), `.` when equal; `..` steps up
/// as needed (Go's `filepath.Rel`).
pub fn relative_path(path: &Path, base: &Path) -> PathBuf {
    let path: Vec<Component> = path.components().collect();
    let base: Vec<Component> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..base.len() {
        out.push("..");
    }
    for c in &path[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out
    }
}

/// A path with `/` separators, as Terragrunt's functions return them.
pub(crate) fn slash(path: &Path) -> String {
    let text = path.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text.into_owned()
    } else {
        text.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// `abs` (absolute) expressed in the style of `like`: unchanged when `like` is absolute,
/// else relative to the current directory.
pub fn in_style_of(abs: &Path, like: &Path) -> PathBuf {
    if like.is_absolute() {
        abs.to_path_buf()
    } else {
        relative_path(abs, &absolute(Path::new(".")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        let cases = [
            ("/r/envs/prod/vpc", "/r", "envs/prod/vpc"),
            ("/r", "/r/envs/prod/vpc", "../../.."),
            ("/r/a", "/r/a", "."),
            ("/r/modules/vpc", "/r/envs/prod", "../../modules/vpc"),
        ];
        for (path, base, want) in cases {
            assert_eq!(
                relative_path(Path::new(path), Path::new(base)),
                PathBuf::from(want),
                "{path} from {base}"
            );
        }
    }
}
