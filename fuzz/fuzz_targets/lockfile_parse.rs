//! The lock-file parser must return a value or an error for any text, never panic; and
//! whatever it accepts must render to a file it accepts again, unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfsum::internals::parse_lock_file;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(lock) = parse_lock_file(text, "registry.terraform.io") else {
        return;
    };
    let rendered = lock.render();
    let again = parse_lock_file(&rendered, "registry.terraform.io")
        .unwrap_or_else(|e| panic!("rendered lock file does not parse: {e}\n{rendered}"));
    assert_eq!(again.render(), rendered, "rendering is not stable");
});
