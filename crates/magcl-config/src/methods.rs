//! The built-in methods' declarations, one file each (the registry lists them:
//! [`crate::registry::BUILTIN`]).
pub mod adgcl;
pub mod base;
pub mod bgrl;
pub mod degree;
pub mod features;
pub mod gca;
pub mod grace;
pub mod graphcl;
pub mod infograph;
pub mod joaov2;
pub mod mvgrl;
pub mod simgrace;
pub mod untrained;
pub mod wl;
