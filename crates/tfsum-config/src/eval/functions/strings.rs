//! String functions: go-cty `cty/function/stdlib/string.go` (`upper`, `lower`, `strrev`,
//! `substr`, `join`, `split`, `chomp`, `indent`, `title`, `trim*`) and Terraform
//! `internal/lang/funcs/string.go` (`startswith`, `endswith`, `strcontains`).
//! `replace`, `regex` and `regexall` are in `regex.rs`, `format` and `formatlist` in
//! `format.rs`.
//!
//! Lengths and offsets count grapheme clusters, as cty does (`textseg`), so that a
//! letter with a combining accent is one character.

use unicode_segmentation::UnicodeSegmentation;

use super::{check_bytes, int_arg, list_arg, string_arg, Ctx};
use crate::eval::value::Value;

pub(super) fn lower(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::String(string_arg(&args, 0)?.to_lowercase()))
}

pub(super) fn upper(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::String(string_arg(&args, 0)?.to_uppercase()))
}

pub(super) fn startswith(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::Bool(
        string_arg(&args, 0)?.starts_with(&string_arg(&args, 1)?),
    ))
}

pub(super) fn endswith(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::Bool(
        string_arg(&args, 0)?.ends_with(&string_arg(&args, 1)?),
    ))
}

pub(super) fn strcontains(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::Bool(
        string_arg(&args, 0)?.contains(&string_arg(&args, 1)?),
    ))
}

/// The number of grapheme clusters in `text` (cty's `strlen`, used by `length`).
pub(super) fn grapheme_count(text: &str) -> usize {
    text.graphemes(true).count()
}

/// `strrev(s)`: grapheme clusters in reverse order, each kept whole.
pub(super) fn strrev(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    Ok(Value::String(text.graphemes(true).rev().collect()))
}

/// `substr(s, offset, length)`: a negative offset counts from the end, a length of -1
/// (or any negative one) takes the rest; past the end gives what is there.
pub(super) fn substr(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let mut offset = int_arg(&args, 1)?;
    let length = int_arg(&args, 2)?;
    let clusters: Vec<&str> = text.graphemes(true).collect();
    let total = clusters.len() as i64;
    if offset < 0 {
        offset += total;
        // cty's scan starts at the beginning when the offset is still negative.
        offset = offset.max(0);
    } else if length == 0 {
        return Ok(Value::string(""));
    }
    if offset >= total {
        return Ok(Value::string(""));
    }
    let rest = &clusters[offset as usize..];
    let taken = if length < 0 {
        rest
    } else {
        // cty takes at least one cluster once it has started scanning.
        &rest[..(length.max(1) as usize).min(rest.len())]
    };
    Ok(Value::String(taken.concat()))
}

/// `join(separator, list…)`: the lists' strings, in order, with `separator` between.
pub(super) fn join(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let separator = string_arg(&args, 0)?;
    if args.len() < 2 {
        return Err("at least one list is required".into());
    }
    let lists = args.len() - 1;
    let mut items = Vec::new();
    for i in 1..args.len() {
        for (e, item) in list_arg(&args, i)?.iter().enumerate() {
            match item {
                Value::Null if lists > 1 => {
                    return Err(format!(
                        "element {e} of list {i} is null; cannot concatenate null values"
                    ))
                }
                Value::Null => {
                    return Err(format!(
                        "element {e} is null; cannot concatenate null values"
                    ))
                }
                other => items.push(other.as_string().ok_or_else(|| {
                    format!(
                        "element {e} of list {i}: a string is required, not {}",
                        other.type_name()
                    )
                })?),
            }
        }
    }
    let size = items.iter().map(String::len).sum::<usize>()
        + separator.len() * items.len().saturating_sub(1);
    check_bytes(size)?;
    Ok(Value::String(items.join(&separator)))
}

/// `split(separator, s)`: Go's `strings.Split`, where an empty separator splits between
/// characters and an empty string splits into nothing.
pub(super) fn split(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let separator = string_arg(&args, 0)?;
    let text = string_arg(&args, 1)?;
    let parts: Vec<Value> = if separator.is_empty() {
        text.chars().map(|c| Value::String(c.to_string())).collect()
    } else {
        text.split(separator.as_str()).map(Value::string).collect()
    };
    Ok(Value::List(parts))
}

/// `chomp(s)`: every line break (`\n`, `\r\n`, `\r`) at the end removed.
pub(super) fn chomp(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    Ok(Value::String(
        text.trim_end_matches(['\n', '\r']).to_string(),
    ))
}

/// `indent(spaces, s)`: `spaces` spaces after every line break (the first line is left
/// as it is).
pub(super) fn indent(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let spaces = int_arg(&args, 0)?;
    let text = string_arg(&args, 1)?;
    if spaces < 0 {
        return Err("the number of spaces must not be negative".into());
    }
    let breaks = text.matches('\n').count();
    if breaks == 0 {
        return Ok(Value::String(text));
    }
    let spaces = usize::try_from(spaces).map_err(|_| "too many spaces".to_string())?;
    check_bytes(
        spaces
            .checked_mul(breaks)
            .and_then(|n| n.checked_add(text.len()))
            .unwrap_or(usize::MAX),
    )?;
    let pad = format!("\n{}", " ".repeat(spaces));
    Ok(Value::String(text.replace('\n', &pad)))
}

/// `title(s)`: Go's `strings.Title`: the first letter of each word upper-cased, a word
/// starting after white space or any ASCII character but a letter, digit or `_`.
pub(super) fn title(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let mut out = String::with_capacity(text.len());
    let mut after_separator = true;
    for c in text.chars() {
        if after_separator {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        after_separator = is_separator(c);
    }
    Ok(Value::String(out))
}

/// Go's `strings.isSeparator`.
fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if c.is_alphanumeric() {
        return false;
    }
    c.is_whitespace()
}

