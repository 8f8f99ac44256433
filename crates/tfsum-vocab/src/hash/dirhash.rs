//! The `h1:` hash: golang.org/x/mod `dirhash.Hash1` (spec §2.1).
//!
//! [`Summary`] is the algorithm itself: it collects `(name, sha256 of content)` pairs,
//! sorts them by name and hashes the `"%x  %s\n"` lines. Two producers feed it:
//! [`h1_dir`] walks an unpacked package directory (what Terraform hashes after
//! installing), and [`super::zipstream`] hashes zip entries as they stream past.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{Hash, HashError};

/// The list of files a `Hash1` digest is computed over.
///
/// Names are bytes, not `str`: Go strings are byte strings, so a zip entry or file name
/// that is not UTF-8 still hashes as its raw bytes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Summary {
    files: Vec<(Vec<u8>, [u8; 32])>,
}

impl Summary {
    pub(crate) fn new() -> Summary {
        Summary::default()
    }

    /// Adds one file. A name added twice is listed twice, as Go's `HashZip` would list a
    /// duplicated zip entry; callers emulating an unpacked tree pass each name once.
    pub(crate) fn push(&mut self, name: impl Into<Vec<u8>>, sha256: [u8; 32]) {
        self.files.push((name.into(), sha256));
    }

    /// The summary text that gets hashed: one `"<hex sha256>  <name>\n"` line per file,
    /// in byte-wise name order (spec §2.1 steps 2–4).
    pub(crate) fn text(&self) -> Result<Vec<u8>, HashError> {
        let mut files: Vec<&(Vec<u8>, [u8; 32])> = self.files.iter().collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Vec::with_capacity(files.iter().map(|(n, _)| n.len() + 67).sum());
        for (name, digest) in files {
            if name.contains(&b'\n') {
                return Err(HashError::NewlineInName(
                    String::from_utf8_lossy(name).into_owned(),
                ));
            }
            out.extend_from_slice(hex::encode(digest).as_bytes());
            out.extend_from_slice(b"  ");
            out.extend_from_slice(name);
            out.push(b'\n');
        }
        Ok(out)
    }

    /// `h1:` + base64 of the SHA-256 of [`Summary::text`] (spec §2.1 step 5).
    pub(crate) fn finish(&self) -> Result<Hash, HashError> {
        let digest: [u8; 32] = Sha256::digest(self.text()?).into();
        Ok(Hash::h1_from_digest(&digest))
    }
}

/// `h1:` of an unpacked package directory, as Terraform computes it with
/// `dirhash.HashDir(dir, "", Hash1)` after `filepath.EvalSymlinks(dir)` (spec §2.1).
///
/// Every non-directory entry counts, named by its path relative to `dir` with `/`
/// separators. A symlink inside the tree is listed under its own name and read through,
/// so a link to a file hashes the target's bytes; a link to a directory cannot be read
/// and is an error, as in Go. Symlinked directories are not descended into.
pub fn h1_dir(dir: &Path) -> Result<Hash, HashError> {
    let io_err = |path: &Path, source: io::Error| HashError::Io {
        path: path.to_path_buf(),
        source,
    };
    let root = fs::canonicalize(dir).map_err(|e| io_err(dir, e))?;
    if !fs::metadata(&root).map_err(|e| io_err(&root, e))?.is_dir() {
        return Err(HashError::NotADirectory(dir.to_path_buf()));
    }

    let mut summary = Summary::new();
    for entry in walkdir::WalkDir::new(&root).follow_links(false) {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(&root).to_path_buf();
            HashError::Io {
                path,
                source: e.into(),
            }
        })?;
        if entry.file_type().is_dir() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(&root)
            .map_err(|_| HashError::Io {
                path: entry.path().to_path_buf(),
                source: io::Error::other("walked outside the package directory"),
            })?;
        let digest = sha256_file(entry.path()).map_err(|e| io_err(entry.path(), e))?;
        summary.push(slash_name(rel), digest);
    }
    summary.finish()
}

/// The relative path as dirhash names it: components joined by `/` on every platform.
fn slash_name(rel: &Path) -> Vec<u8> {
    let mut name = Vec::new();
    for (i, part) in rel.components().enumerate() {
        if i > 0 {
            name.push(b'/');
        }
        name.extend_from_slice(os_bytes(part.as_os_str()).as_ref());
    }
    name
}

#[cfg(unix)]
fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt as _;
    std::borrow::Cow::Borrowed(s.as_bytes())
}

#[cfg(not(unix))]
fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    // Go converts Windows UTF-16 names to UTF-8; lossy conversion matches that for
    // every well-formed name.
    match s.to_string_lossy() {
        std::borrow::Cow::Borrowed(b) => std::borrow::Cow::Borrowed(b.as_bytes()),
        std::borrow::Cow::Owned(o) => std::borrow::Cow::Owned(o.into_bytes()),
    }
}

