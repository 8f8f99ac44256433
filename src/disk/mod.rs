//! The filesystem: walking trees, replacing files atomically, the persistent cache.

pub mod atomic;
pub mod cache;
pub mod walk;
