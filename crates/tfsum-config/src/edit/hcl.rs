//! The constraint-bearing values of one native-syntax file ([`Facts`]), with the byte
//! span of each literal so that it can be replaced in place.
//!
//! Only top-level blocks count, as for Terraform: `terraform` (its `required_version` and
//! every `required_providers` block in it), `provider` and `module`. In a stack's file
//! (`*.tfcomponent.hcl`): `required_providers`, itself top-level, and the `component`,
//! `removed` and `stack` blocks (`stackconfig/file.go`, docs/spec/stacks.md §2).

use std::path::Path;

use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::structure::{Block, Body};
use hcl_edit::Span;

use super::{CallFact, CallKind, EntryFact, Facts, FileForm, Value};
use crate::hcl::with_body;
use crate::{ConfigError, Location};
use tfsum_vocab::text::LineIndex;

/// Reads the facts of `text` (the whole file, a byte order mark included), a file of
/// the given form.
pub(super) fn facts(path: &Path, text: &str, form: FileForm) -> Result<Facts, ConfigError> {
    // Spans count from the text the parser sees, without the mark.
    let offset = if text.starts_with('\u{feff}') { 3 } else { 0 };
    with_body(path, text, "", |body, _| {
        let reader = Reader {
            path,
            text: &text[offset..],
            lines: LineIndex::new(&text[offset..]),
            offset,
        };
        Ok(match form {
            FileForm::Module => reader.body(body),
            FileForm::Stack => reader.stack_body(body),
        })
    })
}

struct Reader<'a> {
    path: &'a Path,
    /// The parsed text (without a byte order mark).
    text: &'a str,
    lines: LineIndex,
    /// Bytes before `text` in the file.
    offset: usize,
}

impl Reader<'_> {
    fn body(&self, body: &Body) -> Facts {
        let mut facts = Facts::default();
        for block in body.blocks() {
            let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
            match (block.ident.as_str(), labels.as_slice()) {
                ("terraform", []) => self.terraform(block, &mut facts),
                ("provider", [name]) => facts.provider_blocks.push((
                    name.to_string(),
                    block
                        .body
                        .get_attribute("version")
                        .and_then(|a| self.value(&a.value)),
                )),
                ("module", [name]) => {
                    facts
                        .module_calls
                        .push(self.call(block, CallKind::Module, name.to_string()))
                }
                _ => {}
            }
        }
        facts
    }

    /// A stack's file. Its `required_providers` entries are objects; another value is
    /// the loader's error to report, and nothing to edit here.
    fn stack_body(&self, body: &Body) -> Facts {
        let mut facts = Facts::default();
        for block in body.blocks() {
            let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
            let (kind, name) = match (block.ident.as_str(), labels.as_slice()) {
                ("required_providers", []) => {
                    let entries = block
                        .body
                        .attributes()
                        .filter(|attr| matches!(attr.value, Expression::Object(_)))
                        .map(|attr| self.entry(attr.key.as_str(), &attr.value));
                    facts.entries.extend(entries);
                    continue;
                }
                ("component", [name]) => (CallKind::Component, name.to_string()),
                ("stack", [name]) => (CallKind::Stack, name.to_string()),
                ("removed", []) => {
                    let from = block.body.get_attribute("from").and_then(|a| {
                        let span = a.value.span()?;
                        Some(self.text.get(span)?.trim().to_string())
                    });
                    (CallKind::Removed, from.unwrap_or_default())
                }
                _ => continue,
            };
            facts.module_calls.push(self.call(block, kind, name));
        }
        facts
    }

    /// A block with `source` and `version` arguments: a module call, or a stack's block.
    fn call(&self, block: &Block, kind: CallKind, name: String) -> CallFact {
        let attr = |key| {
            block
                .body
                .get_attribute(key)
                .and_then(|a| self.value(&a.value))
        };
        CallFact {
            kind,
            name,
            at: self.at(block.span()),
            source: attr("source"),
            version: attr("version"),
        }
    }

    fn terraform(&self, block: &Block, facts: &mut Facts) {
        if let Some(attr) = block.body.get_attribute("required_version") {
            facts.required_versions.extend(self.value(&attr.value));
        }
        for inner in block.body.get_blocks("required_providers") {
            for attr in inner.body.attributes() {
                facts
                    .entries
                    .push(self.entry(attr.key.as_str(), &attr.value));
            }
        }
    }

    /// `name = "constraint"` (the legacy form) or `name = { source = …, version = … }`;
    /// of a repeated key the parser keeps the later, which is the one Terraform uses.
    fn entry(&self, local_name: &str, value: &Expression) -> EntryFact {
        let mut entry = EntryFact {
            local_name: local_name.to_string(),
            source: None,
            version: None,
            legacy: false,
        };
        let Expression::Object(object) = value else {
            entry.legacy = true;
            entry.version = self.value(value);
            return entry;
        };
        for (key, item) in object.iter() {
            let key = match key {
                ObjectKey::Ident(ident) => ident.as_str(),
                ObjectKey::Expression(Expression::String(s)) => s.as_str(),
                ObjectKey::Expression(Expression::Variable(v)) => v.as_str(),
                ObjectKey::Expression(_) => continue,
            };
            match key {
                "source" => {
                    if let Expression::String(s) = item.expr() {
                        entry.source = Some(s.as_str().to_string());
                    }
                }
                "version" => entry.version = self.value(item.expr()),
                _ => {}
            }
        }
        entry
    }

    fn at(&self, span: Option<std::ops::Range<usize>>) -> Location {
        Location {
            file: self.path.to_path_buf().into(),
            line: self.lines.line_of(span),
        }
    }

    /// The value of an attribute: a literal string with its decoded text, or anything
    /// else with only its text as written.
    fn value(&self, expr: &Expression) -> Option<Value> {
        let span = expr.span()?;
        let written = self.text.get(span.clone())?.to_string();
        Some(Value {
            at: self.at(Some(span.clone())),
            span: span.start + self.offset..span.end + self.offset,
            text: match expr {
                Expression::String(s) => Some(s.as_str().to_string()),
                _ => None,
            },
            written,
        })
    }
}
