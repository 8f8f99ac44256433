//! The values expressions evaluate to: HCL's (cty's) null, bool, number, string, list and
//! object, plus the two things a static evaluation must carry that a plain value cannot:
//! **unknown** (a value Terraform or OpenTofu do not have at `init`, with the reason why,
//! so the error can name it) and **marks** (sensitive, ephemeral, deprecated), which
//! follow a value through every operation as cty's marks do.
//!
//! Lists and tuples share [`Value::List`], maps and objects [`Value::Object`] (attributes
//! sorted, as cty keeps them): nothing a module `source` or `version` needs tells them
//! apart. Sets are lists without duplicates, in cty's order ([`Value::set_of`]).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Marks a value carries (cty value marks). Operations give their result the union of
/// their operands' marks; reading an element of a marked collection gives it the
/// collection's marks too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Marks(u8);

impl Marks {
    pub(crate) const NONE: Marks = Marks(0);
    /// From `sensitive()` or a `sensitive = true` variable.
    pub(crate) const SENSITIVE: Marks = Marks(1);
    /// From an `ephemeral = true` variable or `ephemeralasnull`'s inputs.
    pub(crate) const EPHEMERAL: Marks = Marks(2);

    pub(crate) fn union(self, other: Marks) -> Marks {
        Marks(self.0 | other.0)
    }

    pub(crate) fn contains(self, other: Marks) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    pub(crate) fn without(self, other: Marks) -> Marks {
        Marks(self.0 & !other.0)
    }

    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Why a value is unknown, in words a user can act on ("var.ref is not declared
/// `const = true`"); `None` where the evaluator has nothing better to say.
pub(crate) type UnknownCause = Option<Arc<str>>;

/// A value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    /// A list, tuple or set.
    List(Vec<Value>),
    /// An object or map, by attribute name.
    Object(BTreeMap<String, Value>),
    /// Not known during this evaluation.
    Unknown(UnknownCause),
    /// A value with marks; never nested directly in another `Marked`, never around an
    /// empty set of marks ([`Value::mark`] keeps both rules).
    Marked(Box<Value>, Marks),
}

impl Value {
    pub(crate) fn string(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    pub(crate) fn unknown(cause: impl Into<Arc<str>>) -> Value {
        Value::Unknown(Some(cause.into()))
    }

    /// This value with `marks` added.
    pub(crate) fn mark(self, marks: Marks) -> Value {
        if marks.is_empty() {
            return self;
        }
        match self {
            Value::Marked(inner, old) => Value::Marked(inner, old.union(marks)),
            other => Value::Marked(Box::new(other), marks),
        }
    }

    /// The value without its top-level marks, and those marks.
    pub(crate) fn unmark(self) -> (Value, Marks) {
        match self {
            Value::Marked(inner, marks) => (*inner, marks),
            other => (other, Marks::NONE),
        }
    }

    /// The value without its top-level marks, by reference.
    pub(crate) fn unmarked(&self) -> (&Value, Marks) {
        match self {
            Value::Marked(inner, marks) => (inner, *marks),
            other => (other, Marks::NONE),
        }
    }

    /// Every mark anywhere in the value (cty's `UnmarkDeep`'s set).
    pub(crate) fn deep_marks(&self) -> Marks {
        match self {
            Value::Marked(inner, marks) => marks.union(inner.deep_marks()),
            Value::List(items) => items
                .iter()
                .fold(Marks::NONE, |m, v| m.union(v.deep_marks())),
            Value::Object(attrs) => attrs
                .values()
                .fold(Marks::NONE, |m, v| m.union(v.deep_marks())),
            _ => Marks::NONE,
        }
    }

    /// The value with every mark removed, at every depth.
    pub(crate) fn unmark_deep(self) -> Value {
        match self {
            Value::Marked(inner, _) => inner.unmark_deep(),
            Value::List(items) => Value::List(items.into_iter().map(Value::unmark_deep).collect()),
            Value::Object(attrs) => Value::Object(
                attrs
                    .into_iter()
                    .map(|(k, v)| (k, v.unmark_deep()))
                    .collect(),
            ),
            other => other,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self.unmarked().0, Value::Null)
    }

    /// Whether the value itself (not what it holds) is unknown.
    pub(crate) fn is_unknown(&self) -> bool {
        matches!(self.unmarked().0, Value::Unknown(_))
    }

    /// The first unknown anywhere in the value, as its cause; `None` when wholly known.
    pub(crate) fn first_unknown(&self) -> Option<&UnknownCause> {
        match self {
            Value::Unknown(cause) => Some(cause),
            Value::Marked(inner, _) => inner.first_unknown(),
            Value::List(items) => items.iter().find_map(Value::first_unknown),
            Value::Object(attrs) => attrs.values().find_map(Value::first_unknown),
            _ => None,
        }
    }

    pub(crate) fn is_wholly_known(&self) -> bool {
        self.first_unknown().is_none()
    }

    /// The type's name as cty prints it in messages (`string`, `number`, `tuple`, …).
    pub(crate) fn type_name(&self) -> &'static str {
        match self.unmarked().0 {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::List(_) => "tuple",
            Value::Object(_) => "object",
            Value::Unknown(_) => "unknown",
            Value::Marked(..) => "marked",
        }
    }

