//! Stage 4 of the pipeline (docs/design.md "hash"): the hashes of every unique package of a
//! plan, each package once, from the package sources ([`crate::sources`]).

use std::collections::{BTreeSet, HashMap};

use crate::sources::{Package, PackageError, PackageHashes, Sources};
use crate::vocab::addr::Platform;

/// Every package's hashes, or why it has none.
pub(crate) type Hashes = HashMap<Package, Result<PackageHashes, PackageError>>;

/// Stage 4: the hashes of every package for `platforms`, each package once, all at the
/// same time (the sources bound the actual concurrency).
pub(crate) async fn hash_packages(
    sources: &Sources,
    packages: &BTreeSet<Package>,
    platforms: &[Platform],
) -> Hashes {
    let results = futures::future::join_all(packages.iter().map(|package| async move {
        let hashes = sources
            .package_hashes(&package.addr, &package.version, platforms, package.flavor)
            .await;
        (package.clone(), hashes)
    }))
    .await;
    results.into_iter().collect()
}
