//! Tests for the streaming zip hasher: Terraform's vectors, zips written by the `zip`
//! crate, and Go-style zips (data descriptors) built byte by byte, each checked
//! against the expected unpacked tree and, where the `zip` crate can read it, against a
//! random-access reference.

use std::io::{Cursor, Write as _};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

use super::*;

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the repository")
        .join("testdata/hash")
        .join(rel)
}

fn read_testdata(rel: &str) -> Vec<u8> {
    let path = testdata(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sha(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// `h1:` of an unpacked tree given as (name, content).
fn h1_of(files: &[(&str, &[u8])]) -> String {
    let mut s = Summary::new();
    for (name, data) in files {
        s.push(*name, sha(data));
    }
    s.finish().unwrap().to_string()
}

/// A reader that hands out at most `step` bytes per call, to move every buffer boundary.
struct Trickle<R> {
    inner: R,
    step: usize,
}

impl<R: Read> Read for Trickle<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.step);
        self.inner.read(&mut buf[..n])
    }
}

// ---------------------------------------------------------------------------------------
// Zips from the `zip` crate.

enum Item<'a> {
    File(&'a str, &'a [u8], CompressionMethod),
    LargeFile(&'a str, &'a [u8]),
    Dir(&'a str),
    Symlink(&'a str, &'a str),
}

fn zip_crate(items: &[Item<'_>]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for item in items {
        let opts = SimpleFileOptions::default();
        match item {
            Item::File(name, data, method) => {
                w.start_file(*name, opts.compression_method(*method))
                    .unwrap();
                w.write_all(data).unwrap();
            }
            Item::LargeFile(name, data) => {
                let opts = opts
                    .compression_method(CompressionMethod::Deflated)
                    .large_file(true);
                w.start_file(*name, opts).unwrap();
                w.write_all(data).unwrap();
            }
            Item::Dir(name) => w.add_directory(*name, opts).unwrap(),
            Item::Symlink(name, target) => w.add_symlink(*name, *target, opts).unwrap(),
        }
    }
    w.finish().unwrap().into_inner()
}

// ---------------------------------------------------------------------------------------
// Go-style zips, written by hand (`tests/support/go_zip.rs`, shared with the fake registry):
// what Go's `archive/zip` writer produces, with knobs for the malformed variants.

#[path = "../../../../../tests/support/go_zip.rs"]
#[allow(dead_code, unreachable_pub)]
mod go_zip;
use go_zip::{deflate, go, go_dir, go_stored, go_zip, go_zip_full, go_zip_with, Desc, GoEntry};

// ---------------------------------------------------------------------------------------
// The reference: read the whole zip with the `zip` crate's random-access reader and
// dirhash what unpacking would produce.

fn reference_h1(bytes: &[u8]) -> Result<String, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let mut files: BTreeMap<Vec<u8>, [u8; 32]> = BTreeMap::new();
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).map_err(|e| e.to_string())?;
        let name = f.name_raw().to_vec();
        let text = String::from_utf8_lossy(&name).into_owned();
        if text.split(['/', '\\']).any(|p| p == "..") || text.starts_with('/') {
            return Err(format!("unsafe name {text:?}"));
        }
        let dir = f.is_dir() || f.unix_mode().is_some_and(|m| m & 0o170000 == 0o040000);
        if dir {
            continue;
        }
        let mut content = Vec::new();
        f.read_to_end(&mut content).map_err(|e| e.to_string())?;
        let cleaned: Vec<&str> = text
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        files.insert(cleaned.join("/").into_bytes(), sha(&content));
    }
    let mut s = Summary::new();
    for (name, digest) in files {
        s.push(name, digest);
    }
    s.finish().map(|h| h.to_string()).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------------------------------

