//! A deliberately small, independent `h1:` (golang.org/x/mod/sumdb/dirhash `Hash1`) for
//! test expectations, so tests check tfsum and Terraform against a third implementation
//! instead of against tfsum's own code (spec §2.1).

use base64::Engine as _;
use sha2::{Digest, Sha256};

/// `h1:` of a package whose unpacked directory holds exactly `files` (name, content).
pub fn h1<N: AsRef<str>, C: AsRef<[u8]>>(files: &[(N, C)]) -> String {
    let mut lines: Vec<String> = files
        .iter()
        .map(|(name, content)| {
            format!(
                "{}  {}\n",
                hex::encode(Sha256::digest(content.as_ref())),
                name.as_ref()
            )
        })
        .collect();
    // Sorting whole lines would order by hash; dirhash orders by name.
    lines.sort_by(|a, b| a[66..].cmp(&b[66..]));
    let summary = Sha256::digest(lines.concat().as_bytes());
    format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(summary)
    )
}
