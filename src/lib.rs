//! The commands of tfsum and its entry point: tfsum writes `.terraform.lock.hcl` files for
//! every root module of a repository, with hashes for every platform, byte for byte as
//! Terraform writes them.
//!
//! # The map
//!
//! The code is a workspace of crates, one per layer (docs/design.md, "Layers"). A crate
//! depends only on layers below its own, so the compiler refuses an upward import;
//! `tests/it/architecture.rs` checks the manifests (no crate depends on a higher one,
//! configuration not on the network), the order of the stages inside their crate, and
//! that no crate's module graph has a cycle. From the top:
//!
//! | layer | crate | what |
//! |---|---|---|
//! | commands | `tfsum` (this one, `src/`) | [`main`]: flags ([`commands::cli`]) → settings ([`commands::settings`]) → [`commands::lock`], [`commands::verify`], [`commands::fmt`], [`commands::merge`], [`commands::upgrade`], [`commands::outdated`], [`commands::mirror`]; the one driver of the stages, for `lock`, `upgrade` and `mirror`: [`commands::run`] |
//! | report | [`tfsum_report`] | what a command did, as text, JSON or markdown; progress bars; the run record |
//! | stages | [`tfsum_stages`] | the `lock` pipeline, below |
//! | configuration | [`tfsum_config`] | Terraform modules and module trees, test files, `modules.json`, Terragrunt units and stacks, Terraform Stacks, the expression evaluator, constraint edits in place |
//! | package sources | [`tfsum_sources`] | providers: the registry through the hash cache, filesystem, network and OCI mirrors; remote modules: fetching, package checks, archives, their cache namespace |
//! | network | [`tfsum_net`] | transports: HTTP, the `git` command, the registry protocols, OCI registries, retries, downloads, the CLI configuration, the shared cache's object store |
//! | disk | [`tfsum_disk`] | the one directory walker, atomic writes, the persistent cache and the configuration index, the provider directory `mirror` fills, claimed temporary entries |
//! | vocabulary | [`tfsum_vocab`] | addresses and platforms, versions and constraints, module source addresses and module versions, hashes and signatures, the lock-file format, file names |
//!
//! # The pipeline
//!
//! `tfsum lock` ([`commands::lock`]) is five stages; each hands the next a typed value,
//! and a root that fails stops with a typed [`tfsum_stages::root::RootError`] while the
//! others go on:
//!
//! | stage    | module                           | takes → gives |
//! |----------|----------------------------------|---------------|
//! | discover | [`tfsum_stages::discover`] | paths → [`tfsum_stages::discover::Discovery`]: module and unit directories |
//! | load     | [`tfsum_stages::load`]     | → [`tfsum_stages::root::Root`]`<`[`tfsum_stages::load::Loaded`]`>`: lock file, flavor, requirements of the whole module tree (remote modules fetched in rounds) |
//! | resolve  | [`tfsum_stages::resolve`]  | → a `Plan` ([`tfsum_stages::resolve::plan()`]): versions per root, unique packages |
//! | hash     | [`tfsum_stages::hash`]     | → `tfsum_stages::hash::Hashes`: `h1:`/`zh:` per package, once each |
//! | write    | [`tfsum_stages::write`]    | → [`tfsum_stages::write::RootReport`]: merged, rendered, written atomically |
//!
//! `tfsum mirror` ([`commands::mirror`]) runs discover and load, then
//! [`tfsum_stages::install`]: every locked package placed, checked, in a provider directory.
//!
//! "spec §N" in a comment is a section of `docs/spec/lock-file.md`; other spec files are
//! named with their section ("docs/spec/modules.md §7").

#![warn(unreachable_pub)]

mod commands;

pub use commands::main;

/// Parsers and mechanisms that the fuzz targets and the library-level tests drive
/// directly. Not a stable interface: it is exactly what they use, item by item (a whole
/// module here would hide its dead items from the compiler).
pub mod internals {
    pub use crate::commands::cli::command;
    pub use crate::commands::settings::file::deserialize_settings;
    pub use tfsum_config::early::{RootInputs, Rules, ValueInputs};
    pub use tfsum_config::terragrunt::{find_units, load_unit, unit_requirements};
    pub use tfsum_config::tree::LocalModules;
    pub use tfsum_config::{check_file, ConfigError};
    pub use tfsum_net::cliconfig::{load_file, Env};
    pub use tfsum_net::git::GitOptions;
    pub use tfsum_net::http::{Http, HttpConfig};
    pub use tfsum_net::registry::{RegistryClient, RetryPolicy};
    pub use tfsum_sources::modules::archive::{unpack_archive, ArchiveLimits};
    pub use tfsum_sources::modules::{
        resolve_in_package, FetchedModule, FetcherOptions, ModuleFetcher, ModuleStats,
    };
    pub use tfsum_vocab::hash::zipstream::{hash_zip_stream, ZipLimits};
    pub use tfsum_vocab::lockfile::parse as parse_lock_file;
    pub use tfsum_vocab::module_source::{parse_source, parse_terragrunt_source};
    pub use tfsum_vocab::version::Constraints;
}
