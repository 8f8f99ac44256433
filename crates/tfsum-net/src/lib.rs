//! The network, transports only: HTTP ([`http`]), the `git` command ([`git`]), the registry
//! protocols ([`registry`]), OCI registries ([`oci`]), retries, downloads, Terraform's CLI
//! configuration, the shared cache's object store. What is fetched over them, and why, is
//! the package sources' (`tfsum_sources`).
//!
//! `tfsum-net` is the only crate that takes reqwest, runs `git` or opens a socket. It
//! uses only the vocabulary: it never writes the cache or a lock file and never reads
//! Terraform configuration.

#![warn(unreachable_pub)]

pub mod cliconfig;
pub mod download;
pub mod git;
pub mod http;
pub mod oci;
pub mod registry;
pub mod retry;
pub mod shared_store;
