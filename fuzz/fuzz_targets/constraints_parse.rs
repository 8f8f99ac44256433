//! The constraint parser must return a value or an error for any text, never panic;
//! what it accepts must survive its own rendering.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tfsum::internals::Constraints;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(constraints) = Constraints::parse(text) {
        let rendered = constraints.to_string();
        let again = Constraints::parse(&rendered)
            .unwrap_or_else(|e| panic!("{text:?} renders as {rendered:?}, which fails: {e}"));
        assert_eq!(again.to_string(), rendered, "{text:?}");
    }
    let _ = Constraints::parse_ruby_style(text);
});
