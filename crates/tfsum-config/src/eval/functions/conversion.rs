//! Type conversion and marks: `tostring`, `tonumber`, `tobool`, `tolist`, `toset`,
//! `tomap`, `convert`, `ephemeralasnull` (Terraform `internal/lang/funcs/conversion.go`,
//! with go-cty's `cty/convert` rules), `sensitive`, `nonsensitive`, `issensitive`
//! (Terraform `internal/lang/funcs/sensitive.go`).
//!
//! The `to…` functions see the marks of their argument (so that an error about a
//! sensitive value does not print it) and handle unknowns themselves, as Terraform's do.

use std::collections::BTreeMap;

use super::Ctx;
use crate::eval::value::{Marks, Value};

/// `sensitive(v)`: `v` marked sensitive.
pub(super) fn sensitive(_: &Ctx<'_>, mut args: Vec<Value>) -> Result<Value, String> {
    Ok(args.remove(0).mark(Marks::SENSITIVE))
}

/// `nonsensitive(v)`: `v` without its sensitive mark (Terraform 1.x accepts a value that
/// is not sensitive, with no error since 1.7; OpenTofu likewise).
pub(super) fn nonsensitive(_: &Ctx<'_>, mut args: Vec<Value>) -> Result<Value, String> {
    let (inner, marks) = args.remove(0).unmark();
    Ok(inner.mark(marks.without(Marks::SENSITIVE)))
}

/// `issensitive(v)`: whether `v` itself is marked sensitive (unknown when it is not and
/// is not known).
pub(super) fn issensitive(_: &Ctx<'_>, mut args: Vec<Value>) -> Result<Value, String> {
    let (inner, marks) = args.remove(0).unmark();
    if marks.contains(Marks::SENSITIVE) {
        return Ok(Value::Bool(true));
    }
    match inner {
        Value::Unknown(cause) => Ok(Value::Unknown(cause)),
        _ => Ok(Value::Bool(false)),
    }
}

/// `ephemeralasnull(v)`: every ephemeral value inside `v` replaced by null, other marks
/// kept.
pub(super) fn ephemeralasnull(_: &Ctx<'_>, mut args: Vec<Value>) -> Result<Value, String> {
    fn strip(value: Value) -> Value {
        match value {
            Value::Marked(_, marks) if marks.contains(Marks::EPHEMERAL) => {
                Value::Null.mark(marks.without(Marks::EPHEMERAL))
            }
            Value::Marked(inner, marks) => strip(*inner).mark(marks),
            Value::List(items) => Value::List(items.into_iter().map(strip).collect()),
            Value::Object(attrs) => {
                Value::Object(attrs.into_iter().map(|(k, v)| (k, strip(v))).collect())
            }
            other => other,
        }
    }
    Ok(strip(args.remove(0)))
}

/// `convert(value, type)`: its second argument is a type constraint (`list(string)`),
/// not a value, so the evaluator reads it itself (`crate::eval`); this entry
/// keeps the name known to the table.
pub(super) fn convert(_: &Ctx<'_>, _: Vec<Value>) -> Result<Value, String> {
    // The evaluator answers convert() before the table is asked.
    Err("convert() takes a type constraint as its second argument".into())
}

/// What the `to…` functions share: marks and unknowns kept around the conversion, and
/// a sensitive value kept out of the error.
fn to_type(
    mut args: Vec<Value>,
    wanted: &str,
    conv: fn(Value) -> Result<Value, String>,
) -> Result<Value, String> {
    let value = args.remove(0);
    let marks = value.deep_marks();
    let value = value.unmark_deep();
    if let Some(cause) = value.first_unknown() {
        return Ok(Value::Unknown(cause.clone()).mark(marks));
    }
    let type_name = value.type_name();
    match conv(value) {
        Ok(v) => Ok(v.mark(marks)),
        Err(_) if marks.contains(Marks::SENSITIVE) => Err(format!(
            "cannot convert this sensitive {type_name} to {wanted}"
        )),
        Err(e) => Err(e),
    }
}

pub(super) fn tostring(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    to_type(args, "string", |v| match v {
        Value::Null => Ok(Value::Null),
        other => other
            .as_string()
            .map(Value::String)
            .ok_or_else(|| format!("cannot convert {} to string", other.type_name())),
    })
}

