//! The parser's fast path: a file exactly as [`LockFile::render`] writes it (and so as
//! Terraform does) is read line by line instead of through the HCL parser, which took a
//! third of a run that found nothing to change. Each value goes through the same checks
//! as in [`super::parse()`], and the result is kept only when it renders back to the very
//! same bytes: parse ∘ render is the identity, so the full parser would have read the same
//! lock file. Anything else (a hand edit, a comment, an escape, a problem to report)
//! returns `None`, and the full parser reads the file and words its errors.

use std::collections::{BTreeMap, BTreeSet};

use super::{Flavor, LockFile, LockForm, ProviderLock};
use crate::addr::ProviderAddr;
use crate::hash::Hash;
use crate::version::{Constraints, Version};

/// `src` read as a file in canonical form, or `None`.
pub(super) fn parse(src: &str, default_host: &str) -> Option<LockFile> {
    let mut lines = src.lines();
    // The two header lines; the final comparison checks their text.
    lines.next()?;
    lines.next()?;
    let mut providers = BTreeMap::new();
    while let Some(blank) = lines.next() {
        if !blank.is_empty() {
            return None;
        }
        let label = quoted(
            lines
                .next()?
                .strip_prefix("provider ")?
                .strip_suffix(" {")?,
        )?;
        let addr = ProviderAddr::parse(label, default_host)
            .ok()
            .filter(|a| a.is_lockable() && a.to_string() == label)?;
        let line = lines.next()?;
        let (version, constraints) = match line.strip_prefix("  version     = ") {
            Some(version) => {
                let raw = quoted(lines.next()?.strip_prefix("  constraints = ")?)?;
                let constraints = Constraints::parse_ruby_style(raw)
                    .ok()
                    .filter(|c| c.canonical() == raw)?;
                (version, constraints)
            }
            None => (line.strip_prefix("  version = ")?, Constraints::default()),
        };
        let raw = quoted(version)?;
        let version = Version::parse(raw).ok().filter(|v| v.to_string() == raw)?;
        let mut line = lines.next()?;
        let mut hashes = BTreeSet::new();
        if line == "  hashes = [" {
            loop {
                line = lines.next()?;
                if line == "  ]" {
                    break;
                }
                let text = quoted(line.strip_prefix("    ")?.strip_suffix(',')?)?;
                hashes.insert(Hash::parse(text).ok()?);
            }
            if hashes.is_empty() {
                return None;
            }
            line = lines.next()?;
        }
        if line != "}" {
            return None;
        }
        let lock = ProviderLock {
            version,
            constraints,
            hashes,
        };
        if providers.insert(addr, lock).is_some() {
            return None;
        }
    }
    let lock = LockFile {
        flavor: Flavor::from_header(src),
        form: LockForm::from_header(src),
        providers,
    };
    (lock.render() == src).then_some(lock)
}

/// The text of a quoted string that needs no unescaping: no escapes and no template
/// introducers (those files take the full parser).
fn quoted(s: &str) -> Option<&str> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\', '$', '%'])).then_some(inner)
}
