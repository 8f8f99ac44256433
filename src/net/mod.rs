//! The network: HTTP and registries, downloads, retries, Terraform's CLI configuration, remote modules.

pub mod cliconfig;
pub mod download;
pub mod modules;
pub mod registry;
pub mod retry;
