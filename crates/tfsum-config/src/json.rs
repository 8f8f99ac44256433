//! JSON-syntax (`.tf.json`, `.tofu.json`) files → [`FileContent`].
//!
//! Terraform's JSON syntax (HCL's JSON dialect) spells the same blocks as nested objects:
//! `{"terraform": {"required_providers": {"aws": {"source": "…"}}}}`, `resource` as
//! type → name → body, `provider` as name → body, `module` as name → body. At every block
//! level an array of objects may stand for several blocks, property names `"//"` are
//! comments, and a property name may repeat (each is another block).
//!
//! serde_json would drop repeated names and all positions, so this file reads with
//! [`tfsum_vocab::json`], which keeps both: every object member remembers the line of its
//! name, which is the line tfsum reports for constraints and errors.

use std::path::Path;
use std::sync::Arc;

use tfsum_vocab::hcl_string::{quote_into, Templates};
use tfsum_vocab::json::{JsonKind, JsonNode, Member};

use super::{
    invalid_entry_key, requirement, CallExprs, ConfigError, FileContent, ImportDecl, Location,
    ModuleCallDecl, ProviderBlock, ProviderRequirement, RawConstraint, ResourceDecl, ResourceMode,
    Validation, VariableDecl, WrittenExpr, MODULE_META_ARGUMENTS,
};

