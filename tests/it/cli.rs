//! The command line as its three users meet it — a developer's shell, a pre-commit hook,
//! a Renovate task — and CI's check: output format, exit codes, the config file and
//! its precedence, `--retry-failed`, `hash`, `fmt`, help and completions.
//!
//! Output is compared with insta snapshots in `tests/snapshots/` after redacting what
//! changes between runs (temporary paths, the fake registry's port, timings). To accept
//! intended changes: `INSTA_UPDATE=always cargo test --test it cli::` (or `cargo insta
//! review`), then read the diff of `tests/snapshots/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use pretty_assertions::assert_eq;
use tempfile::TempDir;

use crate::support::fake_registry::{FakeRegistry, RegistryHandle};
use crate::support::terraform::{repo_root, REGISTRY_PLACEHOLDER};

const PLATFORMS: &[&str] = &["linux_amd64", "darwin_arm64", "windows_amd64"];

pub(crate) fn registry() -> FakeRegistry {
    FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.1.0")
        .platforms(PLATFORMS)
        .version("3.2.1")
        .platforms(PLATFORMS)
        .provider("hashicorp", "random")
        .version("3.6.0")
        .platforms(PLATFORMS)
        .start()
}

pub(crate) fn requires(providers: &[(&str, &str)]) -> String {
    let mut out = String::from("terraform {\n  required_providers {\n");
    for (name, version) in providers {
        out.push_str(&format!(
            "    {name} = {{\n      source  = \"{REGISTRY_PLACEHOLDER}/hashicorp/{name}\"\n      version = \"{version}\"\n    }}\n"
        ));
    }
    out.push_str("  }\n}\n");
    out
}

/// A repository (it has `.git/`, so the config search stops at it) in a temporary
/// directory, plus a scratch directory with the CLI config, a private HOME and cache.
pub(crate) struct Repo {
    dir: TempDir,
    scratch: TempDir,
    host: String,
}

impl Repo {
    pub(crate) fn new(registry: &RegistryHandle, files: &[(&str, &str)]) -> Repo {
        let repo = Repo {
            dir: TempDir::new().expect("temp repo"),
            scratch: TempDir::new().expect("temp scratch"),
            host: registry.host(),
        };
        std::fs::create_dir(repo.path().join(".git")).expect("create .git");
        registry.write_cli_config(&repo.scratch.path().join("cli.tfrc"));
        for (path, content) in files {
            repo.write(path, content);
        }
        repo
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    pub(crate) fn write(&self, relative: &str, content: &str) {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("create dirs");
        let content = content.replace(REGISTRY_PLACEHOLDER, &self.host);
        std::fs::write(&path, content).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }

    pub(crate) fn lock_file(&self, root: &str) -> Option<String> {
        std::fs::read_to_string(self.path().join(root).join(".terraform.lock.hcl")).ok()
    }

    /// Every lock file in the repository, to prove a command changed nothing.
    pub(crate) fn lock_files(&self) -> Vec<(PathBuf, String)> {
        let mut found: Vec<(PathBuf, String)> = walkdir::WalkDir::new(self.path())
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_name() == ".terraform.lock.hcl")
            .map(|e| {
                let text = std::fs::read_to_string(e.path()).expect("read lock file");
                (e.into_path(), text)
            })
            .collect();
        found.sort();
        found
    }

    /// `tfsum ARGS` in the repository root with a clean environment: no TTY, the fake
    /// registry's CLI config, the private cache (`TFSUM_CACHE_DIR`) and HOME.
    pub(crate) fn tfsum(&self, args: &[&str]) -> Run {
        self.command(args).run(self)
    }

    fn command(&self, args: &[&str]) -> Cmd {
        let mut command = crate::tfsum::command(
            self.path(),
            &self.scratch().join("cli.tfrc"),
            self.scratch(),
        );
        command.args(args).env("COLUMNS", "100");
        Cmd { command }
    }

    /// Replaces what differs between runs: temporary paths, the registry port, times.
    fn redact(&self, text: &str) -> String {
        let mut text = text
            .replace(&self.path().display().to_string(), "[REPO]")
            .replace(&self.scratch().display().to_string(), "[SCRATCH]")
            .replace(&self.host, "[REGISTRY]");
        for (pattern, replacement) in [
            (r"\b\d+\.\d\ds\b", "[TIME]"),
            (r#""elapsed_ms": \d+"#, r#""elapsed_ms": "[MS]""#),
            (r"v2/runs/[0-9a-f]+\.json", "v2/runs/[KEY].json"),
        ] {
            let re = regex::Regex::new(pattern).expect("redaction pattern");
            text = re.replace_all(&text, replacement).into_owned();
        }
        text
    }
}

struct Cmd {
    command: Command,
}

impl Cmd {
    fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Cmd {
        self.command.env(key, value);
        self
    }

    fn env_remove(mut self, key: &str) -> Cmd {
        self.command.env_remove(key);
        self
    }

    fn cwd(mut self, dir: &Path) -> Cmd {
        self.command.current_dir(dir);
        self
    }

