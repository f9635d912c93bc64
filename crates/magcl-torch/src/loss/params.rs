//! The loss family's switches.
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::params::{bad, ParamGuard};

/// The contrastive loss family (docs/methods.md, "The engine").
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InfoNceParams {
    pub temperature: f64,
    /// Whether the positive pair appears in the denominator.
    pub positive_in_denominator: bool,
    /// Average of both directions (view 1 → view 2 and back) instead of one way.
    pub symmetric: bool,
    /// Add intra-view negatives to the denominator.
    pub intra_view_negatives: bool,
    /// Keep the inter-view negatives (the other view's non-matching rows) in the
    /// denominator: true everywhere by default. False with `intra_view_negatives` true
    /// leaves the intra-view negatives alone (the paper's "only intra-view modeling" read
    /// literally; docs/citeseer.md). Written into the config only when false, so configs
    /// and hashes from before the switch existed stay as they were.
    #[serde(
        default = "crate::params::yes",
        skip_serializing_if = "crate::params::is_true"
    )]
    pub inter_view_negatives: bool,
    /// Apply the projection head before the loss.
    pub projector: bool,
}

impl InfoNceParams {
    /// The graph-level loss of GraphCL's code, which SimGRACE and AD-GCL share: NT-Xent at
    /// T = 0.2, the positive left out of the denominator, inter-view negatives only, with
    /// the projection head; one way (anchor → candidates) unless `symmetric`.
    pub fn graph_level(symmetric: bool) -> InfoNceParams {
        InfoNceParams {
            temperature: 0.2,
            positive_in_denominator: false,
            symmetric,
            intra_view_negatives: false,
            inter_view_negatives: true,
            projector: true,
        }
    }

    /// Why the loss would have no negatives at all (neither inter- nor intra-view ones:
    /// the loss is then zero or undefined, whatever the embeddings), or `None`.
    pub fn missing_negatives(&self) -> Option<String> {
        (!self.inter_view_negatives && !self.intra_view_negatives).then(|| {
            "with neither inter- nor intra-view negatives the loss has no negatives (it is \
             constant): set loss.intra_view_negatives = true (the intra-view reading) or \
             loss.inter_view_negatives = true"
                .to_string()
        })
    }
}

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
