//! Encoding functions: Terraform `internal/lang/funcs/encoding.go` (`base64encode`,
//! `base64decode`, `base64gzip`, `textencodebase64`, `textdecodebase64`, `urlencode`)
//! and go-cty `cty/function/stdlib/json.go` and `csv.go` (`jsonencode`, `jsondecode`,
//! `csvdecode`). `yamldecode` and `yamlencode` (go-cty-yaml) are in `yaml.rs`.

use std::collections::BTreeMap;
use std::io::Write;

use base64::alphabet;
use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

use super::{check_bytes, string_arg, Ctx};
use crate::eval::value::Value;

/// Go's `base64.StdEncoding`: padded, standard alphabet, and lenient about the unused
/// bits of the last symbol, as Go's decoder is.
pub(super) const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// Decodes standard base64 as Go does: line breaks are skipped.
pub(super) fn decode_base64(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    if text.contains(['\r', '\n']) {
        let joined: String = text.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
        BASE64.decode(joined)
    } else {
        BASE64.decode(text)
    }
}

pub(super) fn base64encode(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    check_bytes(text.len() / 3 * 4 + 4)?;
    Ok(Value::String(BASE64.encode(text)))
}

pub(super) fn base64decode(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let bytes =
        decode_base64(&text).map_err(|_| format!("failed to decode base64 data {text:?}"))?;
    String::from_utf8(bytes)
        .map(Value::String)
        .map_err(|_| "the result of decoding the provided string is not valid UTF-8".into())
}

/// `base64gzip(s)`: `s` gzip-compressed, then base64. The compressed bytes are flate2's,
/// not Go's, so the text can differ from Terraform's while decoding to the same string.
pub(super) fn base64gzip(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder
        .write_all(text.as_bytes())
        .map_err(|e| format!("failed to write gzip raw data: {e}"))?;
    let bytes = encoder
        .finish()
        .map_err(|e| format!("failed to close gzip writer: {e}"))?;
    Ok(Value::String(BASE64.encode(bytes)))
}

/// `urlencode(s)`: Go's `url.QueryEscape` (space as `+`, unreserved characters kept).
pub(super) fn urlencode(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte))
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    Ok(Value::String(out))
}

/// The text encodings `textencodebase64` and `textdecodebase64` know, by IANA name or
/// alias (compared without case, as Go's `ianaindex` does).
#[derive(Clone, Copy)]
enum TextEncoding {
    Utf8,
    Utf16Le,
    Utf16Be,
    Latin1,
}

impl TextEncoding {
    fn find(name: &str) -> Result<(TextEncoding, &'static str), String> {
        let lower = name.to_ascii_lowercase();
        Ok(match lower.as_str() {
            "utf-8" | "csutf8" => (TextEncoding::Utf8, "UTF-8"),
            "utf-16le" | "csutf16le" => (TextEncoding::Utf16Le, "UTF-16LE"),
            "utf-16be" | "csutf16be" => (TextEncoding::Utf16Be, "UTF-16BE"),
            "iso-8859-1" | "iso_8859-1:1987" | "iso-ir-100" | "iso_8859-1" | "latin1" | "l1"
            | "ibm819" | "cp819" | "csisolatin1" => (TextEncoding::Latin1, "ISO-8859-1"),
            _ => {
                return Err(format!(
                    "{name:?} is not an encoding tfsum supports; it knows UTF-8, UTF-16LE, UTF-16BE and ISO-8859-1"
                ))
            }
        })
    }
}

/// `textencodebase64(s, encoding)`: `s` in `encoding`, then base64.
pub(super) fn textencodebase64(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let (encoding, name) = TextEncoding::find(&string_arg(&args, 1)?)?;
    let bytes: Vec<u8> = match encoding {
        TextEncoding::Utf8 => text.into_bytes(),
        TextEncoding::Utf16Le => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        TextEncoding::Utf16Be => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        TextEncoding::Latin1 => text
            .chars()
            .map(|c| u8::try_from(u32::from(c)).ok())
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| {
                format!("the given string contains characters that cannot be represented in {name}")
            })?,
    };
    check_bytes(bytes.len() / 3 * 4 + 4)?;
    Ok(Value::String(BASE64.encode(bytes)))
}

