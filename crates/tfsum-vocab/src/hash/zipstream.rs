//! Hashing a provider zip in one forward pass, while it downloads (spec §2.1, §2.2).
//!
//! From a byte stream (`std::io::Read`, never seeked or re-read) this computes, in
//! constant memory:
//!
//! * the SHA-256 of every byte, which is the registry's `shasum` and the `zh:` hash;
//! * the `h1:` hash of the files the zip **unpacks to**, which is what `terraform init`
//!   and `terraform providers lock` record (spec §2.1 "Recommendation").
//!
//! How: local file headers are read in order; each entry's data is inflated (or copied)
//! straight into a SHA-256 and a CRC-32, so only `(name, digest, sizes, offset)` is kept
//! per entry. Deflate streams end by themselves, so entries whose sizes only follow in a
//! data descriptor (Go's `archive/zip` writer, which builds real provider zips, always
//! writes those) stream fine. When the local headers end, the rest of the input (central
//! directory, end record, anything after it) is read into a bounded buffer and checked
//! against what was streamed: Terraform unpacks by the central directory, so a zip whose
//! directory says something else would unpack to different files, and is refused.
//!
//! Unpacking is emulated the way go-getter's `ZipDecompressor` does it: directory entries
//! are skipped, names are cleaned like `filepath.Join` (`./a` and `a//b` become `a` and
//! `a/b`), names with `..` components are refused, a later entry of the same name
//! replaces an earlier one, symlink entries become files holding the link text, and an
//! archive with no files is an error.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use flate2::{Decompress, FlushDecompress, Status};
use sha2::{Digest, Sha256};

use super::dirhash::Summary;
use super::{Hash, HashError};

const LOCAL_SIG: u32 = 0x0403_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const DESCRIPTOR_SIG: u32 = 0x0807_4b50;
const END_SIG: u32 = 0x0605_4b50;
const ZIP64_END_SIG: u32 = 0x0606_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const ZIP64_EXTRA_ID: u16 = 0x0001;

const FLAG_ENCRYPTED: u16 = 0x0001;
const FLAG_DESCRIPTOR: u16 = 0x0008;
const FLAG_STRONG_ENCRYPTION: u16 = 0x0040;

const METHOD_STORED: u16 = 0;
const METHOD_DEFLATE: u16 = 8;

const BUF_SIZE: usize = 64 * 1024;

/// Bounds that keep a hostile or broken zip from exhausting memory or time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipLimits {
    /// Total unpacked size of all entries (zip-bomb guard).
    pub max_uncompressed_bytes: u64,
    /// Number of entries, directories included.
    pub max_entries: usize,
    /// Bytes after the last entry's data (central directory, end record, comment,
    /// trailing data), which are buffered to be cross-checked; also bounds the total
    /// length of entry names kept in memory.
    pub max_directory_bytes: u64,
}

impl Default for ZipLimits {
    /// Generous for real providers, whose zips hold one to a few files of at most a few
    /// hundred MiB.
    fn default() -> ZipLimits {
        ZipLimits {
            max_uncompressed_bytes: 4 << 30,
            max_entries: 10_000,
            max_directory_bytes: 16 << 20,
        }
    }
}

/// What one pass over a zip yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipHashes {
    /// SHA-256 of every input byte.
    pub sha256: [u8; 32],
    /// `h1:` of the unpacked files.
    pub h1: Hash,
    /// Number of input bytes.
    pub bytes: u64,
}

impl ZipHashes {
    /// The `zh:` hash of the zip (spec §2.2).
    pub fn zh(&self) -> Hash {
        Hash::zh_from_digest(&self.sha256)
    }
}

