//! A filesystem mirror (spec §7): a directory of provider packages, scanned once the way
//! Terraform's `SearchLocalDirectory` does, then asked for versions and `h1:` hashes.
//!
//! Two layouts, both under `HOST/NAMESPACE/TYPE/`:
//!
//! * **unpacked**: `VERSION/OS_ARCH/` is a directory holding the package's files;
//! * **packed**: `terraform-provider-TYPE_VERSION_OS_ARCH.zip` (name matched after
//!   lowercasing; extra `_` parts after the arch are ignored).
//!
//! The walk visits names in byte order, depth first, like Go's `filepath.Walk`, and the
//! first package found for a (version, platform) wins, so `1.0.0/` beats a zip of the
//! same version. Namespace and type are case folded, so `AwesomeCorp/HappyCloud/` is
//! `awesomecorp/happycloud`. Only the base directory may be a symlink; symlinked
//! directories are never descended into, but a symlink *is* followed where a package
//! itself is expected (a zip at depth 4, an `OS_ARCH` directory at depth 5). Entries
//! that are not valid are skipped with a warning, as Terraform logs them.
//!
//! Terraform records only the `h1:` of a package installed from a filesystem mirror:
//! nothing authenticates it, so no `zh:` becomes acceptable (spec §5.5). For a zip that
//! is the `h1:` of what it unpacks to, computed by [`hash_zip_file`] without unpacking.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tfsum_vocab::addr::{Platform, ProviderAddr, TERRAFORM_REGISTRY};
use tfsum_vocab::hash::zipstream::{hash_zip_file, ZipLimits};
use tfsum_vocab::hash::{h1_dir, Hash};
use tfsum_vocab::version::Version;

use super::error::{MirrorError, SkipReason, SourceName, SourceWarning, Unavailable};

/// Where one package of the mirror is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Location {
    /// `HOST/NS/TYPE/VERSION/OS_ARCH/`
    Unpacked(PathBuf),
    /// `HOST/NS/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`
    Packed(PathBuf),
}

impl Location {
    pub(crate) fn path(&self) -> &Path {
        match self {
            Location::Unpacked(p) | Location::Packed(p) => p,
        }
    }
}

/// One package found in the mirror.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalPackage {
    pub version: Version,
    pub platform: Platform,
    pub location: Location,
}

/// A scanned filesystem mirror.
#[derive(Debug, Clone)]
pub struct FsMirror {
    /// The directory as given, for messages.
    dir: PathBuf,
    /// Per provider, its packages in walk order.
    packages: BTreeMap<ProviderAddr, Vec<LocalPackage>>,
    warnings: Vec<SourceWarning>,
    limits: ZipLimits,
}

impl FsMirror {
    /// Scans `dir`; packed packages are hashed within `limits` (the run's
    /// `TFSUM_MAX_PACKAGE_*`). A directory that cannot be read fails the scan (Terraform's
    /// walk stops at the first I/O error too); invalid entries only produce warnings.
    pub fn scan(dir: &Path, limits: ZipLimits) -> Result<FsMirror, MirrorError> {
        // The base itself may be a symlink (Terraform resolves it before walking).
        let base = fs::canonicalize(dir).map_err(|e| MirrorError::Scan {
            dir: dir.to_path_buf(),
            error: Arc::new(e),
        })?;
        if !base.is_dir() {
            return Err(MirrorError::NotADirectory {
                dir: dir.to_path_buf(),
            });
        }
        let mut mirror = FsMirror {
            dir: dir.to_path_buf(),
            packages: BTreeMap::new(),
            warnings: Vec::new(),
            limits,
        };
        mirror.walk(&base, &mut Vec::new())?;
        Ok(mirror)
    }