    fn run(mut self, repo: &Repo) -> Run {
        let output = self.command.output().expect("run tfsum");
        Run {
            code: output.status.code(),
            stdout: repo.redact(&String::from_utf8_lossy(&output.stdout)),
            stderr: repo.redact(&String::from_utf8_lossy(&output.stderr)),
        }
    }
}

/// A finished run, redacted.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// Exit code and both streams, for snapshots and failure messages.
    pub(crate) fn text(&self) -> String {
        format!(
            "exit: {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    pub(crate) fn assert_code(&self, code: i32) -> &Run {
        assert_eq!(self.code, Some(code), "{}", self.text());
        self
    }
}

pub(crate) fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => "../snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

/// Three roots: `envs/a` and `envs/b` call the shared module (null), `envs/c` uses
/// random only.
fn monorepo(registry: &RegistryHandle) -> Repo {
    Repo::new(
        registry,
        &[
            ("modules/shared/main.tf", &requires(&[("null", ">= 3.1.0")])),
            (
                "envs/a/main.tf",
                "module \"shared\" {\n  source = \"../../modules/shared\"\n}\n",
            ),
            (
                "envs/b/main.tf",
                "module \"shared\" {\n  source = \"../../modules/shared\"\n}\n",
            ),
            ("envs/c/main.tf", &requires(&[("random", "~> 3.0")])),
        ],
    )
}

#[test]
fn help_for_every_command() {
    let registry = registry();
    let repo = Repo::new(&registry, &[]);
    for (name, args) in [
        ("help", &["--help"][..]),
        ("help_lock", &["lock", "--help"]),
        ("help_fmt", &["fmt", "--help"]),
        ("help_hash", &["hash", "--help"]),
        ("help_merge_driver", &["merge-driver", "--help"]),
        ("help_verify", &["verify", "--help"]),
        ("help_upgrade", &["upgrade", "--help"]),
        ("help_upgrade_provider", &["upgrade", "provider", "--help"]),
        ("help_outdated", &["outdated", "--help"]),
        ("help_mirror", &["mirror", "--help"]),
        ("help_completions", &["completions", "--help"]),
    ] {
        let run = repo.tfsum(args);
        run.assert_code(0);
        snapshot(name, &run.stdout);
    }
}

/// The files in `completions/` are what `tfsum completions SHELL` prints today.
#[test]
fn completions_are_up_to_date() {
    let registry = registry();
    let repo = Repo::new(&registry, &[]);
    for (shell, file) in [
        ("bash", "tfsum.bash"),
        ("elvish", "tfsum.elv"),
        ("fish", "tfsum.fish"),
        ("powershell", "_tfsum.ps1"),
        ("zsh", "_tfsum"),
    ] {
        let run = repo.tfsum(&["completions", shell]);
        run.assert_code(0);
        let path = repo_root().join("completions").join(file);
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            run.stdout == checked_in,
            "completions/{file} is stale: regenerate with `make completions` \
             (cargo run -- completions --write-all completions/) and commit the result"
        );
    }
}

/// Off a terminal: one line per root, then the summary, and nothing on stderr. A second
/// run changes nothing and downloads nothing.
#[test]
fn plain_output_and_summary() {
    let registry = registry();
    let repo = monorepo(&registry);
    let first = repo.tfsum(&["lock", "-r", "--platform", "linux_amd64", "."]);
    first.assert_code(0);
    let second = repo.tfsum(&["lock", "-r", "--platform", "linux_amd64", "."]);
    second.assert_code(0);
    let quiet = repo.tfsum(&["lock", "-q", "-r", "--platform", "linux_amd64", "."]);
    quiet.assert_code(0);
    assert_eq!(quiet.stdout, "", "-q prints nothing when all is well");
    snapshot(
        "plain_output_and_summary",
        &format!(
            "## first run\n{}\n## second run\n{}",
            first.text(),
            second.text()
        ),
    );
}

/// `--check` writes nothing, names what is wrong per file with a diff, and exits 1;
/// on an up-to-date repository it exits 0.
#[test]
fn check_mode() {
    let registry = registry();
    let repo = Repo::new(
        &registry,
        &[
            ("ok/main.tf", &requires(&[("null", ">= 3.1.0")])),
            ("missing/main.tf", &requires(&[("random", "~> 3.0")])),
            ("moved/main.tf", &requires(&[("null", ">= 3.1.0")])),
            (
                "pruned/main.tf",
                &requires(&[("null", ">= 3.1.0"), ("random", "~> 3.0")]),
            ),
        ],
    );
    repo.tfsum(&["lock", "-r", "--platform", "linux_amd64", "."])
        .assert_code(0);
    let clean = repo.tfsum(&["lock", "--check", "-r", "--platform", "linux_amd64", "."]);
    clean.assert_code(0);

    std::fs::remove_file(repo.path().join("missing/.terraform.lock.hcl")).unwrap();
    repo.write("moved/main.tf", &requires(&[("null", "3.1.0")]));
    repo.write("pruned/main.tf", &requires(&[("null", ">= 3.1.0")]));
    let before = repo.lock_files();
    let drift = repo.tfsum(&["lock", "--check", "-r", "--platform", "linux_amd64", "."]);
    drift.assert_code(1);
    let platform = repo.tfsum(&[
        "lock",
        "--check",
        "--platform",
        "linux_amd64,darwin_arm64",
        "ok",
    ]);
    platform.assert_code(1);
    let quiet = repo.tfsum(&[
        "lock",
        "-q",
        "--check",
        "-r",
        "--platform",
        "linux_amd64",
        ".",
    ]);
    quiet.assert_code(1);
    assert_eq!(repo.lock_files(), before, "--check must not write");
    snapshot(
        "check_mode",
        &format!(
            "## up to date\n{}\n## drift\n{}\n## a platform missing\n{}\n## quiet\n{}",
            clean.text(),
            drift.text(),
            platform.text(),
            quiet.text()
        ),
    );
}

