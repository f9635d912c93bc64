//! Parameters and their checks.
//!
//! Each stage owns the parameters it runs on, beside its code: the loss
//! (`loss::InfoNceParams`), model augmentation (`ma::MaParams`), the GIN encoder
//! (`nn::GinParams`), the augmentations (`augment::AugParams`) and each method
//! (`methods::MethodParams` and the method-specific ones beside each method). This module
//! depends on none of them. A stage's `check` validates its values once and returns them as [`Checked`],
//! which is what the stage's constructors accept (linfa's params → checked params). The
//! experiment layer only composes stages' parameters into one run's configuration.
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Graph- or node-level task.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Task {
    Graph,
    Node,
}

/// Size limits: far beyond every published setting (hidden ≤ 512, ≤ 5 layers, ≤ 2000
/// epochs), and small enough that a typo such as `--hidden 100000000` is refused up front
/// instead of failing inside an allocation.
pub const MAX_WIDTH: usize = 16_384;
/// Layers, propagations per layer (MA ranges, `base_k`, `eval_k`).
pub const MAX_DEPTH: usize = 64;
pub const MAX_EPOCHS: usize = 1_000_000;
pub const MAX_BATCH_SIZE: usize = 1 << 20;
pub const MAX_RESTARTS: usize = 10_000;

/// Parameters that can be checked into [`Checked`] parameters.
pub trait ParamGuard: Sized {
    /// Checks every value; the error names the field as a configuration spells it
    /// (e.g. `ma.pi: must lie in [0, 1], got 2`).
    fn check_ref(&self) -> Result<()>;

    /// The parameters, checked.
    fn check(self) -> Result<Checked<Self>> {
        self.check_ref()?;
        Ok(Checked(self))
    }
}

/// Parameters that passed their [`ParamGuard::check`]; read through `Deref`.
#[derive(Clone, Debug)]
pub struct Checked<T>(T);

impl<T> Checked<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for Checked<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A configuration error for `field`.
pub fn bad(field: &str, msg: impl std::fmt::Display) -> Error {
    Error::Config(format!("{field}: {msg}"))
}

/// Checks `0 ≤ v ≤ 1` for a ratio.
pub fn check_ratio(field: &str, v: f64) -> Result<()> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(bad(field, format!("ratio must lie in [0, 1], got {v}")))
    }
}

/// Checks `v ≤ max` for a size.
pub fn check_size(field: &str, v: usize, max: usize) -> Result<()> {
    if v > max {
        Err(bad(
            field,
            format!(
                "{v} is larger than the limit of {max} (no run of this size fits in memory or finishes)"
            ),
        ))
    } else {
        Ok(())
    }
}

// Serde helpers for settings written into a config only when they leave their default
// (so that configs and hashes from before the setting existed stay as they were).
pub(crate) fn yes() -> bool {
    true
}
pub(crate) fn is_true(b: &bool) -> bool {
    *b
}
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
pub(crate) fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Width(usize);
    impl ParamGuard for Width {
        fn check_ref(&self) -> Result<()> {
            check_size("hidden", self.0, MAX_WIDTH)
        }
    }

    #[test]
    fn checked_params_come_only_from_a_passing_check() {
        assert_eq!(Width(32).check().unwrap().0 .0, 32);
        let e = Width(MAX_WIDTH + 1).check().unwrap_err().to_string();
        assert!(e.contains("hidden") && e.contains("limit"), "{e}");
        assert!(check_ratio("augment.mask", 0.5).is_ok());
        let e = check_ratio("augment.mask", 1.5).unwrap_err().to_string();
        assert!(
            e.starts_with("configuration") || e.contains("augment.mask"),
            "{e}"
        );
    }
}
