//! Module versions and `version` constraints with hashicorp/go-version v1.2.1 semantics,
//! which Terraform 1.0.3's module installer uses (providers use go-versions instead:
//! [`crate::version`]). The rules differ in ways that change which module version
//! `init` installs (docs/spec/modules.md §3):
//!
//! - a version is `v?N(.N)*` with an optional `-pre` and `+meta`, padded to three
//!   segments (`1.2` is `1.2.0`), any number of segments allowed;
//! - constraints are `,`-separated `op version` with `=`, `!=`, `>`, `<`, `>=`, `<=`, `~>`
//!   or no operator; `~> 1` allows every version from 1.0.0 up (only the segments
//!   *before* the last given one are pinned);
//! - a prerelease is considered only when the whole `version` string, byte for byte,
//!   equals the version's canonical text (`version = "1.0.0-beta"`, not `"=1.0.0-beta"`);
//! - the newest acceptable version wins; among equal ones, the registry's first.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use regex::Regex;

/// A go-version `Version`.
#[derive(Debug, Clone)]
pub struct GoVersion {
    /// At least three, zero-padded.
    segments: Vec<i64>,
    /// How many segments were written (`si`); `~>` pins all but the last of them.
    specified: usize,
    pre: String,
    metadata: String,
}

/// A go-version `Constraints` value, keeping the text it was parsed from.
#[derive(Debug, Clone, Default)]
pub struct GoConstraints {
    items: Vec<(Op, GoVersion)>,
    /// `Constraints.String()`: the input split on `,` and joined again, i.e. the input.
    text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
    Pessimistic,
}

const VERSION_RAW: &str = concat!(
    r"v?([0-9]+(\.[0-9]+)*?)",
    r"(-([0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)|(-?([A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)))?",
    r"(\+([0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*))?",
);

fn version_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!("^{VERSION_RAW}$")).expect("static regex"))
}

fn constraint_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(&format!(r"^\s*(>=|<=|!=|~>|>|<|=|)\s*({VERSION_RAW})\s*$"))
            .expect("static regex")
    })
}

