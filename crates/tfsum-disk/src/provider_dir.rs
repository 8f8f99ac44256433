//! The provider directory `tfsum mirror` fills, in one of Terraform's two layouts:
//!
//! - **unpacked**, `HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/` holding the package's files:
//!   what Terraform and OpenTofu read both as a plugin cache (`plugin_cache_dir`,
//!   `TF_PLUGIN_CACHE_DIR`) and as a `filesystem_mirror`;
//! - **packed**, `HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip` with
//!   the `index.json` and `VERSION.json` files `terraform providers mirror` writes, for a
//!   static network mirror (spec §6, §7).
//!
//! Nothing appears in the directory half-made. A package is written and unpacked in a
//! *staging* directory beside it (`.NAME.tfsum-staging`, on the same file system, so a
//! rename moves it in), checked, and renamed into place in one step. Staging sits
//! outside the directory because Terraform walks the whole directory on every `init`
//! and fails ("cannot search …") when an entry it listed is gone before it looks at it,
//! as a temporary entry renamed away would be. Every staged entry is claimed
//! ([`crate::leftovers`]), so a killed run's leftovers are removed by the next.
//!
//! An entry already in place is never rewritten while it is whole: a running provider
//! may be executing its binary. A damaged one is swapped for the new one in one step
//! where the OS can (Linux), so a reader finds the old entry or the new, never none.

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::leftovers::{self, TempDir, TempFile};
use crate::unzip::{unzip, UnzipError};
use tfsum_vocab::addr::{Platform, ProviderAddr};
use tfsum_vocab::hash::dirhash::h1_dir;
use tfsum_vocab::hash::zipstream::hash_zip_file;
use tfsum_vocab::hash::{Hash, HashError, ZipLimits};
use tfsum_vocab::version::Version;

/// Which of Terraform's layouts the directory is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// Unpacked directories: a plugin cache and a filesystem mirror.
    #[default]
    Unpacked,
    /// Zips and JSON indexes: `terraform providers mirror`'s output.
    Packed,
}

/// Why the directory cannot be used at all.
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("{}: is a symbolic link or belongs to another user; tfsum stages packages only in a directory of its own", .0.display())]
    Staging(PathBuf),
}

