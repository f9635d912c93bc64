//! # magcl-core — what every layer of magcl shares, without tensors
//!
//! | module | what it holds |
//! |---|---|
//! | [`error`] | the error type: what went wrong and where (file, line, field) |
//! | [`files`] | bounded reads of regular files, atomic writes |
//! | [`only`] | `--only KEY=V…`: which runs a command keeps |
//! | [`rng`] | keyed deterministic random streams |
//!
//! Nothing here (nor in any crate under `crates/`) depends on tch: the commands that need
//! no tensors (`magcl datasets`, `eval`, `report`) run without loading libtorch.
pub mod error;
pub mod files;
pub mod only;
pub mod rng;

pub use error::{Error, Result};
