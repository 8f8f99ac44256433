//! The single integration test binary (one binary keeps link time down).

#[path = "../support/mod.rs"]
mod support;

mod cli;
mod conformance;
mod credentials;
mod fake_registry;
mod interrupt;
mod mirrors;
mod opentofu;
mod oracle;
mod resolution;
mod terragrunt;
mod tfsum;
mod faults;
mod harness;
mod cache;
mod bad_input;
