//! The network: HTTP and registries, downloads, retries, Terraform's CLI configuration, remote modules.

pub(crate) mod cliconfig;
pub(crate) mod download;
pub(crate) mod modules;
pub(crate) mod registry;
pub(crate) mod retry;
pub(crate) mod shared_store;
