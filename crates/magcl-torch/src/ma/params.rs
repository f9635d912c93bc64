//! Model augmentation's parameters (declared in magcl-config, which the reports read too)
//! and their checks: the A/R/S switches, the ranges, and the named readings of the paper
//! (docs/ma.md) with the switches each sets.
pub use magcl_config::ma::{
    Constraints, GinMode, KBranch, MaParams, RangeBound, Reading, ReadingName, Redraw, ZeroK,
    READINGS,
};