    /// The value as a string where HCL converts it to one (templates, string parameters):
    /// strings as they are, numbers and bools in their canonical text; `None` for
    /// anything else (null, collections, unknown).
    pub(crate) fn as_string(&self) -> Option<String> {
        match self.unmarked().0 {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(number_text(*n)),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// A set built from `items`: duplicates removed, ordered as cty orders a set's
    /// elements (strings lexically, numbers numerically, others in order of appearance).
    pub(crate) fn set_of(items: Vec<Value>) -> Value {
        let mut out: Vec<Value> = Vec::with_capacity(items.len());
        for item in items {
            if !out.contains(&item) {
                out.push(item);
            }
        }
        let all_strings = out.iter().all(|v| matches!(v, Value::String(_)));
        let all_numbers = out.iter().all(|v| matches!(v, Value::Number(_)));
        if all_strings {
            out.sort_by(|a, b| match (a, b) {
                (Value::String(a), Value::String(b)) => a.cmp(b),
                _ => std::cmp::Ordering::Equal,
            });
        } else if all_numbers {
            out.sort_by(|a, b| match (a, b) {
                (Value::Number(a), Value::Number(b)) => a.total_cmp(b),
                _ => std::cmp::Ordering::Equal,
            });
        }
        Value::List(out)
    }
}

/// A number's text as cty prints it: integers without a fraction, others in the
/// shortest form that reads back the same.
pub(crate) fn number_text(n: f64) -> String {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{n:.0}")
    } else {
        format!("{n}")
    }
}

impl fmt::Display for Value {
    /// HCL's own notation, for messages (`"a"`, `["x", 1]`, `{ a = true }`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => write!(f, "null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{}", number_text(*n)),
            Value::String(s) => write!(f, "{s:?}"),
            Value::List(items) => {
                write!(f, "[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{item}")?;
                }
                write!(f, "]")
            }
            Value::Object(attrs) => {
                write!(f, "{{")?;
                for (i, (k, v)) in attrs.iter().enumerate() {
                    write!(f, "{}{k} = {v}", if i > 0 { ", " } else { " " })?;
                }
                write!(f, "{}}}", if attrs.is_empty() { "" } else { " " })
            }
            Value::Unknown(_) => write!(f, "(known after apply)"),
            Value::Marked(inner, marks) if marks.contains(Marks::SENSITIVE) => {
                let _ = inner;
                write!(f, "(sensitive value)")
            }
            Value::Marked(inner, _) => write!(f, "{inner}"),
        }
    }
}

impl From<&hcl::Value> for Value {
    fn from(value: &hcl::Value) -> Value {
        match value {
            hcl::Value::Null => Value::Null,
            hcl::Value::Bool(b) => Value::Bool(*b),
            hcl::Value::Number(n) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
            hcl::Value::String(s) => Value::String(s.clone()),
            hcl::Value::Array(items) => Value::List(items.iter().map(Value::from).collect()),
            hcl::Value::Object(attrs) => Value::Object(
                attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::from(v)))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_cty_prints_them() {
        for (n, text) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (-0.25, "-0.25"),
            (1e20, "100000000000000000000"),
        ] {
            assert_eq!(number_text(n), text);
        }
    }

    #[test]
    fn marks_gather_and_the_deepest_unknown_is_found() {
        let v = Value::Object(BTreeMap::from([
            ("a".to_string(), Value::string("x").mark(Marks::SENSITIVE)),
            (
                "b".to_string(),
                Value::List(vec![Value::unknown("var.b is not const")]),
            ),
        ]));
        assert!(v.deep_marks().contains(Marks::SENSITIVE));
        assert_eq!(
            v.first_unknown().cloned().flatten().as_deref(),
            Some("var.b is not const")
        );
        let v = Value::string("x")
            .mark(Marks::SENSITIVE)
            .mark(Marks::EPHEMERAL);
        let (inner, marks) = v.unmark();
        assert_eq!(inner, Value::string("x"));
        assert!(marks.contains(Marks::SENSITIVE) && marks.contains(Marks::EPHEMERAL));
    }

    #[test]
    fn sets_drop_duplicates_and_sort() {
        let set = Value::set_of(vec![
            Value::string("b"),
            Value::string("a"),
            Value::string("b"),
        ]);
        assert_eq!(
            set,
            Value::List(vec![Value::string("a"), Value::string("b")])
        );
    }
}
