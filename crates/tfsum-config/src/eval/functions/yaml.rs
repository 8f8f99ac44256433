//! `yamldecode` and `yamlencode`, which Terraform takes from go-cty-yaml (`decode.go`,
//! `resolve.go`, `encode.go`).
//!
//! Decoding reads the event stream of yaml-rust2's parser and resolves each scalar as
//! go-cty-yaml does, which is YAML 1.1's way rather than the parser's own: `yes`, `on`
//! and `y` are true, `0x1F` and `0o17` are numbers, a date is an RFC 3339 string,
//! quoted scalars are always strings. One document only; anchors, aliases and `<<`
//! merge keys as go-cty-yaml handles them, with aliases counted against
//! [`super::MAX_ITEMS`] so that nested aliases cannot take the memory.
//!
//! Encoding writes what libyaml's emitter writes for go-cty-yaml: block style, strings
//! double-quoted (folded past 80 columns) or as literal blocks when they hold line
//! breaks, numbers and bools plain, `...` after a plain scalar document.

use std::collections::BTreeMap;

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::datetime::days_in_month;
use super::encoding::decode_base64;
use super::{check_bytes, check_items, string_arg, Ctx, MAX_ITEMS};
use crate::eval::value::{number_text, Value};

/// The deepest nesting decoded.
const MAX_DEPTH: usize = 256;

const TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// `yamldecode(src)`: the value of the single YAML document in `src`.
pub(super) fn yamldecode(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let mut decoder = Decoder {
        parser: Parser::new_from_str(&text),
        anchors: BTreeMap::new(),
        pending: Vec::new(),
        nodes: 0,
    };
    match decoder.next()? {
        (Event::StreamStart, _) => {}
        (_, mark) => return Err(at(mark, "missing stream start token")),
    }
    match decoder.next()? {
        (Event::DocumentStart, _) => {}
        (_, mark) => return Err(at(mark, "missing start of document")),
    }
    let (event, mark) = decoder.next()?;
    let value = decoder.node(event, mark, 0)?;
    match decoder.next()? {
        (Event::DocumentEnd, _) => {}
        (Event::DocumentStart, mark) => return Err(at(mark, "only a single document is allowed")),
        (_, mark) => return Err(at(mark, "unexpected extra content after value")),
    }
    match decoder.next()? {
        (Event::StreamEnd, _) => Ok(value),
        (Event::DocumentStart, mark) => Err(at(mark, "only a single document is allowed")),
        (_, mark) => Err(at(mark, "unexpected extra content after value")),
    }
}

/// go-cty-yaml's position prefix.
fn at(mark: Marker, message: &str) -> String {
    format!(
        "on line {}, column {}: {message}",
        mark.line(),
        mark.col() + 1
    )
}

struct Decoder<'a> {
    parser: Parser<std::str::Chars<'a>>,
    /// Each anchor's value and its size in nodes.
    anchors: BTreeMap<usize, (Value, usize)>,
    /// Anchors whose node is still being read.
    pending: Vec<usize>,
    /// Nodes built so far, aliases counted in full.
    nodes: usize,
}

