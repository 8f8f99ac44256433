//! HCL v1 files (`.terraformrc`, `*.tfrc`), read with hcl-rs (an HCL v2 parser).
//!
//! HCL v2 accepts the usual v1 files. The one v1 form it rejects is a label-less nested
//! block whose body has quoted keys (`services { "providers.v1" = … }`,
//! `dev_overrides { "hashicorp/null" = … }`); [`parse`] rewrites each such `name {` into
//! the equivalent `name = {` before a second attempt. The rewrite works on tokens, so
//! strings, heredocs and comments that merely look like such a block are left alone.
//! [`body_to_tree`] then turns the body into a JSON-shaped tree, which is also how HCL
//! v1's JSON form writes blocks, so both formats share one reader.

/// Parses HCL v1 text: as HCL v2, and if that fails, once more after
/// [`quoted_key_blocks_as_attributes`]. The first error is the one reported.
pub(super) fn parse(text: &str) -> Result<hcl::Body, String> {
    match hcl::parse(text) {
        Ok(body) => Ok(body),
        Err(first) => {
            let rewritten = quoted_key_blocks_as_attributes(text);
            if rewritten == text {
                return Err(first.to_string());
            }
            hcl::parse(&rewritten).map_err(|_| first.to_string())
        }
    }
}

/// One significant token of HCL text, with its byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Ident(usize, usize),
    /// A quoted string (templates and escapes included).
    Str,
    Open,
    Close,
    Newline,
    /// Anything else: `=`, numbers, operators, heredocs.
    Other,
}

/// Rewrites `name {` into `name = {` where `name` starts a statement and the block's
/// first entry is a quoted key: a label-less block with quoted keys is a map to the v1
/// decoder Terraform uses, and an object to HCL v2. Real nested blocks such as
/// `network_mirror { url = … }` keep their block form.
fn quoted_key_blocks_as_attributes(text: &str) -> String {
    let tokens = tokens(text);
    let significant = |from: usize| tokens[from..].iter().find(|t| **t != Token::Newline);
    let mut inserts = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Token::Ident(_, end) = *token else {
            continue;
        };
        let starts_statement =
            i == 0 || matches!(tokens[i - 1], Token::Newline | Token::Open | Token::Close);
        if starts_statement
            && tokens.get(i + 1) == Some(&Token::Open)
            && significant(i + 2) == Some(&Token::Str)
        {
            inserts.push(end);
        }
    }
    let mut out = String::with_capacity(text.len() + 2 * inserts.len());
    let mut last = 0;
    for at in inserts {
        out.push_str(&text[last..at]);
        out.push_str(" =");
        last = at;
    }
    out.push_str(&text[last..]);
    out
}

/// The significant tokens of `text`. Comments and whitespace other than newlines are
/// dropped; strings (with `${…}` templates holding nested strings) and heredocs are one
/// token each. Unterminated constructs run to the end: the parser reports them.
fn tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        match bytes[i] {
            b'\n' => {
                out.push(Token::Newline);
                i += 1;
            }
            b'#' => i = line_end(text, i),
            b'/' if rest.starts_with("//") => i = line_end(text, i),
            b'/' if rest.starts_with("/*") => {
                i = rest[2..]
                    .find("*/")
                    .map_or(text.len(), |end| i + 2 + end + 2)
            }
            b'"' => {
                i = string_end(text, i);
                out.push(Token::Str);
            }
            b'<' if rest.starts_with("<<") => match heredoc_end(text, i) {
                Some(end) => {
                    i = end;
                    out.push(Token::Other);
                }
                None => {
                    i += 2;
                    out.push(Token::Other);
                }
            },
            b'{' => {
                out.push(Token::Open);
                i += 1;
            }
            b'}' => {
                out.push(Token::Close);
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .unwrap_or(rest.len());
                out.push(Token::Ident(i, i + len));
                i += len;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                out.push(Token::Other);
                i += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    out
}

fn line_end(text: &str, from: usize) -> usize {
    text[from..].find('\n').map_or(text.len(), |end| from + end)
}

/// The end of the string starting at `from` (a `"`): escapes skipped, `${…}` and `%{…}`
/// followed to their closing brace, with strings and braces nested inside them.
fn string_end(text: &str, from: usize) -> usize {
    enum Ctx {
        Str,
        /// Template code, with its open `{` count.
        Code(usize),
    }
    let bytes = text.as_bytes();
    let mut stack = vec![Ctx::Str];
    let mut i = from + 1;
    while let (Some(top), Some(&b)) = (stack.last_mut(), bytes.get(i)) {
        match (top, b) {
            (Ctx::Str, b'\\') => i += 1,
            (Ctx::Str, b'"') => {
                stack.pop();
                if stack.is_empty() {
                    return i + 1;
                }
            }
            (Ctx::Str, b'$' | b'%') if bytes.get(i + 1) == Some(&b'{') => {
                stack.push(Ctx::Code(0));
                i += 1;
            }
            (Ctx::Code(_), b'"') => stack.push(Ctx::Str),
            (Ctx::Code(open), b'{') => *open += 1,
            (Ctx::Code(0), b'}') => {
                stack.pop();
            }
            (Ctx::Code(open), b'}') => *open -= 1,
            _ => {}
        }
        i += 1;
    }
    text.len()
}

/// The end of the heredoc starting at `from` (`<<` or `<<-` and a marker, then lines up
/// to one holding only the marker), or `None` if `<<` does not start a heredoc.
fn heredoc_end(text: &str, from: usize) -> Option<usize> {
    let rest = text[from + 2..]
        .strip_prefix('-')
        .unwrap_or(&text[from + 2..]);
    let marker_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let marker = &rest[..marker_len];
    let after_marker = text.len() - rest.len() + marker_len;
    if marker.is_empty() || !text[after_marker..].starts_with(['\n', '\r']) {
        return None;
    }
    let mut pos = line_end(text, after_marker) + 1;
    while pos < text.len() {
        let end = line_end(text, pos);
        if text[pos..end].trim() == marker {
            return Some(end);
        }
        pos = end + 1;
    }
    Some(text.len())
}

pub(super) fn body_to_tree(body: &hcl::Body) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    for structure in body.iter() {
        match structure {
            hcl::Structure::Attribute(attr) => {
                map.insert(attr.key.to_string(), expr_to_json(&attr.expr));
            }
            hcl::Structure::Block(block) => {
                let mut value = body_to_tree(&block.body);
                for label in block.labels.iter().rev() {
                    let mut wrapped = serde_json::Map::new();
                    wrapped.insert(label.as_str().to_string(), value);
                    value = serde_json::Value::Object(wrapped);
                }
                let entry = map
                    .entry(block.identifier.to_string())
                    .or_insert_with(|| serde_json::Value::Array(Vec::new()));
                match entry {
                    serde_json::Value::Array(items) => items.push(value),
                    other => *other = serde_json::Value::Array(vec![value]),
                }
            }
        }
    }
    serde_json::Value::Object(map)
}

