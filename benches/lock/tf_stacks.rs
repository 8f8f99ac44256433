//! The Terraform Stacks scenario of `make bench` (issue 47): a repository of HCP
//! Terraform stacks, locked cold and then warm, as a pre-commit hook or CI runs it.
//!
//! [`STACKS`] stacks under `stacks/`, each with three components from local modules
//! (`modules/network`, `modules/app`, `modules/data`), one component from a module
//! registry (`version = "~> 1.0"`), and a local embedded stack (`shared/`) with a
//! provider of its own; every stack gets one lock file holding `null`, `random` and
//! `time`, and no module directory gets one.

use std::path::Path;
use std::time::Duration;

use crate::report::{seconds, Outcome, Target};
use crate::stacks::{cold_then_warm, run_tfsum};
use crate::support::fake_modules::FakeModuleRegistry;
use crate::support::fake_registry::FakeRegistry;

/// Stacks in the repository.
const STACKS: usize = 30;
const LOCK_FILE: &str = ".terraform.lock.hcl";

fn module(name: &str) -> String {
    format!("resource \"{name}_thing\" \"this\" {{}}\n")
}

fn required(providers: &[&str]) -> String {
    let entries: String = providers
        .iter()
        .map(|p| {
            format!("  {p} = {{\n    source  = \"hashicorp/{p}\"\n    version = \">= 0.1\"\n  }}\n")
        })
        .collect();
    let blocks: String = providers
        .iter()
        .map(|p| format!("provider \"{p}\" \"this\" {{}}\n"))
        .collect();
    format!("required_providers {{\n{entries}}}\n\n{blocks}")
}

fn component(name: &str, source: &str, version: Option<&str>, provider: &str) -> String {
    let version = version
        .map(|v| format!("  version = \"{v}\"\n"))
        .unwrap_or_default();
    format!(
        "\ncomponent \"{name}\" {{\n  source = \"{source}\"\n{version}  providers = {{\n    {provider} = provider.{provider}.this\n  }}\n}}\n"
    )
}

/// The stacks whose lock file is missing, not in the stacks form, or without one of its
/// providers; and every module directory that got one.
fn wrong(repo: &Path) -> Vec<String> {
    let mut out: Vec<String> = (0..STACKS)
        .map(|i| format!("stacks/s{i:02}"))
        .filter(|stack| {
            let lock =
                std::fs::read_to_string(repo.join(stack).join(LOCK_FILE)).unwrap_or_default();
            !lock.starts_with(
                "# This file is maintained automatically by \"terraform stacks providers-lock\".",
            ) || ["null", "random", "time"]
                .iter()
                .any(|p| !lock.contains(&format!("/hashicorp/{p}\"")))
        })
        .collect();
    for dir in ["modules/network", "modules/app", "modules/data", "shared"] {
        if repo.join(dir).join(LOCK_FILE).exists() {
            out.push(dir.to_owned());
        }
    }
    out
}

pub fn run(bin: &Path, work: &Path, timeout: Duration) -> Outcome {
    let mut outcome = Outcome::passing();
    let providers = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .provider("hashicorp", "random")
        .version("3.6.0")
        .provider("hashicorp", "time")
        .version("0.11.1")
        .start();
    let modules = FakeModuleRegistry::builder()
        .module("bench", "dns", "null")
        .version("1.0.0")
        .file("main.tf", &module("null"))
        .version("1.2.0")
        .file("main.tf", &module("null"))
        .start();
    let base = work.join("tf-stacks");
    let repo = base.join("repo");
    let setup = || -> std::io::Result<()> {
        std::fs::create_dir_all(base.join("home"))?;
        std::fs::create_dir_all(repo.join(".git"))?;
        let cli = format!(
            "{}host \"registry.terraform.io\" {{\n  services = {{\n    \"providers.v1\" = \"{}\"\n  }}\n}}\n",
            modules.cli_config(),
            providers.providers_url()
        );
        std::fs::write(base.join("cli.tfrc"), cli)?;
        let mut files = vec![
            ("modules/network/main.tf".to_owned(), module("null")),
            ("modules/app/main.tf".to_owned(), module("random")),
            ("modules/data/main.tf".to_owned(), module("null")),
            ("modules/clock/main.tf".to_owned(), module("time")),
            (
                "shared/shared.tfcomponent.hcl".to_owned(),
                format!(
                    "{}{}",
                    required(&["time"]),
                    component("clock", "../modules/clock", None, "time")
                ),
            ),
        ];
        let dns = format!("{}/bench/dns/null", modules.host());
        for i in 0..STACKS {
            let text = format!(
                "{}{}{}{}{}\nstack \"shared\" {{\n  source = \"../../shared\"\n}}\n",
                required(&["null", "random"]),
                component("network", "../../modules/network", None, "null"),
                component("app", "../../modules/app", None, "random"),
                component("data", "../../modules/data", None, "null"),
                component("dns", &dns, Some("~> 1.0"), "null"),
            );
            files.push((format!("stacks/s{i:02}/components.tfcomponent.hcl"), text));
            files.push((
                format!("stacks/s{i:02}/deployments.tfdeploy.hcl"),
                "deployment \"prod\" {\n  inputs = {}\n}\n".to_owned(),
            ));
        }
        for (rel, text) in files {
            let path = repo.join(rel);
            std::fs::create_dir_all(path.parent().unwrap_or(&repo))?;
            std::fs::write(path, text)?;
        }
        Ok(())
    };
    if let Err(e) = setup() {
        outcome
            .notes
            .push(format!("terraform stacks: setup failed: {e}"));
        outcome.ok = false;
        return outcome;
    }
    let median = cold_then_warm(
        &mut outcome,
        "Terraform Stacks",
        STACKS,
        |index| {
            let logs = base.join(format!("tfsum-{index}"));
            run_tfsum(bin, &base, &repo, ".", &logs, timeout)
        },
        || wrong(&repo),
    );
    outcome.targets = vec![Target {
        goal: "Terraform Stacks: warm run well under 0.1 s",
        measured: median.map_or_else(|| "-".to_owned(), seconds),
        met: median.map(|wall| wall < Duration::from_millis(100)),
    }];
    outcome.notes.push(format!(
        "Terraform Stacks: {STACKS} stacks, each with three local components, a registry component and a local embedded stack; {STACKS} lock files; platform linux_amd64"
    ));
    outcome
}
