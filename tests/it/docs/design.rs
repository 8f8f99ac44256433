//! The design and the spec held to the code: the house docs/design.md draws is the
//! crates' and their modules' own (each with the first words of its documentation), and
//! every section a "spec §" citation names, in the code or the manual, exists in
//! `docs/spec/`. The crates' layering itself is `architecture`'s.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

use crate::architecture::{sources, src_dir, Module, Source, CRATES};
use crate::support::terraform::repo_root;

/// The headings of a spec file, as section numbers: `## 5. …` → `5`, `### 5.4 …` → `5.4`.
fn sections(file: &Path) -> BTreeSet<String> {
    let heading = Regex::new(r"^#{2,4} (\d+(?:\.\d+)*)\.? ").unwrap();
    std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .filter_map(|line| heading.captures(line).map(|c| c[1].to_string()))
        .collect()
}

/// A section a citation names.
#[derive(Debug, PartialEq)]
struct Citation {
    line: usize,
    /// The spec file, below the repository: "spec §N" is `docs/spec/lock-file.md`.
    file: String,
    section: String,
}

/// Every section a citation list names.
///
/// A list starts at "spec §N" or "docs/spec/name.md §N" and goes on through further
/// "§N" (and "§N.M", ranges "§1.2–1.7") joined by commas, "and", "/" or a few words
/// ("§5.4 step 3, §11.9"), across comment lines, until a `;`, `:`, parenthesis, another
/// file or the end of a sentence. Both ends of a range are named.
fn citations(text: &str) -> Vec<Citation> {
    // The text with comment markers gone and lines joined, and where each line starts.
    let mut joined = String::new();
    let mut starts = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let line = ["//!", "///", "//"]
            .iter()
            .find_map(|m| line.strip_prefix(m))
            .unwrap_or(line);
        starts.push(joined.len());
        joined.push_str(line.trim());
        joined.push(' ');
    }
    let line_of = |offset: usize| starts.partition_point(|&s| s <= offset);
    let start = Regex::new(r"\b(docs/spec/[\w-]+\.md|[Ss]pec) §").unwrap();
    let section = Regex::new(r"^§(\d+(?:\.\d+)*)(?:[–-](\d+(?:\.\d+)*))?").unwrap();
    let stops = [";", ":", "(", ")", ".md", ". ", "spec", "Spec"];
    let mut out = Vec::new();
    for caps in start.captures_iter(&joined) {
        let file = match &caps[1] {
            "spec" | "Spec" => "docs/spec/lock-file.md",
            named => named,
        };
        let mut at = caps.get(0).unwrap().end() - '§'.len_utf8();
        while let Some(found) = section.captures(&joined[at..]) {
            for number in [found.get(1), found.get(2)].into_iter().flatten() {
                out.push(Citation {
                    line: line_of(at),
                    file: file.to_string(),
                    section: number.as_str().to_string(),
                });
            }
            let end = at + found.get(0).unwrap().end();
            let Some(next) = joined[end..].find('§') else {
                break;
            };
            let gap = &joined[end..end + next];
            if gap.chars().count() > 24 || stops.iter().any(|s| gap.contains(s)) {
                break;
            }
            at = end + next;
        }
    }
    out
}

#[test]
fn a_citation_list_is_read_to_its_end() {
    // (text, what it cites as "line file §section"; "spec" alone is lock-file.md).
    let lock = "docs/spec/lock-file.md";
    let cases = [
        (
            "(spec §5.4, §11.5).",
            vec![(1, lock, "5.4"), (1, lock, "11.5")],
        ),
        (
            "//! (spec §5.4 step 3, §11.9).",
            vec![(1, lock, "5.4"), (1, lock, "11.9")],
        ),
        (
            "/// Writing (spec §1.2–1.7, §11 items 1–4).",
            vec![(1, lock, "1.2"), (1, lock, "1.7"), (1, lock, "11")],
        ),
        (
            "/// fails (`Err`, spec\n/// §5.3); refuses.",
            vec![(2, lock, "5.3")],
        ),
        (
            "(spec §1, §9; vectors, VECTORS.md §D)",
            vec![(1, lock, "1"), (1, lock, "9")],
        ),
        (
            "docs/spec/upgrade.md §3 and §5 and in docs/upgrade.md (…)",
            vec![
                (1, "docs/spec/upgrade.md", "3"),
                (1, "docs/spec/upgrade.md", "5"),
            ],
        ),
        (
            "(spec §5.2; modules, docs/spec/modules.md §2, §3).",
            vec![
                (1, lock, "5.2"),
                (1, "docs/spec/modules.md", "2"),
                (1, "docs/spec/modules.md", "3"),
            ],
        ),
        ("spec §5.1/§8", vec![(1, lock, "5.1"), (1, lock, "8")]),
        ("Spec §11 item 12: the token", vec![(1, lock, "11")]),
    ];
    for (text, want) in cases {
        let want: Vec<Citation> = want
            .into_iter()
            .map(|(line, file, section)| Citation {
                line,
                file: file.to_string(),
                section: section.to_string(),
            })
            .collect();
        assert_eq!(citations(text), want, "{text}");
    }
}

