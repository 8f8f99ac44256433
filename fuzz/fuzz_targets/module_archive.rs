//! Module archives come from any server a source names. The reader the fetcher uses
//! must return a package or an error for any bytes, never panic, and keep within its
//! limits (small ones here, so the fuzzer reaches them): entries, kept bytes once
//! symlinks are copied, and names that are safe on every system.
//!
//! The first byte picks the format: the tar layer alone (where the fuzzer is most
//! effective), zip, or a compressed tar.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfsum::internals::{unpack_archive, ArchiveLimits};

const FORMATS: [&str; 5] = ["tar", "zip", "tar.gz", "tar.bz2", "tar.xz"];

fuzz_target!(|data: &[u8]| {
    let Some((selector, bytes)) = data.split_first() else {
        return;
    };
    let format = FORMATS[usize::from(*selector) % FORMATS.len()];
    let limits = ArchiveLimits {
        max_download_bytes: 1 << 20,
        max_unpacked_bytes: 1 << 20,
        max_entries: 64,
        max_config_bytes: 1 << 16,
    };
    if let Ok(files) = unpack_archive(bytes, format, &limits) {
        assert!(files.len() <= limits.max_entries, "{} files", files.len());
        let kept: usize = files.values().sum();
        assert!(kept as u64 <= limits.max_config_bytes, "{kept} bytes kept");
        for path in files.keys() {
            assert!(
                !path.is_empty()
                    && !path.starts_with('/')
                    && !path.contains('\\')
                    && !path.contains(':')
                    && path
                        .split('/')
                        .all(|c| !c.is_empty() && c != "." && c != ".."),
                "{path:?}"
            );
        }
    }
});
