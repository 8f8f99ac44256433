//! Replacing values in a native-syntax file so that it reads as `terraform fmt` would
//! leave it, without re-rendering it.
//!
//! `terraform fmt` (hclwrite's `format`) aligns the trailing `#`/`//` comments of
//! consecutive lines into one column: one space after the longest line of the run. So on a
//! formatted file, a value that changes width moves the comments of its whole run, lines
//! it does not touch included (docs/spec/upgrade.md §4, `comment-alignment`). [`replace`]
//! does the same for the runs that hold an edited value, and only for runs that were
//! aligned that way before the edit: an unformatted file keeps its own spacing.
//!
//! hclwrite works on lines of tokens, so this file has a small tokenizer: it knows strings
//! with their `${…}` and `%{…}` templates, heredocs, the three comment forms and line
//! ends, which is all it takes to find where a line's code ends and its comment begins.
//! The `=` column is not touched: it depends on the names before `=`, never on a value.

use std::ops::Range;

/// `text` with each `(span, replacement)` applied (spans are byte ranges of `text`, in
/// order, not overlapping), and the trailing comments of every run of lines that holds a
/// replacement aligned again where `terraform fmt` had aligned them.
pub(crate) fn replace(text: &str, edits: &[(Range<usize>, String)]) -> String {
    let mut all: Vec<(Range<usize>, String)> = edits.to_vec();
    all.extend(realign(text, edits));
    all.sort_by_key(|(span, _)| span.start);
    replace_only(text, &all)
}