enum Want {
    /// This `h1:` literally.
    H1(&'static str),
    /// The `h1:` of this unpacked tree.
    Tree(Vec<(&'static str, &'static [u8])>),
    /// An error whose message contains this.
    Err(&'static str),
}

/// Pseudo-random bytes that deflate cannot shrink, so streams span many buffers.
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

fn cases() -> Vec<(&'static str, Vec<u8>, Want, bool)> {
    use CompressionMethod::{Deflated, Stored};
    let dummy_name = "terraform-provider-dummy_v3.2.1_x5";
    let dummy_data: &[u8] = b"dummy_3.2.1_darwin_arm64";
    let dummy_h1 = "h1:3323G20HW9PA9ONrL6CdQCdCFe6y94kXeOTprq+Zu+w=";
    let big: &'static [u8] = Box::leak(noise(300_000, 7).into_boxed_slice());
    let repetitive: &'static [u8] = Box::leak(b"provider ".repeat(40_000).into_boxed_slice());

    // (label, zip bytes, expectation, compare with the zip-crate reference)
    vec![
        // Terraform / x/mod vectors.
        (
            "A-bis null 2.1.0",
            read_testdata("terraform-provider-null_2.1.0_linux_amd64.zip"),
            Want::H1("h1:qjsREM4DqEWECD43FcPqddZ9oxCG+IaMTxvWPciS05g="),
            true,
        ),
        (
            "F stored, no prefix",
            read_testdata("dirhash/hashzip_plain.zip"),
            Want::H1("h1:EP6WfDoQTSk9klnxcjriWJOGztueJUywHNmWeq+efB8="),
            true,
        ),
        (
            "F deflated, prefix/",
            read_testdata("dirhash/hashzip_prefix.zip"),
            Want::H1("h1:rLyfpGMAgqOnGE2aKOY5Xb6cOc0/YQhPjHBHBwkblhs="),
            true,
        ),
        (
            "F directory entry is skipped (unpacked value)",
            read_testdata("dirhash/hashzip_with_dir_entry.zip"),
            Want::H1("h1:BGGrAdiR6GrxzXDjM0BWM2BOsKt3IU1jdZnO+NzgdpA="),
            true,
        ),
        (
            "dummy provider, deflate",
            zip_crate(&[Item::File(dummy_name, dummy_data, Deflated)]),
            Want::H1(dummy_h1),
            true,
        ),
        (
            "dummy provider, stored",
            zip_crate(&[Item::File(dummy_name, dummy_data, Stored)]),
            Want::H1(dummy_h1),
            true,
        ),
        (
            "dummy provider, Go-style descriptor",
            go_zip(&[go(dummy_name, dummy_data)]),
            Want::H1(dummy_h1),
            true,
        ),
        // Shapes from the zip crate.
        (
            "several files, mixed methods",
            zip_crate(&[
                Item::File("b", b"bee", Deflated),
                Item::File("a", b"ay", Stored),
                Item::File("c/d", b"", Deflated),
                Item::File("e", b"", Stored),
            ]),
            Want::Tree(vec![("a", b"ay"), ("b", b"bee"), ("c/d", b""), ("e", b"")]),
            true,
        ),
        (
            "large deflated and stored files span buffers",
            zip_crate(&[
                Item::File("noise", big, Deflated),
                Item::File("noise.stored", big, Stored),
                Item::File("text", repetitive, Deflated),
            ]),
            Want::Tree(vec![
                ("noise", big),
                ("noise.stored", big),
                ("text", repetitive),
            ]),
            true,
        ),
        (
            "zip64 extra in the local header",
            zip_crate(&[
                Item::LargeFile("z", b"zip64 sized"),
                Item::LargeFile("y", b""),
            ]),
            Want::Tree(vec![("y", b""), ("z", b"zip64 sized")]),
            true,
        ),
        (
            "directory entries are skipped",
            zip_crate(&[
                Item::Dir("sub/"),
                Item::File("sub/f", b"data", Deflated),
                Item::Dir("empty/"),
            ]),
            Want::Tree(vec![("sub/f", b"data")]),
            true,
        ),
        (
            "symlink entry is a file holding the link text",
            zip_crate(&[
                Item::File("real", b"content", Deflated),
                Item::Symlink("link", "real"),
            ]),
            Want::Tree(vec![("link", b"real"), ("real", b"content")]),
            true,
        ),
        (
            "./ and // are cleaned",
            zip_crate(&[
                Item::File("./a", b"1", Deflated),
                Item::File("b//c", b"2", Stored),
                Item::File("./d/./e", b"3", Deflated),
            ]),
            Want::Tree(vec![("a", b"1"), ("b/c", b"2"), ("d/e", b"3")]),
            true,
        ),
        // Go-style zips.
        (
            "Go-style: several files, every descriptor form",
            go_zip(&[
                go("x", b"data for xyz"),
                GoEntry {
                    desc: Desc::Unsigned,
                    ..go("abc", b"data for abc")
                },
                GoEntry {
                    desc: Desc::Zip64,
                    ..go("z64", b"wide sizes")
                },
                go("big", big),
                go("empty", b""),
                go_stored("stored", b"plain"),
            ]),
            Want::Tree(vec![
                ("abc", b"data for abc"),
                ("big", big),
                ("empty", b""),
                ("stored", b"plain"),
                ("x", b"data for xyz"),
                ("z64", b"wide sizes"),
            ]),
            true,
        ),
        (
            "Go-style: zip64 central directory and end records",
            go_zip_full(&[go("a", b"1"), go_stored("b", b"2")], true, |_| {}),
            Want::Tree(vec![("a", b"1"), ("b", b"2")]),
            true,
        ),
        (
            "Go-style: the last duplicate wins and is listed once",
            go_zip(&[
                go("a", b"first"),
                go("b", b"b"),
                go("./a", b"second"),
                go("a", b"last"),
            ]),
            Want::Tree(vec![("a", b"last"), ("b", b"b")]),
            false,
        ),
        (
            "Go-style: central directory order decides duplicates",
            go_zip_with(&[go("a", b"first"), go("a", b"second")], |cd| cd.reverse()),
            Want::Tree(vec![("a", b"first")]),
            false,
        ),
        (
            "Go-style: directory by mode bit, without trailing slash",
            go_zip(&[go_dir("d"), go("d/f", b"in d")]),
            Want::Tree(vec![("d/f", b"in d")]),
            true,
        ),
        // Refused, as Terraform's unpacker refuses them.
        (
            "not a zip (vector A4)",
            read_testdata("not-a-zip.zip"),
            Want::Err("not a zip file"),
            false,
        ),
        (
            "empty input",
            Vec::new(),
            Want::Err("not a zip file: the input is empty"),
            false,
        ),
        (
            "no entries at all",
            go_zip(&[]),
            Want::Err("zip archive contains no files"),
            false,
        ),
        (
            "only directories",
            zip_crate(&[Item::Dir("a/"), Item::Dir("a/b/")]),
            Want::Err("zip archive contains no files"),
            false,
        ),
        (
            "parent traversal",
            go_zip(&[go("ok", b""), go("../evil", b"x")]),
            Want::Err("\"../evil\": unsafe name: it contains a '..' component"),
            false,
        ),
        (
            "parent traversal inside",
            go_zip(&[go("a/../../b", b"x")]),
            Want::Err("'..' component"),
            false,
        ),
        (
            "parent traversal, backslash",
            go_zip(&[go("..\\b", b"x")]),
            Want::Err("'..' component"),
            false,
        ),
        (
            "parent traversal in a directory entry",
            go_zip(&[go("f", b""), go_dir("../d/")]),
            Want::Err("'..' component"),
            false,
        ),
        (
            "absolute name",
            go_zip(&[go("/etc/passwd", b"x")]),
            Want::Err("absolute path"),
            false,
        ),
        (
            "NUL in a name",
            go_zip(&[go("a\0b", b"x")]),
            Want::Err("NUL byte"),
            false,
        ),
        (
            "newline in a name",
            go_zip(&[go("a\nb", b"x")]),
            Want::Err("filenames with newlines are not supported"),
            false,
        ),
        (
            "name that is only ./",
            go_zip(&[go(".", b"x")]),
            Want::Err("names the package directory itself"),
            false,
        ),
        (
            "file used as a directory",
            go_zip(&[go("a", b"x"), go("a/b", b"y")]),
            Want::Err("both as a file and as a directory"),
            false,
        ),
        (
            "directory entry over a file",
            go_zip(&[go_dir("a/"), go("a", b"x")]),
            Want::Err("both as a file and as a directory"),
            false,
        ),
        // Cannot be streamed, or not a zip Terraform could unpack.
        (
            "stored entry with a data descriptor",
            go_zip(&[GoEntry {
                desc: Desc::Signed,
                ..go_stored("terraform-provider-x", b"x")
            }]),
            Want::Err(
                "\"terraform-provider-x\": stored (uncompressed) entry whose length only follows",
            ),
            false,
        ),
        (
            "unsupported compression method",
            go_zip(&[GoEntry {
                method: 12,
                desc: Desc::No,
                ..go("bz", b"x")
            }]),
            Want::Err("\"bz\": compression method 12"),
            false,
        ),
        (
            "encrypted entry",
            go_zip(&[GoEntry {
                flags: 1,
                ..go("secret", b"x")
            }]),
            Want::Err("\"secret\": the entry is encrypted"),
            false,
        ),
        (
            "central directory names another entry",
            go_zip_with(&[go("a", b"x")], |cd| cd[0].name = b"b".to_vec()),
            Want::Err("entry \"b\": the local header at offset 0 is named \"a\""),
            false,
        ),
        (
            "central directory omits an entry",
            go_zip_with(&[go("a", b"x"), go("hidden", b"y")], |cd| {
                cd.pop();
            }),
            Want::Err("2 entries were streamed, the central directory lists 1"),
            false,
        ),
        (
            "central directory points at a wrong offset",
            go_zip_with(&[go("a", b"x"), go("b", b"y")], |cd| cd[1].offset = 5),
            Want::Err("no local header starts at offset 5"),
            false,
        ),
        (
            "central directory lists one entry twice",
            go_zip_with(&[go("a", b"x"), go("b", b"y")], |cd| {
                cd[1] = cd[0].clone();
            }),
            Want::Err("a second record points at the local header at offset 0"),
            false,
        ),
        (
            "central directory disagrees on the CRC",
            go_zip_with(&[go("a", b"x")], |cd| cd[0].crc ^= 1),
            Want::Err("CRC-32 is"),
            false,
        ),
        (
            "central directory disagrees on the size",
            go_zip_with(&[go("a", b"x")], |cd| cd[0].uncompressed = 2),
            Want::Err("uncompressed size is 2 in the central directory but 1"),
            false,
        ),
        (
            "central directory disagrees on the method",
            go_zip_with(&[go_stored("a", b"x")], |cd| cd[0].method = METHOD_DEFLATE),
            Want::Err("compression method is 8 in the central directory but 0"),
            false,
        ),
    ]
}

/// Every case, streamed whole and in small pieces; successful ones also against the
/// reference reader and the SHA-256 of the input.
#[test]
fn zip_stream_table() {
    let limits = ZipLimits::default();
    for (label, bytes, want, check_reference) in cases() {
        let whole = hash_zip_stream(&bytes[..], &limits);
        let pieces = hash_zip_stream(
            Trickle {
                inner: &bytes[..],
                step: 7,
            },
            &limits,
        );
        match (&want, &whole) {
            (Want::Err(w), Err(e)) => assert!(e.to_string().contains(w), "{label}: {e}"),
            (Want::Err(w), Ok(got)) => panic!("{label}: want error {w:?}, got {}", got.h1),
            (_, Err(e)) => panic!("{label}: {e}"),
            (Want::H1(h1), Ok(got)) => assert_eq!(got.h1.as_str(), *h1, "{label}"),
            (Want::Tree(files), Ok(got)) => assert_eq!(got.h1.to_string(), h1_of(files), "{label}"),
        }
        match (&whole, &pieces) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{label}: 7-byte reads"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{label}: 7-byte reads"),
            _ => panic!("{label}: 7-byte reads disagree: {whole:?} vs {pieces:?}"),
        }
        if let Ok(got) = whole {
            assert_eq!(got.sha256, sha(&bytes), "{label}: sha256");
            assert_eq!(got.bytes, bytes.len() as u64, "{label}: bytes");
            if check_reference {
                assert_eq!(
                    reference_h1(&bytes),
                    Ok(got.h1.to_string()),
                    "{label}: reference"
                );
            }
        }
    }
}