/// Why one package could not be placed.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError<E: std::error::Error + 'static> {
    #[error("cannot stage it: {0}")]
    Stage(#[source] std::io::Error),
    #[error("cannot unpack it: {0}")]
    Unzip(#[source] UnzipError),
    #[error("cannot hash it: {0}")]
    Hash(#[source] HashError),
    /// The caller's check refused the package's `h1:`.
    #[error(transparent)]
    Refused(E),
    #[error("cannot put it at {}: {source}", path.display())]
    Place {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What a place in the directory holds.
#[derive(Debug)]
pub enum Present {
    Missing,
    /// An entry whose `h1:` is this.
    Hashed(Hash),
    /// An entry that cannot be hashed (a partial copy, a file where a directory
    /// belongs, …): damaged.
    Damaged,
}

/// How a package got into the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placed {
    /// Renamed into an empty place.
    Installed,
    /// Swapped for a damaged entry.
    Replaced,
    /// Another run put the same package there first; ours was dropped.
    Present,
}

/// A provider directory opened for filling.
#[derive(Debug)]
pub struct ProviderDir {
    root: PathBuf,
    staging: PathBuf,
    layout: Layout,
    limits: ZipLimits,
}

impl ProviderDir {
    /// Opens (creating it when missing) the directory at `root` and its staging
    /// directory, removing what killed runs left in staging.
    pub fn open(root: &Path, layout: Layout, limits: ZipLimits) -> Result<ProviderDir, DirError> {
        let io_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| DirError::Io { path, source }
        };
        std::fs::create_dir_all(root).map_err(io_err(root))?;
        let root = std::path::absolute(root).map_err(io_err(root))?;
        if !std::fs::metadata(&root).map_err(io_err(&root))?.is_dir() {
            return Err(DirError::NotADirectory(root));
        }
        let staging = staging_beside(&root).map_err(io_err(&root))?;
        leftovers::sweep(&staging);
        Ok(ProviderDir {
            root,
            staging,
            layout,
            limits,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The folder of one provider: `HOST/NAMESPACE/TYPE`.
    fn provider_dir(&self, addr: &ProviderAddr) -> PathBuf {
        self.root
            .join(addr.hostname.display())
            .join(&addr.namespace)
            .join(&addr.r#type)
    }

    /// Where the package for (`addr`, `version`, `platform`) goes in this layout.
    pub(crate) fn entry_path(
        &self,
        addr: &ProviderAddr,
        version: &Version,
        platform: &Platform,
    ) -> PathBuf {
        let dir = self.provider_dir(addr);
        match self.layout {
            Layout::Unpacked => dir.join(version.to_string()).join(platform.to_string()),
            Layout::Packed => dir.join(format!(
                "terraform-provider-{}_{version}_{platform}.zip",
                addr.r#type
            )),
        }
    }

    /// What the place of (`addr`, `version`, `platform`) holds now: its `h1:` as
    /// Terraform computes it for an unpacked directory or a zip.
    pub fn present(&self, addr: &ProviderAddr, version: &Version, platform: &Platform) -> Present {
        self.present_at(&self.entry_path(addr, version, platform))
    }

    fn present_at(&self, path: &Path) -> Present {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return Present::Missing;
        };
        let hashed = match self.layout {
            Layout::Unpacked if meta.is_dir() => h1_dir(path),
            Layout::Packed if meta.is_file() => hash_zip_file(path, &self.limits).map(|z| z.h1),
            _ => Err(HashError::NotADirectory(path.to_path_buf())),
        };
        match hashed {
            Ok(h1) => Present::Hashed(h1),
            Err(_) => Present::Damaged,
        }
    }

    /// A new claimed file in staging, for a package's zip to be written to.
    pub fn staging_file(&self) -> std::io::Result<TempFile> {
        TempFile::new_in(&self.staging)
    }

    /// Puts the package in `zip` (already checked against the signed SHA256SUMS) at its
    /// place, after `check` accepted the `h1:` of what will be placed: the unpacked
    /// files, or the zip in the packed layout. Returns that `h1:` and how it got there.
    pub fn place<E: std::error::Error + 'static>(
        &self,
        zip: TempFile,
        addr: &ProviderAddr,
        version: &Version,
        platform: &Platform,
        check: impl FnOnce(&Hash) -> Result<(), E>,
    ) -> Result<(Hash, Placed), PlaceError<E>> {
        let target = self.entry_path(addr, version, platform);
        let parent = target.parent().unwrap_or(&self.root);
        let place_err = |source| PlaceError::Place {
            path: target.clone(),
            source,
        };
        match self.layout {
            Layout::Unpacked => {
                let staged = TempDir::new_in(&self.staging).map_err(PlaceError::Stage)?;
                unzip(zip.path(), staged.path(), &self.limits).map_err(PlaceError::Unzip)?;
                drop(zip);
                let h1 = h1_dir(staged.path()).map_err(PlaceError::Hash)?;
                check(&h1).map_err(PlaceError::Refused)?;
                std::fs::create_dir_all(parent).map_err(place_err)?;
                match staged.rename_to(&target) {
                    Ok(()) => Ok((h1, Placed::Installed)),
                    Err((_, staged)) => match self.present_at(&target) {
                        Present::Hashed(there) if there == h1 => Ok((h1, Placed::Present)),
                        _ => {
                            staged.replace(&target).map_err(place_err)?;
                            Ok((h1, Placed::Replaced))
                        }
                    },
                }
            }
            Layout::Packed => {
                let h1 = hash_zip_file(zip.path(), &self.limits)
                    .map_err(PlaceError::Hash)?
                    .h1;
                check(&h1).map_err(PlaceError::Refused)?;
                let placed = match self.present_at(&target) {
                    Present::Hashed(there) if there == h1 => return Ok((h1, Placed::Present)),
                    Present::Missing => Placed::Installed,
                    _ => Placed::Replaced,
                };
                std::fs::create_dir_all(parent).map_err(place_err)?;
                // A rename over a file replaces it in one step on every OS.
                zip.rename_to(&target).map_err(|(e, _)| place_err(e))?;
                Ok((h1, placed))
            }
        }
    }

    /// Packed layout: writes each provider's `index.json` and `VERSION.json` from the
    /// zips the directory holds, as `terraform providers mirror` does (spec §6), so that
    /// packages placed by earlier runs stay listed. `known` holds `h1:`s already
    /// computed this run, by zip path; the others are hashed now.
    pub fn write_indexes(&self, known: &HashMap<PathBuf, Hash>) -> Result<(), DirError> {
        if self.layout != Layout::Packed {
            return Ok(());
        }
        for provider_dir in provider_dirs(&self.root) {
            let Ok(entries) = std::fs::read_dir(&provider_dir) else {
                continue;
            };
            let Some(type_name) = provider_dir.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let prefix = format!("terraform-provider-{}_", type_name.to_lowercase());
            let mut versions: BTreeMap<String, BTreeMap<String, serde_json::Value>> =
                BTreeMap::new();
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some((version, platform)) = packed_name(&name, &prefix) else {
                    continue;
                };
                let path = entry.path();
                let h1 = match known.get(&path) {
                    Some(h1) => h1.clone(),
                    None => match hash_zip_file(&path, &self.limits) {
                        Ok(z) => z.h1,
                        Err(_) => continue,
                    },
                };
                versions.entry(version.to_string()).or_default().insert(
                    platform.to_string(),
                    serde_json::json!({ "hashes": [h1.to_string()], "url": name }),
                );
            }
            if versions.is_empty() {
                continue;
            }
            let index = serde_json::json!({
                "versions": versions.keys().map(|v| (v.clone(), serde_json::json!({})))
                    .collect::<serde_json::Map<_, _>>(),
            });
            self.write_json(&provider_dir.join("index.json"), &index)?;
            for (version, archives) in versions {
                let doc = serde_json::json!({ "archives": archives });
                self.write_json(&provider_dir.join(format!("{version}.json")), &doc)?;
            }
        }
        Ok(())
    }

    /// Writes `value` as Go's `json.MarshalIndent(v, "", "  ")` does (no final newline),
    /// staged and renamed into place.
    fn write_json(&self, path: &Path, value: &serde_json::Value) -> Result<(), DirError> {
        let io_err = |source| DirError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut text = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"  ");
        let mut ser = serde_json::Serializer::with_formatter(&mut text, formatter);
        serde::Serialize::serialize(value, &mut ser).map_err(|e| io_err(e.into()))?;
        if std::fs::read(path).is_ok_and(|old| old == text) {
            return Ok(());
        }
        let mut file = self.staging_file().map_err(io_err)?;
        file.as_file_mut()
            .write_all(&text)
            .and_then(|()| file.as_file().sync_all())
            .map_err(io_err)?;
        set_readable(file.as_file()).map_err(io_err)?;
        file.rename_to(path).map_err(|(e, _)| io_err(e))
    }

    /// Removes the staging directory when no run uses it any more.
    pub fn close(&self) {
        leftovers::sweep(&self.staging);
        let _ = std::fs::remove_dir(&self.staging);
    }
}

/// `HOST/NAMESPACE/TYPE` folders below `root`.
fn provider_dirs(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let children = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default()
    };
    for host in children(root) {
        for namespace in children(&host) {
            found.extend(children(&namespace));
        }
    }
    found.sort();
    found
}

/// `terraform-provider-TYPE_VERSION_OS_ARCH.zip` → (version, platform), matched as
/// Terraform matches it (case-insensitive, spec §7).
fn packed_name(name: &str, prefix: &str) -> Option<(Version, Platform)> {
    let lower = name.to_lowercase();
    let rest = lower.strip_prefix(prefix)?.strip_suffix(".zip")?;
    let mut parts = rest.split('_');
    let version = Version::parse(parts.next()?).ok()?;
    let platform = format!("{}_{}", parts.next()?, parts.next()?)
        .parse::<Platform>()
        .ok()?;
    Some((version, platform))
}

/// Staged files are created 0600; what goes into the directory is 0644, as Terraform
/// writes it.
fn set_readable(file: &std::fs::File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        file.set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// The staging directory for `root`: `.NAME.tfsum-staging` beside it, made private,
/// or inside it when the parent cannot hold one or lies on another file system.
fn staging_beside(root: &Path) -> std::io::Result<PathBuf> {
    let beside = match (root.parent(), root.file_name()) {
        (Some(parent), Some(name)) => {
            Some(parent.join(format!(".{}.tfsum-staging", name.to_string_lossy())))
        }
        _ => None,
    };
    if let Some(beside) = beside {
        if make_private_dir(&beside).is_ok() && same_file_system(&beside, root) {
            return Ok(beside);
        }
    }
    let inside = root.join(".tfsum-staging");
    make_private_dir(&inside)?;
    Ok(inside)
}

/// Creates `dir` (0700) unless it exists as a directory of this user's; refuses a link
/// or another user's directory there.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        Err(_) => {}
    }
    let meta = std::fs::symlink_metadata(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        // SAFETY: geteuid has no preconditions and cannot fail.
        if meta.uid() != unsafe { libc::geteuid() } {
            return Err(std::io::Error::other(DirError::Staging(dir.to_path_buf())));
        }
    }
    if !meta.is_dir() {
        return Err(std::io::Error::other(DirError::Staging(dir.to_path_buf())));
    }
    Ok(())
}

