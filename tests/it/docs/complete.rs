//! Complete by construction: the lists come from the code (clap's command tree, the
//! `"TFSUM_…"` literals of the source, the settings files' serde structs through
//! [`super::keys`]), never from a copy, and each item must be on its page.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;

use super::keys;
use super::markdown::{manual, Doc};
use crate::support::terraform::repo_root;

/// Each top-level command's page: the link in its row of docs/README.md's command table
/// (a row names its commands as `` `tfsum NAME` ``).
fn command_pages() -> BTreeMap<String, Doc> {
    let index = Doc::read("docs/README.md");
    let table = index
        .section(|h| h == "Commands")
        .expect("docs/README.md has a Commands section");
    let name = Regex::new(r"`tfsum ([a-z-]+)").expect("regex");
    let link = Regex::new(r"\]\(([^)#]+)").expect("regex");
    let mut pages = BTreeMap::new();
    for row in table.lines().filter(|l| l.starts_with("| `tfsum")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let page = link
            .captures(cells.get(1).copied().unwrap_or(""))
            .unwrap_or_else(|| panic!("docs/README.md: no page linked in {row:?}"));
        for command in name.captures_iter(cells[0]) {
            pages.insert(
                command[1].to_string(),
                Doc::read(&format!("docs/{}", &page[1])),
            );
        }
    }
    pages
}

/// Whether `text` holds `--long` as a whole flag (not inside `--long-er` or `x--long`).
fn mentions_flag(text: &str, long: &str) -> bool {
    Regex::new(&format!(
        r"(?:^|[^\w-])--{}(?:[^\w-]|$)",
        regex::escape(long)
    ))
    .expect("regex")
    .is_match(text)
}

