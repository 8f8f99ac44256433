//! Unpacking a provider package, a zip, into a directory the way Terraform's installer
//! does (go-getter's zip decompressor): every file at its path below the directory,
//! directories made as needed, a file's permissions from the archive's Unix mode where it
//! records one (0644 otherwise, as Go's 0666 under the usual umask).
//!
//! The archive has already been checked against the signed SHA256SUMS, but the bounds of
//! [`ZipLimits`] still hold (entries, unpacked bytes), and no entry may leave the
//! directory or be a link: provider packages hold plain files.
//!
//! Files are not flushed to disk one by one (Terraform's installer does not flush them
//! either; on the bench's machine the flushes took most of a cold `tfsum mirror`'s time):
//! an entry a crash left damaged fails its `h1:` check on the next run and is replaced.

use std::fs::{self, File};
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

use tfsum_vocab::hash::ZipLimits;

/// Why a package could not be unpacked.
#[derive(Debug, thiserror::Error)]
pub enum UnzipError {
    #[error("not a zip Terraform can unpack: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("entry {0:?} would be written outside the package directory")]
    Escapes(String),
    #[error("entry {0:?} is a symbolic link; provider packages hold plain files")]
    Link(String),
    #[error("more than {0} entries")]
    TooManyEntries(usize),
    #[error("more than {0} bytes unpacked")]
    TooLarge(u64),
    #[error("writing {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

const S_IFMT: u32 = 0o170_000;
const S_IFLNK: u32 = 0o120_000;

/// Unpacks the zip at `zip` into `into`, an existing empty directory.
pub(crate) fn unzip(zip: &Path, into: &Path, limits: &ZipLimits) -> Result<(), UnzipError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| UnzipError::Io { path, source }
    };
    let file = File::open(zip).map_err(io_err(zip))?;
    let mut archive = zip::ZipArchive::new(io::BufReader::new(file))?;
    if archive.len() > limits.max_entries {
        return Err(UnzipError::TooManyEntries(limits.max_entries));
    }
    let mut left = limits.max_uncompressed_bytes;
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index)?;
        let name = entry.name().to_string();
        let Some(rel) = entry.enclosed_name() else {
            return Err(UnzipError::Escapes(name));
        };
        let path = into.join(rel);
        let mode = entry.unix_mode();
        if mode.is_some_and(|m| m & S_IFMT == S_IFLNK) {
            return Err(UnzipError::Link(name));
        }
        if entry.is_dir() {
            fs::create_dir_all(&path).map_err(io_err(&path))?;
            continue;
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let mut out = create(&path, mode.map_or(0o644, |m| m & 0o777)).map_err(io_err(&path))?;
        let copied = io::copy(&mut (&mut entry).take(left.saturating_add(1)), &mut out).map_err(
            |source| match source.kind() {
                // The archive's own data failed to inflate or check.
                io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof => {
                    UnzipError::Zip(zip::result::ZipError::Io(source))
                }
                _ => UnzipError::Io {
                    path: path.clone(),
                    source,
                },
            },
        )?;
        if copied > left {
            return Err(UnzipError::TooLarge(limits.max_uncompressed_bytes));
        }
        left -= copied;
    }
    Ok(())
}

/// A new file with `mode` (Unix permissions; ignored elsewhere).
fn create(path: &Path, mode: u32) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    options.open(path)
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use tfsum_vocab::hash::dirhash::h1_dir;
    use tfsum_vocab::hash::zipstream::hash_zip_file;

    fn zip_of(entries: &[(&str, &[u8], u32)]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        for (name, data, mode) in entries {
            let options = zip::write::SimpleFileOptions::default().unix_permissions(*mode);
            out.start_file(*name, options).unwrap();
            out.write_all(data).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    /// The unpacked directory hashes to the zip's own `h1:`, and the provider binary
    /// keeps its execute bit.
    #[test]
    fn unpacks_to_the_zips_h1_with_modes() {
        let dir = tempfile::tempdir().unwrap();
        let zip = dir.path().join("p.zip");
        let bytes = zip_of(&[
            (
                "terraform-provider-null_v3.2.1_x5",
                b"\x7fELF binary",
                0o755,
            ),
            ("docs/README.md", b"read me", 0o644),
        ]);
        fs::write(&zip, bytes).unwrap();
        let into = dir.path().join("out");
        fs::create_dir(&into).unwrap();
        unzip(&zip, &into, &ZipLimits::default()).unwrap();
        let from_zip = hash_zip_file(&zip, &ZipLimits::default()).unwrap().h1;
        assert_eq!(h1_dir(&into).unwrap(), from_zip);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &str| fs::metadata(into.join(p)).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode("terraform-provider-null_v3.2.1_x5"), 0o755);
            assert_eq!(mode("docs/README.md"), 0o644);
        }
    }

    /// Entries that climb out, and archives over the limits, are refused.
    #[test]
    fn refuses_escapes_and_limits() {
        let dir = tempfile::tempdir().unwrap();
        let zip = dir.path().join("p.zip");
        let into = dir.path().join("out");
        fs::create_dir(&into).unwrap();
        fs::write(&zip, zip_of(&[("../evil", b"x", 0o644)])).unwrap();
        assert!(matches!(
            unzip(&zip, &into, &ZipLimits::default()),
            Err(UnzipError::Escapes(_))
        ));
        assert!(!dir.path().join("evil").exists());

        fs::write(&zip, zip_of(&[("big", &[0u8; 4096], 0o644)])).unwrap();
        let small = ZipLimits {
            max_uncompressed_bytes: 100,
            ..ZipLimits::default()
        };
        let into = dir.path().join("out2");
        fs::create_dir(&into).unwrap();
        assert!(matches!(
            unzip(&zip, &into, &small),
            Err(UnzipError::TooLarge(100))
        ));
    }
}
