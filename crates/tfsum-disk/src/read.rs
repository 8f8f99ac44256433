//! Reading the many small files of a run (configuration files, lock files) in as few
//! system calls as the kernel allows: open, read to the end, close.
//!
//! `std::fs::read` first asks for the file's size and position (a `statx` and an
//! `lseek`) to size its buffer; over thousands of files of a few hundred bytes each, those
//! calls cost more than the reads. Here the buffer starts at [`FIRST_READ`] bytes and
//! grows as the file turns out longer.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The first read's size: a configuration or lock file usually fits.
const FIRST_READ: usize = 8 << 10;

/// The bytes of the file at `path`.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    read_all(&File::open(path)?)
}

/// The text of the file at `path`; not UTF-8 is an [`io::ErrorKind::InvalidData`] error,
/// as from `std::fs::read_to_string`.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// The bytes of the file at `path` when `path` itself is not a symbolic link; a link is
/// an error (`ELOOP` on Unix), so that a file a listing showed as a plain file is not
/// read through a link put in its place since.
pub fn read_no_follow(path: &Path) -> io::Result<Vec<u8>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    read_all(&options.open(path)?)
}

/// Reads `file` to its end through [`Read::read`] alone (`File`'s own `read_to_end`
/// would ask for its size and position first).
fn read_all(file: &File) -> io::Result<Vec<u8>> {
    struct Plain<'a>(&'a File);
    impl Read for Plain<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            (&*self.0).read(buf)
        }
    }
    let mut bytes = Vec::with_capacity(FIRST_READ);
    Plain(file).read_to_end(&mut bytes)?;
    // Lock files are kept until written: only what they hold.
    bytes.shrink_to_fit();
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_whole_files_of_any_size() {
        let tmp = tempfile::tempdir().unwrap();
        for len in [
            0,
            1,
            FIRST_READ - 1,
            FIRST_READ,
            FIRST_READ + 1,
            5 * FIRST_READ + 3,
        ] {
            let path = tmp.path().join(format!("f{len}"));
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            std::fs::write(&path, &data).unwrap();
            assert_eq!(read(&path).unwrap(), data, "{len} bytes");
            assert_eq!(read_no_follow(&path).unwrap(), data, "{len} bytes");
        }
        let text = tmp.path().join("text");
        std::fs::write(&text, "héllo\n").unwrap();
        assert_eq!(read_to_string(&text).unwrap(), "héllo\n");
        std::fs::write(&text, b"\xff\xfe").unwrap();
        let err = read_to_string(&text).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            err.to_string(),
            std::fs::read_to_string(&text).unwrap_err().to_string()
        );
        assert_eq!(
            read(&tmp.path().join("missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[cfg(unix)]
    #[test]
    fn no_follow_refuses_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target");
        std::fs::write(&target, "x").unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(read(&link).unwrap(), b"x");
        assert!(read_no_follow(&link).is_err());
    }
}
