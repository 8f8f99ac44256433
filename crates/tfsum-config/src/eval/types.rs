//! Type constraints (`type = list(string)`, `object({ ref = optional(string, "main") })`)
//! and converting a value to one, as a variable's value is converted before use
//! (go-cty `cty/convert`, Terraform `internal/typeexpr`).
//!
//! The conversions a variable's value can need: primitives into each other (`1` → `"1"`,
//! `"true"` → `true`), a tuple into a list or set, an object into a map, an object into an
//! object type (attributes it lacks must be optional; those it has beyond the type are
//! dropped, as cty drops them). Unknown values stay unknown; marks are kept.

use std::collections::BTreeMap;

use hcl::expr::{Expression, FuncCall, ObjectKey};

use super::value::Value;

/// A type constraint.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Type {
    Any,
    String,
    Number,
    Bool,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    Tuple(Vec<Type>),
    Object(BTreeMap<String, Attribute>),
}

/// An object type's attribute: its type, and whether it may be left out (with the
/// default `optional(T, default)` gives it).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attribute {
    pub ty: Type,
    pub optional: bool,
    pub default: Option<Value>,
}

impl Type {
    /// Whether `-var` and `TF_VAR_` text is the value itself (a primitive type, or none)
    /// or an HCL expression to parse (Terraform's `VariableParseLiteral` versus
    /// `VariableParseHCL`).
    pub(crate) fn parses_literally(ty: Option<&Type>) -> bool {
        matches!(ty, None | Some(Type::String | Type::Number | Type::Bool))
    }

    /// Reads a type expression.
    pub(crate) fn parse(expr: &Expression) -> Result<Type, String> {
        parse_type(expr, false).map(|(ty, _)| ty)
    }
}

fn keyword(expr: &Expression) -> Option<&str> {
    match expr {
        Expression::Variable(v) => Some(v.as_str()),
        _ => None,
    }
}

fn one_arg<'e>(call: &'e FuncCall, name: &str) -> Result<&'e Expression, String> {
    match call.args.as_slice() {
        [arg] => Ok(arg),
        _ => Err(format!("{name}(…) takes exactly one type argument")),
    }
}

/// A type, and for `optional(T, default)` (allowed only as an object attribute's type)
/// the optional flag and default.
/// `optional(T, default)`'s flag and default.
type Optional = Option<(bool, Option<Value>)>;

fn parse_type(expr: &Expression, attribute: bool) -> Result<(Type, Optional), String> {
    if let Some(word) = keyword(expr) {
        let ty = match word {
            "any" => Type::Any,
            "string" => Type::String,
            "number" => Type::Number,
            "bool" => Type::Bool,
            "list" | "set" | "map" => Type::from_collection(word, Type::Any),
            other => return Err(format!("{other:?} is not a type; use string, number, bool, list(…), map(…), set(…), object({{…}}), tuple([…]) or any")),
        };
        return Ok((ty, None));
    }
    let Expression::FuncCall(call) = expr else {
        return Err(
            "a type constraint is a type keyword or a type constructor such as list(string)".into(),
        );
    };
    let name = call.name.name.as_str();
    let ty = match name {
        "list" | "set" | "map" => {
            let (inner, _) = parse_type(one_arg(call, name)?, false)?;
            Type::from_collection(name, inner)
        }
        "tuple" => {
            let Expression::Array(items) = one_arg(call, name)? else {
                return Err("tuple(…) takes a list of types".into());
            };
            Type::Tuple(
                items
                    .iter()
                    .map(|item| parse_type(item, false).map(|(ty, _)| ty))
                    .collect::<Result<_, _>>()?,
            )
        }
        "object" => {
            let Expression::Object(attrs) = one_arg(call, name)? else {
                return Err("object(…) takes an object of attribute types".into());
            };
            let mut out = BTreeMap::new();
            for (key, value) in attrs {
                let key = match key {
                    ObjectKey::Identifier(ident) => ident.as_str().to_string(),
                    ObjectKey::Expression(Expression::String(s)) => s.clone(),
                    ObjectKey::Expression(Expression::Variable(v)) => v.as_str().to_string(),
                    _ => return Err("an object type's attribute names must be names".into()),
                };
                let (ty, optional) = parse_type(value, true)?;
                let (optional, default) = optional.unwrap_or((false, None));
                out.insert(
                    key,
                    Attribute {
                        ty,
                        optional,
                        default,
                    },
                );
            }
            Type::Object(out)
        }
        "optional" if attribute => {
            let (ty, _) = parse_type(call.args.first().ok_or("optional(…) takes a type")?, false)?;
            let default = match call.args.get(1) {
                None => None,
                Some(expr) => Some(literal_value(expr)?),
            };
            if call.args.len() > 2 {
                return Err("optional(…) takes a type and at most a default".into());
            }
            let default = match default {
                Some(v) => Some(
                    convert(v, &ty)
                        .map_err(|e| format!("the optional attribute's default: {e}"))?,
                ),
                None => None,
            };
            return Ok((ty, Some((true, default))));
        }
        "optional" => {
            return Err("optional(…) is allowed only for an object type's attributes".into())
        }
        other => return Err(format!("{other}(…) is not a type constructor")),
    };
    Ok((ty, None))
}

