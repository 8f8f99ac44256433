//! The network, transports only: HTTP ([`http`]), the `git` command ([`git`]), the registry
//! protocols ([`registry`]), OCI registries ([`oci`]), retries, downloads, Terraform's CLI
//! configuration, the shared cache's object store. What is fetched over them, and why, is
//! the package sources' (`crate::sources`).

pub(crate) mod cliconfig;
pub(crate) mod download;
pub(crate) mod git;
pub(crate) mod http;
pub(crate) mod oci;
pub(crate) mod registry;
pub(crate) mod retry;
pub(crate) mod shared_store;
