//! `tfsum fmt`: rewrite existing lock files in canonical form, offline.
//!
//! The use case is a `.terraform.lock.hcl` whose git merge conflict was resolved by hand:
//! blocks out of order, hashes duplicated or unsorted, odd spacing. Such a file is still a
//! valid lock file, so it is read with the lock-file parser and rendered whole again
//! ([`LockFile::render`]), exactly as Terraform would write it. Nothing is resolved
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
use std::io;
use std::path::{Path, PathBuf};

use crate::stages::write::diff;
use crate::stages::write::Change;
use crate::vocab::lockfile::{self, Flavor, LockFile, LockFileError};

pub use crate::vocab::lockfile::LOCK_FILE_NAME;

/// What to format; the plain values the CLI turns `tfsum fmt [--check] [-r] [PATH]...` into.
#[derive(Debug, Clone, Default)]
pub struct FmtOptions {
    /// Lock files or directories. Empty means the current directory.
    pub paths: Vec<PathBuf>,
    /// Find every lock file below each directory instead of only the directory's own.
    pub recursive: bool,
    /// Report what would change (with a diff) and write nothing.
    pub check: bool,
}

/// One entry per lock file found, plus one per path that yielded none, in the order the
/// paths were given (and by file name below a directory), so output is deterministic.
#[derive(Debug, Default)]
pub struct FmtReport {
    pub files: Vec<FmtFile>,
}

impl FmtReport {
    /// True when any entry failed: the run should exit non-zero.
    pub fn has_failures(&self) -> bool {
        self.files.iter().any(|f| f.outcome.is_err())
    }

    /// True when any file was rewritten or, in check mode, would be.
    pub fn has_changes(&self) -> bool {
        self.files
            .iter()
            .any(|f| matches!(&f.outcome, Ok(done) if done.change != Change::Unchanged))
    }
}

/// The result for one path. `Display` gives a one-line summary naming the path (the
/// diff is not included; print it separately).
#[derive(Debug)]
pub struct FmtFile {
    pub path: PathBuf,
    /// What was done, or why nothing was written.
    pub outcome: Result<Formatted, FmtError>,
}

impl std::fmt::Display for FmtFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.outcome {
            Ok(done) => match (done.change, &done.diff) {
                (Change::Unchanged, _) => write!(f, "{path}: already canonical"),
                (_, None) => write!(f, "{path}: reformatted"),
                (_, Some(_)) => write!(f, "{path}: would be reformatted"),
            },
            Err(error) => write!(f, "{path}: {error}"),
        }
    }
}

/// What fmt did to one file (or, in check mode, would do).
#[derive(Debug)]
pub struct Formatted {
    /// `Unchanged`: already byte-identical to the canonical form, not opened for writing;
    /// `Updated`: rewritten (check mode: would be).
    pub change: Change,
    /// Check mode: a unified diff from the file to its canonical form, labelled
    /// `a/<path>` and `b/<path>` (an absolute path as it is).
    pub diff: Option<String>,
}

/// Why a path was not formatted. The path itself is in [`FmtFile`]; these messages are
/// about what is wrong with it, with a line number wherever there is one.
#[derive(Debug, thiserror::Error)]
pub enum FmtError {
    #[error("no such file or directory")]
    NotFound,
    #[error("directory has no {LOCK_FILE_NAME} (use -r to search below it)")]
    NoLockFile,
    #[error("no {LOCK_FILE_NAME} found below this directory")]
    NoLockFileBelow,
    #[error("cannot read: {0}")]
    Read(#[source] io::Error),
    /// A directory the walk could not enter.
    #[error("{0}")]
    Unreadable(String),
    #[error("{0}")]
    Link(#[source] crate::disk::atomic::LinkEscape),
    #[error("cannot write (file left unchanged): {0}")]
    Write(#[source] io::Error),
    #[error("not valid UTF-8 at line {line}; left unchanged")]
    NotUtf8 { line: usize },
    /// Detected before parsing: HCL would only report a syntax error, which hides the
    /// real cause. fmt does not guess which side of a conflict to keep.
    #[error("unresolved merge conflict at line {line}; resolve it, then run fmt again")]
    MergeConflict { line: usize },
    #[error("{}", invalid_message(.0))]
    Invalid(#[source] LockFileError),
}

fn invalid_message(error: &LockFileError) -> String {
    let mut out = String::from("not a valid lock file; left unchanged:");
    for problem in &error.problems {
        out.push_str("\n  ");
        out.push_str(&problem.to_string());
    }
    out
}

/// Formats every lock file the options name. One bad file never stops the others.
pub fn run(options: &FmtOptions) -> FmtReport {
    let default_paths = [PathBuf::from(".")];
    let paths = if options.paths.is_empty() {
        &default_paths[..]
    } else {
        &options.paths[..]
    };
    let mut report = FmtReport::default();
    let mut seen = HashSet::new();
    let within = trees(paths);
    for path in paths {
        for found in discover(path, options.recursive) {
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
                    outcome: Err(error),
                },
            };
            report.files.push(file);
        }
    }
    report
}

/// The trees a lock file that is a link may lead into: the given paths (a file's
/// directory) and the repository holding the working directory.
pub fn trees(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut trees: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            if p.is_file() {
                p.parent().unwrap_or(Path::new("."))
            } else {
                p
            }
        })
        .filter_map(|p| fs::canonicalize(p).ok())
        .collect();
    trees.extend(crate::disk::walk::repository_root(Path::new(".")));
    trees
}

