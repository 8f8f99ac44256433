//! The configuration index end to end (issue 43): every run over a repository with an
//! index reports and writes what a run without one does, through edits, additions,
//! removals and renames between runs (within one second of the run before, with the
//! modification time set back), in whole runs and in changed-files runs; a damaged,
//! truncated or foreign index is one warning and is rebuilt; `--no-index` and its
//! setting keep none.
//!
//! Each test drives two copies of one repository ([`Pair`]): the first locked with the
//! index, the second with `--no-index`, each with its own cache. After every step both
//! must print the same report (but the summary line's package counts and time) and hold
//! the same files, byte for byte.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;

use crate::harness::{self, main_tf, run, snapshot, text, Repo, FAST_RETRIES, LOCK};
use crate::support::fake_registry::RegistryHandle;

const PLATFORMS: &[&str] = &["linux_amd64"];

/// How long after a file is written before a stamp taken of it vouches for it
/// (`disk::index::RACY`), with room to spare.
const SETTLE: Duration = Duration::from_millis(2200);

/// One repository twice: locked with the index, and with `--no-index`.
struct Pair {
    indexed: Repo,
    plain: Repo,
}

impl Pair {
    fn new(registry: &RegistryHandle, files: &[(&str, &str)]) -> Pair {
        Pair {
            indexed: Repo::new(registry, files),
            plain: Repo::new(registry, files),
        }
    }

    fn both(&self) -> [&Repo; 2] {
        [&self.indexed, &self.plain]
    }

    fn write(&self, relative: &str, content: &str) {
        for repo in self.both() {
            repo.write(relative, content);
        }
    }

    fn remove(&self, relative: &str) {
        for repo in self.both() {
            let path = repo.path().join(relative);
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.unwrap_or_else(|e| panic!("removing {}: {e}", path.display()));
        }
    }

    fn rename(&self, from: &str, to: &str) {
        for repo in self.both() {
            let (from, to) = (repo.path().join(from), repo.path().join(to));
            std::fs::rename(&from, &to)
                .unwrap_or_else(|e| panic!("renaming {}: {e}", from.display()));
        }
    }

    /// Writes `content` over `relative` in place (same inode), then sets its
    /// modification time back to what it was: only its change time tells.
    fn edit_keeping_mtime(&self, relative: &str, content: &str) {
        for repo in self.both() {
            let path = repo.path().join(relative);
            let before = std::fs::metadata(&path)
                .expect("file")
                .modified()
                .expect("mtime");
            repo.write(relative, content);
            set_mtime(&path, before);
        }
    }

    /// `tfsum lock ARGS` on both copies (`--no-index` on the plain one), each with the
    /// debug log on stderr; then the two must agree.
    fn lock(&self, step: &str, args: &[&str]) -> (Output, Output) {
        let run_one = |repo: &Repo, extra: &[&str]| {
            let mut all = vec!["lock".to_string(), "-v".to_string()];
            all.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
            all.extend(extra.iter().map(|a| a.to_string()));
            all.extend(args.iter().map(|a| a.to_string()));
            let all: Vec<&str> = all.iter().map(String::as_str).collect();
            run(
                repo.path(),
                &repo.cli_config(),
                &repo.cache(),
                &all,
                FAST_RETRIES,
            )
        };
        let indexed = run_one(&self.indexed, &[]);
        let plain = run_one(&self.plain, &["--no-index"]);
        assert_eq!(
            report(&indexed),
            report(&plain),
            "{step}: the reports differ\nindexed: {}\nplain: {}",
            text(&indexed),
            text(&plain)
        );
        assert_eq!(
            indexed.status.code(),
            plain.status.code(),
            "{step}\nindexed: {}\nplain: {}",
            text(&indexed),
            text(&plain)
        );
        assert_eq!(
            snapshot(self.indexed.path()),
            snapshot(self.plain.path()),
            "{step}: the repositories differ"
        );
        assert!(
            index_files(&self.plain.cache()).is_empty(),
            "{step}: --no-index kept an index"
        );
        (indexed, plain)
    }

    /// [`Pair::lock`] over the whole repository.
    fn lock_all(&self, step: &str) -> Output {
        self.lock(step, &["-r", "."]).0
    }
}

