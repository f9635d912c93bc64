//! The loss family's switches.
use crate::error::Result;
use crate::params::{bad, ParamGuard};

/// The contrastive loss family (the `loss` section), declared in the torch-free
/// magcl-config with the settings the reports read.
pub use magcl_config::settings::InfoNceParams;

impl ParamGuard for InfoNceParams {
    fn check_ref(&self) -> Result<()> {
        if let Some(msg) = self.missing_negatives() {
            return Err(bad("loss.inter_view_negatives", msg));
        }
        if self.temperature.is_nan() || self.temperature <= 0.0 {
            return Err(bad(
                "loss.temperature",
                format!("must be positive, got {}", self.temperature),
            ));
        }
        Ok(())
    }
}
