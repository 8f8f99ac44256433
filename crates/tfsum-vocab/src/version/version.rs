//! Exact versions: parsing, canonical printing and precedence (spec §4.1).
//!
//! This mirrors go-versions' `versions.Version`, which is what Terraform uses for provider
//! versions in the registry protocol and in lock files. The one surprise is prerelease
//! ordering: when one prerelease runs out of dot-separated identifiers before the other,
//! it is the lesser one *before* the current identifiers are compared, so `beta` sorts
//! below `alpha.1`. We keep that quirk because it decides which version Terraform selects.

use std::cmp::Ordering;
use std::fmt;

use super::scan::{scan, Raw};

/// A version such as `1.2.3`, `1.0.0-beta.1` or `2.0.0+build.5`.
///
/// [`Ord`] is precedence ([`Version::cmp_precedence`]) with metadata compared byte-wise
/// as a last tie-break, so it is a total order consistent with [`Eq`] (which, like Go's `==`
/// on go-versions values, includes metadata).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    /// Dot-separated identifiers after `-`; empty for a release.
    pub prerelease: String,
    /// Dot-separated identifiers after `+`; ignored for precedence.
    pub metadata: String,
}

/// Why a string is not an exact version. Messages follow go-versions' `ParseExactVersion`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid version {given:?}: {reason}")]
pub struct VersionError {
    pub given: String,
    pub reason: String,
}

/// Names of the three number positions, for error messages.
pub(crate) const NUM_NAMES: [&str; 3] = ["major", "minor", "patch"];

impl Version {
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            ..Version::default()
        }
    }

    /// Parses an exact version (`versions.ParseVersion`): one to three numbers, missing
    /// ones become 0 (so `1.0` is 1.0.0), optional `-prerelease` and `+metadata`. No
    /// operator, no `v` prefix, no surrounding spaces, no wildcards.
    ///
    /// This accepts non-canonical spellings such as `1.0` or `1.02`; callers that need the
    /// canonical text (the lock file, spec §1.8) compare `to_string()` with the input.
    pub fn parse(s: &str) -> Result<Version, VersionError> {
        let fail = |reason: String| VersionError {
            given: s.to_string(),
            reason,
        };
        if s.trim().is_empty() {
            return Err(fail("empty specification".to_string()));
        }
        let raw = scan(s);
        match raw.op {
            "" if raw.sep.contains('v') => {
                return Err(fail("a \"v\" prefix should not be used".to_string()))
            }
            "" if !raw.sep.is_empty() => {
                return Err(fail(
                    "extraneous spaces at start of specification".to_string(),
                ))
            }
            "" => {}
            ">" | ">=" | "<" | "<=" | "!" | "!=" | "~>" | "^" | "~" => {
                return Err(fail(format!(
                    "can't use constraint operator {:?}; an exact version is required",
                    raw.op
                )))
            }
            other => {
                return Err(fail(format!(
                    "invalid sequence {other:?} at start of specification"
                )))
            }
        }
        if !raw.rest.is_empty() {
            let rest = raw.rest.trim();
            let reason = if rest.is_empty() {
                "extraneous spaces at end of specification".to_string()
            } else if rest.starts_with(',') || rest.starts_with('|') {
                "can't specify multiple versions; a single exact version is required".to_string()
            } else if rest.starts_with('-') {
                "can't specify version range; a single exact version is required".to_string()
            } else if s.trim().starts_with(rest) {
                "invalid specification; required format is three positive integers separated by periods"
                    .to_string()
            } else {
                format!("invalid characters {rest:?}")
            };
            return Err(fail(reason));
        }
        if raw.nums.len() > 3 {
            return Err(fail(
                "too many numbered portions; only three are allowed (major, minor, patch)"
                    .to_string(),
            ));
        }
        let nums = numbers(&raw, "an exact version is required").map_err(fail)?;
        Ok(Version {
            major: nums[0].unwrap_or(0),
            minor: nums[1].unwrap_or(0),
            patch: nums[2].unwrap_or(0),
            prerelease: raw.pre.to_string(),
            metadata: raw.meta.to_string(),
        })
    }

    /// True for versions with a prerelease part, which constraints admit only when named
    /// exactly (spec §4.4).
    pub fn is_prerelease(&self) -> bool {
        !self.prerelease.is_empty()
    }

    /// go-versions `LessThan`/`Same` as an [`Ordering`]: numbers, then a release above its
    /// prereleases, then the prerelease comparison with its quirk (spec §4.1). Metadata is
    /// ignored, so `1.0.0+a` and `1.0.0+b` compare `Equal` here.
    pub fn cmp_precedence(&self, other: &Version) -> Ordering {
        self.major
            .cmp(&other.major)
            .then(self.minor.cmp(&other.minor))
            .then(self.patch.cmp(&other.patch))
            .then_with(
                || match (self.prerelease.is_empty(), other.prerelease.is_empty()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => cmp_prerelease(&self.prerelease, &other.prerelease),
                },
            )
    }
}

