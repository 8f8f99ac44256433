//! Reading module archives (`.zip`, `.tar.gz`/`.tgz`, `.tar.bz2`, `.tar.xz`) into a
//! checked [`PackageTree`], never onto the disk directly.
//!
//! Archives come from the network and are untrusted: entry names, symlinks and sizes go
//! through [`PackageTree`]'s checks, and the caps in [`ArchiveLimits`] stop bombs. Only
//! configuration files are read into memory; other entries are counted and skipped
//! (for zip without inflating them at all).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::package::{is_kept, PackageError, PackageTree};
use super::source::ArchiveFormat;

/// Caps for one module package, archive or git tree, in the spirit of the provider zip
/// caps ([`crate::vocab::hash::zipstream::ZipLimits`]) but sized for module repositories,
/// which hold many small files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// Bytes of one downloaded archive.
    pub max_download_bytes: u64,
    /// Declared unpacked size of all entries (decompression-bomb guard).
    pub max_unpacked_bytes: u64,
    /// Entries (files, directories, links) in one package.
    pub max_entries: usize,
    /// Configuration files kept in memory, in total.
    pub max_config_bytes: u64,
}

impl Default for ArchiveLimits {
    fn default() -> ArchiveLimits {
        ArchiveLimits {
            max_download_bytes: 512 << 20,
            max_unpacked_bytes: 4 << 30,
            max_entries: 100_000,
            max_config_bytes: 256 << 20,
        }
    }
}

/// Why an archive could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArchiveError {
    #[error("{0}")]
    Package(#[from] PackageError),
    #[error("not a valid {format} archive: {reason}")]
    Corrupt {
        format: &'static str,
        reason: String,
    },
    #[error("unpacks to more than {0} bytes")]
    TooLarge(u64),
    #[error("entry name {0:?} is not UTF-8")]
    BadName(String),
}

impl ArchiveFormat {
    pub fn name(self) -> &'static str {
        match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::TarGz => "tar.gz",
            ArchiveFormat::TarBz2 => "tar.bz2",
            ArchiveFormat::TarXz => "tar.xz",
        }
    }
}

/// Reads the archive at `path` (a downloaded file) into a package tree.
pub(crate) fn read_archive(
    path: &Path,
    format: ArchiveFormat,
    limits: &ArchiveLimits,
) -> Result<PackageTree, ArchiveError> {
    let corrupt = |reason: String| ArchiveError::Corrupt {
        format: format.name(),
        reason,
    };
    let file = File::open(path).map_err(|e| corrupt(e.to_string()))?;
    match format {
        ArchiveFormat::Zip => read_zip(file, limits),
        ArchiveFormat::TarGz => read_tar(
            flate2::read::GzDecoder::new(BufReader::new(file)),
            format,
            limits,
        ),
        ArchiveFormat::TarBz2 => read_tar(
            bzip2::read::BzDecoder::new(BufReader::new(file)),
            format,
            limits,
        ),
        ArchiveFormat::TarXz => read_tar(
            xz2::read::XzDecoder::new(BufReader::new(file)),
            format,
            limits,
        ),
    }
}

fn new_tree(limits: &ArchiveLimits) -> PackageTree {
    PackageTree::new(limits.max_entries, limits.max_config_bytes)
}

/// Reads at most `cap` bytes of `reader`; more is a [`PackageError::TooLarge`].
fn read_capped(
    reader: impl Read,
    cap: u64,
    corrupt: &dyn Fn(String) -> ArchiveError,
) -> Result<Vec<u8>, ArchiveError> {
    let mut content = Vec::new();
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut content)
        .map_err(|e| corrupt(e.to_string()))?;
    if content.len() as u64 > cap {
        return Err(PackageError::TooLarge(cap).into());
    }
    Ok(content)
}

fn read_tar(
    reader: impl Read,
    format: ArchiveFormat,
    limits: &ArchiveLimits,
) -> Result<PackageTree, ArchiveError> {
    let corrupt = |reason: String| ArchiveError::Corrupt {
        format: format.name(),
        reason,
    };
    let mut tree = new_tree(limits);
    let mut archive = tar::Archive::new(reader);
    let mut unpacked = 0u64;
    let entries = archive.entries().map_err(|e| corrupt(e.to_string()))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| corrupt(e.to_string()))?;
        let name_bytes = entry.path_bytes().into_owned();
        let name = String::from_utf8(name_bytes).map_err(|e| {
            ArchiveError::BadName(String::from_utf8_lossy(e.as_bytes()).into_owned())
        })?;
        let size = entry.header().size().map_err(|e| corrupt(e.to_string()))?;
        unpacked = unpacked.saturating_add(size);
        if unpacked > limits.max_unpacked_bytes {
            return Err(ArchiveError::TooLarge(limits.max_unpacked_bytes));
        }
        let kind = entry.header().entry_type();
        match kind {
            tar::EntryType::Directory => tree.add_dir(&name)?,
            tar::EntryType::Symlink => {
                let target = tar_link_name(&entry, &name, &corrupt)?;
                tree.add_symlink(&name, &target)?;
            }
            // A hard link names another entry from the archive root; as a symlink from
            // the link's own directory it resolves to the same entry.
            tar::EntryType::Link => {
                let target = tar_link_name(&entry, &name, &corrupt)?;
                let depth = super::package::clean_entry_path(&name)?
                    .matches('/')
                    .count();
                tree.add_symlink(&name, &format!("{}{}", "../".repeat(depth), target))?;
            }
            tar::EntryType::Regular | tar::EntryType::Continuous | tar::EntryType::GNUSparse => {
                let content = if is_kept(&name) {
                    Some(read_capped(&mut entry, limits.max_config_bytes, &corrupt)?)
                } else {
                    None
                };
                tree.add_file(&name, content)?;
            }
            // pax and GNU long-name records are consumed by the tar crate; devices and
            // FIFOs are nothing a module can use.
            _ => {}
        }
    }
    Ok(tree)
}

