//! A repository of root modules on disk plus a way to run `tfsum lock` on it, shared by
//! the fault, bad-input and cache tests.
//!
//! Runs go through the real binary as [`crate::tfsum::run`] runs it, plus the operational
//! knobs that keep faulty runs short: small timeouts, few
//! retries, millisecond backoff. Each test picks its own cache directory, so tests that
//! share one cache do so on purpose.

use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

use crate::support::fake_registry::{FakeRegistry, RegistryHandle};
use crate::support::terraform::REGISTRY_PLACEHOLDER;

/// The knobs every run gets unless a test overrides them: a 2 s request timeout (room
/// for a loaded 2-core machine), three retries 10 ms apart.
pub const FAST_RETRIES: &[(&str, &str)] = &[
    ("TFSUM_HTTP_TIMEOUT_SECS", "2"),
    ("TFSUM_RETRIES", "3"),
    ("TFSUM_RETRY_DELAY_SECS", "0.01"),
];

pub const LOCK: &str = ".terraform.lock.hcl";

/// A registry with two providers, two versions of `null`, two platforms each.
pub fn registry() -> FakeRegistry {
    FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.0")
        .platforms(&["linux_amd64", "darwin_arm64"])
        .version("3.2.1")
        .platforms(&["linux_amd64", "darwin_arm64"])
        .provider("hashicorp", "random")
        .version("3.6.0")
        .platforms(&["linux_amd64", "darwin_arm64"])
        .start()
}

/// `main.tf` requiring the given (name, constraint) providers of the fake registry.
pub fn main_tf(providers: &[(&str, &str)]) -> String {
    let mut text = String::from("terraform {\n  required_providers {\n");
    for (name, constraint) in providers {
        text.push_str(&format!(
            "    {name} = {{\n      source  = \"{REGISTRY_PLACEHOLDER}/hashicorp/{name}\"\n      version = \"{constraint}\"\n    }}\n"
        ));
    }
    text.push_str("  }\n}\n");
    text
}

/// A temporary repository, its CLI configuration and a cache directory.
pub struct Repo {
    pub dir: TempDir,
    scratch: TempDir,
    host: String,
}

impl Repo {
    /// `files` are (relative path, content); `{{REGISTRY}}` becomes the registry host.
    pub fn new(registry: &RegistryHandle, files: &[(&str, &str)]) -> Repo {
        let repo = Repo {
            dir: TempDir::new().expect("temp repo"),
            scratch: TempDir::new().expect("temp scratch"),
            host: registry.host(),
        };
        registry.write_cli_config(&repo.cli_config());
        for (path, content) in files {
            repo.write(path, content);
        }
        repo
    }

    /// The usual two roots: `a` uses `null` and `random`, `b` uses `random` only.
    pub fn two_roots(registry: &RegistryHandle) -> Repo {
        Repo::new(
            registry,
            &[
                (
                    "a/main.tf",
                    &main_tf(&[("null", "~> 3.2"), ("random", "3.6.0")]),
                ),
                ("b/main.tf", &main_tf(&[("random", "3.6.0")])),
            ],
        )
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn cli_config(&self) -> PathBuf {
        self.scratch.path().join("cli.tfrc")
    }

    /// The repository's own cache directory.
    pub fn cache(&self) -> PathBuf {
        self.scratch.path().join("cache")
    }

    pub fn write(&self, relative: &str, content: &str) {
        let path = self.path().join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create directory");
        }
        std::fs::write(&path, content.replace(REGISTRY_PLACEHOLDER, &self.host))
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }

    /// The lock file of `root`, if there is one.
    pub fn lock(&self, root: &str) -> Option<String> {
        std::fs::read_to_string(self.path().join(root).join(LOCK)).ok()
    }

    /// `tfsum lock -r --platform … .` with [`FAST_RETRIES`], the repository's cache and
    /// `env` on top.
    pub fn lock_all(&self, platforms: &[&str], extra: &[&str], env: &[(&str, &str)]) -> Output {
        self.lock_all_within(None, platforms, extra, env)
    }

    /// As [`Repo::lock_all`]; with a `limit`, tfsum is killed and the test fails once it
    /// runs longer (a time bound enforced while the test runs).
    pub fn lock_all_within(
        &self,
        limit: Option<std::time::Duration>,
        platforms: &[&str],
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Output {
        let mut args = vec!["lock".to_string(), "-r".to_string()];
        args.extend(platforms.iter().map(|p| format!("--platform={p}")));
        args.extend(extra.iter().map(|a| a.to_string()));
        args.push(".".to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let env = [FAST_RETRIES, env].concat();
        run_within(
            self.path(),
            &self.cli_config(),
            &self.cache(),
            &args,
            &env,
            limit,
        )
    }

    /// Every file below the repository (relative path, bytes), sorted; for "nothing
    /// changed" checks. Symlinks are listed with their target, not followed.
    pub fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
        snapshot(self.path())
    }
}

/// Runs `tfsum ARGS` in `dir` with `cache` as its cache directory and `env` on top
/// (HOME sits beside the cache).
pub fn run(
    dir: &Path,
    cli_config: &Path,
    cache: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    run_within(dir, cli_config, cache, args, env, None)
}

/// As [`run`]; with a `limit`, tfsum is killed and the test fails once it runs longer.
fn run_within(
    dir: &Path,
    cli_config: &Path,
    cache: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    limit: Option<std::time::Duration>,
) -> Output {
    let scratch = cache.parent().unwrap_or(cache);
    let cache = cache.to_string_lossy();
    let mut all = vec![("TFSUM_CACHE_DIR", cache.as_ref())];
    all.extend_from_slice(env);
    crate::tfsum::run_within(dir, cli_config, scratch, args, &all, limit)
}

/// Exit status, stdout and stderr, for assertion messages.
pub fn text(output: &Output) -> String {
    crate::tfsum::text(output)
}

/// Stdout and stderr together.
pub fn combined(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

pub fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .expect("below root")
                .to_string_lossy()
                .into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap_or_default();
                files.push((relative, target.to_string_lossy().into_owned().into_bytes()));
            } else if kind.is_dir() {
                files.push((format!("{relative}/"), Vec::new()));
                stack.push(path);
            } else {
                files.push((relative, std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    files.sort();
    files
}

/// Temporary files tfsum could have left behind (`.tfsum-*`, and the cache's `.tmp-*`).
pub fn leftovers(root: &Path) -> Vec<String> {
    snapshot(root)
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            name.starts_with(".tfsum-") || name.starts_with(".tmp-")
        })
        .collect()
}

/// The report line of `root` and the indented detail lines below it.
pub fn root_report(output: &Output, root: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines();
    let mut found = String::new();
    while let Some(line) = lines.next() {
        let names_root = line
            .split_whitespace()
            .nth(1)
            .is_some_and(|dir| dir.trim_start_matches("./") == root);
        if names_root && !line.starts_with(' ') {
            found.push_str(line);
            found.push('\n');
            for detail in lines.by_ref() {
                if !detail.starts_with("          ") {
                    break;
                }
                found.push_str(detail);
                found.push('\n');
            }
            break;
        }
    }
    found
}
