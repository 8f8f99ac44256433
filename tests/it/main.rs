//! The single integration test binary (one binary keeps link time down).

#[path = "../support/mod.rs"]
mod support;

mod conformance;
mod fake_registry;
mod oracle;
mod tfsum;
mod faults;
mod harness;
mod cache;
mod bad_input;
