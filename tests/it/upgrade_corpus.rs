//! `tfsum upgrade --no-lock` against tfupdate 0.10.2's recorded rewrites
//! (`testdata/upgrade/`, layout in its README): for every recording, the same edit on a
//! copy of the input must leave every file byte for byte as tfupdate left it, except
//! where tfsum deliberately differs. Each such recording is listed in [`DIFFERS`] with
//! the reason (docs/spec/upgrade.md §5, docs/upgrade.md "How tfsum upgrade differs from tfupdate"),
//! and for those the test still checks that tfsum either failed or changed only files
//! tfupdate changed too, unless the reason says otherwise.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::terraform::repo_root;

// Why tfsum differs, one reason per behaviour (docs/upgrade.md "How tfsum upgrade differs
// from tfupdate"; docs/spec/upgrade.md §5).
const ADDRESSES: &str = "provider sources are compared as Terraform compares them (default host, case folded, an entry without a source is hashicorp/NAME); tfupdate compares the strings";
const PROVIDER_BLOCKS: &str =
    "with a source address, the provider blocks of the local names it resolves to are edited too";
const REFORMAT: &str =
    "tfupdate reformats the whole (unformatted) file; tfsum changes the value only";
const TABS: &str = "tfupdate rewrites files with tabs between tokens even when nothing in them matched; tfsum writes only files it edits";
const BOM: &str = "tfsum keeps the byte order mark; tfupdate drops it";
const DIALECT: &str = "upgrade terraform edits the files Terraform reads, upgrade opentofu the files OpenTofu reads (a .tofu file replaces its .tf twin); tfupdate edits .tf and .tofu alike";
const EXPRESSIONS: &str = "a constraint that is an expression is named as not editable and left; tfupdate fails, panics, or replaces it with a string";
const VALIDATED: &str = "tfsum rejects a CONSTRAINT or SOURCE that is not one before anything is written; tfupdate writes it verbatim";
const DEFAULT_PATH: &str = "PATH defaults to the current directory";
const NO_CONFIGURATION: &str =
    "as for tfsum lock, a PATH without configuration files is an error unless -r";
const ALL_OR_NONE: &str = "a file that does not parse stops the run before anything is written; tfupdate had written the files before it";
const NO_LOCK_READ: &str = "with --no-lock no lock file is read";
const DOT_TERRAFORM: &str = "tfsum never edits under .terraform/ (downloaded modules)";
const NOT_CONFIGURATION: &str =
    "tfsum edits configuration files only (*.tf, *.tofu, *.tf.json, *.tofu.json)";
const HIDDEN_FILES: &str =
    "Terraform ignores hidden files such as .backend.tf, so tfsum does not edit them";
const LOCAL_MODULES: &str = "the local modules a root calls are part of its configuration: tfsum edits them too, so the relocked tree agrees";
const PACKAGES: &str = "a registry module is matched as Terraform reads it (default host, case folded) with every //subdir of the package unless SOURCE names one";
const REPOSITORIES: &str = "a git module is matched by the repository it names (any spelling, any //subdir unless SOURCE names one); the ref is edited wherever it is in the query, keeping the other parameters and its own v or not; a ref must be one version";
const PANICS: &str = "tfsum edits the value; tfupdate panics";
const MIXED: &str =
    "tfsum edits the string entry; tfupdate inserts an invalid `hashicorp / aws` attribute";
const ALL_BLOCKS: &str =
    "every required_providers block is edited, not only the first of a terraform block";
const JSON: &str = "tfsum edits .tf.json and .tofu.json files too; tfupdate does not read them";
const NOT_TRANSLATED: &str = "no tfsum equivalent (tfupdate lock, an unknown subcommand): tfsum relocks itself, checked against Terraform";

