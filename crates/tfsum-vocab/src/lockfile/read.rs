//! Reading a lock file's bytes as a person may have left them: checked for UTF-8 and for
//! leftover git conflict markers before the parser sees them, so the error names the real
//! cause. `lock`, `fmt`, `verify` and the merge driver all read lock files through [`read`].

use super::parse::parse_noting_form;
use super::{Flavor, LockFile, LockFileError};
use crate::text::LineIndex;

/// Why the bytes of a lock file are not a lock file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("not valid UTF-8 at line {line}")]
    NotUtf8 { line: usize },
    /// Detected before parsing: HCL would only report a syntax error, which hides the
    /// real cause.
    #[error("unresolved merge conflict at line {line}")]
    MergeConflict { line: usize },
    #[error("{0}")]
    Invalid(#[source] LockFileError),
}

/// The checks a file must pass before it may be read or rewritten, then the lock-file
/// parser.
pub fn read(bytes: &[u8]) -> Result<LockFile, ReadError> {
    read_as(bytes, None)
}

/// [`read`] for a root whose flavor is known: `flavor` decides the default registry of
/// short labels (`None`: the file's header decides).
fn read_as(bytes: &[u8], flavor: Option<Flavor>) -> Result<LockFile, ReadError> {
    read_noting_form(bytes, flavor).map(|(lock, _)| lock)
}

/// [`read_as`], and whether `bytes` are exactly the lock file's rendering: a root whose
/// new lock file equals such a file is unchanged without rendering it again.
pub fn read_noting_form(
    bytes: &[u8],
    flavor: Option<Flavor>,
) -> Result<(LockFile, bool), ReadError> {
    let src = std::str::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        line: LineIndex::new(bytes).line(e.valid_up_to()),
    })?;
    if let Some(line) = conflict_marker_line(src) {
        return Err(ReadError::MergeConflict { line });
    }
    // Labels must be fully qualified, so the default host only shapes error messages; it
    // should still be the right one, or a short `hashicorp/aws` label in an OpenTofu file
    // would be "corrected" to registry.terraform.io.
    let flavor = flavor.unwrap_or_else(|| Flavor::from_header(src));
    parse_noting_form(src, flavor.default_registry()).map_err(ReadError::Invalid)
}

/// The 1-based line of the first git conflict marker: `<<<<<<<`, `|||||||` (diff3
/// style), `=======` or `>>>>>>>` at the start of a line, alone or followed by a space
/// and a label, as git writes them. None of these can start a line of a valid lock file.
fn conflict_marker_line(src: &str) -> Option<usize> {
    const MARKERS: [&str; 4] = ["<<<<<<<", "|||||||", "=======", ">>>>>>>"];
    src.lines()
        .position(|line| {
            let line = line.trim_end_matches('\r');
            MARKERS.iter().any(|marker| {
                line.strip_prefix(marker)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            })
        })
        .map(|index| index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflict_markers_are_found_only_at_line_starts() {
        let cases: &[(&str, Option<usize>)] = &[
            ("a\n<<<<<<< HEAD\nb\n", Some(2)),
            ("a\nb\n=======\n", Some(3)),
            ("=======\r\n", Some(1)),
            ("x\n>>>>>>> feature/x\n", Some(2)),
            ("x\n||||||| merged common ancestors\n", Some(2)),
            ("# see <<<<<<< in docs\n", None),
            ("========\n", None),
            ("<<<<<<<<\n", None),
            ("provider \"a\" {\n}\n", None),
        ];
        for (src, line) in cases {
            assert_eq!(conflict_marker_line(src), *line, "{src:?}");
        }
    }
}