#[test]
fn json_report() {
    let registry = registry();
    let repo = monorepo(&registry);
    repo.write("broken/main.tf", &requires(&[("null", ">= 9.0.0")]));
    let run = repo.tfsum(&[
        "lock",
        "--format",
        "json",
        "-r",
        "--platform",
        "linux_amd64",
        ".",
    ]);
    run.assert_code(1);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    assert_eq!(doc["ok"], false);
    let check = repo.tfsum(&[
        "lock",
        "--check",
        "--format",
        "json",
        "--platform",
        "linux_amd64,darwin_arm64",
        "envs/a",
    ]);
    check.assert_code(1);
    snapshot(
        "json_report",
        &format!("## lock\n{}\n## check\n{}", run.text(), check.text()),
    );
}

/// 0 all good, 1 a root failed or drift found, 2 usage: one row per way to get each.
#[test]
fn exit_codes() {
    let registry = registry();
    let repo = monorepo(&registry);
    repo.tfsum(&["lock", "-r", "--platform", "linux_amd64", "."])
        .assert_code(0);
    let mut table = String::new();
    for args in [
        &["lock", "-r", "--platform", "linux_amd64", "."][..],
        &["lock", "--check", "-r", "--platform", "linux_amd64", "."],
        &["lock", "--check", "--platform", "darwin_arm64", "envs/c"],
        &[
            "lock",
            "--platform",
            "linux_amd64",
            "--offline",
            "--cache-dir=empty",
            "envs/c",
        ],
        &["lock", "--bogus"],
        &["lock", "no/such/dir"],
        &["lock", "--jobs", "0", "."],
        &["lock", "-i", "(", "."],
        &["lock", "--platform", "linux", "."],
        &["lock", "--retry-failed", "envs/a"],
        &["lock", "--config", "nope.toml", "."],
        &["completions"],
    ] {
        let run = repo.tfsum(args);
        let first_error = run
            .stderr
            .lines()
            .find(|l| l.starts_with("error"))
            .unwrap_or("");
        table.push_str(&format!(
            "{:?} -> {:?} {first_error}\n",
            args.join(" "),
            run.code
        ));
    }
    snapshot("exit_codes", &table);
}

/// The same mistake gets the same treatment from every command: a missing path is a
/// usage error on stderr (exit 2); a lock file with conflict markers is named as such by
/// `lock` as by `fmt` and `verify`; a zero job count names where it was set; a
/// recursive run that finds nothing says what it looks for; warnings about this
/// machine's CLI configuration go to stderr, not into the report.
#[test]
fn errors_are_consistent_across_commands() {
    let registry = registry();
    let conflicted = String::from(
        "# This file is maintained automatically by \"terraform init\".\n<<<<<<< HEAD\n\n=======\n>>>>>>> theirs\n"
    );
    let repo = Repo::new(
        &registry,
        &[
            ("a/main.tf", &requires(&[("null", "3.2.1")])),
            ("a/.terraform.lock.hcl", &conflicted),
            ("empty/README.md", "nothing to lock\n"),
        ],
    );
    for command in ["lock", "fmt", "verify"] {
        let run = repo.tfsum(&[command, "no/such/dir"]);
        run.assert_code(2);
        assert!(
            run.stderr
                .contains("error: no/such/dir: no such file or directory")
                && run.stdout.is_empty(),
            "{command}: {}",
            run.text()
        );
    }
    for command in [
        &["lock", "--platform", "linux_amd64", "a"][..],
        &["fmt", "--check", "a"],
        &["verify", "a"],
    ] {
        let run = repo.tfsum(command);
        run.assert_code(1);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(
            all.contains("unresolved merge conflict") && !all.contains("Invalid HCL"),
            "{command:?}: {}",
            run.text()
        );
    }
    assert!(repo.lock_file("a").is_some_and(|text| text == conflicted));

    let run = repo
        .command(&["lock", "--platform", "linux_amd64", "a"])
        .env("TFSUM_JOBS", "0")
        .run(&repo);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains("error: TFSUM_JOBS=0: must be at least 1"),
        "{}",
        run.text()
    );

    repo.write(".tfsum.toml", "jobs = 0\n");
    let run = repo.tfsum(&["lock", "--platform", "linux_amd64", "a"]);
    run.assert_code(2);
    assert!(
        run.stderr.contains(".tfsum.toml")
            && run.stderr.contains("jobs = 0")
            && run.stderr.contains("0: must be at least 1")
            && !run.stderr.contains("usize"),
        "{}",
        run.text()
    );
    std::fs::remove_file(repo.path().join(".tfsum.toml")).expect("remove .tfsum.toml");

    let missing = repo.scratch().join("missing.tfrc");
    let run = repo
        .command(&["lock", "-r", "--platform", "linux_amd64", "empty"])
        .env("TF_CLI_CONFIG_FILE", &missing)
        .run(&repo);
    run.assert_code(0);
    assert!(
        run.stderr
            .contains("no root module found in or below empty")
            && run
                .stderr
                .contains("named by TF_CLI_CONFIG_FILE does not exist")
            && !run.stdout.contains("warning"),
        "{}",
        run.text()
    );
}