/// Hashes a zip file on disk; see [`hash_zip_stream`].
pub fn hash_zip_file(path: &Path, limits: &ZipLimits) -> Result<ZipHashes, HashError> {
    let file = File::open(path).map_err(|source| HashError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    hash_zip_stream(file, limits)
}

/// Hashes a zip arriving as a byte stream, reading it once, front to back, to its end.
///
/// Fails if the bytes are not a zip this module can stream (see the module docs), if
/// any entry's CRC-32 or size is wrong, if the central directory disagrees with the
/// local headers, if unpacking would be refused by Terraform, or if `limits` are hit.
pub fn hash_zip_stream<R: Read>(reader: R, limits: &ZipLimits) -> Result<ZipHashes, HashError> {
    let mut src = Source::new(reader);
    let mut scratch = vec![0u8; BUF_SIZE];
    let mut locals: Vec<LocalEntry> = Vec::new();
    let mut unpacked_total = 0u64;
    let mut name_total = 0u64;

    loop {
        let offset = src.pos();
        let Some(sig) = src.peek_u32()? else {
            return Err(if src.pulled == 0 {
                HashError::NotAZip("the input is empty".to_string())
            } else if locals.is_empty() {
                HashError::NotAZip("the input is too short to be a zip".to_string())
            } else {
                HashError::Truncated("the central directory".to_string())
            });
        };
        match sig {
            LOCAL_SIG => {
                if locals.len() >= limits.max_entries {
                    return Err(HashError::LimitExceeded {
                        what: "entries",
                        limit: limits.max_entries as u64,
                    });
                }
                let entry = read_local_entry(&mut src, &mut scratch, limits, &mut unpacked_total)?;
                name_total += entry.name.len() as u64;
                if name_total > limits.max_directory_bytes {
                    return Err(HashError::LimitExceeded {
                        what: "bytes of entry names",
                        limit: limits.max_directory_bytes,
                    });
                }
                locals.push(LocalEntry { offset, ..entry });
            }
            CENTRAL_SIG | END_SIG | ZIP64_END_SIG if !locals.is_empty() => break,
            END_SIG => return Err(HashError::EmptyArchive),
            _ if locals.is_empty() => {
                return Err(HashError::NotAZip(format!(
                    "it does not start with a local file header (first bytes: {})",
                    hex::encode(sig.to_le_bytes())
                )))
            }
            _ => {
                return Err(HashError::Malformed(format!(
                    "unexpected signature {sig:#010x} at offset {offset}, after entry {:?}",
                    locals
                        .last()
                        .map(LocalEntry::display_name)
                        .unwrap_or_default()
                )))
            }
        }
    }

    let directory_offset = src.pos();
    let tail = src.read_rest(limits.max_directory_bytes)?;
    let central = parse_central_directory(&tail, directory_offset)?;
    cross_check(&locals, &central)?;
    let h1 = unpacked_h1(&locals, &central)?;
    let (sha256, bytes) = src.finish();
    Ok(ZipHashes { sha256, h1, bytes })
}

/// What the local header and the streamed data say about one entry.
#[derive(Debug, Clone, Default)]
struct LocalEntry {
    offset: u64,
    name: Vec<u8>,
    method: u16,
    crc32: u32,
    compressed_size: u64,
    uncompressed_size: u64,
    /// SHA-256 of the uncompressed content.
    digest: [u8; 32],
}

impl LocalEntry {
    fn display_name(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }
}

/// Reads one local header, its data and any data descriptor; checks CRC and sizes.
fn read_local_entry<R: Read>(
    src: &mut Source<R>,
    scratch: &mut [u8],
    limits: &ZipLimits,
    unpacked_total: &mut u64,
) -> Result<LocalEntry, HashError> {
    let header: [u8; 30] = src.take("a local file header")?;
    let flags = le16(&header, 6);
    let method = le16(&header, 8);
    let header_crc = le32(&header, 14);
    let mut compressed = u64::from(le32(&header, 18));
    let mut uncompressed = u64::from(le32(&header, 22));
    let name = src.take_vec(usize::from(le16(&header, 26)), "an entry name")?;
    let extra = src.take_vec(usize::from(le16(&header, 28)), "a local extra field")?;
    let entry = String::from_utf8_lossy(&name).into_owned();
    let unsupported = |reason: String| HashError::Unsupported {
        entry: entry.clone(),
        reason,
    };

    if flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) != 0 {
        return Err(unsupported("the entry is encrypted".to_string()));
    }
    let zip64 = find_extra(&extra, ZIP64_EXTRA_ID);
    if let Some(data) = zip64 {
        let mut fields = Zip64Fields::new(data, &entry);
        uncompressed = fields.widen(uncompressed)?;
        compressed = fields.widen(compressed)?;
    }
    let has_descriptor = flags & FLAG_DESCRIPTOR != 0;

    let mut sink = ContentSink {
        entry: &entry,
        sha: Sha256::new(),
        crc: crc32fast::Hasher::new(),
        size: 0,
        total: unpacked_total,
        limit: limits.max_uncompressed_bytes,
    };
    let consumed = match (method, has_descriptor) {
        (METHOD_STORED, false) => {
            if compressed != uncompressed {
                return Err(HashError::SizeMismatch {
                    entry,
                    what: "stored entry compressed size vs uncompressed size",
                    expected: uncompressed,
                    found: compressed,
                });
            }
            copy_stored(src, compressed, &mut sink)?;
            compressed
        }
        (METHOD_STORED, true) => {
            return Err(unsupported(
                "stored (uncompressed) entry whose length only follows its data, in a data \
                 descriptor; it cannot be hashed while streaming"
                    .to_string(),
            ))
        }
        (METHOD_DEFLATE, _) => {
            let known = (!has_descriptor).then_some(compressed);
            inflate(src, known, scratch, &mut sink)?
        }
        (other, _) => {
            return Err(unsupported(format!(
                "compression method {other} (only 0, stored, and 8, deflate, are supported)"
            )))
        }
    };
    let (digest, crc, size) = (sink.sha.finalize().into(), sink.crc.finalize(), sink.size);

    let (recorded_crc, recorded_compressed, recorded_uncompressed) = if has_descriptor {
        // Go's writer uses 8-byte sizes exactly when a size does not fit in 4 bytes; a
        // zip64 extra in the local header announces them too (APPNOTE 4.3.9).
        let wide = zip64.is_some() || consumed >= 0xffff_ffff || size >= 0xffff_ffff;
        read_descriptor(src, wide)?
    } else {
        (header_crc, compressed, uncompressed)
    };
    if recorded_crc != crc {
        return Err(HashError::CrcMismatch {
            entry,
            expected: recorded_crc,
            found: crc,
        });
    }
    for (what, expected, found) in [
        ("uncompressed size", recorded_uncompressed, size),
        ("compressed size", recorded_compressed, consumed),
    ] {
        if expected != found {
            return Err(HashError::SizeMismatch {
                entry,
                what,
                expected,
                found,
            });
        }
    }
    Ok(LocalEntry {
        offset: 0,
        name,
        method,
        crc32: crc,
        compressed_size: consumed,
        uncompressed_size: size,
        digest,
    })
}