/// Recordings tfsum does not reproduce on purpose, with why.
const DIFFERS: &[(&str, &str)] = &[
    ("alignment/provider-aws", REFORMAT),
    ("alignment/provider-aws-same", REFORMAT),
    ("alignment/provider-google", REFORMAT),
    ("alignment/provider-random-legacy", REFORMAT),
    ("alignment/provider-random-same", REFORMAT),
    ("alignment/terraform-exact", REFORMAT),
    ("alignment/terraform-same", REFORMAT),
    ("byte-order-mark/provider-aws", BOM),
    ("byte-order-mark/terraform-exact", BOM),
    ("cli-errors/module-not-a-constraint", VALIDATED),
    ("cli-errors/provider-missing-path", DEFAULT_PATH),
    ("cli-errors/provider-not-a-constraint", VALIDATED),
    ("cli-errors/provider-quote-in-version", VALIDATED),
    ("cli-errors/terraform-not-a-constraint", VALIDATED),
    ("cli-errors/terraform-quote-in-version", VALIDATED),
    ("cli-errors/unknown-subcommand", NOT_TRANSLATED),
    ("expressions/module-vpc-var", EXPRESSIONS),
    ("expressions/provider-aws-legacy-var", EXPRESSIONS),
    ("expressions/provider-aws-object-null", EXPRESSIONS),
    ("expressions/provider-aws-object-template", EXPRESSIONS),
    ("expressions/provider-aws-object-var", EXPRESSIONS),
    ("expressions/provider-aws-provider-block-var", EXPRESSIONS),
    ("expressions/provider-aws-recursive", EXPRESSIONS),
    ("expressions/terraform-var", EXPRESSIONS),
    ("invalid-hcl/provider-aws-broken-lock", NO_LOCK_READ),
    ("invalid-hcl/provider-aws-stack", ALL_OR_NONE),
    ("legacy-string-form/provider-hashicorp-aws", ADDRESSES),
    ("lock-offline/lock-no-lock-file", NOT_TRANSLATED),
    ("lock-offline/lock-pinned", NOT_TRANSLATED),
    ("lock-offline/lock-ranged", NOT_TRANSLATED),
    ("lock-offline/lock-recursive", NOT_TRANSLATED),
    ("mixed-legacy-and-object/provider-hashicorp-aws", MIXED),
    ("modules-git/module-github-shorthand", REPOSITORIES),
    ("modules-git/module-https", REPOSITORIES),
    ("modules-git/module-https-repo-root", REPOSITORIES),
    ("modules-git/module-no-v-ref", REPOSITORIES),
    ("modules-git/module-prerelease", REPOSITORIES),
    ("modules-git/module-regex-everything", REPOSITORIES),
    ("modules-git/module-regex-repo", REPOSITORIES),
    ("modules-git/module-scp-like", REPOSITORIES),
    ("modules-git/module-ssh-url", REPOSITORIES),
    ("modules-git/module-version-constraint", REPOSITORIES),
    ("modules-git/module-version-with-v", REPOSITORIES),
    ("modules-registry/module-full-is-not-regex", VALIDATED),
    ("modules-registry/module-iam-without-submodule", PACKAGES),
    ("modules-registry/module-local", VALIDATED),
    ("modules-registry/module-not-recursive", LOCAL_MODULES),
    ("modules-registry/module-vpc-exact", PACKAGES),
    ("modules-registry/module-vpc-explicit-host", PACKAGES),
    ("modules-registry/module-vpc-pessimistic", PACKAGES),
    ("multiple-terraform-blocks/provider-random", ALL_BLOCKS),
    ("nested-tree/provider-aws-explicit-bak", NOT_CONFIGURATION),
    ("nested-tree/provider-aws-hidden-file", DOT_TERRAFORM),
    ("nested-tree/provider-aws-hidden-root", DOT_TERRAFORM),
    ("nested-tree/provider-aws-root-only", LOCAL_MODULES),
    ("nested-tree/terraform-recursive", HIDDEN_FILES),
    ("object-form/provider-registry-hashicorp-aws", ADDRESSES),
    (
        "provider-block-version/provider-hashicorp-aws",
        PROVIDER_BLOCKS,
    ),
    (
        "provider-sources/provider-aws-not-recursive",
        NO_CONFIGURATION,
    ),
    ("provider-sources/provider-example-corp-aws", ADDRESSES),
    ("provider-sources/provider-hashicorp-aws", ADDRESSES),
    ("provider-sources/provider-mixed-case", ADDRESSES),
    (
        "provider-sources/provider-registry-hashicorp-aws",
        ADDRESSES,
    ),
    ("quirks/provider-aws-colon-syntax", PANICS),
    ("quirks/provider-aws-escaped-version", PANICS),
    ("required-version/opentofu-exact", DIALECT),
    ("required-version/terraform-exact", DIALECT),
    ("required-version/terraform-pessimistic", DIALECT),
    ("required-version/terraform-range", DIALECT),
    ("required-version/terraform-tofu-file", DIALECT),
    ("tab-whitespace/provider-absent", TABS),
    ("tab-whitespace/provider-aws", TABS),
    ("tab-whitespace/provider-aws-locals-file", TABS),
    ("tab-whitespace/terraform-nothing-to-do", TABS),
    ("tf-json/module-vpc-dir", JSON),
    ("tf-json/module-vpc-json-file", JSON),
    ("tf-json/opentofu-json-file", JSON),
    ("tf-json/provider-aws-dir", JSON),
    ("tf-json/provider-aws-json-file", JSON),
    ("tf-json/provider-aws-json-file-2", JSON),
    ("tf-json/provider-hashicorp-aws", JSON),
    ("tf-json/terraform-dir", JSON),
    ("tf-json/terraform-json-file", JSON),
];

