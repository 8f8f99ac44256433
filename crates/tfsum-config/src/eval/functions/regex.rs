//! Regular expressions: `regex` and `regexall` (go-cty
//! `cty/function/stdlib/regexp.go`) and `replace` (Terraform
//! `internal/lang/funcs/string.go`), whose `/…/` form is a regular expression.
//!
//! Terraform's patterns are Go's RE2 syntax. The `regex` crate reads the same syntax,
//! with one difference that changes results: its `\d`, `\w`, `\s` and `\b` are Unicode
//! classes where Go's are ASCII, so [`go_pattern`] spells them out before compiling.

use std::collections::BTreeMap;

use regex::Regex;

use super::{check_bytes, string_arg, Ctx};
use crate::eval::value::Value;

/// The longest pattern compiled: the regex crate bounds the compiled size itself, this
/// only keeps a pathological text from being scanned.
const MAX_PATTERN: usize = 64 << 10;

/// `pattern` with Go's ASCII-only Perl classes written out, so that the `regex` crate
/// matches what Go matches.
fn go_pattern(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // Nested classes are unions inside a class and classes outside one, so
            // the same spelling fits both places.
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('s') => out.push_str("[\\t\\n\\f\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\f\\r ]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// `pattern` compiled with Go's meaning.
pub(super) fn compile(pattern: &str) -> Result<Regex, String> {
    if pattern.len() > MAX_PATTERN {
        return Err(format!(
            "the pattern is {} bytes long, more than the {MAX_PATTERN} tfsum compiles",
            pattern.len()
        ));
    }
    regex::RegexBuilder::new(&go_pattern(pattern))
        .size_limit(8 << 20)
        .build()
        .map_err(|e| format!("error parsing pattern: {e}"))
}

/// What one match of a pattern gives: the matched text without capture groups, a list
/// of the unnamed groups, or an object of the named ones (a group that did not take
/// part is null).
enum Shape {
    Whole,
    Unnamed,
    Named,
}

fn shape(re: &Regex) -> Result<Shape, String> {
    let names: Vec<Option<&str>> = re.capture_names().skip(1).collect();
    let named = names.iter().filter(|n| n.is_some()).count();
    match (names.len() - named, named) {
        (0, 0) => Ok(Shape::Whole),
        (_, 0) => Ok(Shape::Unnamed),
        (0, _) => Ok(Shape::Named),
        _ => Err("invalid regexp pattern: cannot mix both named and unnamed capture groups".into()),
    }
}

fn result(re: &Regex, shape: &Shape, caps: &regex::Captures<'_>) -> Value {
    let text = |m: Option<regex::Match<'_>>| match m {
        Some(m) => Value::string(m.as_str()),
        None => Value::Null,
    };
    match shape {
        Shape::Whole => text(caps.get(0)),
        Shape::Unnamed => Value::List((1..caps.len()).map(|i| text(caps.get(i))).collect()),
        Shape::Named => Value::Object(
            re.capture_names()
                .flatten()
                .map(|name| (name.to_string(), text(caps.name(name))))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

/// `regex(pattern, s)`: the first match (see [`Shape`]); no match is an error.
pub(super) fn regex(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let re = compile(&string_arg(&args, 0)?)?;
    let shape = shape(&re)?;
    let text = string_arg(&args, 1)?;
    let caps = re
        .captures(&text)
        .ok_or("pattern did not match any part of the given string")?;
    Ok(result(&re, &shape, &caps))
}

/// `regexall(pattern, s)`: every match, as a list (empty when none).
pub(super) fn regexall(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let re = compile(&string_arg(&args, 0)?)?;
    let shape = shape(&re)?;
    let text = string_arg(&args, 1)?;
    let mut out = Vec::new();
    for caps in re.captures_iter(&text) {
        super::check_items(out.len() + 1)?;
        out.push(result(&re, &shape, &caps));
    }
    Ok(Value::List(out))
}

/// `replace(s, search, replacement)`: every occurrence of `search` replaced; a search
/// written `/…/` is a pattern, and the replacement may name its groups (`$1`, `${name}`),
/// with Go's expansion rules, which the regex crate shares.
pub(super) fn replace(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = string_arg(&args, 0)?;
    let search = string_arg(&args, 1)?;
    let replacement = string_arg(&args, 2)?;
    if search.len() > 1 && search.starts_with('/') && search.ends_with('/') {
        let re = compile(&search[1..search.len() - 1])?;
        let mut out = String::new();
        let mut last = 0;
        for caps in re.captures_iter(&text) {
            let Some(whole) = caps.get(0) else { continue };
            out.push_str(&text[last..whole.start()]);
            caps.expand(&replacement, &mut out);
            last = whole.end();
            check_bytes(out.len())?;
        }
        out.push_str(&text[last..]);
        return Ok(Value::String(out));
    }
    let count = if search.is_empty() {
        text.chars().count() + 1
    } else {
        text.matches(search.as_str()).count()
    };
    check_bytes(
        replacement
            .len()
            .saturating_mul(count)
            .saturating_add(text.len()),
    )?;
    Ok(Value::String(text.replace(search.as_str(), &replacement)))
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{check, list, n, obj, s, strs, Case};
    use crate::eval::value::Value;

    /// Cases from go-cty `cty/function/stdlib/regexp_test.go` and Terraform
    /// `internal/lang/funcs/string_test.go` (`TestReplace`).
    #[test]
    fn regex_functions() {
        let cases: &[Case] = &[
            ("regex(\"[a-z]+\", \"123abc456\")", Ok(s("abc"))),
            (
                "regex(\"(\\\\d+)([a-z]+)(\\\\d+)\", \"123abc456\")",
                Ok(strs(&["123", "abc", "456"])),
            ),
            (
                "regex(\"(?P<num>\\\\d+)(?P<word>[a-z]+)\", \"123abc\")",
                Ok(obj(&[("num", s("123")), ("word", s("abc"))])),
            ),
            (
                "regex(\"(a)|(b)\", \"b\")",
                Ok(list(vec![Value::Null, s("b")])),
            ),
            (
                "regex(\"(?P<x>a)|(?P<y>b)\", \"a\")",
                Ok(obj(&[("x", s("a")), ("y", Value::Null)])),
            ),
            (
                "regex(\"[a-z]+\", \"123\")",
                Err("pattern did not match any part of the given string"),
            ),
            (
                "regex(\"(?P<a>x)(y)\", \"xy\")",
                Err("cannot mix both named and unnamed capture groups"),
            ),
            ("regex(\"(\", \"x\")", Err("error parsing pattern")),
            // Go's \d and \w are ASCII only.
            ("regex(\"\\\\d+\", \"٣3\")", Ok(s("3"))),
            ("regex(\"\\\\w+\", \"éab\")", Ok(s("ab"))),
            ("regex(\"[\\\\d.]+\", \"v1.2.3-x\")", Ok(s("1.2.3"))),
            ("regex(\"^v(\\\\S+)\", \"v1.0 x\")", Ok(strs(&["1.0"]))),
            (
                "regexall(\"[a-z]+\", \"123abc456def\")",
                Ok(strs(&["abc", "def"])),
            ),
            ("regexall(\"[a-z]+\", \"123\")", Ok(list(vec![]))),
            ("length(regexall(\"x\", \"y\")) > 0", Ok(Value::Bool(false))),
            (
                "regexall(\"(\\\\d)(\\\\w)\", \"1a2b\")",
                Ok(list(vec![strs(&["1", "a"]), strs(&["2", "b"])])),
            ),
            ("length(regexall(\"a\", \"aaa\"))", Ok(n(3.0))),
            ("replace(\"hello\", \"hel\", \"bel\")", Ok(s("bello"))),
            ("replace(\"hello\", \"l\", \"L\")", Ok(s("heLLo"))),
            ("replace(\"hello\", \"x\", \"L\")", Ok(s("hello"))),
            ("replace(\"hello\", \"/l/\", \"L\")", Ok(s("heLLo"))),
            ("replace(\"hello\", \"/(l)(o)/\", \"$2$1\")", Ok(s("helol"))),
            (
                "replace(\"hello world\", \"/(?P<w>\\\\w+)/\", \"<$${w}>\")",
                Ok(s("<hello> <world>")),
            ),
            ("replace(\"helo\", \"/(l)/\", \"$1x\")", Ok(s("heo"))),
            ("replace(\"helo\", \"/(l)/\", \"$$\")", Ok(s("he$o"))),
            ("replace(\"ab\", \"\", \"-\")", Ok(s("-a-b-"))),
            ("replace(\"/\", \"/\", \"x\")", Ok(s("x"))),
            (
                "replace(\"a\", \"/(/\", \"x\")",
                Err("error parsing pattern"),
            ),
            ("replace(\"1 + 2\", \"+\", \"plus\")", Ok(s("1 plus 2"))),
        ];
        check(cases);
    }
}
