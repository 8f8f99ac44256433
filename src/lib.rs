//! tfsum: writes `.terraform.lock.hcl` files for every root module of a repository,
//! with hashes for every platform, byte for byte as Terraform writes them.
//!
//! The crate is a pipeline (see `DESIGN.md`), one module per stage:
//!
//! | stage    | module        | job                                                     |
//! |----------|---------------|---------------------------------------------------------|
//! | discover | [`discover`]  | find directories holding Terraform configuration        |
//! | load     | [`config`]    | parse modules, find roots, collect provider requirements|
//! | resolve  | [`resolve`]   | choose a version per provider, as `terraform init` does |
//! | hash     | [`index`]     | `h1:`/`zh:` per package, via [`cache`] and [`registry`] |
//! | write    | [`write`]     | render ([`lockfile`]) and replace files atomically      |
//!
//! [`mirror`] is the hash stage's other sources: filesystem and network mirrors, and the
//! routing between them and the registry. [`modules`] fetches remote module packages
//! (registry, git, archives) for the load stage.
//!
//! [`lock`] runs the stages for the `lock` command; [`addr`], [`version`] and [`hash`]
//! hold the shared vocabulary (provider addresses, versions, hash strings).

pub mod addr;
pub mod cache;
pub mod cli;
pub mod config;
pub mod diff;
pub mod discover;
pub mod download;
pub mod drift;
pub mod fmt;
pub mod hash;
pub mod index;
pub mod interrupt;
pub mod lock;
pub mod lockfile;
pub mod mirror;
pub mod modules;
pub mod progress;
pub mod progress_bar;
pub mod registry;
pub mod report;
pub mod resolve;
pub mod settings;
pub mod state;
pub mod terragrunt;
pub mod version;
pub mod write;