    /// The directory as given.
    /// The bounds its packed packages are read within.
    pub(crate) fn limits(&self) -> &ZipLimits {
        &self.limits
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Entries that were skipped, and why.
    pub fn warnings(&self) -> &[SourceWarning] {
        &self.warnings
    }

    /// The versions the mirror has of `provider` for any platform, canonical, each once,
    /// in precedence order. Empty when the mirror does not know the provider.
    pub(crate) fn versions(&self, provider: &ProviderAddr) -> Vec<String> {
        let mut versions: Vec<&Version> = self
            .packages
            .get(provider)
            .map(|list| list.iter().map(|p| &p.version).collect())
            .unwrap_or_default();
        versions.sort();
        versions.dedup();
        versions.into_iter().map(Version::to_string).collect()
    }

    /// The platforms the mirror has `version` of `provider` for, each once, in walk order.
    pub(crate) fn platforms(&self, provider: &ProviderAddr, version: &Version) -> Vec<Platform> {
        let mut platforms: Vec<Platform> = Vec::new();
        for package in self.packages.get(provider).into_iter().flatten() {
            if package.version == *version && !platforms.contains(&package.platform) {
                platforms.push(package.platform.clone());
            }
        }
        platforms
    }

    /// The package for (provider, version, platform): the first found in walk order.
    pub(crate) fn package(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Option<&LocalPackage> {
        self.packages
            .get(provider)?
            .iter()
            .find(|p| p.version == *version && p.platform == *platform)
    }

    /// The `h1:` Terraform records when it installs this package from the mirror: the
    /// hash of the unpacked directory, or of what the zip unpacks to (spec §2.1, §5.5).
    /// Blocking: it reads the whole package.
    pub(crate) fn package_hash(
        &self,
        provider: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> Result<Hash, MirrorError> {
        let package = self.package(provider, version, platform).ok_or_else(|| {
            MirrorError::NotAvailable(Box::new(Unavailable {
                mirror: SourceName::FsMirror(self.dir.clone()),
                provider: provider.clone(),
                version: version.clone(),
                platform: platform.clone(),
            }))
        })?;
        let hashed = match &package.location {
            Location::Unpacked(dir) => h1_dir(dir),
            Location::Packed(zip) => hash_zip_file(zip, &self.limits).map(|z| z.h1),
        };
        hashed.map_err(|e| MirrorError::Hash {
            path: package.location.path().to_path_buf(),
            error: Arc::new(e),
        })
    }

    /// Visits `path` (whose components below the base are `parts`), then its children
    /// in byte order, following Go's `filepath.Walk`, which does not follow symlinks.
    fn walk(&mut self, path: &Path, parts: &mut Vec<String>) -> Result<(), MirrorError> {
        let read_err = |e: std::io::Error| MirrorError::Scan {
            dir: path.to_path_buf(),
            error: Arc::new(e),
        };
        let mut names: Vec<std::ffi::OsString> = fs::read_dir(path)
            .map_err(read_err)?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect::<Result<_, _>>()
            .map_err(read_err)?;
        names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
        for name in names {
            let child = path.join(&name);
            let Some(name) = name.to_str() else {
                self.warn(&child, SkipReason::NotUtf8);
                continue;
            };
            parts.push(name.to_string());
            let result = self.visit(&child, parts);
            parts.pop();
            result?;
        }
        Ok(())
    }

    fn visit(&mut self, path: &Path, parts: &mut Vec<String>) -> Result<(), MirrorError> {
        let lstat = fs::symlink_metadata(path).map_err(|e| MirrorError::Scan {
            dir: path.to_path_buf(),
            error: Arc::new(e),
        })?;
        let is_link = lstat.file_type().is_symlink();
        let is_real_dir = lstat.is_dir();
        if parts.len() < 3 {
            if is_link {
                let base = self.dir.clone();
                self.warn(path, SkipReason::Symlink { base });
            } else if is_real_dir {
                self.walk(path, parts)?;
            }
            return Ok(());
        }

        let provider = match provider_from_parts(&parts[0], &parts[1], &parts[2]) {
            Ok(Some(provider)) => provider,
            // Legacy `-` providers are never locked.
            Ok(None) => return Ok(()),
            Err(e) => {
                self.warn(path, SkipReason::NotProvider(e));
                return Ok(()); // nothing below an invalid prefix can be valid
            }
        };
        // Where a package is expected, a symlink is followed (Terraform uses os.Stat).
        let Ok(stat) = fs::metadata(path) else {
            self.warn(path, SkipReason::Unreadable);
            return Ok(());
        };
        match parts.len() {
            // Only real directories are descended into; a symlinked VERSION directory
            // is neither a package nor walked.
            3 | 4 if is_real_dir => self.walk(path, parts)?,
            4 if !stat.is_dir() => self.packed(path, &parts[3], provider),
            5 if stat.is_dir() => self.unpacked(path, &parts[3], &parts[4], provider),
            _ => {}
        }
        Ok(())
    }

    fn unpacked(&mut self, path: &Path, version: &str, platform: &str, provider: ProviderAddr) {
        let version = match Version::parse(version) {
            Ok(v) => v,
            Err(e) => return self.warn(path, SkipReason::Version(e)),
        };
        let platform: Platform = match platform.parse() {
            Ok(p) => p,
            Err(e) => return self.warn(path, SkipReason::Platform(e)),
        };
        self.push(
            provider,
            LocalPackage {
                version,
                platform,
                location: Location::Unpacked(path.to_path_buf()),
            },
        );
    }

    fn packed(&mut self, path: &Path, filename: &str, provider: ProviderAddr) {
        let lower = filename.to_lowercase();
        let prefix = format!("terraform-provider-{}_", provider.r#type);
        let Some(rest) = lower.strip_prefix(&prefix) else {
            return self.warn(path, SkipReason::NoPrefix { provider, prefix });
        };
        let Some(middle) = rest.strip_suffix(".zip") else {
            return self.warn(path, SkipReason::NoSuffix { provider });
        };
        let fields: Vec<&str> = middle.split('_').collect();
        let [version, os, arch, ..] = fields.as_slice() else {
            return self.warn(path, SkipReason::NoFields);
        };
        let version = match Version::parse(version) {
            Ok(v) => v,
            Err(e) => return self.warn(path, SkipReason::Version(e)),
        };
        let platform: Platform = match format!("{os}_{arch}").parse() {
            Ok(p) => p,
            Err(e) => return self.warn(path, SkipReason::Platform(e)),
        };
        self.push(
            provider,
            LocalPackage {
                version,
                platform,
                location: Location::Packed(path.to_path_buf()),
            },
        );
    }

    fn push(&mut self, provider: ProviderAddr, package: LocalPackage) {
        self.packages.entry(provider).or_default().push(package);
    }

    fn warn(&mut self, path: &Path, reason: SkipReason) {
        self.warnings.push(SourceWarning::FsMirrorSkipped {
            path: path.to_path_buf(),
            reason,
        });
    }
}

/// The provider a `HOST/NAMESPACE/TYPE` prefix names, case folded; `None` for a legacy
/// (`-`) provider, which is never locked.
fn provider_from_parts(
    host: &str,
    namespace: &str,
    ty: &str,
) -> Result<Option<ProviderAddr>, tfsum_vocab::addr::AddrError> {
    let addr = ProviderAddr::parse(&format!("{host}/{namespace}/{ty}"), TERRAFORM_REGISTRY)?;
    Ok(addr.is_lockable().then_some(addr))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(s: &str) -> ProviderAddr {
        ProviderAddr::parse(s, TERRAFORM_REGISTRY).unwrap()
    }

    fn write(base: &Path, rel: &str, content: &[u8]) {
        let path = base.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    /// A zip of `files` (stored, no directory entries) built with the `zip` crate.
    fn zip_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
        use std::io::Write as _;
        let mut out = std::io::Cursor::new(Vec::new());
        let mut writer = zip::ZipWriter::new(&mut out);
        for (name, content) in files {
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            writer.start_file(*name, options).unwrap();
            writer.write_all(content).unwrap();
        }
        writer.finish().unwrap();
        out.into_inner()
    }

    /// Terraform's own fixture (`providers-lock/basic`): one empty file named
    /// `terraform-provider-test` in an unpacked package (spec §9).
    #[test]
    fn terraform_providers_lock_fixture() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "registry.terraform.io/hashicorp/test/1.0.0/os_arch/terraform-provider-test",
            b"",
        );
        let mirror = FsMirror::scan(dir.path(), ZipLimits::default()).unwrap();
        let test = provider("hashicorp/test");
        assert_eq!(mirror.versions(&test), ["1.0.0"]);
        let hash = mirror
            .package_hash(&test, &Version::new(1, 0, 0), &"os_arch".parse().unwrap())
            .unwrap();
        assert_eq!(
            hash.as_str(),
            "h1:7MjN4eFisdTv4tlhXH5hL4QQd39Jy4baPhFxwAd/EFE="
        );
    }

    /// Every rule of the walk in one table: what is found (provider, version, platform,
    /// layout) and what is skipped with a warning.
    #[test]
    fn scan_rules() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        let zip = zip_bytes(&[("terraform-provider-null_v3.2.1_x5", b"binary")]);
        for rel in [
            // packed, unpacked, case folding, extra name parts
            "registry.terraform.io/hashicorp/null/terraform-provider-null_3.2.1_linux_amd64.zip",
            "registry.terraform.io/hashicorp/null/TERRAFORM-PROVIDER-NULL_3.2.0_Darwin_ARM64.ZIP",
            "registry.terraform.io/hashicorp/null/terraform-provider-null_3.1.0_linux_amd64_extra.zip",
            "example.com/AwesomeCorp/HappyCloud/terraform-provider-happycloud_1.0.0_linux_amd64.zip",
            // both layouts for one (version, platform): the unpacked one is walked first
            "registry.terraform.io/hashicorp/random/terraform-provider-random_3.6.0_linux_amd64.zip",
            // invalid: wrong type prefix, no platform, bad version, bad platform, bad host
            "registry.terraform.io/hashicorp/null/terraform-provider-other_1.0.0_linux_amd64.zip",
            "registry.terraform.io/hashicorp/null/terraform-provider-null_1.0.0.zip",
            "registry.terraform.io/hashicorp/null/terraform-provider-null_x.y_linux_amd64.zip",
            "registry.terraform.io/hashicorp/null/README.txt",
            "xn--caf-dma.fr/hashicorp/null/terraform-provider-null_1.0.0_linux_amd64.zip",
        ] {
            write(base, rel, &zip);
        }
        write(base, "registry.terraform.io/hashicorp/random/3.6.0/linux_amd64/terraform-provider-random_v3.6.0_x5", b"bin");
        write(
            base,
            "registry.terraform.io/hashicorp/random/3.6.0/linux_amd64/sub/extra.txt",
            b"x",
        );
        write(
            base,
            "registry.terraform.io/hashicorp/random/3.5.x/linux_amd64/f",
            b"x",
        );
        write(
            base,
            "registry.terraform.io/hashicorp/random/3.5.0/linux-amd64/f",
            b"x",
        );
        // A file where a platform directory belongs is not a package.
        write(
            base,
            "registry.terraform.io/hashicorp/random/3.4.0/linux_amd64",
            b"x",
        );
        // A legacy provider is accepted by Terraform but never locked.
        write(
            base,
            "registry.terraform.io/-/legacy/terraform-provider-legacy_1.0.0_linux_amd64.zip",
            &zip,
        );
        // Symlinks: the package itself may be one; a namespace directory may not.
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            let pkg = base.join("registry.terraform.io/hashicorp/null/terraform-provider-null_3.2.1_linux_amd64.zip");
            symlink(&pkg, base.join("registry.terraform.io/hashicorp/null/terraform-provider-null_3.2.1_windows_amd64.zip")).unwrap();
            symlink(
                base.join("registry.terraform.io/hashicorp/random/3.6.0/linux_amd64"),
                base.join("registry.terraform.io/hashicorp/random/3.6.0/darwin_arm64"),
            )
            .unwrap();
            symlink(
                base.join("registry.terraform.io/hashicorp"),
                base.join("registry.terraform.io/linked"),
            )
            .unwrap();
        }

        let mirror = FsMirror::scan(base, ZipLimits::default()).unwrap();
        let mut found = Vec::new();
        for (provider, packages) in &mirror.packages {
            for p in packages {
                let kind = match &p.location {
                    Location::Unpacked(_) => "unpacked",
                    Location::Packed(_) => "packed",
                };
                found.push(format!("{provider} {} {} {kind}", p.version, p.platform));
            }
        }
        let mut want = vec![
            "example.com/awesomecorp/happycloud 1.0.0 linux_amd64 packed",
            "registry.terraform.io/hashicorp/null 3.2.0 darwin_arm64 packed",
            "registry.terraform.io/hashicorp/null 3.1.0 linux_amd64 packed",
            "registry.terraform.io/hashicorp/null 3.2.1 linux_amd64 packed",
            "registry.terraform.io/hashicorp/random 3.6.0 linux_amd64 unpacked",
            "registry.terraform.io/hashicorp/random 3.6.0 linux_amd64 packed",
        ];
        if cfg!(unix) {
            want.insert(
                4,
                "registry.terraform.io/hashicorp/null 3.2.1 windows_amd64 packed",
            );
            want.insert(
                5,
                "registry.terraform.io/hashicorp/random 3.6.0 darwin_arm64 unpacked",
            );
        }
        assert_eq!(found, want);

        let warnings: Vec<String> = mirror.warnings().iter().map(|w| w.to_string()).collect();
        let warnings = warnings.join("\n");
        for expected in [
            "README.txt: not a package for registry.terraform.io/hashicorp/null: the name lacks the prefix",
            "terraform-provider-other_1.0.0_linux_amd64.zip: not a package",
            "terraform-provider-null_1.0.0.zip: the name does not include version",
            "terraform-provider-null_x.y_linux_amd64.zip: invalid version",
            "3.5.x/linux_amd64: invalid version",
            "3.5.0/linux-amd64: invalid platform",
            "xn--caf-dma.fr/hashicorp",
        ] {
            assert!(warnings.contains(expected), "want {expected:?} in:\n{warnings}");
        }
        if cfg!(unix) {
            assert!(warnings.contains("linked: ignored symlink"), "{warnings}");
        }

        let random = provider("hashicorp/random");
        let linux: Platform = "linux_amd64".parse().unwrap();
        assert_eq!(mirror.versions(&random), ["3.6.0"]);
        assert_eq!(
            mirror.versions(&provider("hashicorp/null")),
            ["3.1.0", "3.2.0", "3.2.1"]
        );
        assert!(mirror.versions(&provider("hashicorp/aws")).is_empty());
        // The unpacked tree counts every file, in subdirectories too.
        let h1 = mirror
            .package_hash(&random, &Version::new(3, 6, 0), &linux)
            .unwrap();
        let want = tfsum_vocab::hash::dirhash::h1_dir(
            &base.join("registry.terraform.io/hashicorp/random/3.6.0/linux_amd64"),
        )
        .unwrap();
        assert_eq!(h1, want);
        // A packed package hashes as what it unpacks to.
        let null = provider("hashicorp/null");
        let from_zip = mirror
            .package_hash(&null, &Version::new(3, 2, 1), &linux)
            .unwrap();
        let unpacked = tempfile::tempdir().unwrap();
        write(
            unpacked.path(),
            "terraform-provider-null_v3.2.1_x5",
            b"binary",
        );
        assert_eq!(from_zip, h1_dir(unpacked.path()).unwrap());

        let err = mirror
            .package_hash(&null, &Version::new(9, 9, 9), &linux)
            .unwrap_err();
        assert!(err.to_string().contains("registry.terraform.io/hashicorp/null 9.9.9 for linux_amd64 is not available in the filesystem mirror"), "{err}");
    }

    #[test]
    fn missing_base_fails() {
        let dir = tempfile::tempdir().unwrap();
        let err = FsMirror::scan(&dir.path().join("nope"), ZipLimits::default()).unwrap_err();
        assert!(
            err.to_string()
                .contains("cannot read the filesystem mirror"),
            "{err}"
        );
    }
}