impl Decoder<'_> {
    fn next(&mut self) -> Result<(Event, Marker), String> {
        self.parser
            .next_token()
            .map_err(|e| at(*e.marker(), e.info()))
    }

    fn count(&mut self, n: usize) -> Result<(), String> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_ITEMS {
            return Err(format!(
                "the document has more than the {MAX_ITEMS} values tfsum decodes (counting each alias in full)"
            ));
        }
        Ok(())
    }

    /// The node starting with `event`.
    fn node(&mut self, event: Event, mark: Marker, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(at(mark, "the document is nested too deeply"));
        }
        let before = self.nodes;
        self.count(1)?;
        let (value, anchor) = match event {
            Event::Scalar(text, style, anchor, tag) => {
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                let value =
                    resolve_scalar(tag.as_deref(), &text, style).map_err(|e| at(mark, &e))?;
                (value, anchor)
            }
            Event::Alias(id) => {
                if self.pending.contains(&id) {
                    return Err(at(
                        mark,
                        "cannot refer to an anchor from inside its own definition",
                    ));
                }
                let (value, size) = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| at(mark, "reference to undefined anchor"))?;
                self.count(size)?;
                return Ok(value);
            }
            Event::MappingStart(anchor, tag) => {
                if let Some(tag) = tag.map(|t| format!("{}{}", t.handle, t.suffix)) {
                    if tag != format!("{TAG_PREFIX}map") {
                        return Err(at(mark, &format!("can't interpret mapping as {tag}")));
                    }
                }
                self.pending.push(anchor);
                let value = self.mapping(depth);
                self.pending.retain(|a| *a != anchor);
                (value?, anchor)
            }
            Event::SequenceStart(anchor, tag) => {
                if let Some(tag) = tag.map(|t| format!("{}{}", t.handle, t.suffix)) {
                    if tag != format!("{TAG_PREFIX}seq") {
                        return Err(at(mark, &format!("can't interpret sequence as {tag}")));
                    }
                }
                self.pending.push(anchor);
                let value = self.sequence(depth);
                self.pending.retain(|a| *a != anchor);
                (value?, anchor)
            }
            Event::DocumentStart => return Err(at(mark, "only a single document is allowed")),
            Event::StreamEnd => return Err(at(mark, "expecting value but found end of stream")),
            Event::MappingEnd => return Err(at(mark, "expecting value but found end of mapping")),
            Event::SequenceEnd => {
                return Err(at(mark, "expecting value but found end of sequence"))
            }
            other => return Err(at(mark, &format!("unexpected parser event {other:?}"))),
        };
        if anchor != 0 {
            self.anchors
                .insert(anchor, (value.clone(), self.nodes - before));
        }
        Ok(value)
    }

    fn mapping(&mut self, depth: usize) -> Result<Value, String> {
        let mut attrs = BTreeMap::new();
        loop {
            let (event, mark) = self.next()?;
            let key = match event {
                Event::MappingEnd => return Ok(Value::Object(attrs)),
                Event::Scalar(text, style, _, tag) => {
                    let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                    let merge = match tag.as_deref() {
                        None => text == "<<" && style == TScalarStyle::Plain,
                        Some(t) => t == format!("{TAG_PREFIX}merge"),
                    };
                    if merge {
                        let (event, mark) = self.next()?;
                        match self.node(event, mark, depth + 1)? {
                            Value::Object(more) => attrs.extend(more),
                            Value::List(items) => {
                                for item in items {
                                    match item {
                                        Value::Object(more) => attrs.extend(more),
                                        other => {
                                            return Err(at(
                                                mark,
                                                &format!(
                                                    "cannot merge {} (from sequence) into mapping",
                                                    other.type_name()
                                                ),
                                            ))
                                        }
                                    }
                                }
                            }
                            other => {
                                return Err(at(
                                    mark,
                                    &format!("cannot merge {} into mapping", other.type_name()),
                                ))
                            }
                        }
                        continue;
                    }
                    match resolve_scalar(tag.as_deref(), &text, style).map_err(|e| at(mark, &e))? {
                        Value::Null => return Err(at(mark, "mapping key cannot be null")),
                        other => other
                            .as_string()
                            .ok_or_else(|| at(mark, "only strings are allowed as mapping keys"))?,
                    }
                }
                _ => return Err(at(mark, "only strings are allowed as mapping keys")),
            };
            let (event, mark) = self.next()?;
            let value = self.node(event, mark, depth + 1)?;
            attrs.insert(key, value);
        }
    }

    fn sequence(&mut self, depth: usize) -> Result<Value, String> {
        let mut items = Vec::new();
        loop {
            let (event, mark) = self.next()?;
            if event == Event::SequenceEnd {
                return Ok(Value::List(items));
            }
            items.push(self.node(event, mark, depth + 1)?);
        }
    }
}

