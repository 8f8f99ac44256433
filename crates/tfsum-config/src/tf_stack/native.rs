//! Native-syntax stack files (`*.tfcomponent.hcl`) → the declarations of one file, read
//! with the configuration reader of [`crate`] (hcl-edit, spans to lines).

use std::path::Path;

use hcl_edit::expr::{Expression, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block, Body};
use hcl_edit::Span;

use super::{
    removed_target, requirement, BlockKind, Component, EmbeddedStack, ProviderConfig, ProviderSlot,
    RemovedTarget, SourceArg, StackFile, StackRequirement, LANGUAGE_EDITION,
};
use crate::hcl::{with_body, Reader};
use crate::{ConfigError, Location, RawConstraint};
use tfsum_vocab::addr::TERRAFORM_REGISTRY;

pub(super) fn parse_file(path: &Path, text: &str) -> Result<StackFile, ConfigError> {
    with_body(path, text, TERRAFORM_REGISTRY, |body, reader| {
        let mut out = StackFile::default();
        language(body, reader)?;
        for block in body.blocks() {
            top_level(block, reader, &mut out)?;
        }
        Ok(out)
    })
}

/// `language = TFStack2023`, the only edition there is (`stackconfig/file.go:60-85`).
fn language(body: &Body, reader: &Reader<'_>) -> Result<(), ConfigError> {
    let Some(attr) = body.get_attribute("language") else {
        return Ok(());
    };
    match &attr.value {
        Expression::Variable(v) if v.as_str() == LANGUAGE_EDITION => Ok(()),
        other => Err(ConfigError::invalid(
            reader.at(attr.span()),
            format!(
                "invalid language edition {}: the only one is the keyword {LANGUAGE_EDITION}",
                reader.source_text(other)
            ),
        )),
    }
}

fn top_level(block: &Block, reader: &Reader<'_>, out: &mut StackFile) -> Result<(), ConfigError> {
    let at = reader.at(block.span());
    let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
    match (block.ident.as_str(), labels.as_slice()) {
        ("required_providers", []) => {
            let entries = required_providers(&block.body, reader)?;
            out.required_providers.push((at, entries));
        }
        ("provider", [local_name, name]) => out.provider_configs.push(ProviderConfig {
            local_name: local_name.to_string(),
            name: name.to_string(),
            at,
        }),
        ("component", [name]) => out.components.push(Component {
            kind: BlockKind::Declared,
            name: name.to_string(),
            source: source_arg(&block.body, reader, &at)?,
            providers: providers(&block.body, reader)?,
            at,
        }),
        ("stack", [name]) => out.stacks.push(EmbeddedStack {
            kind: BlockKind::Declared,
            name: name.to_string(),
            source: source_arg(&block.body, reader, &at)?,
            at,
        }),
        ("removed", []) => {
            let Some(from) = block.body.get_attribute("from") else {
                return Err(ConfigError::invalid(
                    at,
                    "a removed block needs a from argument",
                ));
            };
            let from_at = reader.at(from.span());
            let (text, target) = removed_from(&from.value, reader, &from_at)?;
            let source = source_arg(&block.body, reader, &at)?;
            match target {
                RemovedTarget::Component => out.components.push(Component {
                    kind: BlockKind::Removed,
                    name: text,
                    source,
                    providers: providers(&block.body, reader)?,
                    at,
                }),
                RemovedTarget::Stack => out.stacks.push(EmbeddedStack {
                    kind: BlockKind::Removed,
                    name: text,
                    source,
                    at,
                }),
            }
        }
        _ => {}
    }
    Ok(())
}

/// The entries of a `required_providers` block: attributes whose values are objects of
/// keywords (`provider_requirements.go:33-225`).
fn required_providers(
    body: &Body,
    reader: &Reader<'_>,
) -> Result<Vec<StackRequirement>, ConfigError> {
    if let Some(nested) = body.blocks().next() {
        return Err(ConfigError::invalid(
            reader.at(nested.span()),
            format!(
                "unexpected {:?} block in required_providers: an entry is an attribute, \
                 `NAME = {{ source = \"…\", version = \"…\" }}`",
                nested.ident.as_str()
            ),
        ));
    }
    let mut entries = Vec::new();
    for attr in body.attributes() {
        let local_name = attr.key.as_str();
        let at = reader.at(attr.span());
        let Expression::Object(object) = &attr.value else {
            return Err(ConfigError::invalid(
                at,
                format!(
                    "required_providers entry {local_name:?} must be an object like \
                     {{ source = \"…\", version = \"…\" }}"
                ),
            ));
        };
        let mut source = None;
        let mut version = None;
        let mut others = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for (key, value) in object.iter() {
            let value_at = reader.at(value.expr().span());
            let key = match key {
                ObjectKey::Ident(ident) => ident.as_str().to_string(),
                ObjectKey::Expression(Expression::Variable(v)) => v.as_str().to_string(),
                ObjectKey::Expression(other) => {
                    return Err(ConfigError::invalid(
                        reader.at(other.span()),
                        format!(
                            "required_providers entry {local_name:?}: every attribute is a simple \
                             keyword, not {}",
                            reader.source_text(other)
                        ),
                    ))
                }
            };
            if seen.contains(&key) {
                return Err(ConfigError::invalid(
                    value_at,
                    format!("required_providers entry {local_name:?} sets {key:?} twice"),
                ));
            }
            seen.push(key.clone());
            match key.as_str() {
                "source" => source = Some((reader.literal(value.expr(), "source")?, value_at)),
                "version" => {
                    version = Some(RawConstraint {
                        text: reader.literal(value.expr(), "version")?,
                        at: value_at,
                    })
                }
                _ => others.push((key, value_at)),
            }
        }
        entries.push(requirement(local_name, source, version, &others, at)?);
    }
    Ok(entries)
}

