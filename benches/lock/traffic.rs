//! What a run asked of the fake registry, from its request log: request counts and the zip
//! bytes those requests transferred.

use std::collections::BTreeSet;

use crate::support::fake_registry::RegistryHandle;

/// Requests since the last [`RegistryHandle::reset_counts`].
#[derive(Clone, Copy, Default)]
pub struct Traffic {
    pub requests: usize,
    pub version_lists: usize,
    pub zips: usize,
    /// Zip requests for a package already fetched earlier in the same window.
    pub repeated_zips: usize,
    /// The full size of every requested zip (the fake always sends the whole body).
    pub zip_bytes: u64,
}

/// Tallies the registry's request log.
pub fn tally(registry: &RegistryHandle) -> Traffic {
    let mut traffic = Traffic::default();
    let mut seen = BTreeSet::new();
    for request in registry.requests() {
        traffic.requests += 1;
        if request.path.ends_with("/versions") {
            traffic.version_lists += 1;
        }
        let Some((namespace, type_, version, platform)) = zip_path(&request.path) else {
            continue;
        };
        traffic.zips += 1;
        if !seen.insert(request.path.clone()) {
            traffic.repeated_zips += 1;
        }
        let len = registry.zip(namespace, type_, version, platform).len();
        traffic.zip_bytes += len as u64;
    }
    traffic
}

/// `/files/NS/TYPE/VERSION/terraform-provider-TYPE_VERSION_OS_ARCH.zip` → its parts.
fn zip_path(path: &str) -> Option<(&str, &str, &str, &str)> {
    let rest = path.strip_prefix("/files/")?.strip_suffix(".zip")?;
    let mut parts = rest.splitn(4, '/');
    let (namespace, type_, version, file) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let platform = file
        .strip_prefix("terraform-provider-")?
        .strip_prefix(type_)?
        .strip_prefix('_')?
        .strip_prefix(version)?
        .strip_prefix('_')?;
    Some((namespace, type_, version, platform))
}