/// `textdecodebase64(s, encoding)`: base64 `s` read as text in `encoding`.
pub(super) fn textdecodebase64(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let (encoding, name) = TextEncoding::find(&string_arg(&args, 1)?)?;
    let bytes = decode_base64(&text).map_err(|e| match e {
        base64::DecodeError::InvalidByte(offset, _) => {
            format!("the given value is has an invalid base64 symbol at offset {offset}")
        }
        other => format!("invalid source string: {other}"),
    })?;
    let undefined = || format!("the given string contains symbols that are not defined for {name}");
    let decoded = match encoding {
        TextEncoding::Utf8 => String::from_utf8(bytes).map_err(|_| undefined())?,
        TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
            if bytes.len() % 2 != 0 {
                return Err(undefined());
            }
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|pair| match encoding {
                    TextEncoding::Utf16Le => u16::from_le_bytes([pair[0], pair[1]]),
                    _ => u16::from_be_bytes([pair[0], pair[1]]),
                })
                .collect();
            // Go's decoder puts U+FFFD for a lone surrogate rather than failing.
            String::from_utf16_lossy(&units)
        }
        TextEncoding::Latin1 => bytes.into_iter().map(char::from).collect(),
    };
    Ok(Value::String(decoded))
}

/// `value` as cty writes JSON: object keys sorted, numbers in full decimal notation,
/// strings escaped as Go's `encoding/json` escapes them (`<`, `>`, `&` too).
pub(crate) fn json_text(value: &Value) -> Result<String, String> {
    let mut out = String::new();
    write_json(value, &mut out)?;
    Ok(out)
}

fn write_json(value: &Value, out: &mut String) -> Result<(), String> {
    check_bytes(out.len())?;
    match value.unmarked().0 {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if !n.is_finite() => {
            return Err("an infinite number cannot be written as JSON".into())
        }
        Value::Number(n) => out.push_str(&format!("{n}")),
        Value::String(s) => json_string(s, out),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out)?;
            }
            out.push(']');
        }
        Value::Object(attrs) => {
            out.push('{');
            for (i, (key, item)) in attrs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(key, out);
                out.push(':');
                write_json(item, out)?;
            }
            out.push('}');
        }
        Value::Unknown(_) | Value::Marked(..) => return Err("value is not known".into()),
    }
    Ok(())
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)))
            }
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(super) fn jsonencode(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    json_text(&args[0]).map(Value::String)
}

/// `jsondecode(s)`: the value the JSON document describes.
pub(super) fn jsondecode(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let first = text.trim_start().chars().next();
    if let Some(c) = first {
        if !matches!(c, '{' | '[' | '"' | 't' | 'f' | 'n' | '-' | '0'..='9' | '.') {
            return Err(format!(
                "a JSON document cannot begin with the character {c:?}"
            ));
        }
    }
    let parsed: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("invalid JSON: {e}"))?;
    Ok(from_json(parsed))
}

