//! The constraint-bearing values of one JSON-syntax file (`.tf.json`, `.tofu.json`, a
//! stack's `.tfcomponent.json`): the same [`Facts`] as native syntax, read with the
//! span-keeping JSON reader ([`tfsum_vocab::json`]) so that a value's bytes can be
//! replaced and nothing else.

use std::path::Path;

use super::{CallFact, CallKind, EntryFact, Facts, FileForm, Value};
use crate::json::{blocks, root_members};
use crate::{ConfigError, Location};
use tfsum_vocab::json::{JsonKind, JsonNode, Member};

/// Reads the facts of `text` (the whole file, a byte order mark included), a file of
/// the given form.
pub(super) fn facts(path: &Path, text: &str, form: FileForm) -> Result<Facts, ConfigError> {
    let offset = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let what = match form {
        FileForm::Module => "configuration file",
        FileForm::Stack => "stack configuration file",
    };
    let members = root_members(path, text, what)?;
    let reader = Reader {
        path,
        text: &text[offset..],
        offset,
    };
    if form == FileForm::Stack {
        return Ok(reader.stack(&members));
    }
    let mut facts = Facts::default();
    for member in &members {
        match member.name.as_str() {
            "terraform" => reader.terraform(member, &mut facts),
            "provider" => {
                for (labels, body) in blocks(&member.value, 1) {
                    if let [(name, _)] = labels.as_slice() {
                        let version = body.get("version").map(|m| reader.value(&m.value));
                        facts.provider_blocks.push((name.to_string(), version));
                    }
                }
            }
            "module" => {
                for (labels, body) in blocks(&member.value, 1) {
                    if let [(name, line)] = labels.as_slice() {
                        let name = name.to_string();
                        let call = reader.call(body, CallKind::Module, name, *line);
                        facts.module_calls.push(call);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(facts)
}

struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    offset: usize,
}

impl Reader<'_> {
    /// A stack's file: `required_providers` (object entries; another value is the
    /// loader's error to report), and the `component`, `stack` and `removed` blocks.
    fn stack(&self, members: &[Member]) -> Facts {
        let mut facts = Facts::default();
        for member in members {
            match member.name.as_str() {
                "required_providers" => {
                    for (_, entries) in blocks(&member.value, 0) {
                        let objects = entries
                            .members()
                            .filter(|entry| matches!(entry.value.kind, JsonKind::Object(_)));
                        facts.entries.extend(objects.map(|entry| self.entry(entry)));
                    }
                }
                "component" | "stack" => {
                    let kind = match member.name.as_str() {
                        "component" => CallKind::Component,
                        _ => CallKind::Stack,
                    };
                    for (labels, body) in blocks(&member.value, 1) {
                        if let [(name, line)] = labels.as_slice() {
                            let call = self.call(body, kind, name.to_string(), *line);
                            facts.module_calls.push(call);
                        }
                    }
                }
                "removed" => {
                    for (_, body) in blocks(&member.value, 0) {
                        // `"${component.x}"` or `"component.x"`, named as written inside.
                        let from = match body.get("from").map(|m| &m.value.kind) {
                            Some(JsonKind::String(from)) => from
                                .strip_prefix("${")
                                .and_then(|t| t.strip_suffix('}'))
                                .unwrap_or(from)
                                .trim()
                                .to_string(),
                            _ => String::new(),
                        };
                        let call = self.call(body, CallKind::Removed, from, body.line);
                        facts.module_calls.push(call);
                    }
                }
                _ => {}
            }
        }
        facts
    }

    /// A block object with `source` and `version` members, at `line`.
    fn call(&self, body: &JsonNode, kind: CallKind, name: String, line: usize) -> CallFact {
        CallFact {
            kind,
            name,
            at: self.at(line),
            source: body.get("source").map(|m| self.value(&m.value)),
            version: body.get("version").map(|m| self.value(&m.value)),
        }
    }

    fn terraform(&self, member: &Member, facts: &mut Facts) {
        for (_, body) in blocks(&member.value, 0) {
            for inner in body.members() {
                match inner.name.as_str() {
                    "required_version" => facts.required_versions.push(self.value(&inner.value)),
                    "required_providers" => {
                        for (_, entries) in blocks(&inner.value, 0) {
                            facts
                                .entries
                                .extend(entries.members().map(|entry| self.entry(entry)));
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// `"name": "constraint"` or `"name": {"source": …, "version": …}`; of a repeated
    /// name the later counts, as it does for Terraform's JSON decoder.
    fn entry(&self, entry: &Member) -> EntryFact {
        let mut fact = EntryFact {
            local_name: entry.name.clone(),
            source: None,
            version: None,
            legacy: false,
        };
        if !matches!(entry.value.kind, JsonKind::Object(_)) {
            fact.legacy = true;
            fact.version = Some(self.value(&entry.value));
            return fact;
        }
        for member in entry.value.members() {
            match member.name.as_str() {
                "source" => {
                    if let JsonKind::String(s) = &member.value.kind {
                        fact.source = Some(s.clone());
                    }
                }
                "version" => fact.version = Some(self.value(&member.value)),
                _ => {}
            }
        }
        fact
    }

    fn at(&self, line: usize) -> Location {
        Location {
            file: self.path.to_path_buf().into(),
            line,
        }
    }

    /// A JSON string is a template in Terraform's JSON syntax: one holding `${` or `%{`
    /// is not a literal.
    fn value(&self, node: &JsonNode) -> Value {
        let text = match &node.kind {
            JsonKind::String(s) if !s.contains("${") && !s.contains("%{") => Some(s.clone()),
            _ => None,
        };
        Value {
            at: self.at(node.line),
            span: node.span.start + self.offset..node.span.end + self.offset,
            text,
            written: self.text.get(node.span.clone()).unwrap_or("").to_string(),
        }
    }
}