impl Type {
    fn from_collection(word: &str, inner: Type) -> Type {
        match word {
            "list" => Type::List(Box::new(inner)),
            "set" => Type::Set(Box::new(inner)),
            _ => Type::Map(Box::new(inner)),
        }
    }
}

/// A default in `optional(T, default)`: a constant, evaluated with no names.
fn literal_value(expr: &Expression) -> Result<Value, String> {
    match expr {
        Expression::Null => Ok(Value::Null),
        Expression::Bool(b) => Ok(Value::Bool(*b)),
        Expression::Number(n) => Ok(Value::Number(n.as_f64().unwrap_or(f64::NAN))),
        Expression::String(s) => Ok(Value::String(s.clone())),
        Expression::Array(items) => items
            .iter()
            .map(literal_value)
            .collect::<Result<_, _>>()
            .map(Value::List),
        Expression::Object(attrs) => {
            let mut out = BTreeMap::new();
            for (key, value) in attrs {
                let key = match key {
                    ObjectKey::Identifier(ident) => ident.as_str().to_string(),
                    ObjectKey::Expression(Expression::String(s)) => s.clone(),
                    ObjectKey::Expression(Expression::Variable(v)) => v.as_str().to_string(),
                    _ => return Err("a default's keys must be names or strings".into()),
                };
                out.insert(key, literal_value(value)?);
            }
            Ok(Value::Object(out))
        }
        Expression::Parenthesis(inner) => literal_value(inner),
        _ => Err("an optional attribute's default must be a constant value".into()),
    }
}

/// `value` converted to `ty`; the error says what did not fit.
pub(crate) fn convert(value: Value, ty: &Type) -> Result<Value, String> {
    let (value, marks) = value.unmark();
    let converted = match (value, ty) {
        (v @ (Value::Unknown(_) | Value::Null), _) => v,
        (v, Type::Any) => v,
        (Value::String(s), Type::String) => Value::String(s),
        (v @ (Value::Number(_) | Value::Bool(_)), Type::String) => {
            Value::String(v.as_string().unwrap_or_default())
        }
        (Value::Number(n), Type::Number) => Value::Number(n),
        (Value::String(s), Type::Number) => Value::Number(
            s.trim()
                .parse::<f64>()
                .map_err(|_| format!("a number is required, and {s:?} is not one"))?,
        ),
        (Value::Bool(b), Type::Bool) => Value::Bool(b),
        (Value::String(s), Type::Bool) if s == "true" || s == "false" => Value::Bool(s == "true"),
        (Value::List(items), Type::List(inner) | Type::Set(inner)) => {
            let items = items
                .into_iter()
                .enumerate()
                .map(|(i, item)| convert(item, inner).map_err(|e| format!("element {i}: {e}")))
                .collect::<Result<Vec<_>, _>>()?;
            if matches!(ty, Type::Set(_)) {
                Value::set_of(items)
            } else {
                Value::List(items)
            }
        }
        (Value::List(items), Type::Tuple(types)) => {
            if items.len() != types.len() {
                return Err(format!(
                    "a tuple of {} elements is required, not {}",
                    types.len(),
                    items.len()
                ));
            }
            Value::List(
                items
                    .into_iter()
                    .zip(types)
                    .enumerate()
                    .map(|(i, (item, ty))| {
                        convert(item, ty).map_err(|e| format!("element {i}: {e}"))
                    })
                    .collect::<Result<_, _>>()?,
            )
        }
        (Value::Object(attrs), Type::Map(inner)) => Value::Object(
            attrs
                .into_iter()
                .map(|(k, v)| {
                    let v = convert(v, inner).map_err(|e| format!("element {k:?}: {e}"))?;
                    Ok((k, v))
                })
                .collect::<Result<_, String>>()?,
        ),
        (Value::Object(mut attrs), Type::Object(types)) => {
            let mut out = BTreeMap::new();
            for (name, attr) in types {
                let value = match attrs.remove(name) {
                    Some(Value::Null) | None if attr.optional => {
                        attr.default.clone().unwrap_or(Value::Null)
                    }
                    Some(v) => {
                        convert(v, &attr.ty).map_err(|e| format!("attribute {name:?}: {e}"))?
                    }
                    None => return Err(format!("attribute {name:?} is required")),
                };
                out.insert(name.clone(), value);
            }
            Value::Object(out)
        }
        (v, ty) => {
            return Err(format!("{} required, not {}", ty.describe(), v.type_name()));
        }
    };
    Ok(converted.mark(marks))
}

