//! `tfsum merge-driver` under real `git merge`: a temporary repository set up as
//! docs/merge-driver.md says (`.gitattributes` routes `.terraform.lock.hcl` to the driver, `git config
//! merge.tfsum.driver` names the built binary), two branches with real commits, a merge,
//! and the merged lock file compared byte for byte. Conflicts are checked the way a user
//! meets them: `git merge`'s exit status and output, `git ls-files -u`, the file itself.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use tempfile::TempDir;

/// The lock file every scenario merges: nested, so the `.gitattributes` pattern is shown
/// to match below the root, and so messages name the root module to lock.
const LOCK: &str = "envs/prod/.terraform.lock.hcl";

const HEADER: &str = "# This file is maintained automatically by \"terraform init\".\n\
                      # Manual edits may be lost in future updates.\n";

/// One `provider` block in canonical layout; the test's own rendering, independent of
/// tfsum's, for writing inputs. Expected outputs are spelled out in full instead.
fn block(addr: &str, version: &str, constraints: &str, hashes: &[&str]) -> String {
    let mut out = format!("\nprovider \"registry.terraform.io/{addr}\" {{\n");
    if constraints.is_empty() {
        out.push_str(&format!("  version = \"{version}\"\n"));
    } else {
        out.push_str(&format!("  version     = \"{version}\"\n"));
        out.push_str(&format!("  constraints = \"{constraints}\"\n"));
    }
    out.push_str("  hashes = [\n");
    for hash in hashes {
        out.push_str(&format!("    \"{hash}\",\n"));
    }
    out.push_str("  ]\n}\n");
    out
}

fn lock_file(blocks: &[String]) -> String {
    let mut out = HEADER.to_string();
    for block in blocks {
        out.push_str(block);
    }
    out
}

/// A git repository with the driver installed, run with a private HOME and no system
/// config so the developer's own git settings cannot change the outcome.
struct Repo {
    dir: TempDir,
    home: TempDir,
}

impl Repo {
    fn new() -> Repo {
        let repo = Repo {
            dir: TempDir::new().unwrap(),
            home: TempDir::new().unwrap(),
        };
        repo.git_ok(&["init", "--quiet", "--initial-branch=main"]);
        repo.git_ok(&["config", "user.name", "Merge Test"]);
        repo.git_ok(&["config", "user.email", "merge@example.com"]);
        repo.git_ok(&["config", "merge.tfsum.name", "tfsum lock-file merge"]);
        let driver = format!("'{}' merge-driver %O %A %B %P", env!("CARGO_BIN_EXE_tfsum"));
        repo.git_ok(&["config", "merge.tfsum.driver", &driver]);
        repo.write(".gitattributes", ".terraform.lock.hcl merge=tfsum\n");
        repo.write("README", "a repository\n");
        repo.commit("init");
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn git(&self, args: &[&str]) -> Output {
        Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.path().join("gitconfig"))
            .env("LC_ALL", "C")
            .output()
            .expect("run git")
    }

