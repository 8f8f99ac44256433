//! The dependency lock file `.terraform.lock.hcl`: model, reading, writing, merging
//! (spec §1, §9, §10).
//!
//! - [`parse()`] reads a file and validates it as Terraform does (spec §1.8); [`read()`]
//!   first checks the bytes for UTF-8 and leftover merge-conflict markers.
//! - [`LockFile::render`] writes the whole file from the model, byte for byte as
//!   Terraform's hclwrite output (spec §1.2–1.7). Files are always rendered, never patched:
//!   comments and odd spacing in an old file are not kept, just as Terraform drops them.
//! - [`merge_providers_lock`] is the rule the write stage applies to an existing entry
//!   (spec §9).

mod canonical;
mod parse;
mod read;
mod render;
#[cfg(test)]
mod tests;

/// The file name Terraform and OpenTofu both use, in the root module directory
/// (spec §1.1).
pub const LOCK_FILE_NAME: &str = ".terraform.lock.hcl";

use std::collections::{BTreeMap, BTreeSet};

use crate::addr::{ProviderAddr, OPENTOFU_REGISTRY, TERRAFORM_REGISTRY};
use crate::hash::Hash;
use crate::version::{Constraints, Version};

pub use parse::parse;
pub use parse::{parse_located, Lines, LockFileError};
pub use read::{read, read_noting_form, ReadError};

/// Which tool the file is written for. Only the header comment differs (spec §10), but the
/// flavor also decides the registry that short provider sources default to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Flavor {
    #[default]
    Terraform,
    OpenTofu,
}

impl Flavor {
    /// The host that `aws` or `hashicorp/aws` resolve to (spec §3, §10).
    pub fn default_registry(&self) -> &'static str {
        match self {
            Flavor::Terraform => TERRAFORM_REGISTRY,
            Flavor::OpenTofu => OPENTOFU_REGISTRY,
        }
    }

    /// The flavor a lock file's header names: a comment before the first block that
    /// mentions `tofu init` means OpenTofu; anything else, no header included, Terraform.
    /// The one place that decides it (the parser, `fmt` and root detection all ask here).
    pub fn from_header(src: &str) -> Flavor {
        if header_lines(src).any(|line| line.contains("tofu init")) {
            Flavor::OpenTofu
        } else {
            Flavor::Terraform
        }
    }

    /// [`Flavor::from_header`] of a file's bytes, invalid UTF-8 read leniently. Only the
    /// lines up to the first that is not blank or a comment are looked at: root
    /// detection asks this of every lock file, most of which is hashes.
    pub fn from_header_bytes(bytes: &[u8]) -> Flavor {
        let mut end = 0;
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            end += line.len();
            let line = String::from_utf8_lossy(line);
            let line = line.trim();
            if !(line.is_empty() || line.starts_with('#') || line.starts_with("//")) {
                break;
            }
        }
        Flavor::from_header(&String::from_utf8_lossy(&bytes[..end]))
    }

    /// The command named in the header: `# This file is maintained automatically by "…".`
    pub fn init_command(&self) -> &'static str {
        match self {
            Flavor::Terraform => "terraform init",
            Flavor::OpenTofu => "tofu init",
        }
    }
}

/// Which command writes the file, and so its header and whether entries carry
/// `constraints`.
///
/// A Terraform Stack's lock file (HCP Terraform, `*.tfcomponent.hcl`) is written by
/// `terraform stacks providers-lock`, a closed-source plugin: the same format, its own
/// header, and no `constraints` attribute (core never reads one there: it checks a locked
/// version against each stack's own `required_providers`, docs/spec/stacks.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum LockForm {
    /// `terraform init`, `terraform providers lock` (and OpenTofu's).
    #[default]
    Init,
    /// `terraform stacks providers-lock`.
    Stack,
}

impl LockForm {
    /// The form a file's header names: a comment before the first block that mentions
    /// the stacks tools (`terraform stacks providers-lock`, 1.13's `terraform stacks
    /// providers lock`, the beta's `tfstacks providers lock`) means a stack's file.
    pub fn from_header(src: &str) -> LockForm {
        let stack = header_lines(src)
            .any(|line| line.contains("stacks providers") || line.contains("tfstacks providers"));
        if stack {
            LockForm::Stack
        } else {
            LockForm::Init
        }
    }

    /// The command the stack form's header names (Terraform 1.14 and later).
    pub const STACKS_COMMAND: &'static str = "terraform stacks providers-lock";
}

/// The comment lines before a lock file's first block, trimmed.
fn header_lines(src: &str) -> impl Iterator<Item = &str> {
    src.lines()
        .map(str::trim)
        .take_while(|l| l.is_empty() || l.starts_with('#') || l.starts_with("//"))
}

/// One `provider "…" { … }` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderLock {
    pub version: Version,
    /// Written in canonical form; omitted from the file when that form is empty.
    pub constraints: Constraints,
    /// Kept as a set so the file lists them sorted byte-wise and without duplicates
    /// (spec §1.7). Unknown schemes are kept verbatim.
    pub hashes: BTreeSet<Hash>,
}

/// A whole lock file. The map's order is Terraform's block order (spec §1.3).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LockFile {
    pub flavor: Flavor,
    pub form: LockForm,
    pub providers: BTreeMap<ProviderAddr, ProviderLock>,
}

impl LockFile {
    /// An empty lock file; rendered, it is just the two header lines.
    pub fn new(flavor: Flavor) -> LockFile {
        LockFile {
            flavor,
            form: LockForm::Init,
            providers: BTreeMap::new(),
        }
    }

    /// The header's command: `terraform init` (or `tofu init`), or the stacks plugin's.
    pub fn header_command(&self) -> &'static str {
        match self.form {
            LockForm::Init => self.flavor.init_command(),
            LockForm::Stack => LockForm::STACKS_COMMAND,
        }
    }
}

/// The lock entry `terraform providers lock` records for one provider (spec §9): version
/// and constraints come from the current run; when the old entry is for the same version,
/// every one of its hashes is kept (even unknown schemes and invalid values such as
/// `h1:invalid`, which Terraform's own test keeps), merged with the new ones. An old entry
/// for a different version contributes nothing: its hashes describe other packages.
/// The constraints are kept in canonical form ([`Constraints::canonicalized`]), so an
/// entry equal to one read from a file compares equal.
pub fn merge_providers_lock(
    old: Option<&ProviderLock>,
    version: Version,
    constraints: Constraints,
    new_hashes: impl IntoIterator<Item = Hash>,
) -> ProviderLock {
    let mut hashes: BTreeSet<Hash> = match old {
        Some(old) if old.version == version => old.hashes.clone(),
        _ => BTreeSet::new(),
    };
    hashes.extend(new_hashes);
    ProviderLock {
        version,
        constraints: constraints.canonicalized(),
        hashes,
    }
}