/// The members of a JSON file's root object (`what` names the kind of file in the
/// error when the root is not an object); a byte order mark is dropped first.
pub(super) fn root_members(
    path: &Path,
    text: &str,
    what: &str,
) -> Result<Vec<Member>, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let root = JsonNode::parse(text).map_err(|e| ConfigError::Syntax {
        file: path.to_path_buf(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    match root.kind {
        JsonKind::Object(members) => Ok(members),
        _ => Err(ConfigError::Invalid {
            at: Location {
                file: path.into(),
                line: root.line,
            },
            message: format!("the root of a JSON {what} must be an object"),
        }),
    }
}

pub(super) fn parse_file(
    path: &Path,
    text: &str,
    default_host: &str,
) -> Result<FileContent, ConfigError> {
    let members = root_members(path, text, "configuration file")?;
    let file: Arc<Path> = path.into();
    let at = |line: usize| Location {
        file: file.clone(),
        line,
    };
    let mut out = FileContent::default();
    for member in &members {
        match member.name.as_str() {
            "terraform" => terraform(member, &at, default_host, &mut out)?,
            "provider" => provider_blocks(member, &at, &mut out)?,
            "resource" => resources(member, ResourceMode::Managed, &at, &mut out)?,
            "data" => resources(member, ResourceMode::Data, &at, &mut out)?,
            "ephemeral" => resources(member, ResourceMode::Ephemeral, &at, &mut out)?,
            "check" => {
                for (_, body) in blocks(&member.value, 1) {
                    for inner in body.members().filter(|m| m.name == "data") {
                        resources(inner, ResourceMode::Data, &at, &mut out)?;
                    }
                }
            }
            "import" => imports(member, &at, &mut out)?,
            "module" => module_calls(member, &at, &mut out)?,
            "action" => resources(member, ResourceMode::Action, &at, &mut out)?,
            "variable" => variables(member, &at, &mut out)?,
            "locals" => {
                for (_, body) in blocks(&member.value, 0) {
                    for local in body.members() {
                        let expr = written(&local.value, at(local.line));
                        out.locals.push((local.name.clone(), expr));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// `terraform` blocks: `required_providers`, `required_version`, and whether there is a
/// backend or cloud.
fn terraform(
    member: &Member,
    at: &impl Fn(usize) -> Location,
    default_host: &str,
    out: &mut FileContent,
) -> Result<(), ConfigError> {
    for (_, body) in blocks(&member.value, 0) {
        for inner in body.members() {
            match inner.name.as_str() {
                "required_providers" => {
                    for (_, rp_body) in blocks(&inner.value, 0) {
                        let entries = rp_body
                            .members()
                            .map(|entry| required_provider(entry, at, default_host))
                            .collect::<Result<_, _>>()?;
                        out.required_providers.push((at(inner.line), entries));
                    }
                }
                "backend" | "cloud" => out.backends.push(at(inner.line)),
                "required_version" => {
                    // Non-string values are Terraform's error to report, not tfsum's.
                    if let JsonKind::String(text) = &inner.value.kind {
                        out.required_version.push(RawConstraint {
                            text: text.clone(),
                            at: at(inner.line),
                        });
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

pub(super) fn provider_blocks(
    member: &Member,
    at: &impl Fn(usize) -> Location,
    out: &mut FileContent,
) -> Result<(), ConfigError> {
    for (labels, body) in blocks(&member.value, 1) {
        let [(name, line)] = labels.as_slice() else {
            continue;
        };
        let alias = body
            .get("alias")
            .map(|m| string(m, "alias", at))
            .transpose()?;
        let version = match body.get("version") {
            Some(m) => Some(RawConstraint {
                text: string(m, "version", at)?,
                at: at(m.line),
            }),
            None => None,
        };
        out.provider_blocks.push(ProviderBlock {
            local_name: name.to_string(),
            alias,
            version,
            at: at(*line),
        });
    }
    Ok(())
}

fn imports(
    member: &Member,
    at: &impl Fn(usize) -> Location,
    out: &mut FileContent,
) -> Result<(), ConfigError> {
    for (_, body) in blocks(&member.value, 0) {
        let target = match body.get("to") {
            Some(m) => resource_target_text(&string(m, "to", at)?),
            None => None,
        };
        let provider = body
            .get("provider")
            .map(|m| provider_ref(m, at))
            .transpose()?;
        out.imports.push(ImportDecl { target, provider });
    }
    Ok(())
}

fn module_calls(
    member: &Member,
    at: &impl Fn(usize) -> Location,
    out: &mut FileContent,
) -> Result<(), ConfigError> {
    for (labels, body) in blocks(&member.value, 1) {
        let [(name, line)] = labels.as_slice() else {
            continue;
        };
        let mut written_exprs = CallExprs::default();
        // A JSON string is a template: an interpolation or directive makes it an
        // expression.
        let source = match body.get("source") {
            Some(m) => {
                let text = string(m, "source", at)?;
                let literal = !is_template(&text);
                if !literal {
                    written_exprs.source = Some(written(&m.value, at(m.line)));
                }
                Some((text, literal))
            }
            None => None,
        };
        let version = match body.get("version") {
            Some(m) => match &m.value.kind {
                JsonKind::String(text) if !is_template(text) => Some(text.clone()),
                _ => {
                    written_exprs.version = Some(written(&m.value, at(m.line)));
                    None
                }
            },
            None => None,
        };
        for arg in body.members() {
            if !MODULE_META_ARGUMENTS.contains(&arg.name.as_str()) && arg.name != "//" {
                let expr = written(&arg.value, at(arg.line));
                written_exprs.args.insert(arg.name.clone(), expr);
            }
        }
        out.module_calls.push(ModuleCallDecl {
            name: name.to_string(),
            source,
            version,
            written: written_exprs,
            at: at(*line),
        });
    }
    Ok(())
}

/// `"variable": {"NAME": {"default": …, "type": "list(string)", "const": true, …}}`: in
/// JSON a type is a string holding the type expression.
fn variables(
    member: &Member,
    at: &impl Fn(usize) -> Location,
    out: &mut FileContent,
) -> Result<(), ConfigError> {
    for (labels, body) in blocks(&member.value, 1) {
        let [(name, line)] = labels.as_slice() else {
            continue;
        };
        let flag = |key: &str| -> Result<Option<bool>, ConfigError> {
            match body.get(key) {
                None => Ok(None),
                Some(m) => match m.value.kind {
                    JsonKind::Bool(b) => Ok(Some(b)),
                    _ => Err(ConfigError::invalid(
                        at(m.line),
                        format!("the {key} argument of variable {name:?} must be true or false"),
                    )),
                },
            }
        };
        let type_constraint = match body.get("type") {
            Some(m) => Some(WrittenExpr {
                text: string(m, "a variable's type", at)?.into(),
                at: at(m.line),
                offset: None,
            }),
            None => None,
        };
        let validations = body
            .get("validation")
            .map(|m| blocks(&m.value, 0))
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(_, v)| {
                let condition = v.get("condition")?;
                Some(Validation {
                    condition: written(&condition.value, at(condition.line)),
                    error_message: v
                        .get("error_message")
                        .map(|m| written(&m.value, at(m.line))),
                })
            })
            .collect();
        out.variables.push(VariableDecl {
            name: name.to_string(),
            at: at(*line),
            default: body.get("default").map(|m| written(&m.value, at(m.line))),
            type_constraint,
            constant: flag("const")?,
            sensitive: flag("sensitive")?,
            ephemeral: flag("ephemeral")?,
            nullable: flag("nullable")?,
            validations,
        });
    }
    Ok(())
}

/// Whether a JSON string holds template syntax (`${…}` or `%{…}`, not their `$${`/`%%{`
/// escapes).
fn is_template(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..bytes.len()).any(|i| {
        bytes[i] == b'{'
            && matches!(bytes[i - 1], b'$' | b'%')
            && !(i >= 2 && bytes[i - 2] == bytes[i - 1])
    })
}

/// A JSON value in expression context as the native text that means the same (HCL's
/// JSON syntax): strings are templates, objects' property names are literal keys.
fn written(node: &JsonNode, at: Location) -> WrittenExpr {
    let mut text = String::new();
    native_text(node, &mut text);
    WrittenExpr {
        text: text.into(),
        at,
        offset: None,
    }
}

fn native_text(node: &JsonNode, out: &mut String) {
    match &node.kind {
        JsonKind::Null => out.push_str("null"),
        JsonKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        JsonKind::Number(n) => out.push_str(n),
        JsonKind::String(s) => quote_into(out, s, Templates::Kept),
        JsonKind::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                native_text(item, out);
            }
            out.push(']');
        }
        JsonKind::Object(members) => {
            out.push('{');
            for member in members.iter().filter(|m| m.name != "//") {
                quote_into(out, &member.name, Templates::Kept);
                out.push_str(" = ");
                native_text(&member.value, out);
                out.push('\n');
            }
            out.push('}');
        }
    }
}

fn required_provider(
    entry: &Member,
    at: &impl Fn(usize) -> Location,
    default_host: &str,
) -> Result<ProviderRequirement, ConfigError> {
    match &entry.value.kind {
        JsonKind::String(version) => requirement(
            &entry.name,
            None,
            Some(RawConstraint {
                text: version.clone(),
                at: at(entry.line),
            }),
            at(entry.line),
            default_host,
        ),
        JsonKind::Object(_) => {
            let unknown = entry.value.members().find(|m| {
                !matches!(
                    m.name.as_str(),
                    "source" | "version" | "configuration_aliases"
                )
            });
            if let Some(member) = unknown {
                return Err(invalid_entry_key(
                    &entry.name,
                    &member.name,
                    at(member.line),
                ));
            }
            let source = match entry.value.get("source") {
                Some(m) => Some((string(m, "source", at)?, at(m.line))),
                None => None,
            };
            let version = match entry.value.get("version") {
                Some(m) => Some(RawConstraint {
                    text: string(m, "version", at)?,
                    at: at(m.line),
                }),
                None => None,
            };
            requirement(
                &entry.name,
                source.as_ref().map(|(s, l)| (s.as_str(), l.clone())),
                version,
                at(entry.line),
                default_host,
            )
        }
        _ => Err(ConfigError::Invalid {
            at: at(entry.line),
            message: format!(
                "required_providers entry {:?} must be an object with \"source\" and \"version\"",
                entry.name
            ),
        }),
    }
}

fn resources(
    member: &Member,
    mode: ResourceMode,
    at: &impl Fn(usize) -> Location,
    out: &mut FileContent,
) -> Result<(), ConfigError> {
    for (labels, body) in blocks(&member.value, 2) {
        let [(ty, line), (name, _)] = labels.as_slice() else {
            continue;
        };
        let provider = body
            .get("provider")
            .map(|m| provider_ref(m, at))
            .transpose()?;
        out.resources.push(ResourceDecl {
            mode,
            r#type: ty.to_string(),
            name: name.to_string(),
            provider,
            at: at(*line),
        });
    }
    Ok(())
}

fn provider_ref(member: &Member, at: &impl Fn(usize) -> Location) -> Result<String, ConfigError> {
    let text = string(member, "provider", at)?;
    provider_ref_text(&text).ok_or_else(|| ConfigError::Invalid {
        at: at(member.line),
        message: format!(
            "invalid provider reference {text:?}; expected a provider local name, optionally with an alias (\"aws\" or \"aws.west\")"
        ),
    })
}

/// The local name in a provider reference written as a string, `aws` or `aws.west`
/// (JSON syntax, and the quoted form of Terraform 0.11 in native syntax).
pub(super) fn provider_ref_text(text: &str) -> Option<String> {
    let mut parts = text.split('.');
    let name = parts.next()?;
    let alias = parts.next();
    let valid = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    };
    if !valid(name) || parts.next().is_some() || alias.is_some_and(|a| !valid(a)) {
        return None;
    }
    Some(name.to_string())
}

/// `(type, name)` of an import `to` address written as a string; `None` for addresses in
/// child modules or anything unrecognisable.
fn resource_target_text(text: &str) -> Option<(String, String)> {
    let mut parts = text.splitn(3, '.');
    let ty = parts.next()?;
    let rest = parts.next()?;
    let name = rest.split('[').next().unwrap_or(rest);
    if ty == "module" || ty.is_empty() || name.is_empty() {
        return None;
    }
    Some((ty.to_string(), name.to_string()))
}

pub(super) fn string(
    member: &Member,
    what: &str,
    at: &impl Fn(usize) -> Location,
) -> Result<String, ConfigError> {
    match &member.value.kind {
        JsonKind::String(s) => Ok(s.clone()),
        _ => Err(ConfigError::Invalid {
            at: at(member.line),
            message: format!("{what} must be a string"),
        }),
    }
}

/// A labelled block's label with the line it was written on.
pub(super) type Label<'a> = (&'a str, usize);

/// Flattens the JSON form of blocks with `labels` labels into `(labels, body)` pairs:
/// objects keyed by label down `labels` levels, with arrays allowed at every level.
pub(super) fn blocks(node: &JsonNode, labels: usize) -> Vec<(Vec<Label<'_>>, &JsonNode)> {
    fn go<'a>(
        node: &'a JsonNode,
        labels: usize,
        prefix: Vec<Label<'a>>,
        out: &mut Vec<(Vec<Label<'a>>, &'a JsonNode)>,
    ) {
        match &node.kind {
            JsonKind::Array(items) => {
                for item in items {
                    go(item, labels, prefix.clone(), out);
                }
            }
            JsonKind::Object(_) if labels == 0 => out.push((prefix, node)),
            JsonKind::Object(_) => {
                for member in node.members() {
                    let mut labels_so_far = prefix.clone();
                    labels_so_far.push((member.name.as_str(), member.line));
                    go(&member.value, labels - 1, labels_so_far, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    go(node, labels, Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_references() {
        let cases = [
            ("aws", Some("aws")),
            ("aws.west", Some("aws")),
            ("google-beta.eu", Some("google-beta")),
            ("", None),
            ("aws.", None),
            ("a.b.c", None),
            ("${var.x}", None),
        ];
        for (text, want) in cases {
            assert_eq!(provider_ref_text(text).as_deref(), want, "{text:?}");
        }
    }

    #[test]
    fn import_targets() {
        let cases = [
            ("aws_instance.web", Some(("aws_instance", "web"))),
            ("aws_instance.web[\"a\"]", Some(("aws_instance", "web"))),
            ("module.x.aws_instance.web", None),
            ("aws_instance", None),
        ];
        for (text, want) in cases {
            let got = resource_target_text(text);
            assert_eq!(
                got.as_ref().map(|(a, b)| (a.as_str(), b.as_str())),
                want,
                "{text}"
            );
        }
    }
}
