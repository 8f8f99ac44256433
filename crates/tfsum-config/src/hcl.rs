//! Native-syntax (`.tf`, `.tofu`) files → [`FileContent`].
//!
//! Parsed with hcl-edit rather than hcl-rs because hcl-edit keeps byte spans, which give
//! the line numbers for constraints and errors (hcl-rs builds on the same parser, so both
//! accept the same input). Only the blocks that decide provider selection are read:
//! `terraform` (`required_providers`, `backend`, `cloud`), `provider`, `resource`, `data`,
//! `ephemeral`, `check` (nested `data`), `import` and `module`.
//!
//! The whole file must still parse, so the parser must accept everything Terraform's does:
//! hcl-edit is vendored with the fixes listed in `vendor/README.md` (repeated object keys,
//! newlines inside `for` expressions, template directives and after unary operators,
//! heredoc closing lines, carriage returns in comments), and `testdata/hcl-shapes/` holds
//! the real-world shapes, checked against Terraform.
//!
//! hcl-edit parses recursively and limits nesting to 64 levels and chains to 128 binary
//! operators; at those limits a debug build needs about 2.2 MiB of stack to parse and drop
//! the tree. [`PARSE_STACK`] guarantees that much on any thread (tokio workers have 2 MiB).

use std::path::Path;
use std::sync::Arc;

use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block, Body};
use hcl_edit::Span;

use super::{
    invalid_entry_key, requirement, CallExprs, ConfigError, FileContent, ImportDecl, Location,
    ModuleCallDecl, ProviderBlock, RawConstraint, ResourceDecl, ResourceMode, Validation,
    VariableDecl, WrittenExpr, MODULE_META_ARGUMENTS,
};
use tfsum_vocab::text::LineIndex;

/// Stack the parser may use: more than the deepest input it accepts needs in a debug build
/// (the measurement is in the module docs). When less is left on the current thread, the
/// parse runs on a fresh stack segment of [`PARSE_STACK_SEGMENT`] bytes.
pub const PARSE_STACK: usize = 4 << 20;
const PARSE_STACK_SEGMENT: usize = 8 << 20;

pub(super) fn parse_file(
    path: &Path,
    text: &str,
    default_host: &str,
) -> Result<FileContent, ConfigError> {
    with_body(path, text, default_host, |body, reader| {
        let mut out = FileContent::default();
        for block in body.blocks() {
            reader.top_level(block, &mut out)?;
        }
        Ok(out)
    })
}

/// Parses `text` as a native-syntax body and hands it to `read` with a [`Reader`] over
/// it, all on a stack of at least [`PARSE_STACK`] (the syntax tree is dropped there, too).
/// Configuration files and test files (`super::test_files`) both read through here.
pub(super) fn with_body<T>(
    path: &Path,
    text: &str,
    default_host: &str,
    read: impl FnOnce(&Body, &Reader<'_>) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    stacker::maybe_grow(PARSE_STACK, PARSE_STACK_SEGMENT, || {
        let whole = text.len();
        let (body, text) = super::parse_hcl_body(text).map_err(|e| ConfigError::Syntax {
            file: path.to_path_buf(),
            line: e.line,
            column: e.column,
            message: e.message,
        })?;
        let reader = Reader {
            file: path.into(),
            lines: LineIndex::new(text),
            text,
            bom: whole - text.len(),
            default_host,
        };
        read(&body, &reader)
    })
}

/// Reads blocks of one parsed file, turning spans into `file:line` locations.
pub(super) struct Reader<'a> {
    /// The file's path, shared by every location in it.
    file: Arc<Path>,
    lines: LineIndex,
    /// The file's text without a byte order mark, which `bom` bytes were.
    text: &'a str,
    bom: usize,
    default_host: &'a str,
}

