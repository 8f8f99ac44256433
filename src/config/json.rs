//! JSON-syntax (`.tf.json`, `.tofu.json`) files → [`FileContent`].
//!
//! Terraform's JSON syntax (HCL's JSON dialect) spells the same blocks as nested objects:
//! `{"terraform": {"required_providers": {"aws": {"source": "…"}}}}`, `resource` as
//! type → name → body, `provider` as name → body, `module` as name → body. At every block
//! level an array of objects may stand for several blocks, property names `"//"` are
//! comments, and a property name may repeat (each is another block).
//!
//! serde_json would drop repeated names and all positions, so this file carries a small
//! JSON reader ([`JsonNode`]) that keeps both: every object member remembers the line of
//! its name, which is the line tfsum reports for constraints and errors.

use std::path::Path;

use super::{
    requirement, ConfigError, FileContent, ImportDecl, Location, ModuleCallDecl, ProviderBlock,
    ProviderRequirement, RawConstraint, ResourceDecl, ResourceMode,
};

pub(super) fn parse_file(
    path: &Path,
    text: &str,
    default_host: &str,
) -> Result<FileContent, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let root = JsonNode::parse(text).map_err(|e| ConfigError::Syntax {
        file: path.to_path_buf(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let at = |line: usize| Location {
        file: path.to_path_buf(),
        line,
    };
    let JsonKind::Object(members) = &root.kind else {
        return Err(ConfigError::Invalid {
            at: at(root.line),
            message: "the root of a JSON configuration file must be an object".to_string(),
        });
    };
    let mut out = FileContent::default();
    for member in members {
        match member.name.as_str() {
            "terraform" => {
                for (_, body) in blocks(&member.value, 0) {
                    for inner in object_members(body) {
                        match inner.name.as_str() {
                            "required_providers" => {
                                for (_, rp_body) in blocks(&inner.value, 0) {
                                    let mut entries = Vec::new();
                                    for entry in object_members(rp_body) {
                                        entries.push(required_provider(entry, &at, default_host)?);
                                    }
                                    out.required_providers.push((at(inner.line), entries));
                                }
                            }
                            "backend" | "cloud" => out.backends.push(at(inner.line)),
                            _ => {}
                        }
                    }
                }
            }
            "provider" => {
                for (labels, body) in blocks(&member.value, 1) {
                    let [(name, line)] = labels.as_slice() else {
                        continue;
                    };
                    let alias = match get(body, "alias") {
                        Some(m) => Some(string(m, "alias", &at)?),
                        None => None,
                    };
                    let version = match get(body, "version") {
                        Some(m) => Some(RawConstraint {
                            text: string(m, "version", &at)?,
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
            }
            "resource" => resources(member, ResourceMode::Managed, &at, &mut out)?,
            "data" => resources(member, ResourceMode::Data, &at, &mut out)?,
            "ephemeral" => resources(member, ResourceMode::Ephemeral, &at, &mut out)?,
            "check" => {
                for (_, body) in blocks(&member.value, 1) {
                    for inner in object_members(body).filter(|m| m.name == "data") {
                        resources(inner, ResourceMode::Data, &at, &mut out)?;
                    }
                }
            }
            "import" => {
                for (_, body) in blocks(&member.value, 0) {
                    let target = match get(body, "to") {
                        Some(m) => resource_target_text(&string(m, "to", &at)?),
                        None => None,
                    };
                    let provider = match get(body, "provider") {
                        Some(m) => Some(provider_ref(m, &at)?),
                        None => None,
                    };
                    out.imports.push(ImportDecl { target, provider });
                }
            }
            "module" => {
                for (labels, body) in blocks(&member.value, 1) {
                    let [(name, line)] = labels.as_slice() else {
                        continue;
                    };
                    let source = match get(body, "source") {
                        Some(m) => Some(string(m, "source", &at)?),
                        None => None,
                    };
                    // A JSON string is a template: `${…}` makes the source an expression.
                    let source = source.map(|s| {
                        let literal = !s.contains("${");
                        (s, literal)
                    });
                    out.module_calls.push(ModuleCallDecl {
                        name: name.to_string(),
                        source,
                        at: at(*line),
                    });
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
            let source = match get(&entry.value, "source") {
                Some(m) => Some((string(m, "source", at)?, at(m.line))),
                None => None,
            };
            let version = match get(&entry.value, "version") {
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
        let provider = match get(body, "provider") {
            Some(m) => Some(provider_ref(m, at)?),
            None => None,
        };
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

fn string(
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

fn object_members(node: &JsonNode) -> impl Iterator<Item = &Member> {
    let members: &[Member] = match &node.kind {
        JsonKind::Object(members) => members,
        _ => &[],
    };
    members.iter().filter(|m| m.name != "//")
}

fn get<'a>(node: &'a JsonNode, name: &str) -> Option<&'a Member> {
    object_members(node).find(|m| m.name == name)
}

/// A labelled block's label with the line it was written on.
type Label<'a> = (&'a str, usize);

/// Flattens the JSON form of blocks with `labels` labels into `(labels, body)` pairs:
/// objects keyed by label down `labels` levels, with arrays allowed at every level.
fn blocks(node: &JsonNode, labels: usize) -> Vec<(Vec<Label<'_>>, &JsonNode)> {
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
                for member in object_members(node) {
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

// ---------------------------------------------------------------------------------------
// A minimal JSON reader that keeps member order, repeated names and line numbers.

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonNode {
    pub line: usize,
    pub kind: JsonKind,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JsonKind {
    Null,
    Bool(bool),
    /// Numbers are irrelevant to provider selection; the text is kept as written.
    Number(String),
    String(String),
    Array(Vec<JsonNode>),
    Object(Vec<Member>),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Member {
    pub name: String,
    /// The line of the member's name.
    pub line: usize,
    pub value: JsonNode,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Deeper nesting than this is rejected rather than risking the stack.
const MAX_DEPTH: usize = 256;

impl JsonNode {
    pub fn parse(text: &str) -> Result<JsonNode, JsonError> {
        let mut p = Parser {
            chars: text.char_indices().peekable(),
            line: 1,
            line_start: 0,
            pos: 0,
        };
        p.skip_ws();
        let node = p.value(0)?;
        p.skip_ws();
        if p.peek().is_some() {
            return Err(p.error("unexpected text after the JSON value"));
        }
        Ok(node)
    }
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    line: usize,
    line_start: usize,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    fn next(&mut self) -> Option<char> {
        let (i, c) = self.chars.next()?;
        self.pos = i + c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.line_start = self.pos;
        }
        Some(c)
    }

    fn error(&mut self, message: &str) -> JsonError {
        let at = self.chars.peek().map_or(self.pos, |&(i, _)| i);
        JsonError {
            line: self.line,
            column: at.saturating_sub(self.line_start) + 1,
            message: message.to_string(),
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.next();
        }
    }

    fn expect(&mut self, want: char) -> Result<(), JsonError> {
        if self.peek() == Some(want) {
            self.next();
            Ok(())
        } else {
            Err(self.error(&format!("expected {want:?}")))
        }
    }

    fn value(&mut self, depth: usize) -> Result<JsonNode, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("JSON nested too deeply"));
        }
        let line = self.line;
        let kind = match self.peek() {
            Some('{') => {
                self.next();
                let mut members = Vec::new();
                self.skip_ws();
                if self.peek() == Some('}') {
                    self.next();
                } else {
                    loop {
                        self.skip_ws();
                        let name_line = self.line;
                        if self.peek() != Some('"') {
                            return Err(self.error("expected a property name in double quotes"));
                        }
                        let name = self.string()?;
                        self.skip_ws();
                        self.expect(':')?;
                        self.skip_ws();
                        let value = self.value(depth + 1)?;
                        members.push(Member {
                            name,
                            line: name_line,
                            value,
                        });
                        self.skip_ws();
                        match self.next() {
                            Some(',') => continue,
                            Some('}') => break,
                            _ => return Err(self.error("expected ',' or '}' in object")),
                        }
                    }
                }
                JsonKind::Object(members)
            }
            Some('[') => {
                self.next();
                let mut items = Vec::new();
                self.skip_ws();
                if self.peek() == Some(']') {
                    self.next();
                } else {
                    loop {
                        self.skip_ws();
                        items.push(self.value(depth + 1)?);
                        self.skip_ws();
                        match self.next() {
                            Some(',') => continue,
                            Some(']') => break,
                            _ => return Err(self.error("expected ',' or ']' in array")),
                        }
                    }
                }
                JsonKind::Array(items)
            }
            Some('"') => JsonKind::String(self.string()?),
            Some('t') => self.keyword("true", JsonKind::Bool(true))?,
            Some('f') => self.keyword("false", JsonKind::Bool(false))?,
            Some('n') => self.keyword("null", JsonKind::Null)?,
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let mut text = String::new();
                while let Some(c) = self.peek() {
                    if c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E') {
                        text.push(c);
                        self.next();
                    } else {
                        break;
                    }
                }
                if text.parse::<f64>().is_err() {
                    return Err(self.error(&format!("invalid number {text:?}")));
                }
                JsonKind::Number(text)
            }
            Some(_) => return Err(self.error("expected a JSON value")),
            None => return Err(self.error("unexpected end of file")),
        };
        Ok(JsonNode { line, kind })
    }

    fn keyword(&mut self, word: &str, kind: JsonKind) -> Result<JsonKind, JsonError> {
        for want in word.chars() {
            if self.peek() != Some(want) {
                return Err(self.error("expected a JSON value"));
            }
            self.next();
        }
        Ok(kind)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.expect('"')?;
        let mut out = String::new();
        loop {
            match self.next() {
                Some('"') => return Ok(out),
                Some('\\') => match self.next() {
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some('/') => out.push('/'),
                    Some('b') => out.push('\u{8}'),
                    Some('f') => out.push('\u{c}'),
                    Some('n') => out.push('\n'),
                    Some('r') => out.push('\r'),
                    Some('t') => out.push('\t'),
                    Some('u') => {
                        let high = self.hex4()?;
                        let code = if (0xD800..0xDC00).contains(&high) {
                            if self.next() != Some('\\') || self.next() != Some('u') {
                                return Err(self.error("unpaired surrogate in \\u escape"));
                            }
                            let low = self.hex4()?;
                            if !(0xDC00..0xE000).contains(&low) {
                                return Err(self.error("unpaired surrogate in \\u escape"));
                            }
                            0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            high
                        };
                        match char::from_u32(code) {
                            Some(c) => out.push(c),
                            None => return Err(self.error("invalid \\u escape")),
                        }
                    }
                    _ => return Err(self.error("invalid escape in string")),
                },
                Some(c) if (c as u32) < 0x20 => {
                    return Err(self.error("control character in string"))
                }
                Some(c) => out.push(c),
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = self
                .next()
                .and_then(|c| c.to_digit(16))
                .ok_or_else(|| self.error("invalid \\u escape"))?;
            code = code * 16 + digit;
        }
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_json_with_lines_and_repeated_names() {
        let text = "{\n  \"a\": [1, -2.5e3, true, null],\n  \"a\": {\"s\": \"x\\u00e9\\ud83d\\ude00\\n\"}\n}";
        let node = JsonNode::parse(text).unwrap();
        let JsonKind::Object(members) = node.kind else {
            panic!("not an object")
        };
        assert_eq!(members.len(), 2);
        assert_eq!((members[0].name.as_str(), members[0].line), ("a", 2));
        assert_eq!(members[1].line, 3);
        let JsonKind::Object(inner) = &members[1].value.kind else {
            panic!("not an object")
        };
        assert_eq!(inner[0].value.kind, JsonKind::String("xé😀\n".to_string()));
    }

    #[test]
    fn reports_json_errors_with_positions() {
        let cases = [
            ("{\n  \"a\": 1,\n}", 3, 1),
            ("{\"a\" 1}", 1, 6),
            ("[1, 2", 1, 6),
            ("{\"a\": \"b}", 1, 10),
            ("{} x", 1, 4),
            ("{\"a\": tru}", 1, 10),
        ];
        for (text, line, column) in cases {
            let err = JsonNode::parse(text).unwrap_err();
            assert_eq!((err.line, err.column), (line, column), "{text:?}: {err:?}");
        }
    }

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