fn tar_link_name<R: Read>(
    entry: &tar::Entry<'_, R>,
    name: &str,
    corrupt: &dyn Fn(String) -> ArchiveError,
) -> Result<String, ArchiveError> {
    let target = entry
        .link_name_bytes()
        .ok_or_else(|| corrupt(format!("link {name:?} has no target")))?;
    String::from_utf8(target.into_owned())
        .map_err(|e| ArchiveError::BadName(String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// The Unix file type bits of a zip entry's external attributes (`S_IFLNK`).
const S_IFMT: u32 = 0o170000;
const S_IFLNK: u32 = 0o120000;

fn read_zip(file: File, limits: &ArchiveLimits) -> Result<PackageTree, ArchiveError> {
    let corrupt = |reason: String| ArchiveError::Corrupt {
        format: "zip",
        reason,
    };
    let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| corrupt(e.to_string()))?;
    if zip.len() > limits.max_entries {
        return Err(PackageError::TooManyEntries(limits.max_entries).into());
    }
    let mut tree = new_tree(limits);
    let mut unpacked = 0u64;
    for index in 0..zip.len() {
        let entry = zip.by_index(index).map_err(|e| corrupt(e.to_string()))?;
        let name = String::from_utf8(entry.name_raw().to_vec()).map_err(|e| {
            ArchiveError::BadName(String::from_utf8_lossy(e.as_bytes()).into_owned())
        })?;
        unpacked = unpacked.saturating_add(entry.size());
        if unpacked > limits.max_unpacked_bytes {
            return Err(ArchiveError::TooLarge(limits.max_unpacked_bytes));
        }
        let is_link = entry
            .unix_mode()
            .is_some_and(|mode| mode & S_IFMT == S_IFLNK);
        if entry.is_dir() {
            tree.add_dir(&name)?;
        } else if is_link {
            let target = read_capped(entry, 4096, &corrupt)?;
            let target = String::from_utf8(target).map_err(|e| {
                ArchiveError::BadName(String::from_utf8_lossy(e.as_bytes()).into_owned())
            })?;
            tree.add_symlink(&name, &target)?;
        } else if is_kept(&name) {
            // The declared size may lie; the cap applies to what inflates.
            let content = read_capped(entry, limits.max_config_bytes, &corrupt)?;
            tree.add_file(&name, Some(content))?;
        } else {
            tree.add_file(&name, None)?;
        }
    }
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn tar_gz(entries: &[(&str, tar::EntryType, &[u8], Option<&str>)]) -> Vec<u8> {
        let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
            Vec::new(),
            flate2::Compression::default(),
        ));
        for (name, kind, content, link) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(*kind);
            header.set_size(content.len() as u64);
            header.set_mode(0o644);
            // Names go in raw, so hostile ones (`../x`) reach the reader unchanged.
            let raw = header.as_old_mut();
            raw.name[..name.len()].copy_from_slice(name.as_bytes());
            if let Some(link) = link {
                raw.linkname[..link.len()].copy_from_slice(link.as_bytes());
            }
            header.set_cksum();
            builder.append(&header, *content).unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap()
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
    }

    #[test]
    fn zip_and_other_compressions() {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default();
        zip.add_directory("m/", opts).unwrap();
        zip.start_file("m/main.tf", opts).unwrap();
        zip.write_all(b"z").unwrap();
        zip.add_symlink("m/alias.tf", "main.tf", opts).unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        let m = read(&bytes, ArchiveFormat::Zip, &ArchiveLimits::default())
            .unwrap()
            .materialize()
            .unwrap();
        assert_eq!(m.files["m/alias.tf"].as_slice(), b"z");

        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        zip.add_symlink("x", "../../etc", opts).unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        let err = read(&bytes, ArchiveFormat::Zip, &ArchiveLimits::default()).unwrap_err();
        assert!(err.to_string().contains("outside the package"), "{err}");

        // The same tar through bzip2 and xz.
        let mut plain = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_size(1);
        header.set_mode(0o644);
        header.set_cksum();
        plain.append_data(&mut header, "v.tf", &b"1"[..]).unwrap();
        let plain = plain.into_inner().unwrap();
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
}