/// `text` with each `(span, replacement)` applied, and nothing else changed (spans in
/// order, not overlapping).
pub(crate) fn replace_only(text: &str, edits: &[(Range<usize>, String)]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for (span, with) in edits {
        out.push_str(&text[at..span.start]);
        out.push_str(with);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `\n` or `\r\n`.
    Newline,
    /// `#…` or `//…`; `ends_line` when it took the line end with it (not at end of file).
    LineComment {
        ends_line: bool,
    },
    BlockComment,
    /// Anything else: a string with its templates, a heredoc, a name, a symbol.
    Code,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

/// One line as hclwrite sees it: the tokens up to and including the one that ends it.
#[derive(Debug)]
struct Line {
    /// Where the line starts in the text.
    start: usize,
    tokens: Vec<Token>,
}

impl Line {
    /// The trailing comment and where the code before it ends, when the line has both
    /// (hclwrite's "comment cell": a comment last, after at least one other token).
    fn comment(&self) -> Option<(usize, Token)> {
        let (last, before) = self.tokens.split_last()?;
        let is_comment = matches!(last.kind, Kind::LineComment { .. } | Kind::BlockComment);
        let code_end = before.last()?.end;
        is_comment.then_some((code_end, *last))
    }
}

/// The replacements of the spaces before trailing comments that keep aligned runs aligned
/// after `edits`.
fn realign(text: &str, edits: &[(Range<usize>, String)]) -> Vec<(Range<usize>, String)> {
    let lines = lines(text);
    let mut out = Vec::new();
    let mut run: Vec<&Line> = Vec::new();
    for line in lines.iter().map(Some).chain(std::iter::once(None)) {
        match line {
            Some(line) if line.comment().is_some() => run.push(line),
            _ => {
                out.extend(realign_run(text, &run, edits));
                run.clear();
            }
        }
    }
    out
}

/// One run of lines with trailing comments: when it holds an edit that changes a width,
/// and its comments sit one column after its longest line (as `fmt` puts them), the
/// spaces that put them there after the edit.
fn realign_run(
    text: &str,
    run: &[&Line],
    edits: &[(Range<usize>, String)],
) -> Vec<(Range<usize>, String)> {
    struct Cell {
        gap: Range<usize>,
        before: usize,
        after: usize,
        comment_column: usize,
    }
    let mut cells = Vec::new();
    let mut changed = false;
    for line in run {
        let Some((code_end, comment)) = line.comment() else {
            return Vec::new();
        };
        let code = &text[line.start..code_end];
        let gap = &text[code_end..comment.start];
        // Layout that `fmt` would change anyway (tabs, code over several lines) is not
        // a run `fmt` left aligned: leave it as written.
        if code.contains(['\t', '\n', '\r']) || gap.contains(|c| c != ' ') {
            return Vec::new();
        }
        let before = code.chars().count();
        let mut after = before;
        for (span, with) in edits {
            if span.start >= line.start && span.end <= code_end {
                let old = text[span.clone()].chars().count();
                after = after - old + with.chars().count();
                changed |= with.chars().count() != old;
            }
        }
        cells.push(Cell {
            gap: code_end..comment.start,
            before,
            after,
            comment_column: before + gap.len(),
        });
    }
    if !changed {
        return Vec::new();
    }
    let widest = |width: fn(&Cell) -> usize| cells.iter().map(width).max().unwrap_or(0);
    let old_column = widest(|c| c.before) + 1;
    if cells.iter().any(|c| c.comment_column != old_column) {
        return Vec::new();
    }
    let new_widest = widest(|c| c.after);
    cells
        .iter()
        .filter_map(|c| {
            let spaces = new_widest - c.after + 1;
            (spaces != c.gap.len()).then(|| (c.gap.clone(), " ".repeat(spaces)))
        })
        .collect()
}

/// The text cut into hclwrite's lines: at every line end outside strings, heredocs and
/// block comments (a `#` or `//` comment ends its line with the line end it holds).
fn lines(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut current = Line {
        start: 0,
        tokens: Vec::new(),
    };
    for token in tokens(text) {
        current.tokens.push(token);
        let ends = matches!(
            token.kind,
            Kind::Newline | Kind::LineComment { ends_line: true }
        );
        if ends {
            let next = Line {
                start: token.end,
                tokens: Vec::new(),
            };
            lines.push(std::mem::replace(&mut current, next));
        }
    }
    if !current.tokens.is_empty() {
        lines.push(current);
    }
    lines
}

/// Tokenizes well-formed HCL native syntax (the file parsed before it gets here); on
/// anything unexpected it still returns tokens, never panics.
fn tokens(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let kind = match bytes[i] {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'\n' => {
                i += 1;
                Kind::Newline
            }
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                i += 2;
                Kind::Newline
            }
            b'#' => line_comment(bytes, &mut i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => line_comment(bytes, &mut i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = find(bytes, i + 2, b"*/").map_or(bytes.len(), |end| end + 2);
                Kind::BlockComment
            }
            b'"' => {
                i = quoted(bytes, i);
                Kind::Code
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') => {
                i = heredoc(text, i).unwrap_or(i + 2);
                Kind::Code
            }
            _ => {
                i += utf8_len(bytes[i]);
                Kind::Code
            }
        };
        out.push(Token {
            kind,
            start,
            end: i.min(bytes.len()),
        });
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// A `#` or `//` comment from `*i`, through its line end (`\n`, or `\r\n`) if any.
fn line_comment(bytes: &[u8], i: &mut usize) -> Kind {
    match find(bytes, *i, b"\n") {
        Some(newline) => {
            *i = newline + 1;
            Kind::LineComment { ends_line: true }
        }
        None => {
            *i = bytes.len();
            Kind::LineComment { ends_line: false }
        }
    }
}

/// The end of the quoted string opening at `start`: escapes skipped, `${…}` and `%{…}`
/// followed to their closing brace (they may hold strings of their own), `$${` and
/// `%%{` taken as the escapes they are. A string cut by a line end ends there.
fn quoted(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' => return i,
            b'$' | b'%'
                if bytes.get(i + 1) == Some(&bytes[i]) && bytes.get(i + 2) == Some(&b'{') =>
            {
                i += 3
            }
            b'$' | b'%' if bytes.get(i + 1) == Some(&b'{') => i = template(bytes, i + 2),
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of a template sequence's expression (just after its `}`), from inside it.
fn template(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = quoted(bytes, i),
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' if depth == 0 => return i + 1,
            b'}' => {
                depth -= 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of the heredoc opening at `start` (`<<EOT` or `<<-EOT` and a line end), just
/// after its closing delimiter: the first later line holding the delimiter alone, blanks
/// around it allowed. `None` when `<<` does not open a heredoc.
fn heredoc(text: &str, start: usize) -> Option<usize> {
    let rest = &text[start + 2..];
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let name_len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    let after_name = &rest[name_len..];
    let first_line_end = after_name
        .strip_prefix("\r\n")
        .or_else(|| after_name.strip_prefix('\n'))?;
    if name.is_empty() {
        return None;
    }
    let mut offset = text.len() - first_line_end.len();
    for line in first_line_end.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if body.trim_matches([' ', '\t']) == name {
            return Some(offset + body.len());
        }
        offset += line.len();
    }
    Some(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replaces the first occurrence of `old` in `text` with `new`, through [`replace`].
    fn edit(text: &str, old: &str, new: &str) -> String {
        let at = text.find(old).expect("old text present");
        replace(text, &[(at..at + old.len(), new.to_string())])
    }

    #[test]
    fn aligned_runs_follow_the_new_width() {
        let text = "\
terraform {
  required_providers {
    aws = {
      source  = \"hashicorp/aws\" # official
      version = \"~> 5.0\"        # bump with the modules
    }
  }
}
";
        let longer = edit(text, "\"~> 5.0\"", "\">= 5.0, < 7.0, != 6.1.0\"");
        assert_eq!(
            longer,
            text.replace(
                "\"hashicorp/aws\" # official",
                "\"hashicorp/aws\"           # official"
            )
            .replace(
                "\"~> 5.0\"        # bump",
                "\">= 5.0, < 7.0, != 6.1.0\" # bump"
            )
        );
        let shorter = edit(text, "\"~> 5.0\"", "\"6.0\"");
        assert_eq!(
            shorter,
            text.replace("\"~> 5.0\"        # bump", "\"6.0\"           # bump")
        );
        // Same width: nothing else moves.
        assert_eq!(
            edit(text, "\"~> 5.0\"", "\"~> 6.0\""),
            text.replace("~> 5.0", "~> 6.0")
        );
    }

    /// Alignment counts characters, as hclwrite does: a value holding non-ASCII text
    /// takes as many columns as it has characters.
    #[test]
    fn widths_are_characters() {
        let text = "a = \"日本\" # x\nbb = 1   # y\n";
        assert_eq!(
            edit(text, "\"日本\"", "\"6.0.0\""),
            "a = \"6.0.0\" # x\nbb = 1      # y\n"
        );
    }

    /// Runs end at a line without a trailing comment; a comment alone on its line is no
    /// part of a run; `}` with a comment is.
    #[test]
    fn runs_are_consecutive_lines_with_trailing_comments() {
        let text =
            "x {\n  a = \"1\" # a\n\n  b = 22 # b\n  # alone\n  c = 333 # c\n}         # end\n";
        let got = edit(text, "\"1\"", "\"1.0.0\"");
        assert_eq!(got, text.replace("\"1\"", "\"1.0.0\""));
        let got = edit(text, "333", "3");
        assert_eq!(
            got,
            "x {\n  a = \"1\" # a\n\n  b = 22 # b\n  # alone\n  c = 3 # c\n}       # end\n"
        );
    }

    /// A run that `fmt` did not align (an unformatted file) keeps its spacing; only the
    /// value changes.
    #[test]
    fn unaligned_runs_are_left_alone() {
        let text = "a = \"1\"  # a\nbb = 2 # b\n";
        assert_eq!(
            edit(text, "\"1\"", "\"1.0.0\""),
            "a = \"1.0.0\"  # a\nbb = 2 # b\n"
        );
        let tabs = "a\t= \"1\" # a\nbb = 2  # b\n";
        assert_eq!(
            edit(tabs, "\"1\"", "\"10\""),
            "a\t= \"10\" # a\nbb = 2  # b\n"
        );
    }

    /// What looks like a comment or a line end inside strings, templates, heredocs and
    /// block comments is not one.
    #[test]
    fn strings_heredocs_and_block_comments_are_single_tokens() {
        let text =
            "a = \"x # y ${\"}\"} // z\" # c\nb = <<EOT\n  q # r\nEOT\nc = /* k\n # */ 1 # d\n";
        let lines = lines(text);
        let comments: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.comment().map(|(_, t)| &text[t.start..t.end]))
            .collect();
        assert_eq!(comments, ["# c\n", "# d\n"]);
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn crlf_and_missing_final_newline() {
        let text = "a = \"1\" # a\r\nbb = 2  # b";
        assert_eq!(
            edit(text, "\"1\"", "\"1.0\""),
            "a = \"1.0\" # a\r\nbb = 2    # b"
        );
    }
}