#[test]
fn null_vector_zh_and_file_api() {
    let got = hash_zip_file(
        &testdata("terraform-provider-null_2.1.0_linux_amd64.zip"),
        &ZipLimits::default(),
    )
    .unwrap();
    assert_eq!(
        got.zh().as_str(),
        "zh:299dd806df78cb0537e5c111019eaca6e6b7797e1b63cb37cc6a76f91c6c0782"
    );
    assert_eq!(got.bytes, 271);
    let missing = hash_zip_file(&testdata("missing.zip"), &ZipLimits::default()).unwrap_err();
    assert!(missing.to_string().contains("missing.zip"), "{missing}");
}

/// Bytes after the end record are part of the SHA-256 and do not change `h1:`.
#[test]
fn trailing_bytes_are_hashed() {
    let mut bytes = read_testdata("terraform-provider-null_2.1.0_linux_amd64.zip");
    bytes.extend_from_slice(b"trailing bytes after the end record");
    let got = hash_zip_stream(&bytes[..], &ZipLimits::default()).unwrap();
    assert_eq!(got.sha256, sha(&bytes));
    assert_eq!(got.bytes, bytes.len() as u64);
    assert_eq!(
        got.h1.as_str(),
        "h1:qjsREM4DqEWECD43FcPqddZ9oxCG+IaMTxvWPciS05g="
    );
}

