//! The lock pipeline's stages.
//!
//! `tfsum-stages` owns the pipeline of docs/design.md: discover, load, resolve, hash,
//! write, and the install and publish stages of `mirror`, each handing the next a typed
//! value, what a root carries from stage to stage, and the configuration index's policy
//! of what a `lock` run may skip (`index`). It uses every crate below it
//! (configuration, package sources, network, disk, vocabulary) and never knows flags,
//! settings or how a report is printed.

#![warn(unreachable_pub)]

pub mod discover;
pub mod hash;
pub mod index;
pub mod install;
pub mod load;
pub mod parallel;
pub mod publish;
pub mod resolve;
pub mod root;
pub mod warning;
pub mod write;
