//! Writing a lock file byte for byte as Terraform does (spec §1.2–1.7, §11 items 1–4).
//!
//! Terraform builds the file with hclwrite and formats it; the result is fixed enough to
//! write directly: header, then per provider a blank line and a block whose `version` and
//! `constraints` form one `=`-aligned group, while `hashes = [` never aligns. A Terraform
//! Stack's file has its own header and no `constraints` ([`LockForm::Stack`]).

use std::fmt::Write as _;

use super::{LockFile, LockForm, ProviderLock};

impl LockFile {
    /// The complete file contents, ending in exactly one `\n`.
    pub fn render(&self) -> String {
        // Hashes make up most of a file: reserving for them spares the regrowth.
        let hashes: usize = self
            .providers
            .values()
            .flat_map(|lock| &lock.hashes)
            .map(|hash| hash.as_str().len() + 8)
            .sum();
        let mut out = String::with_capacity(128 + 160 * self.providers.len() + hashes);
        out.push_str("# This file is maintained automatically by \"");
        out.push_str(self.header_command());
        out.push_str("\".\n# Manual edits may be lost in future updates.\n");
        for (addr, lock) in &self.providers {
            out.push('\n');
            render_block(&mut out, &addr.to_string(), lock, self.form);
        }
        out
    }
}

/// Written straight into `out`: rendering runs for every root on every run, to compare
/// with the file on disk, so no piece gets a string of its own (issue 25).
/// A stack's file never carries `constraints` ([`LockForm::Stack`]).
fn render_block(out: &mut String, label: &str, lock: &ProviderLock, form: LockForm) {
    out.push_str("provider ");
    quote_into(out, label);
    out.push_str(" {\n");
    let constraints = match form {
        LockForm::Init => lock.constraints.canonical(),
        LockForm::Stack => String::new(),
    };
    // `version` is padded to the width of `constraints` (spec §1.4).
    out.push_str(if constraints.is_empty() {
        "  version = "
    } else {
        "  version     = "
    });
    quote_into(out, &lock.version.to_string());
    out.push('\n');
    if !constraints.is_empty() {
        out.push_str("  constraints = ");
        quote_into(out, &constraints);
        out.push('\n');
    }
    if !lock.hashes.is_empty() {
        out.push_str("  hashes = [\n");
        for hash in &lock.hashes {
            out.push_str("    ");
            quote_into(out, hash.as_str());
            out.push_str(",\n");
        }
        out.push_str("  ]\n");
    }
    out.push_str("}\n");
}

/// [`quote_into`], as a new string.
#[cfg(test)]
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_into(&mut out, s);
    out
}

/// Appends `s` as a quoted HCL string with hclwrite's escaping (spec §1.4): `\n \r \t \"
/// \\`, template introducers doubled (`${` → `$${`, `%{` → `%%{`), non-printable characters
/// as `\uXXXX`/`\UXXXXXXXX` in lowercase hex, everything else (IDN hostnames) raw.
fn quote_into(out: &mut String, s: &str) {
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
            '$' | '%' => {
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
/// use code points and noncharacters are not. Lock-file strings are addresses, versions and
/// hashes, so only hand-edited garbage can reach the difference.
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
