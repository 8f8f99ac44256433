//! The manual's examples, run: each ```` ```console ```` block of README.md and docs/ is
//! preceded by a hidden comment naming the repository it runs in,
//!
//! ````text
//! <!-- example: setup=envs status=1 -->
//! ```console
//! $ tfsum lock --check -r .
//! would update envs/prod
//! [..]
//! ```
//! ````
//!
//! and each `$ ` line runs with `sh` in a fresh copy of that repository ([`Sandbox`],
//! built by [`setup`]) against the fake registry, standing in for registry.terraform.io
//! through `~/.terraformrc`. What follows a command, up to the next `$ ` line, is its
//! output, stdout and stderr together. `status=` gives the exit status of the block's
//! commands in order (default 0 for each; one value is the last command's).
//!
//! Output is compared after the same redactions on both sides ([`normalise`]): a time
//! (`3.41s`, `120ms`), a size (`98.2 MiB`), and the JSON fields `elapsed_ms`,
//! `elapsed_seconds`, `bytes_downloaded` and `bytes_uploaded` stand for any value, so an
//! example may show realistic figures; the sandbox's temporary directory is `/`, so the
//! repository is `/repo` and the home directory `/home/me`. Beyond that, `[..]` in an
//! expected line matches any text within the line, and a line of only `...` any number
//! of lines.
//!
//! With `TFSUM_BLESS=1` a block whose output differs is rewritten with what the commands
//! printed (its `[..]` and `...` are lost: put back the ones that are still wanted).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use regex::Regex;
use tempfile::TempDir;

use super::markdown::{user_docs, Block, Doc};
use crate::support::deadline::output_within;
use crate::support::fake_modules::{FakeModuleRegistry, ModuleRegistryHandle};
use crate::support::fake_registry::{FakeRegistry, RegistryHandle};
use crate::support::git_http::GitServer;

/// The platforms every provider of the docs' registry publishes.
const PLATFORMS: &[&str] = &[
    "darwin_amd64",
    "darwin_arm64",
    "linux_amd64",
    "windows_amd64",
];

/// The registries the examples run against, standing in for registry.terraform.io: a
/// few real provider names with realistic versions, each for [`PLATFORMS`]
/// (`hashicorp/template` says it is deprecated), and one module.
pub struct Registries {
    providers: FakeRegistry,
    modules: FakeModuleRegistry,
}

impl Registries {
    pub fn start() -> Registries {
        let mut builder = FakeRegistry::builder();
        for (name, versions) in [
            ("aws", &["4.67.0", "5.31.0", "5.32.1", "6.2.0"][..]),
            ("null", &["3.1.0", "3.2.0", "3.2.1"]),
            ("random", &["3.5.1", "3.6.0"]),
            ("template", &["2.2.0"]),
        ] {
            builder = builder.provider("hashicorp", name);
            for version in versions {
                builder = builder.version(version).platforms(PLATFORMS);
            }
        }
        let providers = builder.start();
        providers.warn("hashicorp", "template", "this provider is deprecated");
        let modules = FakeModuleRegistry::builder()
            .module("terraform-aws-modules", "vpc", "aws")
            .version("5.0.0")
            .version("5.8.1")
            .start();
        Registries { providers, modules }
    }

    pub fn handles(&self) -> Handles {
        Handles {
            providers: self.providers.handle(),
            modules: self.modules.handle(),
        }
    }
}

/// What a sandbox needs of the registries; moves between threads.
#[derive(Clone)]
pub struct Handles {
    providers: RegistryHandle,
    modules: ModuleRegistryHandle,
}

/// A repository and a home directory in one temporary directory, with `~/.terraformrc`
/// pointing registry.terraform.io and registry.opentofu.org at the registries; and
/// whatever else a setup started for it (a git server), stopped with it.
pub struct Sandbox {
    tmp: TempDir,
    keep: Vec<Box<dyn std::any::Any>>,
}

