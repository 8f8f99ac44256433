//! Vocabulary: the values every layer speaks in.

pub mod addr;
pub mod hash;
pub mod json;
pub mod lockfile;
pub mod paths;
pub mod progress;
pub mod version;
