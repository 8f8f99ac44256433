//! The zip reader for module archives: the central directory read the way Go's
//! `archive/zip` (and so go-getter) reads it, one record at a time.
//!
//! The `zip` crate would read the whole central directory into memory first, sized by
//! counts the archive declares, and on a bad directory go looking for another end
//! record further back in the file; here nothing is allocated from a declared size
//! except what the format itself bounds (a name, extra field or comment is at most
//! 64 KiB), each record goes to the [`PackageTree`] as soon as it is read, and only
//! configuration files and symlink targets are inflated, each after its declared size
//! was checked against the room left under the caps (and its CRC-32 after).

use std::io::{self, BufRead, Read, Seek, SeekFrom};

use super::{read_exactly, utf8_name, ArchiveError, ArchiveLimits};
use crate::modules::package::{is_kept, ContentError, PackageTree, MAX_PATH_BYTES};

const END_SIG: u32 = 0x0605_4b50;
const END_LEN: usize = 22;
const LOCATOR_SIG: u32 = 0x0706_4b50;
const LOCATOR_LEN: usize = 20;
const END64_SIG: u32 = 0x0606_4b50;
const END64_LEN: usize = 56;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const CENTRAL_LEN: usize = 46;
const LOCAL_SIG: u32 = 0x0403_4b50;
const LOCAL_LEN: usize = 30;
const ZIP64_EXTRA: u16 = 0x0001;

const FLAG_ENCRYPTED: u16 = 0x0001;
const METHOD_STORED: u16 = 0;
const METHOD_DEFLATE: u16 = 8;

/// Creator systems whose external attributes hold a Unix mode (Unix, macOS), and
/// those holding MS-DOS attributes (FAT, NTFS, VFAT), as Go's `FileHeader.Mode` reads
/// them.
const UNIX_CREATORS: [u16; 2] = [3, 19];
const DOS_CREATORS: [u16; 3] = [0, 11, 14];
const S_IFMT: u32 = 0o170000;
const S_IFDIR: u32 = 0o040000;
const S_IFLNK: u32 = 0o120000;
const DOS_DIRECTORY: u32 = 0x10;

fn corrupt(reason: impl Into<String>) -> ArchiveError {
    ArchiveError::Corrupt {
        format: "zip",
        reason: reason.into(),
    }
}

fn io_corrupt(e: io::Error) -> ArchiveError {
    corrupt(e.to_string())
}