/// Receives an entry's uncompressed bytes: hashes them and enforces the size limit.
struct ContentSink<'a> {
    entry: &'a str,
    sha: Sha256,
    crc: crc32fast::Hasher,
    size: u64,
    total: &'a mut u64,
    limit: u64,
}

impl ContentSink<'_> {
    fn write(&mut self, data: &[u8]) -> Result<(), HashError> {
        let n = data.len() as u64;
        *self.total += n;
        if *self.total > self.limit {
            return Err(HashError::LimitExceeded {
                what: "uncompressed bytes",
                limit: self.limit,
            });
        }
        self.size += n;
        self.sha.update(data);
        self.crc.update(data);
        Ok(())
    }
}

fn copy_stored<R: Read>(
    src: &mut Source<R>,
    mut remaining: u64,
    sink: &mut ContentSink<'_>,
) -> Result<(), HashError> {
    while remaining > 0 {
        let available = src.available()?;
        if available.is_empty() {
            return Err(HashError::Truncated(format!(
                "the data of {:?}",
                sink.entry
            )));
        }
        let n = available
            .len()
            .min(usize::try_from(remaining).unwrap_or(usize::MAX));
        sink.write(&available[..n])?;
        src.consume(n);
        remaining -= n as u64;
    }
    Ok(())
}

/// Inflates one raw deflate stream into `sink`, reading no further than its end, and
/// returns how many compressed bytes it occupied.
///
/// With a `known` compressed size the input is bounded by it, and any bytes between the
/// end of the stream and that size are skipped, as Go's reader ignores them too.
fn inflate<R: Read>(
    src: &mut Source<R>,
    known: Option<u64>,
    out: &mut [u8],
    sink: &mut ContentSink<'_>,
) -> Result<u64, HashError> {
    let mut inflater = Decompress::new(false);
    let mut used_total = 0u64;
    loop {
        let mut input = src.available()?;
        if let Some(size) = known {
            let left = usize::try_from(size - used_total).unwrap_or(usize::MAX);
            input = &input[..input.len().min(left)];
        }
        let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress(input, out, FlushDecompress::None)
            .map_err(|e| {
                HashError::Malformed(format!("entry {:?}: bad deflate data: {e}", sink.entry))
            })?;
        let used = (inflater.total_in() - in_before) as usize;
        let produced = (inflater.total_out() - out_before) as usize;
        src.consume(used);
        used_total += used as u64;
        sink.write(&out[..produced])?;

        if status == Status::StreamEnd {
            break;
        }
        if used == 0 && produced == 0 {
            // The inflater needs input beyond what it was offered.
            if known.is_some_and(|size| used_total >= size) {
                return Err(HashError::Malformed(format!(
                    "entry {:?}: its compressed size ends before its deflate stream does",
                    sink.entry
                )));
            }
            if !src.fill_more()? {
                return Err(HashError::Truncated(format!(
                    "the data of {:?}",
                    sink.entry
                )));
            }
        }
    }
    if let Some(size) = known {
        src.skip(size - used_total, sink.entry)?;
        return Ok(size);
    }
    Ok(used_total)
}