#[test]
fn every_spec_reference_names_a_section_that_exists() {
    let root = repo_root();
    let mut known: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut checked = 0;
    let mut missing = Vec::new();
    for dir in [
        "src",
        "crates",
        "tests",
        "benches",
        "docs",
        "fuzz/fuzz_targets",
    ] {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let entry = entry.unwrap();
            let is_text = matches!(
                entry.path().extension().and_then(|e| e.to_str()),
                Some("rs" | "md")
            );
            // This file's own examples include sections that do not exist.
            let is_this = entry.path().ends_with("tests/it/docs/design.rs");
            if !entry.file_type().is_file() || !is_text || is_this {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for Citation {
                line,
                file,
                section,
            } in citations(&text)
            {
                let file = root.join(file);
                let known = known.entry(file.clone()).or_insert_with(|| sections(&file));
                checked += 1;
                if !known.contains(&section) {
                    missing.push(format!(
                        "{}:{line}: {} has no section {section}",
                        entry.path().strip_prefix(&root).unwrap().display(),
                        file.strip_prefix(&root).unwrap().display(),
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(
        checked > 150,
        "only {checked} references found: is the pattern right?"
    );
}

/// Where the drawing of the house stands in docs/design.md.
const HOUSE_START: &str =
    "<!-- house: drawn from the crates by tests/it/docs/design.rs; TFSUM_BLESS=1 redraws it -->";
const HOUSE_END: &str = "<!-- /house -->";

/// The first sentence of a module's own documentation (`//!`), or up to its first colon
/// when the sentence is long, without link brackets and code marks. A stop inside
/// parentheses is not one.
fn first_clause(text: &str) -> String {
    let mut paragraph = String::new();
    for line in text.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim();
        if doc.is_empty() {
            break;
        }
        if !paragraph.is_empty() {
            paragraph.push(' ');
        }
        paragraph.push_str(doc);
    }
    paragraph.push(' ');
    let stop = |mark: char| {
        let mut depth = 0i32;
        let chars: Vec<(usize, char)> = paragraph.char_indices().collect();
        chars.windows(2).find_map(|pair| {
            let ((at, c), (_, next)) = (pair[0], pair[1]);
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ if c == mark && next == ' ' && depth == 0 => return Some(at),
                _ => {}
            }
            None
        })
    };
    let sentence = stop('.').unwrap_or(paragraph.len());
    let end = match stop(':') {
        Some(colon) if sentence > 100 && colon < sentence => colon,
        _ => sentence,
    };
    paragraph[..end]
        .trim_end_matches([' ', '.', ':'])
        .replace(['[', ']', '`'], "")
}

/// The house as the code has it: each crate, top layer first, with its modules one level
/// deep (the commands' too), as the paths a newcomer opens (a folder with `/`), each
/// with the first clause of its own documentation.
fn house() -> String {
    let mut out =
        String::from("| crate or module | what its documentation says first |\n|---|---|\n");
    for krate in CRATES {
        let dir = src_dir(krate);
        let sources = sources(&dir);
        // The commands are the binary crate's one module: its modules are drawn.
        let depth = if krate == "tfsum" { 2 } else { 1 };
        let is_folder = |m: &Module| {
            sources
                .iter()
                .any(|s| s.module.len() > m.len() && s.module.starts_with(m))
        };
        let root = sources
            .iter()
            .find(|s| s.module.is_empty())
            .expect("a lib.rs");
        let shown = if krate == "tfsum" {
            "src/".to_string()
        } else {
            format!("crates/{krate}/")
        };
        out.push_str(&format!("| `{shown}` | {} |\n", first_clause(&root.text)));
        let modules: BTreeMap<&Module, &Source> = sources
            .iter()
            .filter(|s| s.module.len() == depth)
            .filter(|s| {
                !matches!(
                    s.module.last().map(String::as_str),
                    Some("tests" | "testing" | "test_support")
                )
            })
            .map(|s| (&s.module, s))
            .collect();
        for (module, source) in modules {
            let path = module.join("/") + if is_folder(module) { "/" } else { ".rs" };
            let clause = first_clause(&source.text);
            out.push_str(&format!("| &emsp;`{path}` | {clause} |\n"));
        }
    }
    out
}

/// docs/design.md draws the house from the code: every layer's modules, where a newcomer
/// looks for them, each with what its own documentation says first. A module added,
/// moved or re-documented fails this test until the drawing is redrawn
/// (`TFSUM_BLESS=1 cargo test --test it docs::design`).
#[test]
fn the_house_in_the_design_is_drawn_from_the_code() {
    let drawn = house();
    for (module, clause) in [
        ("`modules/`", "Remote modules as a package source"),
        ("`http/`", "HTTP as a transport"),
        ("`git/`", "Git as a transport"),
        ("`module_source.rs`", "Module source addresses"),
        ("`commands/cli.rs`", "Command-line definitions"),
    ] {
        assert!(
            drawn
                .lines()
                .any(|l| l.contains(module) && l.contains(clause)),
            "{module}: {drawn}"
        );
    }
    let design = repo_root().join("docs/design.md");
    let text = std::fs::read_to_string(&design).unwrap();
    let start = text
        .find(HOUSE_START)
        .expect("docs/design.md has the house's start marker");
    let start = start + HOUSE_START.len() + 1;
    let end = text
        .find(HOUSE_END)
        .expect("docs/design.md has the house's end marker");
    if std::env::var_os("TFSUM_BLESS").is_some() {
        let redrawn = format!("{}{drawn}{}", &text[..start], &text[end..]);
        std::fs::write(&design, redrawn).unwrap();
        return;
    }
    assert!(
        text[start..end] == drawn,
        "docs/design.md's house is not the code's; redraw it with \
         `TFSUM_BLESS=1 cargo test --test it docs::design`:\n{drawn}"
    );
}
