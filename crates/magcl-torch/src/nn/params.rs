//! The GIN encoder's parameters: width, depth, ε, and how a layer reads an MA
//! propagation count (the GIN mode and the filter's π).
use crate::error::Result;
use crate::params::{check_size, ParamGuard, SettingError, MAX_DEPTH, MAX_WIDTH};

/// How GIN layers are read as schedules under MA (declared with MA's settings in
/// magcl-config).
pub use magcl_config::ma::GinMode;

/// A GIN encoder (graph level).
#[derive(Clone, Debug, PartialEq)]
pub struct GinParams {
    /// Channels of every layer.
    pub hidden: usize,
    pub layers: usize,
    /// GIN's ε: the weight of a node's own features is 1 + ε.
    pub eps: f64,
    /// How a layer reads K propagations under MA.
    pub mode: GinMode,
    /// π of the normalised filter F = (1−π)I + πÂ.
    pub pi: f64,
}

impl ParamGuard for GinParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        if self.hidden == 0 || self.layers == 0 {
            return Err(SettingError::new("hidden/layers", "must be at least 1"));
        }
        check_size("hidden", self.hidden, MAX_WIDTH)?;
        check_size("layers", self.layers, MAX_DEPTH)?;
        if !self.eps.is_finite() {
            return Err(SettingError::new(
                "gin_eps",
                format!("must be finite, got {}", self.eps),
            ));
        }
        if !(0.0..=1.0).contains(&self.pi) {
            return Err(SettingError::new(
                "ma.pi",
                format!("must lie in [0, 1], got {}", self.pi),
            ));
        }
        Ok(())
    }
}
