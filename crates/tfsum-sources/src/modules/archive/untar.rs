//! The tar layer of `.tar.gz`, `.tar.bz2` and `.tar.xz` module archives.
//!
//! The `tar` crate parses the 512-byte headers and frames the data; it runs in raw
//! mode, so that the records describing the next entry (GNU long names and long links,
//! pax extended headers) reach this reader instead of being read whole by the crate:
//! a 4 GiB long-name record in a 4 MiB `.tar.gz` is refused from its header, before a
//! byte of it is held. What those records say is applied as Go's `archive/tar` (and so
//! go-getter) applies it: pax `path`/`linkpath` over GNU long names over the header's.
//! The whole decompressed stream is capped as well, which bounds the time spent
//! skipping entries that tfsum does not keep.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use tar::EntryType;

use super::{read_exactly, utf8_name, ArchiveError, ArchiveLimits, MAX_PAX_BYTES};
use crate::modules::package::{
    clean_entry_path, is_kept, ContentError, PackageTree, MAX_PATH_BYTES,
};

/// What extension records said about the entry that follows them.
#[derive(Default)]
struct Pending {
    long_name: Option<Vec<u8>>,
    long_link: Option<Vec<u8>>,
    pax_path: Option<Vec<u8>>,
    pax_link: Option<Vec<u8>>,
    pax_size: Option<u64>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.long_name.is_none()
            && self.long_link.is_none()
            && self.pax_path.is_none()
            && self.pax_link.is_none()
            && self.pax_size.is_none()
    }
}

pub(super) fn read_tar(
    reader: impl Read,
    format: &'static str,
    limits: &ArchiveLimits,
) -> Result<PackageTree, ArchiveError> {
    let tripped = Rc::new(Cell::new(false));
    let stream = Capped {
        inner: reader,
        left: limits.max_unpacked_bytes,
        tripped: Rc::clone(&tripped),
    };
    let fail = Failures {
        format,
        max_unpacked: limits.max_unpacked_bytes,
        tripped,
    };
    let mut tree = PackageTree::new(limits.max_entries, limits.max_config_bytes);
    let mut archive = tar::Archive::new(stream);
    let mut pending = Pending::default();
    let mut records = 0usize;
    for entry in archive.entries().map_err(|e| fail.io(e))?.raw(true) {
        let mut entry = entry.map_err(|e| fail.io(e))?;
        let kind = entry.header().entry_type();
        let size = entry
            .header()
            .entry_size()
            .map_err(|e| fail.corrupt(e.to_string()))?;
        if read_extension(&mut entry, kind, size, &mut pending, &fail)? {
            continue;
        }
        // Every other record counts, those tfsum skips too.
        records += 1;
        if records > limits.max_entries {
            return Err(ContentError::TooManyEntries(limits.max_entries).into());
        }
        if kind.is_pax_global_extensions() {
            // go-getter skips these; as in Go, what came before applies to nothing.
            pending = Pending::default();
            continue;
        }
        let described = std::mem::take(&mut pending);
        add_entry(&mut tree, &mut entry, described, size, limits, &fail)?;
    }
    if !pending.is_empty() {
        return Err(fail.corrupt(
            "the archive ends with extension records that describe no entry".to_string(),
        ));
    }
    Ok(tree)
}

/// How a tar stream's failures are told: a read past the unpacked-size cap is
/// [`ArchiveError::TooLarge`], anything else a corrupt archive.
struct Failures {
    format: &'static str,
    max_unpacked: u64,
    tripped: Rc<Cell<bool>>,
}

impl Failures {
    fn corrupt(&self, reason: String) -> ArchiveError {
        ArchiveError::Corrupt {
            format: self.format,
            reason,
        }
    }

    fn io(&self, e: io::Error) -> ArchiveError {
        if self.tripped.get() {
            ArchiveError::TooLarge(self.max_unpacked)
        } else {
            self.corrupt(e.to_string())
        }
    }
}