/// A scalar's value as go-cty-yaml's `resolveScalar` decides it.
fn resolve_scalar(tag: Option<&str>, text: &str, style: TScalarStyle) -> Result<Value, String> {
    let tag = tag.unwrap_or("");
    let short = tag.strip_prefix(TAG_PREFIX);
    if !tag.is_empty()
        && !matches!(
            short,
            Some("str" | "bool" | "int" | "float" | "null" | "timestamp" | "binary")
        )
    {
        return Err(format!("unsupported tag {tag:?}"));
    }
    let cannot = || format!("cannot parse {text:?} as {tag}");
    let hint = match text.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => 0,
    };
    let mut resolved_tag = short.unwrap_or("");
    if hint != 0 && short != Some("str") && short != Some("binary") {
        if matches!(
            style,
            TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
        ) {
            return Ok(Value::String(text.to_string()));
        }
        if let Some(value) = well_known(text) {
            return Ok(value);
        }
        if tag.is_empty() && matches!(text, ".nan" | ".NaN" | ".NAN") {
            return Err("floating point NaN is not supported".into());
        }
        match hint {
            b'.' => {
                if let Some(n) = super::parse_decimal(text) {
                    return Ok(Value::Number(n));
                }
            }
            b'D' | b'S' => {
                if tag.is_empty() || short == Some("timestamp") {
                    if let Some(stamp) = timestamp(text) {
                        return Ok(Value::String(stamp));
                    }
                }
                if is_integer_literal(text) {
                    resolved_tag = "int";
                } else if is_float_literal(text) {
                    resolved_tag = "float";
                }
            }
            _ => {}
        }
    }
    match resolved_tag {
        "str" | "" => Ok(Value::String(text.to_string())),
        "binary" => decode_base64(text)
            .map(|_| Value::String(text.to_string()))
            .map_err(|_| format!("cannot parse {text:?} as {tag}: not valid base64")),
        "bool" => match well_known(text) {
            Some(Value::Bool(b)) => Ok(Value::Bool(b)),
            _ => Err(cannot()),
        },
        "int" | "float" => {
            let plain = text.replace('_', "");
            if let Some(n) = super::parse_decimal(&plain) {
                return Ok(Value::Number(n));
            }
            go_base_prefixed(&plain)
                .map(Value::Number)
                .ok_or_else(cannot)
        }
        "timestamp" => timestamp(text).map(Value::String).ok_or_else(cannot),
        "null" => Ok(Value::Null),
        _ => Err(format!("unsupported tag {tag:?}")),
    }
}

/// go-cty-yaml's table of YAML 1.1 words.
fn well_known(text: &str) -> Option<Value> {
    Some(match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Value::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Value::Number(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Value::Number(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// `[-+]?[0-9]+`, `0o[0-7]+` or `0x[0-9a-fA-F]+`.
fn is_integer_literal(text: &str) -> bool {
    let digits = |s: &str, ok: fn(char) -> bool| !s.is_empty() && s.chars().all(ok);
    if let Some(rest) = text.strip_prefix("0o") {
        return digits(rest, |c| ('0'..='7').contains(&c));
    }
    if let Some(rest) = text.strip_prefix("0x") {
        return digits(rest, |c| c.is_ascii_hexdigit());
    }
    digits(text.strip_prefix(['-', '+']).unwrap_or(text), |c| {
        c.is_ascii_digit()
    })
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn is_float_literal(text: &str) -> bool {
    let text = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && all_digits(frac),
        Some((whole, frac)) => !whole.is_empty() && all_digits(whole) && all_digits(frac),
        None => !mantissa.is_empty() && all_digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok
}

/// Go's `strconv.ParseInt(s, 0, 64)` for what the decimal reading refused: `0x`, `0o`,
/// `0b` and leading-zero octal.
fn go_base_prefixed(text: &str) -> Option<f64> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) =
        if let Some(d) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (16, d)
        } else if let Some(d) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (8, d)
        } else if let Some(d) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (2, d)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            return None;
        };
    let n = u64::from_str_radix(digits, radix).ok()?;
    if negative && n > 1 << 63 {
        return None;
    }
    Some(if negative { -(n as f64) } else { n as f64 })
}

