//! The error type shared by the `h1:` / `zh:` hashers and the SHA256SUMS reader.
//!
//! Every variant names what an operator can act on: the path or zip entry, and what was
//! expected against what was found. Signature failures have their own type,
//! [`super::signature::SignatureError`], because callers treat them differently (spec §5.4).

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// A file or directory of an unpacked package could not be read.
    #[error("reading {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// The zip byte stream itself failed (network, disk).
    #[error("reading zip: {0}")]
    Read(#[source] io::Error),

    #[error("{}: not a directory", .0.display())]
    NotADirectory(PathBuf),

    /// dirhash refuses these because a name is one line of the summary (spec §2.1 step 3).
    #[error("dirhash: filenames with newlines are not supported: {0:?}")]
    NewlineInName(String),

    #[error("not a zip file: {0}")]
    NotAZip(String),

    #[error("zip is truncated: end of data while reading {0}")]
    Truncated(String),

    /// The bytes are not a well-formed zip at some point; the message says where.
    #[error("malformed zip: {0}")]
    Malformed(String),

    /// A well-formed entry this streaming reader cannot hash (spec §2.1).
    #[error("zip entry {entry:?}: {reason}")]
    Unsupported { entry: String, reason: String },

    #[error("zip entry {entry:?}: CRC-32 mismatch: the zip records {expected:08x}, the content has {found:08x}")]
    CrcMismatch {
        entry: String,
        expected: u32,
        found: u32,
    },

    #[error("zip entry {entry:?}: {what} mismatch: the zip records {expected}, found {found}")]
    SizeMismatch {
        entry: String,
        what: &'static str,
        expected: u64,
        found: u64,
    },

    /// Terraform's unpacker refuses (or would place elsewhere) this name (spec §2.1).
    #[error("zip entry {entry:?}: unsafe name: {reason}")]
    UnsafeName { entry: String, reason: &'static str },

    /// Terraform's unpacker rejects archives with nothing to unpack (spec §2.1).
    #[error("zip archive contains no files")]
    EmptyArchive,

    #[error("zip exceeds the limit of {limit} {what}")]
    LimitExceeded { what: &'static str, limit: u64 },

    /// The central directory, which Terraform unpacks from, disagrees with the local
    /// headers this reader streamed.
    #[error("zip central directory disagrees with the local file headers: {0}")]
    DirectoryMismatch(String),

    #[error("SHA256SUMS has no line for {filename:?}")]
    NoSumsEntry { filename: String },

    #[error("SHA256SUMS line for {filename:?} has {found:?} where 64 hex digits were expected")]
    InvalidSumsEntry { filename: String, found: String },
}