    fn git_ok(&self, args: &[&str]) -> String {
        let out = self.git(args);
        assert!(out.status.success(), "git {args:?}:\n{}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn write(&self, relative: &str, content: &str) {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path().join(relative)).unwrap()
    }

    fn commit(&self, message: &str) {
        self.git_ok(&["add", "--all"]);
        self.git_ok(&["commit", "--quiet", "-m", message]);
    }

    /// Commits `base` on main, branches `theirs` from it, commits `ours` on main and
    /// `theirs` on the branch (`None` deletes the lock file), then runs
    /// `git merge theirs` on main.
    fn merge(&self, base: Option<&str>, ours: Option<&str>, theirs: Option<&str>) -> Output {
        let put = |content: Option<&str>| match content {
            Some(content) => self.write(LOCK, content),
            None => {
                let _ = std::fs::remove_file(self.path().join(LOCK));
            }
        };
        put(base);
        // The root module beside its lock file; `ours.txt`/`theirs.txt` below keep every
        // commit non-empty whatever the lock file does.
        self.write("envs/prod/main.tf", "# configuration\n");
        self.commit("base");
        self.git_ok(&["branch", "theirs"]);
        put(ours);
        self.write("ours.txt", "ours\n");
        self.commit("ours");
        self.git_ok(&["checkout", "--quiet", "theirs"]);
        put(theirs);
        self.write("theirs.txt", "theirs\n");
        self.commit("theirs");
        self.git_ok(&["checkout", "--quiet", "main"]);
        self.git(&["merge", "--no-edit", "theirs"])
    }

    /// `git ls-files -u`: the unmerged paths, one per stage.
    fn unmerged(&self) -> Vec<String> {
        self.git_ok(&["ls-files", "-u"])
            .lines()
            .map(|line| {
                line.split_whitespace()
                    .skip(2)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    /// A clean merge: a merge commit exists, nothing is unmerged, the worktree is clean.
    fn assert_merged(&self, out: &Output) {
        assert!(out.status.success(), "git merge:\n{}", text(out));
        assert_eq!(self.unmerged(), Vec::<String>::new());
        let parents = self.git_ok(&["rev-list", "--parents", "-n", "1", "HEAD"]);
        assert_eq!(parents.split_whitespace().count(), 3, "a merge commit");
        assert_eq!(self.git_ok(&["status", "--porcelain"]), "");
    }
}

/// Whether git's own line merge (`git merge-file`) conflicts on these three versions:
/// the scenarios that need the driver are the ones where it does.
fn line_merge_conflicts(base: &str, ours: &str, theirs: &str) -> bool {
    let dir = TempDir::new().unwrap();
    let path = |name: &str, content: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path
    };
    let out = Command::new("git")
        .arg("merge-file")
        .arg("-p")
        .args([
            path("ours", ours),
            path("base", base),
            path("theirs", theirs),
        ])
        .output()
        .expect("run git merge-file");
    match out.status.code() {
        Some(0) => false,
        Some(n) if n > 0 && n < 128 => true,
        _ => panic!("git merge-file failed:\n{}", text(&out)),
    }
}

fn text(out: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn both_sides_add_hashes() {
    let repo = Repo::new();
    let base = lock_file(&[block(
        "hashicorp/null",
        "3.2.1",
        "~> 3.2",
        &["h1:linux=", "zh:1111", "zh:2222"],
    )]);
    let ours = lock_file(&[block(
        "hashicorp/null",
        "3.2.1",
        "~> 3.2",
        &["h1:linux=", "h1:mac=", "zh:1111", "zh:2222"],
    )]);
    let theirs = lock_file(&[block(
        "hashicorp/null",
        "3.2.1",
        "~> 3.2",
        &["h1:linux=", "h1:windows=", "zh:1111", "zh:2222"],
    )]);
    assert!(line_merge_conflicts(&base, &ours, &theirs));
    let out = repo.merge(Some(&base), Some(&ours), Some(&theirs));
    repo.assert_merged(&out);
    assert_eq!(
        repo.read(LOCK),
        r#"# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/null" {
  version     = "3.2.1"
  constraints = "~> 3.2"
  hashes = [
    "h1:linux=",
    "h1:mac=",
    "h1:windows=",
    "zh:1111",
    "zh:2222",
  ]
}
"#
    );
}

#[test]
fn one_side_bumps_the_version_the_other_adds_hashes() {
    let repo = Repo::new();
    let random = |hashes: &[&str]| block("hashicorp/random", "3.6.0", "", hashes);
    let base = lock_file(&[
        block(
            "hashicorp/null",
            "3.2.0",
            "~> 3.2",
            &["h1:null320=", "zh:aaaa"],
        ),
        random(&["h1:random=", "zh:cccc"]),
    ]);
    // Ours: Renovate moved null to 3.2.1.
    let ours = lock_file(&[
        block(
            "hashicorp/null",
            "3.2.1",
            "~> 3.2",
            &["h1:null321=", "zh:bbbb"],
        ),
        random(&["h1:random=", "zh:cccc"]),
    ]);
    // Theirs: a new platform's hashes for every provider.
    let theirs = lock_file(&[
        block(
            "hashicorp/null",
            "3.2.0",
            "~> 3.2",
            &["h1:null320=", "h1:null320win=", "zh:aaaa"],
        ),
        random(&["h1:random=", "h1:randomwin=", "zh:cccc"]),
    ]);
    assert!(line_merge_conflicts(&base, &ours, &theirs));
    let out = repo.merge(Some(&base), Some(&ours), Some(&theirs));
    repo.assert_merged(&out);
    assert_eq!(
        repo.read(LOCK),
        r#"# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/null" {
  version     = "3.2.1"
  constraints = "~> 3.2"
  hashes = [
    "h1:null321=",
    "zh:bbbb",
  ]
}

provider "registry.terraform.io/hashicorp/random" {
  version = "3.6.0"
  hashes = [
    "h1:random=",
    "h1:randomwin=",
    "zh:cccc",
  ]
}
"#
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "registry.terraform.io/hashicorp/null: theirs added hashes for 3.2.0, which the merge replaced by 3.2.1; if they were for another platform, run `tfsum lock envs/prod`"
        ),
        "{}",
        text(&out)
    );
}

#[test]
fn both_sides_bump_differently() {
    let repo = Repo::new();
    let aws = |version: &str, hashes: &[&str]| block("hashicorp/aws", version, "~> 5.0", hashes);
    let base = lock_file(&[aws("5.30.0", &["h1:aws530=", "zh:5300"])]);
    let ours = lock_file(&[aws("5.31.0", &["h1:aws531=", "zh:5310"])]);
    let theirs = lock_file(&[aws("5.32.0", &["h1:aws532=", "zh:5320"])]);
    assert!(line_merge_conflicts(&base, &ours, &theirs));
    let out = repo.merge(Some(&base), Some(&ours), Some(&theirs));
    repo.assert_merged(&out);
    assert_eq!(
        repo.read(LOCK),
        r#"# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.32.0"
  constraints = "~> 5.0"
  hashes = [
    "h1:aws532=",
    "zh:5320",
  ]
}
"#
    );
}

