//! Renovate as teams run it, with tfsum as its post-upgrade task: the real Renovate from
//! npm (`scripts/fetch-renovate.sh`, with the Node.js it asks for) on its `gitea`
//! platform, against a fake of the forge's API ([`FakeGitea`]) and the real
//! `git http-backend`, configured with the `renovate.json` and admin `config.js` of
//! docs/renovate.md verbatim. Providers come from the fake registry under a host name only a
//! loopback proxy resolves (`registry.test`: Renovate accepts no port in a provider
//! source), over TLS with the test CA, as a company's registry behind its proxy would.
//!
//! Renovate moves the module's constraint; the pushed branch's lock files must then be
//! what Terraform 1.0.3 writes for the branch's configuration: the root that calls the
//! changed module relocked (Renovate alone leaves it at the old version), the root that
//! declares the provider itself too, the root that does not use it untouched.
//!
//! That root also calls a private module on another git host, which answers only with
//! its token. The bot holds the token as a host rule; Renovate hands post-upgrade
//! commands such tokens as git `insteadOf` rules (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`,
//! `GIT_CONFIG_VALUE_n`), and tfsum's git must fetch with them, sending the token to that
//! host and no other.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use pretty_assertions::assert_eq;

use crate::cli::doc_block;
use crate::support::fake_gitea::FakeGitea;
use crate::support::fake_registry::{test_ca_path, FakeRegistry};
use crate::support::git_http::{git, GitRequest, GitServer};
use crate::support::proxy::Proxy;
use crate::support::terraform;

const PLATFORMS: &[&str] = &["darwin_arm64", "linux_amd64"];
const LOCK: &str = ".terraform.lock.hcl";
const TOKEN: &str = "forge-token-for-renovate";
/// The private module host's password for the user `renovate`.
const MODULE_TOKEN: &str = "module-host-token";
/// The roots, and whether Renovate's update must change their lock file.
const ROOTS: &[(&str, bool)] = &[
    ("roots/app", true),
    ("roots/direct", true),
    ("roots/other", false),
];

/// Renovate's entry point and the directory of the `node` that runs it.
fn renovate() -> (PathBuf, PathBuf) {
    let prefix = terraform::repo_root().join("target/tools/renovate");
    let entry = prefix.join("node_modules/renovate/dist/renovate.js");
    assert!(
        entry.is_file(),
        "Renovate not found at {}: run scripts/fetch-renovate.sh (make test does)",
        entry.display()
    );
    (entry, prefix.join("bin"))
}

