//! Module source addresses come from untrusted `.tf` and `terragrunt.hcl` files, and
//! from registries (`X-Terraform-Get`): both parsers must return a value or an error for
//! any text, never panic, and what they accept must print.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfsum::internals::{parse_source, parse_terragrunt_source};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(source) = parse_source(text) {
        let _ = source.to_string();
    }
    if let Ok(unit) = parse_terragrunt_source(text) {
        let _ = unit.source.to_string();
    }
});