/// A YAML timestamp as go-cty-yaml accepts it (`2001-12-14`, `2001-12-14t21:59:43.10-05:00`,
/// `2001-12-14 21:59:43.10`), written in RFC 3339.
fn timestamp(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.len() < 5 || !bytes[..4].iter().all(u8::is_ascii_digit) || bytes[4] != b'-' {
        return None;
    }
    // Reads 1 or 2 digits.
    fn number(s: &str) -> Option<(u32, &str)> {
        let len = s.bytes().take(2).take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return None;
        }
        Some((s[..len].parse().ok()?, &s[len..]))
    }
    let year: i64 = text[..4].parse().ok()?;
    let (month, rest) = number(&text[5..])?;
    let rest = rest.strip_prefix('-')?;
    let (day, rest) = number(rest)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    if rest.is_empty() {
        return Some(format!("{date}T00:00:00Z"));
    }
    let (zoned, rest) = match rest.as_bytes()[0] {
        b'T' | b't' => (true, &rest[1..]),
        b' ' => (false, &rest[1..]),
        _ => return None,
    };
    let (hour, rest) = number(rest)?;
    let (minute, rest) = number(rest.strip_prefix(':')?)?;
    let (second, mut rest) = number(rest.strip_prefix(':')?)?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    if let Some(fraction) = rest.strip_prefix('.') {
        let len = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 || len > 9 {
            return None;
        }
        rest = &fraction[len..];
    }
    let zone = if !zoned {
        if !rest.is_empty() {
            return None;
        }
        "Z".to_string()
    } else if rest == "Z" {
        "Z".to_string()
    } else {
        let sign = rest.chars().next().filter(|c| *c == '+' || *c == '-')?;
        let (h, r) = rest[1..].split_at_checked(2)?;
        let m = r.strip_prefix(':')?;
        let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
        if m.to_string().len() > 2 || h > 23 || m > 59 {
            return None;
        }
        if h == 0 && m == 0 {
            "Z".to_string()
        } else {
            format!("{sign}{h:02}:{m:02}")
        }
    };
    Some(format!("{date}T{hour:02}:{minute:02}:{second:02}{zone}"))
}

/// `yamlencode(value)`: `value` as a YAML document (module docs).
pub(super) fn yamlencode(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let value = args.into_iter().next().unwrap_or(Value::Null);
    let mut out = Emitter::default();
    let open_ended = match &value {
        Value::Object(attrs) if !attrs.is_empty() => {
            out.mapping(attrs, 0, false)?;
            false
        }
        Value::List(items) if !items.is_empty() => {
            out.sequence(items, 0, false)?;
            false
        }
        scalar => out.scalar(scalar, 0, false)?,
    };
    out.text.push('\n');
    if open_ended {
        out.text.push_str("...\n");
    }
    Ok(Value::String(out.text))
}

/// The text libyaml's emitter writes, built up.
#[derive(Default)]
struct Emitter {
    text: String,
}

/// libyaml's `best_width`: double-quoted scalars fold at spaces past it.
const BEST_WIDTH: usize = 80;

impl Emitter {
    fn column(&self) -> usize {
        let line_start = self.text.rfind('\n').map_or(0, |i| i + 1);
        self.text[line_start..].chars().count()
    }

    fn newline_indent(&mut self, indent: usize) {
        self.text.push('\n');
        self.text.extend(std::iter::repeat_n(' ', indent));
    }

    /// A block mapping at `indent`; `inline` when its first key follows a `- ` already
    /// written.
    fn mapping(
        &mut self,
        attrs: &BTreeMap<String, Value>,
        indent: usize,
        inline: bool,
    ) -> Result<(), String> {
        for (i, (key, value)) in attrs.iter().enumerate() {
            check_bytes(self.text.len())?;
            if (i > 0 || !inline) && !self.text.is_empty() {
                self.newline_indent(indent);
            }
            self.double_quoted(key, indent + 2, false);
            self.text.push(':');
            match value {
                Value::Object(inner) if !inner.is_empty() => {
                    self.mapping(inner, indent + 2, false)?
                }
                // A sequence under a key is not indented (libyaml's "indentless").
                Value::List(items) if !items.is_empty() => self.sequence(items, indent, false)?,
                scalar => {
                    self.text.push(' ');
                    self.scalar(scalar, indent + 2, true)?;
                }
            }
        }
        Ok(())
    }

    /// A block sequence at `indent`.
    fn sequence(&mut self, items: &[Value], indent: usize, inline: bool) -> Result<(), String> {
        check_items(items.len())?;
        for (i, item) in items.iter().enumerate() {
            check_bytes(self.text.len())?;
            if (i > 0 || !inline) && !self.text.is_empty() {
                self.newline_indent(indent);
            }
            self.text.push_str("- ");
            match item {
                Value::Object(inner) if !inner.is_empty() => {
                    self.mapping(inner, indent + 2, true)?
                }
                Value::List(inner) if !inner.is_empty() => {
                    self.sequence(inner, indent + 2, true)?
                }
                scalar => {
                    self.scalar(scalar, indent + 2, true)?;
                }
            }
        }
        Ok(())
    }

