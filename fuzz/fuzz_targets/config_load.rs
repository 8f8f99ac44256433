//! Configuration loading on hostile bytes (a repository's files are untrusted): the loader's
//! per-file reader, given the input as a native-syntax `main.tf` and as a JSON-syntax
//! `main.tf.json`, must return a value or an error; it must not panic, overflow the stack
//! or hang. It runs on a thread with a tokio worker's 2 MiB stack, the smallest stack tfsum
//! loads configuration on.
//!
//! Bytes that are not UTF-8 are read lossily: the loader rejects such files before parsing,
//! and the lossy text is still a file it could meet.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

const WORKER_STACK: usize = 2 << 20;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(move || {
            for name in ["main.tf", "main.tf.json"] {
                let _ = tfsum::internals::check_file(Path::new(name), &text, "registry.terraform.io");
            }
        })
        .expect("spawn the loader thread")
        .join()
        .expect("the loader must not panic");
});
