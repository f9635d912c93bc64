//! Model augmentation's parameters (declared in magcl-config, which the reports read too)
//! and their checks: the A/R/S switches, the ranges, and the named readings of the paper
//! (docs/ma.md) with the switches each sets.
pub use magcl_config::ma::{
    Constraints, GinMode, KBranch, MaParams, RangeBound, Reading, ReadingName, Redraw, ZeroK,
    READINGS,
};

use crate::error::Result;
use crate::params::{bad, check_size, ParamGuard, MAX_DEPTH};

impl ParamGuard for MaParams {
    fn check_ref(&self) -> Result<()> {
        check_size("ma.view1", self.view1[1], MAX_DEPTH)?;
        check_size("ma.view2", self.view2[1], MAX_DEPTH)?;
        for (name, r) in [("ma.view1", self.view1), ("ma.view2", self.view2)] {
            if r[0] > r[1] {
                return Err(bad(
                    name,
                    format!("range lower bound {} exceeds upper bound {}", r[0], r[1]),
                ));
            }
        }
        if !(0.0..=1.0).contains(&self.pi) {
            return Err(bad("ma.pi", format!("must lie in [0, 1], got {}", self.pi)));
        }
        if self.ranges == RangeBound::Exclusive {
            for (name, r) in [("ma.view1", self.view1), ("ma.view2", self.view2)] {
                if r[0] >= r[1] {
                    return Err(bad(
                        name,
                        format!(
                            "with ma.ranges = exclusive the range [{}, {}) is empty; raise the upper bound",
                            r[0], r[1]
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}