fn corpus() -> PathBuf {
    repo_root().join("testdata/upgrade/cases")
}

/// Every file below `dir`, relative, sorted.
fn files(dir: &Path) -> BTreeSet<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e.path().strip_prefix(dir).ok()?;
            Some(rel.to_string_lossy().replace('\\', "/"))
        })
        .collect()
}

fn copy_tree(from: &Path, to: &Path) {
    for rel in files(from) {
        let target = to.join(&rel);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(from.join(&rel), &target).expect("copy");
    }
}

/// tfupdate's arguments as `tfsum upgrade … --no-lock` arguments; `None` when the
/// command has no tfsum equivalent.
fn translate(args: &[String]) -> Option<Vec<String>> {
    let (command, rest) = args.split_first()?;
    let mut constraint = None;
    let mut flags = Vec::new();
    let mut positional = Vec::new();
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-v" | "--version" => constraint = Some(words.next()?.clone()),
            "-r" | "--recursive" => flags.push("-r".to_string()),
            "-i" | "--ignore-path" => {
                flags.push("-i".to_string());
                flags.push(words.next()?.clone());
            }
            "--source-match-type" => match words.next()?.as_str() {
                "regex" => flags.push("--match=regex".to_string()),
                "full" => {}
                other => flags.push(format!("--match={other}")),
            },
            flag if flag.starts_with('-') => flags.push(flag.to_string()),
            _ => positional.push(word.clone()),
        }
    }
    let mut out = vec!["upgrade".to_string(), command.clone()];
    match command.as_str() {
        // Without a NAME the command line is incomplete, for both tools.
        "provider" | "module" => {
            if let Some((name, paths)) = positional.split_first() {
                out.push(name.clone());
                out.extend(constraint);
                out.extend(paths.iter().cloned());
            }
        }
        "terraform" | "opentofu" => {
            out.push(constraint?);
            out.extend(positional);
        }
        _ => return None,
    }
    out.extend(flags);
    out.push("--no-lock".to_string());
    Some(out)
}

/// What differs between tfsum's copy and the recording, one line per file.
fn mismatches(case: &Path, recording: &Path, copy: &Path) -> Vec<String> {
    let input = case.join("input");
    let changes = std::fs::read_to_string(recording.join("changes")).expect("changes");
    let changed: BTreeSet<String> = changes
        .lines()
        .filter_map(|l| l.split_once('\t').map(|(_, p)| p.to_string()))
        .collect();
    let mut all = files(&input);
    all.extend(files(copy));
    let mut out = Vec::new();
    for rel in all {
        let want = if changed.contains(&rel) {
            std::fs::read(recording.join("files").join(&rel)).ok()
        } else {
            std::fs::read(input.join(&rel)).ok()
        };
        let got = std::fs::read(copy.join(&rel)).ok();
        if got != want {
            out.push(rel);
        }
    }
    out
}

/// A line with every string's contents blanked and blank runs squeezed: what an edit
/// that changes values (and realigns comments) leaves as it was.
fn mask(line: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut blank = false;
    for c in line.chars() {
        if in_string {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => {
                    in_string = false;
                    out.push('"');
                }
                _ => escaped = false,
            }
            continue;
        }
        if c == ' ' || c == '\t' {
            blank = true;
            continue;
        }
        if blank {
            out.push(' ');
            blank = false;
        }
        out.push(c);
        in_string = c == '"';
    }
    out
}