    /// A scalar (or empty collection) whose block content would sit at `indent`;
    /// whether the document is left open (a plain scalar or a `|+` block).
    fn scalar(&mut self, value: &Value, indent: usize, nested: bool) -> Result<bool, String> {
        let indent = if nested { indent } else { 2 };
        match value.unmarked().0 {
            Value::Null => self.text.push_str("null"),
            Value::Bool(b) => self.text.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) if !n.is_finite() => {
                return Err("an infinite number cannot be written as YAML".into())
            }
            Value::Number(n) => self.text.push_str(&number_text(*n)),
            Value::String(s) => {
                if s.contains('\n') && literal_allowed(s) {
                    return Ok(self.literal(s, indent));
                }
                self.double_quoted(s, indent, true);
                return Ok(false);
            }
            Value::List(_) => {
                self.text.push_str("[]");
                return Ok(false);
            }
            Value::Object(_) => {
                self.text.push_str("{}");
                return Ok(false);
            }
            Value::Unknown(_) | Value::Marked(..) => {
                return Err("cannot serialize unknown value as YAML".into())
            }
        }
        Ok(true)
    }

    /// libyaml's double-quoted style: escapes for what is not printable, folding at a
    /// space past [`BEST_WIDTH`] when `breaks` (not in a key).
    fn double_quoted(&mut self, s: &str, indent: usize, breaks: bool) {
        self.text.push('"');
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        let mut column = self.column();
        for (i, &c) in chars.iter().enumerate() {
            let escape = match c {
                '\0' => Some("\\0".to_string()),
                '\u{7}' => Some("\\a".into()),
                '\u{8}' => Some("\\b".into()),
                '\t' => Some("\\t".into()),
                '\n' => Some("\\n".into()),
                '\u{b}' => Some("\\v".into()),
                '\u{c}' => Some("\\f".into()),
                '\r' => Some("\\r".into()),
                '\u{1b}' => Some("\\e".into()),
                '"' => Some("\\\"".into()),
                '\\' => Some("\\\\".into()),
                '\u{85}' => Some("\\N".into()),
                '\u{2028}' => Some("\\L".into()),
                '\u{2029}' => Some("\\P".into()),
                c if !printable(c) => Some(match u32::from(c) {
                    v if v <= 0xff => format!("\\x{v:02X}"),
                    v if v <= 0xffff => format!("\\u{v:04X}"),
                    v => format!("\\U{v:08X}"),
                }),
                _ => None,
            };
            if let Some(escape) = escape {
                column += escape.chars().count();
                self.text.push_str(&escape);
                spaces = false;
            } else if c == ' ' {
                if breaks && !spaces && column > BEST_WIDTH && i != 0 && i != chars.len() - 1 {
                    self.newline_indent(indent);
                    column = indent;
                    if chars.get(i + 1) == Some(&' ') {
                        self.text.push('\\');
                        column += 1;
                    }
                } else {
                    self.text.push(' ');
                    column += 1;
                }
                spaces = true;
            } else {
                self.text.push(c);
                column += 1;
                spaces = false;
            }
        }
        self.text.push('"');
    }

    /// libyaml's literal style (`|`), with its indentation and chomping indicators.
    fn literal(&mut self, s: &str, indent: usize) -> bool {
        self.text.push('|');
        if s.starts_with([' ', '\n']) {
            self.text.push('2');
        }
        let open_ended = if !s.ends_with('\n') {
            self.text.push('-');
            false
        } else if s.len() == 1 || s[..s.len() - 1].ends_with('\n') {
            self.text.push('+');
            true
        } else {
            false
        };
        let body = s.strip_suffix('\n').unwrap_or(s);
        for line in body.split('\n') {
            self.text.push('\n');
            if !line.is_empty() {
                self.text.extend(std::iter::repeat_n(' ', indent));
                self.text.push_str(line);
            }
        }
        open_ended
    }
}

