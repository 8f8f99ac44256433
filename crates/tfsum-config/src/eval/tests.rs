//! The evaluator on its own, with a table-driven scope.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::*;

/// A scope of fixed values: `var` answers attribute by attribute (an unknown for
/// `var.unknown`), `local` as a whole object.
struct Fixed {
    vars: BTreeMap<String, Value>,
    locals: Value,
}

impl Scope for Fixed {
    fn lookup(&self, name: &str, attr: Option<&str>) -> Result<Lookup, EvalError> {
        match (name, attr) {
            ("var", Some(attr)) => self
                .vars
                .get(attr)
                .cloned()
                .map(Lookup::Attr)
                .ok_or_else(|| EvalError::UnknownName(format!("var.{attr}"))),
            ("local", _) => Ok(Lookup::Whole(self.locals.clone())),
            _ => Err(EvalError::UnknownName(name.to_string())),
        }
    }

    fn files(&self) -> Ctx<'_> {
        Ctx {
            base_dir: Path::new("."),
            readable: &[] as &[PathBuf],
        }
    }
}

fn scope() -> Fixed {
    let vars = BTreeMap::from([
        ("ref".to_string(), Value::string("v1.2.0")),
        ("n".to_string(), Value::Number(3.0)),
        (
            "unknown".to_string(),
            Value::unknown("var.unknown is not const"),
        ),
        (
            "secret".to_string(),
            Value::string("s").mark(Marks::SENSITIVE),
        ),
        (
            "obj".to_string(),
            Value::Object(BTreeMap::from([
                ("git_ref".to_string(), Value::string("main")),
                (
                    "list".to_string(),
                    Value::List(vec![Value::string("a"), Value::string("b")]),
                ),
            ])),
        ),
    ]);
    let locals = Value::Object(BTreeMap::from([(
        "versions".to_string(),
        Value::Object(BTreeMap::from([(
            "network".to_string(),
            Value::string("~> 2.0"),
        )])),
    )]));
    Fixed { vars, locals }
}

fn eval(text: &str) -> Result<Value, EvalError> {
    let expr: Expression = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    evaluate(&expr, &scope())
}

/// Expressions and what they evaluate to, as HCL evaluates them.
#[test]
fn expressions_evaluate_as_hcl_does() {
    let cases: &[(&str, Value)] = &[
        (
            r#""git::https://x/iam.git?ref=${var.ref}""#,
            Value::string("git::https://x/iam.git?ref=v1.2.0"),
        ),
        ("var.obj.git_ref", Value::string("main")),
        ("var.obj[\"git_ref\"]", Value::string("main")),
        ("local.versions.network", Value::string("~> 2.0")),
        ("var.obj.list[1]", Value::string("b")),
        (
            "var.obj.list.*",
            Value::List(vec![Value::string("a"), Value::string("b")]),
        ),
        ("var.n + 1", Value::Number(4.0)),
        ("\"2\" * var.n", Value::Number(6.0)),
        ("var.n > 2 ? \"big\" : \"small\"", Value::string("big")),
        ("!(var.n == 3)", Value::Bool(false)),
        ("\"${var.n}\"", Value::Number(3.0)),
        ("\"v${var.n}\"", Value::string("v3")),
        (
            "[for s in var.obj.list : upper(s)]",
            Value::List(vec![Value::string("A"), Value::string("B")]),
        ),
        (
            "{for i, s in var.obj.list : s => i}",
            Value::Object(BTreeMap::from([
                ("a".to_string(), Value::Number(0.0)),
                ("b".to_string(), Value::Number(1.0)),
            ])),
        ),
        (
            "{for s in [\"a\", \"a\"] : s => s...}",
            Value::Object(BTreeMap::from([(
                "a".to_string(),
                Value::List(vec![Value::string("a"), Value::string("a")]),
            )])),
        ),
        (
            "\"%{ for s in var.obj.list }${s}-%{ endfor }\"",
            Value::string("a-b-"),
        ),
        (
            "\"%{ if var.n == 3 }three%{ else }other%{ endif }\"",
            Value::string("three"),
        ),
        (
            "\"a  %{~ if true ~}  b  %{~ endif ~}  c\"",
            Value::string("abc"),
        ),
        (
            "try(var.obj.missing, \"fallback\")",
            Value::string("fallback"),
        ),
        ("can(var.obj.missing)", Value::Bool(false)),
        ("can(var.obj.git_ref)", Value::Bool(true)),
        ("core::lower(\"ABC\")", Value::string("abc")),
        ("false && var.unknown", Value::Bool(false)),
        ("true || var.unknown", Value::Bool(true)),
        ("nonsensitive(var.secret)", Value::string("s")),
        ("convert(var.n, string)", Value::string("3")),
        (
            "convert([\"b\", \"a\", \"b\"], set(string))",
            Value::List(vec![Value::string("a"), Value::string("b")]),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(eval(text).as_ref(), Ok(want), "{text}");
    }
}

/// What depends on an unknown is unknown, with the unknown's reason.
#[test]
fn unknowns_carry_their_cause() {
    for text in [
        "var.unknown",
        "\"x/${var.unknown}\"",
        "upper(var.unknown)",
        "var.unknown == \"a\" ? 1 : 2",
        "[var.unknown]",
        "try(var.unknown, \"x\")",
        "{ (var.unknown) = 1 }",
    ] {
        let value = eval(text).unwrap();
        assert_eq!(
            value.first_unknown().cloned().flatten().as_deref(),
            Some("var.unknown is not const"),
            "{text}: {value:?}"
        );
    }
}

/// Marks follow values through templates, functions and indexing.
#[test]
fn marks_follow_values() {
    for text in [
        "var.secret",
        "\"x-${var.secret}\"",
        "upper(var.secret)",
        "[var.secret][0]",
        "sensitive(\"a\")",
    ] {
        let value = eval(text).unwrap();
        assert!(
            value.deep_marks().contains(Marks::SENSITIVE),
            "{text}: {value:?}"
        );
    }
}

/// Errors name what went wrong.
#[test]
fn errors_say_why() {
    let cases: &[(&str, &str)] = &[
        ("var.nope", "var.nope is not declared"),
        ("nosuch(1)", "no function named \"nosuch\""),
        (
            "var.obj.missing",
            "does not have an attribute named \"missing\"",
        ),
        ("var.obj.list[5]", "invalid index"),
        ("\"${null}\"x", ""),
        (
            "\"a${var.obj}\"",
            "cannot include a object in a string template",
        ),
        (
            "provider::aws::arn_parse(\"x\")",
            "provider-defined function",
        ),
        ("1 / 0", "divide by zero"),
        ("upper(1, 2)", "takes 1 argument, not 2"),
    ];
    for (text, want) in cases {
        let Ok(expr) = text.parse::<Expression>() else {
            continue;
        };
        let error = evaluate(&expr, &scope()).expect_err(text).to_string();
        assert!(error.contains(want), "{text}: {error}");
    }
}

/// The names an expression reads directly, as Terraform checks them before evaluating.
#[test]
fn references_are_listed() {
    let expr: Expression =
        r#""${path.module}/${var.a}/${local.b[0]}/${[for x in var.c : x][0]}/${terraform.workspace}""#
            .parse()
            .unwrap();
    let refs: Vec<String> = references(&expr)
        .into_iter()
        .map(|(root, attr)| format!("{root}.{}", attr.unwrap_or_default()))
        .collect();
    assert_eq!(
        refs,
        [
            "path.module",
            "var.a",
            "local.b",
            "var.c",
            "terraform.workspace"
        ]
    );
}
