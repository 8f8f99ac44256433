//! Vocabulary: the values every layer speaks in.
//!
//! `tfsum-vocab` owns the types and grammars of the domain: provider addresses and
//! platforms, versions and constraints (go-versions and go-version rules), module source
//! addresses, hash schemes and signatures, the lock-file model with its parser and
//! renderer, file names, positions and progress events. It is pure: it never touches the
//! network, never walks a tree, and knows nothing of configuration files, caches or
//! commands. Every other crate builds on it.

#![warn(unreachable_pub)]

pub mod addr;
pub mod goversion;
pub mod hash;
pub mod hcl_string;
pub mod json;
pub mod lockfile;
pub mod module_source;
pub mod paths;
pub mod progress;
pub mod text;
pub mod url;
pub mod version;
