//! What is wrong with a lock file that `tfsum lock --check` would change, in words.
//!
//! A diff shows *how* the file would change; CI readers first want *why*: the file is
//! missing, a provider is not locked or no longer required, a version moved, a requested
//! platform's `h1:` is missing, or only the layout differs. [`explain`] answers that by
//! comparing the two files as lock-file models, not as text.
//!
//! The check report carries the old bytes' path and the diff, not the new text, so
//! [`new_text`] rebuilds it by applying the diff (which [`crate::diff::unified`] made
//! from exactly these bytes) to the old text.

use std::collections::BTreeSet;

use crate::hash::Hash;
use crate::lockfile::{self, Flavor, LockFile};

/// One sentence per problem, in provider order. `old` is `None` when the file does not
/// exist yet.
pub fn explain(old: Option<&str>, new: &str) -> Vec<String> {
    let Some(old_text) = old else {
        return vec!["no lock file yet".to_string()];
    };
    let (Some(old_lock), Some(new_lock)) = (parse(old_text), parse(new)) else {
        return vec!["the lock file would be rewritten".to_string()];
    };
    let mut problems = Vec::new();
    for (addr, new_entry) in &new_lock.providers {
        let Some(old_entry) = old_lock.providers.get(addr) else {
            problems.push(format!(
                "{addr}: not locked (would lock {})",
                new_entry.version
            ));
            continue;
        };
        if old_entry.version != new_entry.version {
            problems.push(format!(
                "{addr}: locked {}, would lock {}",
                old_entry.version, new_entry.version
            ));
            continue;
        }
        if old_entry.constraints != new_entry.constraints {
            problems.push(format!(
                "{addr}: constraints {} in the lock file, {} in the configuration",
                quoted(&old_entry.constraints.canonical()),
                quoted(&new_entry.constraints.canonical())
            ));
        }
        let missing: BTreeSet<&Hash> = new_entry.hashes.difference(&old_entry.hashes).collect();
        let h1 = missing.iter().filter(|h| h.scheme() == "h1").count();
        let zh = missing.iter().filter(|h| h.scheme() == "zh").count();
        if h1 > 0 {
            problems.push(format!(
                "{addr}: {h1} h1: {} missing (a requested platform is not covered)",
                plural(h1, "hash", "hashes")
            ));
        }
        if zh > 0 {
            problems.push(format!(
                "{addr}: {zh} zh: {} missing",
                plural(zh, "hash", "hashes")
            ));
        }
    }
    for addr in old_lock.providers.keys() {
        if !new_lock.providers.contains_key(addr) {
            problems.push(format!("{addr}: no longer required (would be removed)"));
        }
    }
    if problems.is_empty() {
        problems.push(if old_lock.flavor != new_lock.flavor {
            "the header names the other tool (terraform init / tofu init)".to_string()
        } else {
            "not in canonical form (layout only; `tfsum fmt` fixes it too)".to_string()
        });
    }
    problems
}

/// The text a unified diff of `old` produces; `None` if the diff does not fit `old`.
pub fn new_text(old: &str, diff: &str) -> Option<String> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut next = 0; // the next unread old line
    let mut last_added = false;
    let mut in_hunk = false;
    for line in diff.split_inclusive('\n') {
        if let Some(header) = line.strip_prefix("@@ -") {
            let range = header.split(' ').next()?;
            let (start, len) = match range.split_once(',') {
                Some((s, l)) => (s.parse::<usize>().ok()?, l.parse::<usize>().ok()?),
                None => (range.parse::<usize>().ok()?, 1),
            };
            // An empty old range names the line *after which* the hunk inserts.
            let first = if len == 0 {
                start
            } else {
                start.checked_sub(1)?
            };
            if first < next || first > old_lines.len() {
                return None;
            }
            old_lines[next..first].iter().for_each(|l| out.push_str(l));
            next = first;
            in_hunk = true;
            continue;
        }
        if !in_hunk {
            continue; // the ---/+++ header
        }
        match line.as_bytes().first() {
            Some(b' ') => {
                out.push_str(old_lines.get(next)?);
                next += 1;
                last_added = false;
            }
            Some(b'-') => {
                old_lines.get(next)?;
                next += 1;
                last_added = false;
            }
            Some(b'+') => {
                out.push_str(&line[1..]);
                last_added = true;
            }
            // "\ No newline at end of file" after an added line: that line has none.
            Some(b'\\') if last_added && out.ends_with('\n') => {
                out.pop();
            }
            Some(b'\\') => {}
            _ => return None,
        }
    }
    old_lines[next.min(old_lines.len())..]
        .iter()
        .for_each(|l| out.push_str(l));
    Some(out)
}

