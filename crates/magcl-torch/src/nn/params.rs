//! The GIN encoder's parameters: width, depth, ε, and how a layer reads an MA
//! propagation count (the GIN mode and the filter's π).
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::params::{bad, check_size, ParamGuard, MAX_DEPTH, MAX_WIDTH};

/// How GIN layers are read as schedules under MA (the paper leaves this open).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum GinMode {
    /// K = 0: MLP only; K = 1: standard GIN; K > 1: GIN aggregation after K−1 filter steps.
    #[default]
    #[serde(rename = "gin+filter")]
    GinFilter,
    /// K sum aggregations, then the MLP.
    #[serde(rename = "gin-sum")]
    GinSum,
    /// F^K (normalised filter), then the MLP.
    #[serde(rename = "filter")]
    Filter,
}

impl GinMode {
    pub fn as_str(self) -> &'static str {
        match self {
            GinMode::GinFilter => "gin+filter",
            GinMode::GinSum => "gin-sum",
            GinMode::Filter => "filter",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "gin+filter" | "gin-filter" => Ok(GinMode::GinFilter),
            "gin-sum" => Ok(GinMode::GinSum),
            "filter" => Ok(GinMode::Filter),
            _ => Err(Error::UnknownName {
                what: "MA mode",
                name: s.into(),
                expected: "gin+filter, gin-sum or filter".into(),
            }),
        }
    }
}

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
    fn check_ref(&self) -> Result<()> {
        if self.hidden == 0 || self.layers == 0 {
            return Err(bad("hidden/layers", "must be at least 1"));
        }
        check_size("hidden", self.hidden, MAX_WIDTH)?;
        check_size("layers", self.layers, MAX_DEPTH)?;
        if !self.eps.is_finite() {
            return Err(bad("gin_eps", format!("must be finite, got {}", self.eps)));
        }
        if !(0.0..=1.0).contains(&self.pi) {
            return Err(bad("ma.pi", format!("must lie in [0, 1], got {}", self.pi)));
        }
        Ok(())
    }
}
