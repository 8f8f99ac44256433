//! `tfsum fmt`: rewrite existing lock files in canonical form, offline.
//!
//! The use case is a `.terraform.lock.hcl` whose git merge conflict was resolved by hand:
//! blocks out of order, hashes duplicated or unsorted, odd spacing. Such a file is still a
//! valid lock file, so it is read with the lock-file parser and rendered whole again
//! ([`tfsum_vocab::lockfile::LockFile::render`]), exactly as Terraform would write it. Nothing is resolved
//! against a registry and no provider, version or hash is added or dropped: fmt changes
//! layout, never content. Comments are not kept, just as Terraform drops them on write.
//!
//! The parts, in the order [`run`] uses them:
//! - discovery turns the given paths into lock files (a file, a directory's lock file, or
//!   with `recursive` every lock file below a directory, skipping dot-directories such as
//!   `.terraform/` and `.git/`);
//! - [`format_file`]'s checks refuse what must not be rewritten: unreadable or non-UTF-8
//!   bytes, leftover conflict markers, anything the parser rejects (reported with its
//!   line-numbered problems);
//! - the write compares bytes first, so a canonical file is never touched, and otherwise
//!   replaces the file atomically with its permissions kept.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use tfsum_disk::atomic::link_trees;
use tfsum_disk::walk::lock_files;
use tfsum_report::fmt::{FmtError, FmtFile, FmtReport, Formatted};
use tfsum_stages::write::diff;
use tfsum_stages::write::Change;
use tfsum_vocab::lockfile;

/// What to format; the plain values the CLI turns `tfsum fmt [--check] [-r] [PATH]...` into.
#[derive(Debug, Clone, Default)]
pub(crate) struct FmtOptions {
    /// Lock files or directories. Empty means the current directory.
    pub paths: Vec<PathBuf>,
    /// Find every lock file below each directory instead of only the directory's own.
    pub recursive: bool,
    /// Report what would change (with a diff) and write nothing.
    pub check: bool,
}

/// Formats every lock file the options name. One bad file never stops the others.
pub(crate) fn run(options: &FmtOptions) -> FmtReport {
    let default_paths = [PathBuf::from(".")];
    let paths = if options.paths.is_empty() {
        &default_paths[..]
    } else {
        &options.paths[..]
    };
    let mut report = FmtReport::default();
    let mut seen = HashSet::new();
    let within = link_trees(paths);
    for path in paths {
        for found in lock_files(path, options.recursive) {
            let file = match found {
                Ok(file) => {
                    // The same file named twice (or through a symlink) is formatted once.
                    let key = fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
                    if !seen.insert(key) {
                        continue;
                    }
                    let outcome = format_file(&file, options.check, &within);
                    FmtFile {
                        path: file,
                        outcome,
                    }
                }
                Err((path, error)) => FmtFile {
                    path,
                    outcome: Err(error.into()),
                },
            };
            report.files.push(file);
        }
    }
    report
}

/// Formats one lock file: checks it, renders it, and writes it only when the bytes differ
/// (or, with `check`, returns the diff instead). A lock file that is a link is written
/// through only to a target inside `within`.
pub(crate) fn format_file(
    path: &Path,
    check: bool,
    within: &[PathBuf],
) -> Result<Formatted, FmtError> {
    let target = tfsum_disk::atomic::link_target(path, within).map_err(FmtError::Link)?;
    let bytes = fs::read(&target).map_err(FmtError::Read)?;
    let lock = lockfile::read(&bytes).map_err(FmtError::Unreadable)?;
    let canonical = lock.render();
    let change = tfsum_stages::write::compare(Some(&bytes), &canonical);
    if change == Change::Unchanged {
        return Ok(Formatted { change, diff: None });
    }
    if check {
        // `read` has already proved the bytes are UTF-8.
        let old = String::from_utf8_lossy(&bytes);
        let (old_label, new_label) = diff_labels(path);
        let diff = diff::unified(&old, &canonical, &old_label, &new_label);
        return Ok(Formatted {
            change,
            diff: Some(diff),
        });
    }
    tfsum_disk::atomic::replace_file(&target, canonical.as_bytes()).map_err(FmtError::Write)?;
    Ok(Formatted { change, diff: None })
}

