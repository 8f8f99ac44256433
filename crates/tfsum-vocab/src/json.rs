//! A small JSON reader for the files whose JSON form means more than its values: it keeps
//! object members in document order, keeps repeated names (each is another block in
//! Terraform's JSON syntax), and remembers the line of every member name. serde_json
//! drops all three, so Terraform's `.tf.json` files and the CLI configuration's ordered
//! `provider_installation` methods are read with this instead.
//!
//! Nesting deeper than [`MAX_DEPTH`] is an error, not a stack overflow.

#[derive(Debug, Clone, PartialEq)]
pub struct JsonNode {
    pub line: usize,
    /// The value's bytes in the text parsed (a string's with its quotes), so an editor can
    /// replace exactly them (`tfsum upgrade` on `.tf.json` files).
    pub span: std::ops::Range<usize>,
    pub kind: JsonKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum JsonKind {
    Null,
    Bool(bool),
    /// Numbers are irrelevant to provider selection; the text is kept as written.
    Number(String),
    String(String),
    Array(Vec<JsonNode>),
    Object(Vec<Member>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    /// The line of the member's name.
    pub line: usize,
    pub value: JsonNode,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Deeper nesting than this is rejected rather than risking the stack.
pub(crate) const MAX_DEPTH: usize = 256;

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
        let start = self.chars.peek().map_or(self.pos, |&(i, _)| i);
        let kind = match self.peek() {
            Some('{') => JsonKind::Object(self.object(depth)?),
            Some('[') => JsonKind::Array(self.array(depth)?),
            Some('"') => JsonKind::String(self.string()?),
            Some('t') => self.keyword("true", JsonKind::Bool(true))?,
            Some('f') => self.keyword("false", JsonKind::Bool(false))?,
            Some('n') => self.keyword("null", JsonKind::Null)?,
            Some(c) if c == '-' || c.is_ascii_digit() => JsonKind::Number(self.number()?),
            Some(_) => return Err(self.error("expected a JSON value")),
            None => return Err(self.error("unexpected end of file")),
        };
        Ok(JsonNode {
            line,
            span: start..self.pos,
            kind,
        })
    }

    /// `{ "name": value, … }`, every member kept in order with the line of its name.
    fn object(&mut self, depth: usize) -> Result<Vec<Member>, JsonError> {
        self.next();
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some('}') {
            self.next();
            return Ok(members);
        }
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
                Some('}') => return Ok(members),
                _ => return Err(self.error("expected ',' or '}' in object")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Vec<JsonNode>, JsonError> {
        self.next();
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(']') {
            self.next();
            return Ok(items);
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.next() {
                Some(',') => continue,
                Some(']') => return Ok(items),
                _ => return Err(self.error("expected ',' or ']' in array")),
            }
        }
    }

    /// The number as written (JSON's grammar, checked by parsing it as a float).
    fn number(&mut self) -> Result<String, JsonError> {
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
        Ok(text)
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

impl JsonNode {
    /// The members of an object (none for any other value), without `"//"` comments.
    pub fn members(&self) -> impl Iterator<Item = &Member> {
        let members: &[Member] = match &self.kind {
            JsonKind::Object(members) => members,
            _ => &[],
        };
        members.iter().filter(|m| m.name != "//")
    }

    /// The first member named `name`.
    pub fn get(&self, name: &str) -> Option<&Member> {
        self.members().find(|m| m.name == name)
    }

    /// The value as serde_json sees it: member order lost, a repeated name's last value
    /// wins.
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            JsonKind::Null => Value::Null,
            JsonKind::Bool(b) => Value::Bool(*b),
            JsonKind::Number(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            JsonKind::String(s) => Value::String(s.clone()),
            JsonKind::Array(items) => Value::Array(items.iter().map(JsonNode::to_value).collect()),
            JsonKind::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|m| (m.name.clone(), m.value.to_value()))
                    .collect(),
            ),
        }
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
        let span = inner[0].value.span.clone();
        assert_eq!(&text[span], "\"x\\u00e9\\ud83d\\ude00\\n\"");
        assert_eq!(
            &text[members[0].value.span.clone()],
            "[1, -2.5e3, true, null]"
        );
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
}
