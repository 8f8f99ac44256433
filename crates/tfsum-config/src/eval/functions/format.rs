//! `format` and `formatlist` (go-cty `cty/function/stdlib/format.go` and its scanner
//! `format_fsm.rl`): printf-style verbs over cty values.
//!
//! A verb is `%`, flags (`0 # - + space`), a width, a `.precision`, an argument index
//! `[n]`, then a letter, in that order. `%v` writes strings and numbers as they are and
//! anything else as JSON; `%t` a bool; `%d %b %o %x %X` a whole number; `%e %E %f %g %G` a
//! number with Go's float formatting; `%s` a string and `%q` a JSON-quoted string. Widths
//! and string precisions count grapheme clusters, as cty's do. Every argument must be
//! used.

use unicode_segmentation::UnicodeSegmentation;

use super::{check_bytes, string_arg, Ctx};
use crate::eval::value::Value;

/// The widest width or precision accepted: Go's `fmt` refuses anything past a million.
const MAX_WIDTH: usize = 1_000_000;

/// `format(spec, args…)`.
pub(super) fn format(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let spec = string_arg(&args, 0)?;
    format_values(&spec, &args[1..]).map(Value::String)
}

/// `formatlist(spec, args…)`: `format` once per element of the list arguments (which
/// must have one length), the other arguments repeated.
pub(super) fn formatlist(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let spec = string_arg(&args, 0)?;
    let values = &args[1..];
    let mut length: Option<(usize, usize)> = None;
    for (i, value) in values.iter().enumerate() {
        if let Value::List(items) = value {
            match length {
                None => length = Some((items.len(), i)),
                Some((len, first)) if len != items.len() => {
                    return Err(format!(
                        "argument {} has length {}, which is inconsistent with argument {} of length {len}",
                        i + 1,
                        items.len(),
                        first + 1
                    ))
                }
                Some(_) => {}
            }
        }
    }
    let rounds = length.map_or(1, |(len, _)| len);
    super::check_items(rounds)?;
    let mut out = Vec::with_capacity(rounds);
    let mut total = 0usize;
    for round in 0..rounds {
        let these: Vec<Value> = values
            .iter()
            .map(|value| match value {
                Value::List(items) => items[round].clone(),
                other => other.clone(),
            })
            .collect();
        let text = format_values(&spec, &these)
            .map_err(|e| format!("error on format iteration {round}: {e}"))?;
        total += text.len();
        check_bytes(total)?;
        out.push(Value::String(text));
    }
    Ok(Value::List(out))
}

/// One verb as written.
#[derive(Default)]
struct Verb<'a> {
    raw: &'a str,
    offset: usize,
    arg: usize,
    mode: char,
    zero: bool,
    sharp: bool,
    plus: bool,
    minus: bool,
    space: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

/// `spec` with its verbs replaced by `args` (1-based in `[n]`).
fn format_values(spec: &str, args: &[Value]) -> Result<String, String> {
    let bytes = spec.as_bytes();
    let mut out = String::new();
    let mut next_arg = 1usize;
    let mut highest = 0usize;
    let mut literal_start = 0;
    let mut p = 0;
    while p < bytes.len() {
        if bytes[p] != b'%' {
            p += 1;
            continue;
        }
        out.push_str(&spec[literal_start..p]);
        if bytes.get(p + 1) == Some(&b'%') {
            out.push('%');
            p += 2;
            literal_start = p;
            continue;
        }
        let start = p;
        let mut verb = Verb {
            offset: start,
            arg: next_arg,
            ..Verb::default()
        };
        p += 1;
        while let Some(&c) = bytes.get(p) {
            match c {
                b'0' => verb.zero = true,
                b'#' => verb.sharp = true,
                b'-' => verb.minus = true,
                b'+' => verb.plus = true,
                b' ' => verb.space = true,
                _ => break,
            }
            p += 1;
        }
        if matches!(bytes.get(p), Some(b'1'..=b'9')) {
            verb.width = Some(read_number(bytes, &mut p)?);
        }
        if bytes.get(p) == Some(&b'.') {
            p += 1;
            verb.precision = Some(if matches!(bytes.get(p), Some(b'0'..=b'9')) {
                read_number(bytes, &mut p)?
            } else {
                0
            });
        }
        if bytes.get(p) == Some(&b'[') {
            p += 1;
            if !matches!(bytes.get(p), Some(b'1'..=b'9')) {
                return Err(bad_char(spec, p));
            }
            verb.arg = read_number(bytes, &mut p)?;
            if bytes.get(p) != Some(&b']') {
                return Err(bad_char(spec, p));
            }
            p += 1;
        }
        match bytes.get(p) {
            Some(c) if c.is_ascii_alphabetic() => verb.mode = char::from(*c),
            Some(_) => return Err(bad_char(spec, p)),
            None => return Err(format!("invalid format string starting at offset {start}")),
        }
        p += 1;
        verb.raw = &spec[start..p];
        highest = highest.max(verb.arg);
        append(&verb, &mut out, args)?;
        check_bytes(out.len())?;
        next_arg = verb.arg + 1;
        literal_start = p;
    }
    out.push_str(&spec[literal_start..]);
    if highest < args.len() {
        return Err(if highest == 0 {
            "too many arguments; no verbs in format string".to_string()
        } else {
            format!("too many arguments; only {highest} used by format string")
        });
    }
    Ok(out)
}

