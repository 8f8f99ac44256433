//! Talking to registries over HTTP (spec §5, §6, §8): everything the `resolve` and `hash`
//! stages need from the network, and nothing else.
//!
//! - [`transport`] is [`Http`]: the HTTP client of a run (TLS trust, proxies, timeouts,
//!   size caps, retries, the per-host bound) and plain downloads, and
//!   [`HttpConfig::client_builder`], where every client starts (the shared cache's
//!   object store builds its own from it: `crate::net::shared_store`).
//! - [`disco`] finds a host's `providers.v1` base URL by service discovery (spec §5.1).
//! - [`client`] is the [`RegistryClient`]: the provider registry protocol (version lists,
//!   package metadata, spec §5.2, §5.3) and network-mirror JSON, with credentials.
//! - [`crate::net::retry`] is the one place that decides what is transient and how long to wait.
//! - [`modules_api`] is the module registry protocol (`modules.v1`), for
//!   [`crate::net::modules`].
//! - [`error`] holds [`RegistryError`], which always names the URL and what was being done.
//!
//! Credentials travel only with discovery and registry JSON requests for the provider's
//! own host, never with downloads (spec §11 item 12).

pub(crate) mod client;
pub(crate) mod disco;
pub(crate) mod error;
pub(crate) mod modules_api;
pub(crate) mod transport;

#[cfg(test)]
pub(crate) mod test_support;

pub use crate::net::retry::RetryPolicy;
pub(crate) use client::PackageMeta;
pub use client::RegistryClient;
pub(crate) use error::{RegistryError, SafeUrl, TransportKind};
pub use transport::{Http, HttpConfig};
pub(crate) use transport::{Proxies, Trust};