/// The data descriptor after an entry's data: optional signature, CRC-32, then the
/// compressed and uncompressed sizes, 4 or 8 bytes each.
fn read_descriptor<R: Read>(src: &mut Source<R>, wide: bool) -> Result<(u32, u64, u64), HashError> {
    let what = "a data descriptor";
    if src.peek_u32()? == Some(DESCRIPTOR_SIG) {
        src.take::<4>(what)?;
    }
    let crc = u32::from_le_bytes(src.take(what)?);
    if wide {
        let compressed = u64::from_le_bytes(src.take(what)?);
        let uncompressed = u64::from_le_bytes(src.take(what)?);
        Ok((crc, compressed, uncompressed))
    } else {
        let compressed = u32::from_le_bytes(src.take(what)?);
        let uncompressed = u32::from_le_bytes(src.take(what)?);
        Ok((crc, compressed.into(), uncompressed.into()))
    }
}

/// One central directory record, the entry as Terraform's unpacker sees it.
#[derive(Debug, Clone)]
struct CentralEntry {
    name: Vec<u8>,
    flags: u16,
    method: u16,
    crc32: u32,
    compressed_size: u64,
    uncompressed_size: u64,
    offset: u64,
    /// The external attributes mark it a directory (Go's `FileHeader.Mode`).
    dir_mode: bool,
}

