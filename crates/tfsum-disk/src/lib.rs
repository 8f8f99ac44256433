//! The filesystem: walking trees, replacing files atomically, the persistent cache.
//!
//! `tfsum-disk` owns every path tfsum reads in bulk or writes: the one directory walker,
//! atomic replacement (and the temporary entries a kill leaves behind), the persistent
//! cache and the configuration index stored in it, the provider directory `mirror`
//! fills. It uses only the vocabulary; it never reaches the network and never reads
//! Terraform configuration (it stores what others read).

#![warn(unreachable_pub)]

pub mod atomic;
pub mod cache;
pub mod index;
pub mod leftovers;
pub mod provider_dir;
pub mod read;
pub(crate) mod unzip;
pub mod walk;