impl GoVersion {
    /// `version.NewVersion`.
    pub fn parse(s: &str) -> Result<GoVersion, String> {
        let caps = version_re()
            .captures(s)
            .ok_or_else(|| format!("malformed version: {s}"))?;
        let mut segments = caps[1]
            .split('.')
            .map(|part| {
                part.parse::<i64>()
                    .map_err(|e| format!("error parsing version {s}: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let specified = segments.len();
        while segments.len() < 3 {
            segments.push(0);
        }
        let pre = caps
            .get(7)
            .or_else(|| caps.get(4))
            .map_or("", |m| m.as_str())
            .to_string();
        Ok(GoVersion {
            segments,
            specified,
            pre,
            metadata: caps.get(10).map_or("", |m| m.as_str()).to_string(),
        })
    }

    pub(crate) fn is_prerelease(&self) -> bool {
        !self.pre.is_empty()
    }

    /// `Version.Compare`, quirks included: segments compare zero-padded to the longer
    /// one, and only when they are identical (same length) does the prerelease count.
    pub(crate) fn compare(&self, other: &GoVersion) -> Ordering {
        if self.to_string() == other.to_string() {
            return Ordering::Equal;
        }
        if self.segments == other.segments {
            return match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prereleases(&self.pre, &other.pre),
            };
        }
        let longest = self.segments.len().max(other.segments.len());
        for i in 0..longest {
            let a = self.segments.get(i).copied().unwrap_or(0);
            let b = other.segments.get(i).copied().unwrap_or(0);
            match a.cmp(&b) {
                Ordering::Equal => continue,
                unequal => return unequal,
            }
        }
        Ordering::Equal
    }
}

impl fmt::Display for GoVersion {
    /// `Version.String()`: segments without a `v`, then `-pre` and `+meta`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let segments: Vec<String> = self.segments.iter().map(i64::to_string).collect();
        f.write_str(&segments.join("."))?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

fn compare_prereleases(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let a: Vec<&str> = a.split('.').collect();
    let b: Vec<&str> = b.split('.').collect();
    for i in 0..a.len().max(b.len()) {
        let part = compare_part(
            a.get(i).copied().unwrap_or(""),
            b.get(i).copied().unwrap_or(""),
        );
        if part != Ordering::Equal {
            return part;
        }
    }
    Ordering::Equal
}

/// go-version's `comparePart`, including its fall-through for two non-numeric parts
/// where the first is not greater (it then compares the failed integer parses, 0 and 0,
/// and answers "less").
fn compare_part(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let a_num = a.parse::<i64>().ok();
    let b_num = b.parse::<i64>().ok();
    if a.is_empty() {
        return if b_num.is_some() {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    if b.is_empty() {
        return if a_num.is_some() {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    match (a_num, b_num) {
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) if a > b => Ordering::Greater,
        (a_num, b_num) if a_num.unwrap_or(0) > b_num.unwrap_or(0) => Ordering::Greater,
        _ => Ordering::Less,
    }
}

impl GoConstraints {
    /// `version.NewConstraint`; an empty or blank string is no constraint at all, as
    /// Terraform's config loader treats it.
    pub fn parse(s: &str) -> Result<GoConstraints, String> {
        if s.trim().is_empty() {
            return Ok(GoConstraints::default());
        }
        let mut items = Vec::new();
        for single in s.split(',') {
            let caps = constraint_re()
                .captures(single)
                .ok_or_else(|| format!("malformed constraint: {single}"))?;
            let op = match &caps[1] {
                "" | "=" => Op::Eq,
                "!=" => Op::Ne,
                ">" => Op::Gt,
                "<" => Op::Lt,
                ">=" => Op::Ge,
                "<=" => Op::Le,
                _ => Op::Pessimistic,
            };
            items.push((op, GoVersion::parse(&caps[2])?));
        }
        Ok(GoConstraints {
            items,
            text: s.to_string(),
        })
    }

    /// `Constraints.Check`: every constraint allows `v`.
    pub fn allows(&self, v: &GoVersion) -> bool {
        self.items.iter().all(|(op, c)| check(*op, v, c))
    }

    /// `Constraints.String()`, which Terraform compares with a prerelease's text.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

fn prerelease_check(v: &GoVersion, c: &GoVersion) -> bool {
    match (v.is_prerelease(), c.is_prerelease()) {
        (true, true) => v.segments == c.segments,
        (true, false) => false,
        _ => true,
    }
}

fn check(op: Op, v: &GoVersion, c: &GoVersion) -> bool {
    let ord = v.compare(c);
    match op {
        Op::Eq => ord == Ordering::Equal,
        Op::Ne => ord != Ordering::Equal,
        Op::Gt => prerelease_check(v, c) && ord == Ordering::Greater,
        Op::Lt => prerelease_check(v, c) && ord == Ordering::Less,
        Op::Ge => prerelease_check(v, c) && ord != Ordering::Less,
        Op::Le => prerelease_check(v, c) && ord != Ordering::Greater,
        Op::Pessimistic => {
            if !prerelease_check(v, c) || (c.is_prerelease() && !v.is_prerelease()) {
                return false;
            }
            if ord == Ordering::Less {
                return false;
            }
            let len = c.segments.len();
            if len > v.segments.len() {
                return false;
            }
            for i in 0..c.specified.saturating_sub(1) {
                if v.segments[i] != c.segments[i] {
                    return false;
                }
            }
            c.segments[len - 1] <= v.segments[len - 1]
        }
    }
}

/// The outcome of choosing a registry module version.
#[derive(Debug, Clone)]
pub struct Selection {
    pub chosen: GoVersion,
}

/// Why no version could be chosen; the texts follow Terraform's diagnostics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    #[error("invalid version constraint {constraint:?}: {reason}")]
    BadConstraint { constraint: String, reason: String },
    #[error("the module has no versions available")]
    NoVersions,
    #[error("there is no available version which matches the given version constraint{}; the newest available version is {newest}", constraint_text(.constraint))]
    NoMatch { constraint: String, newest: String },
}

fn constraint_text(constraint: &str) -> String {
    if constraint.is_empty() {
        String::new()
    } else {
        format!(" {constraint:?}")
    }
}

/// A registry's version list, parsed once per module per run: every version that
/// parses, with its canonical text, in the registry's order, and the strings that do not;
/// indexed so that each call's choice costs a binary search and a short scan instead of
/// a pass over the list (a root calling one module at thousands of versions was
/// quadratic, issue 34).
#[derive(Debug, Clone, Default)]
pub struct VersionList {
    versions: Vec<(GoVersion, String)>,
    invalid: Vec<String>,
    /// The versions without a prerelease, one entry per exact segment list, newest first
    /// and, among equal ones, the first listed first: the order in which the installer's
    /// loop would prefer them.
    releases: Vec<Release>,
    /// Where each exact segment list of `releases` is.
    release_of: HashMap<Vec<i64>, usize>,
    /// Prereleases by canonical text (the only text a constraint may name one by), with
    /// their positions in the list.
    prereleases: HashMap<String, Vec<usize>>,
}

/// The listed versions without a prerelease that have one exact segment list. They are
/// all allowed or all refused by any constraint, so one check answers for them.
#[derive(Debug, Clone)]
struct Release {
    /// The segments without trailing zeros: compared as slices, they order as go-version
    /// compares versions without a prerelease.
    value: Vec<i64>,
    /// Positions in the list, ascending.
    positions: Vec<usize>,
}

impl VersionList {
    /// The versions that parsed, each as go-version prints it (`v1.2` is `1.2.0`).
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.versions.iter().map(|(_, text)| text.as_str())
    }

    /// Versions the registry listed that are not versions at all (Terraform warns and
    /// ignores them).
    pub fn invalid(&self) -> &[String] {
        &self.invalid
    }

    pub fn parse(available: &[String]) -> VersionList {
        let mut list = VersionList::default();
        for listed in available {
            match GoVersion::parse(listed) {
                Ok(v) => {
                    let text = v.to_string();
                    list.versions.push((v, text));
                }
                Err(_) => list.invalid.push(listed.clone()),
            }
        }
        let mut by_segments: HashMap<&[i64], Vec<usize>> = HashMap::new();
        for (position, (v, text)) in list.versions.iter().enumerate() {
            if v.is_prerelease() {
                list.prereleases
                    .entry(text.clone())
                    .or_default()
                    .push(position);
            } else {
                by_segments.entry(&v.segments).or_default().push(position);
            }
        }
        let mut releases: Vec<(Vec<i64>, Release)> = by_segments
            .into_iter()
            .map(|(segments, positions)| {
                let value = trimmed(segments).to_vec();
                (segments.to_vec(), Release { value, positions })
            })
            .collect();
        releases.sort_by(|(_, a), (_, b)| {
            b.value
                .cmp(&a.value)
                .then(a.positions[0].cmp(&b.positions[0]))
        });
        for (index, (segments, release)) in releases.into_iter().enumerate() {
            list.release_of.insert(segments, index);
            list.releases.push(release);
        }
        list
    }

    fn version(&self, position: usize) -> &GoVersion {
        &self.versions[position].0
    }

    /// The release the installer's loop ends on among those `allowed`, as a position in
    /// the list: the first allowed in [`Self::releases`] order, looked for only within
    /// `range`, outside which `allowed` refuses every one.
    fn best_release(
        &self,
        range: std::ops::Range<usize>,
        allowed: impl Fn(&GoVersion) -> bool,
    ) -> Option<usize> {
        self.releases.get(range)?.iter().find_map(|release| {
            let first = release.positions[0];
            allowed(self.version(first)).then_some(first)
        })
    }

    /// What the installer's loop (`best` replaced by each later version strictly greater)
    /// ends on, given the best release and the first of the prereleases the constraint
    /// names by text, when `allowed` takes it. The loop's comparison is not transitive
    /// (`1.0.0-beta` equals `1.0.0.0`, which equals `1.0.0`, yet is less than it), so
    /// this follows the loop: among the versions of the greatest value, the first listed
    /// wins, except that a prerelease gives way to a later release with exactly its
    /// segments.
    fn loop_result(
        &self,
        release: Option<usize>,
        prerelease: Option<usize>,
        allowed: impl Fn(&GoVersion) -> bool,
    ) -> Option<usize> {
        let (release, pre) = match (release, prerelease) {
            (r, None) => return r,
            (None, p) => return p,
            (Some(r), Some(p)) => (r, p),
        };
        let pre_version = self.version(pre);
        let value = |v: &GoVersion| trimmed(&v.segments).to_vec();
        match value(pre_version).cmp(&value(self.version(release))) {
            Ordering::Greater => Some(pre),
            Ordering::Less => Some(release),
            Ordering::Equal if release < pre => Some(release),
            Ordering::Equal => {
                let same = self
                    .release_of
                    .get(&pre_version.segments)
                    .map(|&i| &self.releases[i])
                    .filter(|r| allowed(self.version(r.positions[0])));
                let later = same.and_then(|r| {
                    let after = r.positions.partition_point(|&p| p < pre);
                    r.positions.get(after).copied()
                });
                Some(later.unwrap_or(pre))
            }
        }
    }

    /// The releases that can satisfy `constraints`, as a range of [`Self::releases`]:
    /// each bound narrows it by binary search. Outside it no release is allowed.
    fn candidates(&self, constraints: &GoConstraints) -> std::ops::Range<usize> {
        let (mut start, mut end) = (0, self.releases.len());
        let at_most = |value: &[i64]| {
            self.releases
                .partition_point(|r| r.value.as_slice() > value)
        };
        let below = |value: &[i64]| {
            self.releases
                .partition_point(|r| r.value.as_slice() >= value)
        };
        for (op, c) in &constraints.items {
            let value = trimmed(&c.segments);
            match op {
                Op::Eq => {
                    start = start.max(at_most(value));
                    end = end.min(below(value));
                }
                Op::Lt | Op::Le => start = start.max(at_most(value)),
                Op::Gt | Op::Ge => end = end.min(below(value)),
                // A release never satisfies `~>` of a prerelease.
                Op::Pessimistic if c.is_prerelease() => end = 0,
                Op::Pessimistic => {
                    end = end.min(below(value));
                    if let Some(next) = next_prefix(&c.segments[..c.specified.saturating_sub(1)]) {
                        start = start.max(below(trimmed(&next)));
                    }
                }
                Op::Ne => {}
            }
        }
        start..end.max(start)
    }
}

/// `segments` without trailing zeros.
fn trimmed(segments: &[i64]) -> &[i64] {
    let len = segments.iter().rposition(|&s| s != 0).map_or(0, |i| i + 1);
    &segments[..len]
}

/// The smallest segment list above every one that starts with `prefix` (`None` when
/// nothing is: no prefix, or its last segment cannot grow).
fn next_prefix(prefix: &[i64]) -> Option<Vec<i64>> {
    let (last, head) = prefix.split_last()?;
    let mut next = head.to_vec();
    next.push(last.checked_add(1)?);
    Some(next)
}

/// `installRegistryModule`'s loop: parse each listed version (skipping invalid ones),
/// drop prereleases not requested exactly, and keep the newest that the constraint
/// allows (the first listed among equal ones). `constraint` is the raw `version`
/// argument, if any.
pub fn select_version(
    available: &VersionList,
    constraint: Option<&str>,
) -> Result<Selection, SelectError> {
    let raw = constraint.unwrap_or("");
    let constraints = GoConstraints::parse(raw).map_err(|reason| SelectError::BadConstraint {
        constraint: raw.to_string(),
        reason,
    })?;
    // Only a prerelease whose text is the whole constraint is considered; all such are
    // the same version to every check.
    let named = available
        .prereleases
        .get(constraints.text())
        .map(|positions| positions[0]);
    let allows = |v: &GoVersion| constraints.allows(v);
    let release = available.best_release(available.candidates(&constraints), allows);
    let prerelease = named.filter(|&p| allows(available.version(p)));
    if let Some(best) = available.loop_result(release, prerelease, allows) {
        return Ok(Selection {
            chosen: available.version(best).clone(),
        });
    }
    let any = |_: &GoVersion| true;
    let newest = available.best_release(0..available.releases.len(), any);
    match available.loop_result(newest, named, any) {
        None => Err(SelectError::NoVersions),
        Some(newest) => Err(SelectError::NoMatch {
            constraint: raw.to_string(),
            newest: available.version(newest).to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_print_like_go_version() {
        for (input, want) in [
            ("1.2.3", Some("1.2.3")),
            ("v1.2", Some("1.2.0")),
            ("1", Some("1.0.0")),
            ("1.2.3.4", Some("1.2.3.4")),
            ("01.002.3", Some("1.2.3")),
            ("1.0.0-beta.1", Some("1.0.0-beta.1")),
            ("1.0.0beta", Some("1.0.0-beta")),
            ("1.0.0-rc1+build.5", Some("1.0.0-rc1+build.5")),
            ("1.0.0+meta", Some("1.0.0+meta")),
            ("", None),
            ("x1.0", None),
            ("1.0.", None),
            // The second prerelease form accepts a lone `-` as the prerelease itself.
            ("1.0.0-", Some("1.0.0--")),
            ("99999999999999999999.0.0", None),
        ] {
            let got = GoVersion::parse(input).ok().map(|v| v.to_string());
            assert_eq!(got.as_deref(), want, "{input:?}");
        }
    }

    #[test]
    fn ordering() {
        let ordered = [
            "0.9.0",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.1.0",
            "2.0.0",
        ];
        for pair in ordered.windows(2) {
            let a = GoVersion::parse(pair[0]).unwrap();
            let b = GoVersion::parse(pair[1]).unwrap();
            assert_eq!(a.compare(&b), Ordering::Less, "{} < {}", pair[0], pair[1]);
            assert_eq!(
                b.compare(&a),
                Ordering::Greater,
                "{} > {}",
                pair[1],
                pair[0]
            );
        }
        let eq = |a: &str, b: &str| {
            GoVersion::parse(a)
                .unwrap()
                .compare(&GoVersion::parse(b).unwrap())
        };
        assert_eq!(eq("1.0.0+a", "1.0.0+b"), Ordering::Equal);
        assert_eq!(eq("1.0", "1.0.0.0"), Ordering::Equal);
        // Segment lengths differ, so the prerelease is never looked at (go-version).
        assert_eq!(eq("1.0.0-beta", "1.0.0.0"), Ordering::Equal);
    }

    /// One row per (constraint, version): does `Check` allow it.
    #[test]
    fn constraint_checks() {
        let cases: &[(&str, &str, bool)] = &[
            ("1.2.0", "1.2.0", true),
            ("= 1.2", "1.2.0", true),
            ("!= 1.2.0", "1.2.1", true),
            (">= 1.0, < 2.0", "1.9.9", true),
            (">= 1.0, < 2.0", "2.0.0", false),
            ("> 1.0", "1.0.0", false),
            ("<= 1.0", "1.0.0", true),
            ("~> 1.2", "1.9.0", true),
            ("~> 1.2", "2.0.0", false),
            ("~> 1.2", "1.1.0", false),
            ("~> 1.2.3", "1.2.9", true),
            ("~> 1.2.3", "1.3.0", false),
            // `~> 1` pins nothing: any version from 1.0.0 up.
            ("~> 1", "7.0.0", true),
            ("~> 1", "0.9.0", false),
            // Prereleases: only a constraint with a prerelease on the same base matches.
            (">= 1.0.0", "1.1.0-beta", false),
            (">= 1.1.0-alpha", "1.1.0-beta", true),
            (">= 1.0.0-alpha", "1.1.0-beta", false),
            (">= 1.0.0-alpha", "1.1.0", true),
            ("~> 1.0.0-beta", "1.0.0", false),
            ("~> 1.0.0-beta", "1.0.0-rc", true),
            ("1.0.0-beta", "1.0.0-beta", true),
            ("= 1.0.0-beta", "1.0.0-beta", true),
            (" >=1.0 ,<1.5 ", "1.4.0", true),
        ];
        for (constraint, version, want) in cases {
            let c = GoConstraints::parse(constraint).unwrap();
            let v = GoVersion::parse(version).unwrap();
            assert_eq!(c.allows(&v), *want, "{constraint:?} vs {version}");
        }
        for bad in ["> =1.0", "~ 1.0", ">= 1.0,", "1.0 || 2.0", "^1.0"] {
            assert!(GoConstraints::parse(bad).is_err(), "{bad:?}");
        }
        assert!(GoConstraints::parse("  ").unwrap().items.is_empty());
    }

    /// Version selection as `installRegistryModule` does it. The prerelease rows were
    /// checked against Terraform v1.0.3 (tests/it/modules_fetch.rs, oracle test).
    #[test]
    fn selection() {
        let listed: Vec<String> = [
            "1.0.0",
            "1.5.0",
            "2.0.0-beta",
            "2.0.0",
            "2.1.0-rc1",
            "not-a-version",
            "v1.9.0",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let cases: &[(Option<&str>, Result<&str, &str>)] = &[
            (None, Ok("2.0.0")),
            (Some(""), Ok("2.0.0")),
            (Some("~> 1.0"), Ok("1.9.0")),
            (Some("~> 1"), Ok("2.0.0")),
            (Some("< 2.0.0"), Ok("1.9.0")),
            (Some("2.0.0-beta"), Ok("2.0.0-beta")),
            // Requested, but not byte for byte: the prerelease is skipped.
            (Some("=2.0.0-beta"), Err("matches the given version constraint \"=2.0.0-beta\"; the newest available version is 2.0.0")),
            (Some("v2.0.0-beta"), Err("newest available version is 2.0.0")),
            (Some(">= 2.1.0-rc1"), Err("newest available version is 2.0.0")),
            (Some("> 3.0"), Err("newest available version is 2.0.0")),
            (Some("nonsense"), Err("invalid version constraint")),
        ];
        assert_eq!(VersionList::parse(&listed).invalid(), ["not-a-version"]);
        for (constraint, want) in cases {
            let got = select_version(&VersionList::parse(&listed), *constraint);
            match (got, want) {
                (Ok(s), Ok(v)) => {
                    assert_eq!(s.chosen.to_string(), *v, "{constraint:?}");
                }
                (Err(e), Err(text)) => assert!(e.to_string().contains(text), "{constraint:?}: {e}"),
                (got, want) => panic!("{constraint:?}: got {got:?}, want {want:?}"),
            }
        }
        assert_eq!(
            select_version(&VersionList::parse(&[]), None).unwrap_err(),
            SelectError::NoVersions
        );
        let only_pre = vec!["1.0.0-beta".to_string()];
        assert_eq!(
            select_version(&VersionList::parse(&only_pre), None).unwrap_err(),
            SelectError::NoVersions
        );
        // Equal versions: the first listed wins, metadata and all.
        let tied = vec!["1.0.0+first".to_string(), "1.0.0+second".to_string()];
        assert_eq!(
            select_version(&VersionList::parse(&tied), None)
                .unwrap()
                .chosen
                .to_string(),
            "1.0.0+first"
        );
    }

    /// The installer's loop as written (one pass over the list per call), against which
    /// the indexed choice is checked.
    fn looped(listed: &[String], raw: &str) -> Result<String, SelectError> {
        let constraints =
            GoConstraints::parse(raw).map_err(|reason| SelectError::BadConstraint {
                constraint: raw.to_string(),
                reason,
            })?;
        let mut newest: Option<GoVersion> = None;
        let mut best: Option<GoVersion> = None;
        for v in listed.iter().filter_map(|l| GoVersion::parse(l).ok()) {
            if v.is_prerelease() && constraints.text() != v.to_string() {
                continue;
            }
            if newest
                .as_ref()
                .is_none_or(|n| v.compare(n) == Ordering::Greater)
            {
                newest = Some(v.clone());
            }
            if constraints.allows(&v)
                && best
                    .as_ref()
                    .is_none_or(|b| v.compare(b) == Ordering::Greater)
            {
                best = Some(v);
            }
        }
        match (best, newest) {
            (Some(best), _) => Ok(best.to_string()),
            (None, None) => Err(SelectError::NoVersions),
            (None, Some(newest)) => Err(SelectError::NoMatch {
                constraint: raw.to_string(),
                newest: newest.to_string(),
            }),
        }
    }

    /// The indexed choice equals the loop's on every constraint over shuffled subsets of
    /// versions that exercise the loop's quirks: equal versions with other segment
    /// counts or metadata, prereleases equal to a release, `~>` with four segments.
    #[test]
    fn indexed_selection_is_the_loops_choice() {
        let pool = [
            "1.0",
            "1.0.0.0",
            "1.0.0-beta",
            "1.0.0",
            "v1.0.0+meta",
            "1.0.0.1",
            "1.0.1",
            "1.2.3.4",
            "1.2.3",
            "1.2.4",
            "2.0.0-rc1",
            "2.0.0",
            "0.9",
            "1.0.0-beta+b",
            "junk",
        ];
        let constraints = [
            "",
            "1.0.0",
            "= 1.0",
            "1.0.0-beta",
            "=1.0.0-beta",
            "2.0.0-rc1",
            "!= 1.0.0",
            "!= 1.0.0, != 2.0.0",
            ">= 1.0.0-beta",
            "> 1.0",
            "< 1.0.0.1",
            "<= 1.0.0",
            "~> 1.0",
            "~> 1",
            "~> 1.0.0.0",
            "~> 1.2.3.4",
            "~> 1.2.3",
            "~> 1.0.0-beta",
            ">= 1.0, < 1.2.4",
            "> 3",
            "~> 0.9",
            "1.0.0.0",
            "< 0.1",
            ">= 1.0.0-beta, != 1.0.0",
        ];
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..300 {
            let mut listed: Vec<String> = pool
                .iter()
                .filter(|_| next() % 3 != 0)
                .map(|v| v.to_string())
                .collect();
            for i in (1..listed.len()).rev() {
                listed.swap(i, next() % (i + 1));
            }
            let list = VersionList::parse(&listed);
            for raw in constraints {
                let got = select_version(&list, Some(raw)).map(|s| s.chosen.to_string());
                assert_eq!(got, looped(&listed, raw), "{raw:?} over {listed:?}");
            }
        }
    }
}