/// Which platforms, cache dir and job count win when the files, the environment and
/// the flags each say something: user file < repository file < env < flags; and the
/// cache dir only from the user's file, never the repository's.
#[test]
fn config_precedence() {
    let registry = registry();
    let repo = Repo::new(
        &registry,
        &[("root/main.tf", &requires(&[("null", "3.2.1")]))],
    );
    let h1 = |platform: &str| registry.expected_h1("hashicorp", "null", "3.2.1", platform);
    let s = |p: &Path| p.display().to_string();
    let file_cache = repo.scratch().join("file-cache");
    let user_config = repo.scratch().join("home/.config/tfsum/config.toml");
    std::fs::create_dir_all(user_config.parent().unwrap()).unwrap();
    std::fs::write(
        &user_config,
        format!("cache_dir = {:?}\njobs = 2\n", s(&file_cache)),
    )
    .unwrap();
    let env_cache = repo.scratch().join("env-cache");
    let flag_cache = repo.scratch().join("flag-cache");
    struct Case<'a> {
        file: &'a str,
        env: &'a [(&'a str, String)],
        flags: &'a [&'a str],
        platforms: &'a [&'a str],
        cache: &'a Path,
        jobs: usize,
    }
    let flag_cache_arg = format!("--cache-dir={}", s(&flag_cache));
    let cases = [
        Case {
            file: "platforms = [\"darwin_arm64\"]\njobs = 3\n",
            env: &[],
            flags: &[],
            platforms: &["darwin_arm64"],
            cache: &file_cache,
            jobs: 3,
        },
        Case {
            file: "platforms = [\"darwin_arm64\"]\njobs = 3\n",
            env: &[
                ("TFSUM_PLATFORMS", "windows_amd64,linux_amd64".to_string()),
                ("TFSUM_CACHE_DIR", s(&env_cache)),
                ("TFSUM_JOBS", "4".to_string()),
            ],
            flags: &[],
            platforms: &["linux_amd64", "windows_amd64"],
            cache: &env_cache,
            jobs: 4,
        },
        Case {
            file: "platforms = [\"darwin_arm64\"]\njobs = 3\n",
            env: &[
                ("TFSUM_PLATFORMS", "windows_amd64".to_string()),
                ("TFSUM_CACHE_DIR", s(&env_cache)),
                ("TFSUM_JOBS", "4".to_string()),
            ],
            flags: &["--platform=linux_amd64", &flag_cache_arg, "--jobs=5"],
            platforms: &["linux_amd64"],
            cache: &flag_cache,
            jobs: 5,
        },
        Case {
            file: "",
            env: &[],
            flags: &["--platform=windows_amd64", &flag_cache_arg],
            platforms: &["windows_amd64"],
            cache: &flag_cache,
            // The user's file, with no repository file to override it.
            jobs: 2,
        },
    ];
    for (i, case) in cases.iter().enumerate() {
        repo.write(".tfsum.toml", case.file);
        for dir in [&file_cache, &env_cache, &flag_cache] {
            let _ = std::fs::remove_dir_all(dir);
        }
        let _ = std::fs::remove_file(repo.path().join("root/.terraform.lock.hcl"));
        let mut args = vec!["-v", "lock"];
        args.extend_from_slice(case.flags);
        args.push("root");
        let mut cmd = repo.command(&args).env_remove("TFSUM_CACHE_DIR");
        for (key, value) in case.env {
            cmd = cmd.env(key, value);
        }
        let run = cmd.run(&repo);
        run.assert_code(0);
        let lock = repo.lock_file("root").expect("lock file written");
        for platform in PLATFORMS {
            assert_eq!(
                lock.contains(&h1(platform)),
                case.platforms.contains(platform),
                "case {i}: {platform}\n{lock}\n{}",
                run.text()
            );
        }
        for dir in [&file_cache, &env_cache, &flag_cache] {
            assert_eq!(
                dir.join("v2").exists(),
                dir.as_path() == case.cache,
                "case {i}: cache in {}\n{}",
                dir.display(),
                run.text()
            );
        }
        assert!(
            run.stderr.contains(&format!("jobs: {}", case.jobs)),
            "case {i}: jobs {}\n{}",
            case.jobs,
            run.text()
        );
    }

    // A repository may not choose the cache: the run stops before anything is read.
    repo.write(".tfsum.toml", "jobs = 3\ncache_dir = \"planted\"\n");
    let run = repo.tfsum(&["lock", "root"]);
    run.assert_code(2);
    assert!(
        run.stderr
            .contains(".tfsum.toml:2: cache_dir cannot be set in a repository's"),
        "{}",
        run.text()
    );
    assert!(!repo.path().join("planted").exists());
}

/// Where `.tfsum.toml` is found, and how a bad one is refused (exit 2, naming the file,
/// the key and the line).
#[test]
fn config_file_search_and_errors() {
    let registry = registry();
    let repo = Repo::new(
        &registry,
        &[("envs/a/main.tf", &requires(&[("null", "3.2.1")]))],
    );
    // Found from a subdirectory, up to the repository root.
    repo.write(".tfsum.toml", "platforms = [\"darwin_arm64\"]\n");
    let run = repo
        .command(&["lock", "."])
        .cwd(&repo.path().join("envs/a"))
        .run(&repo);
    run.assert_code(0);
    let lock = repo.lock_file("envs/a").expect("lock file");
    assert!(lock.contains(&registry.expected_h1("hashicorp", "null", "3.2.1", "darwin_arm64")));
    // --no-config ignores it (and then notes the host platform).
    let run = repo.tfsum(&["lock", "--no-config", "--check", "envs/a"]);
    assert!(run.stderr.contains("no platform given"), "{}", run.text());

    let mut table = String::new();
    for content in [
        "platform = [\"linux_amd64\"]\n",
        "platforms = [\"linux\"]\n",
        "platforms = \"linux_amd64\"\n",
        "jobs = 0\n",
        "flavor = \"tofu\"\n",
        "ignore_paths = [\"(\"]\n",
        "versions_ttl = \"5m\"\n",
        "[lock]\nplatforms = []\n",
        "platforms = [\n",
    ] {
        repo.write(".tfsum.toml", content);
        let run = repo.tfsum(&["lock", "envs/a"]);
        run.assert_code(2);
        assert_eq!(repo.lock_file("envs/a").as_deref(), Some(&lock[..]));
        table.push_str(&format!("## {content}{}\n", run.stderr));
    }
    snapshot("config_errors", &table);
}