fn parse(text: &str) -> Option<LockFile> {
    let flavor = if text.lines().take(3).any(|l| l.contains("\"tofu init\"")) {
        Flavor::OpenTofu
    } else {
        Flavor::Terraform
    };
    lockfile::parse(text, flavor.default_registry()).ok()
}

fn quoted(constraints: &str) -> String {
    if constraints.is_empty() {
        "(none)".to_string()
    } else {
        format!("{constraints:?}")
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::unified;
    use pretty_assertions::assert_eq;

    const HEADER: &str = "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n";

    fn block(addr: &str, version: &str, constraints: &str, hashes: &[&str]) -> String {
        let mut out = format!("\nprovider \"{addr}\" {{\n  version     = \"{version}\"\n");
        if !constraints.is_empty() {
            out.push_str(&format!("  constraints = \"{constraints}\"\n"));
        }
        out.push_str("  hashes = [\n");
        for h in hashes {
            out.push_str(&format!("    \"{h}\",\n"));
        }
        out.push_str("  ]\n}\n");
        out
    }

    const H1A: &str = "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    const H1B: &str = "h1:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=";
    const ZH: &str = "zh:0000000000000000000000000000000000000000000000000000000000000000";

    /// Each kind of drift, as the sentence a CI log shows for it.
    #[test]
    fn every_kind_of_drift_is_named() {
        let null = "registry.terraform.io/hashicorp/null";
        let aws = "registry.terraform.io/hashicorp/aws";
        let base = format!("{HEADER}{}", block(null, "3.2.1", "3.2.1", &[H1A, ZH]));
        let cases: Vec<(Option<String>, String, Vec<&str>)> = vec![
            (None, base.clone(), vec!["no lock file yet"]),
            (
                Some(base.clone()),
                format!("{HEADER}{}", block(null, "3.2.1", "3.2.1", &[H1A, H1B, ZH])),
                vec!["registry.terraform.io/hashicorp/null: 1 h1: hash missing (a requested platform is not covered)"],
            ),
            (
                Some(base.clone()),
                format!("{HEADER}{}", block(null, "3.2.2", "~> 3.2", &[H1B, ZH])),
                vec!["registry.terraform.io/hashicorp/null: locked 3.2.1, would lock 3.2.2"],
            ),
            (
                Some(base.clone()),
                format!("{HEADER}{}", block(null, "3.2.1", "", &[H1A, ZH])),
                vec!["registry.terraform.io/hashicorp/null: constraints \"3.2.1\" in the lock file, (none) in the configuration"],
            ),
            (
                Some(base.clone()),
                format!(
                    "{HEADER}{}{}",
                    block(aws, "5.0.0", "", &[H1A]),
                    block(null, "3.2.1", "3.2.1", &[H1A, ZH])
                ),
                vec!["registry.terraform.io/hashicorp/aws: not locked (would lock 5.0.0)"],
            ),
            (
                Some(base.clone()),
                HEADER.to_string(),
                vec!["registry.terraform.io/hashicorp/null: no longer required (would be removed)"],
            ),
            (
                Some(base.replace("version     =", "version =")),
                base.clone(),
                vec!["not in canonical form (layout only; `tfsum fmt` fixes it too)"],
            ),
        ];
        for (old, new, want) in cases {
            assert_eq!(
                explain(old.as_deref(), &new),
                want,
                "old:\n{old:?}\nnew:\n{new}"
            );
        }
    }

    /// Applying the diff gives back the new text, for replacements, pure insertions and
    /// deletions, and a missing final newline on either side.
    #[test]
    fn new_text_inverts_the_diff() {
        let long: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let pairs = [
            ("", "a\nb\n"),
            ("a\nb\n", ""),
            ("a\nb\nc\n", "a\nB\nc\n"),
            ("a\nb", "a\nb\n"),
            ("a\nb\n", "a\nb"),
            (
                &long[..],
                &long.replace("line 3\n", "").replace("line 25", "x")[..],
            ),
            (&long[..], &format!("{long}line 31\n")),
            (&long[..], &format!("line 0\n{long}")),
        ];
        for (old, new) in pairs {
            let diff = unified(old, new, "a/f", "b/f");
            assert_eq!(new_text(old, &diff).as_deref(), Some(new), "diff:\n{diff}");
        }
    }
}
