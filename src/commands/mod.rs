//! The commands.

pub mod cli;
pub mod fmt;
pub mod lock;
pub mod merge;
pub mod settings;
pub mod verify;
