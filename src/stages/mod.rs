//! The lock pipeline's stages.

pub(crate) mod discover;
pub(crate) mod hash;
pub(crate) mod install;
pub(crate) mod load;
pub(crate) mod parallel;
pub(crate) mod publish;
pub(crate) mod resolve;
pub(crate) mod root;
pub(crate) mod warning;
pub(crate) mod write;
