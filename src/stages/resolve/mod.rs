//! Stage 3 of the pipeline (DESIGN.md "resolve"): version selection, the way
//! `terraform init` chooses (spec §4.4).
//!
//! Input: the requirements a root's module tree declares (from [`crate::config`]) and the
//! root's existing lock file. Output: per provider, the canonical constraints and the
//! chosen version. The rules here are pure: [`needs_version_list`] says which providers
//! need their published versions, [`select`] chooses from them. [`plan`] runs them over
//! every root, fetching each needed version list once.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

mod plan;

pub use plan::{plan, Plan, Planned};

use crate::config::Requirement;
use crate::vocab::addr::ProviderAddr;
use crate::vocab::version::{newest_allowed, Constraints, Version};

/// Where one constraint on a provider came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub text: String,
    pub file: PathBuf,
    pub line: usize,
}

/// Everything a root's module tree asks of one provider.
#[derive(Debug, Clone, Default)]
pub struct ProviderReqs {
    /// The intersection of every declared constraint (concatenated, spec §4.2).
    pub constraints: Constraints,
    /// Each constraint with the place that declared it.
    pub declared: Vec<Declared>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Rendered in full when found: `file:line: invalid version constraint …`.
    #[error("{0}")]
    InvalidConstraint(String),
    #[error("{}", no_match_message(&.0.provider, &.0.declared, &.0.available, &.0.locked))]
    NoMatch(Box<NoMatch>),
}

/// The details of a provider no available version satisfies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoMatch {
    pub provider: ProviderAddr,
    pub declared: Vec<Declared>,
    pub available: Vec<Version>,
    pub locked: Option<Version>,
}

/// Parses every requirement's constraint and groups them per lockable provider.
pub fn collect(
    requirements: &[Requirement],
) -> Result<BTreeMap<ProviderAddr, ProviderReqs>, ResolveError> {
    let mut out: BTreeMap<ProviderAddr, ProviderReqs> = BTreeMap::new();
    for req in requirements {
        if !req.addr.is_lockable() {
            continue;
        }
        let entry = out.entry(req.addr.clone()).or_default();
        let Some(raw) = &req.constraint else {
            continue;
        };
        let parsed = Constraints::parse(&raw.text).map_err(|e| {
            ResolveError::InvalidConstraint(format!(
                "{}: invalid version constraint {:?} for {}: {e}",
                raw.at, raw.text, req.addr
            ))
        })?;
        entry.constraints.extend(&parsed);
        entry.declared.push(Declared {
            text: raw.text.clone(),
            file: raw.at.file.clone(),
            line: raw.at.line,
        });
    }
    Ok(out)
}

/// Whether choosing a version needs the registry's version list: not when the locked
/// version still satisfies the constraints and no upgrade was asked for.
pub fn needs_version_list(reqs: &ProviderReqs, locked: Option<&Version>, upgrade: bool) -> bool {
    match locked {
        Some(v) if !upgrade => !reqs.constraints.allows(v),
        _ => true,
    }
}

/// Chooses the version for one provider: the locked one while it is allowed (unless
/// `upgrade`), otherwise the newest allowed version in `available`.
pub fn select(
    provider: &ProviderAddr,
    reqs: &ProviderReqs,
    locked: Option<&Version>,
    available: &[Version],
    upgrade: bool,
) -> Result<Version, ResolveError> {
    if let Some(v) = locked {
        if !upgrade && reqs.constraints.allows(v) {
            return Ok(v.clone());
        }
    }
    newest_allowed(available, &reqs.constraints)
        .cloned()
        .ok_or_else(|| {
            ResolveError::NoMatch(Box::new(NoMatch {
                provider: provider.clone(),
                declared: reqs.declared.clone(),
                available: available.to_vec(),
                locked: locked.cloned(),
            }))
        })
}

fn no_match_message(
    provider: &ProviderAddr,
    declared: &[Declared],
    available: &[Version],
    locked: &Option<Version>,
) -> String {
    let mut msg = format!("no available version of {provider} matches the constraints");
    if declared.is_empty() {
        msg.push_str(" (none declared; prereleases must be requested exactly)");
    }
    for d in declared {
        msg.push_str(&format!(
            "\n  {:?} declared at {}:{}",
            d.text,
            d.file.display(),
            d.line
        ));
    }
    if let Some(v) = locked {
        msg.push_str(&format!("\n  locked version: {v}"));
    }
    if available.is_empty() {
        msg.push_str("\n  the registry lists no versions");
    } else {
        let mut newest: Vec<&Version> = available.iter().collect();
        newest.sort();
        let shown: Vec<String> = newest.iter().rev().take(8).map(|v| v.to_string()).collect();
        msg.push_str(&format!("\n  newest available: {}", shown.join(", ")));
    }
    msg
}

impl fmt::Display for Declared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} at {}:{}",
            self.text,
            self.file.display(),
            self.line
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::addr::TERRAFORM_REGISTRY;

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
