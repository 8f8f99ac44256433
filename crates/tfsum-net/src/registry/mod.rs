//! The registry protocols over HTTP (spec §5, §6, §8), through the client of
//! [`crate::http`]:
//!
//! - [`disco`] finds a host's `providers.v1` base URL by service discovery (spec §5.1).
//! - [`client`] is the [`RegistryClient`]: the provider registry protocol (version lists,
//!   package metadata, spec §5.2, §5.3) and network-mirror JSON, with credentials.
//! - [`modules_api`] is the module registry protocol (`modules.v1`), for
//!   `tfsum_sources::modules`.
//! - [`error`] holds [`RegistryError`]: what a registry can say beyond a failed request
//!   (which is a [`crate::http::HttpError`], shown as it is).
//!
//! Credentials travel only with discovery and registry JSON requests for the provider's
//! own host, never with downloads (spec §11 item 12).

pub mod client;
pub(crate) mod disco;
pub(crate) mod error;
pub(crate) mod modules_api;

#[cfg(test)]
pub(crate) mod test_support;

pub use crate::retry::RetryPolicy;
pub use client::PackageMeta;
pub use client::RegistryClient;
pub use error::RegistryError;
