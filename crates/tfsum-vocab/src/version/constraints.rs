//! Version constraints: parsing, matching and canonical rendering (spec §4.2–4.5).
//!
//! Terraform reads a `version = "..."` constraint twice: first with hashicorp/go-version
//! (a regular expression per comma-separated piece), then with go-versions' Ruby-style
//! parser, which builds the constraints it actually uses. A string must pass both, so
//! [`Constraints::parse`] runs the go-versions grammar (for its precise error messages) and
//! then the go-version expression. Lock files only go through go-versions, which is
//! [`Constraints::parse_ruby_style`].
//!
//! A [`Constraints`] value is a list of selections that must all hold: concatenating two
//! lists intersects them. Nothing is merged or simplified until [`Constraints::canonical`]
//! renders the list for a lock file.

use std::cmp::Ordering;
use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

use super::scan::{scan, Raw};
use super::version::{numbers, Version};

/// A constraint operator. Bare versions and `=` are both [`Op::Eq`]; `~>` splits by the
/// number of version parts written (spec §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    /// `~> M.N.P`: at least M.N.P, below M.(N+1).0.
    PessimisticPatch,
    /// `~> M` or `~> M.N`: at least M.N.0, below (M+1).0.0.
    PessimisticMinor,
}

impl Op {
    /// Order among selections with the same boundary in the canonical string (spec §4.5).
    fn canonical_priority(self) -> u8 {
        match self {
            Op::Gt => 1,
            Op::Ge => 2,
            Op::Eq => 3,
            Op::PessimisticPatch => 4,
            Op::PessimisticMinor => 5,
            Op::Le => 6,
            Op::Lt => 7,
            Op::Ne => 8,
        }
    }

    /// Operator text in the canonical string; equality is written as a bare version.
    fn canonical_text(self) -> &'static str {
        match self {
            Op::Eq => "",
            Op::Ne => "!= ",
            Op::Gt => "> ",
            Op::Ge => ">= ",
            Op::Lt => "< ",
            Op::Le => "<= ",
            Op::PessimisticPatch | Op::PessimisticMinor => "~> ",
        }
    }
}

/// One operator applied to a boundary version. The boundary is already zero-filled
/// (`ConstrainToZero`): `>= 2` is stored as `>= 2.0.0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Selection {
    pub op: Op,
    pub boundary: Version,
}

impl Selection {
    /// Whether `v` is in this selection's version set, before the prerelease rule
    /// (`versions.MeetingConstraints`, spec §4.4). Only `=` and `!=` look at metadata, and
    /// they compare it exactly, as Go's `==` does.
    fn contains(&self, v: &Version) -> bool {
        let b = &self.boundary;
        let cmp = v.cmp_precedence(b);
        match self.op {
            Op::Eq => v == b,
            Op::Ne => v != b,
            Op::Gt => cmp == Ordering::Greater,
            Op::Ge => cmp != Ordering::Less,
            Op::Lt => cmp == Ordering::Less,
            Op::Le => cmp != Ordering::Greater,
            Op::PessimisticMinor => {
                let upper = Version::new(b.major.saturating_add(1), 0, 0);
                cmp != Ordering::Less && v.cmp_precedence(&upper) == Ordering::Less
            }
            Op::PessimisticPatch => {
                let upper = Version::new(b.major, b.minor.saturating_add(1), 0);
                cmp != Ordering::Less && v.cmp_precedence(&upper) == Ordering::Less
            }
        }
    }
}

/// Renders one selection in canonical form; `~> M.N` keeps two parts (spec §4.5).
impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.boundary;
        f.write_str(self.op.canonical_text())?;
        if self.op == Op::PessimisticMinor {
            write!(f, "{}.{}", b.major, b.minor)?;
            if !b.prerelease.is_empty() {
                write!(f, "-{}", b.prerelease)?;
            }
            if !b.metadata.is_empty() {
                write!(f, "+{}", b.metadata)?;
            }
            Ok(())
        } else {
            write!(f, "{b}")
        }
    }
}

/// The intersection of zero or more selections. Empty means "any release".
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Constraints {
    selections: Vec<Selection>,
}

