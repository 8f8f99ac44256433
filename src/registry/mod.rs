//! Talking to provider registries (spec §5, §8): everything the `resolve` and `hash`
//! stages need from the network, and nothing else.
//!
//! - [`cliconfig`] reads the Terraform/OpenTofu CLI configuration: forced `host` services
//!   and `credentials` blocks, plus `TF_TOKEN_*` variables (spec §8).
//! - [`disco`] finds a host's `providers.v1` base URL by service discovery (spec §5.1).
//! - [`client`] is the [`RegistryClient`]: version lists, package metadata, and plain
//!   downloads for SHA256SUMS, signatures and zips (spec §5.2, §5.3).
//! - [`retry`] is the one place that decides what is transient and how long to wait.
//! - [`modules_api`] is the module registry protocol (`modules.v1`), for
//!   [`crate::modules`].
//! - [`error`] holds [`RegistryError`], which always names the URL and what was being done.
//!
//! Credentials travel only with discovery and registry JSON requests for the provider's
//! own host, never with downloads (spec §11 item 12).

pub mod cliconfig;
pub mod client;
pub mod disco;
pub mod error;
pub(crate) mod modules_api;
pub mod retry;

#[cfg(test)]
mod test_support;

pub use cliconfig::{CliConfig, CliConfigError, CredentialSource, Env, HostServices, Token};
pub use client::{ClientConfig, PackageMeta, RegistryClient, RegistryVersion, VersionList};
pub use error::{RegistryError, SafeUrl, TransportKind};
pub use retry::{backoff_delay, is_transient, RetryPolicy};