/// What pre-commit does: pass the changed files. Only the roots whose configuration
/// holds a changed file are locked; the next run is a no-op.
#[test]
fn pre_commit_changed_files() {
    let registry = registry();
    let repo = monorepo(&registry);
    repo.write(".tfsum.toml", "platforms = [\"linux_amd64\"]\n");
    repo.tfsum(&["lock", "-r", "."]).assert_code(0);
    let c_before = repo.lock_file("envs/c").expect("envs/c locked");
    assert!(repo.lock_file("envs/a").unwrap().contains("3.2.1"));

    repo.write("modules/shared/main.tf", &requires(&[("null", "~> 3.1.0")]));
    let changed = repo.tfsum(&["lock", "modules/shared/main.tf"]);
    changed.assert_code(0);
    let again = repo.tfsum(&["lock", "modules/shared/main.tf"]);
    again.assert_code(0);
    for root in ["envs/a", "envs/b"] {
        let lock = repo.lock_file(root).expect("lock file");
        assert!(lock.contains("version     = \"3.1.0\""), "{root}:\n{lock}");
        assert!(
            lock.contains("constraints = \"~> 3.1.0\""),
            "{root}:\n{lock}"
        );
    }
    assert_eq!(repo.lock_file("envs/c").unwrap(), c_before);
    snapshot(
        "pre_commit_changed_files",
        &format!(
            "## the shared module changed\n{}\n## again\n{}",
            changed.text(),
            again.text()
        ),
    );
}

/// `--fail-on-write` (the lock hooks' flag): the run writes as usual but exits 1 naming
/// each lock file it created or updated, even with `-q`, so pre-commit fails on a new lock
/// file it would not notice; a run that writes nothing exits 0 and says nothing more.
#[test]
fn fail_on_write_names_each_lock_file_written() {
    let registry = registry();
    let repo = monorepo(&registry);
    repo.write(".tfsum.toml", "platforms = [\"linux_amd64\"]\n");
    let message = |files: &[&str]| {
        let s = if files.len() == 1 { "" } else { "s" };
        let mut text =
            format!("error: lock file{s} written (--fail-on-write); stage and commit again:\n");
        for f in files {
            text.push_str(&format!("  {f}/.terraform.lock.hcl\n"));
        }
        text
    };

    let created = repo.tfsum(&["lock", "--fail-on-write", "-r", "."]);
    created.assert_code(1);
    assert_eq!(created.stderr, message(&["envs/a", "envs/b", "envs/c"]));
    assert_eq!(repo.lock_files().len(), 3, "{}", created.text());
    let again = repo.tfsum(&["lock", "--fail-on-write", "-r", "."]);
    again.assert_code(0);
    assert_eq!(again.stderr, "");

    repo.write("modules/shared/main.tf", &requires(&[("null", "~> 3.1.0")]));
    let updated = repo.tfsum(&["lock", "-q", "--fail-on-write", "modules/shared/main.tf"]);
    updated.assert_code(1);
    assert_eq!(updated.stdout, "");
    assert_eq!(updated.stderr, message(&["envs/a", "envs/b"]));
    let json = repo.tfsum(&["lock", "--fail-on-write", "--format", "json", "-r", "."]);
    json.assert_code(0);
    assert!(json.stdout.contains("\"ok\": true"), "{}", json.text());

    // With --check nothing is written: only drift fails, as without the flag.
    repo.write("envs/c/main.tf", &requires(&[("random", "~> 3.6.0")]));
    let check = repo.tfsum(&[
        "lock",
        "--check",
        "--fail-on-write",
        "--format",
        "json",
        "-r",
        ".",
    ]);
    check.assert_code(1);
    assert!(check.stdout.contains("\"ok\": false"), "{}", check.text());
    assert_eq!(check.stderr, "");
    let json = repo.tfsum(&[
        "lock",
        "--fail-on-write",
        "--format",
        "json",
        "envs/c/main.tf",
    ]);
    json.assert_code(1);
    assert!(json.stdout.contains("\"ok\": false"), "{}", json.text());
    assert_eq!(json.stderr, message(&["envs/c"]));
}

/// Changed-files mode and test files: a test file in a root's `tests/` directory selects
/// that root, whether it was added (its run block's module adds a provider) or deleted
/// (the provider goes again).
#[test]
fn pre_commit_changed_test_file_selects_its_root() {
    let registry = registry();
    let repo = monorepo(&registry);
    repo.write(".tfsum.toml", "platforms = [\"linux_amd64\"]\n");
    repo.tfsum(&["lock", "-r", "."]).assert_code(0);
    let before = repo.lock_files();
    assert!(!repo
        .lock_file("envs/c")
        .unwrap()
        .contains("/hashicorp/null\""));

    let test = "envs/c/tests/helper.tftest.hcl";
    repo.write("envs/c/helper/main.tf", &requires(&[("null", "3.1.0")]));
    repo.write(
        test,
        "run \"setup\" {\n  module {\n    source = \"./helper\"\n  }\n}\n",
    );
    let added = repo.tfsum(&["lock", test]);
    added.assert_code(0);
    assert!(
        added.stdout.starts_with("updated   envs/c\n"),
        "{}",
        added.text()
    );
    let lock = repo.lock_file("envs/c").expect("lock file");
    assert!(lock.contains("/hashicorp/null\""), "{lock}");
    assert!(lock.contains("version     = \"3.1.0\""), "{lock}");

    std::fs::remove_file(repo.path().join(test)).expect("remove the test file");
    let removed = repo.tfsum(&["lock", test]);
    removed.assert_code(0);
    assert!(
        removed.stdout.starts_with("updated   envs/c\n"),
        "{}",
        removed.text()
    );
    assert_eq!(repo.lock_files(), before);
}

