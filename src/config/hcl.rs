//! Native-syntax (`.tf`, `.tofu`) files → [`FileContent`].
//!
//! Parsed with hcl-edit rather than hcl-rs because hcl-edit keeps byte spans, which give
//! the line numbers for constraints and errors (hcl-rs builds on the same parser, so both
//! accept the same input). Only the blocks that decide provider selection are read:
//! `terraform` (`required_providers`, `backend`, `cloud`), `provider`, `resource`, `data`,
//! `ephemeral`, `check` (nested `data`), `import` and `module`.

use std::path::Path;

use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block, Body};
use hcl_edit::Span;

use super::{
    requirement, ConfigError, FileContent, ImportDecl, LineIndex, Location, ModuleCallDecl,
    ProviderBlock, RawConstraint, ResourceDecl, ResourceMode,
};

pub(super) fn parse_file(
    path: &Path,
    text: &str,
    default_host: &str,
) -> Result<FileContent, ConfigError> {
    // A UTF-8 byte order mark is not HCL; dropping it keeps line numbers intact.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = hcl_edit::parser::parse_body(text).map_err(|e| ConfigError::Syntax {
        file: path.to_path_buf(),
        line: e.location().line(),
        column: e.location().column(),
        message: e.message().to_string(),
    })?;
    let reader = Reader {
        path,
        lines: LineIndex::new(text),
        text,
        default_host,
    };
    let mut out = FileContent::default();
    for block in body.blocks() {
        reader.top_level(block, &mut out)?;
    }
    Ok(out)
}

struct Reader<'a> {
    path: &'a Path,
    lines: LineIndex,
    text: &'a str,
    default_host: &'a str,
}

impl Reader<'_> {
    fn at(&self, span: Option<std::ops::Range<usize>>) -> Location {
        Location {
            file: self.path.to_path_buf(),
            line: span.map_or(1, |s| self.lines.line(s.start)),
        }
    }

    fn top_level(&self, block: &Block, out: &mut FileContent) -> Result<(), ConfigError> {
        let at = self.at(block.span());
        let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
        match (block.ident.as_str(), labels.as_slice()) {
            ("terraform", []) => self.terraform(&block.body, out)?,
            ("provider", [name]) => {
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
                out.provider_blocks.push(ProviderBlock {
                    local_name: name.to_string(),
                    alias,
                    version,
                    at,
                });
            }
            ("resource", [ty, name]) => out.resources.push(self.resource(
                ResourceMode::Managed,
                ty,
                name,
                &block.body,
                at,
            )?),
            ("data", [ty, name]) => {
                out.resources
                    .push(self.resource(ResourceMode::Data, ty, name, &block.body, at)?)
            }
            ("ephemeral", [ty, name]) => out.resources.push(self.resource(
                ResourceMode::Ephemeral,
                ty,
                name,
                &block.body,
                at,
            )?),
            ("check", [_]) => {
                // A check block may scope one data source; it still needs its provider.
                for inner in block.body.get_blocks("data") {
                    let labels: Vec<&str> = inner.labels.iter().map(|l| l.as_str()).collect();
                    if let [ty, name] = labels.as_slice() {
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
            ("module", [name]) => {
                let source = block
                    .body
                    .get_attribute("source")
                    .map(|attr| match &attr.value {
                        Expression::String(s) => (s.as_str().to_string(), true),
                        other => (self.source_text(other), false),
                    });
                out.module_calls.push(ModuleCallDecl {
                    name: name.to_string(),
                    source,
                    at,
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn terraform(&self, body: &Body, out: &mut FileContent) -> Result<(), ConfigError> {
        for block in body.blocks() {
            match block.ident.as_str() {
                "required_providers" => {
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
                        _ => {}
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
    fn literal(&self, expr: &Expression, what: &str) -> Result<String, ConfigError> {
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
    fn source_text(&self, expr: &Expression) -> String {
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
