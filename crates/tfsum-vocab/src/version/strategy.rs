//! How `tfsum upgrade` rewrites a constraint to take in a newer version when the user
//! names none (`latest`), after Renovate's range strategies:
//!
//! | strategy | `~> 5.31` | `>= 5.0, < 6.0` | `5.31.0` |
//! |---|---|---|---|
//! | [`Strategy::Pin`] | `6.2.0` | `6.2.0` | `6.2.0` |
//! | [`Strategy::Bump`] | `~> 6.2` | `>= 6.2, < 7.0` | `6.2.0` |
//! | [`Strategy::Widen`] | `>= 5.31, < 7.0` | `>= 5.0, < 7.0` | `6.2.0` |
//!
//! (with 6.2.0 the newest version). Bump moves every lower bound (`=`, `~>`, `>=`, a bare
//! version) to the newest version, written with as many parts as before; widen keeps
//! the lower bounds and moves only the upper ones (`<`, `<=`, and the one `~>` implies)
//! past the newest version. Either way an upper bound that would still exclude the newest
//! version is moved, the parts of the constraint that need no change keep their text, and
//! the result must allow the newest version, or the rewrite fails.

use std::fmt;

use super::{Constraints, Version};

/// How a constraint takes in a newer version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Replace the constraint with the version.
    Pin,
    /// Keep each operator, move the lower bounds to the version.
    Bump,
    /// Keep the lower bounds, extend the upper bounds past the version.
    Widen,
}

/// Why a constraint cannot take in the version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot {strategy} {current:?} to take in {version}: {reason}")]
pub struct StrategyError {
    pub strategy: Strategy,
    pub current: String,
    pub version: String,
    pub reason: String,
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Pin => "pin",
            Strategy::Bump => "bump",
            Strategy::Widen => "widen",
        })
    }
}

/// One comma-separated part of a constraint, as written.
struct Clause<'a> {
    op: &'a str,
    /// Whether a blank separated the operator from the version.
    spaced: bool,
    version: &'a str,
    /// The whole part, trimmed, for parts kept as they were.
    text: &'a str,
}

const OPERATORS: [&str; 7] = ["~>", ">=", "<=", "!=", ">", "<", "="];

fn clauses(constraint: &str) -> Vec<Clause<'_>> {
    constraint
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|text| {
            let op = OPERATORS
                .iter()
                .find(|op| text.starts_with(**op))
                .copied()
                .unwrap_or("");
            let rest = &text[op.len()..];
            let version = rest.trim_start();
            Clause {
                op,
                spaced: version.len() != rest.len(),
                version,
                text,
            }
        })
        .collect()
}

/// The numeric parts of a version as written (`5.31` → `[5, 31]`), without any
/// prerelease or build suffix.
fn parts(version: &str) -> Option<Vec<u64>> {
    let core = version.split(['-', '+']).next()?;
    core.split('.').map(|p| p.parse().ok()).collect()
}