/// libyaml's `is_printable` (with Unicode output allowed).
fn printable(c: char) -> bool {
    matches!(u32::from(c),
        0x0A | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
        && c != '\u{feff}'
}

/// Whether libyaml writes a string with line breaks as a literal block: not when a
/// space ends a line or the string, nor with characters it must escape.
fn literal_allowed(s: &str) -> bool {
    !s.contains(" \n") && !s.ends_with(' ') && s.chars().all(|c| printable(c) || c == '\n')
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{b, check, list, n, obj, s, strs, Case};
    use crate::eval::value::Value;

    /// Cases from go-cty-yaml `decode_test.go` and `cty_funcs_test.go`.
    #[test]
    fn yamldecode_resolves_as_go_cty_yaml() {
        let cases: &[Case] = &[
            ("yamldecode(\"hello\")", Ok(s("hello"))),
            ("yamldecode(\"\\\"True\\\"\")", Ok(s("True"))),
            ("yamldecode(\"'NULL'\")", Ok(s("NULL"))),
            ("yamldecode(\"true\")", Ok(b(true))),
            ("yamldecode(\"yes\")", Ok(b(true))),
            ("yamldecode(\"Off\")", Ok(b(false))),
            ("yamldecode(\"~\")", Ok(Value::Null)),
            ("yamldecode(\"---\")", Ok(Value::Null)),
            ("yamldecode(\"---\\ntrue\")", Ok(b(true))),
            ("yamldecode(\"12\")", Ok(n(12.0))),
            ("yamldecode(\"-12.5e1\")", Ok(n(-125.0))),
            ("yamldecode(\".5\")", Ok(n(0.5))),
            ("yamldecode(\"0x1F\")", Ok(n(31.0))),
            ("yamldecode(\"0o17\")", Ok(n(15.0))),
            ("yamldecode(\"017\")", Ok(n(17.0))),
            ("yamldecode(\"1_000\")", Ok(s("1_000"))),
            ("yamldecode(\"!!int 1_000\")", Ok(n(1000.0))),
            ("yamldecode(\".inf\")", Ok(n(f64::INFINITY))),
            ("yamldecode(\"-.Inf\")", Ok(n(f64::NEG_INFINITY))),
            ("yamldecode(\".nan\")", Err("floating point NaN is not supported")),
            ("yamldecode(\"2015-02-24\")", Ok(s("2015-02-24T00:00:00Z"))),
            ("yamldecode(\"2001-12-14t21:59:43.10-05:00\")", Ok(s("2001-12-14T21:59:43-05:00"))),
            ("yamldecode(\"2001-12-14 21:59:43.10\")", Ok(s("2001-12-14T21:59:43Z"))),
            ("yamldecode(\"2001-13-14\")", Ok(s("2001-13-14"))),
            ("yamldecode(\"!!str 12\")", Ok(s("12"))),
            ("yamldecode(\"!!bool yes\")", Ok(b(true))),
            ("yamldecode(\"!!bool maybe\")", Err("cannot parse \"maybe\" as tag:yaml.org,2002:bool")),
            ("yamldecode(\"!!int x\")", Err("cannot parse \"x\" as tag:yaml.org,2002:int")),
            ("yamldecode(\"!!null x\")", Ok(Value::Null)),
            ("yamldecode(\"!!binary aGk=\")", Ok(s("aGk="))),
            ("yamldecode(\"!foo x\")", Err("unsupported tag \"!foo\"")),
            ("yamldecode(\"a: 1\\nb: [x, 'y']\\nc: {d: null}\")", Ok(obj(&[("a", n(1.0)), ("b", strs(&["x", "y"])), ("c", obj(&[("d", Value::Null)]))]))),
            ("yamldecode(\"- 1\\n- a\\n- [true]\")", Ok(list(vec![n(1.0), s("a"), list(vec![b(true)])]))),
            ("yamldecode(\"1: a\\ntrue: b\")", Ok(obj(&[("1", s("a")), ("true", s("b"))]))),
            ("yamldecode(\"~: a\")", Err("mapping key cannot be null")),
            ("yamldecode(\"[a]: b\")", Err("only strings are allowed as mapping keys")),
            ("yamldecode(\"text: |\\n  a\\n  b\\n\")", Ok(obj(&[("text", s("a\nb\n"))]))),
            ("yamldecode(\"a: &x {b: 1}\\nc: *x\")", Ok(obj(&[("a", obj(&[("b", n(1.0))])), ("c", obj(&[("b", n(1.0))]))]))),
            ("yamldecode(\"a: &x {b: 1, c: 2}\\nd:\\n  <<: *x\\n  c: 3\")", Ok(obj(&[("a", obj(&[("b", n(1.0)), ("c", n(2.0))])), ("d", obj(&[("b", n(1.0)), ("c", n(3.0))]))]))),
            ("yamldecode(\"a: &x {b: 1}\\ne: &y {c: 2}\\nd:\\n  <<: [*x, *y]\")[\"d\"]", Ok(obj(&[("b", n(1.0)), ("c", n(2.0))]))),
            ("yamldecode(\"d:\\n  <<: 1\")", Err("cannot merge number into mapping")),
            ("yamldecode(\"a: *x\")", Err("")),
            ("yamldecode(\"a: 1\\n---\\nb: 2\")", Err("only a single document is allowed")),
            ("yamldecode(\"a: [\")", Err("on line")),
            ("yamldecode(\"\")", Err("missing start of document")),
            ("yamldecode(\"!!map [1]\")", Err("can't interpret sequence as tag:yaml.org,2002:map")),
            (
                "length(yamldecode(\"a: &a [x,x,x,x,x,x,x,x,x,x]\\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\"))",
                Err("values tfsum decodes"),
            ),
        ];
        check(cases);
    }

    /// Cases from go-cty-yaml `encode_test.go`, and libyaml's layout of nested blocks.
    #[test]
    fn yamlencode_writes_as_libyaml_does() {
        let long = ["word"; 30].join(" ");
        let folded = format!(
            "\"{}\n  {}\"\n",
            ["word"; 17].join(" "),
            ["word"; 13].join(" ")
        );
        let cases: Vec<(String, Result<Value, &str>)> = vec![
            ("yamlencode(true)".into(), Ok(s("true\n...\n"))),
            ("yamlencode(1.5)".into(), Ok(s("1.5\n...\n"))),
            ("yamlencode(null)".into(), Ok(s("null\n...\n"))),
            ("yamlencode(\"\")".into(), Ok(s("\"\"\n"))),
            ("yamlencode(\"hello\")".into(), Ok(s("\"hello\"\n"))),
            ("yamlencode(\"hello\\nworld\")".into(), Ok(s("|-\n  hello\n  world\n"))),
            ("yamlencode(\"hello\\n\")".into(), Ok(s("|\n  hello\n"))),
            ("yamlencode(\"a \\nb\")".into(), Ok(s("\"a \\nb\"\n"))),
            ("yamlencode(\"tab\\there\")".into(), Ok(s("\"tab\\there\"\n"))),
            ("yamlencode({})".into(), Ok(s("{}\n"))),
            ("yamlencode([])".into(), Ok(s("[]\n"))),
            ("yamlencode({a = \"b\"})".into(), Ok(s("\"a\": \"b\"\n"))),
            ("yamlencode([\"b\"])".into(), Ok(s("- \"b\"\n"))),
            (
                "yamlencode({a = {b = 1, c = [1, 2]}, d = [{e = true, f = []}, [1, 2]], g = \"x\\ny\"})".into(),
                Ok(s("\"a\":\n  \"b\": 1\n  \"c\":\n  - 1\n  - 2\n\"d\":\n- \"e\": true\n  \"f\": []\n- - 1\n  - 2\n\"g\": |-\n  x\n  y\n")),
            ),
            (format!("yamlencode(\"{long}\")"), Ok(s(&folded))),
            ("yamlencode(1/0)".into(), Err("divide by zero")),
        ];
        let cases: Vec<Case> = cases
            .into_iter()
            .map(|(text, want)| (&*Box::leak(text.into_boxed_str()), want))
            .collect();
        check(&cases);
    }

    /// What `yamlencode` writes, `yamldecode` reads back.
    #[test]
    fn yaml_round_trips() {
        check(&[(
            "yamldecode(yamlencode({a = [1, \"two\", true, null], b = {c = \"multi\\nline\\n\"}, \"d e\" = \"yes\"}))",
            Ok(obj(&[
                ("a", list(vec![n(1.0), s("two"), b(true), Value::Null])),
                ("b", obj(&[("c", s("multi\nline\n"))])),
                ("d e", s("yes")),
            ])),
        )]);
    }
}
