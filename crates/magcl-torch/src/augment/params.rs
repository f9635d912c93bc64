//! Graph-level augmentation settings.
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::params::{bad, check_ratio, ParamGuard, Section};

/// Graph-level augmentation settings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AugParams {
    /// `random2`, `random3`, `random4`, `node-drop`, `edge-drop`, `mask`, `subgraph`,
    /// `subgraph-1hop`, `none`, or a `+`-joined list of single augmentations applied in order.
    pub name: String,
    pub node_drop: f64,
    pub edge_drop: f64,
    pub mask: f64,
    pub subgraph: f64,
}

impl Default for AugParams {
    fn default() -> Self {
        AugParams {
            name: "random2".into(),
            node_drop: 0.1,
            edge_drop: 0.1,
            mask: 0.1,
            subgraph: 0.2,
        }
    }
}

/// GraphCL's section (and that of any method augmenting graphs the same way).
impl Section for AugParams {
    const KEY: &'static str = "augment";
}

impl ParamGuard for AugParams {
    fn check_ref(&self) -> Result<()> {
        for (name, v) in [
            ("augment.node_drop", self.node_drop),
            ("augment.edge_drop", self.edge_drop),
            ("augment.mask", self.mask),
            ("augment.subgraph", self.subgraph),
        ] {
            check_ratio(name, v)?;
        }
        // The name is checked here, where a sweep is read, not first in a worker.
        super::build(self).map_err(|e| bad("augment.name", e))?;
        Ok(())
    }
}