/// git's `a/`, `b/` labels for a relative path (without a leading `./`), so the diff
/// applies with `git apply` or `patch -p1` from where tfsum ran; an absolute path is
/// used as it is on both sides, as `diff -u` writes it.
fn diff_labels(path: &Path) -> (String, String) {
    if path.is_absolute() {
        let shown = path.display().to_string();
        return (shown.clone(), shown);
    }
    let shown = path.strip_prefix(".").unwrap_or(path).display();
    (format!("a/{shown}"), format!("b/{shown}"))
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::time::SystemTime;

    use pretty_assertions::assert_eq;

    use super::*;
    use tfsum_vocab::lockfile::LOCK_FILE_NAME;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/fmt");
    /// A lock file real `terraform init` wrote: canonical by definition.
    const CANONICAL: &str = "../lockfiles/real_tf_e2e_null_template.terraform.lock.hcl";

    fn fixture(name: &str) -> Vec<u8> {
        fs::read(Path::new(FIXTURES).join(name)).unwrap()
    }

    /// Copies a fixture to `<dir>/<sub>/.terraform.lock.hcl` and returns that path.
    fn place(dir: &Path, sub: &str, name: &str) -> PathBuf {
        let module = dir.join(sub);
        fs::create_dir_all(&module).unwrap();
        let path = module.join(LOCK_FILE_NAME);
        fs::write(&path, fixture(name)).unwrap();
        path
    }

    /// Bytes plus what a rewrite would change even with the same bytes: the inode (a
    /// rename gives a new one) and the modification time.
    #[derive(Debug, PartialEq)]
    struct Snapshot {
        bytes: Vec<u8>,
        modified: SystemTime,
        #[cfg(unix)]
        inode: u64,
    }

    fn snapshot(path: &Path) -> Snapshot {
        let metadata = fs::metadata(path).unwrap();
        Snapshot {
            bytes: fs::read(path).unwrap(),
            modified: metadata.modified().unwrap(),
            #[cfg(unix)]
            inode: std::os::unix::fs::MetadataExt::ino(&metadata),
        }
    }

    fn options(paths: Vec<PathBuf>, recursive: bool, check: bool) -> FmtOptions {
        FmtOptions {
            paths,
            recursive,
            check,
        }
    }

    fn single(report: FmtReport) -> FmtFile {
        assert_eq!(report.files.len(), 1, "{report:?}");
        report.files.into_iter().next().unwrap()
    }

    enum Expect {
        /// Left alone: same bytes, same inode and mtime.
        Untouched,
        /// Rewritten to exactly this fixture.
        Rewritten(&'static str),
        /// Check mode found a difference; the file is untouched.
        WouldRewrite,
        /// Failed with a message holding each of these; the file is untouched.
        Fails(&'static [&'static str]),
    }

    /// Every kind of single file, in write mode and in check mode.
    #[test]
    fn formats_one_file_per_behaviour() {
        let cases: &[(&str, bool, Expect)] = &[
            (CANONICAL, false, Expect::Untouched),
            (CANONICAL, true, Expect::Untouched),
            (
                "messy.terraform.lock.hcl",
                false,
                Expect::Rewritten("messy.expected.terraform.lock.hcl"),
            ),
            ("messy.terraform.lock.hcl", true, Expect::WouldRewrite),
            (
                "tofu_messy.terraform.lock.hcl",
                false,
                Expect::Rewritten("tofu_messy.expected.terraform.lock.hcl"),
            ),
            (
                "broken.terraform.lock.hcl",
                false,
                Expect::Fails(&[
                    "not a valid lock file; left unchanged:",
                    "\n  line 5: Invalid provider version number:",
                    "\n  line 11: Non-normalized provider source address:",
                    "Write \"registry.terraform.io/hashicorp/random\"",
                    "\n  line 17: Invalid provider version constraints:",
                ]),
            ),
            (
                "broken.terraform.lock.hcl",
                true,
                Expect::Fails(&["line 5: Invalid provider version number"]),
            ),
            (
                // The OpenTofu header makes the parser suggest OpenTofu's registry.
                "tofu_short_label.terraform.lock.hcl",
                false,
                Expect::Fails(&["line 4: ", "Write \"registry.opentofu.org/hashicorp/null\""]),
            ),
            (
                "conflict.terraform.lock.hcl",
                false,
                Expect::Fails(&["unresolved merge conflict at line 7"]),
            ),
            (
                "conflict.terraform.lock.hcl",
                true,
                Expect::Fails(&["unresolved merge conflict at line 7"]),
            ),
        ];
        for (name, check, expect) in cases {
            let dir = tempfile::tempdir().unwrap();
            let path = place(dir.path(), "root", name);
            let before = snapshot(&path);
            let file = single(run(&options(vec![path.clone()], false, *check)));
            let what = format!("{name} (check: {check}): {file}");
            assert_eq!(file.path, path, "{what}");
            match expect {
                Expect::Untouched => {
                    assert!(
                        matches!(&file.outcome, Ok(f) if f.change == Change::Unchanged),
                        "{what}"
                    );
                    assert_eq!(snapshot(&path), before, "{what}");
                }
                Expect::Rewritten(expected) => {
                    assert!(
                        matches!(&file.outcome, Ok(f) if f.change == Change::Updated && f.diff.is_none()),
                        "{what}"
                    );
                    assert_eq!(
                        String::from_utf8(fs::read(&path).unwrap()).unwrap(),
                        String::from_utf8(fixture(expected)).unwrap(),
                        "{what}"
                    );
                    // Formatting is idempotent: a second run leaves the result alone.
                    let again = single(run(&options(vec![path.clone()], false, false)));
                    assert!(
                        matches!(&again.outcome, Ok(f) if f.change == Change::Unchanged),
                        "{what}"
                    );
                }
                Expect::WouldRewrite => {
                    let Ok(Formatted {
                        diff: Some(diff), ..
                    }) = &file.outcome
                    else {
                        panic!("{what}");
                    };
                    assert!(diff.starts_with("--- "), "{what}: {diff}");
                    assert_eq!(snapshot(&path), before, "{what}");
                }
                Expect::Fails(needles) => {
                    let Err(error) = &file.outcome else {
                        panic!("{what}");
                    };
                    let message = error.to_string();
                    for needle in *needles {
                        assert!(message.contains(needle), "{what}\nmissing {needle:?}");
                    }
                    assert!(file.to_string().starts_with(&path.display().to_string()));
                    assert_eq!(snapshot(&path), before, "{what}");
                }
            }
            // No temporary file is left behind, whatever happened.
            let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .filter(|n| n != LOCK_FILE_NAME)
                .collect();
            assert!(leftovers.is_empty(), "{what}: {leftovers:?}");
        }
    }

    #[test]
    fn check_mode_returns_the_diff_to_canonical_form() {
        let dir = tempfile::tempdir().unwrap();
        let path = place(dir.path(), "m", "tofu_messy.terraform.lock.hcl");
        let report = run(&options(vec![dir.path().join("m")], false, true));
        assert!(report.has_changes() && !report.has_failures());
        let Ok(Formatted {
            diff: Some(diff), ..
        }) = &single(report).outcome
        else {
            panic!("expected a diff");
        };
        let shown = path.display();
        let expected = format!(
            "\
--- {shown}
+++ {shown}
@@ -1,6 +1,9 @@
 # This file is maintained automatically by \"tofu init\".
 # Manual edits may be lost in future updates.
+
 provider \"registry.opentofu.org/hashicorp/null\" {{
   version = \"3.2.1\"
-  hashes = [ \"h1:7MjN4eFisdTv4tlhXH5hL4QQd39Jy4baPhFxwAd/EFE=\" ]
+  hashes = [
+    \"h1:7MjN4eFisdTv4tlhXH5hL4QQd39Jy4baPhFxwAd/EFE=\",
+  ]
 }}
"
        );
        assert_eq!(diff, &expected);
    }

    #[test]
    fn diff_labels_follow_git_for_relative_paths() {
        let cases = [
            ("./.terraform.lock.hcl", "a/.terraform.lock.hcl"),
            (
                "envs/prod/.terraform.lock.hcl",
                "a/envs/prod/.terraform.lock.hcl",
            ),
            ("./envs/.terraform.lock.hcl", "a/envs/.terraform.lock.hcl"),
            ("/repo/.terraform.lock.hcl", "/repo/.terraform.lock.hcl"),
        ];
        for (path, old) in cases {
            let (a, b) = diff_labels(Path::new(path));
            assert_eq!(a, old, "{path}");
            assert_eq!(b, old.replacen("a/", "b/", 1), "{path}");
        }
    }

    #[test]
    fn recursive_discovery_skips_dot_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let messy = "messy.terraform.lock.hcl";
        let wanted = [
            place(root, "", CANONICAL),
            place(root, "envs/prod", messy),
            place(root, "envs/staging/eu", messy),
        ];
        let skipped = [
            place(root, ".terraform/modules/net", messy),
            place(root, ".git/x", messy),
            place(root, "envs/.hidden", messy),
        ];
        fs::create_dir_all(root.join("modules/no-lock")).unwrap();
        let before: Vec<_> = skipped.iter().map(|p| snapshot(p)).collect();

        let report = run(&options(vec![root.to_path_buf()], true, false));
        let got: Vec<_> = report.files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(got, wanted);
        let outcomes: Vec<_> = report.files.iter().map(|f| f.to_string()).collect();
        let shown = |p: &PathBuf, what: &str| format!("{}: {what}", p.display());
        assert_eq!(
            outcomes,
            [
                shown(&wanted[0], "already canonical"),
                shown(&wanted[1], "reformatted"),
                shown(&wanted[2], "reformatted"),
            ]
        );
        let after: Vec<_> = skipped.iter().map(|p| snapshot(p)).collect();
        assert_eq!(after, before);

        // Starting inside a dot-directory is the user's explicit choice.
        let inside = run(&options(vec![root.join(".terraform")], true, true));
        assert_eq!(single(inside).path, skipped[0]);
    }

    #[test]
    fn paths_that_hold_no_lock_file_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = place(root, "a", CANONICAL);
        fs::create_dir_all(root.join("empty")).unwrap();
        let paths = vec![
            root.join("missing"),
            root.join("empty"),
            lock.clone(),
            root.join("a"), // the same file again: reported once
        ];
        let report = run(&options(paths, false, false));
        let got: Vec<_> = report.files.iter().map(ToString::to_string).collect();
        let shown = |p: &Path| p.display().to_string();
        assert_eq!(
            got,
            [
                format!(
                    "{}: no such file or directory",
                    shown(&root.join("missing"))
                ),
                format!(
                    "{}: directory has no .terraform.lock.hcl (use -r to search below it)",
                    shown(&root.join("empty"))
                ),
                format!("{}: already canonical", shown(&lock)),
            ]
        );
        assert!(report.has_failures() && !report.has_changes());

        let below = single(run(&options(vec![root.join("empty")], true, false)));
        assert!(matches!(
            below.outcome,
            Err(FmtError::Find(tfsum_disk::walk::FindError::NoLockFileBelow))
        ));
    }

    #[test]
    fn non_utf8_bytes_are_reported_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE_NAME);
        fs::write(&path, b"# header\n\nprovider \"\xff\" {\n}\n").unwrap();
        let file = single(run(&options(vec![path.clone()], false, false)));
        assert!(
            matches!(
                file.outcome,
                Err(FmtError::Unreadable(lockfile::ReadError::NotUtf8 {
                    line: 3
                }))
            ),
            "{file}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn rewrite_keeps_permissions_and_writes_through_a_link_within_the_tree() {
        use std::os::unix::fs::{symlink, PermissionsExt};

        let dir = tempfile::tempdir().unwrap();
        let target = place(dir.path(), "shared", "messy.terraform.lock.hcl");
        fs::set_permissions(&target, fs::Permissions::from_mode(0o444)).unwrap();
        let module = dir.path().join("module");
        fs::create_dir_all(&module).unwrap();
        let link = module.join(LOCK_FILE_NAME);
        symlink(&target, &link).unwrap();

        // Named alone, the module's tree does not hold the link's target: refused.
        let file = single(run(&options(vec![module.clone()], false, false)));
        let Err(FmtError::Link(escape)) = &file.outcome else {
            panic!("{file}");
        };
        assert_eq!(escape.link, link);
        assert_eq!(
            fs::read(&target).unwrap(),
            fixture("messy.terraform.lock.hcl")
        );
        // The tree holding both: written through the link, once.
        let report = run(&options(vec![dir.path().to_path_buf()], true, false));
        let file = single(report);
        assert!(
            matches!(&file.outcome, Ok(f) if f.change == Change::Updated),
            "{file}"
        );
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            fs::read(&target).unwrap(),
            fixture("messy.expected.terraform.lock.hcl")
        );
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o444);
    }
}
