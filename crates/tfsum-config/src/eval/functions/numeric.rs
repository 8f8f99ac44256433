//! Numeric functions: `abs`, `ceil`, `floor`, `log`, `pow`, `signum`, `parseint`, `max`,
//! `min` (go-cty `cty/function/stdlib/number.go`; Terraform `internal/lang/funcs/number.go`
//! for `log`, `pow`, `signum` and `parseint`).
//!
//! cty's numbers are arbitrary-precision decimals; here they are `f64`, so integers past
//! 2^53 lose precision where Terraform keeps them.

use super::{arg, number_arg, Ctx};
use crate::eval::value::Value;

pub(super) fn abs(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::Number(number_arg(&args, 0)?.abs()))
}

pub(super) fn ceil(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::Number(number_arg(&args, 0)?.ceil()))
}

pub(super) fn floor(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    Ok(Value::Number(number_arg(&args, 0)?.floor()))
}

/// `log(num, base)`: as Go computes it, `ln(num) / ln(base)` (so `log(0, 10)` is `-inf`).
pub(super) fn log(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let num = number_arg(&args, 0)?;
    let base = number_arg(&args, 1)?;
    finite_or_infinite(num.ln() / base.ln())
}

pub(super) fn pow(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    finite_or_infinite(number_arg(&args, 0)?.powf(number_arg(&args, 1)?))
}

/// cty has no NaN: a result that is not a number is an error.
fn finite_or_infinite(n: f64) -> Result<Value, String> {
    if n.is_nan() {
        return Err("the result is not a number".into());
    }
    Ok(Value::Number(n))
}

pub(super) fn signum(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let n = number_arg(&args, 0)?;
    Ok(Value::Number(if n > 0.0 {
        1.0
    } else if n < 0.0 {
        -1.0
    } else {
        0.0
    }))
}

/// `parseint(text, base)`: Go's `big.Int.SetString` digits (0-9, then a-z, then A-Z above
/// base 36, letters in either case up to base 36), an optional sign, nothing else.
pub(super) fn parseint(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let text = match arg(&args, 0)? {
        Value::String(s) => s.clone(),
        other => {
            return Err(format!(
                "first argument must be a string, not {}",
                other.type_name()
            ))
        }
    };
    let base = number_arg(&args, 1)?;
    if base.fract() != 0.0 || !(2.0..=62.0).contains(&base) {
        return Err("base must be a whole number between 2 and 62 inclusive".into());
    }
    let base = base as u32;
    let refuse = || format!("cannot parse {text:?} as a base {base} integer");
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text.as_str()),
    };
    if digits.is_empty() {
        return Err(refuse());
    }
    let mut n = 0.0f64;
    for c in digits.chars() {
        let digit = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 10,
            'A'..='Z' if base <= 36 => c as u32 - 'A' as u32 + 10,
            'A'..='Z' => c as u32 - 'A' as u32 + 36,
            _ => return Err(refuse()),
        };
        if digit >= base {
            return Err(refuse());
        }
        n = n * f64::from(base) + f64::from(digit);
    }
    Ok(Value::Number(if negative { -n } else { n }))
}

pub(super) fn max(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    extreme(&args, f64::max)
}

pub(super) fn min(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    extreme(&args, f64::min)
}

fn extreme(args: &[Value], pick: fn(f64, f64) -> f64) -> Result<Value, String> {
    if args.is_empty() {
        return Err("must pass at least one number".into());
    }
    let mut best = number_arg(args, 0)?;
    for i in 1..args.len() {
        best = pick(best, number_arg(args, i)?);
    }
    Ok(Value::Number(best))
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{check, n, s, Case};

    /// Cases from Terraform `internal/lang/funcs/number_test.go` and go-cty
    /// `cty/function/stdlib/number_test.go`.
    #[test]
    fn numeric_functions() {
        let cases: &[Case] = &[
            ("abs(-1)", Ok(n(1.0))),
            ("abs(-1.5)", Ok(n(1.5))),
            ("abs(0)", Ok(n(0.0))),
            ("ceil(1.2)", Ok(n(2.0))),
            ("ceil(-1.2)", Ok(n(-1.0))),
            ("floor(1.7)", Ok(n(1.0))),
            ("floor(-1.2)", Ok(n(-2.0))),
            ("floor(\"2.5\")", Ok(n(2.0))),
            ("log(1, 10)", Ok(n(0.0))),
            ("log(10, 10)", Ok(n(1.0))),
            ("log(0, 10)", Ok(n(f64::NEG_INFINITY))),
            ("log(16, 2)", Ok(n(4.0))),
            ("pow(1, 0)", Ok(n(1.0))),
            ("pow(1, 1)", Ok(n(1.0))),
            ("pow(2, 0)", Ok(n(1.0))),
            ("pow(2, 1)", Ok(n(2.0))),
            ("pow(3, 2)", Ok(n(9.0))),
            ("pow(-3, 2)", Ok(n(9.0))),
            ("pow(2, -2)", Ok(n(0.25))),
            ("pow(0, 2)", Ok(n(0.0))),
            ("signum(0)", Ok(n(0.0))),
            ("signum(12)", Ok(n(1.0))),
            ("signum(-29)", Ok(n(-1.0))),
            ("parseint(\"128\", 10)", Ok(n(128.0))),
            ("parseint(\"-128\", 10)", Ok(n(-128.0))),
            (
                "parseint(\"128\", 2)",
                Err("cannot parse \"128\" as a base 2 integer"),
            ),
            (
                "parseint(\"12.3\", 10)",
                Err("cannot parse \"12.3\" as a base 10 integer"),
            ),
            ("parseint(\"FF\", 16)", Ok(n(255.0))),
            ("parseint(\"ff\", 16)", Ok(n(255.0))),
            ("parseint(\"zz\", 36)", Ok(n(1295.0))),
            ("parseint(\"ZZ\", 62)", Ok(n(3843.0))),
            ("parseint(\"aA\", 62)", Ok(n(656.0))),
            ("parseint(\"1010\", 2)", Ok(n(10.0))),
            ("parseint(\"777\", 8)", Ok(n(511.0))),
            ("parseint(\"-11\", 2)", Ok(n(-3.0))),
            (
                "parseint(\"\", 10)",
                Err("cannot parse \"\" as a base 10 integer"),
            ),
            (
                "parseint(\"10\", 1)",
                Err("base must be a whole number between 2 and 62"),
            ),
            (
                "parseint(\"10\", 63)",
                Err("base must be a whole number between 2 and 62"),
            ),
            (
                "parseint(10, 10)",
                Err("first argument must be a string, not number"),
            ),
            ("parseint(\"1_0\", 10)", Err("cannot parse")),
            ("max(12, 54, 3)", Ok(n(54.0))),
            ("max(-1, 0.5)", Ok(n(0.5))),
            ("min(12, 54, 3)", Ok(n(3.0))),
            ("min(\"3\", 4)", Ok(n(3.0))),
            ("max()", Err("must pass at least one number")),
            ("max(\"a\")", Err("a number is required")),
            (
                "abs(\"x\")",
                Err("a number is required, and \"x\" is not one"),
            ),
            ("abs(null)", Err("must not be null")),
            ("signum(\"a\")", Err("a number is required")),
            ("tostring(pow(10, 3))", Ok(s("1000"))),
        ];
        check(cases);
    }
}