/// The rule (CONTRIBUTING.md, "Keeping the docs true"): a command `tfsum NAME` has a row
/// in docs/README.md's command table, which links its page; that page names it (and each
/// of its subcommands, `tfsum upgrade provider`) literally, and names each of its long
/// flags as `--flag`. Global flags (`--quiet`, `--verbose`) are named once anywhere in
/// docs/. Hidden commands and flags, and clap's own `--help`, `--version` and `help`,
/// are not checked. The other way round, every `--flag` in the first cell of an
/// `| option |` table of a command page is a flag of a command that page documents.
#[test]
fn every_command_and_flag_is_documented() {
    let pages = command_pages();
    let manual_text: String = manual().into_iter().map(|d| d.text).collect();
    let tree = tfsum::internals::command();
    let mut problems = Vec::new();

    let mut globals = BTreeSet::from(["help".to_string(), "version".to_string()]);
    for arg in tree.get_arguments().filter(|a| !a.is_hide_set()) {
        let Some(long) = arg.get_long() else { continue };
        globals.insert(long.to_string());
        if !mentions_flag(&manual_text, long) {
            problems.push(format!("--{long}, a global option, is nowhere in docs/"));
        }
    }

    // Flags by page, for the check the other way round.
    let mut flags_of_page: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack: Vec<(Vec<String>, &clap::Command)> = tree
        .get_subcommands()
        .map(|c| (vec![c.get_name().to_string()], c))
        .collect();
    while let Some((path, command)) = stack.pop() {
        if command.is_hide_set() {
            continue;
        }
        let name = format!("tfsum {}", path.join(" "));
        let Some(page) = pages.get(&path[0]) else {
            problems.push(format!(
                "{name}: no row in docs/README.md's command table names `{name}`"
            ));
            continue;
        };
        if !page.text.contains(&name) {
            problems.push(format!("{name}: {} never names it", page.name()));
        }
        let flags = flags_of_page.entry(page.name()).or_default();
        for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
            let Some(long) = arg.get_long() else { continue };
            flags.insert(long.to_string());
            if !mentions_flag(&page.text, long) {
                problems.push(format!("{name} --{long}: not on {}", page.name()));
            }
        }
        stack.extend(command.get_subcommands().map(|c| {
            let mut path = path.clone();
            path.push(c.get_name().to_string());
            (path, c)
        }));
    }

    let flag = Regex::new(r"--([a-z][a-z0-9-]*)").expect("regex");
    for (page, flags) in &flags_of_page {
        let doc = Doc::read(page);
        let mut in_options = false;
        for line in doc.text.lines() {
            if line.starts_with("| option |") {
                in_options = true;
            } else if !line.starts_with('|') {
                in_options = false;
            } else if in_options {
                let first = line.split(" | ").next().unwrap_or("");
                for f in flag.captures_iter(first) {
                    if !flags.contains(&f[1]) && !globals.contains(&f[1]) {
                        problems.push(format!(
                            "{page}: its options table names --{}, which no command it documents takes",
                            &f[1]
                        ));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the manual and the command line disagree:\n{}",
        problems.join("\n")
    );
}

/// Every `"TFSUM_…"` string literal in the Rust source of the binary (`src/`, and the
/// workspace crates under `crates/` once they exist), plus the `env =` of any clap
/// argument: the variables tfsum reads.
fn variables_the_code_reads() -> BTreeSet<String> {
    let literal = Regex::new(r#""(TFSUM_[A-Z0-9_]+)""#).expect("regex");
    let root = repo_root();
    let mut found = BTreeSet::new();
    for dir in ["src", "crates"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).into_iter().flatten() {
            if entry.path().extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(entry.path()).expect("read source");
                found.extend(literal.captures_iter(&text).map(|c| c[1].to_string()));
            }
        }
    }
    let tree = tfsum::internals::command();
    let mut stack = vec![&tree];
    while let Some(command) = stack.pop() {
        for arg in command.get_arguments() {
            if let Some(env) = arg.get_env() {
                found.insert(env.to_string_lossy().into_owned());
            }
        }
        stack.extend(command.get_subcommands());
    }
    found
}

/// Every `TFSUM_*` variable the code reads is in docs/environment.md as `` `NAME` ``;
/// the testing-only ones (`TFSUM_TEST_*`) under its "Testing only" heading. The other way
/// round, every variable its tables list is one the code reads.
#[test]
fn every_variable_is_documented() {
    let read = variables_the_code_reads();
    assert!(
        read.contains("TFSUM_JOBS") && read.len() > 15,
        "the source scan found too little: {read:?}"
    );
    let doc = Doc::read("docs/environment.md");
    let testing = doc
        .section(|h| h == "Testing only")
        .expect("docs/environment.md has a Testing only section");
    let mut problems = Vec::new();
    for name in &read {
        let quoted = format!("`{name}`");
        if name.starts_with("TFSUM_TEST_") {
            if !testing.contains(&quoted) {
                problems.push(format!(
                    "{name}: not under docs/environment.md's \"Testing only\""
                ));
            }
        } else if !doc.text.contains(&quoted) {
            problems.push(format!("{name}: not in docs/environment.md"));
        }
    }
    let row = Regex::new(r"(?m)^\| `(TFSUM_[A-Z0-9_]+)`").expect("regex");
    for listed in row.captures_iter(&doc.text) {
        if !read.contains(&listed[1]) {
            problems.push(format!(
                "{}: docs/environment.md lists it, and the code never reads it",
                &listed[1]
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every key the settings files' serde structs read ([`keys`]) is in
/// docs/configuration.md: a top-level key as the first cell of a table row
/// (`` | `jobs` | ``), a key of a nested table (`var_files.roots`) as `` `roots` `` in the
/// section whose heading names the table. The other way round, every key a row names is
/// one the code reads.
#[test]
fn every_settings_key_is_documented() {
    let keys = keys::keys(tfsum::internals::deserialize_settings);
    assert!(
        keys.contains("platforms") && keys.contains("var_files.roots"),
        "the recorder found too little: {keys:?}"
    );
    let doc = Doc::read("docs/configuration.md");
    let mut problems = Vec::new();
    for key in &keys {
        match key.rsplit_once('.') {
            None => {
                if !doc.text.contains(&format!("\n| `{key}` |")) {
                    problems.push(format!("{key}: no row of docs/configuration.md names it"));
                }
            }
            Some((table, leaf)) => {
                let section = doc.section(|h| h.contains(table));
                if !section.is_some_and(|s| s.contains(&format!("`{leaf}`"))) {
                    problems.push(format!(
                        "{key}: docs/configuration.md has no section on `{table}` naming `{leaf}`"
                    ));
                }
            }
        }
    }
    let row = Regex::new(r"(?m)^\| `([a-z_]+)` \|").expect("regex");
    for listed in row.captures_iter(&doc.text) {
        if !keys.contains(&listed[1]) {
            problems.push(format!(
                "{}: docs/configuration.md lists it, and no settings file may hold it",
                &listed[1]
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The recorder finds nested tables, renamed fields and fields behind `Option`, `Vec`
/// and `toml::Spanned`, and none of serde's private names.
#[test]
fn the_key_recorder_finds_every_key() {
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        a: String,
        #[serde(rename = "b-b")]
        b: Vec<u32>,
        deep: Option<Deeper>,
    }
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Deeper {
        x: bool,
        y: bool,
    }
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        first: u64,
        spanned: Option<toml::Spanned<String>>,
        tables: Option<Vec<Inner>>,
        one: Inner,
        #[serde(skip)]
        skipped: bool,
        last: Option<bool>,
    }
    let got = keys::keys(|r| <Outer as serde::Deserialize>::deserialize(r).map(drop));
    let want = [
        "first",
        "last",
        "one",
        "one.a",
        "one.b-b",
        "one.deep",
        "one.deep.x",
        "one.deep.y",
        "spanned",
        "tables",
        "tables.a",
        "tables.b-b",
        "tables.deep",
        "tables.deep.x",
        "tables.deep.y",
    ];
    assert_eq!(got, want.iter().map(|s| s.to_string()).collect());
}

/// The body of each function whose signature line contains `signature`, in every Rust
/// file of `src/` and `crates/`: from that line to the closing brace at its indentation.
fn function_bodies(signature: &str) -> Vec<(String, String)> {
    let root = repo_root();
    let mut bodies = Vec::new();
    for dir in ["src", "crates"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).into_iter().flatten() {
            if entry.path().extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).expect("read source");
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                if !line.contains(signature) {
                    continue;
                }
                let indent = &line[..line.len() - line.trim_start().len()];
                let close = format!("{indent}}}");
                let end = lines[i..]
                    .iter()
                    .position(|l| *l == close)
                    .map_or(lines.len(), |n| i + n);
                let name = entry.path().strip_prefix(&root).unwrap_or(entry.path());
                bodies.push((name.display().to_string(), lines[i..end].join("\n")));
            }
        }
    }
    bodies
}

/// Every `kind` the JSON reports can give an error or a warning is named in
/// docs/json-report.md as `` `kind` ``: the words of each `fn kind(&self) -> &'static
/// str` (warnings, package and version-list errors) and of the report's `fn errors` and
/// `fn selection` (a root's other failures), taken from the source.
#[test]
fn every_report_kind_is_documented() {
    let word = Regex::new(r#"(?:=> |one\(|kind: )"([a-z_]+)""#).expect("regex");
    let mut kinds: BTreeMap<String, String> = BTreeMap::new();
    for signature in [
        "fn kind(&self) -> &'static str",
        "fn errors(error: &RootError)",
        "fn selection(error: &SelectionError)",
    ] {
        for (file, body) in function_bodies(signature) {
            for found in word.captures_iter(&body) {
                kinds
                    .entry(found[1].to_string())
                    .or_insert_with(|| file.clone());
            }
        }
    }
    assert!(
        kinds.contains_key("no_matching_version")
            && kinds.contains_key("registry")
            && kinds.len() > 40,
        "the source scan found too little: {kinds:?}"
    );
    let doc = Doc::read("docs/json-report.md");
    let missing: Vec<String> = kinds
        .iter()
        .filter(|(kind, _)| !doc.text.contains(&format!("`{kind}`")))
        .map(|(kind, file)| format!("{kind} ({file})"))
        .collect();
    assert!(
        missing.is_empty(),
        "kinds the JSON reports can name that docs/json-report.md does not list:\n{}",
        missing.join("\n")
    );
}
