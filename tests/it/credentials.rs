//! Private registries (spec §8): a host that requires a token works with each place a
//! token can come from, fails clearly without one, and never sees its token sent to the
//! download host; and one run serves roots whose providers live on three hosts.
//!
//! A host with a port (`127.0.0.1:PORT`) cannot be named by a shell-settable
//! `TF_TOKEN_…` variable, but the name may contain `:` when set directly, as here;
//! the `__`/`_` mangling itself is tabulated in `registry::cliconfig`'s unit tests.

use std::path::Path;
use std::process::Output;

use pretty_assertions::assert_eq;
use tempfile::TempDir;

use crate::support::fake_registry::{FakeRegistry, RegistryHandle, UrlStyle};
use crate::support::terraform;
use crate::tfsum;

const TOKEN: &str = "s3cret-token";

fn private_registry() -> FakeRegistry {
    let registry = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(&["linux_amd64", "darwin_arm64"])
        .url_style(UrlStyle::OtherHost)
        .start();
    registry.require_token(Some(TOKEN));
    registry
}

fn config(registry: &RegistryHandle) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    null = {{ source = \"{}\" }}\n  }}\n}}\n",
        registry.source("hashicorp", "null")
    )
}

/// Where the token comes from in one run; `home` is that run's HOME.
enum Credential {
    /// `credentials "HOST"` in the file `TF_CLI_CONFIG_FILE` names.
    Block,
    /// `~/.terraform.d/credentials.tfrc.json`, with the `host` block in `~/.terraformrc`
    /// (the config dir is read only without `TF_CLI_CONFIG_FILE`).
    CredentialsJson,
    /// `TF_TOKEN_127_0_0_1:PORT`.
    EnvVar,
    None,
}

/// Runs `tfsum lock --platform linux_amd64 --platform darwin_arm64 .` in `dir` with
/// the token (or `token_value`) supplied as `how` says.
fn lock_with(
    registry: &RegistryHandle,
    dir: &Path,
    how: &Credential,
    token_value: &str,
) -> (Output, TempDir) {
    let scratch = TempDir::new().unwrap();
    let home = scratch.path().join("home");
    std::fs::create_dir_all(home.join(".terraform.d")).unwrap();
    let cli = scratch.path().join("cli.tfrc");
    let mut command = tfsum::command(dir, &cli, scratch.path());
    command.args([
        "lock",
        "--platform=linux_amd64",
        "--platform=darwin_arm64",
        ".",
    ]);
    match how {
        Credential::Block => {
            std::fs::write(&cli, registry.cli_config_with_token(token_value)).unwrap();
        }
        Credential::CredentialsJson => {
            std::fs::write(home.join(".terraformrc"), registry.cli_config()).unwrap();
            let json =
                serde_json::json!({"credentials": {registry.host(): {"token": token_value}}});
            std::fs::write(
                home.join(".terraform.d/credentials.tfrc.json"),
                json.to_string(),
            )
            .unwrap();
            command.env_remove("TF_CLI_CONFIG_FILE");
        }
        Credential::EnvVar => {
            std::fs::write(&cli, registry.cli_config()).unwrap();
            let name = format!("TF_TOKEN_{}", registry.host().replace('.', "_"));
            command.env(name, token_value);
        }
        Credential::None => {
            std::fs::write(&cli, registry.cli_config()).unwrap();
        }
    }
    let out = command.output().expect("run tfsum");
    (out, scratch)
}

#[test]
fn each_credential_source_succeeds_and_the_token_stays_home() {
    let registry = private_registry();
    let mut locks = Vec::new();
    for how in [
        Credential::Block,
        Credential::CredentialsJson,
        Credential::EnvVar,
    ] {
        registry.reset_counts();
        let root = terraform::module_dir(&[("main.tf", &config(&registry))], "");
        let (out, _scratch) = lock_with(&registry, root.path(), &how, TOKEN);
        tfsum::assert_ok(&out);
        locks.push(terraform::read_lock_file(root.path()));

        let requests = registry.requests();
        let downloads: Vec<_> = requests
            .iter()
            .filter(|r| r.path.starts_with("/files/"))
            .collect();
        // Two zips, SHA256SUMS and its signature, from the other hostname.
        assert_eq!(downloads.len(), 4, "{requests:#?}");
        for request in &requests {
            let api = request.path.starts_with("/v1/");
            let auth = request.header("authorization");
            if api {
                assert_eq!(
                    auth,
                    Some(format!("Bearer {TOKEN}").as_str()),
                    "{}",
                    request.path
                );
            } else {
                assert_eq!(auth, None, "token sent to {}", request.path);
                let host = request.header("host").unwrap_or_default();
                assert!(
                    host.starts_with("localhost:"),
                    "{} via {host}",
                    request.path
                );
            }
        }
    }
    assert_eq!(locks[0], locks[1]);
    assert_eq!(locks[0], locks[2]);
    assert_eq!(locks[0].matches("\"h1:").count(), 2, "{}", locks[0]);
}