fn read_number(bytes: &[u8], p: &mut usize) -> Result<usize, String> {
    let mut n = 0usize;
    while let Some(c @ b'0'..=b'9') = bytes.get(*p) {
        n = n.saturating_mul(10).saturating_add(usize::from(c - b'0'));
        *p += 1;
    }
    if n > MAX_WIDTH {
        return Err(format!(
            "a width, precision or argument index of {n} is more than the {MAX_WIDTH} tfsum accepts"
        ));
    }
    Ok(n)
}

fn bad_char(spec: &str, p: usize) -> String {
    let c = spec[p..].chars().next().unwrap_or('\u{fffd}');
    format!("unrecognized format character {c:?} at offset {p}")
}

fn append(verb: &Verb<'_>, out: &mut String, args: &[Value]) -> Result<(), String> {
    let Some(arg) = args.get(verb.arg - 1) else {
        return Err(format!(
            "not enough arguments for {:?} at {}: need index {} but have {} total",
            verb.raw,
            verb.offset,
            verb.arg,
            args.len()
        ));
    };
    let unsupported = |why: &str| {
        format!(
            "unsupported value for {:?} at {}: {why}",
            verb.raw, verb.offset
        )
    };
    if verb.mode != 'v' && matches!(arg, Value::Null) {
        return Err(unsupported("null value cannot be formatted"));
    }
    match verb.mode {
        'v' => {
            let text = match arg {
                Value::String(s) if !verb.sharp => s.clone(),
                Value::Number(n) if !verb.sharp => go_shortest_g(*n),
                other => super::encoding::json_text(other).map_err(|e| unsupported(&e))?,
            };
            out.push_str(&pad(verb, text));
        }
        't' => match arg {
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::String(s) if s == "true" || s == "false" => out.push_str(s),
            _ => return Err(unsupported("bool required")),
        },
        'b' | 'd' | 'o' | 'x' | 'X' | 'e' | 'E' | 'f' | 'g' | 'G' => {
            let n = super::to_number(arg).ok_or_else(|| unsupported("number required"))?;
            if matches!(verb.mode, 'b' | 'd' | 'o' | 'x' | 'X') {
                if n.fract() != 0.0 || !n.is_finite() {
                    return Err(unsupported("an integer is required"));
                }
                out.push_str(&format_integer(verb, n));
            } else {
                out.push_str(&format_float(verb, n));
            }
        }
        's' | 'q' => {
            let mut text = match arg {
                Value::Null => None,
                other => other.as_string(),
            }
            .ok_or_else(|| unsupported("string required"))?;
            if let Some(precision) = verb.precision.filter(|p| *p > 0) {
                let end: usize = text.graphemes(true).take(precision).map(str::len).sum();
                text.truncate(end);
            }
            if verb.mode == 'q' {
                text = super::encoding::json_text(&Value::String(text))
                    .map_err(|e| unsupported(&e))?;
            }
            out.push_str(&pad(verb, text));
        }
        other => {
            return Err(format!(
                "unsupported format verb {other:?} in {:?} at offset {}",
                verb.raw, verb.offset
            ))
        }
    }
    Ok(())
}