/// Where tfsum's result breaks its own rule: only string contents (and blanks) change,
/// line by line; nothing at all when it failed.
fn own_rule(input: &Path, copy: &Path, failed: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut all = files(input);
    all.extend(files(copy));
    for rel in all {
        let (Ok(before), Ok(after)) = (
            std::fs::read(input.join(&rel)),
            std::fs::read(copy.join(&rel)),
        ) else {
            problems.push(format!("{rel} appeared or vanished"));
            continue;
        };
        if before == after {
            continue;
        }
        if failed {
            problems.push(format!("{rel} was written by a run that failed"));
            continue;
        }
        let before = String::from_utf8_lossy(&before);
        let after = String::from_utf8_lossy(&after);
        let masked = |text: &str| -> Vec<String> { text.split('\n').map(mask).collect() };
        if masked(&before) != masked(&after) {
            problems.push(format!("{rel} changed beyond values:\n{after}"));
        }
    }
    problems
}

#[test]
fn tfupdate_conformance() {
    let mut report = Vec::new();
    let mut compared = 0;
    let mut skipped = 0;
    let mut listed: BTreeSet<&str> = DIFFERS.iter().map(|(slug, _)| *slug).collect();
    for case in std::fs::read_dir(corpus()).expect("corpus").flatten() {
        let case = case.path();
        let Ok(recordings) = std::fs::read_dir(case.join("expected")) else {
            continue;
        };
        for recording in recordings.flatten() {
            let recording = recording.path();
            let slug = format!(
                "{}/{}",
                case.file_name().unwrap().to_string_lossy(),
                recording.file_name().unwrap().to_string_lossy()
            );
            let args: Vec<String> = std::fs::read_to_string(recording.join("args"))
                .expect("args")
                .lines()
                .map(str::to_string)
                .collect();
            let differs = listed.remove(slug.as_str());
            let Some(tfsum_args) = translate(&args) else {
                if !differs {
                    report.push(format!("{slug}: no tfsum equivalent for {args:?}"));
                }
                skipped += 1;
                continue;
            };
            let copy = tempfile::TempDir::new().expect("tempdir");
            copy_tree(&case.join("input"), copy.path());
            let scratch = tempfile::TempDir::new().expect("scratch");
            let cli = scratch.path().join("cli.tfrc");
            std::fs::write(&cli, "").expect("cli config");
            let argv: Vec<&str> = tfsum_args.iter().map(String::as_str).collect();
            let output = crate::tfsum::run(copy.path(), &cli, scratch.path(), &argv);
            let tfupdate_failed = std::fs::read_to_string(recording.join("exit"))
                .expect("exit")
                .trim()
                != "0";
            let wrong = mismatches(&case, &recording, copy.path());
            if differs {
                // tfsum's own rule still holds: it wrote nothing when it failed, and
                // otherwise changed string contents and the blanks before aligned
                // comments only.
                skipped += 1;
                let failed = !output.status.success();
                for problem in own_rule(&case.join("input"), copy.path(), failed) {
                    report.push(format!(
                        "{slug} (differs on purpose): {problem}\n{}",
                        crate::tfsum::text(&output)
                    ));
                }
                continue;
            }
            compared += 1;
            let failed = !output.status.success();
            if !wrong.is_empty() || failed != tfupdate_failed {
                report.push(format!(
                    "{slug}: tfsum {} ({}), tfupdate {}; files that differ: {wrong:?}\n{}",
                    tfsum_args.join(" "),
                    if failed { "failed" } else { "succeeded" },
                    if tfupdate_failed {
                        "failed"
                    } else {
                        "succeeded"
                    },
                    crate::tfsum::text(&output)
                ));
            }
        }
    }
    assert!(
        listed.is_empty(),
        "DIFFERS names recordings that do not exist: {listed:?}"
    );
    assert!(
        report.is_empty(),
        "{} of {compared} recordings differ ({skipped} listed as deliberate differences):\n\n{}",
        report.len(),
        report.join("\n\n")
    );
    assert!(compared >= 100, "only {compared} recordings compared");
}