/// Literal values only; anything computed (function calls, references) becomes null,
/// since HCL v1 has no such expressions and tfsum reads only strings.
pub(super) fn expr_to_json(expr: &hcl::Expression) -> serde_json::Value {
    use hcl::Expression as E;
    match expr {
        E::Null => serde_json::Value::Null,
        E::Bool(b) => serde_json::Value::Bool(*b),
        E::Number(n) => serde_json::to_value(n).unwrap_or(serde_json::Value::Null),
        E::String(s) => serde_json::Value::String(s.clone()),
        E::TemplateExpr(t) => serde_json::Value::String(t.to_string()),
        E::Array(items) => serde_json::Value::Array(items.iter().map(expr_to_json).collect()),
        E::Object(object) => {
            let mut map = serde_json::Map::new();
            for (key, value) in object {
                let key = match key {
                    hcl::ObjectKey::Identifier(id) => id.to_string(),
                    hcl::ObjectKey::Expression(E::String(s)) => s.clone(),
                    hcl::ObjectKey::Expression(other) => match expr_to_json(other) {
                        serde_json::Value::String(s) => s,
                        _ => continue,
                    },
                    _ => continue,
                };
                map.insert(key, expr_to_json(value));
            }
            serde_json::Value::Object(map)
        }
        _ => serde_json::Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rewrite touches exactly the v1 form, and nothing that only looks like it.
    #[test]
    fn rewrites_quoted_key_blocks_only() {
        let cases = [
            (
                "host \"a\" {\n  services {\n    \"providers.v1\" = \"/p/\"\n  }\n}\n",
                "host \"a\" {\n  services = {\n    \"providers.v1\" = \"/p/\"\n  }\n}\n",
            ),
            (
                "provider_installation { dev_overrides { \"a/b\" = \"/x\" } }",
                "provider_installation { dev_overrides = { \"a/b\" = \"/x\" } }",
            ),
            // A real nested block, an empty one and an object attribute stay as they are.
            (
                "x {\n  network_mirror { url = \"u\" }\n  direct {}\n}\n",
                "",
            ),
            ("services = {\n  \"providers.v1\" = \"/p/\"\n}\n", ""),
            // Look-alikes inside a heredoc, a string, a template and comments.
            ("doc = <<EOT\nservices {\n  \"x\" = 1\n}\nEOT\n", ""),
            ("doc = <<-EOT\n  services {\n  \"x\"\n  EOT\n", ""),
            ("s = \"services {\\\"x\\\" = 1}\"\n", ""),
            ("s = \"${f(\"}\")} services { \\\"x\\\" }\"\n", ""),
            ("# services {\n// \"x\" = 1\n/* services { \"x\" } */\n", ""),
        ];
        for (text, want) in cases {
            let want = if want.is_empty() { text } else { want };
            assert_eq!(quoted_key_blocks_as_attributes(text), want, "{text:?}");
        }
    }

    /// The v1 form parses, also after a heredoc that fooled the line-based rewrite.
    #[test]
    fn parses_v1_files_with_heredocs() {
        let text = "note = <<EOT\nservices {\n  \"x\" = 1\n}\nEOT\nhost \"h\" {\n  services {\n    \"providers.v1\" = \"/p/\"\n  }\n}\n";
        let body = parse(text).unwrap();
        let tree = body_to_tree(&body);
        assert_eq!(tree["host"][0]["h"]["services"]["providers.v1"], "/p/");
        assert_eq!(tree["note"], "services {\n  \"x\" = 1\n}\n");
    }
}
