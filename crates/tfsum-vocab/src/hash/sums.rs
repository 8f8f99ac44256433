//! The SHA256SUMS document a registry publishes next to a provider's zips (spec §5.4).
//!
//! Two readings of it matter:
//!
//! * the checksum of one package, looked up by file name, which must equal the
//!   registry's `shasum` and the downloaded zip's SHA-256;
//! * once the document's signature checks out, the `zh:` hash of **every** line,
//!   `_manifest.json` included, which Terraform records as acceptable (spec §5.4, §11 item 5).

use super::Hash;

/// A parsed SHA256SUMS document: its lines, each split into whitespace-separated fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaSums {
    lines: Vec<Vec<Vec<u8>>>,
}

impl ShaSums {
    /// Splits the document on `\n`. Parsing never fails: how strictly a line is judged
    /// depends on the question asked ([`ShaSums::files`] vs [`ShaSums::acceptable_hashes`]).
    ///
    /// A final `\n` does not start another (empty) line, as with Go's `bufio.Scanner`.
    pub fn parse(document: &[u8]) -> ShaSums {
        let body = document.strip_suffix(b"\n").unwrap_or(document);
        let lines = if document.is_empty() {
            Vec::new()
        } else {
            body.split(|&b| b == b'\n').map(fields).collect()
        };
        ShaSums { lines }
    }

    /// Every file the document names with its checksum, in file order, first line per
    /// name only (later lines for the same name are never consulted, spec §5.4 step 1).
    /// The checksum is `None` when that first line does not carry 64 hex digits.
    pub fn files(&self) -> Vec<(String, Option<[u8; 32]>)> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for line in self.lines.iter().filter(|f| f.len() > 1) {
            let name = String::from_utf8_lossy(&line[1]).into_owned();
            if seen.insert(name.clone()) {
                out.push((name, decode_sha256(&line[0])));
            }
        }
        out
    }

    /// One `zh:` per line, in file order, lowercase: what a verified signature makes
    /// acceptable (`signatureAuthentication.AcceptableHashes`, spec §5.4).
    ///
    /// `None` when any line has fewer than two fields or a first field that is not 64 hex
    /// digits (the document does not look like a checksum list), or when there are no
    /// lines at all. The caller then falls back to the single `zh:` of the package's own
    /// `shasum`.
    ///
    /// Blank (whitespace-only) lines are skipped. Terraform's own loop indexes the first
    /// field of such a line and crashes, so there is no behaviour to match; skipping
    /// keeps the other lines usable.
    pub fn acceptable_hashes(&self) -> Option<Vec<Hash>> {
        let mut out = Vec::with_capacity(self.lines.len());
        for line in &self.lines {
            match line.len() {
                0 => continue,
                1 => return None,
                _ => out.push(Hash::zh_from_digest(&decode_sha256(&line[0])?)),
            }
        }
        // Go returns its nil slice here, which also selects the fallback.
        (!out.is_empty()).then_some(out)
    }
}