impl Reader<'_> {
    pub(super) fn at(&self, span: Option<std::ops::Range<usize>>) -> Location {
        Location {
            file: self.file.clone(),
            line: self.lines.line_of(span),
        }
    }

    /// Reads one top-level block of a configuration file into `out`; blocks that cannot
    /// change which providers are selected are skipped.
    pub(super) fn top_level(
        &self,
        block: &Block,
        out: &mut FileContent,
    ) -> Result<(), ConfigError> {
        let at = self.at(block.span());
        let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
        let resource =
            |mode, ty: &str, name: &str| self.resource(mode, ty, name, &block.body, at.clone());
        match (block.ident.as_str(), labels.as_slice()) {
            ("terraform", []) => self.terraform(&block.body, out)?,
            ("provider", [name]) => out.provider_blocks.push(self.provider(name, block, at)?),
            ("resource", [ty, name]) => {
                out.resources
                    .push(resource(ResourceMode::Managed, ty, name)?)
            }
            ("data", [ty, name]) => out.resources.push(resource(ResourceMode::Data, ty, name)?),
            ("ephemeral", [ty, name]) => {
                out.resources
                    .push(resource(ResourceMode::Ephemeral, ty, name)?)
            }
            ("check", [_]) => {
                // A check block may scope one data source; it still needs its provider.
                for inner in block.body.get_blocks("data") {
                    if let [ty, name] = inner.labels.as_slice() {
                        let (ty, name) = (ty.as_str(), name.as_str());
                        let at = self.at(inner.span());
                        out.resources.push(self.resource(
                            ResourceMode::Data,
                            ty,
                            name,
                            &inner.body,
                            at,
                        )?);
                    }
                }
            }
            ("import", []) => {
                let target = block
                    .body
                    .get_attribute("to")
                    .and_then(|attr| resource_target(&attr.value));
                let provider = match block.body.get_attribute("provider") {
                    Some(attr) => Some(self.provider_ref(&attr.value, self.at(attr.span()))?),
                    None => None,
                };
                out.imports.push(ImportDecl { target, provider });
            }
            ("action", [ty, name]) => out
                .resources
                .push(resource(ResourceMode::Action, ty, name)?),
            ("module", [name]) => out.module_calls.push(self.module_call(name, block, at)?),
            ("variable", [name]) => out.variables.push(self.variable(name, &block.body, at)?),
            ("locals", []) => {
                for attr in block.body.attributes() {
                    let expr = self.written(&attr.value, attr.span());
                    out.locals.push((attr.key.as_str().to_string(), expr));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `provider "NAME" { alias = …, version = … }`.
    fn provider(
        &self,
        name: &str,
        block: &Block,
        at: Location,
    ) -> Result<ProviderBlock, ConfigError> {
        let alias = match block.body.get_attribute("alias") {
            Some(attr) => Some(self.literal(&attr.value, "alias")?),
            None => None,
        };
        let version = match block.body.get_attribute("version") {
            Some(attr) => Some(RawConstraint {
                text: self.literal(&attr.value, "version")?,
                at: self.at(attr.span()),
            }),
            None => None,
        };
        Ok(ProviderBlock {
            local_name: name.to_string(),
            alias,
            version,
            at,
        })
    }

    /// `module "NAME" { source = …, version = … }`: literal strings as they are, and
    /// expressions kept for early evaluation, with the arguments the module's variables
    /// take.
    fn module_call(
        &self,
        name: &str,
        block: &Block,
        at: Location,
    ) -> Result<ModuleCallDecl, ConfigError> {
        let mut written = CallExprs::default();
        let source = block
            .body
            .get_attribute("source")
            .map(|attr| match &attr.value {
                Expression::String(s) => (s.as_str().to_string(), true),
                other => {
                    written.source = Some(self.written(other, attr.span()));
                    (self.source_text(other), false)
                }
            });
        let version = match block.body.get_attribute("version") {
            Some(attr) => match &attr.value {
                Expression::String(s) => Some(s.as_str().to_string()),
                other => {
                    written.version = Some(self.written(other, attr.span()));
                    None
                }
            },
            None => None,
        };
        for attr in block.body.attributes() {
            let key = attr.key.as_str();
            if !MODULE_META_ARGUMENTS.contains(&key) {
                let expr = self.written(&attr.value, attr.span());
                written.args.insert(key.to_string(), expr);
            }
        }
        Ok(ModuleCallDecl {
            name: name.to_string(),
            source,
            version,
            written,
            at,
        })
    }

    /// `variable "NAME" { default, type, const, sensitive, ephemeral, nullable,
    /// validation {…} }`: what early evaluation needs; the flags must be literal bools,
    /// as Terraform requires.
    fn variable(&self, name: &str, body: &Body, at: Location) -> Result<VariableDecl, ConfigError> {
        let flag = |key: &str| -> Result<Option<bool>, ConfigError> {
            match body.get_attribute(key) {
                None => Ok(None),
                Some(attr) => match &attr.value {
                    Expression::Bool(b) => Ok(Some(*b.value())),
                    other => Err(ConfigError::invalid(
                        self.at(attr.span()),
                        format!(
                            "the {key} argument of variable {name:?} must be true or false, not {}",
                            self.source_text(other)
                        ),
                    )),
                },
            }
        };
        let expr = |key: &str| {
            body.get_attribute(key)
                .map(|attr| self.written(&attr.value, attr.span()))
        };
        let validations = body
            .get_blocks("validation")
            .filter_map(|block| {
                let condition = block.body.get_attribute("condition")?;
                Some(Validation {
                    condition: self.written(&condition.value, condition.span()),
                    error_message: block
                        .body
                        .get_attribute("error_message")
                        .map(|attr| self.written(&attr.value, attr.span())),
                })
            })
            .collect();
        Ok(VariableDecl {
            name: name.to_string(),
            at,
            default: expr("default"),
            type_constraint: expr("type"),
            constant: flag("const")?,
            sensitive: flag("sensitive")?,
            ephemeral: flag("ephemeral")?,
            nullable: flag("nullable")?,
            validations,
        })
    }

    /// An expression kept as its text ([`WrittenExpr`]), at the line of `span` (the
    /// attribute's).
    fn written(&self, expr: &Expression, span: Option<std::ops::Range<usize>>) -> WrittenExpr {
        let range = expr.span();
        let text = range
            .clone()
            .and_then(|range| self.text.get(range))
            .unwrap_or_default();
        WrittenExpr {
            text: text.into(),
            at: self.at(span),
            offset: range.map(|r| r.start + self.bom),
        }
    }

    fn terraform(&self, body: &Body, out: &mut FileContent) -> Result<(), ConfigError> {
        // A non-literal `required_version` is Terraform's error to report, not tfsum's.
        if let Some(attr) = body.get_attribute("required_version") {
            if let Expression::String(s) = &attr.value {
                out.required_version.push(RawConstraint {
                    text: s.as_str().to_string(),
                    at: self.at(attr.span()),
                });
            }
        }
        for block in body.blocks() {
            match block.ident.as_str() {
                "required_providers" => {
                    // Terraform: "Unexpected \"NAME\" block: Blocks are not allowed here."
                    if let Some(nested) = block.body.blocks().next() {
                        return Err(ConfigError::invalid(
                            self.at(nested.span()),
                            format!(
                                "unexpected {:?} block in required_providers: blocks are not \
                                 allowed here; an entry is an attribute, `{} = {{ source = \"…\", \
                                 version = \"…\" }}`",
                                nested.ident.as_str(),
                                nested.ident.as_str()
                            ),
                        ));
                    }
                    let mut entries = Vec::new();
                    for attr in block.body.attributes() {
                        entries.push(self.required_provider(
                            attr.key.as_str(),
                            &attr.value,
                            self.at(attr.span()),
                        )?);
                    }
                    out.required_providers
                        .push((self.at(block.span()), entries));
                }
                "backend" | "cloud" => out.backends.push(self.at(block.span())),
                _ => {}
            }
        }
        Ok(())
    }

    /// `name = { source = "…", version = "…", configuration_aliases = [...] }`, or the
    /// legacy `name = "<version constraint>"`.
    fn required_provider(
        &self,
        local_name: &str,
        value: &Expression,
        at: Location,
    ) -> Result<super::ProviderRequirement, ConfigError> {
        match value {
            Expression::String(s) => {
                let version = RawConstraint {
                    text: s.as_str().to_string(),
                    at: at.clone(),
                };
                requirement(local_name, None, Some(version), at, self.default_host)
            }
            Expression::Object(object) => {
                let mut source = None;
                let mut version = None;
                for (key, value) in object.iter() {
                    let key = match key {
                        ObjectKey::Ident(ident) => ident.as_str(),
                        ObjectKey::Expression(Expression::String(s)) => s.as_str(),
                        ObjectKey::Expression(Expression::Variable(v)) => v.as_str(),
                        ObjectKey::Expression(_) => continue,
                    };
                    let value_at = self.at(value.expr().span());
                    match key {
                        "source" => {
                            source = Some((self.literal(value.expr(), "source")?, value_at))
                        }
                        "version" => {
                            version = Some(RawConstraint {
                                text: self.literal(value.expr(), "version")?,
                                at: value_at,
                            })
                        }
                        "configuration_aliases" => {}
                        other => return Err(invalid_entry_key(local_name, other, value_at)),
                    }
                }
                requirement(
                    local_name,
                    source.as_ref().map(|(s, at)| (s.as_str(), at.clone())),
                    version,
                    at,
                    self.default_host,
                )
            }
            other => Err(ConfigError::Invalid {
                at: self.at(other.span()),
                message: format!(
                    "required_providers entry {local_name:?} must be an object like {{ source = \"…\", version = \"…\" }}"
                ),
            }),
        }
    }

    fn resource(
        &self,
        mode: ResourceMode,
        ty: &str,
        name: &str,
        body: &Body,
        at: Location,
    ) -> Result<ResourceDecl, ConfigError> {
        let provider = match body.get_attribute("provider") {
            Some(attr) => Some(self.provider_ref(&attr.value, self.at(attr.span()))?),
            None => None,
        };
        Ok(ResourceDecl {
            mode,
            r#type: ty.to_string(),
            name: name.to_string(),
            provider,
            at,
        })
    }

    /// The local name in a `provider = aws` / `provider = aws.west` reference. The quoted
    /// form `"aws.west"` of Terraform 0.11 is still accepted by Terraform, with a warning.
    fn provider_ref(&self, expr: &Expression, at: Location) -> Result<String, ConfigError> {
        let name = match expr {
            Expression::Variable(v) => Some(v.as_str().to_string()),
            Expression::Traversal(t) => match (&t.expr, t.operators.as_slice()) {
                (Expression::Variable(v), [op])
                    if matches!(op.value(), TraversalOperator::GetAttr(_)) =>
                {
                    Some(v.as_str().to_string())
                }
                _ => None,
            },
            Expression::String(s) => super::json::provider_ref_text(s.as_str()),
            _ => None,
        };
        name.ok_or_else(|| ConfigError::Invalid {
            at,
            message: format!(
                "invalid provider reference {}; expected a provider local name, optionally with an alias (aws or aws.west)",
                self.source_text(expr)
            ),
        })
    }

    /// A literal string argument; tfsum (like Terraform for these arguments) does not
    /// evaluate expressions.
    pub(super) fn literal(&self, expr: &Expression, what: &str) -> Result<String, ConfigError> {
        match expr {
            Expression::String(s) => Ok(s.as_str().to_string()),
            other => Err(ConfigError::Invalid {
                at: self.at(other.span()),
                message: format!(
                    "{what} must be a literal string, not {}",
                    self.source_text(other)
                ),
            }),
        }
    }

    /// The expression as written, for messages and non-literal module sources.
    pub(super) fn source_text(&self, expr: &Expression) -> String {
        expr.span()
            .and_then(|span| self.text.get(span))
            .map_or_else(|| "an expression".to_string(), |s| s.trim().to_string())
    }
}

/// The `(type, name)` of an import's `to = type.name[key]` address; `None` for addresses in
/// child modules (`module.x.…`) or anything unrecognisable.
fn resource_target(expr: &Expression) -> Option<(String, String)> {
    let Expression::Traversal(t) = expr else {
        return None;
    };
    let Expression::Variable(root) = &t.expr else {
        return None;
    };
    if root.as_str() == "module" {
        return None;
    }
    match t.operators.first().map(|op| op.value()) {
        Some(TraversalOperator::GetAttr(name)) => {
            Some((root.as_str().to_string(), name.as_str().to_string()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_vocab::addr::TERRAFORM_REGISTRY;

    fn parse(text: &str) -> Result<FileContent, ConfigError> {
        parse_file(Path::new("main.tf"), text, TERRAFORM_REGISTRY)
    }

    /// `(local name, source, version)` of every `required_providers` entry.
    fn required(content: &FileContent) -> Vec<(String, String, Option<String>)> {
        content
            .required_providers
            .iter()
            .flat_map(|(_, entries)| entries)
            .map(|e| {
                let version = e.version.as_ref().map(|v| v.text.clone());
                (e.local_name.clone(), e.addr.to_string(), version)
            })
            .collect()
    }

    const REQUIRED_NULL: &str = r#"
terraform {
  required_providers {
    null = { source = "hashicorp/null", version = "3.2.1" }
  }
}
"#;

    /// An empty heredoc used to run on to the next line holding its delimiter (here in the
    /// last block), silently swallowing the `terraform` block between them.
    #[test]
    fn blocks_after_an_empty_heredoc_are_read() {
        let text = format!(
            "locals {{\n  a = <<EOT\nEOT\n}}\n{REQUIRED_NULL}\nlocals {{\n  b = <<EOT\nx\nEOT\n}}\n"
        );
        let content = parse(&text).unwrap();
        assert_eq!(
            required(&content),
            [(
                "null".into(),
                "registry.terraform.io/hashicorp/null".into(),
                Some("3.2.1".into())
            )]
        );
    }

    /// Terraform evaluates an object constructor item by item, so a repeated key takes the
    /// later value, whichever way each key is spelled.
    #[test]
    fn repeated_object_keys_take_the_later_value() {
        let cases = [
            (
                r#"{ source = "hashicorp/null", version = "1.0.0", version = "2.0.0" }"#,
                "2.0.0",
            ),
            (
                r#"{ version = "1.0.0", source = "hashicorp/null", "version" = "2.0.0" }"#,
                "2.0.0",
            ),
            (
                r#"{ "version" = "1.0.0", version = "2.0.0", "version" = "3.0.0", source = "hashicorp/null" }"#,
                "3.0.0",
            ),
        ];
        for (object, want) in cases {
            let text =
                format!("terraform {{\n  required_providers {{\n    null = {object}\n  }}\n}}\n");
            let content = parse(&text).unwrap_or_else(|e| panic!("{object}: {e}"));
            let got = required(&content);
            assert_eq!(got[0].2.as_deref(), Some(want), "{object}");
        }
    }

    /// Syntax errors Terraform reports are still errors, at the line Terraform names.
    #[test]
    fn syntax_errors_name_their_line() {
        let cases: &[(&str, usize)] = &[
            ("a = 1\nb = \"unterminated\nc = 2\n", 2),
            ("a = 1\nb = { c = 1 d = 2 }\n", 2),
            ("locals {\n  a = <<EOT\nno end\n", 3),
            ("locals {\n  a = <<EOT\nx\nEOT)\n}\n", 3),
            ("a = 1\na = 2\n", 2),
            ("a = 1\nb = [1,,2]\n", 2),
            ("a = 1\nb {\n  c = 1 }\n", 3),
        ];
        for (text, line) in cases {
            match parse(text) {
                Err(ConfigError::Syntax { line: got, .. }) => {
                    assert_eq!(got, *line, "{text:?}")
                }
                other => panic!("{text:?}: want a syntax error on line {line}, got {other:?}"),
            }
        }
    }

    /// Input nested beyond the parser's limits is a syntax error, not a stack overflow, on
    /// a thread with a tokio worker's 2 MiB stack; the deepest accepted nesting parses there.
    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = 100_000;
        let rejected = [
            format!("a = {}{}\n", "[".repeat(deep), "]".repeat(deep)),
            format!("a = {}1{}\n", "(".repeat(deep), ")".repeat(deep)),
            format!("a = {}1{}\n", "{a = ".repeat(deep), "}".repeat(deep)),
            format!("a = {}x{}\n", "\"${".repeat(deep), "}\"".repeat(deep)),
            format!("a = {}1\n", "!".repeat(deep)),
            format!("a = {}\n", vec!["1"; deep].join(" + ")),
            "a {\n".repeat(deep),
        ];
        let accepted = format!(
            "a = {}1{}\n",
            "{for k, v in ".repeat(63),
            " : k => v}".repeat(63)
        );
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                for text in &rejected {
                    let result = parse(text);
                    assert!(
                        matches!(result, Err(ConfigError::Syntax { .. })),
                        "{}…: {result:?}",
                        &text[..20]
                    );
                }
                parse(&accepted).unwrap();
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
