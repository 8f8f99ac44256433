//! Hostile module archives through the `tfsum` binary (issue 20, items 2, 3, 4 and 8):
//! each fails the root that calls it with a message naming the call and the cause,
//! while a good root beside them is locked; the run stays within 200 MB of memory and
//! a bounded time, and the module cache holds no amplified copies.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

use crate::harness::FAST_RETRIES;
use crate::support::fake_modules::{FakeModuleRegistry, Location, Packing};
use crate::support::fake_registry::FakeRegistry;
use crate::tfsum;

const GIB: u64 = 1 << 30;

/// Deflate blocks of `data` from a fresh compressor, ending in a sync flush: such
/// pieces can be concatenated into one stream, as each refers back only to its own
/// bytes.
fn deflate_piece(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data).expect("deflate");
    encoder.flush().expect("sync flush");
    encoder.get_ref().clone()
}

/// A `.tar.gz` of a few MiB whose first record is of type `kind` and declares `size`
/// bytes (zeros, really there once inflated), then a `main.tf`: the GNU long-name,
/// long-link and pax bombs. One compressed MiB of zeros is repeated, so building it
/// costs no more than serving it.
fn record_bomb(kind: u8, size: u64) -> Vec<u8> {
    const MIB: usize = 1 << 20;
    assert_eq!(size % MIB as u64, 0);
    let mut header = tar::Header::new_gnu();
    header.set_path("././@LongLink").expect("path");
    header.set_entry_type(tar::EntryType::new(kind));
    header.set_size(size);
    header.set_cksum();
    let head = header.as_bytes().to_vec();
    let mut rest = tar::Builder::new(Vec::new());
    let mut file = tar::Header::new_gnu();
    file.set_size(2);
    file.set_mode(0o644);
    file.set_cksum();
    rest.append_data(&mut file, "main.tf", &b"#\n"[..])
        .expect("tar entry");
    let rest = rest.into_inner().expect("tar end");

    let zeros = vec![0u8; MIB];
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    let mut zeros_crc = crc32fast::Hasher::new();
    zeros_crc.update(&zeros);
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend(deflate_piece(&head));
    let chunk = deflate_piece(&zeros);
    for _ in 0..size / MIB as u64 {
        out.extend(&chunk);
        crc.combine(&zeros_crc);
    }
    let mut last = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    last.write_all(&rest).expect("deflate");
    out.extend(last.finish().expect("deflate end"));
    crc.update(&rest);
    out.extend(crc.finalize().to_le_bytes());
    let total = head.len() as u64 + size + rest.len() as u64;
    out.extend((total as u32).to_le_bytes());
    out
}

/// The issue's case: 8 KiB on the wire, one 2 MiB `.tf` and 150 links to its
/// directory, which unpacked 302 MiB into the module cache.
fn symlink_amplifier() -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gz);
    let big = "# padding\n".repeat((2 << 20) / 10);
    let mut header = tar::Header::new_gnu();
    header.set_size(big.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "shared/big.tf", big.as_bytes())
        .expect("tar entry");
    for i in 0..150 {
        let mut link = tar::Header::new_gnu();
        link.set_entry_type(tar::EntryType::Symlink);
        link.set_size(0);
        link.set_mode(0o777);
        link.set_cksum();
        tar.append_link(&mut link, format!("copy{i}"), "shared")
            .expect("tar link");
    }
    let bytes = tar
        .into_inner()
        .expect("tar end")
        .finish()
        .expect("gzip end");
    assert!(bytes.len() < 16 << 10, "{} bytes", bytes.len());
    bytes
}

/// A `.tar.gz` with one entry under exactly this (raw) name.
fn tar_gz_named(name: &str) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    let mut header = tar::Header::new_gnu();
    header.set_size(2);
    header.set_mode(0o644);
    header.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    header.set_cksum();
    tar.append(&header, &b"#\n"[..]).expect("tar entry");
    tar.into_inner()
        .expect("tar end")
        .finish()
        .expect("gzip end")
}

/// What one run did, measured from outside.
struct Run {
    code: Option<i32>,
    report: Value,
    stderr: String,
    peak_rss: u64,
    wall: Duration,
}

/// `tfsum lock -r --format=json .` in `repo`, watched: killed past `max_rss` bytes or
/// `timeout`, which fails the test with what it was doing.
fn lock_watched(repo: &Path, cli: &Path, scratch: &Path, max_rss: u64, timeout: Duration) -> Run {
    let mut command = tfsum::command(repo, cli, scratch);
    command.args(["lock", "-r", "--format=json", "--platform=linux_amd64", "."]);
    for (name, value) in FAST_RETRIES {
        command.env(name, value);
    }
    let bounds = tfsum::Bounds {
        max_rss,
        wall: timeout,
        cpu: None,
    };
    let run = tfsum::watched(command, bounds);
    let report = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: not a JSON report:\n{}\n{}", run.stdout, run.stderr));
    Run {
        code: run.code,
        report,
        stderr: run.stderr,
        peak_rss: run.peak_rss,
        wall: run.wall,
    }
}

fn dir_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum()
}

