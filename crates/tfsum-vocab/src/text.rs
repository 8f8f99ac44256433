//! Positions in a file's text: the one byte offset → line number index that the lock-file
//! reader, the configuration readers and the JSON reader's callers share.

use std::ops::Range;

/// Byte offset → 1-based line number, for spans from hcl-edit and the JSON reader, and
/// for offsets into bytes that are not (yet) known to be UTF-8.
pub struct LineIndex {
    /// The byte offset at which each line starts; the first is 0.
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: impl AsRef<[u8]>) -> LineIndex {
        let text = text.as_ref();
        let mut starts = vec![0];
        starts.extend(
            text.iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// The line holding byte `offset`; an offset past the end is on the last line.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset).max(1)
    }

    /// The line holding the start of `span`; line 1 when the parser gave no span.
    pub fn line_of(&self, span: Option<Range<usize>>) -> usize {
        span.map_or(1, |s| self.line(s.start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_the_line_holding_them() {
        let index = LineIndex::new("ab\ncd\n\ne");
        let cases: &[(usize, usize)] = &[
            (0, 1),
            (2, 1), // the newline ends its own line
            (3, 2),
            (5, 2),
            (6, 3),
            (7, 4),
            (8, 4),
            (100, 4),
        ];
        for &(offset, line) in cases {
            assert_eq!(index.line(offset), line, "offset {offset}");
        }
        assert_eq!(index.line_of(None), 1);
        assert_eq!(index.line_of(Some(3..5)), 2);
    }

    #[test]
    fn bytes_that_are_not_utf8_are_indexed_too() {
        let index = LineIndex::new(b"a\n\xff\n");
        assert_eq!(index.line(2), 2);
        assert_eq!(index.line(4), 3);
    }
}
