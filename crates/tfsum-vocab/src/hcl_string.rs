//! HCL's quoted string, written: the one escaper of the lock-file renderer (spec §1.4),
//! constraint edits (`tfsum_config::edit`) and the reader of HCL's JSON syntax, which
//! turns a JSON string into the native template it means (`tfsum_config::json`).
//!
//! The escaping is hclwrite's (`hclwrite/generate.go`, `escapeQuotedStringLit`): `\n \r
//! \t \" \\`, non-printable characters as `\uXXXX`/`\UXXXXXXXX` in lowercase hex,
//! everything else (IDN hostnames) raw; and, for a literal, the template introducers
//! doubled (`${` → `$${`, `%{` → `%%{`) so that they stay text.
//!
//! Terraform's CLI configuration is HCL 1, whose strings hold no templates, so its
//! renderer (`tfsum_net::cliconfig::render`) quotes as JSON does, not with this.

use std::fmt::Write as _;

/// What `${` and `%{` in the text are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Templates {
    /// Text: doubled, so that the string reads back as the text itself.
    Literal,
    /// Template syntax, kept as such (HCL's JSON syntax: a JSON string is a template).
    Kept,
}

/// `s` as a quoted HCL string ([`quote_into`]).
pub fn quote(s: &str, templates: Templates) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_into(&mut out, s, templates);
    out
}

/// Appends `s` to `out` as a quoted HCL string (module docs).
pub fn quote_into(out: &mut String, s: &str, templates: Templates) {
    out.push('"');
    // Addresses, versions and hashes: printable ASCII that needs no escape.
    let plain = |b: u8| (b' '..=b'~').contains(&b) && !matches!(b, b'"' | b'\\' | b'$' | b'%');
    if s.bytes().all(plain) {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '$' | '%' if templates == Templates::Literal => {
                out.push(c);
                if chars.peek() == Some(&'{') {
                    out.push(c);
                }
            }
            c if !is_print(c) => {
                let code = u32::from(c);
                if code < 0x10000 {
                    let _ = write!(out, "\\u{code:04x}");
                } else {
                    let _ = write!(out, "\\U{code:08x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// An approximation of Go's `unicode.IsPrint` without a Unicode category table: the ASCII
/// space is printable; controls, other spaces, the common format characters (Cf), private
/// use code points and noncharacters are not. The strings quoted are addresses, versions,
/// constraints and module sources, so only hand-edited garbage can reach the difference.
fn is_print(c: char) -> bool {
    let code = u32::from(c);
    let format = matches!(
        code,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F
            | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
            | 0xE0001 | 0xE0020..=0xE007F
    );
    let private_use = matches!(code, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    let nonchar = (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE;
    c == ' ' || !(c.is_control() || c.is_whitespace() || format || private_use || nonchar)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// hclwrite's quoting (spec §1.4), as a literal and with template syntax kept.
    #[test]
    fn quoting() {
        let cases = [
            ("", r#""""#, r#""""#),
            ("plain", r#""plain""#, r#""plain""#),
            ("a\"b\\c", r#""a\"b\\c""#, r#""a\"b\\c""#),
            ("l1\nl2\r\t", r#""l1\nl2\r\t""#, r#""l1\nl2\r\t""#),
            (
                "${x} %{y} $ % $$",
                r#""$${x} %%{y} $ % $$""#,
                r#""${x} %{y} $ % $$""#,
            ),
            ("café.fr", "\"café.fr\"", "\"café.fr\""),
            (
                "\u{1}\u{7f}\u{a0}\u{200b}",
                r#""\u0001\u007f\u00a0\u200b""#,
                r#""\u0001\u007f\u00a0\u200b""#,
            ),
            ("\u{f0000}", r#""\U000f0000""#, r#""\U000f0000""#),
        ];
        for (input, literal, kept) in cases {
            assert_eq!(quote(input, Templates::Literal), literal, "{input:?}");
            assert_eq!(quote(input, Templates::Kept), kept, "{input:?}");
        }
    }
}