/// Go's `bytes.Fields` for the whitespace a SHA256SUMS file can contain (ASCII space,
/// tab, CR, LF, VT, FF).
fn fields(line: &[u8]) -> Vec<Vec<u8>> {
    line.split(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
        .filter(|f| !f.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// Exactly 64 hex digits, either case.
fn decode_sha256(field: &[u8]) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(field, &mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn testdata(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .expect("the repository")
            .join("testdata/hash/signatures")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn strs(hashes: Option<Vec<Hash>>) -> Option<Vec<String>> {
        hashes.map(|v| v.into_iter().map(|h| h.to_string()).collect())
    }

    /// B1: the realistic document (no trailing newline) gives its 12 hashes in file order.
    #[test]
    fn realistic_document_b1() {
        let sums = ShaSums::parse(&testdata("testShaSumsRealistic_SHA256SUMS"));
        let got = strs(sums.acceptable_hashes()).unwrap();
        let prefixes = [
            "7d7e888f", "f8b6cf9a", "a5ba9945", "df3a5a8d", "086119a2", "1e5f7a5f", "0e9fd0f3",
            "66a947e7", "def1b738", "48f1826e", "17e0b496", "2696c862",
        ];
        assert_eq!(got.len(), prefixes.len());
        for (h, p) in got.iter().zip(prefixes) {
            assert!(h.starts_with(&format!("zh:{p}")), "{h} vs {p}");
            assert_eq!(h.len(), 67);
        }
        assert_eq!(
            checksum(&sums, "terraform_0.14.0-alpha20200923_darwin_amd64.zip").as_deref(),
            Some("7d7e888fdd28abfe00894f9055209b9eec785153641de98e6852aa071008d4ee")
        );
    }

    /// B2 and the edge cases, one row each: document → acceptable hashes.
    #[test]
    fn acceptable_hashes_table() {
        let f00d = "000000000000000000000000000000000000000000000000000000000000f00d";
        let face = "000000000000000000000000000000000000000000000000000000000000face";
        let upper = "ABCDEF0000000000000000000000000000000000000000000000000000000000";
        let b2 = format!("{f00d} happycloud_1.2.0.zip\n{face} happycloud_1.2.0_face.zip\n");
        let cases: Vec<(String, Option<Vec<String>>)> = vec![
            // B2: single space, trailing newline; every line, not just one platform.
            (
                b2.clone(),
                Some(vec![format!("zh:{f00d}"), format!("zh:{face}")]),
            ),
            // Uppercase hex is re-encoded lowercase (spec §2.2).
            (
                format!("{upper}  a.zip"),
                Some(vec![format!("zh:{}", upper.to_lowercase())]),
            ),
            // CRLF line ends and tabs are whitespace.
            (
                format!("{f00d}\ta.zip\r\n{face}  b.zip\r\n"),
                Some(vec![format!("zh:{f00d}"), format!("zh:{face}")]),
            ),
            // Blank lines are skipped (Terraform would crash on them).
            (
                format!("{f00d}  a.zip\n\n  \n{face}  b.zip\n"),
                Some(vec![format!("zh:{f00d}"), format!("zh:{face}")]),
            ),
            (String::new(), None),
            ("\n".to_string(), None),
            // Any line that is not `<64 hex> <name>` disqualifies the whole document.
            (format!("{f00d}  a.zip\n{face}\n"), None),
            (format!("{f00d}  a.zip\nabc  b.zip\n"), None),
            (format!("{f00d}0  a.zip\n"), None),
            (format!("{}g  a.zip\n", &f00d[..63]), None),
            ("not a checksum file".to_string(), None),
        ];
        for (doc, want) in cases {
            let got = strs(ShaSums::parse(doc.as_bytes()).acceptable_hashes());
            assert_eq!(got, want, "document {doc:?}");
        }
    }

    /// Looking up one file: first match wins, exact and case-sensitive second field.
    /// The checksum `files` gives for `name`, hex-encoded.
    fn checksum(sums: &ShaSums, name: &str) -> Option<String> {
        let (_, sha) = sums.files().into_iter().find(|(n, _)| n == name)?;
        sha.map(hex::encode)
    }

    #[test]
    fn entry_table() {
        let a = "aa".repeat(32);
        let b = "bb".repeat(32);
        let doc = format!(
            "{a}  p_linux_amd64.zip\n{b}  p_linux_amd64.zip\n{b} *p_darwin_arm64.zip\nzz  bad.zip\n"
        );
        let sums = ShaSums::parse(doc.as_bytes());
        // The first line for a name counts, names match exactly, a `*` (binary mode) is
        // part of the name, and a malformed checksum is no checksum.
        let cases: Vec<(&str, Option<String>)> = vec![
            ("p_linux_amd64.zip", Some(a.clone())),
            ("P_LINUX_AMD64.zip", None),
            ("p_darwin_arm64.zip", None),
            ("*p_darwin_arm64.zip", Some(b.clone())),
            ("bad.zip", None),
        ];
        for (name, want) in cases {
            assert_eq!(checksum(&sums, name), want, "{name}");
        }
        let names: Vec<String> = sums.files().into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            ["p_linux_amd64.zip", "*p_darwin_arm64.zip", "bad.zip"]
        );
    }
}