/// Parses the central directory and end records in `tail`, which starts at absolute
/// offset `start`, and checks that the end record points back at it.
fn parse_central_directory(tail: &[u8], start: u64) -> Result<Vec<CentralEntry>, HashError> {
    let truncated = |what: &str| HashError::Truncated(what.to_string());
    let mut entries = Vec::new();
    let mut p = 0usize;
    while sig_at(tail, p) == Some(CENTRAL_SIG) {
        let fixed = tail
            .get(p..p + 46)
            .ok_or_else(|| truncated("a central directory record"))?;
        let made_by = le16(fixed, 4) >> 8;
        let name_len = usize::from(le16(fixed, 28));
        let extra_len = usize::from(le16(fixed, 30));
        let comment_len = usize::from(le16(fixed, 32));
        let external = le32(fixed, 38);
        let body = tail
            .get(p + 46..p + 46 + name_len + extra_len + comment_len)
            .ok_or_else(|| truncated("a central directory record"))?;
        let name = body[..name_len].to_vec();
        let entry_name = String::from_utf8_lossy(&name).into_owned();
        let mut entry = CentralEntry {
            flags: le16(fixed, 8),
            method: le16(fixed, 10),
            crc32: le32(fixed, 16),
            compressed_size: le32(fixed, 20).into(),
            uncompressed_size: le32(fixed, 24).into(),
            offset: le32(fixed, 42).into(),
            dir_mode: is_dir_mode(made_by, external),
            name,
        };
        if le16(fixed, 34) != 0 && le16(fixed, 34) != 0xffff {
            return Err(HashError::Unsupported {
                entry: entry_name,
                reason: "multi-disk (split) archives are not supported".to_string(),
            });
        }
        if let Some(data) = find_extra(&body[name_len..name_len + extra_len], ZIP64_EXTRA_ID) {
            let mut fields = Zip64Fields::new(data, &entry_name);
            entry.uncompressed_size = fields.widen(entry.uncompressed_size)?;
            entry.compressed_size = fields.widen(entry.compressed_size)?;
            entry.offset = fields.widen(entry.offset)?;
        }
        entries.push(entry);
        p += 46 + name_len + extra_len + comment_len;
    }
    let directory_size = p as u64;

    let mut zip64_end: Option<(u64, u64, u64)> = None;
    if sig_at(tail, p) == Some(ZIP64_END_SIG) {
        let record = tail
            .get(p..p + 56)
            .ok_or_else(|| truncated("the zip64 end of central directory record"))?;
        let record_size = le64(record, 4);
        zip64_end = Some((le64(record, 32), le64(record, 40), le64(record, 48)));
        p = usize::try_from(record_size)
            .ok()
            .and_then(|size| p.checked_add(12)?.checked_add(size))
            .filter(|&end| end <= tail.len())
            .ok_or_else(|| truncated("the zip64 end of central directory record"))?;
    }
    if sig_at(tail, p) == Some(ZIP64_LOCATOR_SIG) {
        p += 20;
    }
    if sig_at(tail, p) != Some(END_SIG) {
        return Err(if p + 4 > tail.len() {
            truncated("the end of central directory record")
        } else {
            HashError::Malformed(format!(
                "expected the end of central directory record at offset {}",
                start + p as u64
            ))
        });
    }
    let end = tail
        .get(p..p + 22)
        .ok_or_else(|| truncated("the end of central directory record"))?;
    if le16(end, 4) != 0 || le16(end, 6) != 0 {
        return Err(HashError::Malformed(
            "multi-disk (split) archives are not supported".to_string(),
        ));
    }
    let comment_len = usize::from(le16(end, 20));
    if tail.len() < p + 22 + comment_len {
        return Err(truncated("the zip comment"));
    }
    let mut count = u64::from(le16(end, 10));
    let mut size = u64::from(le32(end, 12));
    let mut offset = u64::from(le32(end, 16));
    if let Some((z_count, z_size, z_offset)) = zip64_end {
        if count == 0xffff {
            count = z_count;
        }
        if size == 0xffff_ffff {
            size = z_size;
        }
        if offset == 0xffff_ffff {
            offset = z_offset;
        }
    }
    for (what, recorded, actual) in [
        ("entry count", count, entries.len() as u64),
        ("central directory size", size, directory_size),
        ("central directory offset", offset, start),
    ] {
        if recorded != actual {
            return Err(HashError::DirectoryMismatch(format!(
                "the end record gives {what} {recorded}, but it is {actual}"
            )));
        }
    }
    Ok(entries)
}

/// The central directory must describe exactly the entries that were streamed: same
/// offsets, names, methods, CRCs and sizes. Order may differ; it decides which of two
/// duplicates Terraform unpacks last.
fn cross_check(locals: &[LocalEntry], central: &[CentralEntry]) -> Result<(), HashError> {
    if locals.len() != central.len() {
        return Err(HashError::DirectoryMismatch(format!(
            "{} entries were streamed, the central directory lists {}",
            locals.len(),
            central.len()
        )));
    }
    let mut by_offset: HashMap<u64, (&LocalEntry, bool)> =
        locals.iter().map(|l| (l.offset, (l, false))).collect();
    for c in central {
        let name = String::from_utf8_lossy(&c.name).into_owned();
        let mismatch =
            |what: String| HashError::DirectoryMismatch(format!("entry {name:?}: {what}"));
        let (local, seen) = by_offset
            .get_mut(&c.offset)
            .ok_or_else(|| mismatch(format!("no local header starts at offset {}", c.offset)))?;
        if std::mem::replace(seen, true) {
            return Err(mismatch(format!(
                "a second record points at the local header at offset {}",
                c.offset
            )));
        }
        if local.name != c.name {
            return Err(mismatch(format!(
                "the local header at offset {} is named {:?}",
                c.offset,
                local.display_name()
            )));
        }
        if c.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) != 0 {
            return Err(mismatch("marked encrypted".to_string()));
        }
        for (what, recorded, streamed) in [
            (
                "compression method",
                u64::from(c.method),
                u64::from(local.method),
            ),
            ("CRC-32", u64::from(c.crc32), u64::from(local.crc32)),
            ("compressed size", c.compressed_size, local.compressed_size),
            (
                "uncompressed size",
                c.uncompressed_size,
                local.uncompressed_size,
            ),
        ] {
            if recorded != streamed {
                return Err(mismatch(format!(
                    "{what} is {recorded} in the central directory but {streamed} in the data"
                )));
            }
        }
    }
    Ok(())
}

