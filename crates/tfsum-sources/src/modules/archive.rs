//! Reading module archives (`.zip`, `.tar.gz`/`.tgz`, `.tar.bz2`, `.tar.xz`) into a
//! checked [`PackageTree`], never onto the disk directly.
//!
//! Archives come from the network and are untrusted. Entry names, symlinks and sizes go
//! through [`PackageTree`]'s checks, and the caps in [`ArchiveLimits`] stop bombs; beyond
//! those, every record a reader accepts is bounded *before* it is held in memory:
//!
//! - tar ([`untar`]): the decompressed stream is capped as a whole; GNU long-name and
//!   long-link records are at most [`MAX_PATH_BYTES`](super::package::MAX_PATH_BYTES)
//!   (+1), pax extended headers
//!   [`MAX_PAX_BYTES`], and are read by tfsum, not by the `tar` crate (which reads
//!   them whole, whatever their size); sparse files are refused; xz may use at most
//!   [`XZ_MEMORY_LIMIT`] for its dictionary.
//! - zip ([`unzip`]): tfsum's own central-directory reader, which holds one record at a
//!   time (a name or extra field is at most 64 KiB by the format) and never trusts a
//!   count it has not read.
//!
//! Only configuration files are read into memory, each checked against the room left
//! under the kept-bytes cap before it is read; other entries are counted and skipped
//! (for zip without inflating them at all).

mod untar;
mod unzip;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::path::Path;

use super::package::{ContentError, PackageTree};
use tfsum_vocab::module_source::ArchiveFormat;

/// The largest pax extended header read (bytes): a few paths and times, or extended
/// attributes, are far smaller.
const MAX_PAX_BYTES: u64 = 64 << 10;

/// Memory the xz decoder may take: enough for `xz -9` (a 64 MiB dictionary); a
/// stream that asks for more (up to 4 GiB) is refused.
const XZ_MEMORY_LIMIT: u64 = 80 << 20;

/// Caps for one module package, archive or git tree, in the spirit of the provider zip
/// caps ([`tfsum_vocab::hash::zipstream::ZipLimits`]) but sized for module repositories,
/// which hold many small files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// Bytes of one downloaded archive.
    pub max_download_bytes: u64,
    /// Unpacked size: of the whole tar stream (headers included), or the sizes zip
    /// entries declare (decompression-bomb guard).
    pub max_unpacked_bytes: u64,
    /// Entries (files, directories, links) in one package, and in what it materializes
    /// to once symlinks are copied.
    pub max_entries: usize,
    /// Configuration files kept in memory, in total, and written once symlinks are
    /// copied.
    pub max_config_bytes: u64,
}

impl Default for ArchiveLimits {
    fn default() -> ArchiveLimits {
        ArchiveLimits {
            max_download_bytes: 512 << 20,
            max_unpacked_bytes: 4 << 30,
            max_entries: 100_000,
            max_config_bytes: 64 << 20,
        }
    }
}

/// Why an archive could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    #[error("{0}")]
    Package(#[from] ContentError),
    #[error("not a valid {format} archive: {reason}")]
    Corrupt {
        format: &'static str,
        reason: String,
    },
    #[error("unpacks to more than {0} bytes")]
    TooLarge(u64),
    #[error("entry name {0:?} is not UTF-8")]
    BadName(String),
    #[error("a {what} record of {size} bytes is larger than the limit of {cap} bytes")]
    RecordTooLarge {
        what: &'static str,
        size: u64,
        cap: u64,
    },
    #[error("entry {entry:?} is {what}, which tfsum does not read")]
    Unsupported { entry: String, what: String },
}

/// Reads the archive at `path` (a downloaded file) into a package tree.
pub(crate) fn read_archive(
    path: &Path,
    format: ArchiveFormat,
    limits: &ArchiveLimits,
) -> Result<PackageTree, ArchiveError> {
    let file = File::open(path).map_err(|e| ArchiveError::Corrupt {
        format: format.name(),
        reason: e.to_string(),
    })?;
    read_from(file, format, limits)
}