/// `trim(s, cutset)`: every character of `cutset` removed from both ends.
pub(super) fn trim(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let cutset: Vec<char> = string_arg(&args, 1)?.chars().collect();
    Ok(Value::String(
        text.trim_matches(cutset.as_slice()).to_string(),
    ))
}

pub(super) fn trimprefix(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let prefix = string_arg(&args, 1)?;
    Ok(Value::String(
        text.strip_prefix(prefix.as_str())
            .unwrap_or(&text)
            .to_string(),
    ))
}

pub(super) fn trimsuffix(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let suffix = string_arg(&args, 1)?;
    Ok(Value::String(
        text.strip_suffix(suffix.as_str())
            .unwrap_or(&text)
            .to_string(),
    ))
}

/// `trimspace(s)`: Unicode white space removed from both ends.
pub(super) fn trimspace(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::String(string_arg(&args, 0)?.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{b, check, list, s, strs, Case};

    /// Cases from go-cty `cty/function/stdlib/string_test.go` and Terraform
    /// `internal/lang/funcs/string_test.go`.
    #[test]
    fn string_functions() {
        let cases: &[Case] = &[
            ("upper(\"hello\")", Ok(s("HELLO"))),
            ("upper(\"Ħ\")", Ok(s("ħ".to_uppercase().as_str()))),
            ("lower(\"HELLO\")", Ok(s("hello"))),
            ("lower(1)", Ok(s("1"))),
            ("strrev(\"hello\")", Ok(s("olleh"))),
            ("strrev(\"\")", Ok(s(""))),
            ("strrev(\"a\\u0301b\")", Ok(s("ba\u{301}"))),
            ("strrev(\"👨‍👩‍👧x\")", Ok(s("x👨‍👩‍👧"))),
            ("substr(\"hello world\", 1, 4)", Ok(s("ello"))),
            ("substr(\"hello world\", 0, -1)", Ok(s("hello world"))),
            ("substr(\"hello world\", -5, 3)", Ok(s("wor"))),
            ("substr(\"hello world\", 6, 0)", Ok(s(""))),
            ("substr(\"hello world\", 20, 5)", Ok(s(""))),
            ("substr(\"hello\", 2, 100)", Ok(s("llo"))),
            ("substr(\"héllo\", 1, 2)", Ok(s("él"))),
            ("substr(\"hello\", -10, 2)", Ok(s("he"))),
            ("substr(\"hello\", 1.5, 2)", Err("must be a whole number")),
            ("join(\"-\", [\"a\", \"b\", \"c\"])", Ok(s("a-b-c"))),
            ("join(\"-\", [\"a\"], [\"b\", 1])", Ok(s("a-b-1"))),
            ("join(\"-\", [])", Ok(s(""))),
            ("join(\"-\")", Err("at least one list is required")),
            (
                "join(\"-\", [\"a\", null])",
                Err("element 1 is null; cannot concatenate null values"),
            ),
            (
                "join(\"-\", [\"a\"], [null])",
                Err("element 0 of list 2 is null"),
            ),
            ("join(\"-\", [[\"a\"]])", Err("a string is required")),
            ("split(\",\", \"a,b,c\")", Ok(strs(&["a", "b", "c"]))),
            ("split(\",\", \"\")", Ok(strs(&[""]))),
            ("split(\",\", \"a\")", Ok(strs(&["a"]))),
            ("split(\"\", \"abc\")", Ok(strs(&["a", "b", "c"]))),
            ("split(\"\", \"\")", Ok(list(vec![]))),
            ("chomp(\"hello\\n\")", Ok(s("hello"))),
            ("chomp(\"hello\\r\\n\\n\")", Ok(s("hello"))),
            ("chomp(\"hello\\n world\")", Ok(s("hello\n world"))),
            ("indent(2, \"a\\nb\\n\")", Ok(s("a\n  b\n  "))),
            ("indent(0, \"a\\nb\")", Ok(s("a\nb"))),
            ("indent(-1, \"a\")", Err("must not be negative")),
            ("indent(100000000, \"a\\nb\")", Err("more than the")),
            ("indent(9000000000000000, \"a\")", Ok(s("a"))),
            ("title(\"hello world\")", Ok(s("Hello World"))),
            ("title(\"hello-world_x y.z\")", Ok(s("Hello-World_x Y.Z"))),
            ("title(\"\")", Ok(s(""))),
            ("trim(\"?!hello?!\", \"!?\")", Ok(s("hello"))),
            ("trim(\"  hello  \", \" \")", Ok(s("hello"))),
            ("trimprefix(\"helloworld\", \"hello\")", Ok(s("world"))),
            ("trimprefix(\"helloworld\", \"x\")", Ok(s("helloworld"))),
            ("trimsuffix(\"helloworld\", \"world\")", Ok(s("hello"))),
            ("trimspace(\" \\thello\\n \")", Ok(s("hello"))),
            ("trimspace(\"\\u00a0x\\u2003\")", Ok(s("x"))),
            ("startswith(\"hello world\", \"hello\")", Ok(b(true))),
            ("startswith(\"hello world\", \"world\")", Ok(b(false))),
            ("startswith(\"hello world\", \"\")", Ok(b(true))),
            ("endswith(\"hello world\", \"world\")", Ok(b(true))),
            ("endswith(\"hello world\", \"hello\")", Ok(b(false))),
            ("strcontains(\"hello world\", \"o w\")", Ok(b(true))),
            ("strcontains(\"hello world\", \"x\")", Ok(b(false))),
            (
                "strcontains(\"hello\", [\"x\"])",
                Err("a string is required"),
            ),
            ("upper(null)", Err("must not be null")),
        ];
        check(cases);
    }
}