/// Why a constraint string was rejected. Wording follows go-versions v1.0.2, which is what
/// Terraform shows (VECTORS.md §E).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConstraintError {
    /// One comma-separated constraint is malformed; `spec` is the text that was read for it.
    #[error("invalid specification {spec:?}: {reason}")]
    Invalid { spec: String, reason: String },
    /// Two constraints without a comma between them.
    #[error("missing comma after {after:?}")]
    MissingComma { after: String },
    /// A `v` after a complete constraint (`>= 1.0 v2`).
    #[error("a \"v\" prefix should not be used")]
    VPrefix,
    /// Accepted by go-versions but not by hashicorp/go-version, Terraform's first pass
    /// (for example an empty piece between commas, or a dangling separator).
    #[error("{piece:?} does not use correct version constraint syntax")]
    Syntax { piece: String },
}

impl ConstraintError {
    /// The go-versions reason alone, without the `invalid specification "…":` prefix.
    pub fn reason(&self) -> String {
        match self {
            ConstraintError::Invalid { reason, .. } => reason.clone(),
            other => other.to_string(),
        }
    }
}

/// hashicorp/go-version's per-piece expression. Go's `\s` is only `[\t\n\f\r ]`.
static GO_VERSION_PIECE: LazyLock<Regex> = LazyLock::new(|| {
    let space = r"[\t\n\x0C\r ]*";
    let version = concat!(
        r"v?[0-9]+(\.[0-9]+)*",
        r"(-[0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*|-?[A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)?",
        r"(\+[0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*)?",
    );
    let pattern = format!("^{space}(<=|>=|!=|~>|<|>|=|){space}{version}{space}$");
    Regex::new(&pattern).unwrap_or_else(|e| panic!("constant regex {pattern:?}: {e}"))
});

impl Constraints {
    /// Parses a constraint string from configuration (`required_providers` `version`, a
    /// `provider` block's `version`): it must be accepted by both of Terraform's parsers
    /// (spec §4.2), so `v1.2`, `>=  1.2`, `1.2.3.4`, `1.0.0beta`, wildcards and the empty
    /// string are all errors.
    pub fn parse(s: &str) -> Result<Constraints, ConstraintError> {
        let parsed = Constraints::parse_ruby_style(s)?;
        for piece in s.split(',') {
            if !GO_VERSION_PIECE.is_match(piece) {
                return Err(ConstraintError::Syntax {
                    piece: piece.to_string(),
                });
            }
        }
        Ok(parsed)
    }

    /// Parses with go-versions' `ParseRubyStyleMulti` only, which is what Terraform does
    /// for the `constraints` attribute of a lock file. The empty string is no constraint.
    pub fn parse_ruby_style(s: &str) -> Result<Constraints, ConstraintError> {
        let mut selections = Vec::new();
        let mut remain = s.trim();
        while !remain.is_empty() {
            let raw = scan(remain);
            let consumed = raw.consumed(remain);
            let selection = selection_from_raw(&raw).map_err(|reason| {
                // With no number read, the scanner consumed next to nothing; quote the rest.
                let spec = if raw.nums.is_empty() {
                    remain
                } else {
                    consumed
                };
                ConstraintError::Invalid {
                    spec: spec.to_string(),
                    reason,
                }
            })?;
            selections.push(selection);
            remain = raw.rest.trim();
            if !remain.is_empty() {
                if remain.starts_with('v') {
                    return Err(ConstraintError::VPrefix);
                }
                match remain.strip_prefix(',') {
                    Some(after_comma) => remain = after_comma.trim(),
                    None => {
                        return Err(ConstraintError::MissingComma {
                            after: consumed.to_string(),
                        })
                    }
                }
            }
        }
        Ok(Constraints { selections })
    }

    /// Adds every selection of `other`: the result allows what both allowed (spec §4.2).
    /// Duplicates are kept; [`Constraints::canonical`] removes them.
    pub fn extend(&mut self, other: &Constraints) {
        self.selections.extend(other.selections.iter().cloned());
    }

    pub fn is_empty(&self) -> bool {
        self.selections.is_empty()
    }

    pub fn selections(&self) -> &[Selection] {
        &self.selections
    }