#[cfg(unix)]
fn same_file_system(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file_system(_a: &Path, _b: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data) in entries {
            let options = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
            out.start_file(*name, options).unwrap();
            out.write_all(data).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    fn staged(dir: &ProviderDir, bytes: &[u8]) -> TempFile {
        let mut file = dir.staging_file().unwrap();
        file.as_file_mut().write_all(bytes).unwrap();
        file
    }

    fn null() -> (ProviderAddr, Version, Platform) {
        (
            ProviderAddr::parse("hashicorp/null", "registry.terraform.io").unwrap(),
            Version::parse("3.2.1").unwrap(),
            "linux_amd64".parse().unwrap(),
        )
    }

    fn ok(_: &Hash) -> Result<(), std::io::Error> {
        Ok(())
    }

    /// Unpacked: placed once, then found present with the same `h1:`; a damaged entry
    /// is swapped for a whole one; staging is empty and removed at the end.
    #[test]
    fn unpacked_entries_are_placed_whole_and_damaged_ones_replaced() {
        let root = tempfile::tempdir().unwrap();
        let mirror = root.path().join("mirror");
        let dir = ProviderDir::open(&mirror, Layout::Unpacked, ZipLimits::default()).unwrap();
        let (addr, version, platform) = null();
        let zip = zip_of(&[("terraform-provider-null_v3.2.1_x5", b"binary")]);
        let (h1, placed) = dir
            .place(staged(&dir, &zip), &addr, &version, &platform, ok)
            .unwrap();
        assert_eq!(placed, Placed::Installed);
        let path = mirror.join("registry.terraform.io/hashicorp/null/3.2.1/linux_amd64");
        assert!(path.join("terraform-provider-null_v3.2.1_x5").is_file());
        assert!(matches!(dir.present(&addr, &version, &platform), Present::Hashed(h) if h == h1));

        // A second run's copy finds it there and leaves it alone.
        let again = dir
            .place(staged(&dir, &zip), &addr, &version, &platform, ok)
            .unwrap();
        assert_eq!(again, (h1.clone(), Placed::Present));

        std::fs::write(path.join("terraform-provider-null_v3.2.1_x5"), b"half").unwrap();
        assert!(matches!(dir.present(&addr, &version, &platform), Present::Hashed(h) if h != h1));
        let replaced = dir
            .place(staged(&dir, &zip), &addr, &version, &platform, ok)
            .unwrap();
        assert_eq!(replaced, (h1.clone(), Placed::Replaced));
        assert!(matches!(dir.present(&addr, &version, &platform), Present::Hashed(h) if h == h1));

        // A refused package is not placed.
        let other = zip_of(&[("terraform-provider-null_v3.2.1_x5", b"other")]);
        let (addr2, version2) = (addr.clone(), Version::parse("3.2.2").unwrap());
        let refused = dir.place(staged(&dir, &other), &addr2, &version2, &platform, |_| {
            Err(std::io::Error::other("no"))
        });
        assert!(matches!(refused, Err(PlaceError::Refused(_))));
        assert!(matches!(
            dir.present(&addr2, &version2, &platform),
            Present::Missing
        ));

        let staging = root.path().join(".mirror.tfsum-staging");
        assert_eq!(std::fs::read_dir(&staging).unwrap().count(), 0);
        dir.close();
        assert!(!staging.exists());
        let names: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["mirror"]);
    }

    /// Packed: zips under their Terraform names and the JSON indexes `providers mirror`
    /// writes, byte for byte (two-space indent, sorted keys, no final newline).
    #[test]
    fn packed_layout_writes_zips_and_indexes() {
        let root = tempfile::tempdir().unwrap();
        let dir = ProviderDir::open(root.path(), Layout::Packed, ZipLimits::default()).unwrap();
        let (addr, version, platform) = null();
        let zip = zip_of(&[("terraform-provider-null_v3.2.1_x5", b"binary")]);
        let (h1, _) = dir
            .place(staged(&dir, &zip), &addr, &version, &platform, ok)
            .unwrap();
        dir.write_indexes(&HashMap::new()).unwrap();
        let base = root.path().join("registry.terraform.io/hashicorp/null");
        assert_eq!(
            std::fs::read(base.join("terraform-provider-null_3.2.1_linux_amd64.zip")).unwrap(),
            zip
        );
        assert_eq!(
            std::fs::read_to_string(base.join("index.json")).unwrap(),
            "{\n  \"versions\": {\n    \"3.2.1\": {}\n  }\n}"
        );
        assert_eq!(
            std::fs::read_to_string(base.join("3.2.1.json")).unwrap(),
            format!(
                "{{\n  \"archives\": {{\n    \"linux_amd64\": {{\n      \"hashes\": [\n        \"{h1}\"\n      ],\n      \"url\": \"terraform-provider-null_3.2.1_linux_amd64.zip\"\n    }}\n  }}\n}}"
            )
        );
    }
}
