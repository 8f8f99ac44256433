//! File names that mean the same thing on every operating system tfsum runs on.
//!
//! A package is read on Linux, macOS and Windows alike, and must give the same answer
//! on each. A name that is an ordinary file on Linux can be a path on Windows
//! (`sub\..\..\x.tf`, `C:x.tf`), a device (`nul.tf`), an alternate data stream
//! (`main.tf:x`), or silently another name (`x.tf.` is `x.tf`). Such names are refused
//! everywhere, so that no join can leave the package on any system and no two systems
//! see different packages.

/// The longest entry path (bytes), as Linux's `PATH_MAX`; longer names are refused
/// before they are kept.
pub(crate) const MAX_PATH_BYTES: usize = 4096;

/// The longest path component (bytes), as `NAME_MAX` on Linux and macOS.
const MAX_COMPONENT_BYTES: usize = 255;

/// Device names that Windows resolves in every directory, with any extension.
const RESERVED: [&str; 28] = [
    "CON", "PRN", "AUX", "NUL", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7",
    "COM8", "COM9", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
    "CONIN$", "CONOUT$", "CLOCK$", "CONFIG$",
];

/// `COM¹`..`LPT³`: Windows reads superscript digits as the digits.
const RESERVED_SUPERSCRIPT: [&str; 6] = ["COM¹", "COM²", "COM³", "LPT¹", "LPT²", "LPT³"];

/// Why `raw` (a whole entry name, `/`-separated) is not portable, if it is not. Checked
/// on the name as given, before `.` and empty components are dropped.
pub(crate) fn unportable_name(raw: &str) -> Option<String> {
    if raw.contains('\\') {
        return Some("it contains \"\\\", a path separator on Windows".to_string());
    }
    raw.split('/')
        .filter(|c| !c.is_empty() && *c != "." && *c != "..")
        .find_map(unportable_component)
}

/// Why one path component is not portable, if it is not.
pub(crate) fn unportable_component(component: &str) -> Option<String> {
    let quoted = format!("{component:?}");
    if component.len() > MAX_COMPONENT_BYTES {
        return Some(format!(
            "a component is longer than {MAX_COMPONENT_BYTES} bytes"
        ));
    }
    if component.chars().any(|c| c.is_control()) {
        return Some(format!("{quoted} contains a control character"));
    }
    if component.contains(':') {
        return Some(format!(
            "{quoted} contains \":\", which Windows reads as a drive or a data stream"
        ));
    }
    if component.contains('\\') {
        return Some(format!(
            "{quoted} contains \"\\\", a path separator on Windows"
        ));
    }
    if let Some(c) = component.chars().find(|c| "<>\"|?*".contains(*c)) {
        return Some(format!(
            "{quoted} contains {c:?}, which Windows does not allow in file names"
        ));
    }
    if component.ends_with('.') || component.ends_with(' ') {
        return Some(format!(
            "{quoted} ends with a dot or a space, which Windows drops"
        ));
    }
    // `nul.tf`, `NUL .tf` and `nul.tar.gz` all open the device.
    let stem = component.split('.').next().unwrap_or(component).trim_end();
    let reserved = RESERVED.iter().any(|r| stem.eq_ignore_ascii_case(r))
        || RESERVED_SUPERSCRIPT.iter().any(|r| {
            stem.len() == r.len()
                && stem.is_char_boundary(3)
                && stem[..3].eq_ignore_ascii_case(&r[..3])
                && stem[3..] == r[3..]
        });
    if reserved {
        return Some(format!("{quoted} is a reserved device name on Windows"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_unsafe_on_some_system_are_refused() {
        for (name, want) in [
            ("sub\\..\\..\\x.tf", Some("a path separator on Windows")),
            ("\\x.tf", Some("a path separator on Windows")),
            ("C:/Windows/x.tf", Some("a drive or a data stream")),
            ("C:x.tf", Some("a drive or a data stream")),
            ("main.tf:stream", Some("a drive or a data stream")),
            ("a/CON", Some("reserved device name")),
            ("nul.tf", Some("reserved device name")),
            ("NUL .tf", Some("reserved device name")),
            ("Aux.tar.gz/x.tf", Some("reserved device name")),
            ("com1", Some("reserved device name")),
            ("LPT9.txt", Some("reserved device name")),
            ("com¹.tf", Some("reserved device name")),
            ("conin$", Some("reserved device name")),
            ("x.tf.", Some("ends with a dot or a space")),
            ("dir /x.tf", Some("ends with a dot or a space")),
            ("a/.../b", Some("ends with a dot or a space")),
            ("what?.tf", Some("does not allow")),
            ("a|b", Some("does not allow")),
            ("tab\there", Some("control character")),
            (&"x".repeat(256), Some("longer than 255 bytes")),
            // Fine everywhere.
            ("modules/vpc/main.tf", None),
            ("./a//b/", None),
            (".terraform-docs.yml", None),
            ("console.tf", None),
            ("com10.tf", None),
            ("nullable/x.tf", None),
            ("con-fig/lpt.tf", None),
            ("[x] (y) {z} #1 ~ü.tf", None),
            (&"x".repeat(255), None),
        ] {
            let got = unportable_name(name);
            match want {
                Some(want) => assert!(
                    got.as_deref().is_some_and(|g| g.contains(want)),
                    "{name:?}: {got:?}"
                ),
                None => assert_eq!(got, None, "{name:?}"),
            }
        }
    }
}