    /// Whether Terraform would accept `v` under these constraints (spec §4.4): every
    /// selection must contain it, and a prerelease must also be named exactly by an `=` (or
    /// bare) selection. So `>= 1.0.0-beta` admits no prerelease, and empty constraints admit
    /// every release but no prerelease.
    pub fn allows(&self, v: &Version) -> bool {
        if !self.selections.iter().all(|s| s.contains(v)) {
            return false;
        }
        !v.is_prerelease()
            || self
                .selections
                .iter()
                .any(|s| s.op == Op::Eq && &s.boundary == v)
    }

    /// The canonical string written to lock files (`VersionConstraintsString`, spec §4.5):
    /// duplicates on (operator, boundary) dropped, sorted by boundary (metadata breaking
    /// ties, empty first) and then operator priority, joined with `", "`. Redundant bounds
    /// are not merged. Empty constraints give `""`.
    pub fn canonical(&self) -> String {
        let mut sorted: Vec<&Selection> = Vec::with_capacity(self.selections.len());
        for s in &self.selections {
            if !sorted.contains(&s) {
                sorted.push(s);
            }
        }
        sorted.sort_by(|a, b| canonical_order(a, b));
        let rendered: Vec<String> = sorted.iter().map(|s| s.to_string()).collect();
        rendered.join(", ")
    }

    /// The same constraints with their selections as [`Constraints::canonical`] writes
    /// them: duplicates dropped, in canonical order. Two constraints that write the same
    /// string are then equal values, as a lock file read back is.
    pub fn canonicalized(self) -> Constraints {
        let mut unique: Vec<Selection> = Vec::with_capacity(self.selections.len());
        for s in self.selections {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        unique.sort_by(canonical_order);
        Constraints { selections: unique }
    }
}

/// The order of selections in the canonical string: by boundary, then operator priority.
fn canonical_order(a: &Selection, b: &Selection) -> std::cmp::Ordering {
    a.boundary
        .cmp(&b.boundary)
        .then(a.op.canonical_priority().cmp(&b.op.canonical_priority()))
}

/// The canonical string, as [`Constraints::canonical`].
impl fmt::Display for Constraints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

/// Checks one scanned constraint the way go-versions' `parseRubyStyle` does and builds the
/// selection, zero-filling missing numbers.
fn selection_from_raw(raw: &Raw<'_>) -> Result<Selection, String> {
    let op = match raw.op {
        "=" | "" => Op::Eq,
        "!=" => Op::Ne,
        ">" => Op::Gt,
        ">=" => Op::Ge,
        "<" => Op::Lt,
        "<=" => Op::Le,
        "~>" if raw.nums.len() == 3 => Op::PessimisticPatch,
        "~>" => Op::PessimisticMinor,
        "=<" => return Err("invalid constraint operator \"=<\"; did you mean \"<=\"?".to_string()),
        "=>" => return Err("invalid constraint operator \"=>\"; did you mean \">=\"?".to_string()),
        other => return Err(format!("invalid constraint operator {other:?}")),
    };
    match raw.sep {
        "" => {}
        " " if !raw.op.is_empty() => {}
        sep if sep.contains('v') => {
            return Err("a \"v\" prefix should not be used".to_string());
        }
        _ if raw.op.is_empty() => {
            return Err("extraneous spaces at start of specification".to_string());
        }
        _ => {
            return Err(format!(
                "only one space is expected after the operator {:?}",
                raw.op
            ));
        }
    }
    if raw.nums.is_empty() {
        // go-versions would report a confusing "missing comma" here; say what is missing.
        return Err(if raw.rest.is_empty() {
            "a version number is required".to_string()
        } else {
            format!("invalid characters {:?}", raw.rest)
        });
    }
    if raw.nums.len() > 3 {
        return Err(
            "too many numbered portions; only three are allowed (major, minor, patch)".to_string(),
        );
    }
    let nums = numbers(raw, "omit segments that should be unconstrained")?;
    Ok(Selection {
        op,
        boundary: Version {
            major: nums[0].unwrap_or(0),
            minor: nums[1].unwrap_or(0),
            patch: nums[2].unwrap_or(0),
            prerelease: raw.pre.to_string(),
            metadata: raw.meta.to_string(),
        },
    })
}
