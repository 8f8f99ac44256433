//! Where the version of a Terragrunt module source is written: the literal string that
//! `tfsum outdated` points at and `tfsum upgrade` edits.
//!
//! A unit's `terraform.source` names its module's version in its `?ref=` (git) or
//! `?version=` (`tfr://`), written in the source itself or brought in through a local
//! or, in a unit a stack generates, `values.*` (`source = "…?ref=${values.version}"`),
//! whose literal sits in the stack file's `unit` block or its locals. A stack's own
//! `unit`/`stack` `source` does the same for the catalog it copies from. Reading a file
//! records each such expression's shape ([`Written`]); evaluation later follows it
//! to the literal ([`resolve`]), across files (a unit's `values.*` to the stack that
//! gave them, a nested stack's to its parent's block).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::template::Element;
use hcl_edit::Span;

use crate::early::{Definition, Traced};
use crate::Location;
use tfsum_vocab::text::LineIndex;

/// One quoted literal string in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Literal {
    pub file: PathBuf,
    pub line: usize,
    /// Its bytes in the file, quotes included.
    pub span: Range<usize>,
    pub text: String,
}

/// The shape of an expression that holds a version (or a whole source).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Written {
    Literal(Literal),
    /// `local.NAME`: the literal is the local's, if it is one.
    Local(String),
    /// `values.NAME`: the literal is wherever the values came from.
    Values(String),
    /// Anything else, described.
    Other(String),
}

/// Where a source's version is: the whole source (`whole`: a literal source, or one
/// reference holding it), or the expression after its `ref=` / `version=`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceVersion {
    pub whole: bool,
    pub written: Written,
}

/// A source that decides what a unit locks, as evaluated, with where its version is
/// written: the unit's `terraform.source`, or the `source` of a stack's block that
/// generated it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenSource {
    /// What it is, for messages: `terraform.source`, `the source of unit "vpc"`.
    pub what: String,
    pub at: Location,
    pub text: String,
    pub version: Traced,
}

impl WrittenSource {
    /// The same, its absolute paths shown as `style` gives them.
    pub fn styled(mut self, style: impl Fn(&Path) -> PathBuf) -> WrittenSource {
        let restyle = |path: &mut Arc<Path>| {
            if path.is_absolute() {
                *path = style(path).into();
            }
        };
        restyle(&mut self.at.file);
        if let Ok(definition) = &mut self.version {
            restyle(&mut definition.at.file);
        }
        self
    }
}

/// Reads expressions of one file into [`Written`] shapes.
pub(crate) struct Reader<'a> {
    pub file: &'a Path,
    pub lines: &'a LineIndex,
    /// Bytes before the parsed text in the file (a byte order mark).
    pub base: usize,
}

impl Reader<'_> {
    /// What `expr` is, taken as a whole value.
    pub(crate) fn value(&self, expr: &Expression) -> Written {
        match expr {
            Expression::String(s) => match expr.span() {
                Some(span) => Written::Literal(Literal {
                    file: self.file.to_path_buf(),
                    line: self.lines.line(span.start),
                    span: self.base + span.start..self.base + span.end,
                    text: s.as_str().to_string(),
                }),
                None => Written::Other("a string without a position".into()),
            },
            Expression::Parenthesis(inner) => self.value(inner.inner()),
            Expression::Traversal(traversal) => {
                let root = traversal.expr.as_variable().map(|v| v.as_str());
                let name = match traversal.operators.as_slice() {
                    [op] => match op.value() {
                        TraversalOperator::GetAttr(name) => Some(name.as_str().to_string()),
                        TraversalOperator::Index(Expression::String(s)) => {
                            Some(s.as_str().to_string())
                        }
                        _ => None,
                    },
                    _ => None,
                };
                match (root, name) {
                    (Some("local"), Some(name)) => Written::Local(name),
                    (Some("values"), Some(name)) => Written::Values(name),
                    _ => {
                        Written::Other("an expression other than local.NAME or values.NAME".into())
                    }
                }
            }
            _ => Written::Other("an expression, not one literal string".into()),
        }
    }

    /// Where the version of a source written as `expr` is.
    pub(crate) fn source(&self, expr: &Expression) -> SourceVersion {
        let Expression::StringTemplate(template) = expr else {
            return SourceVersion {
                whole: true,
                written: self.value(expr),
            };
        };
        let elements: Vec<&Element> = template.iter().collect();
        if let [.., Element::Literal(before), Element::Interpolation(last)] = elements.as_slice() {
            let before = before.value();
            if before.ends_with("ref=") || before.ends_with("version=") {
                return SourceVersion {
                    whole: false,
                    written: self.value(&last.expr),
                };
            }
        }
        SourceVersion {
            whole: true,
            written: Written::Other(
                "a template whose version is not one interpolation at its end (…?ref=${…})".into(),
            ),
        }
    }

    /// The shape of each attribute of an object constructor (a `values` block), by name;
    /// `None` for any other expression.
    pub(crate) fn object(&self, expr: &Expression) -> Option<BTreeMap<String, Written>> {
        let Expression::Object(object) = expr else {
            return None;
        };
        let mut out = BTreeMap::new();
        for (key, value) in object.iter() {
            let name = match key {
                ObjectKey::Ident(ident) => ident.as_str().to_string(),
                ObjectKey::Expression(Expression::String(s)) => s.as_str().to_string(),
                ObjectKey::Expression(_) => continue,
            };
            out.insert(name, self.value(value.expr()));
        }
        Some(out)
    }
}