/// The hook definitions pre-commit reads: the file patterns select exactly the files
/// that can change a lock file.
#[test]
fn pre_commit_hook_file_patterns() {
    let yaml = std::fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml"))
        .expect("read .pre-commit-hooks.yaml");
    // Every hook names the one pattern: written once (a YAML anchor), referred to by the
    // others.
    let files: Vec<&str> = yaml
        .lines()
        .filter_map(|l| l.trim().strip_prefix("files: "))
        .collect();
    assert_eq!(files.len(), 4, "{yaml}");
    let patterns: Vec<&str> = files
        .iter()
        .filter_map(|f| {
            f.split_once('\'')
                .map(|(_, rest)| rest.trim_end_matches('\''))
        })
        .collect();
    assert_eq!(patterns.len(), 1, "{yaml}");
    assert!(
        files.iter().filter(|f| f.starts_with('*')).count() == 3,
        "{yaml}"
    );
    for pattern in patterns {
        let re = regex::Regex::new(pattern).expect("valid pattern");
        for path in [
            "main.tf",
            "envs/prod/versions.tf",
            "x/main.tf.json",
            "x/main.tofu",
            "x/main.tofu.json",
            ".terraform.lock.hcl",
            "envs/prod/.terraform.lock.hcl",
            "live/prod/terragrunt.hcl",
            "envs/prod/main.tftest.hcl",
            "envs/prod/tests/main.tftest.json",
            "envs/prod/tests/main.tofutest.hcl",
            "envs/prod/tests/main.tofutest.json",
            "stacks/app/components.tfcomponent.hcl",
            "stacks/app/components.tfcomponent.json",
            "stacks/old/main.tfstack.hcl",
            "stacks/old/main.tfstack.json",
            "live/prod/terragrunt.stack.hcl",
        ] {
            assert!(re.is_match(path), "{pattern} should match {path}");
        }
        for path in [
            "README.md",
            "main.tfvars",
            "x/main.tf.bak",
            "terraform.lock.hcl",
            "x/other.hcl",
            "x.tf/readme",
            "x/main.tftest.hcl.bak",
            "x/main.tftest.yaml",
            "stacks/app/deployments.tfdeploy.hcl",
            "x/app.terragrunt.stack.hcl",
        ] {
            assert!(!re.is_match(path), "{pattern} should not match {path}");
        }
    }
}

/// `--retry-failed` runs only what failed last time, and says so when nothing did or
/// nothing was recorded.
#[test]
fn retry_failed() {
    let registry = registry();
    let repo = monorepo(&registry);
    let none = repo.tfsum(&["lock", "--retry-failed"]);
    none.assert_code(2);
    repo.write(".tfsum.toml", "platforms = [\"linux_amd64\"]\n");
    repo.write("broken/main.tf", &requires(&[("null", ">= 9.0.0")]));
    let first = repo.tfsum(&["lock", "-r", "."]);
    first.assert_code(1);
    repo.write("broken/main.tf", &requires(&[("null", ">= 3.0.0")]));
    let retry = repo.tfsum(&["lock", "--retry-failed"]);
    retry.assert_code(0);
    assert!(repo.lock_file("broken").is_some());
    let nothing = repo.tfsum(&["lock", "--retry-failed"]);
    nothing.assert_code(0);
    snapshot(
        "retry_failed",
        &format!(
            "## no record\n{}\n## first run\n{}\n## retry\n{}\n## nothing left\n{}",
            none.text(),
            first.text(),
            retry.text(),
            nothing.text()
        ),
    );
}

#[test]
fn hash_command() {
    let registry = registry();
    let repo = Repo::new(&registry, &[]);
    let run = repo
        .command(&[
            "hash",
            "testdata/hash/terraform-provider-null_2.1.0_linux_amd64.zip",
            "testdata/hash/null-2.0.0-linux_amd64",
            "testdata/hash/not-a-zip.zip",
        ])
        .cwd(&repo_root())
        .run(&repo);
    run.assert_code(1);
    snapshot("hash_command", &run.text());
}

#[test]
fn fmt_command() {
    let registry = registry();
    let repo = Repo::new(&registry, &[]);
    let fixture = |name: &str| {
        std::fs::read_to_string(repo_root().join("testdata/fmt").join(name)).expect("fixture")
    };
    repo.write(
        "a/.terraform.lock.hcl",
        &fixture("messy.terraform.lock.hcl"),
    );
    repo.write(
        "b/.terraform.lock.hcl",
        // A lock file real `terraform init` wrote: already canonical.
        &fixture("../lockfiles/real_tf_e2e_null_template.terraform.lock.hcl"),
    );
    let check = repo.tfsum(&["fmt", "--check", "-r", "."]);
    check.assert_code(1);
    let write = repo.tfsum(&["fmt", "-r", "."]);
    write.assert_code(0);
    assert_eq!(
        repo.lock_file("a").unwrap(),
        fixture("messy.expected.terraform.lock.hcl")
    );
    let again = repo.tfsum(&["fmt", "--check", "-r", "."]);
    again.assert_code(0);
    repo.write(
        "c/.terraform.lock.hcl",
        &fixture("conflict.terraform.lock.hcl"),
    );
    let broken = repo.tfsum(&["fmt", "-q", "-r", "."]);
    broken.assert_code(1);
    snapshot(
        "fmt_command",
        &format!(
            "## check\n{}\n## write\n{}\n## check again\n{}\n## a conflict, quiet\n{}",
            check.text(),
            write.text(),
            again.text(),
            broken.text()
        ),
    );
}