/// Every proper prefix of a zip is an error, never a hash and never a panic.
#[test]
fn every_truncation_fails() {
    let zips = [
        read_testdata("terraform-provider-null_2.1.0_linux_amd64.zip"),
        go_zip(&[
            go("a", b"data for a"),
            GoEntry {
                desc: Desc::Zip64,
                ..go("b", b"bbbbbbbbbbbbbbbbbbbbbbbb")
            },
            go_stored("c", b"c"),
        ]),
    ];
    for zip in zips {
        for len in 0..zip.len() {
            let got = hash_zip_stream(&zip[..len], &ZipLimits::default());
            assert!(got.is_err(), "prefix of {len} bytes gave {got:?}");
        }
    }
}

/// Flipping any single byte of a deflated or stored entry's data is caught.
#[test]
fn corrupted_data_fails() {
    let data = b"some provider binary content, long enough to deflate a little".repeat(4);
    for (entry, payload_len) in [
        (go("p", &data), deflate(&data).len()),
        (go_stored("p", &data), data.len()),
    ] {
        let zip = go_zip(&[entry]);
        let data_start = 30 + 1;
        for i in data_start..data_start + payload_len {
            let mut bad = zip.clone();
            bad[i] ^= 0x55;
            let got = hash_zip_stream(&bad[..], &ZipLimits::default());
            assert!(got.is_err(), "byte {i} flipped gave {got:?}");
        }
    }
}

