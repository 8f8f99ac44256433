//! The filesystem: walking trees, replacing files atomically, the persistent cache.

pub(crate) mod atomic;
pub(crate) mod cache;
pub(crate) mod index;
pub(crate) mod leftovers;
pub(crate) mod provider_dir;
pub(crate) mod read;
pub(crate) mod unzip;
pub(crate) mod walk;