impl Type {
    /// The type as a message names it (`string`, `a list`, …).
    fn describe(&self) -> &'static str {
        match self {
            Type::Any => "any value",
            Type::String => "a string",
            Type::Number => "a number",
            Type::Bool => "a bool",
            Type::List(_) => "a list",
            Type::Set(_) => "a set",
            Type::Map(_) => "a map",
            Type::Tuple(_) => "a tuple",
            Type::Object(_) => "an object",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> Type {
        Type::parse(&text.parse().unwrap()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn obj(pairs: &[(&str, Value)]) -> Value {
        Value::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    /// Conversions a variable's value goes through (cty's convert rules).
    #[test]
    fn values_convert_as_cty_converts_them() {
        let s = Value::string;
        let cases: Vec<(&str, Value, Result<Value, &str>)> = vec![
            ("string", Value::Number(1.0), Ok(s("1"))),
            ("string", Value::Bool(true), Ok(s("true"))),
            ("number", s("2.5"), Ok(Value::Number(2.5))),
            ("number", s("x"), Err("a number is required")),
            ("bool", s("false"), Ok(Value::Bool(false))),
            (
                "string",
                Value::List(vec![]),
                Err("a string required, not tuple"),
            ),
            (
                "list(string)",
                Value::List(vec![Value::Number(1.0)]),
                Ok(Value::List(vec![s("1")])),
            ),
            (
                "set(string)",
                Value::List(vec![s("b"), s("a"), s("b")]),
                Ok(Value::List(vec![s("a"), s("b")])),
            ),
            (
                "map(number)",
                obj(&[("a", s("1"))]),
                Ok(obj(&[("a", Value::Number(1.0))])),
            ),
            (
                "object({ git_ref = string, extra = optional(string, \"x\") })",
                obj(&[("git_ref", s("v1")), ("dropped", Value::Bool(true))]),
                Ok(obj(&[("extra", s("x")), ("git_ref", s("v1"))])),
            ),
            (
                "object({ git_ref = string })",
                obj(&[]),
                Err("attribute \"git_ref\" is required"),
            ),
            ("any", obj(&[("a", s("b"))]), Ok(obj(&[("a", s("b"))]))),
            ("string", Value::unknown("u"), Ok(Value::unknown("u"))),
            ("string", Value::Null, Ok(Value::Null)),
        ];
        for (type_text, value, want) in cases {
            let got = convert(value, &ty(type_text));
            match want {
                Ok(want) => assert_eq!(got, Ok(want), "{type_text}"),
                Err(part) => {
                    let error = got.expect_err(type_text);
                    assert!(error.contains(part), "{type_text}: {error}");
                }
            }
        }
    }

    #[test]
    fn literal_parsing_follows_the_type() {
        assert!(Type::parses_literally(None));
        assert!(Type::parses_literally(Some(&ty("string"))));
        assert!(!Type::parses_literally(Some(&ty("any"))));
        assert!(!Type::parses_literally(Some(&ty("object({a = string})"))));
        assert!(Type::parse(&"optional(string)".parse().unwrap()).is_err());
        assert!(Type::parse(&"strin".parse().unwrap()).is_err());
    }
}