/// Each hostile archive a registry module can serve, called from its own root, next
/// to a root calling a good module: the good root is locked, each hostile one fails
/// naming its call and the cause, in bounded memory and time, with no amplified copy
/// left in the module cache.
#[test]
fn hostile_module_archives_fail_their_roots_alone_within_bounds() {
    let providers = FakeRegistry::builder()
        .provider("hashicorp", "null")
        .version("3.2.1")
        .platforms(&["linux_amd64"])
        .start();
    let stars = format!("{}b", "*a".repeat(12));
    let requires_null = format!(
        "terraform {{\n  required_providers {{\n    null = {{\n      source  = \"{}/hashicorp/null\"\n      version = \"3.2.1\"\n    }}\n  }}\n}}\n",
        providers.host()
    );
    let modules = FakeModuleRegistry::builder()
        .module("acme", "ok", "aws")
        .version("1.0.0")
        .file("main.tf", &requires_null)
        .module("acme", "longname", "aws")
        .version("1.0.0")
        .raw_archive(record_bomb(b'L', 4 * GIB))
        .module("acme", "longlink", "aws")
        .version("1.0.0")
        .raw_archive(record_bomb(b'K', 4 * GIB))
        .module("acme", "pax", "aws")
        .version("1.0.0")
        .raw_archive(record_bomb(b'x', 4 * GIB))
        .module("acme", "links", "aws")
        .version("1.0.0")
        .raw_archive(symlink_amplifier())
        .module("acme", "backslash", "aws")
        .version("1.0.0")
        .raw_archive(tar_gz_named("sub\\..\\..\\x.tf"))
        .module("acme", "drive", "aws")
        .version("1.0.0")
        .packing(Packing::Zip)
        .file("C:/Windows/x.tf", "#\n")
        .module("acme", "device", "aws")
        .version("1.0.0")
        .file("modules/nul.tf", "#\n")
        .module("acme", "glob", "aws")
        .version("1.0.0")
        .file(&format!("{}/main.tf", "a".repeat(100)), "#\n")
        .location(Location::Given(format!(
            "/archives/acme/glob/aws/1.0.0.tar.gz//{stars}"
        )))
        .start();
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "longname",
            vec!["a GNU long name record of 4294967296 bytes is larger than the limit".into()],
        ),
        (
            "longlink",
            vec!["a GNU long link name record of 4294967296 bytes".into()],
        ),
        (
            "pax",
            vec!["a pax extended header record of 4294967296 bytes".into()],
        ),
        (
            "links",
            vec!["larger than 67108864 bytes in total once symlinks are copied".into()],
        ),
        (
            "backslash",
            vec![
                "x.tf\" is not a safe name on every operating system".into(),
                "a path separator on Windows".into(),
            ],
        ),
        (
            "drive",
            vec![
                "entry \"C:/Windows/x.tf\" is not a safe name".into(),
                "a drive or a data stream".into(),
            ],
        ),
        (
            "device",
            vec![
                "entry \"modules/nul.tf\" is not a safe name".into(),
                "reserved device name".into(),
            ],
        ),
        ("glob", vec![format!("subdirectory {stars:?} not found")]),
    ];

    let repo = TempDir::new().expect("repo");
    let scratch = TempDir::new().expect("scratch");
    let cli = scratch.path().join("cli.tfrc");
    std::fs::write(
        &cli,
        format!("{}{}", providers.cli_config(), modules.cli_config()),
    )
    .expect("cli config");
    for name in cases.iter().map(|(name, _)| *name).chain(["ok"]) {
        let dir = repo.path().join(name);
        std::fs::create_dir_all(&dir).expect("root dir");
        std::fs::write(
            dir.join("main.tf"),
            format!(
                "module \"{name}\" {{\n  source  = \"{}\"\n  version = \"1.0.0\"\n}}\n",
                modules.source("acme", name, "aws")
            ),
        )
        .expect("root main.tf");
    }

    let run = lock_watched(
        repo.path(),
        &cli,
        scratch.path(),
        200 << 20,
        Duration::from_secs(90),
    );
    let report = &run.report;
    assert_eq!(run.code, Some(1), "{report:#}\n{}", run.stderr);
    let roots = report["roots"].as_array().expect("roots");
    let outcome = |dir: &str| {
        roots
            .iter()
            .find(|r| r["dir"] == dir)
            .unwrap_or_else(|| panic!("{dir} in {report:#}"))
    };
    assert_eq!(outcome("ok")["outcome"], "created", "{report:#}");
    let mut wrong = Vec::new();
    for (name, wants) in &cases {
        let root = outcome(name);
        let detail = root["detail"].as_str().unwrap_or_default();
        let call = format!("module \"{name}\"");
        let fine = root["outcome"] == "failed"
            && detail.contains(&call)
            && wants.iter().all(|want| detail.contains(want.as_str()));
        if !fine {
            wrong.push(format!("{name}: want {wants:?} in {root:#}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Nothing amplified reached the disk (the 150 links wrote 302 MiB before).
    let cached = dir_bytes(scratch.path());
    assert!(cached < 8 << 20, "{cached} bytes under the cache");
    assert!(run.peak_rss < 200 << 20, "peak RSS {} bytes", run.peak_rss);
    assert!(run.wall < Duration::from_secs(90), "{:?}", run.wall);
}