/// A lock file to format, or a path that yielded none and why.
pub type Found = Result<PathBuf, (PathBuf, FmtError)>;

/// The lock files one given path stands for, or the reason it stands for none (also how
/// `tfsum verify` finds the files it audits).
pub fn discover(path: &Path, recursive: bool) -> Vec<Found> {
    let metadata = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return vec![Err((path.to_path_buf(), FmtError::NotFound))]
        }
        Err(e) => return vec![Err((path.to_path_buf(), FmtError::Read(e)))],
    };
    if !metadata.is_dir() {
        return vec![Ok(path.to_path_buf())];
    }
    if !recursive {
        let file = path.join(LOCK_FILE_NAME);
        return if file.is_file() {
            vec![Ok(file)]
        } else {
            vec![Err((path.to_path_buf(), FmtError::NoLockFile))]
        };
    }
    // The walk of discovery: dot-directories (`.terraform/`, `.git/`) hold no lock file
    // the user means to format.
    let walked = crate::disk::walk::walk(path, &[]);
    let mut found: Vec<Found> = walked.lock_files.into_iter().map(Ok).collect();
    found.extend(
        walked
            .warnings
            .into_iter()
            .map(|w| Err((w.path, FmtError::Unreadable(w.message)))),
    );
    if found.is_empty() {
        found.push(Err((path.to_path_buf(), FmtError::NoLockFileBelow)));
    }
    found
}

/// Formats one lock file: checks it, renders it, and writes it only when the bytes differ
/// (or, with `check`, returns the diff instead). A lock file that is a link is written
/// through only to a target inside `within`.
pub fn format_file(path: &Path, check: bool, within: &[PathBuf]) -> Result<Formatted, FmtError> {
    let target = crate::disk::atomic::link_target(path, within).map_err(FmtError::Link)?;
    let bytes = fs::read(&target).map_err(FmtError::Read)?;
    let lock = parse(&bytes)?;
    let canonical = lock.render();
    let change = crate::stages::write::compare(Some(&bytes), &canonical);
    if change == Change::Unchanged {
        return Ok(Formatted { change, diff: None });
    }
    if check {
        // `parse` has already proved the bytes are UTF-8.
        let old = String::from_utf8_lossy(&bytes);
        let (old_label, new_label) = diff_labels(path);
        let diff = diff::unified(&old, &canonical, &old_label, &new_label);
        return Ok(Formatted {
            change,
            diff: Some(diff),
        });
    }
    crate::disk::atomic::replace_file(&target, canonical.as_bytes()).map_err(FmtError::Write)?;
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

/// The checks a file must pass before it may be rewritten, then the lock-file parser.
/// The merge driver reads its three inputs with it too ([`crate::commands::merge::driver`]).
pub fn parse(bytes: &[u8]) -> Result<LockFile, FmtError> {
    let src = std::str::from_utf8(bytes).map_err(|e| FmtError::NotUtf8 {
        line: line_at(bytes, e.valid_up_to()),
    })?;
    if let Some(line) = conflict_marker_line(src) {
        return Err(FmtError::MergeConflict { line });
    }
    // Labels must be fully qualified, so the default host only shapes error messages; it
    // should still be the right one, or a short `hashicorp/aws` label in an OpenTofu file
    // would be "corrected" to registry.terraform.io.
    let flavor = Flavor::from_header(src);
    lockfile::parse(src, flavor.default_registry()).map_err(FmtError::Invalid)
}

/// The 1-based line of the first git conflict marker: `<<<<<<<`, `|||||||` (diff3
/// style), `=======` or `>>>>>>>` at the start of a line, alone or followed by a space
/// and a label, as git writes them. None of these can start a line of a valid lock file.
fn conflict_marker_line(src: &str) -> Option<usize> {
    const MARKERS: [&str; 4] = ["<<<<<<<", "|||||||", "=======", ">>>>>>>"];
    src.lines()
        .position(|line| {
            let line = line.trim_end_matches('\r');
            MARKERS.iter().any(|marker| {
                line.strip_prefix(marker)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            })
        })
        .map(|index| index + 1)
}

/// 1-based line number of a byte offset.
fn line_at(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::time::SystemTime;

    use pretty_assertions::assert_eq;

    use super::*;

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
        assert!(matches!(below.outcome, Err(FmtError::NoLockFileBelow)));
    }

    #[test]
    fn non_utf8_bytes_are_reported_with_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE_NAME);
        fs::write(&path, b"# header\n\nprovider \"\xff\" {\n}\n").unwrap();
        let file = single(run(&options(vec![path.clone()], false, false)));
        assert!(
            matches!(file.outcome, Err(FmtError::NotUtf8 { line: 3 })),
            "{file}"
        );
    }

    #[test]
    fn conflict_markers_are_found_only_at_line_starts() {
        let cases: &[(&str, Option<usize>)] = &[
            ("a\n<<<<<<< HEAD\nb\n", Some(2)),
            ("a\nb\n=======\n", Some(3)),
            ("=======\r\n", Some(1)),
            ("x\n>>>>>>> feature/x\n", Some(2)),
            ("x\n||||||| merged common ancestors\n", Some(2)),
            ("# see <<<<<<< in docs\n", None),
            ("========\n", None),
            ("<<<<<<<<\n", None),
            ("provider \"a\" {\n}\n", None),
        ];
        for (src, line) in cases {
            assert_eq!(conflict_marker_line(src), *line, "{src:?}");
        }
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