/// SHA-256 of a file's content, following symlinks.
fn sha256_file(path: &Path) -> io::Result<[u8; 32]> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn testdata(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .expect("the repository")
            .join("testdata/hash")
            .join(rel)
    }

    fn sha(data: &[u8]) -> [u8; 32] {
        Sha256::digest(data).into()
    }

    /// golang.org/x/mod TestHash1, with the literal values of vectors §F.
    #[test]
    fn summary_matches_hash1_vector() {
        let mut s = Summary::new();
        s.push("xyz", sha(b"data for xyz"));
        s.push("abc", sha(b"data for abc"));
        assert_eq!(
            String::from_utf8(s.text().unwrap()).unwrap(),
            "c807b6b431cbbfff4dcc032527d0e106e7f76e6aa20b3cab70fa00154144f351  abc\n\
             1a163d344504db00bdf3944d1b36c771245f19cc90df3dc2e5ca78d25d19d51e  xyz\n"
        );
        assert_eq!(
            s.finish().unwrap().as_str(),
            "h1:EP6WfDoQTSk9klnxcjriWJOGztueJUywHNmWeq+efB8="
        );

        let mut bad = Summary::new();
        bad.push("a\nb", sha(b""));
        let err = bad.finish().unwrap_err();
        assert!(matches!(err, HashError::NewlineInName(_)), "{err}");
        assert!(err
            .to_string()
            .starts_with("dirhash: filenames with newlines are not supported"));
    }

    /// Directory vectors (A1, A7, F) plus trees built here: nested dirs, a symlink to a
    /// file, a symlink to a directory (error), not-a-directory (error).
    #[test]
    fn h1_dir_table() {
        let tmp = tempfile::tempdir().unwrap();
        let empty_file = tmp.path().join("empty");
        fs::create_dir_all(&empty_file).unwrap();
        fs::write(empty_file.join("terraform-provider-test"), b"").unwrap();

        let nested = tmp.path().join("nested");
        fs::create_dir_all(nested.join("prefix/deeper")).unwrap();
        fs::create_dir_all(nested.join("emptydir")).unwrap();
        fs::write(nested.join("prefix/abc"), b"data for abc").unwrap();
        fs::write(nested.join("prefix/xyz"), b"data for xyz").unwrap();

        let mut cases: Vec<(PathBuf, Result<&str, &str>)> = vec![
            (
                testdata("null-2.0.0-linux_amd64"),
                Ok("h1:qjsREM4DqEWECD43FcPqddZ9oxCG+IaMTxvWPciS05g="),
            ),
            (
                testdata("dirhash/hashdir_plain"),
                Ok("h1:EP6WfDoQTSk9klnxcjriWJOGztueJUywHNmWeq+efB8="),
            ),
            (
                empty_file,
                Ok("h1:7MjN4eFisdTv4tlhXH5hL4QQd39Jy4baPhFxwAd/EFE="),
            ),
            // TestHashDir's `prefix/abc`, `prefix/xyz` names, reached by nesting instead.
            (
                nested,
                Ok("h1:rLyfpGMAgqOnGE2aKOY5Xb6cOc0/YQhPjHBHBwkblhs="),
            ),
            (
                testdata("dirhash/hashzip_plain.zip"),
                Err("not a directory"),
            ),
            (tmp.path().join("missing"), Err("reading")),
        ];

        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            // A link to a file hashes the target's bytes under the link's name, and
            // linking the package directory itself is resolved first.
            let linked = tmp.path().join("linked");
            fs::create_dir_all(&linked).unwrap();
            symlink(testdata("dirhash/hashdir_plain/abc"), linked.join("abc")).unwrap();
            fs::write(linked.join("xyz"), b"data for xyz").unwrap();
            let link_to_pkg = tmp.path().join("link-to-linked");
            symlink(&linked, &link_to_pkg).unwrap();
            cases.push((
                link_to_pkg,
                Ok("h1:EP6WfDoQTSk9klnxcjriWJOGztueJUywHNmWeq+efB8="),
            ));

            let dirlink = tmp.path().join("dirlink");
            fs::create_dir_all(&dirlink).unwrap();
            symlink(testdata("dirhash"), dirlink.join("sub")).unwrap();
            cases.push((dirlink, Err("reading")));
        }

        for (dir, want) in cases {
            let got = h1_dir(&dir);
            match (want, got) {
                (Ok(w), Ok(g)) => assert_eq!(g.as_str(), w, "{}", dir.display()),
                (Err(w), Err(e)) => {
                    assert!(e.to_string().contains(w), "{}: {e}", dir.display())
                }
                (w, g) => panic!("{}: want {w:?}, got {g:?}", dir.display()),
            }
        }
    }
}