/// Fills `buf` from offset `at`.
fn read_at<R: Read + Seek>(reader: &mut R, at: u64, buf: &mut [u8]) -> Result<(), ArchiveError> {
    reader
        .seek(SeekFrom::Start(at))
        .and_then(|_| reader.read_exact(buf))
        .map_err(io_corrupt)
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Where the central directory is, from the end record(s).
struct Directory {
    /// Records the end record declares (only its low 16 bits are trusted, as in Go).
    records: u64,
    /// Offset of the first record in the file.
    start: u64,
    /// What to add to offsets in the directory: non-zero when data was prepended.
    base: u64,
}

pub(super) fn read_zip<R: BufRead + Seek>(
    mut reader: R,
    limits: &ArchiveLimits,
) -> Result<PackageTree, ArchiveError> {
    let file_len = reader.seek(SeekFrom::End(0)).map_err(io_corrupt)?;
    let directory = find_directory(&mut reader, file_len)?;
    if directory.records > limits.max_entries as u64 {
        return Err(ContentError::TooManyEntries(limits.max_entries).into());
    }
    let mut tree = PackageTree::new(limits.max_entries, limits.max_config_bytes);
    let mut unpacked = 0u64;
    let mut read = 0u64;
    let mut at = directory.start;
    reader.seek(SeekFrom::Start(at)).map_err(io_corrupt)?;
    // As Go: records until one does not start with the signature.
    while let Some(record) = read_record(&mut reader)? {
        read += 1;
        if read > limits.max_entries as u64 {
            return Err(ContentError::TooManyEntries(limits.max_entries).into());
        }
        at += record.length;
        unpacked = unpacked.saturating_add(record.size);
        if unpacked > limits.max_unpacked_bytes {
            return Err(ArchiveError::TooLarge(limits.max_unpacked_bytes));
        }
        let name = utf8_name(record.name.clone())?;
        if record.is_dir(&name) {
            tree.add_dir(&name)?;
        } else if record.is_symlink() {
            if record.size > MAX_PATH_BYTES as u64 {
                return Err(ArchiveError::RecordTooLarge {
                    what: "symlink target",
                    size: record.size,
                    cap: MAX_PATH_BYTES as u64,
                });
            }
            let target = record.content(&mut reader, &directory, file_len, &name)?;
            reader.seek(SeekFrom::Start(at)).map_err(io_corrupt)?;
            tree.add_symlink(&name, &utf8_name(target)?)?;
        } else if is_kept(&name) {
            if record.size > tree.kept_room() {
                return Err(ContentError::TooLarge(limits.max_config_bytes).into());
            }
            let content = record.content(&mut reader, &directory, file_len, &name)?;
            reader.seek(SeekFrom::Start(at)).map_err(io_corrupt)?;
            tree.add_file(&name, Some(content))?;
        } else {
            tree.add_file(&name, None)?;
        }
    }
    if read % 0x1_0000 != directory.records % 0x1_0000 {
        return Err(corrupt(format!(
            "the central directory holds {read} entries where its end record says {}",
            directory.records
        )));
    }
    Ok(tree)
}

/// Finds the end record (the last one whose comment fits in the file, in the last
/// 64 KiB + 22 bytes), and the zip64 end record it may point to.
fn find_directory<R: Read + Seek>(
    reader: &mut R,
    file_len: u64,
) -> Result<Directory, ArchiveError> {
    let tail_len = file_len.min((END_LEN + 0xFFFF) as u64);
    let tail_start = file_len - tail_len;
    let mut tail = vec![0u8; tail_len as usize];
    read_at(reader, tail_start, &mut tail)?;
    let last = tail
        .len()
        .checked_sub(END_LEN)
        .ok_or_else(|| corrupt("no end of central directory record"))?;
    let found = (0..=last)
        .rev()
        .find(|&i| {
            u32_at(&tail, i) == END_SIG
                && i + END_LEN + usize::from(u16_at(&tail, i + 20)) <= tail.len()
        })
        .ok_or_else(|| corrupt("no end of central directory record"))?;
    let end = &tail[found..found + END_LEN];
    let mut end_at = tail_start + found as u64;
    let mut records = u64::from(u16_at(end, 10));
    let mut size = u64::from(u32_at(end, 12));
    let mut offset = u64::from(u32_at(end, 16));
    if records == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
        if let Some(end64_at) = zip64_end(reader, end_at, file_len)? {
            let mut end64 = [0u8; END64_LEN];
            read_at(reader, end64_at, &mut end64)?;
            if u32_at(&end64, 0) != END64_SIG {
                return Err(corrupt("no zip64 end of central directory record"));
            }
            records = u64_at(&end64, 32);
            size = u64_at(&end64, 40);
            offset = u64_at(&end64, 48);
            end_at = end64_at;
        }
    }
    // Data prepended to the archive moves everything by the difference (Go's
    // `baseOffset`), unless a record is where the offset says.
    let start = end_at
        .checked_sub(size)
        .filter(|start| *start < file_len)
        .ok_or_else(|| corrupt("the central directory lies outside the file"))?;
    let mut base = start
        .checked_sub(offset)
        .ok_or_else(|| corrupt("the central directory lies outside the file"))?;
    if base > 0 && signature_at(reader, offset, file_len)? == Some(CENTRAL_SIG) {
        base = 0;
    }
    Ok(Directory {
        records,
        start: base + offset,
        base,
    })
}

/// The offset of the zip64 end record, from the locator just before the end record.
fn zip64_end<R: Read + Seek>(
    reader: &mut R,
    end_at: u64,
    file_len: u64,
) -> Result<Option<u64>, ArchiveError> {
    let Some(locator_at) = end_at.checked_sub(LOCATOR_LEN as u64) else {
        return Ok(None);
    };
    let mut locator = [0u8; LOCATOR_LEN];
    read_at(reader, locator_at, &mut locator)?;
    if u32_at(&locator, 0) != LOCATOR_SIG {
        return Ok(None);
    }
    let at = u64_at(&locator, 8);
    if at.saturating_add(END64_LEN as u64) > file_len {
        return Err(corrupt("the zip64 end record lies outside the file"));
    }
    Ok(Some(at))
}

fn signature_at<R: Read + Seek>(
    reader: &mut R,
    at: u64,
    file_len: u64,
) -> Result<Option<u32>, ArchiveError> {
    if at.saturating_add(4) > file_len {
        return Ok(None);
    }
    let mut sig = [0u8; 4];
    read_at(reader, at, &mut sig)?;
    Ok(Some(u32::from_le_bytes(sig)))
}

/// One central directory record.
struct Record {
    /// Bytes the record takes in the directory.
    length: u64,
    name: Vec<u8>,
    creator: u16,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    external: u32,
    local_offset: u64,
}