/// `text` padded to the verb's width, counted in grapheme clusters (cty's
/// `formatPadWidth`).
fn pad(verb: &Verb<'_>, text: String) -> String {
    let Some(width) = verb.width else { return text };
    let have = text.graphemes(true).count();
    if have >= width {
        return text;
    }
    let fill = if verb.zero { "0" } else { " " }.repeat(width - have);
    if verb.minus {
        text + &fill
    } else {
        fill + &text
    }
}

/// A number as Go's `%g` with the shortest precision writes it (cty's `%v` and
/// `Text('g', -1)`): plain below a million, `1.5e+06` from there and below 1e-4.
pub(super) fn go_shortest_g(n: f64) -> String {
    if !n.is_finite() {
        return infinite(n);
    }
    let text = go_g(n.abs(), None, 'e');
    if n < 0.0 {
        format!("-{text}")
    } else {
        text
    }
}

fn infinite(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n > 0.0 {
        "+Inf".into()
    } else {
        "-Inf".into()
    }
}

/// The shortest decimal digits that read back as `n` (no leading zeros), and the
/// exponent of the first digit.
fn shortest_digits(n: f64) -> (String, i32) {
    let text = format!("{:e}", n.abs());
    let (mantissa, exp) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// `digits` (first digit at 10^`exp`) in `d.ddde±XX` form with `frac` digits after
/// the point (padding with zeros).
fn exponent_form(digits: &str, exp: i32, letter: char, frac: usize) -> String {
    let mut out = String::new();
    out.push_str(&digits[..1]);
    if frac > 0 {
        out.push('.');
        let rest = &digits[1..];
        out.push_str(&rest[..rest.len().min(frac)]);
        for _ in rest.len()..frac {
            out.push('0');
        }
    }
    out.push(letter);
    out.push(if exp < 0 { '-' } else { '+' });
    out.push_str(&format!("{:02}", exp.abs()));
    out
}

/// `digits` (first digit at 10^`exp`) in fixed notation with `frac` digits after the
/// point.
fn fixed_from_digits(digits: &str, exp: i32, frac: usize) -> String {
    let mut int_part = String::new();
    let mut frac_part = String::new();
    for (i, d) in digits.chars().enumerate() {
        let power = exp - i as i32;
        if power >= 0 {
            int_part.push(d);
        } else {
            let position = (-power - 1) as usize;
            while frac_part.len() < position {
                frac_part.push('0');
            }
            frac_part.push(d);
        }
    }
    // Zeros between the last digit and the decimal point.
    let last_power = exp - digits.len() as i32 + 1;
    for _ in 0..last_power.max(0) {
        int_part.push('0');
    }
    if int_part.is_empty() {
        int_part.push('0');
    }
    while frac_part.len() < frac {
        frac_part.push('0');
    }
    frac_part.truncate(frac);
    if frac == 0 {
        int_part
    } else {
        format!("{int_part}.{frac_part}")
    }
}

/// `%e %E %f %g %G` as Go's `big.Float.Format` writes them: precision 6 by default for
/// `e` and `f`, shortest for `g`; `+` or space for the sign, `-` or `0` for the padding.
fn format_float(verb: &Verb<'_>, n: f64) -> String {
    let body = if !n.is_finite() {
        infinite(n)
    } else {
        let abs = n.abs();
        let text = match verb.mode {
            'e' | 'E' => {
                let precision = verb.precision.unwrap_or(6);
                let text = format!("{abs:.precision$e}");
                let (mantissa, exp) = text.split_once('e').unwrap_or((text.as_str(), "0"));
                let exp: i32 = exp.parse().unwrap_or(0);
                let letter = if verb.mode == 'E' { 'E' } else { 'e' };
                format!(
                    "{mantissa}{letter}{}{:02}",
                    if exp < 0 { '-' } else { '+' },
                    exp.abs()
                )
            }
            'f' => {
                let precision = verb.precision.unwrap_or(6);
                format!("{abs:.precision$}")
            }
            _ => {
                let letter = if verb.mode == 'G' { 'E' } else { 'e' };
                go_g(abs, verb.precision, letter)
            }
        };
        if n.is_sign_negative() && n != 0.0 {
            format!("-{text}")
        } else {
            text
        }
    };
    let (sign, digits) = match body.strip_prefix(['-', '+']) {
        Some(rest) => (&body[..1], rest),
        None if verb.plus => ("+", body.as_str()),
        None if verb.space => (" ", body.as_str()),
        None => ("", body.as_str()),
    };
    let sign = if sign == "+" && verb.space && !verb.plus {
        " "
    } else {
        sign
    };
    let length = sign.len() + digits.len();
    let padding = verb.width.map_or(0, |w| w.saturating_sub(length));
    if verb.minus {
        format!("{sign}{digits}{}", " ".repeat(padding))
    } else if verb.zero && n.is_finite() {
        format!("{sign}{}{digits}", "0".repeat(padding))
    } else {
        format!("{}{sign}{digits}", " ".repeat(padding))
    }
}

/// Go's `%g` of a non-negative finite number: `precision` significant digits (shortest
/// when absent), exponent form when the exponent is below -4 or at least the precision,
/// trailing zeros dropped.
fn go_g(abs: f64, precision: Option<usize>, letter: char) -> String {
    if abs == 0.0 {
        return "0".into();
    }
    let (digits, exp, shortest) = match precision {
        None => {
            let (d, e) = shortest_digits(abs);
            (d, e, true)
        }
        Some(p) => {
            let p = p.max(1);
            let text = format!("{abs:.*e}", p - 1);
            let (mantissa, e) = text.split_once('e').unwrap_or((text.as_str(), "0"));
            let mut d: String = mantissa.chars().filter(char::is_ascii_digit).collect();
            while d.len() > 1 && d.ends_with('0') {
                d.pop();
            }
            (d, e.parse().unwrap_or(0), false)
        }
    };
    let mut eprec = precision.map_or(6, |p| p.max(1) as i32);
    if !shortest && eprec > digits.len() as i32 && digits.len() as i32 > exp {
        eprec = digits.len() as i32;
    }
    if shortest {
        eprec = 6;
    }
    if exp < -4 || exp >= eprec {
        exponent_form(&digits, exp, letter, digits.len() - 1)
    } else {
        let frac = (digits.len() as i32 - exp - 1).max(0) as usize;
        fixed_from_digits(&digits, exp, frac)
    }
}

/// `%d %b %o %x %X` as Go's `big.Int.Format` writes them: sign, `#` prefix, precision
/// as a minimum digit count, width padding.
fn format_integer(verb: &Verb<'_>, n: f64) -> String {
    let digits = integer_digits(n.abs(), verb.mode);
    let sign = if n < 0.0 {
        "-"
    } else if verb.plus {
        "+"
    } else if verb.space {
        " "
    } else {
        ""
    };
    let prefix = match (verb.sharp, verb.mode) {
        (true, 'b') => "0b",
        (true, 'o') => "0",
        (true, 'x') => "0x",
        (true, 'X') => "0X",
        _ => "",
    };
    let mut zeros = 0;
    if let Some(precision) = verb.precision {
        if digits.len() < precision {
            zeros = precision - digits.len();
        } else if digits == "0" && precision == 0 {
            return String::new();
        }
    }
    let length = sign.len() + prefix.len() + zeros + digits.len();
    let (mut left, mut right) = (0, 0);
    if let Some(width) = verb.width.filter(|w| *w > length) {
        let extra = width - length;
        if verb.minus {
            right = extra;
        } else if verb.zero && verb.precision.is_none() {
            zeros = extra;
        } else {
            left = extra;
        }
    }
    format!(
        "{}{sign}{prefix}{}{digits}{}",
        " ".repeat(left),
        "0".repeat(zeros),
        " ".repeat(right)
    )
}

/// The digits of a non-negative whole `n` in the verb's base, exactly (an `f64` whole
/// number can pass `u64`, so the binary digits are built from its mantissa).
fn integer_digits(n: f64, mode: char) -> String {
    if mode == 'd' {
        return format!("{n:.0}");
    }
    let bits = n.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let (mantissa, shift) = if exponent == 0 {
        (bits & ((1 << 52) - 1), -1074)
    } else {
        ((bits & ((1 << 52) - 1)) | (1 << 52), exponent - 1075)
    };
    // Whole numbers: a negative shift only drops zero bits.
    let mut binary = if shift < 0 {
        format!("{:b}", mantissa >> (-shift).min(63))
    } else {
        let mut b = format!("{mantissa:b}");
        b.push_str(&"0".repeat(shift as usize));
        b
    };
    if mantissa == 0 {
        binary = "0".into();
    }
    let group = match mode {
        'o' => 3,
        'x' | 'X' => 4,
        _ => return binary,
    };
    let pad = (group - binary.len() % group) % group;
    let padded = format!("{}{binary}", "0".repeat(pad));
    let alphabet: &[u8] = if mode == 'X' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out: String = padded
        .as_bytes()
        .chunks(group)
        .map(|chunk| {
            let v = chunk
                .iter()
                .fold(0usize, |acc, b| acc * 2 + usize::from(b - b'0'));
            char::from(alphabet[v])
        })
        .collect();
    let trimmed = out.trim_start_matches('0').len();
    if trimmed == 0 {
        return "0".into();
    }
    out.drain(..out.len() - trimmed);
    out
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{check, list, s, strs, Case};

    /// Cases from go-cty `cty/function/stdlib/format_test.go` and Terraform
    /// `internal/lang/funcs/string_test.go`, plus Go `fmt` behaviour for flags.
    #[test]
    fn format_functions() {
        let cases: &[Case] = &[
            ("format(\"hello\")", Ok(s("hello"))),
            ("format(\"100%% sure\")", Ok(s("100% sure"))),
            ("format(\"hello %s\", \"world\")", Ok(s("hello world"))),
            ("format(\"%s %s\", \"a\", \"b\")", Ok(s("a b"))),
            ("format(\"%[2]s %[1]s\", \"a\", \"b\")", Ok(s("b a"))),
            ("format(\"%[2]s %s\", \"a\", \"b\", \"c\")", Ok(s("b c"))),
            ("format(\"%s\", 1)", Ok(s("1"))),
            ("format(\"%s\", 1.5)", Ok(s("1.5"))),
            ("format(\"%s\", true)", Ok(s("true"))),
            (
                "format(\"%s\", [1])",
                Err("unsupported value for \"%s\" at 0: string required"),
            ),
            (
                "format(\"%s\", null)",
                Err("null value cannot be formatted"),
            ),
            ("format(\"%10s|\", \"hi\")", Ok(s("        hi|"))),
            ("format(\"%-10s|\", \"hi\")", Ok(s("hi        |"))),
            ("format(\"%05s\", \"hi\")", Ok(s("000hi"))),
            ("format(\"%.2s\", \"hello\")", Ok(s("he"))),
            ("format(\"%.0s\", \"hello\")", Ok(s("hello"))),
            ("format(\"%3s|\", \"e\\u0301\")", Ok(s("  e\u{301}|"))),
            (
                "format(\"%q\", \"hi \\\"x\\\"\")",
                Ok(s("\"hi \\\"x\\\"\"")),
            ),
            ("format(\"%q\", 5)", Ok(s("\"5\""))),
            (
                "format(\"%q\", \"<&>\")",
                Ok(s("\"\\u003c\\u0026\\u003e\"")),
            ),
            ("format(\"%v\", \"hi\")", Ok(s("hi"))),
            ("format(\"%#v\", \"hi\")", Ok(s("\"hi\""))),
            ("format(\"%v\", 12)", Ok(s("12"))),
            ("format(\"%v\", 1.5)", Ok(s("1.5"))),
            ("format(\"%v\", 1234567)", Ok(s("1.234567e+06"))),
            ("format(\"%v\", 0.00001)", Ok(s("1e-05"))),
            ("format(\"%v\", true)", Ok(s("true"))),
            ("format(\"%v\", null)", Ok(s("null"))),
            ("format(\"%v\", [1, \"a\"])", Ok(s("[1,\"a\"]"))),
            (
                "format(\"%v\", {b = 1, a = true})",
                Ok(s("{\"a\":true,\"b\":1}")),
            ),
            ("format(\"%t\", true)", Ok(s("true"))),
            ("format(\"%t\", \"false\")", Ok(s("false"))),
            ("format(\"%t\", 1)", Err("bool required")),
            ("format(\"%d\", 42)", Ok(s("42"))),
            ("format(\"%d\", \"42\")", Ok(s("42"))),
            ("format(\"%d\", -42)", Ok(s("-42"))),
            ("format(\"%+d\", 42)", Ok(s("+42"))),
            ("format(\"% d\", 42)", Ok(s(" 42"))),
            ("format(\"%5d|\", 42)", Ok(s("   42|"))),
            ("format(\"%-5d|\", 42)", Ok(s("42   |"))),
            ("format(\"%05d\", -42)", Ok(s("-0042"))),
            ("format(\"%.3d\", 7)", Ok(s("007"))),
            ("format(\"%.0d\", 0)", Ok(s(""))),
            ("format(\"%d\", 1.5)", Err("an integer is required")),
            ("format(\"%d\", \"x\")", Err("number required")),
            ("format(\"%d\", 1e20)", Ok(s("100000000000000000000"))),
            ("format(\"%b\", 5)", Ok(s("101"))),
            ("format(\"%#b\", 5)", Ok(s("0b101"))),
            ("format(\"%o\", 8)", Ok(s("10"))),
            ("format(\"%#o\", 8)", Ok(s("010"))),
            ("format(\"%x\", 255)", Ok(s("ff"))),
            ("format(\"%X\", 255)", Ok(s("FF"))),
            ("format(\"%#x\", 255)", Ok(s("0xff"))),
            ("format(\"%x\", -255)", Ok(s("-ff"))),
            ("format(\"%x\", 0)", Ok(s("0"))),
            (
                "format(\"%x\", 18446744073709551616)",
                Ok(s("10000000000000000")),
            ),
            ("format(\"%f\", 3.14159)", Ok(s("3.141590"))),
            ("format(\"%.2f\", 3.14159)", Ok(s("3.14"))),
            ("format(\"%8.2f|\", 3.14159)", Ok(s("    3.14|"))),
            ("format(\"%-8.2f|\", -3.14159)", Ok(s("-3.14   |"))),
            ("format(\"%08.2f\", -3.14159)", Ok(s("-0003.14"))),
            ("format(\"%+.1f\", 2)", Ok(s("+2.0"))),
            ("format(\"%.0f\", 2.5)", Ok(s("2"))),
            ("format(\"%e\", 123456.789)", Ok(s("1.234568e+05"))),
            ("format(\"%.2E\", 0.000123)", Ok(s("1.23E-04"))),
            ("format(\"%g\", 123456.789)", Ok(s("123456.789"))),
            ("format(\"%g\", 1e21)", Ok(s("1e+21"))),
            ("format(\"%g\", 0.0001)", Ok(s("0.0001"))),
            ("format(\"%g\", 0.00001)", Ok(s("1e-05"))),
            ("format(\"%.3g\", 1234.5678)", Ok(s("1.23e+03"))),
            ("format(\"%.3g\", 1)", Ok(s("1"))),
            ("format(\"%.3G\", 0.00001234)", Ok(s("1.23E-05"))),
            (
                "format(\"%s\")",
                Err("not enough arguments for \"%s\" at 0: need index 1 but have 0 total"),
            ),
            (
                "format(\"%[3]s\", \"a\")",
                Err("need index 3 but have 1 total"),
            ),
            (
                "format(\"hi\", \"a\")",
                Err("too many arguments; no verbs in format string"),
            ),
            (
                "format(\"%s\", \"a\", \"b\")",
                Err("too many arguments; only 1 used by format string"),
            ),
            (
                "format(\"%y\", 1)",
                Err("unsupported format verb 'y' in \"%y\" at offset 0"),
            ),
            (
                "format(\"%!\", 1)",
                Err("unrecognized format character '!' at offset 1"),
            ),
            (
                "format(\"abc %\", 1)",
                Err("invalid format string starting at offset 4"),
            ),
            (
                "format(\"%999999999s\", \"a\")",
                Err("more than the 1000000 tfsum accepts"),
            ),
            (
                "format(\"%1000000s\", \"a\")",
                Ok(s(&format!("{}a", " ".repeat(999_999)))),
            ),
            (
                "formatlist(\"%s-%s\", [\"a\", \"b\"], \"x\")",
                Ok(strs(&["a-x", "b-x"])),
            ),
            (
                "formatlist(\"%s=%s\", [\"a\", \"b\"], [1, 2])",
                Ok(strs(&["a=1", "b=2"])),
            ),
            ("formatlist(\"%s\", [])", Ok(list(vec![]))),
            ("formatlist(\"hi\")", Ok(strs(&["hi"]))),
            ("formatlist(\"%s\", \"a\")", Ok(strs(&["a"]))),
            (
                "formatlist(\"%s %s\", [\"a\"], [\"b\", \"c\"])",
                Err("argument 2 has length 2, which is inconsistent with argument 1 of length 1"),
            ),
            (
                "formatlist(\"%d\", [\"a\"])",
                Err("error on format iteration 0"),
            ),
        ];
        check(cases);
    }
}
