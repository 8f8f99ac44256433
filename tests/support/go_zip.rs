//! Writes provider zips the way Go's `archive/zip` does, which is how most real provider
//! packages are built (goreleaser): every entry deflated, with bit 3 set so the CRC and
//! sizes follow the data in a data descriptor instead of the local header. A streaming
//! reader therefore cannot learn an entry's size before reading it; the fake makes that
//! the default so tfsum's streaming hasher meets the hard case. [`ZipStyle::Sized`] writes
//! the classic layout (sizes in the local header, as Info-ZIP does on a seekable file).

use std::io::Write as _;

use flate2::{write::DeflateEncoder, Compression};

/// Local header layout of each entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ZipStyle {
    /// Go `archive/zip`: CRC and sizes in a data descriptor after the data.
    #[default]
    DataDescriptor,
    /// CRC and sizes in the local header, no data descriptor.
    Sized,
}

/// One regular file in a zip.
pub struct ZipEntry<'a> {
    pub name: &'a str,
    pub content: &'a [u8],
    pub executable: bool,
}

const LOCAL_HEADER_SIG: u32 = 0x0403_4b50;
const DATA_DESCRIPTOR_SIG: u32 = 0x0807_4b50;
const CENTRAL_HEADER_SIG: u32 = 0x0201_4b50;
const END_OF_CENTRAL_DIR_SIG: u32 = 0x0605_4b50;
const FLAG_DATA_DESCRIPTOR: u16 = 0x0008;
const METHOD_DEFLATE: u16 = 8;
const VERSION_NEEDED: u16 = 20;
/// Upper byte 3 = Unix, so the external attributes carry a Unix mode, as Go writes them.
const VERSION_MADE_BY: u16 = (3 << 8) | 20;
/// 2020-01-01 00:00:00 in MS-DOS format; fixed so zips are reproducible.
const DOS_TIME: u16 = 0;
const DOS_DATE: u16 = ((2020 - 1980) << 9) | (1 << 5) | 1;

/// A deterministic zip of `entries`, in the given order. No zip64: entries stay below 4 GiB.
pub fn write_zip(entries: &[ZipEntry<'_>], style: ZipStyle) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for entry in entries {
        let offset = u32_len(out.len());
        let crc = crc32fast::hash(entry.content);
        let compressed = deflate(entry.content);
        let (csize, usize_) = (u32_len(compressed.len()), u32_len(entry.content.len()));
        let flags = match style {
            ZipStyle::DataDescriptor => FLAG_DATA_DESCRIPTOR,
            ZipStyle::Sized => 0,
        };

        put32(&mut out, LOCAL_HEADER_SIG);
        put16(&mut out, VERSION_NEEDED);
        put16(&mut out, flags);
        put16(&mut out, METHOD_DEFLATE);
        put16(&mut out, DOS_TIME);
        put16(&mut out, DOS_DATE);
        match style {
            ZipStyle::DataDescriptor => out.extend_from_slice(&[0; 12]),
            ZipStyle::Sized => {
                put32(&mut out, crc);
                put32(&mut out, csize);
                put32(&mut out, usize_);
            }
        }
        put16(&mut out, u16_len(entry.name.len()));
        put16(&mut out, 0);
        out.extend_from_slice(entry.name.as_bytes());
        out.extend_from_slice(&compressed);
        if style == ZipStyle::DataDescriptor {
            put32(&mut out, DATA_DESCRIPTOR_SIG);
            put32(&mut out, crc);
            put32(&mut out, csize);
            put32(&mut out, usize_);
        }

        let mode: u32 = if entry.executable { 0o100755 } else { 0o100644 };
        put32(&mut central, CENTRAL_HEADER_SIG);
        put16(&mut central, VERSION_MADE_BY);
        put16(&mut central, VERSION_NEEDED);
        put16(&mut central, flags);
        put16(&mut central, METHOD_DEFLATE);
        put16(&mut central, DOS_TIME);
        put16(&mut central, DOS_DATE);
        put32(&mut central, crc);
        put32(&mut central, csize);
        put32(&mut central, usize_);
        put16(&mut central, u16_len(entry.name.len()));
        put16(&mut central, 0); // extra field length
        put16(&mut central, 0); // comment length
        put16(&mut central, 0); // disk number
        put16(&mut central, 0); // internal attributes
        put32(&mut central, mode << 16);
        put32(&mut central, offset);
        central.extend_from_slice(entry.name.as_bytes());
    }

    let central_offset = u32_len(out.len());
    let central_size = u32_len(central.len());
    out.extend_from_slice(&central);
    put32(&mut out, END_OF_CENTRAL_DIR_SIG);
    put16(&mut out, 0); // this disk
    put16(&mut out, 0); // disk with the central directory
    put16(&mut out, u16_len(entries.len()));
    put16(&mut out, u16_len(entries.len()));
    put32(&mut out, central_size);
    put32(&mut out, central_offset);
    put16(&mut out, 0); // comment length
    out
}

fn deflate(data: &[u8]) -> Vec<u8> {
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
    u32::try_from(n).expect("zip exceeds 4 GiB; the fake registry writes no zip64")
}