/// The next record at the reader's position, or `None` where the directory ends.
fn read_record<R: BufRead>(reader: &mut R) -> Result<Option<Record>, ArchiveError> {
    let mut fixed = [0u8; CENTRAL_LEN];
    if !read_or_end(reader, &mut fixed[..4])? || u32_at(&fixed, 0) != CENTRAL_SIG {
        return Ok(None);
    }
    reader
        .read_exact(&mut fixed[4..])
        .map_err(|e| corrupt(format!("a central directory record is cut short: {e}")))?;
    let name_len = usize::from(u16_at(&fixed, 28));
    let extra_len = usize::from(u16_at(&fixed, 30));
    let comment_len = usize::from(u16_at(&fixed, 32));
    let mut name = vec![0u8; name_len];
    let mut extra = vec![0u8; extra_len];
    reader
        .read_exact(&mut name)
        .and_then(|_| reader.read_exact(&mut extra))
        .and_then(|_| {
            let skipped = io::copy(&mut reader.take(comment_len as u64), &mut io::sink())?;
            if skipped as usize == comment_len {
                Ok(())
            } else {
                Err(io::ErrorKind::UnexpectedEof.into())
            }
        })
        .map_err(|e| corrupt(format!("a central directory record is cut short: {e}")))?;
    let mut record = Record {
        length: (CENTRAL_LEN + name_len + extra_len + comment_len) as u64,
        name,
        creator: u16_at(&fixed, 4) >> 8,
        flags: u16_at(&fixed, 8),
        method: u16_at(&fixed, 10),
        crc: u32_at(&fixed, 16),
        compressed: u64::from(u32_at(&fixed, 20)),
        size: u64::from(u32_at(&fixed, 24)),
        external: u32_at(&fixed, 38),
        local_offset: u64::from(u32_at(&fixed, 42)),
    };
    record.apply_zip64(&extra)?;
    Ok(Some(record))
}

/// Fills `buf`, or says the input ended before its first byte; the end record follows
/// the last record, and may be shorter than one.
fn read_or_end<R: Read>(reader: &mut R, buf: &mut [u8]) -> Result<bool, ArchiveError> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) if filled == 0 => return Ok(false),
            Ok(0) => return Err(corrupt("a central directory record is cut short")),
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_corrupt(e)),
        }
    }
    Ok(true)
}

impl Record {
    /// Sizes and offset that do not fit 32 bits are in the zip64 extra field, in this
    /// order, each only when its 32-bit field is all ones.
    fn apply_zip64(&mut self, mut extra: &[u8]) -> Result<(), ArchiveError> {
        while extra.len() >= 4 {
            let tag = u16_at(extra, 0);
            let len = usize::from(u16_at(extra, 2));
            let Some(mut body) = extra.get(4..4 + len) else {
                break;
            };
            extra = &extra[4 + len..];
            if tag != ZIP64_EXTRA {
                continue;
            }
            for field in [&mut self.size, &mut self.compressed, &mut self.local_offset] {
                if *field != 0xFFFF_FFFF {
                    continue;
                }
                if body.len() < 8 {
                    return Err(corrupt("a zip64 extra field is too short"));
                }
                *field = u64_at(body, 0);
                body = &body[8..];
            }
        }
        Ok(())
    }

    fn unix_mode(&self) -> Option<u32> {
        UNIX_CREATORS
            .contains(&self.creator)
            .then_some(self.external >> 16)
    }

    fn is_dir(&self, name: &str) -> bool {
        name.ends_with('/')
            || self.unix_mode().is_some_and(|m| m & S_IFMT == S_IFDIR)
            || (DOS_CREATORS.contains(&self.creator) && self.external & DOS_DIRECTORY != 0)
    }

    fn is_symlink(&self) -> bool {
        self.unix_mode().is_some_and(|m| m & S_IFMT == S_IFLNK)
    }

    /// The entry's content, inflated and checked against its size and CRC-32. The
    /// caller has checked the declared size against its caps.
    fn content<R: Read + Seek>(
        &self,
        reader: &mut R,
        directory: &Directory,
        file_len: u64,
        name: &str,
    ) -> Result<Vec<u8>, ArchiveError> {
        if self.flags & FLAG_ENCRYPTED != 0 {
            return Err(ArchiveError::Unsupported {
                entry: name.to_string(),
                what: "encrypted".to_string(),
            });
        }
        let header_at = directory
            .base
            .checked_add(self.local_offset)
            .filter(|at| at.saturating_add(LOCAL_LEN as u64) <= file_len)
            .ok_or_else(|| corrupt(format!("entry {name:?} lies outside the file")))?;
        let mut local = [0u8; LOCAL_LEN];
        read_at(reader, header_at, &mut local)?;
        if u32_at(&local, 0) != LOCAL_SIG {
            return Err(corrupt(format!("entry {name:?} has no local header")));
        }
        let data_at = header_at
            + LOCAL_LEN as u64
            + u64::from(u16_at(&local, 26))
            + u64::from(u16_at(&local, 28));
        if data_at.saturating_add(self.compressed) > file_len {
            return Err(corrupt(format!("entry {name:?} lies outside the file")));
        }
        reader.seek(SeekFrom::Start(data_at)).map_err(io_corrupt)?;
        let raw = reader.take(self.compressed);
        let content = match self.method {
            METHOD_STORED => read_exactly(raw, self.size, &io_corrupt)?,
            METHOD_DEFLATE => read_exactly(
                flate2::read::DeflateDecoder::new(raw),
                self.size,
                &io_corrupt,
            )?,
            method => {
                return Err(ArchiveError::Unsupported {
                    entry: name.to_string(),
                    what: format!("compressed with method {method}"),
                })
            }
        };
        if crc32fast::hash(&content) != self.crc {
            return Err(corrupt(format!("entry {name:?} fails its CRC-32 check")));
        }
        Ok(content)
    }
}
