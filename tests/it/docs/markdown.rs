//! The manual as the docs tests read it: its files, their fenced blocks (with the hidden
//! `<!-- example: … -->` comment before one), headings with the anchors GitHub gives them,
//! and relative links.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use regex::Regex;

use crate::support::terraform::repo_root;

/// One markdown file, by its path relative to the repository root.
pub struct Doc {
    pub path: PathBuf,
    pub text: String,
}

impl Doc {
    pub fn read(relative: &str) -> Doc {
        let path = PathBuf::from(relative);
        let text = std::fs::read_to_string(repo_root().join(&path))
            .unwrap_or_else(|e| panic!("{relative}: {e}"));
        Doc { path, text }
    }

    pub fn name(&self) -> String {
        self.path.to_string_lossy().replace('\\', "/")
    }

    /// The fenced blocks, in order.
    pub fn blocks(&self) -> Vec<Block> {
        blocks(&self.text)
    }

    /// The text of the section under the first heading that `matches`, down to the next
    /// heading of the same or a higher level.
    pub fn section(&self, matches: impl Fn(&str) -> bool) -> Option<String> {
        let lines: Vec<&str> = self.text.lines().collect();
        let headings = headings(&self.text);
        let (i, (level, _, start)) = headings
            .iter()
            .enumerate()
            .find(|(_, (_, text, _))| matches(text))?;
        let end = headings[i + 1..]
            .iter()
            .find(|(l, _, _)| l <= level)
            .map_or(lines.len(), |(_, _, line)| *line);
        Some(lines[*start..end].join("\n"))
    }
}

/// README.md, CONTRIBUTING.md and every page under docs/: what the link test reads.
pub fn all_docs() -> Vec<Doc> {
    let mut docs = vec![Doc::read("README.md"), Doc::read("CONTRIBUTING.md")];
    docs.extend(manual());
    docs
}

/// README.md and every page under docs/ (the pages users read; examples live there).
pub fn user_docs() -> Vec<Doc> {
    let mut docs = vec![Doc::read("README.md")];
    docs.extend(manual());
    docs
}

/// Every markdown page under docs/, sorted.
pub fn manual() -> Vec<Doc> {
    let root = repo_root();
    let mut paths: Vec<String> = walkdir::WalkDir::new(root.join("docs"))
        .into_iter()
        .map(|e| e.expect("walk docs/"))
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| {
            e.path()
                .strip_prefix(&root)
                .expect("below the root")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    paths.sort();
    paths.iter().map(|p| Doc::read(p)).collect()
}

/// A fenced code block.
#[derive(Debug, Clone)]
pub struct Block {
    /// The info string: `console`, `json`, `toml`, …
    pub info: String,
    /// 0-based index of the opening fence's line.
    pub fence_line: usize,
    /// The lines between the fences.
    pub lines: Vec<String>,
    /// The `<!-- example: … -->` comment on the last non-blank line before the fence,
    /// without its markers.
    pub example: Option<String>,
}

impl Block {
    pub fn body(&self) -> String {
        let mut body = self.lines.join("\n");
        body.push('\n');
        body
    }

    /// The value of `key=value` in the example comment.
    pub fn attr(&self, key: &str) -> Option<String> {
        self.example.as_deref()?.split_whitespace().find_map(|w| {
            w.strip_prefix(key)
                .and_then(|rest| rest.strip_prefix('='))
                .map(str::to_string)
        })
    }
}

fn fence(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let marker = if trimmed.starts_with("```") {
        "```"
    } else if trimmed.starts_with("~~~") {
        "~~~"
    } else {
        return None;
    };
    let run = trimmed.len()
        - trimmed
            .trim_start_matches(marker.as_bytes()[0] as char)
            .len();
    Some((&trimmed[..run], trimmed[run..].trim()))
}

pub fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((marker, info)) = fence(lines[i]) else {
            i += 1;
            continue;
        };
        let example = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| l.trim().strip_prefix("<!-- example:"))
            .and_then(|l| l.strip_suffix("-->"))
            .map(|l| l.trim().to_string());
        let start = i;
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() {
            if let Some((closing, rest)) = fence(lines[i]) {
                if closing.starts_with(marker) && rest.is_empty() {
                    break;
                }
            }
            body.push(lines[i].to_string());
            i += 1;
        }
        out.push(Block {
            info: info.to_string(),
            fence_line: start,
            lines: body,
            example,
        });
        i += 1;
    }
    out
}