/// `version` written with `count` parts (at least one).
fn with_parts(version: &Version, count: usize) -> String {
    let all = [version.major, version.minor, version.patch];
    let count = count.clamp(1, 3);
    if count == 3 {
        return version.to_string();
    }
    all[..count]
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// The smallest bound written with `count` parts, above `version`, that moves the same
/// part `bound` moves (its last non-zero part): past 6.2.0, `6.0` becomes `7.0` and
/// `5.32.0` becomes `6.3.0`.
fn upper_past(version: &Version, bound: &[u64]) -> String {
    let count = bound.len().clamp(1, 3);
    let position = bound
        .iter()
        .rposition(|&p| p != 0)
        .unwrap_or(0)
        .min(count - 1);
    let mut new = [version.major, version.minor, version.patch];
    new[position] += 1;
    for part in new.iter_mut().skip(position + 1) {
        *part = 0;
    }
    new[..count]
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// The exclusive upper bound `~> V` implies: `~> 5.31` → `[6, 0]`, `~> 5.31.0` →
/// `[5, 32, 0]`, `~> 5` → `[6]`.
fn pessimistic_upper(parts: &[u64]) -> Vec<u64> {
    let mut upper = parts.to_vec();
    let position = parts.len().saturating_sub(2);
    if let Some(p) = upper.get_mut(position) {
        *p += 1;
    }
    for p in upper.iter_mut().skip(position + 1) {
        *p = 0;
    }
    upper
}

/// `current` rewritten by `strategy` to allow `newest` (see the module docs).
pub fn rewrite(
    strategy: Strategy,
    current: &str,
    newest: &Version,
) -> Result<String, StrategyError> {
    let fail = |reason: &str| StrategyError {
        strategy,
        current: current.to_string(),
        version: newest.to_string(),
        reason: reason.to_string(),
    };
    let clauses = clauses(current);
    let exact = clauses.len() == 1 && matches!(clauses[0].op, "" | "=");
    if strategy == Strategy::Pin || exact || clauses.is_empty() {
        return Ok(newest.to_string());
    }
    let allows = |text: &str| Constraints::parse(text).is_ok_and(|c| c.allows(newest));
    if strategy == Strategy::Widen && allows(current) {
        return Ok(current.to_string());
    }
    let mut out: Vec<String> = Vec::new();
    for clause in &clauses {
        let Some(bound) = parts(clause.version) else {
            return Err(fail(&format!("{:?} is not a version", clause.version)));
        };
        let write = |op: &str, version: String| {
            let blank = if clause.spaced { " " } else { "" };
            format!("{op}{blank}{version}")
        };
        let kept = || clause.text.to_string();
        let below_newest = |upper: &[u64]| {
            Version::parse(
                &upper
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join("."),
            )
            .is_ok_and(|u| u <= *newest)
        };
        let next = match (strategy, clause.op) {
            (Strategy::Bump, "" | "=" | ">=") => write(clause.op, with_parts(newest, bound.len())),
            (Strategy::Bump, "~>") => write("~>", with_parts(newest, bound.len())),
            (Strategy::Widen, "~>") if below_newest(&pessimistic_upper(&bound)) => {
                let upper = upper_past(newest, &pessimistic_upper(&bound));
                format!("{}, < {upper}", write(">=", clause.version.to_string()))
            }
            (_, "<") if below_newest(&bound) => write("<", upper_past(newest, &bound)),
            (_, "<=") if Version::parse(clause.version).is_ok_and(|v| v < *newest) => {
                write("<=", newest.to_string())
            }
            _ => kept(),
        };
        out.push(next);
    }
    let rewritten = out.join(", ");
    if !allows(&rewritten) {
        return Err(fail(&format!(
            "{rewritten:?} still excludes it; give the constraint yourself"
        )));
    }
    Ok(rewritten)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (current, pin, bump, widen) with 6.2.1 the newest version; `Err` is a fragment of
    /// the message.
    #[test]
    fn strategies_table() {
        type Row = (
            &'static str,
            Result<&'static str, &'static str>,
            Result<&'static str, &'static str>,
        );
        let rows: &[Row] = &[
            ("~> 5.31", Ok("~> 6.2"), Ok(">= 5.31, < 7.0")),
            ("~> 5.31.0", Ok("~> 6.2.1"), Ok(">= 5.31.0, < 6.3.0")),
            ("~> 5", Ok("~> 6"), Ok(">= 5, < 7")),
            ("~>5.0", Ok("~>6.2"), Ok(">=5.0, < 7.0")),
            (">= 5.0, < 6.0", Ok(">= 6.2, < 7.0"), Ok(">= 5.0, < 7.0")),
            (
                ">= 5.0.0, < 5.32.0",
                Ok(">= 6.2.1, < 6.3.0"),
                Ok(">= 5.0.0, < 6.3.0"),
            ),
            (
                ">= 5.0, <= 5.9",
                Ok(">= 6.2, <= 6.2.1"),
                Ok(">= 5.0, <= 6.2.1"),
            ),
            (">= 4.0", Ok(">= 6.2"), Ok(">= 4.0")),
            ("5.31.0", Ok("6.2.1"), Ok("6.2.1")),
            ("= 5.31.0", Ok("6.2.1"), Ok("6.2.1")),
            ("~> 6.0", Ok("~> 6.2"), Ok("~> 6.0")),
            (
                ">= 5.0, != 6.2.1",
                Err("still excludes it"),
                Err("still excludes it"),
            ),
            (
                ">= 5.0, < banana",
                Err("not a version"),
                Err("not a version"),
            ),
        ];
        let newest = Version::parse("6.2.1").unwrap();
        for (current, bump, widen) in rows {
            assert_eq!(
                rewrite(Strategy::Pin, current, &newest).unwrap(),
                "6.2.1",
                "pin {current}"
            );
            for (strategy, want) in [(Strategy::Bump, bump), (Strategy::Widen, widen)] {
                let got = rewrite(strategy, current, &newest);
                match (got, want) {
                    (Ok(got), Ok(want)) => assert_eq!(got, *want, "{strategy} {current}"),
                    (Err(e), Err(fragment)) => {
                        assert!(
                            e.to_string().contains(fragment),
                            "{strategy} {current}: {e}"
                        )
                    }
                    (got, want) => panic!("{strategy} {current}: got {got:?}, want {want:?}"),
                }
            }
        }
    }
}
