//! A registry that answers from tables, for direct tests of the stages that ask the
//! sources (resolve, hash, install) on small typed inputs.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::sync::Mutex;

use futures::future::BoxFuture;

use super::error::{PackageError, PackageProblem, VersionsError};
use super::{
    HashOrigin, PackageHashes, Provenance, Registry, RegistryStats, SignedChecksums, VersionsFound,
};
use tfsum_net::registry::RegistryError;
use tfsum_vocab::addr::{Platform, PlatformPackage, ProviderAddr, TERRAFORM_REGISTRY};
use tfsum_vocab::hash::zipstream::{hash_zip_stream, ZipHashes, ZipLimits};
use tfsum_vocab::hash::Hash;
use tfsum_vocab::url::SafeUrl;
use tfsum_vocab::version::Version;

/// Versions per provider (a provider it does not list is unknown to it: a 404), packages
/// that fail, and every question it was asked.
#[derive(Debug, Default)]
pub struct TableRegistry {
    pub versions: BTreeMap<ProviderAddr, VersionsFound>,
    /// Packages whose hashes cannot be had, and why.
    pub broken: BTreeMap<(ProviderAddr, Version), PackageProblem>,
    /// The zips it serves (for the install stage), per package and platform.
    pub zips: BTreeMap<(ProviderAddr, Version, Platform), Vec<u8>>,
    /// `versions TYPE`, `hashes TYPE VERSION PLATFORM,…` and `package TYPE VERSION
    /// PLATFORM`, in the order asked.
    pub asked: Mutex<Vec<String>>,
}

/// `registry.terraform.io/hashicorp/NAME`.
pub fn hashicorp(name: &str) -> ProviderAddr {
    ProviderAddr::parse(&format!("hashicorp/{name}"), TERRAFORM_REGISTRY)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The `h1:` the table gives a package for a platform.
pub fn h1(provider: &ProviderAddr, version: &Version, platform: &Platform) -> Hash {
    let text = format!("h1:{}-{version}-{platform}", provider.r#type);
    Hash::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The one `zh:` the table gives a package.
pub fn zh(provider: &ProviderAddr, version: &Version) -> Hash {
    let text = format!("zh:{}-{version}", provider.r#type);
    Hash::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

impl TableRegistry {
    /// Lists `versions` (raw, as a registry may spell them) for each provider.
    pub fn listing(providers: &[(&str, &[&str])]) -> TableRegistry {
        let versions = providers
            .iter()
            .map(|(name, versions)| {
                let found = VersionsFound {
                    versions: versions.iter().map(|v| v.to_string()).collect(),
                    warnings: Vec::new(),
                };
                (hashicorp(name), found)
            })
            .collect();
        TableRegistry {
            versions,
            ..TableRegistry::default()
        }
    }

    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().map(|a| a.clone()).unwrap_or_default()
    }

    fn ask(&self, question: String) {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(question);
        }
    }
}

impl Registry for TableRegistry {
    fn versions<'a>(
        &'a self,
        provider: &'a ProviderAddr,
    ) -> BoxFuture<'a, Result<VersionsFound, VersionsError>> {
        self.ask(format!("versions {}", provider.r#type));
        let answer = self.versions.get(provider).cloned().ok_or_else(|| {
            let url = format!("https://registry.example/v1/providers/{provider}/versions");
            VersionsError::Registry(RegistryError::ProviderNotFound {
                provider: Box::new(provider.clone()),
                url: SafeUrl::new(&url::Url::parse(&url).expect("a valid URL")),
            })
        });
        Box::pin(async move { answer })
    }

    fn package_hashes<'a>(
        &'a self,
        provider: &'a ProviderAddr,
        version: &'a Version,
        platforms: &'a [Platform],
        _use_packages_map: bool,
    ) -> BoxFuture<'a, Result<PackageHashes, PackageError>> {
        let names: Vec<String> = platforms.iter().map(Platform::to_string).collect();
        let type_ = &provider.r#type;
        self.ask(format!("hashes {type_} {version} {}", names.join(",")));
        let answer = match self.broken.get(&(provider.clone(), version.clone())) {
            Some(problem) => Err(PackageError::new(provider, version, None, problem.clone())),
            None => {
                let mut hashes = PackageHashes::new();
                for platform in platforms {
                    let origin = HashOrigin::of(Provenance::Download, platform);
                    hashes.insert(h1(provider, version, platform), origin);
                }
                let signed = HashOrigin {
                    provenance: Provenance::SignedSums,
                    platform: None,
                };
                hashes.insert(zh(provider, version), signed);
                Ok(hashes)
            }
        };
        Box::pin(async move { answer })
    }

    fn published_platforms<'a>(
        &'a self,
        _provider: &'a ProviderAddr,
        _version: &'a Version,
    ) -> BoxFuture<'a, Result<Vec<Platform>, PackageError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// A tabled zip, written to `into` and hashed; a package without one is not
    /// computed.
    fn fetch_package<'a>(
        &'a self,
        package: PlatformPackage<'a>,
        into: &'a std::fs::File,
    ) -> BoxFuture<'a, Result<ZipHashes, PackageError>> {
        let PlatformPackage {
            provider,
            version,
            platform,
        } = package;
        self.ask(format!("package {} {version} {platform}", provider.r#type));
        let key = (provider.clone(), version.clone(), platform.clone());
        let answer = match self.zips.get(&key) {
            Some(zip) => {
                let mut into = into;
                into.write_all(zip).expect("the package file takes the zip");
                Ok(hash_zip_stream(zip.as_slice(), &ZipLimits::default()).expect("a tabled zip"))
            }
            None => Err(PackageError::new(
                provider,
                version,
                Some(platform),
                PackageProblem::NotComputed,
            )),
        };
        Box::pin(async move { answer })
    }

    /// The one tabled `zh:` line, and the tabled zips' checksums by file name.
    fn signed_checksums<'a>(
        &'a self,
        provider: &'a ProviderAddr,
        version: &'a Version,
    ) -> BoxFuture<'a, Result<SignedChecksums, PackageError>> {
        self.ask(format!("sums {} {version}", provider.r#type));
        let mut signed = SignedChecksums {
            zh: vec![zh(provider, version)],
            files: Vec::new(),
        };
        for ((p, v, platform), zip) in &self.zips {
            if p == provider && v == version {
                use sha2::Digest as _;
                let name = format!("terraform-provider-{}_{v}_{platform}.zip", p.r#type);
                let sum = hex::encode(sha2::Sha256::digest(zip));
                signed
                    .zh
                    .push(Hash::parse(&format!("zh:{sum}")).expect("a zh: hash"));
                signed.files.push((name, Some(sum)));
            }
        }
        Box::pin(async move { Ok(signed) })
    }

    fn stats(&self) -> RegistryStats {
        RegistryStats::default()
    }
}
