//! The network, transports only: HTTP ([`http`]), the `git` command ([`git`]), the registry
//! protocols ([`registry`]), OCI registries ([`oci`]), retries, downloads, Terraform's CLI
//! configuration, the shared cache's object store. What is fetched over them, and why, is
//! the package sources' (`crate::sources`).

pub(crate) mod cliconfig;
pub(crate) mod download;
pub(crate) mod git;
pub(crate) mod http;
// Built ahead of its users (OpenTofu's `oci_mirror` provider source and `oci://` module
// packages); until they land, its own tests are all that call it.
#[allow(dead_code, unused_imports)]
pub(crate) mod oci;
pub(crate) mod registry;
pub(crate) mod retry;
pub(crate) mod shared_store;