pub(super) fn tonumber(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    to_type(args, "number", |v| {
        match v {
        Value::Null | Value::Number(_) => Ok(v),
        Value::String(s) => super::parse_decimal(&s).map(Value::Number).ok_or_else(|| {
            format!("cannot convert {s:?} to number; given string must be a decimal representation of a number")
        }),
        other => Err(format!("cannot convert {} to number", other.type_name())),
    }
    })
}

pub(super) fn tobool(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    to_type(args, "bool", |v| match v {
        Value::Null | Value::Bool(_) => Ok(v),
        Value::String(s) if s == "true" => Ok(Value::Bool(true)),
        Value::String(s) if s == "false" => Ok(Value::Bool(false)),
        Value::String(s) => Err(format!(
            "cannot convert {s:?} to bool; only the strings \"true\" or \"false\" are allowed"
        )),
        other => Err(format!("cannot convert {} to bool", other.type_name())),
    })
}

pub(super) fn tolist(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    to_type(args, "list of any single type", |v| match v {
        Value::Null => Ok(Value::Null),
        Value::List(items) => unify(items)
            .map(Value::List)
            .ok_or_else(|| "cannot convert tuple to list of any single type".to_string()),
        other => Err(format!(
            "cannot convert {} to list of any single type",
            other.type_name()
        )),
    })
}

pub(super) fn toset(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    to_type(args, "set of any single type", |v| match v {
        Value::Null => Ok(Value::Null),
        Value::List(items) => unify(items)
            .map(Value::set_of)
            .ok_or_else(|| "cannot convert tuple to set of any single type".to_string()),
        other => Err(format!(
            "cannot convert {} to set of any single type",
            other.type_name()
        )),
    })
}

pub(super) fn tomap(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    to_type(args, "map of any single type", |v| match v {
        Value::Null => Ok(Value::Null),
        Value::Object(attrs) => {
            let (keys, values): (Vec<String>, Vec<Value>) = attrs.into_iter().unzip();
            let values = unify(values)
                .ok_or_else(|| "cannot convert object to map of any single type".to_string())?;
            Ok(Value::Object(
                keys.into_iter().zip(values).collect::<BTreeMap<_, _>>(),
            ))
        }
        other => Err(format!(
            "cannot convert {} to map of any single type",
            other.type_name()
        )),
    })
}

