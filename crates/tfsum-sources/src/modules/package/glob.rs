//! Go's `filepath.Match` (as on Unix), which go-getter's `//subdir` globs use.
//!
//! Syntax: `*` (any run of non-`/` bytes), `?` (one non-`/` character), `[…]` (a
//! non-empty class of characters and `lo-hi` ranges, `^` negates) and `\` escapes. The
//! pattern is split into chunks, each a run without `*` preceded by stars; a chunk is
//! matched at the leftmost place it fits, except the last, which must end the name. As
//! chunks have a fixed length, leftmost is never worse than later, so there is no
//! backtracking: time is O(pattern × name), where a recursive matcher takes exponential
//! time on `*a*a*a…b` against `aaaa…`.
//!
//! A malformed pattern is an error even when the name fails to match first, as in Go
//! since 1.16: `filepath.Glob` (and so go-getter) then reports "syntax error in pattern".

/// A pattern `filepath.Match` rejects (`ErrBadPattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadPattern;

const SEPARATOR: u8 = b'/';

/// Whether `name` matches `pattern`, or why the pattern is malformed.
pub(crate) fn glob_match(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let mut pattern = pattern.as_bytes();
    let mut name = name.as_bytes();
    'chunks: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            // A trailing star takes the rest of the name, up to a separator.
            return Ok(!name.contains(&SEPARATOR));
        }
        if let Some(left) = match_chunk(chunk, name)? {
            if left.is_empty() || !pattern.is_empty() {
                name = left;
                continue;
            }
        }
        if star {
            // The star swallows one more byte at a time, never a separator.
            let mut skip = 0;
            while skip < name.len() && name[skip] != SEPARATOR {
                if let Some(left) = match_chunk(chunk, &name[skip + 1..])? {
                    // The last chunk must end the name.
                    if pattern.is_empty() && !left.is_empty() {
                        skip += 1;
                        continue;
                    }
                    name = left;
                    continue 'chunks;
                }
                skip += 1;
            }
        }
        // No match; the rest of the pattern must still be well-formed.
        while !pattern.is_empty() {
            let (_, chunk, rest) = scan_chunk(pattern);
            pattern = rest;
            match_chunk(chunk, b"")?;
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Splits off the leading stars and the chunk after them: `(star, chunk, rest)`.
fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while let Some((b'*', rest)) = pattern.split_first() {
        pattern = rest;
        star = true;
    }
    let mut in_class = false;
    let mut end = 0;
    while end < pattern.len() {
        match pattern[end] {
            // The escaped byte is part of the chunk; a trailing `\` is an error later.
            b'\\' if end + 1 < pattern.len() => end += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'*' if !in_class => break,
            _ => {}
        }
        end += 1;
    }
    (star, &pattern[..end], &pattern[end..])
}

/// Matches `chunk` (no unescaped `*` outside a class) at the start of `name`: what is
/// left of the name, `None` when it does not match. After a mismatch the rest of the
/// chunk is still parsed, so that a malformed one is reported.
fn match_chunk<'a>(mut chunk: &[u8], mut name: &'a [u8]) -> Result<Option<&'a [u8]>, BadPattern> {
    let mut failed = false;
    while let Some(&first) = chunk.first() {
        if !failed && name.is_empty() {
            failed = true;
        }
        match first {
            b'[' => {
                let mut c = 0;
                if !failed {
                    let (decoded, len) = decode_char(name);
                    c = decoded;
                    name = &name[len..];
                }
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut ranges = 0;
                loop {
                    if ranges > 0 {
                        if let Some((b']', rest)) = chunk.split_first() {
                            chunk = rest;
                            break;
                        }
                    }
                    let (lo, rest) = class_char(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    // `class_char` leaves at least one byte.
                    if let Some((b'-', rest)) = chunk.split_first() {
                        (hi, chunk) = class_char(rest)?;
                    }
                    if lo <= c && c <= hi {
                        matched = true;
                    }
                    ranges += 1;
                }
                if matched == negated {
                    failed = true;
                }
            }
            b'?' => {
                if !failed {
                    if name[0] == SEPARATOR {
                        failed = true;
                    }
                    name = &name[decode_char(name).1..];
                }
                chunk = &chunk[1..];
            }
            _ => {
                let literal = if first == b'\\' {
                    chunk = &chunk[1..];
                    *chunk.first().ok_or(BadPattern)?
                } else {
                    first
                };
                if !failed {
                    if literal != name[0] {
                        failed = true;
                    }
                    name = &name[1..];
                }
                chunk = &chunk[1..];
            }
        }
    }
    Ok((!failed).then_some(name))
}

