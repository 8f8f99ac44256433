//! [`RegistryError`]: what a registry conversation can say beyond a failed request: a
//! host without the registry protocol, a provider or platform the registry does not
//! have. Everything else is the request's own [`HttpError`], shown as it is.
//!
//! Errors are `Clone` because a failed service discovery is cached and handed to every
//! caller that asks for the same host during the run (spec §5.1).

use std::time::Duration;

use crate::http::error::{HttpError, Status};
use crate::retry::Retryable;
use tfsum_vocab::addr::{Hostname, Platform, ProviderAddr};
use tfsum_vocab::url::SafeUrl;

/// Everything that can go wrong in discovery and registry requests.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegistryError {
    /// Discovery answered 404, or the document has no `providers` service (spec §5.1).
    #[error("host {host} does not offer a Terraform provider registry ({detail})")]
    NoProviderRegistry { host: Hostname, detail: String },

    /// The host offers only other `providers.vN` versions (spec §5.1).
    #[error(
        "host {host} does not support the provider registry protocol required by this version of tfsum: it offers {offered}, tfsum needs providers.v1"
    )]
    UnsupportedProtocol { host: Hostname, offered: String },

    /// The versions endpoint answered 404 (spec §5.2).
    #[error("provider {provider} does not exist (GET {url}: {status})", status = Status(404))]
    ProviderNotFound {
        provider: Box<ProviderAddr>,
        url: SafeUrl,
    },

    /// The download endpoint answered 404 (spec §5.3).
    #[error("provider {provider} v{version} is not available for {platform} (GET {url}: {status})", status = Status(404))]
    PlatformNotAvailable {
        provider: Box<ProviderAddr>,
        version: String,
        platform: Platform,
        url: SafeUrl,
    },

    /// The request itself failed.
    #[error(transparent)]
    Http(#[from] HttpError),
}

impl RegistryError {
    /// The HTTP status the server answered with, when there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            RegistryError::ProviderNotFound { .. } | RegistryError::PlatformNotAvailable { .. } => {
                Some(404)
            }
            RegistryError::Http(error) => error.status(),
            _ => None,
        }
    }

    /// The URL the request went to (without credentials), when there was one.
    pub fn url(&self) -> Option<&SafeUrl> {
        match self {
            RegistryError::ProviderNotFound { url, .. }
            | RegistryError::PlatformNotAvailable { url, .. } => Some(url),
            RegistryError::Http(error) => error.url(),
            _ => None,
        }
    }
}

impl Retryable for RegistryError {
    fn is_transient(&self) -> bool {
        match self {
            RegistryError::Http(error) => error.is_transient(),
            _ => false,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            RegistryError::Http(error) => error.retry_after(),
            _ => None,
        }
    }
}