/// Follows `written` to its literal: a local of the same file (`locals`, as read), or
/// one of the values the file was given (`values`, already followed). `what` names the
/// literal when it is written right there.
pub(crate) fn resolve(
    written: &Written,
    locals: &BTreeMap<String, Written>,
    values: &BTreeMap<String, Traced>,
    what: &str,
) -> Traced {
    match written {
        Written::Literal(literal) => Ok(definition(literal, what.to_string())),
        Written::Local(name) => match locals.get(name) {
            Some(Written::Literal(literal)) => Ok(definition(literal, format!("local.{name}"))),
            Some(Written::Values(value)) => values.get(value).cloned().unwrap_or_else(|| {
                Err(format!(
                    "local.{name} is values.{value}, which is not written as one literal string"
                ))
            }),
            Some(_) => Err(format!("local.{name} is not one literal string")),
            None => Err(format!("local.{name} is not defined in its file")),
        },
        Written::Values(name) => values.get(name).cloned().unwrap_or_else(|| {
            Err(format!(
                "values.{name} is not written as one literal string in the block that gives it"
            ))
        }),
        Written::Other(why) => Err(format!("it is {why}")),
    }
}

fn definition(literal: &Literal, what: String) -> Definition {
    Definition {
        at: Location {
            file: literal.file.clone().into(),
            line: literal.line,
        },
        span: Some(literal.span.clone()),
        text: literal.text.clone(),
        what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (hcl_edit::structure::Body, LineIndex) {
        let body = hcl_edit::parser::parse_body(text).expect("parse");
        (body, LineIndex::new(text))
    }

    #[test]
    fn sources_name_where_their_version_is() {
        let text = "a = \"git::https://x/y.git?ref=v1.0.0\"\nb = \"git::https://x/y.git?ref=${values.version}\"\nc = \"tfr:///a/b/c?version=${local.v}\"\nd = \"${values.v}-x\"\ne = local.source\n";
        let (body, lines) = read(text);
        let reader = Reader {
            file: Path::new("f.hcl"),
            lines: &lines,
            base: 0,
        };
        let get = |name: &str| reader.source(&body.get_attribute(name).expect(name).value);
        let a = get("a");
        assert!(a.whole);
        let Written::Literal(literal) = &a.written else {
            panic!("{a:?}")
        };
        assert_eq!(literal.text, "git::https://x/y.git?ref=v1.0.0");
        assert_eq!(
            &text[literal.span.clone()],
            "\"git::https://x/y.git?ref=v1.0.0\""
        );
        assert_eq!(
            get("b"),
            SourceVersion {
                whole: false,
                written: Written::Values("version".into())
            }
        );
        assert_eq!(get("c").written, Written::Local("v".into()));
        assert!(matches!(get("d").written, Written::Other(_)));
        assert_eq!(
            get("e"),
            SourceVersion {
                whole: true,
                written: Written::Local("source".into())
            }
        );
    }

    #[test]
    fn values_resolve_through_locals_and_the_values_given() {
        let text = "values = {\n  version = \"v2.0.0\"\n  other   = local.pinned\n  up      = values.outer\n}\n";
        let (body, lines) = read(text);
        let reader = Reader {
            file: Path::new("s.hcl"),
            lines: &lines,
            base: 3,
        };
        let items = reader
            .object(&body.get_attribute("values").expect("values").value)
            .expect("object");
        let locals = BTreeMap::from([(
            "pinned".to_string(),
            Written::Literal(Literal {
                file: PathBuf::from("s.hcl"),
                line: 9,
                span: 1..5,
                text: "v3".into(),
            }),
        )]);
        let outer = Definition {
            at: Location {
                file: PathBuf::from("parent.hcl").into(),
                line: 4,
            },
            span: Some(10..14),
            text: "v4".into(),
            what: "values.outer".into(),
        };
        let values = BTreeMap::from([("outer".to_string(), Ok(outer.clone()))]);
        let version =
            resolve(&items["version"], &locals, &values, "values.version").expect("literal");
        assert_eq!((version.at.line, version.text.as_str()), (2, "v2.0.0"));
        let start = 3 + text.find("\"v2").expect("at");
        assert_eq!(version.span, Some(start..start + "\"v2.0.0\"".len()));
        let other = resolve(&items["other"], &locals, &values, "x").expect("local");
        assert_eq!(
            (other.text.as_str(), other.what.as_str()),
            ("v3", "local.pinned")
        );
        assert_eq!(resolve(&items["up"], &locals, &values, "x"), Ok(outer));
        assert!(resolve(&Written::Values("none".into()), &locals, &values, "x").is_err());
    }
}