/// Converts the raw numbers to values: `None` for a missing position, an error for a
/// wildcard (its message ends with `wildcard_hint`) or a number too large for Go's parser.
pub(crate) fn numbers(raw: &Raw<'_>, wildcard_hint: &str) -> Result<[Option<u64>; 3], String> {
    let mut out = [None; 3];
    for (i, text) in raw.nums.iter().take(3).enumerate() {
        if matches!(*text, "*" | "x" | "X") {
            return Err(format!(
                "can't use wildcard for {} number; {wildcard_hint}",
                NUM_NAMES[i]
            ));
        }
        // hashicorp/go-version parses each number as an int64, so larger ones fail there.
        let n = text
            .parse::<i64>()
            .ok()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| format!("{} number {text} is too large", NUM_NAMES[i]))?;
        out[i] = Some(n);
    }
    Ok(out)
}

/// Prerelease precedence, walking dot-separated identifiers. When exactly one side is on
/// its last identifier, that side is less, whatever the identifiers say (spec §4.1 quirk).
fn cmp_prerelease(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (mut a, mut b) = (a, b);
    loop {
        match (a.split_once('.'), b.split_once('.')) {
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (None, None) => return cmp_identifier(a, b),
            (Some((a_head, a_tail)), Some((b_head, b_tail))) => {
                if a_head != b_head {
                    return cmp_identifier(a_head, b_head);
                }
                a = a_tail;
                b = b_tail;
            }
        }
    }
}

/// One identifier: numeric below alphanumeric; numerics by length then bytes (so leading
/// zeros make a number "longer"); others by bytes.
fn cmp_identifier(a: &str, b: &str) -> Ordering {
    let numeric = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    match (numeric(a), numeric(b)) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (true, true) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
        (false, false) => a.cmp(b),
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        self.cmp_precedence(other)
            .then_with(|| self.metadata.cmp(&other.metadata))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Canonical form `MAJOR.MINOR.PATCH[-PRERELEASE][+METADATA]` (spec §1.5).
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.prerelease.is_empty() {
            write!(f, "-{}", self.prerelease)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Version {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Version, VersionError> {
        Version::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display() {
        let cases = [
            ("1.2.3", Ok("1.2.3")),
            ("1.0", Ok("1.0.0")),
            ("1", Ok("1.0.0")),
            ("1.02", Ok("1.2.0")),
            ("0.0.0", Ok("0.0.0")),
            ("1.2.3-beta.1", Ok("1.2.3-beta.1")),
            ("1.2-beta", Ok("1.2.0-beta")),
            ("1.2.3+meta.x-y", Ok("1.2.3+meta.x-y")),
            ("1.2.3-rc1+b5", Ok("1.2.3-rc1+b5")),
            ("", Err("empty specification")),
            ("  ", Err("empty specification")),
            ("v1.0.0", Err("a \"v\" prefix should not be used")),
            (" 1.0.0", Err("extraneous spaces at start of specification")),
            ("1.0.0 ", Err("extraneous spaces at end of specification")),
            (
                ">= 1.0.0",
                Err("can't use constraint operator \">=\"; an exact version is required"),
            ),
            ("=1.0.0", Err("invalid sequence \"=\" at start of specification")),
            (
                "1.2.3.4",
                Err("too many numbered portions; only three are allowed (major, minor, patch)"),
            ),
            (
                "1.*",
                Err("can't use wildcard for minor number; an exact version is required"),
            ),
            (
                "1.0.0, 2.0.0",
                Err("can't specify multiple versions; a single exact version is required"),
            ),
            ("1.0.0beta", Err("invalid characters \"beta\"")),
            (
                "garbage",
                Err("invalid specification; required format is three positive integers separated by periods"),
            ),
            ("1.0.", Err("invalid characters \".\"")),
            (
                "99999999999999999999.0.0",
                Err("major number 99999999999999999999 is too large"),
            ),
        ];
        for (input, want) in cases {
            let got = Version::parse(input)
                .map(|v| v.to_string())
                .map_err(|e| e.reason);
            assert_eq!(
                got,
                want.map(str::to_string).map_err(str::to_string),
                "{input:?}"
            );
        }
    }

    #[test]
    fn precedence_order() {
        // Each version is strictly below the next one in go-versions precedence.
        let ascending = [
            "0.9.9",
            "1.0.0-1",
            "1.0.0-2",
            // Numeric identifiers compare by length first, so leading zeros count.
            "1.0.0-01",
            "1.0.0-10",
            "1.0.0-alpha",
            "1.0.0-beta",
            // The quirk: `beta` (no dots left) is below `alpha.1`.
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.1.0",
            "2.0.0",
            "10.0.0",
        ];
        let parsed: Vec<Version> = ascending
            .iter()
            .map(|s| Version::parse(s).unwrap())
            .collect();
        for (i, a) in parsed.iter().enumerate() {
            for (j, b) in parsed.iter().enumerate() {
                assert_eq!(a.cmp_precedence(b), i.cmp(&j), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn metadata_ignored_for_precedence_but_not_ord() {
        let a = Version::parse("1.0.0+a").unwrap();
        let b = Version::parse("1.0.0+b").unwrap();
        let plain = Version::parse("1.0.0").unwrap();
        assert_eq!(a.cmp_precedence(&b), Ordering::Equal);
        assert_eq!(a.cmp_precedence(&plain), Ordering::Equal);
        assert_eq!(plain.cmp(&a), Ordering::Less);
        assert_eq!(a.cmp(&b), Ordering::Less);
        assert_ne!(a, b);
        assert!(Version::parse("1.0.0-rc1").unwrap().is_prerelease());
        assert!(!a.is_prerelease());
    }
}