#[test]
fn providers_added_and_removed_on_either_side() {
    let repo = Repo::new();
    let null = block("hashicorp/null", "3.2.1", "", &["h1:null="]);
    let random = block("hashicorp/random", "3.6.0", "", &["h1:random="]);
    let aws = block("hashicorp/aws", "5.31.0", "~> 5.0", &["h1:aws="]);
    let widget = block("acme/widget", "1.0.0", "1.0.0", &["h1:widget="]);
    let null_more = block("hashicorp/null", "3.2.1", "", &["h1:null=", "h1:nullwin="]);
    let base = lock_file(&[null.clone(), random.clone()]);
    // Ours: added aws, removed random.
    let ours = lock_file(&[aws, null]);
    // Theirs: added widget, added a hash to null, left random alone.
    let theirs = lock_file(&[widget, null_more, random]);
    assert!(line_merge_conflicts(&base, &ours, &theirs));
    let out = repo.merge(Some(&base), Some(&ours), Some(&theirs));
    repo.assert_merged(&out);
    assert_eq!(
        repo.read(LOCK),
        r#"# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/acme/widget" {
  version     = "1.0.0"
  constraints = "1.0.0"
  hashes = [
    "h1:widget=",
  ]
}

provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.31.0"
  constraints = "~> 5.0"
  hashes = [
    "h1:aws=",
  ]
}

provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.1"
  hashes = [
    "h1:null=",
    "h1:nullwin=",
  ]
}
"#
    );
}

/// Both branches created the lock file: git passes an empty ancestor.
#[test]
fn both_sides_add_the_file() {
    let repo = Repo::new();
    let ours = lock_file(&[block("hashicorp/null", "3.2.1", "", &["h1:linux="])]);
    // Not canonical (hashes out of order, odd spacing): the result still is.
    let theirs = "provider \"registry.terraform.io/hashicorp/null\" {\n version=\"3.2.1\"\n hashes=[\"h1:windows=\",\"h1:darwin=\"]\n}\n";
    assert!(line_merge_conflicts("", &ours, theirs));
    let out = repo.merge(None, Some(&ours), Some(theirs));
    repo.assert_merged(&out);
    assert_eq!(
        repo.read(LOCK),
        r#"# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.1"
  hashes = [
    "h1:darwin=",
    "h1:linux=",
    "h1:windows=",
  ]
}
"#
    );
}

#[test]
fn different_constraints_leave_a_conflict_with_a_valid_file() {
    let repo = Repo::new();
    let null = |hashes: &[&str]| block("hashicorp/null", "3.2.1", "", hashes);
    let out = repo.merge(
        Some(&lock_file(&[
            block("hashicorp/aws", "5.30.0", "~> 5.0", &["h1:aws530="]),
            null(&["h1:null="]),
        ])),
        Some(&lock_file(&[
            block("hashicorp/aws", "5.31.0", "~> 5.31", &["h1:aws531="]),
            null(&["h1:null="]),
        ])),
        Some(&lock_file(&[
            block("hashicorp/aws", "4.67.0", "~> 4.0", &["h1:aws467="]),
            null(&["h1:null=", "h1:nullwin="]),
        ])),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(
        repo.unmerged(),
        [
            format!("1 {LOCK}"),
            format!("2 {LOCK}"),
            format!("3 {LOCK}")
        ]
    );
    assert!(repo
        .git_ok(&["status", "--porcelain"])
        .contains(&format!("UU {LOCK}")));
    // Our aws entry, their hash for null: a lock file tfsum and Terraform can read.
    let merged = repo.read(LOCK);
    assert_eq!(
        merged,
        r#"# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.31.0"
  constraints = "~> 5.31"
  hashes = [
    "h1:aws531=",
  ]
}

provider "registry.terraform.io/hashicorp/null" {
  version = "3.2.1"
  hashes = [
    "h1:null=",
    "h1:nullwin=",
  ]
}
"#
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "tfsum merge-driver: envs/prod/.terraform.lock.hcl: 1 conflict left; the file keeps our side of each:\n  \
             registry.terraform.io/hashicorp/aws: both sides changed the version constraints: ours \"~> 5.31\" (5.31.0), theirs \"~> 4.0\" (4.67.0)\n\
             Resolve the configuration (required_providers, .tf or .tofu files), then run\n  \
             tfsum lock envs/prod\n  git add envs/prod/.terraform.lock.hcl\n"
        ),
        "{}",
        text(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains(&format!("CONFLICT (content): Merge conflict in {LOCK}")));

    // The user's next step can read the file: it is canonical as it stands.
    let fmt = Command::new(env!("CARGO_BIN_EXE_tfsum"))
        .args(["fmt", "--check", LOCK])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(fmt.status.success(), "{}", text(&fmt));
}