fn read_from<R: Read + Seek>(
    reader: R,
    format: ArchiveFormat,
    limits: &ArchiveLimits,
) -> Result<PackageTree, ArchiveError> {
    let name = format.name();
    match format {
        ArchiveFormat::Zip => unzip::read_zip(BufReader::new(reader), limits),
        // Concatenated members or streams go on, as Go's readers (and so go-getter's)
        // read them: the first alone would be a different package.
        ArchiveFormat::TarGz => untar::read_tar(
            flate2::read::MultiGzDecoder::new(BufReader::new(reader)),
            name,
            limits,
        ),
        ArchiveFormat::TarBz2 => untar::read_tar(
            bzip2::read::MultiBzDecoder::new(BufReader::new(reader)),
            name,
            limits,
        ),
        ArchiveFormat::TarXz => {
            let concatenated = xz2::stream::CONCATENATED;
            let stream = xz2::stream::Stream::new_stream_decoder(XZ_MEMORY_LIMIT, concatenated)
                .map_err(|e| ArchiveError::Corrupt {
                    format: name,
                    reason: e.to_string(),
                })?;
            untar::read_tar(
                xz2::read::XzDecoder::new_stream(BufReader::new(reader), stream),
                name,
                limits,
            )
        }
    }
}

/// Reads `bytes` as the fetcher reads a downloaded archive, and materializes the
/// package: its configuration files and their sizes. `format` is an archive format's
/// name (`zip`, `tar.gz`, `tar.bz2`, `tar.xz`) or `tar`, the tar layer alone. For the
/// fuzz targets and library-level tests.
pub fn unpack_archive(
    bytes: &[u8],
    format: &str,
    limits: &ArchiveLimits,
) -> Result<BTreeMap<String, usize>, String> {
    let cursor = io::Cursor::new(bytes);
    let tree = match format {
        "tar" => untar::read_tar(cursor, "tar", limits),
        "zip" => read_from(cursor, ArchiveFormat::Zip, limits),
        "tar.gz" => read_from(cursor, ArchiveFormat::TarGz, limits),
        "tar.bz2" => read_from(cursor, ArchiveFormat::TarBz2, limits),
        "tar.xz" => read_from(cursor, ArchiveFormat::TarXz, limits),
        other => return Err(format!("unknown archive format {other:?}")),
    }
    .map_err(|e| e.to_string())?;
    let package = tree.materialize().map_err(|e| e.to_string())?;
    Ok(package
        .files
        .iter()
        .map(|(path, content)| (path.clone(), content.len()))
        .collect())
}

/// Reads exactly `expected` bytes of `reader`, which the caller has checked against its
/// caps; a stream that ends early or runs on is corrupt (`failed` says how).
fn read_exactly(
    reader: impl Read,
    expected: u64,
    failed: &dyn Fn(io::Error) -> ArchiveError,
) -> Result<Vec<u8>, ArchiveError> {
    let mut content = Vec::new();
    reader
        .take(expected.saturating_add(1))
        .read_to_end(&mut content)
        .map_err(failed)?;
    if content.len() as u64 != expected {
        return Err(failed(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "an entry holds {} bytes where its header says {expected}",
                content.len()
            ),
        )));
    }
    Ok(content)
}

