//! The HCL shapes corpus (`testdata/hcl-shapes/`): real-world syntax that Terraform v1.0.3
//! loads and that tfsum's parser once rejected or misread (`vendor/README.md` lists the
//! parser fixes). tfsum locks every shape in one `-r` run; each lock file must be
//! byte-identical to the one `terraform providers lock` writes for that root.

use std::path::Path;

use crate::resolution::{self, provider_block, PLATFORMS};
use crate::support::terraform::repo_root;
use crate::tfsum;
use crate::twin::Twin;

/// Every directory of the corpus, sorted: each is a root module.
fn shapes() -> Vec<String> {
    let dir = repo_root().join("testdata/hcl-shapes");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_shape_locks_as_terraform_does() {
    let registry = resolution::registry();
    let repo = Twin::fixture(&registry, "hcl-shapes");
    let out = repo.tfsum_lock_all(PLATFORMS);
    tfsum::assert_ok(&out);

    let shapes = shapes();
    assert!(shapes.len() >= 11, "{shapes:?}");
    assert_eq!(repo.locked_dirs(), shapes, "{}", tfsum::text(&out));
    let locks: Vec<String> = shapes
        .iter()
        .map(|shape| repo.assert_root_matches(shape, PLATFORMS))
        .collect();

    // The two shapes where a parser could accept the file yet read the wrong providers.
    let lock = |name: &str| &locks[shapes.iter().position(|s| s == name).unwrap()];
    let host = registry.host();
    let null = provider_block(
        lock("repeated-object-key"),
        &format!("{host}/hashicorp/null"),
    );
    assert!(
        null.contains("constraints = \"3.1.1\""),
        "the later version wins:\n{null}"
    );
    let aws = provider_block(
        lock("empty-heredoc-swallow"),
        &format!("{host}/hashicorp/aws"),
    );
    assert!(aws.contains("version     = \"5.30.0\""), "{aws}");
}

/// Differential check of tfsum's parser against Terraform's: every file of a corpus goes
/// through tfsum's per-file reader and through `terraform fmt -` (Terraform 1.0.3's own
/// HCL parser; it needs no `init`). Prints every disagreement; fails on a file Terraform
/// accepts and tfsum rejects, unless it hits hcl-edit's documented nesting limits
/// (`vendor/README.md`, "Known differences that remain").
///
/// The corpus is the fuzzer's (`fuzz/corpus/config_load`, after `fuzz/run.sh`) plus every
/// `.tf` file under `testdata/`; `TFSUM_DIFF_CORPUS` (directories separated by `:`)
/// replaces it. JSON syntax is not compared: `terraform fmt` does not read it.
#[test]
#[ignore = "slow: one Terraform process per file; run with --ignored"]
fn differential_against_terraform() {
    let root = repo_root();
    let dirs: Vec<std::path::PathBuf> = match std::env::var_os("TFSUM_DIFF_CORPUS") {
        Some(list) => std::env::split_paths(&list).collect(),
        None => vec![root.join("fuzz/corpus/config_load"), root.join("testdata")],
    };
    let mut files: Vec<std::path::PathBuf> = dirs
        .iter()
        .flat_map(|dir| {
            walkdir::WalkDir::new(dir)
                .into_iter()
                .filter_map(Result::ok)
        })
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| entry.into_path())
        // Native syntax only; fuzzer corpus entries have no extension.
        .filter(|path| path.extension().is_none_or(|ext| ext == "tf"))
        .collect();
    files.sort();

    let (mut agree, mut known, mut skipped) = (0, 0, 0);
    let (mut stricter, mut lenient) = (Vec::new(), Vec::new());
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            skipped += 1; // not UTF-8: the loader refuses it before parsing
            continue;
        };
        let ours = match ::tfsum::internals::check_file(
            Path::new("main.tf"),
            &text,
            "registry.terraform.io",
        ) {
            Err(::tfsum::internals::ConfigError::Syntax { line, message, .. }) => {
                Err(format!("{line}: {message}"))
            }
            // Anything past the syntax (a bad source address, say) parsed.
            Err(_) | Ok(()) => Ok(()),
        };
        let theirs = terraform_fmt(&text);
        match (ours, theirs) {
            (Ok(()), Ok(())) | (Err(_), Err(_)) => agree += 1,
            (Err(ours), Ok(())) if KNOWN_LIMITS.iter().any(|limit| ours.contains(limit)) => {
                known += 1
            }
            (Err(ours), Ok(())) => stricter.push(format!("{}: tfsum: {ours}", path.display())),
            (Ok(()), Err(theirs)) => {
                lenient.push(format!("{}: terraform: {theirs}", path.display()))
            }
        }
    }
    println!(
        "{} files: {agree} agree, {known} beyond hcl-edit's nesting limits, {} only tfsum rejects, \
         {} only Terraform rejects, {skipped} not UTF-8",
        files.len(),
        stricter.len(),
        lenient.len()
    );
    for line in lenient.iter().chain(&stricter) {
        println!("{line}");
    }
    assert!(
        stricter.is_empty(),
        "tfsum rejects what Terraform accepts:\n{}",
        stricter.join("\n")
    );
}

/// hcl-edit's limits against stack exhaustion, kept deliberately (`vendor/README.md`).
const KNOWN_LIMITS: &[&str] = &["nested levels", "chained binary operators"];

/// `terraform fmt -` on `text`: `Err` with Terraform's first error line if it does not parse.
fn terraform_fmt(text: &str) -> Result<(), String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new(crate::support::terraform::binary())
        .args(["fmt", "-no-color", "-"])
        .env("CHECKPOINT_DISABLE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start terraform fmt");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // Terraform may stop reading early; its verdict comes from the exit status.
    let _ = stdin.write_all(text.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().expect("terraform fmt");
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Err(stderr
        .lines()
        .find(|line| line.contains("Error"))
        .unwrap_or("error")
        .trim()
        .to_string())
}
