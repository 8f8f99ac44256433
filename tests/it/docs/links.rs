//! Links hold: every relative link of README.md, CONTRIBUTING.md and docs/, and its
//! `#anchor`, as GitHub resolves them.

use std::collections::BTreeMap;

use regex::Regex;

use super::markdown::{self, all_docs};
use crate::support::terraform::repo_root;

/// Every relative link of README.md, CONTRIBUTING.md and docs/ names a file or directory
/// of the repository, and its `#anchor` (on a markdown page) one of that page's headings
/// as GitHub spells them ([`markdown::slug`]) or an HTML `id`. On other files an anchor
/// may only be a line (`#L10`, `#L10-L20`).
#[test]
fn relative_links_resolve() {
    let root = repo_root();
    let line_anchor = Regex::new(r"^L\d+(-L\d+)?$").expect("regex");
    let mut anchors_of: BTreeMap<std::path::PathBuf, Vec<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in all_docs() {
        let dir = doc.path.parent().expect("a parent").to_path_buf();
        for (line, target) in markdown::links(&doc.text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let at = format!("{}:{line}: {target}", doc.name());
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                doc.path.clone()
            } else {
                match markdown::join(&dir, path) {
                    Some(file) => file,
                    None => {
                        problems.push(format!("{at}: leaves the repository"));
                        continue;
                    }
                }
            };
            if !root.join(&file).exists() {
                problems.push(format!("{at}: {} does not exist", file.display()));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if file.extension().is_some_and(|x| x == "md") {
                let anchors = anchors_of.entry(file.clone()).or_insert_with(|| {
                    markdown::anchors(
                        &std::fs::read_to_string(root.join(&file)).expect("read linked page"),
                    )
                });
                if !anchors.iter().any(|a| a == anchor) {
                    problems.push(format!(
                        "{at}: {} has no heading whose anchor is #{anchor}",
                        file.display()
                    ));
                }
            } else if !line_anchor.is_match(anchor) {
                problems.push(format!("{at}: an anchor into a file that is not markdown"));
            }
        }
    }
    assert!(checked > 100, "only {checked} links found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// GitHub's anchors, as [`markdown::slug`] makes them, for the heading shapes the
/// manual uses.
#[test]
fn slugs_are_githubs() {
    let cases = [
        (
            "`--layout oci`: an OpenTofu OCI registry mirror",
            "--layout-oci-an-opentofu-oci-registry-mirror",
        ),
        ("`[[var_files]]`", "var_files"),
        ("JSON report (`--format json`)", "json-report---format-json"),
        (
            "Package sources, cache and settings",
            "package-sources-cache-and-settings",
        ),
        ("`tfsum hash`", "tfsum-hash"),
        ("Parallel `init`", "parallel-init"),
        ("Links [in](x.md) headings", "links-in-headings"),
        ("Résumé → next", "résumé--next"),
    ];
    for (heading, want) in cases {
        assert_eq!(markdown::slug(heading), want, "{heading}");
    }
    assert_eq!(
        markdown::anchors("# A\n\n## A\n```\n# not a heading\n```\n## A\n<a id=\"x\"></a>\n"),
        ["a", "a-1", "a-2", "x"]
    );
    let links = markdown::links(
        "[a](one.md) `[b](code.md)` ``x\n[c](span.md)``\n```\n[d](fenced.md)\n```\n[e](two.md#x \"t\")\n[r]: ref.md\n",
    );
    assert_eq!(
        links,
        [
            (1, "one.md".to_string()),
            (6, "two.md#x".to_string()),
            (7, "ref.md".to_string())
        ]
    );
}