/// `source` (required) and `version`, literal strings.
fn source_arg(body: &Body, reader: &Reader<'_>, at: &Location) -> Result<SourceArg, ConfigError> {
    let Some(source) = body.get_attribute("source") else {
        return Err(ConfigError::invalid(
            at.clone(),
            "the block needs a source argument",
        ));
    };
    let version = match body.get_attribute("version") {
        Some(attr) => Some(RawConstraint {
            text: reader.literal(&attr.value, "version")?,
            at: reader.at(attr.span()),
        }),
        None => None,
    };
    Ok(SourceArg {
        text: reader.literal(&source.value, "source")?,
        at: reader.at(source.span()),
        version,
    })
}

/// The `providers` map: keys `NAME` or `NAME.ALIAS`, values kept only as far as they
/// name a provider configuration (`provider.TYPE.…`); `stackconfig/component.go:242-324`.
fn providers(body: &Body, reader: &Reader<'_>) -> Result<Vec<ProviderSlot>, ConfigError> {
    let Some(attr) = body.get_attribute("providers") else {
        return Ok(Vec::new());
    };
    let Expression::Object(object) = &attr.value else {
        return Err(ConfigError::invalid(
            reader.at(attr.span()),
            "providers must be an object: { LOCAL_NAME = provider.TYPE.NAME, … }",
        ));
    };
    let mut slots: Vec<ProviderSlot> = Vec::new();
    for (key, value) in object.iter() {
        let at = reader.at(value.expr().span());
        let steps = match key {
            ObjectKey::Ident(ident) => vec![ident.as_str().to_string()],
            // A bare `null`, `true` or `false` is a keyword key, as any other name
            // (`hcl.AbsTraversalForExpr` reads it so): `null = provider.null.this`.
            ObjectKey::Expression(Expression::Null(_)) => vec!["null".to_string()],
            ObjectKey::Expression(Expression::Bool(b)) => vec![b.value().to_string()],
            ObjectKey::Expression(expr) => attribute_steps(expr).unwrap_or_default(),
        };
        let (local_name, alias) = match steps.as_slice() {
            [name] => (name.clone(), None),
            [name, alias] => (name.clone(), Some(alias.clone())),
            _ => {
                return Err(ConfigError::invalid(
                    at,
                    "each key of providers is a provider local name, optionally followed by a \
                     period and an alias (aws or aws.west)",
                ))
            }
        };
        if slots
            .iter()
            .any(|s| s.local_name == local_name && s.alias == alias)
        {
            return Err(ConfigError::invalid(
                at,
                format!("providers assigns {} twice", steps.join(".")),
            ));
        }
        slots.push(ProviderSlot {
            local_name,
            alias,
            given: provider_reference(value.expr()),
            at,
        });
    }
    Ok(slots)
}

/// `provider.TYPE.NAME…` → `TYPE`.
fn provider_reference(expr: &Expression) -> Option<String> {
    let Expression::Traversal(t) = expr else {
        return None;
    };
    let Expression::Variable(root) = &t.expr else {
        return None;
    };
    if root.as_str() != "provider" {
        return None;
    }
    match t.operators.first().map(|op| op.value()) {
        Some(TraversalOperator::GetAttr(ty)) => Some(ty.as_str().to_string()),
        _ => None,
    }
}

/// The names of `a`, `a.b`, `a.b.c`: a variable and attribute steps only.
fn attribute_steps(expr: &Expression) -> Option<Vec<String>> {
    match expr {
        Expression::Variable(v) => Some(vec![v.as_str().to_string()]),
        Expression::Traversal(t) => {
            let Expression::Variable(root) = &t.expr else {
                return None;
            };
            let mut steps = vec![root.as_str().to_string()];
            for op in &t.operators {
                match op.value() {
                    TraversalOperator::GetAttr(name) => steps.push(name.as_str().to_string()),
                    _ => return None,
                }
            }
            Some(steps)
        }
        _ => None,
    }
}

/// A removed block's `from`: its text, and whether it names a component or a stack.
fn removed_from(
    expr: &Expression,
    reader: &Reader<'_>,
    at: &Location,
) -> Result<(String, RemovedTarget), ConfigError> {
    let text = reader.source_text(expr);
    let mut steps: Vec<String> = Vec::new();
    if let Expression::Traversal(t) = expr {
        if let Expression::Variable(root) = &t.expr {
            steps.push(root.as_str().to_string());
            for op in &t.operators {
                if let TraversalOperator::GetAttr(name) = op.value() {
                    steps.push(name.as_str().to_string());
                }
            }
        }
    }
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    match removed_target(&steps) {
        Some(target) => Ok((text, target)),
        None => Err(ConfigError::invalid(
            at.clone(),
            format!("from = {text}: a removed block names component.NAME or stack.NAME"),
        )),
    }
}
