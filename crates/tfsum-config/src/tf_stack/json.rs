//! JSON-syntax stack files (`*.tfcomponent.json`) → the declarations of one file: the
//! same blocks as [`super::native`] in HCL's JSON dialect, read with the JSON reader of
//! [`crate`] (block objects keyed by label, arrays at any level, `"//"` comments).
//! Expressions are template strings there: a provider configuration passed in
//! `providers` reads `"${provider.aws.this}"`, a removed block's `from` `"component.x"`.

use std::path::Path;
use std::sync::Arc;

use super::{
    removed_target, requirement, BlockKind, Component, EmbeddedStack, ProviderConfig, ProviderSlot,
    RemovedTarget, SourceArg, StackFile, StackRequirement, LANGUAGE_EDITION,
};
use crate::json::{blocks, root_members, string};
use crate::{ConfigError, Location, RawConstraint};
use tfsum_vocab::json::{JsonKind, JsonNode, Member};

pub(super) fn parse_file(path: &Path, text: &str) -> Result<StackFile, ConfigError> {
    let members = root_members(path, text, "stack configuration file")?;
    let file: Arc<Path> = path.into();
    let at = |line: usize| Location {
        file: file.clone(),
        line,
    };
    let mut out = StackFile::default();
    for member in &members {
        match member.name.as_str() {
            "language" if !matches!(&member.value.kind, JsonKind::String(s) if s == LANGUAGE_EDITION) =>
            {
                return Err(ConfigError::invalid(
                    at(member.line),
                    format!("invalid language edition: the only one is {LANGUAGE_EDITION:?}"),
                ));
            }
            "required_providers" => {
                for (_, body) in blocks(&member.value, 0) {
                    let entries = body
                        .members()
                        .map(|entry| required_provider(entry, &at))
                        .collect::<Result<_, _>>()?;
                    out.required_providers.push((at(member.line), entries));
                }
            }
            "provider" => {
                for (labels, _) in blocks(&member.value, 2) {
                    if let [(local_name, _), (name, line)] = labels.as_slice() {
                        out.provider_configs.push(ProviderConfig {
                            local_name: local_name.to_string(),
                            name: name.to_string(),
                            at: at(*line),
                        });
                    }
                }
            }
            "component" => {
                for (labels, body) in blocks(&member.value, 1) {
                    let [(name, line)] = labels.as_slice() else {
                        continue;
                    };
                    out.components.push(Component {
                        kind: BlockKind::Declared,
                        name: name.to_string(),
                        source: source_arg(body, &at, *line)?,
                        providers: providers(body, &at)?,
                        at: at(*line),
                    });
                }
            }
            "stack" => {
                for (labels, body) in blocks(&member.value, 1) {
                    let [(name, line)] = labels.as_slice() else {
                        continue;
                    };
                    out.stacks.push(EmbeddedStack {
                        kind: BlockKind::Declared,
                        name: name.to_string(),
                        source: source_arg(body, &at, *line)?,
                        at: at(*line),
                    });
                }
            }
            "removed" => {
                for (_, body) in blocks(&member.value, 0) {
                    removed(body, &at, member.line, &mut out)?;
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn required_provider(
    entry: &Member,
    at: &impl Fn(usize) -> Location,
) -> Result<StackRequirement, ConfigError> {
    let JsonKind::Object(_) = &entry.value.kind else {
        return Err(ConfigError::invalid(
            at(entry.line),
            format!(
                "required_providers entry {:?} must be an object like {{\"source\": \"…\", \
                 \"version\": \"…\"}}",
                entry.name
            ),
        ));
    };
    let mut source = None;
    let mut version = None;
    let mut others = Vec::new();
    for member in entry.value.members() {
        match member.name.as_str() {
            "source" => source = Some((string(member, "source", at)?, at(member.line))),
            "version" => {
                version = Some(RawConstraint {
                    text: string(member, "version", at)?,
                    at: at(member.line),
                })
            }
            other => others.push((other.to_string(), at(member.line))),
        }
    }
    requirement(&entry.name, source, version, &others, at(entry.line))
}

fn source_arg(
    body: &JsonNode,
    at: &impl Fn(usize) -> Location,
    line: usize,
) -> Result<SourceArg, ConfigError> {
    let Some(source) = body.get("source") else {
        return Err(ConfigError::invalid(
            at(line),
            "the block needs a source argument",
        ));
    };
    let version = match body.get("version") {
        Some(member) => Some(RawConstraint {
            text: string(member, "version", at)?,
            at: at(member.line),
        }),
        None => None,
    };
    Ok(SourceArg {
        text: string(source, "source", at)?,
        at: at(source.line),
        version,
    })
}

fn providers(
    body: &JsonNode,
    at: &impl Fn(usize) -> Location,
) -> Result<Vec<ProviderSlot>, ConfigError> {
    let Some(member) = body.get("providers") else {
        return Ok(Vec::new());
    };
    let mut slots: Vec<ProviderSlot> = Vec::new();
    for entry in member.value.members() {
        let mut parts = entry.name.splitn(2, '.');
        let local_name = parts.next().unwrap_or_default().to_string();
        let alias = parts.next().map(str::to_string);
        let given = match &entry.value.kind {
            JsonKind::String(text) => provider_reference(text),
            _ => None,
        };
        if slots
            .iter()
            .any(|s| s.local_name == local_name && s.alias == alias)
        {
            return Err(ConfigError::invalid(
                at(entry.line),
                format!("providers assigns {} twice", entry.name),
            ));
        }
        slots.push(ProviderSlot {
            local_name,
            alias,
            given,
            at: at(entry.line),
        });
    }
    Ok(slots)
}

/// `"${provider.TYPE.NAME…}"` → `TYPE`.
fn provider_reference(text: &str) -> Option<String> {
    let inner = text.strip_prefix("${")?.strip_suffix('}')?.trim();
    let rest = inner.strip_prefix("provider.")?;
    let ty: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    (!ty.is_empty()).then_some(ty)
}

fn removed(
    body: &JsonNode,
    at: &impl Fn(usize) -> Location,
    line: usize,
    out: &mut StackFile,
) -> Result<(), ConfigError> {
    let Some(from) = body.get("from") else {
        return Err(ConfigError::invalid(
            at(line),
            "a removed block needs a from argument",
        ));
    };
    let text = string(from, "from", at)?;
    let text = text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(&text)
        .trim()
        .to_string();
    let names: Vec<&str> = text
        .split('.')
        .map(|step| step.split('[').next().unwrap_or(step))
        .collect();
    let Some(target) = removed_target(&names) else {
        return Err(ConfigError::invalid(
            at(from.line),
            format!("from = {text:?}: a removed block names component.NAME or stack.NAME"),
        ));
    };
    let source = source_arg(body, at, line)?;
    match target {
        RemovedTarget::Component => out.components.push(Component {
            kind: BlockKind::Removed,
            name: text,
            source,
            providers: providers(body, at)?,
            at: at(line),
        }),
        RemovedTarget::Stack => out.stacks.push(EmbeddedStack {
            kind: BlockKind::Removed,
            name: text,
            source,
            at: at(line),
        }),
    }
    Ok(())
}
