//! HTTP as a transport: [`Http`], the client of a run (TLS trust, proxies, timeouts, size
//! caps, retries, the per-host bound), and [`HttpConfig::client_builder`], where every
//! client starts. The provider and module registries, network mirrors, module archives
//! and downloads all go through it; the shared cache's object store builds its own
//! client from the same builder (`crate::shared_store`).

pub(crate) mod error;
pub(crate) mod transport;

#[cfg(any(test, feature = "testing"))]
pub mod test_support;

pub(crate) use error::{HttpError, TransportKind};
pub use transport::{Http, HttpConfig};
pub use transport::{Proxies, Trust};