/// Elements converted to one type, as cty unifies a tuple's element types for a list,
/// set or map: strings win over numbers and bools (which convert to their text), numbers
/// and bools do not mix, collections only with their own kind (objects with the same
/// attributes), nulls fit anything. `None` when there is no such type.
pub(super) fn unify(items: Vec<Value>) -> Option<Vec<Value>> {
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        String,
        Number,
        Bool,
        List,
        Object,
    }
    let kind = |v: &Value| match v {
        Value::String(_) => Some(Kind::String),
        Value::Number(_) => Some(Kind::Number),
        Value::Bool(_) => Some(Kind::Bool),
        Value::List(_) => Some(Kind::List),
        Value::Object(_) => Some(Kind::Object),
        _ => None,
    };
    let kinds: Vec<Kind> = items.iter().filter_map(kind).collect();
    let Some(&first) = kinds.first() else {
        return Some(items);
    };
    if kinds.iter().all(|k| *k == first) {
        if first == Kind::Object {
            let keys = |v: &Value| match v {
                Value::Object(attrs) => Some(attrs.keys().cloned().collect::<Vec<_>>()),
                _ => None,
            };
            let mut shapes = items.iter().filter_map(keys);
            let first_keys = shapes.next();
            if shapes.any(|k| Some(k) != first_keys) {
                return None;
            }
        }
        return Some(items);
    }
    let primitive = |k: &Kind| matches!(k, Kind::String | Kind::Number | Kind::Bool);
    if kinds.iter().all(primitive) && kinds.contains(&Kind::String) {
        return Some(
            items
                .into_iter()
                .map(|v| match v {
                    Value::Null => Value::Null,
                    other => other.as_string().map_or(other, Value::String),
                })
                .collect(),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{b, check, list, n, obj, s, strs, Case};
    use crate::eval::value::{Marks, Value};

    /// Cases from Terraform `internal/lang/funcs/conversion_test.go` and
    /// `sensitive_test.go`.
    #[test]
    fn conversion_functions() {
        let cases: &[Case] = &[
            ("tostring(\"a\")", Ok(s("a"))),
            ("tostring(1)", Ok(s("1"))),
            ("tostring(1.5)", Ok(s("1.5"))),
            ("tostring(true)", Ok(s("true"))),
            ("tostring(null)", Ok(Value::Null)),
            ("tostring([])", Err("cannot convert tuple to string")),
            ("tostring({})", Err("cannot convert object to string")),
            ("tostring(var.secret_list)", Err("cannot convert this sensitive tuple to string")),
            ("tonumber(\"1\")", Ok(n(1.0))),
            ("tonumber(\"1.5e3\")", Ok(n(1500.0))),
            ("tonumber(1)", Ok(n(1.0))),
            ("tonumber(null)", Ok(Value::Null)),
            ("tonumber(\"x\")", Err("cannot convert \"x\" to number; given string must be a decimal representation of a number")),
            ("tonumber(\" 1\")", Err("cannot convert \" 1\" to number")),
            ("tonumber(\"inf\")", Err("cannot convert \"inf\" to number")),
            ("tonumber(true)", Err("cannot convert bool to number")),
            ("tonumber(var.secret)", Err("cannot convert this sensitive string to number")),
            ("tobool(\"true\")", Ok(b(true))),
            ("tobool(\"false\")", Ok(b(false))),
            ("tobool(false)", Ok(b(false))),
            ("tobool(null)", Ok(Value::Null)),
            ("tobool(\"yes\")", Err("cannot convert \"yes\" to bool; only the strings \"true\" or \"false\" are allowed")),
            ("tobool(1)", Err("cannot convert number to bool")),
            ("tolist([\"a\", \"b\"])", Ok(strs(&["a", "b"]))),
            ("tolist([\"a\", 1, true])", Ok(strs(&["a", "1", "true"]))),
            ("tolist([1, null])", Ok(list(vec![n(1.0), Value::Null]))),
            ("tolist([])", Ok(list(vec![]))),
            ("tolist([1, true])", Err("cannot convert tuple to list of any single type")),
            ("tolist([\"a\", [\"b\"]])", Err("cannot convert tuple to list of any single type")),
            ("tolist([{a = 1}, {b = 1}])", Err("cannot convert tuple to list of any single type")),
            ("tolist({a = 1})", Err("cannot convert object to list of any single type")),
            ("tolist(\"a\")", Err("cannot convert string to list of any single type")),
            ("toset([\"b\", \"a\", \"b\"])", Ok(strs(&["a", "b"]))),
            ("toset([2, 1, 2])", Ok(list(vec![n(1.0), n(2.0)]))),
            ("toset([\"a\", 1])", Ok(strs(&["1", "a"]))),
            ("toset(1)", Err("cannot convert number to set of any single type")),
            ("tomap({a = 1, b = \"x\"})", Ok(obj(&[("a", s("1")), ("b", s("x"))]))),
            ("tomap({})", Ok(obj(&[]))),
            ("tomap([])", Err("cannot convert tuple to map of any single type")),
            ("tomap({a = 1, b = [1]})", Err("cannot convert object to map of any single type")),
            ("tostring(var.unknown)", Ok(Value::unknown("var.unknown is not const"))),
            // The evaluator reads convert's type argument itself (`super::super::Evaluator`).
            ("convert(1, 2)", Err("a type constraint is a type keyword")),
            ("convert(1, string)", Ok(Value::string("1"))),
            ("issensitive(var.secret)", Ok(b(true))),
            ("issensitive(\"a\")", Ok(b(false))),
            ("issensitive(var.unknown)", Ok(Value::unknown("var.unknown is not const"))),
            ("nonsensitive(var.secret)", Ok(s("s"))),
            ("sensitive(1)", Ok(n(1.0).mark(Marks::SENSITIVE))),
            ("tostring(var.secret)", Ok(s("s").mark(Marks::SENSITIVE))),
            ("ephemeralasnull(\"a\")", Ok(s("a"))),
            ("ephemeralasnull(var.ephemeral)", Ok(Value::Null)),
            (
                "ephemeralasnull([var.ephemeral, var.secret])",
                Ok(list(vec![Value::Null, s("s").mark(Marks::SENSITIVE)])),
            ),
        ];
        check(cases);
    }
}