/// Each line of `text`, with `true` for those inside a fenced block (fences included).
fn fenced_lines(text: &str) -> Vec<(&str, bool)> {
    let mut inside: Option<String> = None;
    text.lines()
        .map(|line| match (&inside, fence(line)) {
            (None, Some((marker, _))) => {
                inside = Some(marker.to_string());
                (line, true)
            }
            (Some(open), Some((closing, rest)))
                if closing.starts_with(open.as_str()) && rest.is_empty() =>
            {
                inside = None;
                (line, true)
            }
            (Some(_), _) => (line, true),
            (None, None) => (line, false),
        })
        .collect()
}

/// `(level, text, 0-based line)` of each ATX heading outside fenced blocks.
pub fn headings(text: &str) -> Vec<(usize, String, usize)> {
    fenced_lines(text)
        .into_iter()
        .enumerate()
        .filter(|(_, (_, fenced))| !fenced)
        .filter_map(|(n, (line, _))| {
            let hashes = line.len() - line.trim_start_matches('#').len();
            let rest = &line[hashes..];
            ((1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with(' '))).then(|| {
                (
                    hashes,
                    rest.trim().trim_end_matches('#').trim().to_string(),
                    n,
                )
            })
        })
        .collect()
}

/// The anchor GitHub gives a heading: its text as rendered (link targets, backticks and
/// emphasis stars dropped), lower case, every character but letters, digits, `-`, `_`
/// and spaces removed, spaces made `-`.
pub fn slug(heading: &str) -> String {
    let links = Regex::new(r"!?\[([^\]]*)\]\([^)]*\)").expect("regex");
    let text = links.replace_all(heading, "$1");
    text.chars()
        .filter(|c| !matches!(c, '`' | '*'))
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a page: heading slugs (a repeated one numbered `-1`, `-2`, … as
/// GitHub does) and explicit `id`/`name` attributes of HTML elements.
pub fn anchors(text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (_, heading, _) in headings(text) {
        let base = slug(&heading);
        let n = seen.entry(base.clone()).or_insert(0);
        out.push(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    let html = Regex::new(r#"<[a-zA-Z][^>]*\s(?:id|name)="([^"]+)""#).expect("regex");
    out.extend(html.captures_iter(text).map(|c| c[1].to_string()));
    out
}

/// The text outside fenced blocks with inline code spans blanked (a span may run over
/// lines), so that what remains holds only real links.
pub fn prose(text: &str) -> String {
    let kept: Vec<&str> = fenced_lines(text)
        .into_iter()
        .map(|(line, fenced)| if fenced { "" } else { line })
        .collect();
    let mut chars: Vec<char> = kept.join("\n").chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let other = chars[j..].iter().take_while(|c| **c == '`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                for c in &mut chars[i..j + run] {
                    if *c != '\n' {
                        *c = ' ';
                    }
                }
                i = j + run;
            }
            None => i += run,
        }
    }
    chars.into_iter().collect()
}

/// The targets of the inline links and link reference definitions of `text`, with the
/// 1-based line each is on.
pub fn links(text: &str) -> Vec<(usize, String)> {
    let inline = Regex::new(r#"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#).expect("regex");
    let reference = Regex::new(r"(?m)^ {0,3}\[[^\]]+\]:\s*(\S+)").expect("regex");
    let prose = prose(text);
    let line_of = |offset: usize| prose[..offset].matches('\n').count() + 1;
    let mut out: Vec<(usize, String)> = inline
        .captures_iter(&prose)
        .chain(reference.captures_iter(&prose))
        .map(|c| {
            let m = c.get(1).expect("group");
            (line_of(m.start()), m.as_str().to_string())
        })
        .collect();
    out.sort();
    out
}

/// `base` joined with `relative` and normalised lexically; `None` when it climbs above
/// the repository root.
pub fn join(base: &Path, relative: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in base.join(relative).components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            Component::Normal(p) => out.push(p),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}
