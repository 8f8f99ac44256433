//! The single integration test binary (one binary keeps link time down).

#[path = "../support/mod.rs"]
mod support;

mod conformance;
mod credentials;
mod fake_registry;
mod mirrors;
mod opentofu;
mod oracle;
mod tfsum;
