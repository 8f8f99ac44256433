//! The shared tokenizer behind exact versions and Ruby-style constraints (spec §4.1, §4.3).
//!
//! go-versions splits every version or constraint string into the same raw pieces before
//! deciding what is allowed: an operator, a separator, up to three numbers, a prerelease and
//! metadata. Both [`super::Version::parse`] and [`super::Constraints::parse`] start from this
//! split so that they agree on where one piece ends, and so that their error messages can
//! name the piece the user got wrong, as Terraform's do.

/// A constraint or version string split into its raw pieces. Nothing is validated here:
/// the operator may be nonsense and the numbers may be wildcards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Raw<'a> {
    /// Leading run of punctuation (`>=`, `~>`, `=>`, `&`, …); empty when absent.
    pub op: &'a str,
    /// Spaces and `v` characters between the operator and the first number.
    pub sep: &'a str,
    /// Every dot-separated number, each digits or a single wildcard (`*`, `x`, `X`).
    pub nums: Vec<&'a str>,
    /// The prerelease without its leading `-`; empty when absent.
    pub pre: &'a str,
    /// The metadata without its leading `+`; empty when absent.
    pub meta: &'a str,
    /// Whatever follows the recognised prefix (for example `, < 2.0`).
    pub rest: &'a str,
}

impl Raw<'_> {
    /// The text the scanner consumed: `input` minus [`Raw::rest`].
    pub(super) fn consumed<'s>(&self, input: &'s str) -> &'s str {
        &input[..input.len() - self.rest.len()]
    }
}

/// Bytes that may form an operator: anything but digits, ASCII whitespace, letters, `.` and
/// `*` (the scanner's `op` class, so `=>` and `&` come out as operators to complain about).
fn is_op_byte(b: u8) -> bool {
    !(b.is_ascii_digit() || is_space(b) || b.is_ascii_alphabetic() || b == b'.' || b == b'*')
}

/// The scanner's `space` class, which includes vertical tab.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn is_extra_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'-'
}

fn is_num_start(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'*' | b'x' | b'X')
}

/// Splits `input` into raw pieces, stopping at the first byte that cannot continue the
/// grammar `op sep num('.'num)* ('-'extra)? ('+'extra)?`.
///
/// A dangling `.`, `-` or `+` (one not followed by something it can introduce) is left in
/// [`Raw::rest`], so callers reject it instead of silently dropping it.
pub(crate) fn scan(input: &str) -> Raw<'_> {
    let b = input.as_bytes();
    let mut i = 0;
    while i < b.len() && is_op_byte(b[i]) {
        i += 1;
    }
    let op = &input[..i];
    let sep_start = i;
    while i < b.len() && (is_space(b[i]) || b[i] == b'v') {
        i += 1;
    }
    let sep = &input[sep_start..i];

    let mut nums = Vec::new();
    if i < b.len() && is_num_start(b[i]) {
        loop {
            let start = i;
            if b[i].is_ascii_digit() {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            } else {
                i += 1;
            }
            nums.push(&input[start..i]);
            if i + 1 < b.len() && b[i] == b'.' && is_num_start(b[i + 1]) {
                i += 1;
            } else {
                break;
            }
        }
    }

    let mut pre = "";
    let mut meta = "";
    if !nums.is_empty() {
        if i + 1 < b.len() && b[i] == b'-' && is_extra_byte(b[i + 1]) {
            let start = i + 1;
            i = start;
            while i < b.len() && is_extra_byte(b[i]) {
                i += 1;
            }
            pre = &input[start..i];
        }
        if i + 1 < b.len() && b[i] == b'+' && is_extra_byte(b[i + 1]) {
            let start = i + 1;
            i = start;
            while i < b.len() && is_extra_byte(b[i]) {
                i += 1;
            }
            meta = &input[start..i];
        }
    }

    Raw {
        op,
        sep,
        nums,
        pre,
        meta,
        rest: &input[i..],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// op, sep, nums, pre, meta, rest
    type Pieces<'a> = (&'a str, &'a str, &'a [&'a str], &'a str, &'a str, &'a str);

    #[test]
    fn splits_pieces() {
        let cases: &[(&str, Pieces)] = &[
            ("1.2.3", ("", "", &["1", "2", "3"], "", "", "")),
            (">= 1.0, < 2", (">=", " ", &["1", "0"], "", "", ", < 2")),
            ("~>v1.1", ("~>", "v", &["1", "1"], "", "", "")),
            ("=> 1.*.x", ("=>", " ", &["1", "*", "x"], "", "", "")),
            (
                "1.0-beta.1+meta-1.a",
                ("", "", &["1", "0"], "beta.1", "meta-1.a", ""),
            ),
            ("1.0.0beta", ("", "", &["1", "0", "0"], "", "", "beta")),
            ("1.2.3.4", ("", "", &["1", "2", "3", "4"], "", "", "")),
            ("1.", ("", "", &["1"], "", "", ".")),
            ("1.0-", ("", "", &["1", "0"], "", "", "-")),
            ("garbage", ("", "", &[], "", "", "garbage")),
            ("", ("", "", &[], "", "", "")),
        ];
        for (input, (op, sep, nums, pre, meta, rest)) in cases {
            let raw = scan(input);
            assert_eq!(
                (
                    raw.op,
                    raw.sep,
                    raw.nums.as_slice(),
                    raw.pre,
                    raw.meta,
                    raw.rest
                ),
                (*op, *sep, *nums, *pre, *meta, *rest),
                "{input:?}"
            );
        }
    }
}
