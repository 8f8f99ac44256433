//! What changes about a lock file as a whole, beside its providers' entries.
//!
//! The provider-by-provider changes ([`super::changes::ProviderChange`]) say what moved
//! in the entries: a provider not locked or no longer required, a version or constraints
//! that moved, hashes a requested platform lacked. What they cannot say is that the file
//! does not exist yet, or (when no entry changes) that only its header or its layout
//! differs; [`file_change`] says that, by comparing the two files as lock-file models,
//! not as text. `tfsum lock --check` lists it first, then the provider changes: one list.

use std::fmt;

use super::changes::ProviderChange;
use tfsum_vocab::lockfile::LockFile;

/// A change to the file as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChange {
    /// There is no lock file yet.
    Missing,
    /// Only the header differs: it names the other tool.
    Header,
    /// Only the layout differs: the models agree.
    Layout,
}

impl fmt::Display for FileChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileChange::Missing => "no lock file yet",
            FileChange::Header => "the header names the other tool (terraform init / tofu init)",
            FileChange::Layout => "not in canonical form (layout only; `tfsum fmt` fixes it too)",
        })
    }
}

/// The change to the file as a whole, for a file whose bytes change: `old` is `None`
/// when it does not exist yet. When some provider's entry changes, that is the news and
/// there is nothing more to say about the file.
pub(crate) fn file_change(
    old: Option<&LockFile>,
    new: &LockFile,
    changes: &[ProviderChange],
) -> Option<FileChange> {
    let old = match old {
        None => return Some(FileChange::Missing),
        Some(_) if !changes.is_empty() => return None,
        Some(old) => old,
    };
    Some(if old.flavor != new.flavor {
        FileChange::Header
    } else {
        FileChange::Layout
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tfsum_vocab::addr::TERRAFORM_REGISTRY;
    use tfsum_vocab::lockfile::Flavor;

    const HEADER: &str = "# This file is maintained automatically by \"terraform init\".\n# Manual edits may be lost in future updates.\n";
    const BLOCK: &str = "\nprovider \"registry.terraform.io/hashicorp/null\" {\n  version = \"3.2.1\"\n  hashes = [\n    \"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\",\n  ]\n}\n";

    fn parse(text: &str) -> LockFile {
        tfsum_vocab::lockfile::parse(text, TERRAFORM_REGISTRY).unwrap()
    }

    /// A new file is missing whatever it holds; an existing one is named as a whole only
    /// when no entry changes: then its header, or else its layout, is what differs.
    #[test]
    fn the_file_is_named_only_when_its_entries_say_nothing() {
        let lock = parse(&format!("{HEADER}{BLOCK}"));
        let mut tofu = lock.clone();
        tofu.flavor = Flavor::OpenTofu;
        let moved = [ProviderChange::Removed {
            provider: lock.providers.keys().next().unwrap().clone(),
            version: tfsum_vocab::version::Version::new(3, 2, 1),
        }];
        let cases = [
            (None, &moved[..], Some(FileChange::Missing)),
            (None, &[][..], Some(FileChange::Missing)),
            (Some(&lock), &moved[..], None),
            (Some(&lock), &[][..], Some(FileChange::Layout)),
            (Some(&tofu), &[][..], Some(FileChange::Header)),
            (Some(&tofu), &moved[..], None),
        ];
        for (old, changes, want) in cases {
            assert_eq!(
                file_change(old, &lock, changes),
                want,
                "{old:?} {changes:?}"
            );
        }
        assert_eq!(FileChange::Missing.to_string(), "no lock file yet");
    }
}
