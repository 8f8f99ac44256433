//! tfsum: writes `.terraform.lock.hcl` files for every root module of a repository, with
//! hashes for every platform, byte for byte as Terraform writes them.
//!
//! # The map
//!
//! The code is in layers (docs/design.md, "Layers"); a module uses only the layers below
//! its own, and the stages only the ones before them. `tests/it/architecture.rs` checks
//! that on the syntax tree (`syn`): every leaf of every `use` tree at any depth of
//! groups, and every `crate::`, `super::` and `self::` path in code, types, macro calls
//! and attributes, resolved through re-exports to the module that defines the item; it
//! also checks that the module graph has no cycle, and keeps the drawing of every
//! module two levels deep in docs/design.md ("Layers") equal to the code. From the top:
//!
//! | layer | module | what |
//! |---|---|---|
//! | commands | [`commands`] | [`main`]: flags ([`commands::cli`]) → settings ([`commands::settings`]) → [`commands::lock`], [`commands::verify`], [`commands::fmt`], [`commands::merge`], [`commands::upgrade`], [`commands::outdated`], [`commands::mirror`]; the one driver of the stages, for `lock`, `upgrade` and `mirror`: [`commands::run`] |
//! | report | [`report`] | what a command did, as text, JSON or markdown; progress bars; the run record |
//! | stages | [`stages`] | the `lock` pipeline, below |
//! | configuration | [`config`] | Terraform modules and module trees, test files, `modules.json`, Terragrunt units ([`config::terragrunt`]), constraint edits in place ([`config::edit`]) |
//! | package sources | [`sources`] | providers: the registry through the hash cache, filesystem and network mirrors; remote modules ([`sources::modules`]): fetching, package checks, archives, their cache namespace |
//! | network | [`net`] | transports: HTTP ([`net::http`]), the `git` command ([`net::git`]), the registry protocols ([`net::registry`]), OCI registries ([`net::oci`]), retries ([`net::retry`]), downloads ([`net::download`]), the CLI configuration ([`net::cliconfig`]), the shared cache's object store ([`net::shared_store`]) |
//! | disk | [`disk`] | the one directory walker, atomic writes, the persistent cache, the provider directory `mirror` fills ([`disk::provider_dir`]), claimed temporary entries ([`disk::leftovers`]) |
//! | vocabulary | [`vocab`] | addresses and platforms, versions and constraints, module source addresses ([`vocab::module_source`]) and module versions ([`vocab::goversion`]), hashes and signatures, the lock-file format, file names |
//!
//! # The pipeline
//!
//! `tfsum lock` ([`commands::lock`]) is five stages; each hands the next a typed value,
//! and a root that fails stops with a typed [`stages::root::RootError`] while the others
//! go on:
//!
//! | stage    | module                  | takes → gives |
//! |----------|-------------------------|---------------|
//! | discover | [`stages::discover`]    | paths → [`stages::discover::Discovery`]: module and unit directories |
//! | load     | [`stages::load`]        | → [`stages::root::Root`]`<`[`stages::load::Loaded`]`>`: lock file, flavor, requirements of the whole module tree (remote modules fetched in rounds) |
//! | resolve  | [`stages::resolve`]     | → a `Plan` ([`stages::resolve::plan()`]): versions per root, unique packages |
//! | hash     | [`stages::hash`]        | → [`stages::hash::Hashes`]: `h1:`/`zh:` per package, once each |
//! | write    | [`stages::write`]       | → [`stages::write::RootReport`]: merged, rendered, written atomically |
//!
//! `tfsum mirror` ([`commands::mirror`]) runs discover and load, then
//! [`stages::install`]: every locked package placed, checked, in a provider directory.
//!
//! "spec §N" in a comment is a section of `docs/spec/lock-file.md`; other spec files are
//! named with their section ("docs/spec/modules.md §7").

#![warn(unreachable_pub)]

mod commands;
mod config;
mod disk;
mod net;
mod report;
mod sources;
mod stages;
mod vocab;

pub use commands::main;

/// Parsers and mechanisms that the fuzz targets and the library-level tests drive
/// directly. Not a stable interface: it is exactly what they use, item by item (a whole
/// module here would hide its dead items from the compiler).
pub mod internals {
    pub use crate::commands::cli::command;
    pub use crate::commands::settings::file::deserialize_settings;
    pub use crate::config::early::{RootInputs, Rules, ValueInputs};
    pub use crate::config::terragrunt::{find_units, load_unit, unit_requirements};
    pub use crate::config::tree::LocalModules;
    pub use crate::config::{check_file, ConfigError};
    pub use crate::net::cliconfig::{load_file, Env};
    pub use crate::net::git::GitOptions;
    pub use crate::net::http::{Http, HttpConfig};
    pub use crate::net::registry::{RegistryClient, RetryPolicy};
    pub use crate::sources::modules::archive::{unpack_archive, ArchiveLimits};
    pub use crate::sources::modules::{
        resolve_in_package, FetchedModule, FetcherOptions, ModuleFetcher, ModuleStats,
    };
    pub use crate::vocab::hash::zipstream::{hash_zip_stream, ZipLimits};
    pub use crate::vocab::lockfile::parse as parse_lock_file;
    pub use crate::vocab::module_source::{parse_source, parse_terragrunt_source};
    pub use crate::vocab::version::Constraints;
}
