//! OCI registries as a transport: the distribution API (tags, manifests, blobs), its
//! token challenges, and the credentials OpenTofu would send, over the run's HTTP
//! settings. What an OpenTofu provider or module package looks like inside a registry
//! is the package sources' business, not this module's.
//!
//! It follows OpenTofu v1.12.6, which talks to registries through ORAS-Go v2.6
//! (`cmd/tofu/oci_distribution.go`, `internal/command/cliconfig/ociauthconfig/`), and
//! 1.13's removal of the `GET /v2/` ping (`internal/oci/oci_distribution.go:107-114`);
//! each file cites the code it follows.
//!
//! - [`reference`](mod@reference): names — [`RepositoryAddr`], [`RepositoryPrefix`](reference::RepositoryPrefix), [`Reference`],
//!   [`Tag`], [`Digest`] — and [`DigestCheck`](reference::DigestCheck), which verifies content as it streams.
//! - [`manifest`]: the image-spec documents ([`Descriptor`], [`ImageManifest`],
//!   [`ImageIndex`]) and media types.
//! - [`credentials`]: credentials and their configuration as values ([`OciEnv`],
//!   [`Credentials`](credentials::Credentials), [`CredentialsEntry`](credentials::CredentialsEntry),
//!   [`DefaultCredentials`](credentials::DefaultCredentials)); [`policy`]:
//!   OpenTofu's choice among them ([`CredentialsSource`](policy::CredentialsSource)) over explicit entries, a
//!   default helper and the Docker-style files ([`docker_config`]); credential helpers
//!   run in [`helper`].
//! - [`challenge`] reads `WWW-Authenticate` and merges token scopes; [`auth`] answers
//!   Basic and Bearer challenges and caches tokens per repository.
//! - [`client`]: [`OciClient`], the requests; [`access`]: [`OciAccess`], the run's
//!   client, made (and the credentials files read) on first use.
//! - [`error`]: [`OciError`], and what is "not found" and what is "not allowed".
//!
//! Secrets (passwords, tokens, helper output) never appear in `Debug`, `Display` or an
//! error. Nothing here reads the process environment ([`OciEnv`] is a value).

pub(crate) mod access;
pub(crate) mod auth;
pub(crate) mod body;
pub(crate) mod challenge;
pub(crate) mod client;
pub(crate) mod credentials;
pub(crate) mod docker_config;
pub(crate) mod error;
pub(crate) mod helper;
pub(crate) mod manifest;
pub(crate) mod policy;
pub(crate) mod reference;

#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod tests;

pub use access::{OciAccess, OciConfigError};
pub use client::{OciClient, OciOptions};
pub use credentials::{CredentialsError, OciEnv};
pub use error::OciError;
pub use manifest::{
    Descriptor, ImageIndex, ImageManifest, Platform, OCI_EMPTY, OCI_INDEX, OCI_MANIFEST,
};
pub use policy::CredentialsWarning;
pub use reference::{Digest, NameError, Reference, RepositoryAddr, Tag};