/// A name as UTF-8, or the error naming it.
fn utf8_name(bytes: Vec<u8>) -> Result<String, ArchiveError> {
    String::from_utf8(bytes)
        .map_err(|e| ArchiveError::BadName(String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn tar_gz(entries: &[(&str, tar::EntryType, &[u8], Option<&str>)]) -> Vec<u8> {
        gzip(&tar_plain(entries))
    }

    /// A tar stream with raw (unchecked) names and link targets, so that hostile ones
    /// (`../x`) reach the reader unchanged.
    fn tar_plain(entries: &[(&str, tar::EntryType, &[u8], Option<&str>)]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (name, kind, content, link) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(*kind);
            header.set_size(content.len() as u64);
            header.set_mode(0o644);
            let raw = header.as_old_mut();
            raw.name[..name.len()].copy_from_slice(name.as_bytes());
            if let Some(link) = link {
                raw.linkname[..link.len()].copy_from_slice(link.as_bytes());
            }
            header.set_cksum();
            builder.append(&header, *content).unwrap();
        }
        builder.into_inner().unwrap()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap()
    }

    fn read(
        bytes: &[u8],
        format: ArchiveFormat,
        limits: &ArchiveLimits,
    ) -> Result<PackageTree, ArchiveError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a");
        std::fs::write(&path, bytes).unwrap();
        read_archive(&path, format, limits)
    }

    #[test]
    fn tar_gz_keeps_configuration_and_refuses_escapes() {
        use tar::EntryType::*;
        let ok = tar_gz(&[
            ("mod/", Directory, b"", None),
            ("mod/main.tf", Regular, b"x", None),
            ("mod/big.bin", Regular, &[0; 100], None),
            ("mod/link.tf", Symlink, b"", Some("main.tf")),
            ("mod/hard.tf", Link, b"", Some("mod/main.tf")),
        ]);
        let tree = read(&ok, ArchiveFormat::TarGz, &ArchiveLimits::default()).unwrap();
        let m = tree.materialize().unwrap();
        assert_eq!(
            m.files.keys().cloned().collect::<Vec<_>>(),
            vec!["mod/hard.tf", "mod/link.tf", "mod/main.tf"]
        );

        let cases: Vec<(Vec<u8>, &str)> = vec![
            (
                tar_gz(&[("../evil.tf", Regular, b"x", None)]),
                "contains \"..\"",
            ),
            (
                tar_gz(&[("/etc/evil.tf", Regular, b"x", None)]),
                "absolute path",
            ),
            (
                tar_gz(&[("a/l", Symlink, b"", Some("../../etc"))]),
                "points outside the package",
            ),
            (
                tar_gz(&[("l", Symlink, b"", Some("/etc/passwd"))]),
                "points outside the package",
            ),
            (
                tar_gz(&[("h.tf", Link, b"", Some("../x"))]),
                "points outside the package",
            ),
            (
                tar_gz(&[("sub\\..\\..\\x.tf", Regular, b"x", None)]),
                "entry \"sub\\\\..\\\\..\\\\x.tf\" is not a safe name on every operating system",
            ),
            (
                tar_gz(&[("C:x.tf", Regular, b"x", None)]),
                "entry \"C:x.tf\" is not a safe name",
            ),
            (
                tar_gz(&[("m/nul.tf", Regular, b"x", None)]),
                "entry \"m/nul.tf\" is not a safe name",
            ),
            (
                b"this is not an archive".to_vec(),
                "not a valid tar.gz archive",
            ),
        ];
        for (bytes, want) in cases {
            let err = read(&bytes, ArchiveFormat::TarGz, &ArchiveLimits::default())
                .and_then(|t| t.materialize().map_err(Into::into))
                .unwrap_err()
                .to_string();
            assert!(err.contains(want), "{want}: {err}");
        }
    }

    #[test]
    fn caps() {
        use tar::EntryType::*;
        let limits = ArchiveLimits {
            max_unpacked_bytes: 50,
            ..ArchiveLimits::default()
        };
        let big = tar_gz(&[("a.bin", Regular, &[0; 100], None)]);
        assert_eq!(
            read(&big, ArchiveFormat::TarGz, &limits).unwrap_err(),
            ArchiveError::TooLarge(50)
        );
        let limits = ArchiveLimits {
            max_entries: 1,
            ..ArchiveLimits::default()
        };
        let two = tar_gz(&[("a.tf", Regular, b"", None), ("b.tf", Regular, b"", None)]);
        assert!(read(&two, ArchiveFormat::TarGz, &limits).is_err());
        // Skipped records count too.
        let fifos = tar_gz(&[("p1", Fifo, b"", None), ("p2", Fifo, b"", None)]);
        assert_eq!(
            read(&fifos, ArchiveFormat::TarGz, &limits).unwrap_err(),
            ArchiveError::Package(ContentError::TooManyEntries(1))
        );
        // A configuration file larger than the room left is refused from its header.
        let limits = ArchiveLimits {
            max_config_bytes: 10,
            ..ArchiveLimits::default()
        };
        let kept = tar_gz(&[
            ("a.tf", Regular, &[b'#'; 6], None),
            ("b.tf", Regular, &[b'#'; 6], None),
        ]);
        assert_eq!(
            read(&kept, ArchiveFormat::TarGz, &limits).unwrap_err(),
            ArchiveError::Package(ContentError::TooLarge(10))
        );
    }

    /// A source of `header` then `zeros` zero bytes, counting what was read from it.
    struct Bomb {
        header: Vec<u8>,
        zeros: u64,
        read: std::rc::Rc<std::cell::Cell<u64>>,
    }

    impl Read for Bomb {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let at = self.read.get();
            let n = if at < self.header.len() as u64 {
                let from = &self.header[at as usize..];
                let n = from.len().min(buf.len());
                buf[..n].copy_from_slice(&from[..n]);
                n
            } else {
                let left = self.header.len() as u64 + self.zeros - at;
                let n = (left.min(buf.len() as u64)) as usize;
                buf[..n].fill(0);
                n
            };
            self.read.set(at + n as u64);
            Ok(n)
        }
    }

    /// A 512-byte tar header of type `kind` declaring `size` bytes of data.
    fn record_header(kind: u8, size: u64) -> Vec<u8> {
        let mut header = tar::Header::new_gnu();
        header.set_path("././@LongLink").unwrap();
        header.set_entry_type(tar::EntryType::new(kind));
        header.set_size(size);
        header.set_cksum();
        header.as_bytes().to_vec()
    }

    /// A 4 GiB GNU long name, long link name or pax header, as a tar.gz of a few MiB
    /// delivers it: refused from its header, before its body is read or allocated.
    /// (The `tar` crate, left to itself, reads such records whole.)
    #[test]
    fn tar_extension_records_are_refused_before_they_are_read() {
        for (kind, what) in [
            (b'L', "GNU long name"),
            (b'K', "GNU long link name"),
            (b'x', "pax extended header"),
        ] {
            let read = std::rc::Rc::new(std::cell::Cell::new(0));
            let bomb = Bomb {
                header: record_header(kind, 4 << 30),
                zeros: 256 << 20,
                read: std::rc::Rc::clone(&read),
            };
            let err = untar::read_tar(bomb, "tar", &ArchiveLimits::default()).unwrap_err();
            match &err {
                ArchiveError::RecordTooLarge {
                    what: got, size, ..
                } => {
                    assert_eq!((*got, *size), (what, 4 << 30), "{err}");
                }
                other => panic!("{what}: {other}"),
            }
            assert!(read.get() < 1 << 20, "{what}: read {} bytes", read.get());
        }
    }

    /// Long names and pax records within bounds name entries as Go reads them.
    #[test]
    fn tar_long_names_and_pax_records_apply_to_the_next_entry() {
        let long = format!("{}/main.tf", "d".repeat(150));
        let mut builder = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_size(1);
        header.set_mode(0o644);
        // `append_data` writes a GNU long-name record for a name this long.
        builder.append_data(&mut header, &long, &b"1"[..]).unwrap();
        let mut pax = tar::Header::new_ustar();
        pax.set_size(2);
        pax.set_mode(0o644);
        builder
            .append_pax_extensions([("path", &b"from/pax.tf"[..])])
            .unwrap();
        builder
            .append_data(&mut pax, "ignored.tf", &b"22"[..])
            .unwrap();
        let plain = builder.into_inner().unwrap();
        let files = unpack_archive(&plain, "tar", &ArchiveLimits::default()).unwrap();
        assert_eq!(
            files.into_iter().collect::<Vec<_>>(),
            vec![(long, 1), ("from/pax.tf".to_string(), 2)]
        );

        // A pax size that differs from the header's would frame other entries.
        let mut builder = tar::Builder::new(Vec::new());
        builder
            .append_pax_extensions([("size", &b"3"[..])])
            .unwrap();
        let mut header = tar::Header::new_ustar();
        header.set_size(1);
        builder.append_data(&mut header, "a.tf", &b"1"[..]).unwrap();
        let err = unpack_archive(
            &builder.into_inner().unwrap(),
            "tar",
            &ArchiveLimits::default(),
        )
        .unwrap_err();
        assert!(
            err.contains("pax size of 3 bytes but a header size of 1"),
            "{err}"
        );

        // Extension records with nothing after them.
        let mut builder = tar::Builder::new(Vec::new());
        builder
            .append_pax_extensions([("path", &b"x.tf"[..])])
            .unwrap();
        let err = unpack_archive(
            &builder.into_inner().unwrap(),
            "tar",
            &ArchiveLimits::default(),
        )
        .unwrap_err();
        assert!(err.contains("describe no entry"), "{err}");
    }

    #[test]
    fn sparse_files_are_refused() {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::GNUSparse);
        header.set_path("disk.img").unwrap();
        header.set_size(0);
        header.set_cksum();
        let mut plain = header.as_bytes().to_vec();
        plain.extend([0u8; 1024]);
        let err = unpack_archive(&plain, "tar", &ArchiveLimits::default()).unwrap_err();
        assert!(err.contains("\"disk.img\" is a GNU sparse file"), "{err}");
    }

    #[test]
    fn zip_and_other_compressions() {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default();
        zip.add_directory("m/", opts).unwrap();
        zip.start_file("m/main.tf", opts).unwrap();
        zip.write_all(b"z").unwrap();
        zip.start_file("m/data.bin", opts).unwrap();
        zip.write_all(&[7; 1000]).unwrap();
        zip.add_symlink("m/alias.tf", "main.tf", opts).unwrap();
        let stored = opts.compression_method(zip::CompressionMethod::Stored);
        zip.start_file("m/stored.tf.json", stored).unwrap();
        zip.write_all(b"{}").unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        let m = read(&bytes, ArchiveFormat::Zip, &ArchiveLimits::default())
            .unwrap()
            .materialize()
            .unwrap();
        assert_eq!(m.files["m/alias.tf"].as_slice(), b"z");
        assert_eq!(m.files["m/stored.tf.json"].as_slice(), b"{}");
        assert_eq!(m.files.len(), 3);

        // Data prepended to the archive (a self-extractor) moves every offset.
        let mut prefixed = vec![b'#'; 100];
        prefixed.extend(&bytes);
        let files = unpack_archive(&prefixed, "zip", &ArchiveLimits::default()).unwrap();
        assert_eq!(files.len(), 3);

        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        zip.add_symlink("x", "../../etc", opts).unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        let err = read(&bytes, ArchiveFormat::Zip, &ArchiveLimits::default()).unwrap_err();
        assert!(err.to_string().contains("outside the package"), "{err}");

        // The same tar through bzip2 and xz.
        let plain = tar_plain(&[("v.tf", tar::EntryType::Regular, b"1", None)]);
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        bz.write_all(&plain).unwrap();
        let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
        xz.write_all(&plain).unwrap();
        for (bytes, format) in [
            (bz.finish().unwrap(), ArchiveFormat::TarBz2),
            (xz.finish().unwrap(), ArchiveFormat::TarXz),
        ] {
            let m = read(&bytes, format, &ArchiveLimits::default())
                .unwrap()
                .materialize()
                .unwrap();
            assert_eq!(m.files["v.tf"].as_slice(), b"1", "{format:?}");
        }
    }

    /// A tar split over two gzip members (or bzip2/xz streams) is one archive, as Go
    /// reads it: go-getter would unpack both halves.
    #[test]
    fn concatenated_members_are_one_archive() {
        let whole = tar_plain(&[
            ("a.tf", tar::EntryType::Regular, b"a", None),
            ("b.tf", tar::EntryType::Regular, b"b", None),
        ]);
        let (first, second) = whole.split_at(1024);
        let mut gz = gzip(first);
        gz.extend(gzip(second));
        let mut bz = Vec::new();
        let mut xz = Vec::new();
        for half in [first, second] {
            let mut b = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            b.write_all(half).unwrap();
            bz.extend(b.finish().unwrap());
            let mut x = xz2::write::XzEncoder::new(Vec::new(), 1);
            x.write_all(half).unwrap();
            xz.extend(x.finish().unwrap());
        }
        for (bytes, format) in [(gz, "tar.gz"), (bz, "tar.bz2"), (xz, "tar.xz")] {
            let files = unpack_archive(&bytes, format, &ArchiveLimits::default()).unwrap();
            assert_eq!(files.len(), 2, "{format}: {files:?}");
        }
    }

    /// An xz stream whose dictionary needs more than the decoder may take is refused
    /// from its header.
    #[test]
    fn xz_dictionaries_are_capped() {
        let plain = tar_plain(&[("v.tf", tar::EntryType::Regular, b"1", None)]);
        let mut options = xz2::stream::LzmaOptions::new_preset(1).unwrap();
        options.dict_size(1 << 30);
        let mut filters = xz2::stream::Filters::new();
        filters.lzma2(&options);
        let stream =
            xz2::stream::Stream::new_stream_encoder(&filters, xz2::stream::Check::Crc64).unwrap();
        let mut xz = xz2::write::XzEncoder::new_stream(Vec::new(), stream);
        xz.write_all(&plain).unwrap();
        let err =
            unpack_archive(&xz.finish().unwrap(), "tar.xz", &ArchiveLimits::default()).unwrap_err();
        assert!(err.contains("not a valid tar.xz archive"), "{err}");
    }

    fn zip_of(entries: &[&str]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default();
        for name in entries {
            zip.start_file(*name, opts).unwrap();
            zip.write_all(b"x").unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    /// End records that claim more than the archive holds, or lie about where the
    /// directory is, are refused without reading or allocating what they claim.
    #[test]
    fn zip_directories_are_read_within_bounds() {
        let good = zip_of(&["a.tf", "b.tf"]);
        let end = good.len() - END_LEN_FOR_TESTS;
        let limits = ArchiveLimits {
            max_entries: 10,
            ..ArchiveLimits::default()
        };
        let patched = |at: usize, bytes: &[u8]| {
            let mut z = good.clone();
            z[end + at..end + at + bytes.len()].copy_from_slice(bytes);
            z
        };
        for (zip, want) in [
            // 65534 entries declared: refused before reading one.
            (
                patched(10, &0xFFFEu16.to_le_bytes()),
                "more than 10 entries",
            ),
            // Three declared, two there.
            (
                patched(10, &3u16.to_le_bytes()),
                "holds 2 entries where its end record says 3",
            ),
            // A directory larger than the file.
            (patched(12, &u32::MAX.to_le_bytes()), "outside the file"),
            (b"PK\x05\x06".to_vec(), "no end of central directory record"),
            (Vec::new(), "no end of central directory record"),
        ] {
            let err = unpack_archive(&zip, "zip", &limits).unwrap_err();
            assert!(err.contains(want), "{want}: {err}");
        }
        // Zip64: the end record's counts are all ones and the real ones follow the
        // locator; a count beyond the cap is refused there.
        let dir_size = u64::from(u32::from_le_bytes(
            good[end + 12..end + 16].try_into().unwrap(),
        ));
        let dir_offset = u64::from(u32::from_le_bytes(
            good[end + 16..end + 20].try_into().unwrap(),
        ));
        let zip64 = |records: u64| {
            let mut zip64 = good[..end].to_vec();
            let end64_at = zip64.len() as u64;
            zip64.extend(0x0606_4b50u32.to_le_bytes());
            zip64.extend(44u64.to_le_bytes());
            zip64.extend([45, 3, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            zip64.extend(records.to_le_bytes());
            zip64.extend(records.to_le_bytes());
            zip64.extend(dir_size.to_le_bytes());
            zip64.extend(dir_offset.to_le_bytes());
            zip64.extend(0x0706_4b50u32.to_le_bytes());
            zip64.extend(0u32.to_le_bytes());
            zip64.extend(end64_at.to_le_bytes());
            zip64.extend(1u32.to_le_bytes());
            zip64.extend(0x0605_4b50u32.to_le_bytes());
            zip64.extend([0; 4]);
            zip64.extend([0xFF; 4]);
            zip64.extend([0xFF; 8]);
            zip64.extend([0; 2]);
            zip64
        };
        let files = unpack_archive(&zip64(2), "zip", &limits).unwrap();
        assert_eq!(files.len(), 2);
        let err = unpack_archive(&zip64(u64::MAX), "zip", &limits).unwrap_err();
        assert!(err.contains("more than 10 entries"), "{err}");
    }

    const END_LEN_FOR_TESTS: usize = 22;

    /// Names unsafe on Windows are refused in zips too, with the entry named.
    #[test]
    fn zip_entry_names_are_checked() {
        for name in ["C:/Windows/x.tf", "sub\\..\\..\\x.tf", "con.tf", "a/b.tf:x"] {
            let err =
                unpack_archive(&zip_of(&[name]), "zip", &ArchiveLimits::default()).unwrap_err();
            assert!(
                err.starts_with(&format!("entry {name:?} is not a safe name")),
                "{name}: {err}"
            );
        }
    }
}
