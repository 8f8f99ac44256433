//! Writes zips the way Go's `archive/zip` does, which is how most real provider packages
//! are built (goreleaser): entries deflated, with bit 3 set so the CRC and sizes follow the
//! data in a data descriptor instead of the local header. A streaming reader therefore
//! cannot learn an entry's size before reading it; the fake registry makes that the
//! default so tfsum's streaming hasher meets the hard case.
//!
//! The one Go-style writer of the test code: the fake registry builds its packages with
//! [`write_zip`]; the zip hasher's unit tests build every variant, malformed ones
//! included, with [`go_zip_full`] (other methods, descriptor kinds, zip64, a central
//! directory to tamper with).

use std::io::Write as _;

use flate2::{write::DeflateEncoder, Compression};

/// Local header layout of each entry, for [`write_zip`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ZipStyle {
    /// Go `archive/zip`: CRC and sizes in a data descriptor after the data.
    #[default]
    DataDescriptor,
    /// CRC and sizes in the local header, no data descriptor (Info-ZIP on a seekable
    /// file).
    Sized,
}

/// One regular file in a zip, for [`write_zip`].
pub struct ZipEntry<'a> {
    pub name: &'a str,
    pub content: &'a [u8],
    pub executable: bool,
}

/// Where an entry's CRC and sizes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Desc {
    /// Sizes and CRC in the local header, no descriptor.
    No,
    /// Descriptor with its optional signature (what Go writes).
    Signed,
    /// Descriptor without signature.
    Unsigned,
    /// Zip64: local zip64 extra field and 8-byte descriptor sizes.
    Zip64,
}

/// One entry, every field a knob.
#[derive(Clone, Debug)]
pub struct GoEntry {
    pub name: Vec<u8>,
    pub data: Vec<u8>,
    pub method: u16,
    pub desc: Desc,
    /// Unix mode for the external attributes.
    pub mode: u32,
    /// General-purpose flags besides bit 3, which follows `desc`.
    pub flags: u16,
}

/// One central directory record before serialisation, for tests to tamper with.
#[derive(Clone, Debug)]
pub struct CdRecord {
    pub name: Vec<u8>,
    pub method: u16,
    pub flags: u16,
    pub crc: u32,
    pub compressed: u32,
    pub uncompressed: u32,
    pub offset: u32,
    pub external: u32,
}

pub const METHOD_STORED: u16 = 0;
pub const METHOD_DEFLATE: u16 = 8;
const LOCAL_SIG: u32 = 0x0403_4b50;
const DESCRIPTOR_SIG: u32 = 0x0807_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const END_SIG: u32 = 0x0605_4b50;
const ZIP64_END_SIG: u32 = 0x0606_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const FLAG_DESCRIPTOR: u16 = 0x0008;
/// Go sets it for every UTF-8 name.
const FLAG_UTF8: u16 = 0x0800;
const VERSION_NEEDED: u16 = 20;
/// Upper byte 3 = Unix, so the external attributes carry a Unix mode, as Go writes them.
const VERSION_MADE_BY: u16 = (3 << 8) | 20;
/// 2020-01-01 00:00:00 in MS-DOS format; fixed so zips are reproducible.
const DOS_TIME: u16 = 0;
const DOS_DATE: u16 = ((2020 - 1980) << 9) | (1 << 5) | 1;

/// A deflated, executable entry with a signed data descriptor, as Go writes one.
pub fn go(name: &str, data: &[u8]) -> GoEntry {
    GoEntry {
        name: name.as_bytes().to_vec(),
        data: data.to_vec(),
        method: METHOD_DEFLATE,
        desc: Desc::Signed,
        mode: 0o100755,
        flags: FLAG_UTF8,
    }
}

/// A stored entry with its sizes in the local header.
pub fn go_stored(name: &str, data: &[u8]) -> GoEntry {
    GoEntry {
        method: METHOD_STORED,
        desc: Desc::No,
        ..go(name, data)
    }
}

/// A directory entry.
pub fn go_dir(name: &str) -> GoEntry {
    GoEntry {
        method: METHOD_STORED,
        desc: Desc::No,
        mode: 0o040755,
        ..go(name, b"")
    }
}

pub fn go_zip(entries: &[GoEntry]) -> Vec<u8> {
    go_zip_with(entries, |_| {})
}

pub fn go_zip_with(entries: &[GoEntry], tamper: impl FnOnce(&mut Vec<CdRecord>)) -> Vec<u8> {
    go_zip_full(entries, false, tamper)
}

