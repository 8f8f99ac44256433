//! The manual's configuration blocks, checked by the tools that read them: settings
//! files by tfsum, Renovate's configuration by Renovate's validator; and an inventory
//! that no kind of block goes unchecked.

use super::examples;
use super::markdown::user_docs;
use crate::support::terraform::repo_root;

/// Which tool checks each kind of fenced block of README.md and docs/, so that none
/// goes unchecked by accident: `console` runs, `json` is a report (`schema=`) or a
/// Renovate configuration, `js` Renovate's global configuration, `toml` a settings file,
/// `yaml` a pre-commit configuration or a workflow (tests/packaging/test_docs.py). The
/// other kinds are listed here as not checked, each for a reason.
#[test]
fn every_block_kind_is_checked() {
    // Not run: `text` is not tfsum's output (another tool's, a drawing, a benchmark of
    // repositories the tests do not build); `sh` and `gitignore` show commands and
    // patterns, no output; `hcl` needs a module source the tests do not serve.
    let unchecked = ["text", "sh", "gitignore", "hcl"];
    let mut problems = Vec::new();
    // docs/spec/ quotes the formats of other tools, the facts tfsum follows.
    for doc in user_docs()
        .into_iter()
        .filter(|d| !d.path.starts_with("docs/spec"))
    {
        for block in doc.blocks() {
            let at = format!("{}:{}", doc.name(), block.fence_line + 1);
            let checked = match block.info.as_str() {
                "console" | "js" | "toml" | "yaml" => true,
                "json" => {
                    block.attr("schema").is_some() || block.body().contains("\"packageRules\"")
                }
                other => unchecked.contains(&other),
            };
            if !checked {
                problems.push(format!(
                    "{at}: a ```{} block no test checks (tests/it/docs.rs, every_block_kind_is_checked)",
                    block.info
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every ```` ```toml ```` block of README.md and docs/ is a settings file tfsum accepts:
/// written as the repository's `.tfsum.toml` (or, when its first line names
/// `config.toml`, as the user's own) in an empty repository, `tfsum lock -r --check .`
/// exits 0.
#[test]
fn settings_examples_are_accepted() {
    let registries = examples::Registries::start();
    let mut checked = 0;
    let mut problems = Vec::new();
    for doc in user_docs() {
        for block in doc.blocks().into_iter().filter(|b| b.info == "toml") {
            let sb = examples::Sandbox::new(&registries.handles());
            let body = block.body();
            let user = block
                .lines
                .first()
                .is_some_and(|l| l.starts_with('#') && l.contains("config.toml"));
            let file = if user {
                sb.home().join(".config/tfsum/config.toml")
            } else {
                sb.repo().join(".tfsum.toml")
            };
            std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&file, &body).expect("write the settings");
            let out = sb.tfsum_env(&["lock", "-r", "--check", "."], &[]);
            checked += 1;
            if !out.status.success() {
                problems.push(format!(
                    "{}:{}: tfsum refuses it:\n{}{}",
                    doc.name(),
                    block.fence_line + 1,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(checked >= 4, "only {checked} settings blocks found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Renovate's own validator (`renovate-config-validator --strict`, from the Renovate
/// `make renovate` installs) accepts the Renovate configuration the docs show: every
/// ```` ```json ```` block with `packageRules` as a repository's `renovate.json`
/// (`--no-global`), every ```` ```js ```` block as the bot's `config.js`.
#[test]
fn renovate_examples_are_valid() {
    let prefix = repo_root().join("target/tools/renovate");
    let validator = prefix.join("node_modules/renovate/dist/config-validator.js");
    assert!(
        validator.is_file(),
        "Renovate not found at {}: run scripts/fetch-renovate.sh (make test does)",
        validator.display()
    );
    let scratch = tempfile::TempDir::new().expect("scratch");
    let mut checked = 0;
    let mut problems = Vec::new();
    for doc in user_docs() {
        for block in doc.blocks() {
            let (name, global) = match block.info.as_str() {
                "json" if block.body().contains("\"packageRules\"") => ("renovate.json", false),
                "js" => ("config.js", true),
                _ => continue,
            };
            checked += 1;
            let file = scratch.path().join(format!("{checked}-{name}"));
            std::fs::write(&file, block.body()).expect("write the configuration");
            let mut command = std::process::Command::new(prefix.join("bin/node"));
            command.arg(&validator).arg("--strict");
            if !global {
                command.arg("--no-global");
            }
            command
                .arg(&file)
                .current_dir(scratch.path())
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("HOME", scratch.path())
                .env("LOG_LEVEL", "warn");
            let out = crate::support::deadline::output_within(
                &mut command,
                std::time::Duration::from_secs(120),
            );
            if !out.status.success() {
                problems.push(format!(
                    "{}:{}: renovate-config-validator refuses it:\n{}{}",
                    doc.name(),
                    block.fence_line + 1,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(checked >= 3, "only {checked} Renovate blocks found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// tfsum's output is shown only in console examples: a line of a code block (fenced or
/// indented) outside them that reads like a report line (`created   envs/dev`, `3 roots:
/// …`, `error: …`) would not be checked, so it fails here until it is made an example.
#[test]
fn output_is_shown_only_in_examples() {
    let report = regex::Regex::new(
        r"^(?:(?:created|updated|unchanged|failed|verified|would create|would update|up to date|edited) +\S|\d+ (?:roots?|lock files?|provider rows?): |(?:error|warning|note): )",
    )
    .expect("regex");
    let mut problems = Vec::new();
    for doc in user_docs()
        .into_iter()
        .filter(|d| !d.path.starts_with("docs/spec"))
    {
        let lines: Vec<&str> = doc.text.lines().collect();
        let mut fenced = vec![false; lines.len()];
        for block in doc.blocks() {
            let end = (block.fence_line + block.lines.len() + 2).min(lines.len());
            for (n, flag) in fenced[block.fence_line..end].iter_mut().enumerate() {
                *flag = true;
                let Some(line) = block.lines.get(n.wrapping_sub(1)) else {
                    continue;
                };
                if n >= 1 && block.info != "console" && report.is_match(line) {
                    problems.push(format!(
                        "{}:{}: {line}",
                        doc.name(),
                        block.fence_line + n + 1
                    ));
                }
            }
        }
        for (n, line) in lines.iter().enumerate() {
            if let Some(code) = line.strip_prefix("    ") {
                if !fenced[n] && report.is_match(code) {
                    problems.push(format!("{}:{}: {code}", doc.name(), n + 1));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "lines that read like tfsum's output outside a console example:\n{}",
        problems.join("\n")
    );
}