/// The fenced block of `lang` that follows `marker` in `file` (relative to the
/// repository root).
pub fn doc_block(file: &str, marker: &str, lang: &str) -> String {
    let readme =
        std::fs::read_to_string(repo_root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let start = readme
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {file}"));
    let fence = format!("```{lang}\n");
    let body = &readme[start..];
    let from = body.find(&fence).expect("code block") + fence.len();
    let to = from + body[from..].find("```").expect("closing fence");
    body[from..to].to_string()
}

/// The manual stays true: its `.tfsum.toml` example (docs/configuration.md) is accepted,
/// and its JSON report example (docs/json-report.md) has exactly the fields tfsum writes.
#[test]
fn documented_examples_match() {
    let registry = registry();
    let repo = Repo::new(&registry, &[]);
    repo.write(
        ".tfsum.toml",
        &doc_block("docs/configuration.md", "## Shared settings", "toml"),
    );
    repo.tfsum(&["lock", "-r", "."]).assert_code(0);

    fn shape(value: &serde_json::Value) -> serde_json::Value {
        match value {
            serde_json::Value::Object(map) => map
                .iter()
                .map(|(k, v)| (k.clone(), shape(v)))
                .collect::<serde_json::Map<_, _>>()
                .into(),
            serde_json::Value::Array(items) => items.first().map(shape).into_iter().collect(),
            _ => serde_json::Value::Null,
        }
    }
    let documented: serde_json::Value = serde_json::from_str(&doc_block(
        "docs/json-report.md",
        "## `tfsum lock --format json`",
        "json",
    ))
    .expect("docs/json-report.md JSON");
    // As the example: a failed root first, and a warning from the registry.
    let repo = monorepo(&registry);
    repo.write("broken/main.tf", &requires(&[("null", ">= 9.0.0")]));
    registry.warn("hashicorp", "null", "this provider is deprecated");
    let run = repo.tfsum(&["lock", "--format=json", "--platform=linux_amd64", "-r", "."]);
    let mut actual: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON report");
    assert_eq!(
        actual["warning_details"][0]["kind"], "registry",
        "{}",
        run.stdout
    );
    // `roots[].changes` is documented, and checked, in docs/change-report.md (and the
    // whole document against docs/json-report.schema.json, tests/it/docs.rs).
    let mut documented = documented;
    for doc in [&mut actual, &mut documented] {
        for root in doc["roots"].as_array_mut().expect("roots") {
            root.as_object_mut().expect("root").remove("changes");
        }
    }
    assert_eq!(shape(&actual), shape(&documented));
}

/// A repository with every kind of change (see [`change_report`]), before the run: the
/// cache already holds random 3.6.0 for darwin_arm64 (from an earlier run on another
/// root, since removed), `envs/a` has a lock file with null 3.1.0 under `~> 3.1`, random
/// 3.6.0 with only its linux_amd64 `h1:`, and a provider no longer required; `envs/b`
/// has no lock file yet.
fn every_change(registry: &FakeRegistry) -> Repo {
    let handle = registry.handle();
    let repo = Repo::new(
        &handle,
        &[
            (
                "envs/a/main.tf",
                &requires(&[("null", "3.2.1"), ("random", "~> 3.6")]),
            ),
            ("envs/b/main.tf", &requires(&[("random", "~> 3.6")])),
            ("warm/main.tf", &requires(&[("random", "3.6.0")])),
        ],
    );
    repo.tfsum(&["lock", "--platform", "darwin_arm64", "warm"])
        .assert_code(0);
    std::fs::remove_dir_all(repo.path().join("warm")).expect("remove warm/");
    let quoted = |hashes: Vec<String>| {
        hashes
            .iter()
            .map(|h| format!("    \"{h}\",\n"))
            .collect::<String>()
    };
    let mut null_hashes = vec![handle.expected_h1("hashicorp", "null", "3.1.0", "linux_amd64")];
    null_hashes.extend(handle.expected_zh("hashicorp", "null", "3.1.0"));
    null_hashes.sort();
    let random_h1 = handle.expected_h1("hashicorp", "random", "3.6.0", "linux_amd64");
    repo.write(
        "envs/a/.terraform.lock.hcl",
        &format!(
            "# This file is maintained automatically by \"terraform init\".\n\
             # Manual edits may be lost in future updates.\n\n\
             provider \"{REGISTRY_PLACEHOLDER}/hashicorp/gone\" {{\n  version = \"1.0.0\"\n  hashes = [\n    \"h1:gone\",\n  ]\n}}\n\n\
             provider \"{REGISTRY_PLACEHOLDER}/hashicorp/null\" {{\n  version     = \"3.1.0\"\n  constraints = \"~> 3.1\"\n  hashes = [\n{}  ]\n}}\n\n\
             provider \"{REGISTRY_PLACEHOLDER}/hashicorp/random\" {{\n  version     = \"3.6.0\"\n  constraints = \"~> 3.6\"\n  hashes = [\n{}  ]\n}}\n",
            quoted(null_hashes),
            quoted(vec![random_h1]),
        ),
    );
    repo
}

/// The change report in each format, for a repository with every kind of change: a
/// provider added (a new root) and removed, a version move, constraints changed, hashes
/// added (with each provenance a registry run has: download, signed SHA256SUMS, cache)
/// and dropped. Each format runs on a fresh copy, so every run sees the same cache.
#[test]
fn change_report() {
    let registry = registry();
    let lock = |repo: &Repo, extra: &[&str]| {
        let mut args = vec!["lock", "-r", "--platform", "linux_amd64,darwin_arm64"];
        args.extend_from_slice(extra);
        args.push(".");
        repo.tfsum(&args)
    };

    let repo = every_change(&registry);
    let text = lock(&repo, &[]);
    text.assert_code(0);
    // Written once, nothing changes the second time: no change lines.
    let again = lock(&repo, &[]);
    again.assert_code(0);
    assert!(!again.stdout.contains("→"), "{}", again.text());

    let repo = every_change(&registry);
    let json = lock(&repo, &["--check", "--format", "json"]);
    json.assert_code(1);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("one JSON document");
    let changes: serde_json::Value = doc["roots"]
        .as_array()
        .expect("roots")
        .iter()
        .map(|root| {
            (
                root["dir"].as_str().unwrap_or("").to_string(),
                root["changes"].clone(),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into();

    let repo = every_change(&registry);
    let markdown = lock(&repo, &["--check", "--format", "markdown"]);
    markdown.assert_code(1);

    // docs/change-report.md documents every kind, with exactly the fields tfsum writes.
    let documented: serde_json::Value =
        serde_json::from_str(&doc_block("docs/change-report.md", "## JSON", "json"))
            .expect("documented changes");
    let fields = |change: &serde_json::Value| {
        let keys: Vec<String> = change
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        (change["kind"].as_str().unwrap_or("").to_string(), keys)
    };
    let mut want: Vec<_> = documented
        .as_array()
        .expect("list")
        .iter()
        .map(fields)
        .collect();
    let mut got: Vec<_> = changes
        .as_object()
        .expect("roots")
        .values()
        .flat_map(|list| list.as_array().cloned().unwrap_or_default())
        .map(|c| fields(&c))
        .collect();
    want.sort();
    got.sort();
    got.dedup();
    assert_eq!(got, want);

    snapshot(
        "change_report",
        &format!(
            "## text\n{}\n## json (roots[].changes)\n{}\n\n## markdown\n{}",
            text.text(),
            serde_json::to_string_pretty(&changes).expect("JSON"),
            markdown.text()
        ),
    );
}

/// The markdown report of a run where a root failed and a directory's name holds a `|`:
/// the failed root's Changes cell says why nothing changed, hashes are counted one by
/// one, and a `|` is escaped inside the table only (outside it the backslash would show).
#[test]
fn markdown_report_names_failures_and_counts_hashes() {
    let registry = registry();
    let repo = Repo::new(
        &registry,
        &[
            ("a|b/main.tf", &requires(&[("null", "3.2.1")])),
            ("broken|root/main.tf", &requires(&[("null", ">= 9.0.0")])),
        ],
    );
    let run = repo.tfsum(&[
        "lock",
        "--format=markdown",
        "--platform=linux_amd64,darwin_arm64",
        "-r",
        ".",
    ]);
    run.assert_code(1);
    for line in run.stdout.lines().filter(|l| !l.starts_with('|')) {
        assert!(!line.contains("\\|"), "an escape outside the table: {line}");
    }
    snapshot("markdown_report", &run.text());
}

/// Packages hashed from a mirror are counted in the summary, the JSON stats and
/// `verify`'s summary: a run that took everything from a mirror does not read as one
/// that hashed nothing.
#[test]
fn summary_counts_packages_from_mirrors() {
    let registry = registry();
    let repo = Repo::new(
        &registry,
        &[("root/main.tf", &requires(&[("null", "3.2.1")]))],
    );
    let mirror = repo.scratch().join("mirror");
    let dir = mirror.join(registry.host()).join("hashicorp/null");
    std::fs::create_dir_all(&dir).expect("mirror layout");
    for platform in ["linux_amd64", "darwin_arm64"] {
        let name = registry.zip_filename("hashicorp", "null", "3.2.1", platform);
        let zip = registry.zip("hashicorp", "null", "3.2.1", platform);
        std::fs::write(dir.join(name), zip).expect("mirror zip");
    }
    let flag = format!("--fs-mirror={}", mirror.display());
    let platforms = "--platform=linux_amd64,darwin_arm64";
    let text = repo.tfsum(&["lock", &flag, platforms, "root"]);
    text.assert_code(0);
    assert!(
        text.stdout
            .contains("packages: 0 downloaded (0 B), 0 from cache, 2 from mirror;"),
        "{}",
        text.text()
    );
    let json = repo.tfsum(&["lock", "--check", "--format=json", &flag, platforms, "root"]);
    json.assert_code(0);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON report");
    assert_eq!(doc["stats"]["packages_from_mirror"], 2, "{}", json.stdout);
    let verify = repo.tfsum(&["verify", &flag, "root"]);
    verify.assert_code(0);
    assert!(
        verify
            .stdout
            .contains("packages: 0 downloaded, 0 from cache, 2 from mirror;"),
        "{}",
        verify.text()
    );
}