/// A deterministic zip of `entries` (provider files: deflated, in the given order), laid
/// out in `style`.
pub fn write_zip(entries: &[ZipEntry<'_>], style: ZipStyle) -> Vec<u8> {
    let entries: Vec<GoEntry> = entries
        .iter()
        .map(|e| GoEntry {
            name: e.name.as_bytes().to_vec(),
            data: e.content.to_vec(),
            method: METHOD_DEFLATE,
            desc: match style {
                ZipStyle::DataDescriptor => Desc::Signed,
                ZipStyle::Sized => Desc::No,
            },
            mode: if e.executable { 0o100755 } else { 0o100644 },
            flags: 0,
        })
        .collect();
    go_zip(&entries)
}

/// The zip: local headers, data and descriptors, then the central directory (after
/// `tamper` has had its way with it). With `zip64_directory`, every central directory
/// record moves its sizes and offset into a zip64 extra field, and the end record defers
/// to zip64 end records, as writers do for archives past 4 GiB or 65535 entries.
pub fn go_zip_full(
    entries: &[GoEntry],
    zip64_directory: bool,
    tamper: impl FnOnce(&mut Vec<CdRecord>),
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut cd: Vec<CdRecord> = entries.iter().map(|e| local_entry(&mut out, e)).collect();
    tamper(&mut cd);
    let cd_start = u32_len(out.len());
    for record in &cd {
        central_record(&mut out, record, zip64_directory);
    }
    let cd_size = u32_len(out.len()) - cd_start;
    let (count, size, start) = if zip64_directory {
        let end64 = out.len() as u64;
        put32(&mut out, ZIP64_END_SIG);
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&[45, 3, 45, 0]); // made by, version needed
        out.extend_from_slice(&[0u8; 8]); // disk numbers
        out.extend_from_slice(&(cd.len() as u64).to_le_bytes());
        out.extend_from_slice(&(cd.len() as u64).to_le_bytes());
        out.extend_from_slice(&u64::from(cd_size).to_le_bytes());
        out.extend_from_slice(&u64::from(cd_start).to_le_bytes());
        put32(&mut out, ZIP64_LOCATOR_SIG);
        put32(&mut out, 0);
        out.extend_from_slice(&end64.to_le_bytes());
        put32(&mut out, 1);
        (u16::MAX, u32::MAX, u32::MAX)
    } else {
        (u16_len(cd.len()), cd_size, cd_start)
    };
    put32(&mut out, END_SIG);
    put16(&mut out, 0); // this disk
    put16(&mut out, 0); // disk with the central directory
    put16(&mut out, count);
    put16(&mut out, count);
    put32(&mut out, size);
    put32(&mut out, start);
    put16(&mut out, 0); // comment length
    out
}

/// Writes one entry's local header, data and descriptor; returns its central record.
fn local_entry(out: &mut Vec<u8>, e: &GoEntry) -> CdRecord {
    let offset = u32_len(out.len());
    let payload = if e.method == METHOD_DEFLATE {
        deflate(&e.data)
    } else {
        e.data.clone()
    };
    let crc = crc32fast::hash(&e.data);
    let (csize, usize_) = (u32_len(payload.len()), u32_len(e.data.len()));
    let flags = e.flags
        | if e.desc == Desc::No {
            0
        } else {
            FLAG_DESCRIPTOR
        };
    let (h_crc, h_c, h_u) = match e.desc {
        Desc::No => (crc, csize, usize_),
        Desc::Zip64 => (0, u32::MAX, u32::MAX),
        _ => (0, 0, 0),
    };
    let extra: Vec<u8> = if e.desc == Desc::Zip64 {
        [&1u16.to_le_bytes()[..], &16u16.to_le_bytes(), &[0u8; 16]].concat()
    } else {
        Vec::new()
    };
    put32(out, LOCAL_SIG);
    put16(out, VERSION_NEEDED);
    put16(out, flags);
    put16(out, e.method);
    put16(out, DOS_TIME);
    put16(out, DOS_DATE);
    put32(out, h_crc);
    put32(out, h_c);
    put32(out, h_u);
    put16(out, u16_len(e.name.len()));
    put16(out, u16_len(extra.len()));
    out.extend_from_slice(&e.name);
    out.extend_from_slice(&extra);
    out.extend_from_slice(&payload);
    match e.desc {
        Desc::No => {}
        Desc::Signed | Desc::Unsigned => {
            if e.desc == Desc::Signed {
                put32(out, DESCRIPTOR_SIG);
            }
            put32(out, crc);
            put32(out, csize);
            put32(out, usize_);
        }
        Desc::Zip64 => {
            put32(out, DESCRIPTOR_SIG);
            put32(out, crc);
            out.extend_from_slice(&u64::from(csize).to_le_bytes());
            out.extend_from_slice(&u64::from(usize_).to_le_bytes());
        }
    }
    CdRecord {
        name: e.name.clone(),
        method: e.method,
        flags,
        crc,
        compressed: csize,
        uncompressed: usize_,
        offset,
        external: e.mode << 16,
    }
}

fn central_record(out: &mut Vec<u8>, r: &CdRecord, zip64: bool) {
    let (compressed, uncompressed, offset, extra) = if zip64 {
        let extra = [
            &1u16.to_le_bytes()[..],
            &24u16.to_le_bytes(),
            &u64::from(r.uncompressed).to_le_bytes(),
            &u64::from(r.compressed).to_le_bytes(),
            &u64::from(r.offset).to_le_bytes(),
        ]
        .concat();
        (u32::MAX, u32::MAX, u32::MAX, extra)
    } else {
        (r.compressed, r.uncompressed, r.offset, Vec::new())
    };
    put32(out, CENTRAL_SIG);
    put16(out, VERSION_MADE_BY);
    put16(out, VERSION_NEEDED);
    put16(out, r.flags);
    put16(out, r.method);
    put16(out, DOS_TIME);
    put16(out, DOS_DATE);
    put32(out, r.crc);
    put32(out, compressed);
    put32(out, uncompressed);
    put16(out, u16_len(r.name.len()));
    put16(out, u16_len(extra.len()));
    put16(out, 0); // comment length
    put16(out, 0); // disk number
    put16(out, 0); // internal attributes
    put32(out, r.external);
    put32(out, offset);
    out.extend_from_slice(&r.name);
    out.extend_from_slice(&extra);
}

pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::default());
    encoder
        .write_all(data)
        .and_then(|()| encoder.finish())
        .expect("deflating into a Vec cannot fail")
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u16_len(n: usize) -> u16 {
    u16::try_from(n).expect("zip field exceeds 16 bits (test zips are small)")
}

fn u32_len(n: usize) -> u32 {
    u32::try_from(n).expect("zip exceeds 4 GiB; test zips are small")
}
