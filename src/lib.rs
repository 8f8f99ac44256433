//! tfsum: writes `.terraform.lock.hcl` files for every root module of a repository, with
//! hashes for every platform, byte for byte as Terraform writes them.
//!
//! # The pipeline
//!
//! `tfsum lock` ([`lock::run`]) is five stages; each hands the next a typed value, and a
//! root that fails stops with a typed [`root::RootError`] while the others go on:
//!
//! | stage    | module        | takes → gives                                             |
//! |----------|---------------|-----------------------------------------------------------|
//! | discover | [`discover`]  | paths → [`discover::Discovery`]: module and unit dirs      |
//! | load     | [`load`]      | → [`root::Root`]`<`[`load::Loaded`]`>`: lock file, flavor, requirements of the whole module tree (remote modules fetched in rounds) |
//! | resolve  | [`resolve`]   | → [`resolve::Plan`]: versions per root, unique packages    |
//! | hash     | [`sources`]   | → [`sources::Hashes`]: `h1:`/`zh:` per package, once each  |
//! | write    | [`write`]     | → [`report::RootReport`]: merged, rendered, written atomically |
//!
//! # The parts they use
//!
//! - Reading configuration: [`config`] (modules, module trees, root detection),
//!   [`modules`] (remote module packages: registry, git, archives), [`terragrunt`]
//!   (units), [`json`] (an order-keeping JSON reader).
//! - Settings: [`cli`] (flags only), [`settings`] (flags + environment + settings files →
//!   one value that builds the cache, client and sources), [`cliconfig`] (Terraform's CLI
//!   configuration: hosts, credentials, `provider_installation`).
//! - Network: [`registry`] (HTTP transport, service discovery, the registry protocol),
//!   [`download`] (a zip streamed and hashed), [`cache`] (the persistent hash cache).
//! - Vocabulary: [`addr`] (provider addresses, platforms), [`version`] (versions and
//!   constraints), [`hash`] (hash schemes, SHA256SUMS, signatures), [`lockfile`] (the
//!   file format).
//! - Output: [`atomic`] (replacing files safely), [`report`], [`drift`], [`diff`],
//!   [`progress`], [`progress_bar`], [`state`] (the run record for `--retry-failed`).
//! - Other commands: [`fmt`] (`tfsum fmt`), [`merge`] (`tfsum merge-driver`).

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
/// directly. Not a stable interface: it is exactly what they use.
pub mod internals {
    pub use crate::config::terragrunt;
    pub use crate::config::tree::LocalModules;
    pub use crate::config::{check_file, ConfigError};
    pub use crate::net::cliconfig::{load_file, Env};
    pub use crate::net::modules::{
        parse_source, parse_terragrunt_source, resolve_in_package, FetchedModule, FetcherOptions,
        GitOptions, ModuleFetcher, ModuleStats,
    };
    pub use crate::net::registry::{Http, HttpConfig, RegistryClient, RetryPolicy};
    pub use crate::vocab::hash::zipstream::{hash_zip_stream, ZipLimits};
    pub use crate::vocab::lockfile;
    pub use crate::vocab::version::Constraints;
}