#[test]
fn refusals_name_the_host_and_the_credential_tried() {
    let registry = private_registry();
    let host = registry.host();
    let env_name = format!("TF_TOKEN_{}", host.replace('.', "_"));
    let cases = [
        (
            Credential::None,
            "no credentials are configured for this host (set TF_TOKEN_<host> or add a credentials block to the CLI configuration)".to_string(),
        ),
        (
            Credential::Block,
            "the token from credentials block in ".to_string(),
        ),
        (
            Credential::CredentialsJson,
            "credentials.tfrc.json was sent".to_string(),
        ),
        (Credential::EnvVar, format!("the token from {env_name} was sent")),
    ];
    for (how, want) in cases {
        let root = terraform::module_dir(&[("main.tf", &config(&registry))], "");
        let (out, _scratch) = lock_with(&registry, root.path(), &how, "wrong-token");
        let text = tfsum::text(&out);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            text.contains(&format!("host {host} refused the request")),
            "{text}"
        );
        assert!(text.contains("401 Unauthorized"), "{text}");
        assert!(text.contains(&want), "want {want:?} in {text}");
        assert!(!text.contains("wrong-token"), "the token leaked: {text}");
        assert!(!root.path().join(".terraform.lock.hcl").exists());
    }
}

/// Three registries, two of them private with different tokens, one run over three
/// roots (one of which uses two hosts); each root's lock is what Terraform writes.
/// Terraform 1.0.3 predates `TF_TOKEN_*`, so it gets credentials blocks for both.
#[test]
fn one_run_three_hosts() {
    let build = |ns: &str, ty: &str| {
        FakeRegistry::builder()
            .provider(ns, ty)
            .version("1.0.0")
            .platforms(&["linux_amd64", "darwin_arm64"])
            .version("1.1.0")
            .platforms(&["linux_amd64", "darwin_arm64"])
            .start()
    };
    let public = build("hashicorp", "null");
    let by_env = build("acme", "widget");
    let by_block = build("corp", "thing");
    by_env.require_token(Some("env-token"));
    by_block.require_token(Some("block-token"));

    let hosts = format!(
        "{}{}{}credentials \"{}\" {{\n  token = \"block-token\"\n}}\n",
        public.cli_config(),
        by_env.cli_config(),
        by_block.cli_config(),
        by_block.host()
    );
    let terraform_cli = format!(
        "{hosts}credentials \"{}\" {{\n  token = \"env-token\"\n}}\n",
        by_env.host()
    );
    let root = |sources: &[(&str, String, &str)]| {
        let mut text = String::from("terraform {\n  required_providers {\n");
        for (name, source, constraint) in sources {
            text.push_str(&format!(
                "    {name} = {{ source = \"{source}\", version = \"{constraint}\" }}\n"
            ));
        }
        text.push_str("  }\n}\n");
        text
    };
    let roots = [
        (
            "a",
            root(&[("null", public.source("hashicorp", "null"), "~> 1.0")]),
        ),
        (
            "b",
            root(&[("widget", by_env.source("acme", "widget"), "1.0.0")]),
        ),
        (
            "c",
            root(&[
                ("thing", by_block.source("corp", "thing"), ">= 1.0"),
                ("null", public.source("hashicorp", "null"), "1.0.0"),
            ]),
        ),
    ];
    let files: Vec<(String, &str)> = roots
        .iter()
        .map(|(dir, text)| (format!("{dir}/main.tf"), text.as_str()))
        .collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    let repo = terraform::module_dir(&files, "");

    let scratch = TempDir::new().unwrap();
    let cli = scratch.path().join("cli.tfrc");
    std::fs::write(&cli, &hosts).unwrap();
    let env_name = format!("TF_TOKEN_{}", by_env.host().replace('.', "_"));
    let out = tfsum::run_with(
        repo.path(),
        &cli,
        scratch.path(),
        &["lock", "-r", "--platform=linux_amd64,darwin_arm64", "."],
        &[(&env_name, "env-token")],
    );
    tfsum::assert_ok(&out);

    let tf_cli = scratch.path().join("terraform.tfrc");
    std::fs::write(&tf_cli, terraform_cli).unwrap();
    for (dir, text) in &roots {
        let copy = terraform::module_dir(&[("main.tf", text)], "");
        let out = terraform::run(
            copy.path(),
            &tf_cli,
            &[
                "providers",
                "lock",
                "-no-color",
                "-platform=linux_amd64",
                "-platform=darwin_arm64",
            ],
        );
        terraform::assert_success(&out, "terraform providers lock");
        assert_eq!(
            terraform::read_lock_file(&repo.path().join(dir)),
            terraform::read_lock_file(copy.path()),
            "root {dir}: tfsum (left) vs Terraform (right)"
        );
    }
}