/// A side committed with conflict markers cannot be merged: git keeps our version and
/// marks the path conflicted, and the message says which side and where.
#[test]
fn an_unreadable_side_is_left_to_the_user() {
    let repo = Repo::new();
    let base = lock_file(&[block("hashicorp/null", "3.2.0", "", &["h1:a="])]);
    let ours = lock_file(&[block("hashicorp/null", "3.2.0", "", &["h1:a=", "h1:b="])]);
    let theirs = format!(
        "{HEADER}\n<<<<<<< HEAD\n{}=======\n{}>>>>>>> feature\n",
        block("hashicorp/null", "3.2.0", "", &["h1:c="]),
        block("hashicorp/null", "3.2.1", "", &["h1:d="])
    );
    let out = repo.merge(Some(&base), Some(&ours), Some(&theirs));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(repo.unmerged().len(), 3, "{}", text(&out));
    assert_eq!(repo.read(LOCK), ours, "our version, byte for byte");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "error: cannot merge envs/prod/.terraform.lock.hcl: their version holds git conflict markers at line 4: it was committed unresolved\n  \
             our version is kept and git marks the file conflicted"
        ),
        "{}",
        text(&out)
    );
}

/// The driver alone, as git runs it, on three 200-provider files with a realistic hash
/// list (one `h1:` per platform, fourteen `zh:`; 250 KB each). A release build takes about
/// 40 ms of CPU; a debug build under a loaded CI machine up to two seconds of wall time, so
/// the bound only catches work that grows faster than the file (a quadratic merge).
#[test]
fn merges_200_providers_in_one_pass() {
    let dir = TempDir::new().unwrap();
    let hashes = |provider: usize, version: &str, platforms: &[&str]| -> Vec<String> {
        let mut out: Vec<String> = platforms
            .iter()
            .map(|p| format!("h1:{provider:03}{version}{p}="))
            .collect();
        out.extend((0..14).map(|i| format!("zh:{provider:03}{version}{i:060}")));
        out
    };
    let file = |version_of: &dyn Fn(usize) -> &'static str, platforms: &[&str]| {
        let blocks: Vec<String> = (0..200)
            .map(|i| {
                let version = version_of(i);
                let owned = hashes(i, version, platforms);
                let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
                block(&format!("acme/p{i:03}"), version, "~> 1.0", &refs)
            })
            .collect();
        lock_file(&blocks)
    };
    let write = |name: &str, content: &str| -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, content).unwrap();
        path
    };
    let linux = ["linux_amd64"];
    let two = ["linux_amd64", "windows_arm64"];
    let base = write("base", &file(&|_| "1.0.0", &linux));
    // Ours bumps every other provider; theirs adds a platform to all of them.
    let ours = write(
        "ours",
        &file(&|i| if i % 2 == 0 { "1.1.0" } else { "1.0.0" }, &linux),
    );
    let theirs = write("theirs", &file(&|_| "1.0.0", &two));

    let mut fastest = Duration::MAX;
    for round in 0..3 {
        let ours_copy = write(
            &format!("ours{round}"),
            &std::fs::read_to_string(&ours).unwrap(),
        );
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_tfsum"))
            .arg("merge-driver")
            .args([&base, &ours_copy, &theirs])
            .output()
            .unwrap();
        fastest = fastest.min(started.elapsed());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let merged = std::fs::read_to_string(&ours_copy).unwrap();
        assert_eq!(merged.matches("provider \"").count(), 200);
        assert!(
            merged.contains("h1:0011.0.0windows_arm64="),
            "theirs' platform kept where the version stayed"
        );
        assert!(
            !merged.contains("h1:0001.0.0windows_arm64="),
            "dropped with the bumped version"
        );
    }
    eprintln!(
        "merge-driver on 200 providers: {} ms (fastest of 3, including process start)",
        fastest.as_millis()
    );
    assert!(
        fastest < Duration::from_secs(10),
        "merging 200 providers took {fastest:?}"
    );
}