/// Reads a record that describes the next entry (a GNU long name or link, a pax
/// extended header) into `pending`; false for any other record.
fn read_extension(
    entry: &mut impl Read,
    kind: EntryType,
    size: u64,
    pending: &mut Pending,
    fail: &Failures,
) -> Result<bool, ArchiveError> {
    let io_error = |e| fail.io(e);
    if kind.is_gnu_longname() {
        let name = read_record(entry, size, "GNU long name", &io_error)?;
        pending.long_name = Some(until_nul(name));
    } else if kind.is_gnu_longlink() {
        let link = read_record(entry, size, "GNU long link name", &io_error)?;
        pending.long_link = Some(until_nul(link));
    } else if kind.is_pax_local_extensions() {
        let body = read_record(entry, size, "pax extended header", &io_error)?;
        apply_pax(&body, pending, &|reason| fail.corrupt(reason))?;
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// Adds one entry to the tree, named and linked as the extension records before it
/// (`described`) say; only configuration files' contents are read.
fn add_entry<R: Read>(
    tree: &mut PackageTree,
    entry: &mut tar::Entry<'_, R>,
    described: Pending,
    size: u64,
    limits: &ArchiveLimits,
    fail: &Failures,
) -> Result<(), ArchiveError> {
    let (kind, typeflag) = (entry.header().entry_type(), entry.header().as_bytes()[156]);
    let name = utf8_name(match described.pax_path.or(described.long_name) {
        Some(name) => name,
        None => entry.header().path_bytes().into_owned(),
    })?;
    if kind.is_gnu_sparse() {
        return Err(ArchiveError::Unsupported {
            entry: name,
            what: "a GNU sparse file".to_string(),
        });
    }
    if let Some(pax_size) = described.pax_size.filter(|s| *s != size) {
        // The crate frames the data by the header's size; a pax size that differs
        // would make other readers see other entries.
        return Err(fail.corrupt(format!(
            "entry {name:?} has a pax size of {pax_size} bytes but a header size of {size}"
        )));
    }
    let link = described
        .pax_link
        .or(described.long_link)
        .or_else(|| entry.header().link_name_bytes().map(|l| l.into_owned()));
    let link = || match &link {
        Some(target) => utf8_name(target.clone()),
        None => Err(fail.corrupt(format!("link {name:?} has no target"))),
    };
    match kind {
        EntryType::Directory => tree.add_dir(&name)?,
        // Type `\0` (old tar) with a trailing slash is a directory, as Go reads it.
        EntryType::Regular if typeflag == 0 && name.ends_with('/') => tree.add_dir(&name)?,
        EntryType::Symlink => tree.add_symlink(&name, &link()?)?,
        // A hard link names another entry from the archive root; as a symlink from
        // the link's own directory it resolves to the same entry.
        EntryType::Link => {
            let depth = clean_entry_path(&name)?.matches('/').count();
            tree.add_symlink(&name, &format!("{}{}", "../".repeat(depth), link()?))?;
        }
        EntryType::Regular | EntryType::Continuous => {
            let content = if is_kept(&name) {
                if size > tree.kept_room() {
                    return Err(ContentError::TooLarge(limits.max_config_bytes).into());
                }
                Some(read_exactly(entry, size, &|e| fail.io(e))?)
            } else {
                None
            };
            tree.add_file(&name, content)?;
        }
        // Devices and FIFOs are nothing a module can use.
        _ => {}
    }
    Ok(())
}

/// The body of an extension record, refused from its declared size when too large.
fn read_record(
    entry: &mut impl Read,
    size: u64,
    what: &'static str,
    failed: &dyn Fn(io::Error) -> ArchiveError,
) -> Result<Vec<u8>, ArchiveError> {
    let cap = if what == "pax extended header" {
        MAX_PAX_BYTES
    } else {
        // The name and its terminating NUL.
        MAX_PATH_BYTES as u64 + 1
    };
    if size > cap {
        return Err(ArchiveError::RecordTooLarge { what, size, cap });
    }
    read_exactly(entry, size, failed)
}

/// A C string field: up to the first NUL.
fn until_nul(mut bytes: Vec<u8>) -> Vec<u8> {
    if let Some(end) = bytes.iter().position(|b| *b == 0) {
        bytes.truncate(end);
    }
    bytes
}

/// Applies pax records (`"LEN key=value\n"`, as Go's `parsePAX` reads them) to what the
/// next entry is; later records win.
fn apply_pax(
    mut records: &[u8],
    pending: &mut Pending,
    corrupt: &dyn Fn(String) -> ArchiveError,
) -> Result<(), ArchiveError> {
    let bad = || corrupt("a pax extended header is malformed".to_string());
    while !records.is_empty() {
        let space = records.iter().position(|b| *b == b' ').ok_or_else(bad)?;
        let len: usize = std::str::from_utf8(&records[..space])
            .ok()
            .filter(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|digits| digits.parse().ok())
            .ok_or_else(bad)?;
        if len <= space + 1 || len > records.len() || records[len - 1] != b'\n' {
            return Err(bad());
        }
        let record = &records[space + 1..len - 1];
        records = &records[len..];
        let eq = record.iter().position(|b| *b == b'=').ok_or_else(bad)?;
        let (key, value) = (&record[..eq], &record[eq + 1..]);
        if key.is_empty() {
            return Err(bad());
        }
        match key {
            b"path" | b"linkpath" if value.contains(&0) => return Err(bad()),
            b"path" => pending.pax_path = Some(value.to_vec()),
            b"linkpath" => pending.pax_link = Some(value.to_vec()),
            b"size" => {
                let size = std::str::from_utf8(value)
                    .ok()
                    .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(bad)?;
                pending.pax_size = Some(size);
            }
            _ if key.starts_with(b"GNU.sparse.") => {
                return Err(ArchiveError::Unsupported {
                    entry: String::from_utf8_lossy(pending.pax_path.as_deref().unwrap_or(b""))
                        .into_owned(),
                    what: "a GNU sparse file (pax format)".to_string(),
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// A reader that fails once more than `left` bytes came through, and says so.
struct Capped<R> {
    inner: R,
    left: u64,
    tripped: Rc<Cell<bool>>,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // At the cap: the stream may end here; one byte more is too many.
            let mut probe = [0u8; 1];
            if self.inner.read(&mut probe)? == 0 {
                return Ok(0);
            }
            self.tripped.set(true);
            return Err(io::Error::other(
                "the archive unpacks to more than the limit",
            ));
        }
        let room = usize::try_from(self.left)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let read = self.inner.read(&mut buf[..room])?;
        self.left -= read as u64;
        Ok(read)
    }
}
