//! Vocabulary: the values every layer speaks in.

pub(crate) mod addr;
pub(crate) mod goversion;
pub(crate) mod hash;
pub(crate) mod json;
pub(crate) mod lockfile;
pub(crate) mod module_source;
pub(crate) mod paths;
pub(crate) mod progress;
pub(crate) mod text;
pub(crate) mod url;
pub(crate) mod version;