/// The report's lines, but the summary line (its package counts and time say how the
/// run got there, not what it found) and the warning about a damaged index.
fn report(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| !line.contains(" roots: ") && !line.contains(" root: "))
        .filter(|line| !line.contains("ignoring the configuration index"))
        .map(str::to_string)
        .collect()
}

/// The word the report gives `root` (`created`, `updated`, `unchanged`), if any.
fn outcome(output: &Output, root: &str) -> Option<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            let word = words.next()?;
            (words.next()? == root).then(|| word.to_string())
        })
}

/// How many roots the index answered, from the debug log's decision line.
fn answered(output: &Output) -> usize {
    let stderr = String::from_utf8_lossy(&output.stderr);
    stderr
        .lines()
        .find_map(|line| {
            let (_, rest) = line.split_once("roots known; ")?;
            rest.split(" roots up to date").next()?.trim().parse().ok()
        })
        .unwrap_or(0)
}

fn set_mtime(path: &Path, time: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|file| file.set_modified(time))
        .unwrap_or_else(|e| panic!("setting the mtime of {}: {e}", path.display()));
}

/// The index files in a cache directory.
fn index_files(cache: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache.join("v2/index"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// `main.tf` of a root: `providers` required, `calls` local modules.
fn root_tf(providers: &[(&str, &str)], calls: &[&str]) -> String {
    let mut text = main_tf(providers);
    for (i, call) in calls.iter().enumerate() {
        text.push_str(&format!("module \"m{i}\" {{\n  source = \"{call}\"\n}}\n"));
    }
    text
}

/// Two roots calling one module, a third alone, one with a test file.
fn repository(registry: &RegistryHandle) -> Pair {
    Pair::new(
        registry,
        &[
            ("modules/net/main.tf", &main_tf(&[("null", ">= 3.0")])),
            (
                "a/main.tf",
                &root_tf(
                    &[("null", "~> 3.2"), ("random", "3.6.0")],
                    &["../modules/net"],
                ),
            ),
            (
                "b/main.tf",
                &root_tf(&[("random", "3.6.0")], &["../modules/net"]),
            ),
            ("c/main.tf", &main_tf(&[("null", "3.2.0")])),
            ("c/tests/x.tftest.hcl", "run \"x\" {}\n"),
        ],
    )
}

/// Whole runs: each step changes the repository, and the run with the index must find
/// exactly what the run without it finds; an unchanged root is answered from the index
/// once its files are old enough to vouch for.
#[test]
fn whole_runs_follow_every_change() {
    let registry = harness::registry();
    let pair = repository(&registry);
    let first = pair.lock_all("first run");
    for root in ["a", "b", "c"] {
        assert_eq!(outcome(&first, root).as_deref(), Some("created"), "{root}");
    }
    assert_eq!(
        index_files(&pair.indexed.cache()).len(),
        1,
        "{}",
        text(&first)
    );

    // Within a second of the writes: nothing vouched for, everything read again.
    let quick = pair.lock_all("at once");
    assert_eq!(answered(&quick), 0, "{}", text(&quick));
    std::thread::sleep(SETTLE);
    pair.lock_all("settling");
    let settled = pair.lock_all("nothing changed");
    assert_eq!(answered(&settled), 3, "{}", text(&settled));

    // A module two roots call: a constraint that moves `a` and `b`.
    pair.write("modules/net/main.tf", &main_tf(&[("null", "= 3.2.0")]));
    let moved = pair.lock_all("module constraint");
    assert_eq!(outcome(&moved, "a").as_deref(), Some("updated"));
    assert_eq!(outcome(&moved, "b").as_deref(), Some("updated"));

    // The same size, the same second, the modification time put back.
    pair.edit_keeping_mtime("modules/net/main.tf", &main_tf(&[("null", "= 3.2.1")]));
    let back = pair.lock_all("mtime set back");
    assert_eq!(outcome(&back, "a").as_deref(), Some("updated"));
    pair.edit_keeping_mtime("modules/net/main.tf", &main_tf(&[("null", "= 3.2.0")]));
    pair.lock_all("mtime set back again, at once");

    // After settling, the same edit with its time put back once more.
    std::thread::sleep(SETTLE);
    pair.lock_all("settled again");
    pair.edit_keeping_mtime("modules/net/main.tf", &main_tf(&[("null", ">= 3.0")]));
    let again = pair.lock_all("old mtime, settled index");
    assert_eq!(outcome(&again, "a").as_deref(), Some("updated"));

    // A new root, a root renamed, a root's configuration removed.
    pair.write("d/main.tf", &main_tf(&[("random", "3.6.0")]));
    pair.lock_all("new root");
    pair.rename("b", "b2");
    pair.lock_all("root renamed");
    pair.remove("c/main.tf");
    pair.lock_all("root removed");

    // A lock file removed, and one edited by hand.
    pair.remove(&format!("a/{LOCK}"));
    pair.lock_all("lock file removed");
    let lock = pair.indexed.lock("d").expect("lock of d");
    let cut: String = lock
        .lines()
        .filter(|l| !l.contains("h1:"))
        .map(|l| format!("{l}\n"))
        .collect();
    pair.write(&format!("d/{LOCK}"), &cut);
    let restored = pair.lock_all("lock file edited");
    assert_eq!(outcome(&restored, "d").as_deref(), Some("updated"));

    // A module that becomes a root, and a test file that counts.
    pair.write(
        "modules/net/backend.tf",
        "terraform {\n  backend \"local\" {}\n}\n",
    );
    pair.lock_all("module with a backend");
    pair.write("a/tests/y.tftest.hcl", "run \"y\" {}\n");
    pair.lock_all("test file added");

    // Other settings: another platform set is no answer from the index.
    std::thread::sleep(SETTLE);
    pair.lock_all("settled before platforms");
    let (more, _) = pair.lock("another platform", &["-r", "--platform=darwin_arm64", "."]);
    assert_eq!(answered(&more), 0, "{}", text(&more));
    pair.lock_all("back to one platform");
    std::thread::sleep(SETTLE);
    pair.lock_all("settling on one platform");
    let settled = pair.lock_all("one platform, settled");
    assert!(answered(&settled) > 0, "{}", text(&settled));
}

/// Changed-files runs (pre-commit, Renovate): the roots the files given concern, from
/// the index's reverse graph, locked as a run without the index locks them; a file
/// deleted or renamed, a new directory, a lock file given and a file edited in place
/// all do what they do without the index.
#[test]
fn changed_files_runs_follow_the_reverse_graph() {
    let registry = harness::registry();
    let pair = repository(&registry);
    pair.lock_all("first run");
    std::thread::sleep(SETTLE);
    pair.lock_all("settling");

    let one = pair.lock("one root's file, unchanged", &["a/main.tf"]).0;
    assert_eq!(report(&one), ["unchanged a"], "{}", text(&one));
    assert_eq!(answered(&one), 1, "{}", text(&one));

    pair.write("modules/net/main.tf", &main_tf(&[("null", "= 3.2.0")]));
    let module = pair.lock("a module's file", &["modules/net/main.tf"]).0;
    assert_eq!(outcome(&module, "a").as_deref(), Some("updated"));
    assert_eq!(outcome(&module, "b").as_deref(), Some("updated"));
    assert_eq!(outcome(&module, "c"), None, "c does not call it");

    pair.edit_keeping_mtime("modules/net/main.tf", &main_tf(&[("null", "= 3.2.1")]));
    pair.lock("a module's file, mtime set back", &["modules/net/main.tf"]);

    let lock = pair.indexed.lock("c").expect("lock of c");
    pair.write(&format!("c/{LOCK}"), &lock.replace("h1:", "h1:x"));
    let given = pair.lock("a lock file given", &[&format!("c/{LOCK}")]).0;
    assert_eq!(outcome(&given, "c").as_deref(), Some("updated"));

    pair.write("c/tests/x.tftest.hcl", "run \"x\" {\n}\n");
    pair.lock("a test file", &["c/tests/x.tftest.hcl"]);

    pair.write("e/main.tf", &main_tf(&[("random", "3.6.0")]));
    let new = pair.lock("a new directory", &["e/main.tf"]).0;
    assert_eq!(outcome(&new, "e").as_deref(), Some("created"));

    pair.rename("e", "f");
    pair.lock("a renamed root", &["e/main.tf", "f/main.tf"]);

    pair.remove("b/main.tf");
    pair.lock("a deleted file", &["b/main.tf"]);

    // Edited where it is, in a directory that did not change, and given.
    std::thread::sleep(SETTLE);
    pair.lock_all("settled");
    pair.edit_keeping_mtime(
        "a/main.tf",
        &root_tf(&[("null", "~> 3.2"), ("random", "3.6.0")], &[]),
    );
    let edited = pair.lock("an in-place edit", &["a/main.tf"]).0;
    assert_eq!(
        outcome(&edited, "a").as_deref(),
        Some("updated"),
        "{}",
        text(&edited)
    );
    pair.lock_all("whole run after");
}

/// A damaged, truncated or foreign index is not used: the run says so once, reads
/// everything, and leaves a sound index for the next run, which says nothing.
#[test]
fn a_damaged_index_is_one_warning_and_rebuilt() {
    let registry = harness::registry();
    let pair = repository(&registry);
    pair.lock_all("first run");
    let other = Repo::two_roots(&registry);
    let mut args: Vec<String> = vec!["lock".into(), "-r".into()];
    args.extend(PLATFORMS.iter().map(|p| format!("--platform={p}")));
    args.push(".".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(
        other.path(),
        &other.cli_config(),
        &pair.indexed.cache(),
        &args,
        FAST_RETRIES,
    );
    assert!(out.status.success(), "{}", text(&out));
    let files = index_files(&pair.indexed.cache());
    assert_eq!(files.len(), 2, "one index per tree");
    let names_ours = |file: &PathBuf| {
        let path = pair.indexed.path().to_string_lossy().into_owned();
        std::fs::read(file).is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(&path))
    };
    let ours = files
        .iter()
        .find(|f| names_ours(f))
        .expect("this tree's index")
        .clone();
    let foreign = files
        .iter()
        .find(|f| **f != ours)
        .expect("the other tree's")
        .clone();
    let sound = std::fs::read(&ours).expect("index");

    let damages: [(&str, Vec<u8>); 3] = [
        ("truncated", sound[..sound.len() / 2].to_vec()),
        ("a byte changed", {
            let mut bytes = sound.clone();
            let last = bytes.len() - 1;
            bytes[last] ^= 0x55;
            bytes
        }),
        ("foreign", std::fs::read(&foreign).expect("foreign index")),
    ];
    for (damage, bytes) in damages {
        std::fs::write(&ours, &bytes).expect("damage the index");
        pair.write("a/extra.tf", &format!("# {damage}\n"));
        let out = pair.lock_all(damage);
        let stderr = text(&out);
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("ignoring the configuration index"))
            .collect();
        assert_eq!(warnings.len(), 1, "{damage}: {stderr}");
        let again = pair.lock_all(&format!("after {damage}"));
        assert!(
            !text(&again).contains("ignoring the configuration index"),
            "{damage}: rebuilt\n{}",
            text(&again)
        );
    }
}

/// `--no-index`, `TFSUM_INDEX=false` and `index = false` in `.tfsum.toml` keep no index;
/// a run without them keeps one.
#[test]
fn no_index_keeps_none() {
    let registry = harness::registry();
    let base = |name: &str, extra: &[&str], env: &[(&str, &str)], file: Option<&str>| {
        let repo = Repo::two_roots(&registry);
        std::fs::create_dir_all(repo.path().join(".git")).expect(".git");
        if let Some(file) = file {
            repo.write(".tfsum.toml", file);
        }
        let out = repo.lock_all(PLATFORMS, extra, env);
        assert!(out.status.success(), "{name}: {}", text(&out));
        (index_files(&repo.cache()).len(), name.to_string())
    };
    for (kept, name) in [
        base("default", &[], &[], None),
        base("--no-index", &["--no-index"], &[], None),
        base("TFSUM_INDEX=false", &[], &[("TFSUM_INDEX", "false")], None),
        base("index = false", &[], &[], Some("index = false\n")),
        base(
            "flag over file",
            &["--no-index"],
            &[],
            Some("index = true\n"),
        ),
        base(
            "TFSUM_INDEX=true",
            &[],
            &[("TFSUM_INDEX", "true")],
            Some("index = false\n"),
        ),
    ] {
        let want = usize::from(name == "default" || name == "TFSUM_INDEX=true");
        assert_eq!(kept, want, "{name}");
    }
}