/// `h1:` of the tree go-getter's `ZipDecompressor` would unpack (spec §2.1).
fn unpacked_h1(locals: &[LocalEntry], central: &[CentralEntry]) -> Result<Hash, HashError> {
    let digests: HashMap<u64, &[u8; 32]> = locals.iter().map(|l| (l.offset, &l.digest)).collect();
    let mut files: BTreeMap<Vec<u8>, [u8; 32]> = BTreeMap::new();
    let mut dirs: BTreeSet<Vec<u8>> = BTreeSet::new();
    for c in central {
        let entry = String::from_utf8_lossy(&c.name).into_owned();
        let unsafe_name = |reason| HashError::UnsafeName {
            entry: entry.clone(),
            reason,
        };
        // go-getter checks this before it looks at the entry's type.
        if c.name
            .split(|&b| b == b'/' || b == b'\\')
            .any(|part| part == b"..")
        {
            return Err(unsafe_name("it contains a '..' component"));
        }
        if c.name.starts_with(b"/") {
            return Err(unsafe_name("it is an absolute path"));
        }
        if c.name.contains(&0) {
            // No file system accepts it; Go's unpacker fails to create the file.
            return Err(unsafe_name("it contains a NUL byte"));
        }
        if c.name.contains(&b'\n') {
            return Err(HashError::NewlineInName(entry));
        }
        let cleaned = clean_name(&c.name);
        if c.dir_mode || c.name.ends_with(b"/") {
            dirs.insert(cleaned);
            continue;
        }
        if cleaned.is_empty() {
            return Err(unsafe_name("it names the package directory itself"));
        }
        let digest = digests.get(&c.offset).copied().ok_or_else(|| {
            HashError::DirectoryMismatch(format!("entry {entry:?}: no streamed data"))
        })?;
        files.insert(cleaned, *digest);
    }
    if files.is_empty() {
        return Err(HashError::EmptyArchive);
    }
    for name in files.keys() {
        let conflict = dirs.contains(name)
            || name
                .iter()
                .enumerate()
                .any(|(i, &b)| b == b'/' && files.contains_key(&name[..i]));
        if conflict {
            return Err(HashError::UnsafeName {
                entry: String::from_utf8_lossy(name).into_owned(),
                reason: "the archive uses it both as a file and as a directory",
            });
        }
    }

    let mut summary = Summary::new();
    for (name, digest) in files {
        summary.push(name, digest);
    }
    summary.finish()
}

/// The relative path `filepath.Join(dir, name)` produces below `dir`: empty and `.`
/// components dropped (`..` was refused before), no trailing slash.
fn clean_name(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    for part in name.split(|&b| b == b'/') {
        if part.is_empty() || part == b"." {
            continue;
        }
        if !out.is_empty() {
            out.push(b'/');
        }
        out.extend_from_slice(part);
    }
    out
}

/// Go's `FileHeader.Mode().IsDir()` from the "made by" system and external attributes.
fn is_dir_mode(made_by: u16, external: u32) -> bool {
    const UNIX: u16 = 3;
    const MACOS: u16 = 19;
    const FAT: u16 = 0;
    const NTFS: u16 = 11;
    const VFAT: u16 = 14;
    match made_by {
        UNIX | MACOS => (external >> 16) & 0o170000 == 0o040000,
        FAT | NTFS | VFAT => external & 0x10 != 0,
        _ => false,
    }
}

/// Reads the 8-byte values of a zip64 extra field, which are present, in order, only
/// for the header fields saturated at `0xffffffff`.
struct Zip64Fields<'a> {
    data: &'a [u8],
    entry: &'a str,
}

impl<'a> Zip64Fields<'a> {
    fn new(data: &'a [u8], entry: &'a str) -> Zip64Fields<'a> {
        Zip64Fields { data, entry }
    }

    fn widen(&mut self, value: u64) -> Result<u64, HashError> {
        if value != 0xffff_ffff {
            return Ok(value);
        }
        let Some((field, rest)) = self.data.split_first_chunk::<8>() else {
            return Err(HashError::Malformed(format!(
                "entry {:?}: zip64 extra field is too short",
                self.entry
            )));
        };
        self.data = rest;
        Ok(u64::from_le_bytes(*field))
    }
}

/// The data of the first extra field with this header ID.
fn find_extra(mut extra: &[u8], id: u16) -> Option<&[u8]> {
    while extra.len() >= 4 {
        let size = usize::from(le16(extra, 2));
        let data = extra.get(4..4 + size)?;
        if le16(extra, 0) == id {
            return Some(data);
        }
        extra = &extra[4 + size..];
    }
    None
}

