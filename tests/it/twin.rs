//! The conformance harness: one configuration copied twice, once for real Terraform v1.0.3
//! and once for tfsum, with one CLI configuration and one environment for both, so that
//! what each tool writes can be compared byte for byte. Every Terraform-versus-tfsum test
//! goes through [`Twin`].

use std::path::{Path, PathBuf};
use std::process::Output;

use pretty_assertions::assert_eq;
use tempfile::TempDir;

use crate::support::fake_registry::RegistryHandle;
use crate::support::terraform;
use crate::tfsum;

pub const LOCK: &str = ".terraform.lock.hcl";

pub struct Twin {
    terraform: TempDir,
    tfsum: TempDir,
    scratch: TempDir,
    host: String,
    env: Vec<(String, String)>,
}

/// A CLI configuration sending the fake's own host and `registry.terraform.io` (implied
/// providers, sources without a host) to the fake registry.
pub fn cli_config(registry: &RegistryHandle) -> String {
    format!(
        "{}host \"registry.terraform.io\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
        registry.cli_config(),
        registry.providers_url()
    )
}

impl Twin {
    /// `files` (relative path, content; `{{REGISTRY}}` becomes the fake's host) against
    /// `registry`.
    pub fn new(registry: &RegistryHandle, files: &[(&str, &str)]) -> Twin {
        let host = registry.host();
        Twin::with(
            terraform::module_dir(files, &host),
            terraform::module_dir(files, &host),
            &cli_config(registry),
            &host,
        )
    }

    /// The fixture repository `testdata/FIXTURE` against `registry`.
    pub fn fixture(registry: &RegistryHandle, fixture: &str) -> Twin {
        let host = registry.host();
        Twin::with(
            terraform::conformance_dir(fixture, &host),
            terraform::conformance_dir(fixture, &host),
            &cli_config(registry),
            &host,
        )
    }

    /// `files` with a CLI configuration of the test's own (mirrors, for example).
    pub fn with_cli_config(files: &[(&str, &str)], cli: &str) -> Twin {
        Twin::with(
            terraform::module_dir(files, ""),
            terraform::module_dir(files, ""),
            cli,
            "",
        )
    }

    /// Two copies a test prepared itself, with its own CLI configuration; `host` fills
    /// the registry placeholder in [`Twin::write`].
    pub fn with(terraform: TempDir, tfsum: TempDir, cli: &str, host: &str) -> Twin {
        let scratch = TempDir::new().expect("scratch");
        std::fs::write(scratch.path().join("cli.tfrc"), cli).expect("CLI config");
        Twin {
            terraform,
            tfsum,
            scratch,
            host: host.to_string(),
            env: Vec::new(),
        }
    }

    /// Sets `name` in both tools' environment (for example `SSL_CERT_FILE`).
    pub fn env(mut self, name: &str, value: &str) -> Twin {
        self.env.push((name.to_string(), value.to_string()));
        self
    }

    pub fn cli_config(&self) -> PathBuf {
        self.scratch.path().join("cli.tfrc")
    }

    pub fn tfsum_dir(&self) -> &Path {
        self.tfsum.path()
    }

    pub fn terraform_dir(&self) -> &Path {
        self.terraform.path()
    }

