//! The single integration test binary (one binary keeps link time down).

#[path = "../support/mod.rs"]
mod support;

mod architecture;
mod bad_input;
mod cache;
mod cli;
mod conformance;
mod credentials;
mod early_eval;
mod early_values;
mod fake_registry;
mod fan_out;
mod faults;
mod git_hostile;
mod harness;
mod hcl_shapes;
mod hostile_archives;
mod hostile_modules;
mod index;
mod interrupt;
mod kill;
mod limits;
mod merge_driver;
mod mirrors;
mod modules_fetch;
mod oci;
mod oci_mirror;
mod opentofu;
mod oracle;
mod provider_mirror;
mod remote_modules;
mod renovate;
mod resolution;
mod shared_cache;
mod stacks;
mod terragrunt;
mod test_files;
mod tfsum;
mod twin;
mod untrusted;
mod upgrade;
mod upgrade_corpus;
mod vendored_parser;
mod verify;
mod windows_arm64;