#[test]
fn limits() {
    let bomb = go_zip(&[go("zeros", &vec![0u8; 1 << 20])]);
    assert!(bomb.len() < 4096);
    let two = go_zip(&[go("a", b"1"), go("b", b"2")]);
    let cases: Vec<(&[u8], ZipLimits, &str)> = vec![
        (
            &bomb,
            ZipLimits {
                max_uncompressed_bytes: 1 << 19,
                ..ZipLimits::default()
            },
            "zip exceeds the limit of 524288 uncompressed bytes",
        ),
        (
            &two,
            ZipLimits {
                max_entries: 1,
                ..ZipLimits::default()
            },
            "zip exceeds the limit of 1 entries",
        ),
        (
            &two,
            ZipLimits {
                max_directory_bytes: 40,
                ..ZipLimits::default()
            },
            "bytes of central directory and trailing data",
        ),
    ];
    for (zip, limits, want) in cases {
        let err = hash_zip_stream(zip, &limits).unwrap_err();
        assert!(err.to_string().contains(want), "{err}");
        // The same zip passes with the defaults.
        assert!(hash_zip_stream(zip, &ZipLimits::default()).is_ok());
    }
}

/// A failing input stream surfaces as a read error, not as a format error.
#[test]
fn read_errors_surface() {
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "peer went away",
            ))
        }
    }
    let err = hash_zip_stream(Broken, &ZipLimits::default()).unwrap_err();
    assert!(matches!(err, HashError::Read(_)), "{err}");
    assert_eq!(err.to_string(), "reading zip: peer went away");
}