    /// Writes `content` (the registry placeholder replaced) to `relative` in both copies.
    pub fn write(&self, relative: &str, content: &str) {
        let content = content.replace(terraform::REGISTRY_PLACEHOLDER, &self.host);
        for dir in [self.terraform.path(), self.tfsum.path()] {
            let path = dir.join(relative);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("create directory");
            }
            std::fs::write(&path, &content).expect("write file");
        }
    }

    /// Puts the same lock file in `root` of both copies.
    pub fn with_lock(&self, root: &str, content: &str) {
        self.write(&format!("{root}/{LOCK}"), content);
    }

    fn env_pairs(&self) -> Vec<(&str, &str)> {
        self.env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    /// `tfsum ARGS` at the top of tfsum's copy.
    pub fn tfsum(&self, args: &[&str]) -> Output {
        tfsum::run_with(
            self.tfsum.path(),
            &self.cli_config(),
            self.scratch.path(),
            args,
            &self.env_pairs(),
        )
    }

    /// `tfsum lock EXTRA… --platform=P… ROOT`, which must succeed; returns the lock file.
    pub fn tfsum_lock(&self, root: &str, extra: &[&str], platforms: &[&str]) -> String {
        let mut args = vec!["lock".to_string()];
        args.extend(extra.iter().map(|a| a.to_string()));
        args.extend(platforms.iter().map(|p| format!("--platform={p}")));
        args.push(root.to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.tfsum(&args);
        tfsum::assert_ok(&out);
        terraform::read_lock_file(&self.tfsum.path().join(root))
    }

    /// `tfsum lock -r --platform=P… .` over the whole copy.
    pub fn tfsum_lock_all(&self, platforms: &[&str]) -> Output {
        let mut args = vec!["lock".to_string(), "-r".to_string()];
        args.extend(platforms.iter().map(|p| format!("--platform={p}")));
        args.push(".".to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.tfsum(&args)
    }

    /// `terraform ARGS` in `root` of Terraform's copy.
    pub fn terraform(&self, root: &str, args: &[&str]) -> Output {
        terraform::run_with(
            &self.terraform.path().join(root),
            &self.cli_config(),
            args,
            &self.env_pairs(),
        )
    }

    /// `terraform ARGS` in `root`, which must succeed.
    pub fn terraform_ok(&self, root: &str, args: &[&str]) {
        let out = self.terraform(root, args);
        terraform::assert_success(&out, &format!("terraform {} in {root}", args.join(" ")));
    }

    /// `terraform get`, then `terraform providers lock -platform=P… EXTRA…` in `root`
    /// (Terraform loads even local modules through its module manifest); the result.
    pub fn terraform_lock(&self, root: &str, extra: &[&str], platforms: &[&str]) -> Output {
        self.terraform_ok(root, &["get", "-no-color"]);
        let mut args = vec!["providers".to_string(), "lock".into(), "-no-color".into()];
        args.extend(platforms.iter().map(|p| format!("-platform={p}")));
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.terraform(root, &args)
    }

    /// `terraform init -backend=false` (with `-upgrade`) in `root`; the lock file.
    pub fn init(&self, root: &str, upgrade: bool) -> String {
        let mut args = vec!["init", "-backend=false", "-input=false", "-no-color"];
        if upgrade {
            args.push("-upgrade");
        }
        self.terraform_ok(root, &args);
        self.terraform_lock_file(root)
    }

    pub fn terraform_lock_file(&self, root: &str) -> String {
        terraform::read_lock_file(&self.terraform.path().join(root))
    }

    pub fn tfsum_lock_file(&self, root: &str) -> String {
        terraform::read_lock_file(&self.tfsum.path().join(root))
    }

    /// Terraform's `providers lock` in `root` must succeed and leave what tfsum's copy
    /// holds there (after a tfsum run); returns it.
    pub fn assert_root_matches(&self, root: &str, platforms: &[&str]) -> String {
        let out = self.terraform_lock(root, &[], platforms);
        terraform::assert_success(&out, &format!("terraform providers lock in {root}"));
        let want = self.terraform_lock_file(root);
        let got = self.tfsum_lock_file(root);
        assert_eq!(got, want, "{root}: tfsum (left) vs Terraform (right)");
        got
    }

    /// Both tools lock `root` for `platforms`; their files must be identical. Returns it.
    pub fn assert_same(&self, root: &str, platforms: &[&str]) -> String {
        self.tfsum_lock(root, &[], platforms);
        self.assert_root_matches(root, platforms)
    }

    /// Every directory of tfsum's copy holding a lock file, relative, sorted.
    pub fn locked_dirs(&self) -> Vec<String> {
        lock_dirs(self.tfsum.path())
    }
}

/// Every directory below `base` holding a lock file, relative, sorted.
pub fn lock_dirs(base: &Path) -> Vec<String> {
    let mut found: Vec<String> = walkdir::WalkDir::new(base)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == LOCK)
        .filter_map(|e| {
            let dir = e.path().parent()?.strip_prefix(base).ok()?;
            Some(dir.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    found.sort();
    found
}