impl Sandbox {
    pub fn new(registries: &Handles) -> Sandbox {
        let sandbox = Sandbox {
            tmp: TempDir::new().expect("temporary directory"),
            keep: Vec::new(),
        };
        std::fs::create_dir_all(sandbox.repo().join(".git")).expect("create .git");
        let mut rc = String::new();
        for host in ["registry.terraform.io", "registry.opentofu.org"] {
            rc.push_str(&format!(
                "host \"{host}\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n    \"modules.v1\"   = \"{}\"\n  }}\n}}\n\n",
                registries.providers.providers_url(),
                registries.modules.modules_url(),
            ));
        }
        sandbox.write_home(".terraformrc", &rc);
        sandbox
    }

    pub fn repo(&self) -> PathBuf {
        self.tmp.path().join("repo")
    }

    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home/me")
    }

    pub fn write(&self, relative: &str, content: &str) {
        write(&self.repo().join(relative), content);
    }

    pub fn read(&self, relative: &str) -> String {
        let path = self.repo().join(relative);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn write_home(&self, relative: &str, content: &str) {
        write(&self.home().join(relative), content);
    }

    /// A command for `program` in the repository, with nothing of this process's
    /// environment but what the examples need.
    fn command(&self, program: &str, env: &[(&str, &str)]) -> Command {
        let bin = Path::new(env!("CARGO_BIN_EXE_tfsum"))
            .parent()
            .expect("the binary's directory");
        let mut command = Command::new(program);
        command
            .current_dir(self.repo())
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
            )
            .env("HOME", self.home())
            .env("LANG", "C.UTF-8")
            .envs(env.iter().copied());
        command
    }

    /// `tfsum ARGS` with `env`, stdout and stderr apart.
    pub fn tfsum_env(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
        let mut command = self.command(env!("CARGO_BIN_EXE_tfsum"), env);
        command.args(args);
        output_within(&mut command, Duration::from_secs(120))
    }

    /// `tfsum ARGS`, which must exit with `status`.
    pub fn tfsum_ok(&self, args: &[&str], status: i32) {
        let out = self.tfsum_env(args, &[]);
        assert_eq!(
            out.status.code(),
            Some(status),
            "tfsum {args:?}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `line` run by `sh`, stdout and stderr in one stream: its exit status and output.
    pub fn sh(&self, line: &str) -> (Option<i32>, String) {
        let mut command = self.command("sh", &[]);
        command.arg("-c").arg(format!("exec 2>&1\n{line}"));
        let out = output_within(&mut command, Duration::from_secs(120));
        (
            out.status.code(),
            self.redact(&String::from_utf8_lossy(&out.stdout)),
        )
    }

    /// The temporary directory's path taken out, so that it reads as `/`.
    pub fn redact(&self, text: &str) -> String {
        let tmp = self.tmp.path().to_string_lossy().into_owned();
        let real = std::fs::canonicalize(self.tmp.path())
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| tmp.clone());
        text.replace(&real, "").replace(&tmp, "")
    }
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create directories");
    std::fs::write(path, content).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// `required_providers` for `(name, constraint)` pairs of hashicorp providers.
pub fn requires(providers: &[(&str, &str)]) -> String {
    let mut out = String::from("terraform {\n  required_providers {\n");
    for (name, constraint) in providers {
        out.push_str(&format!(
            "    {name} = {{\n      source  = \"hashicorp/{name}\"\n      version = \"{constraint}\"\n    }}\n"
        ));
    }
    out.push_str("  }\n}\n");
    out
}

const PLATFORMS_TOML: &str = "platforms = [\"linux_amd64\", \"darwin_arm64\"]\n";

/// Builds the repository an example names. Each is small and says what it is for.
pub fn setup(name: &str, sb: &mut Sandbox) {
    match name {
        // Three roots for the everyday lock run: `dev` new, `prod` locked before its
        // constraint moved, `staging` locked and current.
        "envs" => {
            sb.write(".tfsum.toml", PLATFORMS_TOML);
            sb.write("envs/dev/main.tf", &requires(&[("random", "~> 3.6")]));
            sb.write("envs/staging/main.tf", &requires(&[("random", "3.6.0")]));
            sb.tfsum_ok(&["lock", "envs/staging"], 0);
            sb.write("envs/prod/main.tf", &requires(&[("null", "3.1.0")]));
            sb.tfsum_ok(&["lock", "envs/prod"], 0);
            sb.write("envs/prod/main.tf", &requires(&[("null", "3.2.0")]));
        }
        // `prod` locked before darwin_arm64 joined the platforms; `dev` current.
        "stale" => {
            sb.write("envs/prod/main.tf", &requires(&[("aws", "~> 5.31")]));
            sb.write("envs/dev/main.tf", &requires(&[("random", "3.6.0")]));
            sb.tfsum_ok(&["lock", "-r", "--platform", "linux_amd64", "."], 0);
            sb.write(".tfsum.toml", PLATFORMS_TOML);
            sb.tfsum_ok(&["lock", "envs/dev"], 0);
        }
        // A new root, as a commit adds it.
        "new-root" => {
            sb.write(".tfsum.toml", PLATFORMS_TOML);
            sb.write("envs/new/main.tf", &requires(&[("random", ">= 3.5.0")]));
        }
        // A settings file with a misspelt key.
        "bad-config" => {
            sb.write(".tfsum.toml", "platform = [\"linux_amd64\"]\n");
            sb.write("envs/prod/main.tf", &requires(&[("random", "3.6.0")]));
        }
        // Lock files for `verify`: `prod` as locked, `dev` with a planted `h1:`, `old`
        // at a version the registry does not publish.
        "verify" => {
            sb.write(".tfsum.toml", PLATFORMS_TOML);
            sb.write("envs/prod/main.tf", &requires(&[("null", "3.2.1")]));
            sb.write("envs/dev/main.tf", &requires(&[("random", "3.6.0")]));
            sb.tfsum_ok(&["lock", "-r", "."], 0);
            let lock = sb.read("envs/dev/.terraform.lock.hcl");
            let planted = lock.replacen(
                "hashes = [\n",
                "hashes = [\n    \"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\n",
                1,
            );
            sb.write("envs/dev/.terraform.lock.hcl", &planted);
            let old = sb
                .read("envs/prod/.terraform.lock.hcl")
                .replace("3.2.1", "9.9.9");
            sb.write("envs/old/.terraform.lock.hcl", &old);
        }
        // Roots behind in different ways, and a registry module.
        "outdated" => {
            let vpc = "module \"vpc\" {\n  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"~> 5.0.0\"\n}\n";
            sb.write("envs/a/main.tf", &requires(&[("aws", "~> 4.67")]));
            sb.write(
                "envs/b/main.tf",
                &requires(&[("aws", "~> 4.67"), ("null", "3.1.0")]),
            );
            sb.write("envs/c/main.tf", &requires(&[("random", "3.6.0")]));
            sb.write("envs/c/network.tf", vpc);
            sb.write("envs/z/main.tf", &requires(&[("aws", "4.67.0")]));
            sb.tfsum_ok(&["lock", "-r", "--platform", "linux_amd64", "."], 0);
            sb.write("envs/z/main.tf", &requires(&[("aws", ">= 4.0, < 6.0")]));
        }
        // Every kind of change: `envs/a` locks null 3.1.0 (now `3.2.1`), random 3.6.0
        // with only its linux_amd64 `h1:`, and template, no longer required; `envs/b`
        // has no lock file; the cache holds random for darwin_arm64 already.
        "every-change" => {
            sb.write(".tfsum.toml", PLATFORMS_TOML);
            sb.write("warm/main.tf", &requires(&[("random", "3.6.0")]));
            sb.tfsum_ok(&["lock", "--platform", "darwin_arm64", "warm"], 0);
            std::fs::remove_dir_all(sb.repo().join("warm")).expect("remove warm/");
            sb.write(
                "envs/a/main.tf",
                &requires(&[
                    ("null", "3.1.0"),
                    ("random", "~> 3.6"),
                    ("template", "2.2.0"),
                ]),
            );
            sb.tfsum_ok(&["lock", "--platform", "linux_amd64", "envs/a"], 0);
            sb.write(
                "envs/a/main.tf",
                &requires(&[("null", "3.2.1"), ("random", "~> 3.6")]),
            );
            sb.write("envs/b/main.tf", &requires(&[("random", "~> 3.6")]));
        }
        // Module sources from variables that `init` cannot know.
        "early-eval" => {
            sb.write(".tfsum.toml", PLATFORMS_TOML);
            sb.write("envs/staging/main.tf", &requires(&[("random", "3.6.0")]));
            sb.write(
                "envs/prod/main.tf",
                "terraform {\n  required_version = \">= 1.15\"\n}\n\nvariable \"ref\" {\n  type    = string\n  default = \"v1.4.0\"\n}\n\nmodule \"iam\" {\n  source = \"git::https://git.example.com/iam.git?ref=${var.ref}\"\n}\n",
            );
            sb.write(
                "envs/dev/variables.tf",
                "variable \"ref\" {\n  type  = string\n  const = true\n}\n",
            );
            sb.write(
                "envs/dev/main.tf",
                "terraform {\n  required_version = \">= 1.15\"\n}\n\nmodule \"iam\" {\n  source = \"git::https://git.example.com/iam.git?ref=${var.ref}\"\n}\n",
            );
        }
        // A Terraform Stack whose component's module pins another random than the stack.
        "terraform-stack" => {
            sb.write(
                "stacks/app/components.tfcomponent.hcl",
                "required_providers {\n  random = {\n    source  = \"hashicorp/random\"\n    version = \"~> 3.5.1\"\n  }\n}\n\nprovider \"random\" \"this\" {}\n\ncomponent \"pet\" {\n  source = \"./pet\"\n  providers = {\n    random = provider.random.this\n  }\n}\n",
            );
            sb.write("stacks/app/pet/main.tf", &requires(&[("random", "3.6.0")]));
        }
        // A Terragrunt stack whose units take a module from a git repository (served
        // on loopback, reached as github.com through `insteadOf`) at `values.version`.
        "terragrunt-stack" => {
            let git = GitServer::start();
            let modules = git.repo("modules");
            modules.write("main.tf", &requires(&[("null", "3.2.1")]));
            modules.commit("v1");
            modules.tag("v1.0.0");
            modules.write("main.tf", &requires(&[("random", "3.6.0")]));
            modules.commit("v2");
            modules.tag("v2.0.0");
            sb.write_home(
                ".gitconfig",
                &format!(
                    "[url \"{}\"]\n\tinsteadOf = https://github.com/acme/modules.git\n",
                    git.url("modules")
                ),
            );
            sb.write(".tfsum.toml", PLATFORMS_TOML);
            sb.write(
                "live/app/terragrunt.hcl",
                "terraform {\n  source = \"git::https://github.com/acme/modules.git?ref=${values.version}\"\n}\n",
            );
            sb.write(
                "live/terragrunt.stack.hcl",
                "unit \"app\" {\n  source = \"./app\"\n  path   = \"app\"\n  values = {\n    version = \"v1.0.0\"\n  }\n}\n",
            );
            sb.tfsum_ok(&["lock", "-r", "live"], 0);
            sb.keep.push(Box::new(git));
        }
        other => panic!("no example setup named {other:?} (tests/it/docs/examples.rs)"),
    }
}

/// One `console` block.
pub struct Example {
    pub file: String,
    /// 1-based line of the opening fence.
    pub line: usize,
    pub setup: String,
    pub runs: Vec<Run>,
    /// 0-based line of the block's first body line in its file.
    body_line: usize,
}

/// One `$ ` command and the output shown for it.
pub struct Run {
    pub command: String,
    pub status: i32,
    pub expected: Vec<String>,
    /// Lines of the block (0-based, end exclusive) that hold `expected`.
    span: (usize, usize),
}

/// The example of a `console` block; an error says what is wrong with the block.
pub fn parse(doc: &Doc, block: &Block) -> Result<Example, String> {
    let at = format!("{}:{}", doc.name(), block.fence_line + 1);
    let setup = block.attr("setup").ok_or_else(|| {
        format!("{at}: a console block needs <!-- example: setup=NAME --> before it")
    })?;
    let mut runs: Vec<Run> = Vec::new();
    let mut i = 0;
    while i < block.lines.len() {
        let line = &block.lines[i];
        let Some(first) = line.strip_prefix("$ ") else {
            match runs.last_mut() {
                Some(run) => {
                    run.expected.push(line.clone());
                    run.span.1 = i + 1;
                }
                None => return Err(format!("{at}: output before the first `$ ` line")),
            }
            i += 1;
            continue;
        };
        let mut command = first.to_string();
        while command.ends_with('\\') && i + 1 < block.lines.len() {
            i += 1;
            command.push('\n');
            command.push_str(&block.lines[i]);
        }
        i += 1;
        runs.push(Run {
            command,
            status: 0,
            expected: Vec::new(),
            span: (i, i),
        });
    }
    if runs.is_empty() {
        return Err(format!("{at}: no `$ ` command"));
    }
    if let Some(status) = block.attr("status") {
        let statuses: Vec<i32> = status
            .split(',')
            .map(|s| s.parse().map_err(|_| format!("{at}: status={status}")))
            .collect::<Result<_, _>>()?;
        let skip = runs.len().saturating_sub(statuses.len());
        for (run, status) in runs[skip..].iter_mut().zip(statuses) {
            run.status = status;
        }
    }
    Ok(Example {
        file: doc.name(),
        line: block.fence_line + 1,
        setup,
        runs,
        body_line: block.fence_line + 1,
    })
}

/// The redactions applied to expected and actual output alike.
pub fn normalise(text: &str) -> String {
    let rules = [
        (r"\b\d+(?:\.\d+)?(?:ms|s)\b", "[TIME]"),
        (r"\b\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB)\b", "[SIZE]"),
        (
            r#"("(?:elapsed_ms|elapsed_seconds|bytes_downloaded|bytes_uploaded)": )[0-9.eE+-]+"#,
            "${1}[N]",
        ),
    ];
    let mut text = text.to_string();
    for (pattern, with) in rules {
        text = Regex::new(pattern)
            .expect("regex")
            .replace_all(&text, with)
            .into_owned();
    }
    text
}

/// Whether one line matches its pattern: literal text and `[..]` wildcards.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    // One part: no wildcard.
    let [first, middle @ .., last] = &parts[..] else {
        return pattern == line;
    };
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether `actual` matches `expected`: line by line, a line of `...` standing for any
/// number of lines.
pub fn matches(expected: &[&str], actual: &[&str]) -> bool {
    // reach[j]: expected[..i] can match actual[..j].
    let mut reach = vec![false; actual.len() + 1];
    reach[0] = true;
    for pattern in expected {
        let mut next = vec![false; actual.len() + 1];
        if pattern.trim() == "..." {
            let mut any = false;
            for j in 0..=actual.len() {
                any |= reach[j];
                next[j] = any;
            }
        } else {
            for j in 0..actual.len() {
                if reach[j] && line_matches(pattern, actual[j]) {
                    next[j + 1] = true;
                }
            }
        }
        reach = next;
    }
    reach[actual.len()]
}

/// What one run printed, against what the example shows.
struct Outcome {
    status: Option<i32>,
    output: String,
}

/// Runs every example, two at a time, each in its own sandbox; returns a report of each
/// that did not print what it shows (empty when all did). With `bless`, rewrites those
/// blocks in their files.
pub fn run_all(registries: &Handles, examples: &[Example], bless: bool) -> Vec<String> {
    let results: Mutex<Vec<(usize, Vec<Outcome>)>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(example) = examples.get(i) else {
                    break;
                };
                let mut sandbox = Sandbox::new(registries);
                setup(&example.setup, &mut sandbox);
                let outcomes = example
                    .runs
                    .iter()
                    .map(|run| {
                        let (status, output) = sandbox.sh(&run.command);
                        Outcome { status, output }
                    })
                    .collect();
                results.lock().expect("results").push((i, outcomes));
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);

    let mut failures = Vec::new();
    let mut rewrites: Vec<(String, usize, usize, Vec<String>)> = Vec::new();
    for (i, outcomes) in results {
        let example = &examples[i];
        for (run, got) in example.runs.iter().zip(outcomes) {
            let want = normalise(&run.expected.join("\n"));
            let have = normalise(got.output.trim_end_matches('\n'));
            let want_lines: Vec<&str> = if run.expected.is_empty() {
                vec![]
            } else {
                want.lines().collect()
            };
            let same_output = matches(&want_lines, &have.lines().collect::<Vec<_>>());
            let same_status = got.status == Some(run.status);
            if same_output && same_status {
                continue;
            }
            failures.push(format!(
                "{}:{} (setup={}): $ {}\n--- status: shown {}, got {:?}\n--- shown\n{}\n--- printed\n{}",
                example.file,
                example.line,
                example.setup,
                run.command,
                run.status,
                got.status,
                run.expected.join("\n"),
                got.output.trim_end_matches('\n'),
            ));
            if bless && !same_output {
                rewrites.push((
                    example.file.clone(),
                    example.body_line + run.span.0,
                    example.body_line + run.span.1,
                    got.output
                        .trim_end_matches('\n')
                        .lines()
                        .map(str::to_string)
                        .collect(),
                ));
            }
        }
    }
    // From the bottom of each file up, so that earlier line numbers stay valid.
    rewrites.sort_by(|a, b| (&b.0, b.1).cmp(&(&a.0, a.1)));
    for (file, from, to, lines) in rewrites {
        let path = crate::support::terraform::repo_root().join(&file);
        let text = std::fs::read_to_string(&path).expect("read the page");
        let mut all: Vec<String> = text.lines().map(str::to_string).collect();
        all.splice(from..to, lines);
        std::fs::write(&path, all.join("\n") + "\n").expect("write the page");
    }
    failures
}