pub(super) fn from_json(value: serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(b),
        serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::String(s),
        serde_json::Value::Array(items) => Value::List(items.into_iter().map(from_json).collect()),
        serde_json::Value::Object(attrs) => Value::Object(
            attrs
                .into_iter()
                .map(|(k, v)| (k, from_json(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

/// `csvdecode(s)`: RFC 4180 CSV (as Go's `encoding/csv` reads it) to a list of objects
/// keyed by the header line; every row must have the header's number of fields.
pub(super) fn csvdecode(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let mut records = csv_records(&text)?.into_iter();
    let Some((_, headers)) = records.next() else {
        return Err("missing header line".into());
    };
    for (i, name) in headers.iter().enumerate() {
        if headers[..i].contains(name) {
            return Err(format!("duplicate column name {name:?}"));
        }
    }
    let mut rows = Vec::new();
    for (line, fields) in records {
        if fields.len() != headers.len() {
            return Err(format!(
                "CSV parse error on line {line}: wrong number of fields"
            ));
        }
        rows.push(Value::Object(
            headers
                .iter()
                .cloned()
                .zip(fields.into_iter().map(Value::String))
                .collect(),
        ));
    }
    Ok(Value::List(rows))
}

/// The records of a CSV text, each with the line it starts on: fields split on commas,
/// double-quoted fields may hold commas, line breaks and doubled quotes, `\r\n` reads
/// as `\n`, empty lines are skipped.
fn csv_records(text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let text = text.replace("\r\n", "\n");
    let mut records = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while chars.peek().is_some() {
        if chars.peek() == Some(&'\n') {
            chars.next();
            line += 1;
            continue;
        }
        let start = line;
        let mut fields = Vec::new();
        loop {
            let mut field = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => break,
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            field.push(c);
                        }
                        None => {
                            return Err(format!(
                                "CSV parse error on line {line}: extraneous or missing \" in quoted-field"
                            ))
                        }
                    }
                }
                if !matches!(chars.peek(), None | Some(',') | Some('\n')) {
                    return Err(format!(
                        "CSV parse error on line {line}: extraneous or missing \" in quoted-field"
                    ));
                }
            } else {
                while let Some(&c) = chars.peek() {
                    if c == ',' || c == '\n' {
                        break;
                    }
                    if c == '"' {
                        return Err(format!(
                            "CSV parse error on line {line}: bare \" in non-quoted-field"
                        ));
                    }
                    field.push(c);
                    chars.next();
                }
            }
            fields.push(field);
            super::check_items(fields.len())?;
            match chars.next() {
                Some(',') => continue,
                Some(_) => {
                    line += 1;
                    break;
                }
                None => break,
            }
        }
        records.push((start, fields));
        super::check_items(records.len())?;
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use base64::Engine;

    use crate::eval::functions::tests::{check, list, n, obj, s, Case};
    use crate::eval::value::Value;

    /// Cases from Terraform `internal/lang/funcs/encoding_test.go` and go-cty
    /// `cty/function/stdlib/json_test.go` and `csv_test.go`.
    #[test]
    fn encoding_functions() {
        let cases: &[Case] = &[
            ("base64encode(\"abc123!?$*&()'-=@~\")", Ok(s("YWJjMTIzIT8kKiYoKSctPUB+"))),
            ("base64encode(\"\")", Ok(s(""))),
            ("base64decode(\"YWJjMTIzIT8kKiYoKSctPUB+\")", Ok(s("abc123!?$*&()'-=@~"))),
            ("base64decode(\"YWJj\\nMTIz\")", Ok(s("abc123"))),
            ("base64decode(\"YWJjMTIzIT8kKiYoKSctPUB\")", Err("failed to decode base64 data")),
            ("base64decode(\"/w==\")", Err("not valid UTF-8")),
            ("urlencode(\"foo:bar@localhost?foo=bar&bar=baz\")", Ok(s("foo%3Abar%40localhost%3Ffoo%3Dbar%26bar%3Dbaz"))),
            ("urlencode(\"mailto:email?subject=this+is+my+subject\")", Ok(s("mailto%3Aemail%3Fsubject%3Dthis%2Bis%2Bmy%2Bsubject"))),
            ("urlencode(\"foo/bar\")", Ok(s("foo%2Fbar"))),
            ("urlencode(\"a b~c\")", Ok(s("a+b~c"))),
            ("urlencode(\"é\")", Ok(s("%C3%A9"))),
            ("textencodebase64(\"abc123!?$*&()'-=@~\", \"UTF-8\")", Ok(s("YWJjMTIzIT8kKiYoKSctPUB+"))),
            ("textencodebase64(\"abc123!?$*&()'-=@~\", \"UTF-16LE\")", Ok(s("YQBiAGMAMQAyADMAIQA/ACQAKgAmACgAKQAnAC0APQBAAH4A"))),
            ("textencodebase64(\"abc\", \"utf-16be\")", Ok(s("AGEAYgBj"))),
            ("textencodebase64(\"é\", \"ISO-8859-1\")", Ok(s("6Q=="))),
            ("textencodebase64(\"😀\", \"latin1\")", Err("cannot be represented in ISO-8859-1")),
            ("textencodebase64(\"a\", \"NOT-EXISTS\")", Err("\"NOT-EXISTS\" is not an encoding tfsum supports")),
            ("textdecodebase64(\"YQBiAGMAMQAyADMAIQA/ACQAKgAmACgAKQAnAC0APQBAAH4A\", \"UTF-16LE\")", Ok(s("abc123!?$*&()'-=@~"))),
            ("textdecodebase64(\"YWJjMTIzIT8kKiYoKSctPUB+\", \"UTF-8\")", Ok(s("abc123!?$*&()'-=@~"))),
            ("textdecodebase64(\"6Q==\", \"ISO-8859-1\")", Ok(s("é"))),
            ("textdecodebase64(\"/w==\", \"UTF-8\")", Err("symbols that are not defined for UTF-8")),
            ("textdecodebase64(\"YQ=\", \"UTF-8\")", Err("invalid source string")),
            ("textdecodebase64(\"Y!Q=\", \"UTF-8\")", Err("invalid base64 symbol at offset 1")),
            ("textdecodebase64(\"YQ==\", \"UTF-7\")", Err("is not an encoding tfsum supports")),
            ("jsonencode(\"hello\")", Ok(s("\"hello\""))),
            ("jsonencode(true)", Ok(s("true"))),
            ("jsonencode(1)", Ok(s("1"))),
            ("jsonencode(1.5)", Ok(s("1.5"))),
            ("jsonencode(1e21)", Ok(s("1000000000000000000000"))),
            ("jsonencode(null)", Ok(s("null"))),
            ("jsonencode({b = 1, a = [true, \"x\"]})", Ok(s("{\"a\":[true,\"x\"],\"b\":1}"))),
            ("jsonencode(\"<b>&\\n\\u0001\")", Ok(s("\"\\u003cb\\u003e\\u0026\\n\\u0001\""))),
            ("jsonencode(var.secret)", Ok(s("\"s\"").mark(crate::eval::value::Marks::SENSITIVE))),
            ("jsondecode(\"\\\"hello\\\"\")", Ok(s("hello"))),
            ("jsondecode(\"1\")", Ok(n(1.0))),
            ("jsondecode(\"null\")", Ok(Value::Null)),
            ("jsondecode(\"[1, \\\"a\\\", {\\\"b\\\": true}]\")", Ok(list(vec![n(1.0), s("a"), obj(&[("b", Value::Bool(true))])]))),
            ("jsondecode(\"{\\\"a\\\": 1, \\\"a\\\": 2}\")", Ok(obj(&[("a", n(2.0))]))),
            ("jsondecode(\"\")", Err("invalid JSON")),
            ("jsondecode(\"{\")", Err("invalid JSON")),
            ("jsondecode(\"<x>\")", Err("a JSON document cannot begin with the character '<'")),
            ("jsondecode(\"1 2\")", Err("invalid JSON")),
            ("csvdecode(\"a,b\\n1,2\\n3,4\\n\")", Ok(list(vec![obj(&[("a", s("1")), ("b", s("2"))]), obj(&[("a", s("3")), ("b", s("4"))])]))),
            ("csvdecode(\"a,b\\r\\n\\\"x,\\\"\\\"y\\\"\\\"\\\",2\")", Ok(list(vec![obj(&[("a", s("x,\"y\"")), ("b", s("2"))])]))),
            ("csvdecode(\"a,b\\n\")", Ok(list(vec![]))),
            ("csvdecode(\"a,b\\n\\n1,2\")", Ok(list(vec![obj(&[("a", s("1")), ("b", s("2"))])]))),
            ("csvdecode(\"\")", Err("missing header line")),
            ("csvdecode(\"a,a\\n1,2\")", Err("duplicate column name \"a\"")),
            ("csvdecode(\"a,b\\n1,2,3\")", Err("CSV parse error on line 2: wrong number of fields")),
            ("csvdecode(\"a,b\\n1,x\\\"y\")", Err("bare \" in non-quoted-field")),
            ("csvdecode(\"a\\n\\\"x\\\"y\")", Err("extraneous or missing \" in quoted-field")),
        ];
        check(cases);
    }

    /// `base64gzip`'s bytes are flate2's, so the test reads them back rather than
    /// comparing with Terraform's text (`H4sIAAAAAAAA/ypJLS4BAAAA//8BAAD//wx+f9gEAAAA` for
    /// "test").
    #[test]
    fn base64gzip_round_trips() {
        use std::io::Read;
        let args = vec![s("test")];
        let ctx = crate::eval::functions::Ctx {
            base_dir: std::path::Path::new("."),
            readable: &[],
        };
        let Ok(Value::String(text)) = super::base64gzip(&ctx, args) else {
            panic!("base64gzip failed");
        };
        let bytes = super::BASE64.decode(text).expect("base64");
        assert_eq!(&bytes[..2], &[0x1f, 0x8b], "a gzip header");
        let mut plain = String::new();
        flate2::read::GzDecoder::new(bytes.as_slice())
            .read_to_string(&mut plain)
            .expect("gunzip");
        assert_eq!(plain, "test");
    }
}