fn aws(version: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    aws = {{\n      source  = \"registry.test/hashicorp/aws\"\n      version = \"{version}\"\n    }}\n  }}\n}}\n"
    )
}

/// The repository before Renovate: a module requiring aws `~> 4.67`, a root calling it
/// and the private module at `private` (which requires null), a root requiring aws
/// itself, a root requiring only null; lock files by Terraform.
fn files(private: &str) -> Vec<(&'static str, String)> {
    vec![
        (".gitignore", ".terraform/\n".to_string()),
        ("renovate.json", doc_block("docs/renovate.md", "# Renovate", "json")),
        (
            ".tfsum.toml",
            "platforms = [\"darwin_arm64\", \"linux_amd64\"]\n".to_string(),
        ),
        ("modules/net/versions.tf", aws("~> 4.67")),
        (
            "roots/app/main.tf",
            format!("module \"net\" {{\n  source = \"../../modules/net\"\n}}\n\nmodule \"vpc\" {{\n  source = \"git::{private}?ref=v1.0.0\"\n}}\n"),
        ),
        ("roots/direct/versions.tf", aws("~> 4.67")),
        (
            "roots/other/versions.tf",
            "terraform {\n  required_providers {\n    null = {\n      source  = \"registry.test/hashicorp/null\"\n      version = \"3.2.1\"\n    }\n  }\n}\n".to_string(),
        ),
    ]
}

/// `terraform get` and `terraform providers lock` for `PLATFORMS` in each root of `tree`
/// (Terraform loads even local modules through its module manifest), through `proxy`,
/// with `git` (the private module's credentials) in the environment.
fn terraform_locks(tree: &Path, proxy: &str, cli_config: &Path, git: &[(&str, &str)]) {
    let ca = test_ca_path();
    let ca = ca.to_string_lossy();
    let mut args = vec!["providers", "lock", "-no-color"];
    let flags: Vec<String> = PLATFORMS.iter().map(|p| format!("-platform={p}")).collect();
    args.extend(flags.iter().map(String::as_str));
    let mut env = vec![("HTTPS_PROXY", proxy), ("SSL_CERT_FILE", &ca)];
    env.extend_from_slice(git);
    for (root, _) in ROOTS {
        let dir = tree.join(root);
        let out = terraform::run_with(&dir, cli_config, &["get", "-no-color"], &env);
        terraform::assert_success(&out, &format!("terraform get in {root}"));
        let out = terraform::run_with(&dir, cli_config, &args, &env);
        terraform::assert_success(&out, &format!("terraform providers lock in {root}"));
    }
}

/// `path` as committed on `branch` of the bare repository.
fn show(bare: &Path, branch: &str, path: &str) -> String {
    git(bare, &["show", &format!("{branch}:{path}")])
}

/// Runs Renovate once over `acme/infra`, with `host_rules` (JSON) besides the
/// configuration of docs/renovate.md, and returns its output (JSON log lines).
fn run_renovate(
    forge: &FakeGitea,
    proxy: &Proxy,
    scratch: &Path,
    cli_config: &Path,
    host_rules: &str,
) -> Output {
    let (entry, node_bin) = renovate();
    let config = scratch.join("config.js");
    std::fs::write(&config, doc_block("docs/renovate.md", "# Renovate", "js")).expect("config.js");
    let tfsum_bin = Path::new(env!("CARGO_BIN_EXE_tfsum"))
        .parent()
        .expect("tfsum's directory")
        .to_path_buf();
    let path = std::env::join_paths([node_bin, tfsum_bin].into_iter().chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let ca = test_ca_path();
    let mut command = Command::new(scratch.join("node"));
    command
        .arg(entry)
        .current_dir(scratch)
        .env_clear()
        .env("PATH", path)
        .env("HOME", scratch.join("home"))
        .env("RENOVATE_CONFIG_FILE", &config)
        .env("RENOVATE_PLATFORM", "gitea")
        .env("RENOVATE_ENDPOINT", forge.endpoint())
        .env("RENOVATE_TOKEN", TOKEN)
        .env("RENOVATE_REPOSITORIES", "acme/infra")
        .env("RENOVATE_ONBOARDING", "false")
        .env("RENOVATE_DEPENDENCY_DASHBOARD", "false")
        .env("RENOVATE_BASE_DIR", scratch.join("renovate"))
        .env("RENOVATE_GIT_AUTHOR", "Renovate <renovate@example.invalid>")
        .env("RENOVATE_HOST_RULES", host_rules)
        .env("LOG_LEVEL", "debug")
        .env("LOG_FORMAT", "json")
        // Renovate trusts the test CA through Node; tfsum through SSL_CERT_FILE, one of
        // the few variables Renovate passes to its commands.
        .env("NODE_EXTRA_CA_CERTS", &ca)
        .env("SSL_CERT_FILE", &ca)
        .env("HTTPS_PROXY", proxy.url())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        // The admin configuration's customEnvVariables hand these on to tfsum.
        .env("TF_CLI_CONFIG_FILE", cli_config)
        .env("TFSUM_CACHE_DIR", scratch.join("tfsum-cache"))
        .stdin(Stdio::null());
    let started = Instant::now();
    let output = command.output().expect("run renovate");
    eprintln!("renovate ran for {:?}", started.elapsed());
    output
}

fn log_tail(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let tail = lines[lines.len().saturating_sub(60)..].join("\n");
    format!(
        "status {:?}\n{tail}\n--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn renovate_runs_tfsum_as_its_post_upgrade_task() {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "aws")
        .version("4.67.0")
        .platforms(PLATFORMS)
        .version("5.31.0")
        .platforms(PLATFORMS)
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(PLATFORMS)
        .tls()
        .start();
    let addr = registry.host().parse().expect("registry address");
    let host = registry.host();
    let proxy = Proxy::start(&[("registry.test:443", addr), (host.as_str(), addr)]);
    let scratch = tempfile::TempDir::new().expect("scratch");
    let scratch = scratch.path();
    std::os::unix::fs::symlink(renovate().1.join("node"), scratch.join("node")).expect("node");
    let cli_config = scratch.join("terraform.rc");
    std::fs::write(&cli_config, "").expect("CLI configuration");

    let modules = GitServer::start();
    let vpc = modules.repo("vpc");
    vpc.write(
        "main.tf",
        "terraform {\n  required_providers {\n    null = {\n      source = \"registry.test/hashicorp/null\"\n    }\n  }\n}\n",
    );
    vpc.commit("vpc");
    vpc.tag("v1.0.0");
    modules.require_basic("renovate", MODULE_TOKEN);
    let private = modules.url("vpc");
    let modules_host = private.trim_end_matches("/vpc.git").to_string();
    let with_token = modules_host.replace("http://", &format!("http://renovate:{MODULE_TOKEN}@"));
    let insteadof = format!("url.{with_token}/.insteadOf");
    let git_auth = [
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", insteadof.as_str()),
        ("GIT_CONFIG_VALUE_0", &format!("{modules_host}/")),
    ];

    let server = GitServer::start();
    let repo = server.repo("infra");
    git(&repo.bare, &["config", "http.receivepack", "true"]);
    for (path, content) in files(&private) {
        repo.write(path, &content);
    }
    terraform_locks(&repo.work, &proxy.url(), &cli_config, &git_auth);
    repo.commit("infrastructure");
    modules.reset_counts();

    let forge = FakeGitea::start("acme", "infra", &server.url("infra"), TOKEN);
    let host_rules = serde_json::json!([{
        "matchHost": modules_host,
        "username": "renovate",
        "password": MODULE_TOKEN,
    }])
    .to_string();
    let output = run_renovate(&forge, &proxy, scratch, &cli_config, &host_rules);
    assert!(output.status.success(), "{}", log_tail(&output));
    // The config.js of docs/renovate.md names variables the bot does not have (TFSUM_SHARED_CACHE,
    // TF_TOKEN_…, TF_VAR_…): they are left out, not handed over as `undefined`, which
    // Renovate 44 reports as "Invalid `customEnvVariables.NAME` configuration".
    let log = String::from_utf8_lossy(&output.stdout);
    assert!(
        !log.contains("customEnvVariables."),
        "Renovate refused part of config.js:\n{}",
        log.lines()
            .filter(|l| l.contains("customEnvVariables"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // What reached the private host while Renovate (and tfsum under it) ran.
    let module_requests = modules.requests();
    // Everything went to the fakes: nothing Renovate or tfsum asked for lies outside.
    let tunnels = proxy.seen();
    let ours = [
        "CONNECT registry.test:443 ".to_string(),
        format!("CONNECT {host} "),
    ];
    assert!(
        tunnels
            .iter()
            .all(|t| ours.iter().any(|o| t.starts_with(o))),
        "{tunnels:#?}"
    );

    let branches = git(&repo.bare, &["branch", "--format=%(refname:short)"]);
    let branch = branches
        .lines()
        .find(|b| b.starts_with("renovate/"))
        .unwrap_or_else(|| panic!("no renovate branch in {branches:?}\n{}", log_tail(&output)))
        .to_string();
    let pulls = forge.pulls();
    assert_eq!(pulls.len(), 1, "{pulls:#?}\n{:#?}", forge.seen());
    assert_eq!(pulls[0]["head"]["ref"], branch.as_str());
    assert_eq!(
        show(&repo.bare, &branch, "modules/net/versions.tf"),
        aws("~> 5.0").trim_end()
    );

    // Terraform's lock files for the branch's configuration, from scratch.
    let oracle = tempfile::TempDir::new().expect("oracle tree");
    for (path, _) in files(&private) {
        let file = oracle.path().join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, show(&repo.bare, &branch, path) + "\n").expect("write");
    }
    terraform_locks(oracle.path(), &proxy.url(), &cli_config, &git_auth);
    for (root, changes) in ROOTS {
        let lock = format!("{root}/{LOCK}");
        let pushed = show(&repo.bare, &branch, &lock);
        let before = show(&repo.bare, "main", &lock);
        let expected = terraform::read_lock_file(&oracle.path().join(root));
        assert_eq!(pushed, expected.trim_end(), "{lock}");
        assert_eq!(pushed != before, *changes, "{lock} changed: {}", !changes);
    }
    // tfsum read the bot's TFSUM_CACHE_DIR: customEnvVariables handed it on.
    assert!(
        scratch.join("tfsum-cache").is_dir(),
        "{}",
        log_tail(&output)
    );

    // tfsum fetched the private module with its token (Renovate itself only lists its
    // tags), and the token went nowhere else.
    let expected = modules_auth(MODULE_TOKEN);
    let fetched = module_requests
        .iter()
        .filter(|r| r.kind == GitRequest::Fetch && r.authorization.as_deref() == Some(&expected))
        .count();
    assert!(fetched > 0, "{module_requests:#?}\n{}", log_tail(&output));
    let leaked = |text: &str| text.contains(MODULE_TOKEN) || text.contains(&expected[6..]);
    for request in server.requests() {
        assert!(
            !request.authorization.as_deref().is_some_and(leaked),
            "{request:?}"
        );
    }
    for request in registry.requests() {
        assert!(
            !request.headers.iter().any(|(_, v)| leaked(v)),
            "{request:?}"
        );
    }
    assert!(!forge.seen().iter().any(|line| leaked(line)));
}

/// The `Authorization` header of the user `renovate` with `password`.
fn modules_auth(password: &str) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("renovate:{password}"));
    format!("Basic {encoded}")
}
