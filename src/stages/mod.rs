//! The lock pipeline's stages.

pub mod discover;
pub mod hash;
pub mod load;
pub mod resolve;
pub mod root;
pub mod write;
