//! Test support shared by the `it` integration test binary and the benchmark.
//!
//! - [`fake_registry`]: an in-process provider registry speaking the real `providers.v1`
//!   protocol over loopback HTTP, with switches for faults.
//! - [`terraform`]: runs the real Terraform v1.0.3 (the conformance oracle) against it.
//! - [`fake_modules`]: a module registry (`modules.v1`) with archives and
//!   `X-Terraform-Get` pages; [`git_http`]: git repositories over smart HTTP, served by
//!   the real `git http-backend`.
//! - [`dirhash`]: an independent `h1:` implementation for expectations.
//! - [`deadline`]: a child killed at its deadline, so a hang fails the test.
//! - [`go_zip`] and [`signing`]: how the fake builds its packages and signs SHA256SUMS.
//! - [`tls_listener`]: HTTPS for the fake, with the test certificate.
//! - [`fake_gitea`]: the forge API Renovate's `gitea` platform calls.
//! - [`loopback`]: serving an in-process fake on a port of its own.
//! - [`proxy`]: a loopback forward proxy (`HTTPS_PROXY`, `HTTP_PROXY`).
//! - [`shared_stores`]: an S3-compatible server (moto) and an HTTP object store, for the
//!   shared cache.
//! - [`oci_registry`]: Debian's docker-registry (CNCF distribution) with TLS and an
//!   htpasswd user, and a Bearer-token front with its token service.
//!
//!
//! Each user of this module compiles it separately: the `it` binary uses every item but
//! the [`go_zip`] knobs only the zip-hash unit tests turn and the [`oci_registry`] parts only
//! the OCI client's unit tests use (allowed on those modules alone);
//! the benchmark uses only part, and its `mod support;` allows the rest.

pub mod deadline;
pub mod dirhash;
pub mod fake_gitea;
pub mod fake_modules;
pub mod fake_registry;
pub mod git_http;
// Its knobs are turned by the zip-hash unit tests in `src/`, not by `it`.
#[allow(dead_code)]
pub mod go_zip;
pub mod loopback;
// Driven mostly by the OCI client's unit tests in `src/net/oci/`, which include it.
#[allow(dead_code)]
pub mod oci_registry;
pub mod proxy;
pub mod shared_stores;
pub mod signing;
pub mod terraform;
pub mod tls_listener;
