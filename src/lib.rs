//! tfsum: writes `.terraform.lock.hcl` files for every root module of a repository.
//!
//! The crate is a pipeline (see `DESIGN.md`):
//! [`discover`] → [`config`] → [`resolve`] → [`index`] (hashes) → [`write`].
//! Everything the stages share about names and versions lives in [`addr`] and [`version`].

pub mod addr;
pub mod config;
pub mod discover;
pub mod diff;
pub mod fmt;
pub mod hash;
pub mod lockfile;
pub mod terragrunt;
pub mod version;
