//! Provider versions and version constraints, with go-versions semantics (spec §4).
//!
//! - [`Version`]: an exact version, its canonical text and Terraform's precedence order.
//! - [`Constraints`]: a parsed constraint list, what it allows, and the canonical string
//!   that goes into a lock file's `constraints` attribute.
//! - [`newest_allowed`]: the version `init` would pick from a registry's list;
//!   [`newest_stable`]: the newest release in it.
//! - [`strategy`]: how `tfsum upgrade` moves a constraint to a newer version.
//!
//! Both parsers share one tokenizer (`scan`), so versions and constraints agree on syntax.

mod constraints;
mod scan;
pub mod strategy;
#[cfg(test)]
mod tests;
#[allow(clippy::module_inception)]
mod version;

pub use constraints::ConstraintError;
pub use constraints::Constraints;
pub use version::{Version, VersionError};

/// The highest version in `available` that `constraints` allow (spec §4.4 "Selection"), or
/// `None` when nothing qualifies. Prereleases qualify only when requested exactly.
pub fn newest_allowed<'a>(
    available: &'a [Version],
    constraints: &Constraints,
) -> Option<&'a Version> {
    available.iter().filter(|v| constraints.allows(v)).max()
}

/// The newest release (no prerelease) among `versions`: what `outdated` reports as latest
/// and what `upgrade` moves a constraint to.
pub fn newest_stable<'a>(versions: impl IntoIterator<Item = &'a Version>) -> Option<&'a Version> {
    versions.into_iter().filter(|v| !v.is_prerelease()).max()
}
