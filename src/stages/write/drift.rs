//! What is wrong with a lock file that `tfsum lock --check` would change, in words.
//!
//! A diff shows *how* the file would change; CI readers first want *why*: the file is
//! missing, a provider is not locked or no longer required, a version moved, a requested
//! platform's `h1:` is missing, or only the layout differs. [`explain`] answers that by
//! comparing the two files as lock-file models, not as text.

use std::collections::BTreeSet;

use crate::vocab::hash::Hash;
use crate::vocab::lockfile::LockFile;

/// One sentence per problem, in provider order. `old` is `None` when the file does not
/// exist yet. Called only for files whose bytes would change, so when the models agree
/// the difference is the header or the layout.
pub(crate) fn explain(old: Option<&LockFile>, new_lock: &LockFile) -> Vec<String> {
    let Some(old_lock) = old else {
        return vec!["no lock file yet".to_string()];
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
        let parse = |text: &str| {
            crate::vocab::lockfile::parse(text, crate::vocab::addr::TERRAFORM_REGISTRY).unwrap()
        };
        for (old, new, want) in cases {
            let old_lock = old.as_deref().map(parse);
            assert_eq!(
                explain(old_lock.as_ref(), &parse(&new)),
                want,
                "old:\n{old:?}\nnew:\n{new}"
            );
        }
    }
}
