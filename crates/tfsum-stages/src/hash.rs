//! Stage 4 of the pipeline (docs/design.md "hash"): the hashes of every unique package of a
//! plan, each package once, from the package sources ([`tfsum_sources`]).

use std::collections::{BTreeSet, HashMap};

use tfsum_sources::{Package, PackageError, PackageHashes, Sources};
use tfsum_vocab::addr::Platform;

/// Every package's hashes, or why it has none.
pub(crate) type Hashes = HashMap<Package, Result<PackageHashes, PackageError>>;

/// Stage 4: the hashes of every package for `platforms`, each package once, all at the
/// same time (the sources bound the actual concurrency). Each package is a task of its
/// own, so what is work for the processor (checking the signature of cached sums,
/// hashing a package) runs on every core.
pub async fn hash_packages(
    sources: &Sources,
    packages: &BTreeSet<Package>,
    platforms: &[Platform],
) -> Hashes {
    let tasks: Vec<_> = packages
        .iter()
        .map(|package| {
            let (sources, package, platforms) =
                (sources.clone(), package.clone(), platforms.to_vec());
            tokio::spawn(async move {
                let hashes = sources
                    .package_hashes(&package.addr, &package.version, &platforms, package.flavor)
                    .await;
                (package, hashes)
            })
        })
        .collect();
    let mut hashes = Hashes::with_capacity(tasks.len());
    for task in tasks {
        match task.await {
            Ok((package, result)) => {
                hashes.insert(package, result);
            }
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
    hashes
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use tfsum_sources::testing::{h1, hashicorp, zh, TableRegistry};
    use tfsum_sources::{PackageProblem, Provenance};
    use tfsum_vocab::lockfile::Flavor;
    use tfsum_vocab::version::Version;

    fn package(name: &str, version: &str) -> Package {
        Package {
            addr: hashicorp(name),
            version: Version::parse(version).unwrap(),
            flavor: Flavor::Terraform,
        }
    }

    /// Every package is asked for once, for every platform at once; each gets its
    /// hashes with their provenance, or its typed error naming provider and version.
    #[tokio::test]
    async fn each_package_once_with_its_hashes_or_its_error() {
        let mut registry = TableRegistry::default();
        let broken = package("random", "3.6.0");
        registry.broken.insert(
            (broken.addr.clone(), broken.version.clone()),
            PackageProblem::Offline {
                missing: vec!["linux_amd64".parse().unwrap()],
            },
        );
        let registry = Arc::new(registry);
        let sources = Sources::registry(registry.clone());
        let packages = BTreeSet::from([package("null", "3.2.1"), broken.clone()]);
        let platforms: Vec<Platform> = vec![
            "darwin_arm64".parse().unwrap(),
            "linux_amd64".parse().unwrap(),
        ];
        let hashes = hash_packages(&sources, &packages, &platforms).await;
        let mut asked = registry.asked();
        asked.sort();
        assert_eq!(
            asked,
            [
                "hashes null 3.2.1 darwin_arm64,linux_amd64",
                "hashes random 3.6.0 darwin_arm64,linux_amd64",
            ]
        );
        assert_eq!(hashes.len(), 2);

        let null = package("null", "3.2.1");
        let got = hashes[&null].as_ref().expect("null hashed");
        let mut want: Vec<(String, Provenance, Option<String>)> = platforms
            .iter()
            .map(|p| {
                let hash = h1(&null.addr, &null.version, p).to_string();
                (hash, Provenance::Download, Some(p.to_string()))
            })
            .collect();
        want.push((
            zh(&null.addr, &null.version).to_string(),
            Provenance::SignedSums,
            None,
        ));
        let got: Vec<(String, Provenance, Option<String>)> = got
            .iter()
            .map(|(hash, origin)| {
                let platform = origin.platform.as_ref().map(ToString::to_string);
                (hash.to_string(), origin.provenance, platform)
            })
            .collect();
        assert_eq!(got, want);

        let err = hashes[&broken].as_ref().expect_err("random fails");
        assert_eq!(
            (&err.provider, &err.version),
            (&broken.addr, &broken.version)
        );
        assert!(
            matches!(err.problem, PackageProblem::Offline { .. }),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "registry.terraform.io/hashicorp/random 3.6.0: offline, and the cache does not hold the package for linux_amd64"
        );
    }
}
