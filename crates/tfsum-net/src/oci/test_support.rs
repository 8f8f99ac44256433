//! The OCI client's test registries: `tests/support/oci_registry.rs` (Debian's
//! docker-registry, and a Bearer-token front with its token service), shared with the
//! `it` binary, with the TLS listener it stands beside there.

// The one copy the HTTP client's tests include; `oci_registry` names it `super::tls_listener`.
use crate::http::test_support::tls_listener;

#[path = "../../../../tests/support/oci_registry.rs"]
#[allow(unreachable_pub, dead_code)]
pub(crate) mod oci_registry;
