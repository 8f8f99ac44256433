//! Directories that exist only as Terragrunt would generate them.
//!
//! `terragrunt stack generate` copies a unit's (or a nested stack's) source into
//! `<stack dir>/.terragrunt-stack/<path>/` and evaluates its files there. tfsum generates
//! nothing: it evaluates the source's files *as if* they sat at the generated path, so
//! that `get_terragrunt_dir()`, `find_in_parent_folders()` and relative paths see the live
//! repository around that path, while the files themselves are read from the source
//! (`../shared/research/terragrunt-stacks.md` §3.3). Whatever is already on disk under
//! the generated path (an earlier `stack generate`) is not looked at: the generation is a
//! fresh one.
//!
//! The mappings live on the evaluating thread for the duration of one unit's or stack's
//! evaluation ([`with_mappings`]); [`real`] is asked wherever a file is read or tested.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use tfsum_vocab::paths::normalize_path;

/// A generated directory (absolute, normalised) and the directory its files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub generated: PathBuf,
    pub source: PathBuf,
}

thread_local! {
    static MAPPINGS: RefCell<Vec<Mapping>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `mappings` in force (on top of those already in force).
pub(crate) fn with_mappings<T>(mappings: &[Mapping], f: impl FnOnce() -> T) -> T {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            MAPPINGS.with(|m| m.borrow_mut().truncate(self.0));
        }
    }
    let before = MAPPINGS.with(|m| {
        let mut m = m.borrow_mut();
        let before = m.len();
        m.extend(mappings.iter().cloned());
        before
    });
    let _restore = Restore(before);
    f()
}

/// Where the file or directory at `path` really is: inside the source of the innermost
/// generated directory holding it (absolute), else `path` itself, unchanged.
pub(crate) fn real(path: &Path) -> PathBuf {
    let mapped = MAPPINGS.with(|m| {
        let m = m.borrow();
        if m.is_empty() {
            return None;
        }
        let abs = crate::paths::absolute(path);
        m.iter()
            .filter_map(|mapping| {
                let rest = abs.strip_prefix(&mapping.generated).ok()?;
                Some((
                    mapping.generated.components().count(),
                    mapping.source.join(rest),
                ))
            })
            .max_by_key(|(depth, _)| *depth)
            .map(|(_, real)| normalize_path(&real))
    });
    mapped.unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_generated_directory_answers() {
        let mappings = [
            Mapping {
                generated: PathBuf::from("/live/.terragrunt-stack/net"),
                source: PathBuf::from("/catalog/stacks/net"),
            },
            Mapping {
                generated: PathBuf::from("/live/.terragrunt-stack/net/.terragrunt-stack/vpc"),
                source: PathBuf::from("/catalog/units/vpc"),
            },
        ];
        with_mappings(&mappings, || {
            let cases = [
                (
                    "/live/.terragrunt-stack/net/terragrunt.stack.hcl",
                    "/catalog/stacks/net/terragrunt.stack.hcl",
                ),
                (
                    "/live/.terragrunt-stack/net/.terragrunt-stack/vpc/terragrunt.hcl",
                    "/catalog/units/vpc/terragrunt.hcl",
                ),
                ("/live/root.hcl", "/live/root.hcl"),
                (
                    "/live/.terragrunt-stack/net/../x",
                    "/live/.terragrunt-stack/net/../x",
                ),
            ];
            for (given, want) in cases {
                assert_eq!(real(Path::new(given)), PathBuf::from(want), "{given}");
            }
        });
        assert_eq!(
            real(Path::new("/live/.terragrunt-stack/net/a")),
            PathBuf::from("/live/.terragrunt-stack/net/a")
        );
    }
}