/// Every ```` ```console ```` block of README.md and docs/ is an example (this module):
/// its commands run in the repository its comment names, against the fake registry, and
/// print what the block shows. `TFSUM_BLESS=1` rewrites the blocks that differ.
#[test]
fn console_examples_print_what_they_show() {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for doc in user_docs() {
        for block in doc.blocks() {
            if block.info == "console" {
                match parse(&doc, &block) {
                    Ok(example) => found.push(example),
                    Err(problem) => problems.push(problem),
                }
            } else if block.attr("setup").is_some() {
                problems.push(format!(
                    "{}:{}: an example comment before a ```{} block: only console blocks run",
                    doc.name(),
                    block.fence_line + 1,
                    block.info
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let registries = Registries::start();
    let bless = std::env::var("TFSUM_BLESS").is_ok_and(|v| v == "1");
    let failures = run_all(&registries.handles(), &found, bless);
    assert!(
        failures.is_empty(),
        "{} of {} examples print something else{}:\n\n{}",
        failures.len(),
        found.len(),
        if bless {
            " (rewritten: review the diff)"
        } else {
            " (TFSUM_BLESS=1 rewrites them)"
        },
        failures.join("\n\n")
    );
}

/// The example matcher: `[..]` within a line, `...` for lines, the redactions on both
/// sides.
#[test]
fn the_example_matcher() {
    let yes = [
        (&["a [..] c"][..], &["a b c"][..]),
        (&["[..]"], &["anything"]),
        (&["a[..]"], &["a"]),
        (&["...", "z"], &["x", "y", "z"]),
        (&["a", "...", "z"], &["a", "z"]),
        (&["..."], &[]),
        (&["a [..] c [..] e"], &["a b c d e"]),
    ];
    for (want, got) in yes {
        assert!(matches(want, got), "{want:?} {got:?}");
    }
    let no = [
        (&["a [..] c"][..], &["a b d"][..]),
        (&["a"], &["a", "b"]),
        (&["...", "z"], &["z", "y"]),
        (&["ab[..]ba"], &["aba"]),
        (&[], &["x"]),
    ];
    for (want, got) in no {
        assert!(!matches(want, got), "{want:?} {got:?}");
    }
    assert_eq!(
        normalise(
            "4 downloaded (98.2 MiB), 2 from cache; 3.41s\n\"elapsed_ms\": 184,\n12ms 0.5 KiB 3 roots"
        ),
        "4 downloaded ([SIZE]), 2 from cache; [TIME]\n\"elapsed_ms\": [N],\n[TIME] [SIZE] 3 roots"
    );
}