/// One (possibly escaped) character of a class, and the pattern after it, which may
/// not be empty: a class must be closed.
fn class_char(chunk: &[u8]) -> Result<(u32, &[u8]), BadPattern> {
    let chunk = match chunk {
        [] | [b'-' | b']', ..] | [b'\\'] => return Err(BadPattern),
        [b'\\', rest @ ..] => rest,
        _ => chunk,
    };
    let (c, len) = decode_char(chunk);
    if c == REPLACEMENT && len == 1 {
        return Err(BadPattern);
    }
    let rest = &chunk[len..];
    if rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((c, rest))
}

const REPLACEMENT: u32 = 0xFFFD;

/// Go's `utf8.DecodeRune` on a non-empty slice: the character and its length, or
/// (U+FFFD, 1) where the bytes are not UTF-8 (a star may leave the name mid-character,
/// since Go's matcher steps over bytes).
fn decode_char(bytes: &[u8]) -> (u32, usize) {
    let len = match bytes.first() {
        Some(0x00..=0x7F) => 1,
        Some(0xC2..=0xDF) => 2,
        Some(0xE0..=0xEF) => 3,
        Some(0xF0..=0xF4) => 4,
        _ => return (REPLACEMENT, 1),
    };
    match bytes
        .get(..len)
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|s| s.chars().next())
    {
        Some(c) => (c as u32, len),
        None => (REPLACEMENT, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Cases from Go's `path/filepath` match tests, plus the ones go-getter meets.
    #[test]
    fn globs_like_filepath_match() {
        let bad = Err(BadPattern);
        for (pattern, name, want) in [
            ("abc", "abc", Ok(true)),
            ("*", "abc", Ok(true)),
            ("*c", "abc", Ok(true)),
            ("a*", "a", Ok(true)),
            ("a*", "abc", Ok(true)),
            ("a*", "ab/c", Ok(false)),
            ("a*/b", "abc/b", Ok(true)),
            ("a*/b", "a/c/b", Ok(false)),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", Ok(false)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", Ok(false)),
            ("a*b?c*x", "abxbbxdbxebxczzx", Ok(true)),
            ("a*b?c*x", "abxbbxdbxebxczzy", Ok(false)),
            ("ab[c]", "abc", Ok(true)),
            ("ab[b-d]", "abc", Ok(true)),
            ("ab[e-g]", "abc", Ok(false)),
            ("ab[^c]", "abc", Ok(false)),
            ("ab[^b-d]", "abc", Ok(false)),
            ("ab[^e-g]", "abc", Ok(true)),
            ("a\\*b", "a*b", Ok(true)),
            ("a\\*b", "ab", Ok(false)),
            ("a?b", "a☺b", Ok(true)),
            ("a[^a]b", "a☺b", Ok(true)),
            ("a???b", "a☺b", Ok(false)),
            ("a[^a][^a][^a]b", "a☺b", Ok(false)),
            ("[a-ζ]*", "α", Ok(true)),
            ("*[a-ζ]", "A", Ok(false)),
            ("a?b", "a/b", Ok(false)),
            ("a*b", "a/b", Ok(false)),
            ("[\\]a]", "]", Ok(true)),
            ("[\\-]", "-", Ok(true)),
            ("[x\\-]", "x", Ok(true)),
            ("[x\\-]", "-", Ok(true)),
            ("[x\\-]", "z", Ok(false)),
            ("[\\-x]", "x", Ok(true)),
            ("[\\-x]", "-", Ok(true)),
            ("[\\-x]", "a", Ok(false)),
            ("[]a]", "]", bad),
            ("[-]", "-", bad),
            ("[x-]", "x", bad),
            ("[x-]", "-", bad),
            ("[x-]", "z", bad),
            ("[-x]", "x", bad),
            ("[-x]", "-", bad),
            ("[-x]", "a", bad),
            ("\\", "a", bad),
            ("[a-b-c]", "a", bad),
            ("[", "a", bad),
            ("[^", "a", bad),
            ("[^bc", "a", bad),
            ("a[", "a", bad),
            ("a[", "ab", bad),
            ("a[", "x", bad),
            ("a/b[", "x", bad),
            ("*x", "xxx", Ok(true)),
            ("[", "[", bad),
            ("", "", Ok(true)),
            ("", "a", Ok(false)),
            // Malformed after the first mismatch: still an error.
            ("x*[", "abc", bad),
            ("a*[", "abc", bad),
            // go-getter's GitHub-tarball case.
            ("*", "org-repo-1a2b3c", Ok(true)),
            ("org-*", "org-repo", Ok(true)),
            ("?x", "ax", Ok(true)),
            ("?x", "abx", Ok(false)),
        ] {
            assert_eq!(glob_match(pattern, name), want, "{pattern:?} vs {name:?}");
        }
    }

    /// Exponential for a backtracking matcher; must stay in O(pattern × name).
    #[test]
    fn many_stars_match_in_polynomial_time() {
        let name = "a".repeat(100);
        let started = Instant::now();
        for (pattern, want) in [
            (format!("{}b", "*a".repeat(12)), false),
            (format!("{}*", "a*".repeat(12)), true),
            (format!("{}[b]", "*?".repeat(30)), false),
            ("*".repeat(2000) + "b", false),
        ] {
            assert_eq!(glob_match(&pattern, &name), Ok(want), "{pattern}");
        }
        let long = "a".repeat(4000);
        assert_eq!(
            glob_match(&format!("{}b", "*a".repeat(200)), &long),
            Ok(false)
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }

    /// Backtracking over the same syntax, as the reference for valid patterns.
    fn reference(p: &[u8], n: &[u8]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some((b'*', rest)) => (0..=n.len())
                .take_while(|&i| i == 0 || n[i - 1] != SEPARATOR)
                .any(|i| reference(rest, &n[i..])),
            Some((b'?', rest)) => {
                n.first().is_some_and(|c| *c != SEPARATOR) && reference(rest, &n[1..])
            }
            Some((c, rest)) => n.first() == Some(c) && reference(rest, &n[1..]),
        }
    }

    /// Every pattern over `*`, `?`, `a`, `b` up to 5 long against every name over
    /// `a`, `b`, `/` up to 6 long: the chunk matcher agrees with backtracking.
    #[test]
    fn agrees_with_backtracking_on_small_inputs() {
        fn all(alphabet: &[u8], max: usize) -> Vec<Vec<u8>> {
            let mut out = vec![Vec::new()];
            let mut level = vec![Vec::new()];
            for _ in 0..max {
                level = level
                    .iter()
                    .flat_map(|s: &Vec<u8>| {
                        alphabet.iter().map(move |c| {
                            let mut t = s.clone();
                            t.push(*c);
                            t
                        })
                    })
                    .collect();
                out.extend(level.iter().cloned());
            }
            out
        }
        let names = all(b"ab/", 6);
        for pattern in all(b"*?ab", 5) {
            let p = std::str::from_utf8(&pattern).unwrap_or_default();
            for name in &names {
                let n = std::str::from_utf8(name).unwrap_or_default();
                assert_eq!(
                    glob_match(p, n),
                    Ok(reference(&pattern, name)),
                    "{p:?} vs {n:?}"
                );
            }
        }
    }
}