fn sig_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(le32(bytes.get(at..at + 4)?, 0))
}

/// Little-endian readers for slices already checked to be long enough.
fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from(le32(b, at)) | (u64::from(le32(b, at + 4)) << 32)
}

/// A forward-only buffered reader that hashes every byte it pulls from the input, so the
/// SHA-256 covers the whole stream no matter how the parser consumes it.
struct Source<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    eof: bool,
    sha: Sha256,
    /// Bytes pulled from `inner` (and hashed).
    pulled: u64,
}

impl<R: Read> Source<R> {
    fn new(inner: R) -> Source<R> {
        Source {
            inner,
            buf: vec![0u8; BUF_SIZE].into_boxed_slice(),
            start: 0,
            end: 0,
            eof: false,
            sha: Sha256::new(),
            pulled: 0,
        }
    }

    /// Offset of the next unconsumed byte.
    fn pos(&self) -> u64 {
        self.pulled - (self.end - self.start) as u64
    }

    /// Reads more input after the buffered bytes; `false` at end of input.
    fn fill_more(&mut self) -> Result<bool, HashError> {
        if self.eof {
            return Ok(false);
        }
        if self.end == self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            // A full buffer the parser could not use; only inflate asks for more, and
            // it always consumes what it is given.
            return Err(HashError::Malformed(
                "the parser stalled with a full input buffer".to_string(),
            ));
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.sha.update(&self.buf[self.end..self.end + n]);
                    self.pulled += n as u64;
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(HashError::Read(e)),
            }
        }
    }

    /// The buffered bytes, reading more first if there are none (empty at end of input).
    fn available(&mut self) -> Result<&[u8], HashError> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.fill_more()?;
        }
        Ok(&self.buf[self.start..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// Makes `n` (at most the buffer size) bytes available; `false` if the input ends first.
    fn ensure(&mut self, n: usize) -> Result<bool, HashError> {
        if n > self.buf.len() {
            return Err(HashError::Malformed(format!(
                "a header field of {n} bytes is larger than any zip allows"
            )));
        }
        while self.end - self.start < n {
            if self.buf.len() - self.start < n {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if !self.fill_more()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn peek_u32(&mut self) -> Result<Option<u32>, HashError> {
        if !self.ensure(4)? {
            return Ok(None);
        }
        Ok(Some(le32(&self.buf[self.start..self.end], 0)))
    }

    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N], HashError> {
        if !self.ensure(N)? {
            return Err(HashError::Truncated(what.to_string()));
        }
        let mut out = [0u8; N];
        out.copy_from_slice(&self.buf[self.start..self.start + N]);
        self.start += N;
        Ok(out)
    }

    fn take_vec(&mut self, n: usize, what: &str) -> Result<Vec<u8>, HashError> {
        if !self.ensure(n)? {
            return Err(HashError::Truncated(what.to_string()));
        }
        let out = self.buf[self.start..self.start + n].to_vec();
        self.start += n;
        Ok(out)
    }

    fn skip(&mut self, mut n: u64, entry: &str) -> Result<(), HashError> {
        while n > 0 {
            let available = self.available()?.len();
            if available == 0 {
                return Err(HashError::Truncated(format!("the data of {entry:?}")));
            }
            let step = available.min(usize::try_from(n).unwrap_or(usize::MAX));
            self.consume(step);
            n -= step as u64;
        }
        Ok(())
    }

    /// Everything left in the input, refusing more than `cap` bytes.
    fn read_rest(&mut self, cap: u64) -> Result<Vec<u8>, HashError> {
        let mut rest = Vec::new();
        loop {
            let chunk = self.available()?;
            if chunk.is_empty() {
                return Ok(rest);
            }
            if (rest.len() + chunk.len()) as u64 > cap {
                return Err(HashError::LimitExceeded {
                    what: "bytes of central directory and trailing data",
                    limit: cap,
                });
            }
            rest.extend_from_slice(chunk);
            let n = chunk.len();
            self.consume(n);
        }
    }

    /// SHA-256 and length of the whole input; call after reading to its end.
    fn finish(self) -> ([u8; 32], u64) {
        (self.sha.finalize().into(), self.pulled)
    }
}

#[cfg(test)]
mod tests;
