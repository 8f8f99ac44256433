//! Stage 3 of the pipeline (docs/design.md "resolve"): version selection, the way
//! `terraform init` chooses (spec §4.4).
//!
//! Input: the requirements a root's module tree declares (from [`tfsum_config`]) and the
//! root's existing lock file. Output: per provider, the canonical constraints and the
//! chosen version. The rules here are pure: [`needs_version_list`] says which providers
//! need their published versions, [`select`] chooses from them. [`plan()`] runs them over
//! every root, fetching each needed version list once.

mod plan;

pub use plan::{plan, Planned};

use crate::root::NoMatch;
use tfsum_config::ProviderReqs;
use tfsum_vocab::addr::ProviderAddr;
use tfsum_vocab::version::{newest_allowed, Version};

/// Whether choosing a version needs the registry's version list: not when the locked
/// version still satisfies the constraints and no upgrade was asked for.
pub(crate) fn needs_version_list(
    reqs: &ProviderReqs,
    locked: Option<&Version>,
    upgrade: bool,
) -> bool {
    match locked {
        Some(v) if !upgrade => !reqs.constraints.allows(v),
        _ => true,
    }
}

/// Chooses the version for one provider: the locked one while it is allowed (unless
/// `upgrade`), otherwise the newest allowed version in `available`.
pub(crate) fn select(
    provider: &ProviderAddr,
    reqs: &ProviderReqs,
    locked: Option<&Version>,
    available: &[Version],
    upgrade: bool,
) -> Result<Version, Box<NoMatch>> {
    if let Some(v) = locked {
        if !upgrade && reqs.constraints.allows(v) {
            return Ok(v.clone());
        }
    }
    newest_allowed(available, &reqs.constraints)
        .cloned()
        .ok_or_else(|| {
            Box::new(NoMatch {
                provider: provider.clone(),
                declared: reqs.declared.clone(),
                available: available.to_vec(),
                locked: locked.cloned(),
            })
        })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use tfsum_config::Declared;
    use tfsum_vocab::addr::TERRAFORM_REGISTRY;
    use tfsum_vocab::version::Constraints;

    fn reqs(constraints: &str) -> ProviderReqs {
        ProviderReqs {
            constraints: if constraints.is_empty() {
                Constraints::default()
            } else {
                Constraints::parse(constraints).unwrap()
            },
            declared: vec![Declared {
                text: constraints.to_string(),
                file: PathBuf::from("main.tf"),
                line: 3,
            }],
        }
    }

    fn versions(list: &[&str]) -> Vec<Version> {
        list.iter().map(|v| Version::parse(v).unwrap()).collect()
    }

    /// (constraints, locked, upgrade, expected): `Err` holds a fragment of the message.
    type Row = (
        &'static str,
        Option<&'static str>,
        bool,
        Result<&'static str, &'static str>,
    );

    #[test]
    fn selection_table() {
        let available = versions(&["1.0.0", "1.2.0", "1.3.0", "2.0.0", "2.1.0-beta1"]);
        let cases: &[Row] = &[
            // Without a lock entry the newest allowed version wins.
            ("", None, false, Ok("2.0.0")),
            ("~> 1.0", None, false, Ok("1.3.0")),
            (">= 1.0, != 1.3.0, < 2.0.0", None, false, Ok("1.2.0")),
            ("1.2", None, false, Ok("1.2.0")),
            // Prereleases only when requested exactly.
            (">= 2.0.0", None, false, Ok("2.0.0")),
            ("2.1.0-beta1", None, false, Ok("2.1.0-beta1")),
            // A locked version that still satisfies the constraints is kept...
            ("~> 1.0", Some("1.2.0"), false, Ok("1.2.0")),
            ("", Some("1.0.0"), false, Ok("1.0.0")),
            // ...unless --upgrade.
            ("~> 1.0", Some("1.2.0"), true, Ok("1.3.0")),
            // A locked version the constraints no longer allow moves to the newest.
            (">= 2.0.0", Some("1.2.0"), false, Ok("2.0.0")),
            // A locked prerelease with no constraints is not allowed (spec §4.4).
            ("", Some("2.1.0-beta1"), false, Ok("2.0.0")),
            // Nothing acceptable.
            (
                "> 3.0.0",
                None,
                false,
                Err("\"> 3.0.0\" declared at main.tf:3"),
            ),
            (
                "> 3.0.0",
                Some("1.0.0"),
                false,
                Err("locked version: 1.0.0"),
            ),
        ];
        let addr = ProviderAddr::parse("hashicorp/null", TERRAFORM_REGISTRY).unwrap();
        for (constraints, locked, upgrade, want) in cases {
            let locked = locked.map(|v| Version::parse(v).unwrap());
            let got = select(
                &addr,
                &reqs(constraints),
                locked.as_ref(),
                &available,
                *upgrade,
            );
            let row = format!("{constraints:?} locked={locked:?} upgrade={upgrade}");
            match (got, want) {
                (Ok(v), Ok(w)) => assert_eq!(v.to_string(), *w, "{row}"),
                (Err(e), Err(fragment)) => {
                    let msg = e.to_string();
                    assert!(msg.contains(fragment), "{row}: {msg}");
                    assert!(
                        msg.contains("newest available: 2.1.0-beta1, 2.0.0, 1.3.0"),
                        "{row}: {msg}"
                    );
                }
                (got, want) => panic!("{row}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn version_list_needed_only_when_the_lock_cannot_stand() {
        let locked = Version::parse("1.2.0").unwrap();
        assert!(!needs_version_list(&reqs("~> 1.0"), Some(&locked), false));
        assert!(needs_version_list(&reqs("~> 1.0"), Some(&locked), true));
        assert!(needs_version_list(&reqs(">= 2.0"), Some(&locked), false));
        assert!(needs_version_list(&reqs("~> 1.0"), None, false));
    }
}
