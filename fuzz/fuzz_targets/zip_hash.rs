//! The streaming zip hasher must return hashes or an error for any bytes, never panic,
//! and stay within its limits (small ones here, so the fuzzer explores them).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfsum::internals::{hash_zip_stream, ZipLimits};

fuzz_target!(|data: &[u8]| {
    let limits = ZipLimits {
        max_uncompressed_bytes: 1 << 20,
        max_entries: 64,
        max_directory_bytes: 1 << 16,
    };
    // Feed it in uneven pieces, as a network would.
    let reader = Chunked { data, at: 0 };
    if let Ok(hashes) = hash_zip_stream(reader, &limits) {
        assert_eq!(hashes.bytes, data.len() as u64);
    }
});

struct Chunked<'a> {
    data: &'a [u8],
    at: usize,
}

impl std::io::Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = &self.data[self.at..];
        let step = 1 + (self.at * 7919 + left.len()) % 4099;
        let n = left.len().min(buf.len()).min(step);
        buf[..n].copy_from_slice(&left[..n]);
        self.at += n;
        Ok(n)
    }
}
