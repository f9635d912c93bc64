//! The `wl` baseline: Weisfeiler–Lehman subtree features (Shervashidze et al., JMLR 2011)
//! with the same nested-CV SVM as GraphCL and SimGRACE (`svc-rbf`: an RBF kernel with
//! `gamma = 'scale'` on the count vectors). A classical graph kernel with no learning
//! beyond the SVM: the floor a contrastive method has to clear on graph classification.
//!
//! Initial colours are the nodes' feature rows (one-hot node labels on the labelled
//! sets); where every node has the same row (IMDB-BINARY, IMDB-MULTI: no labels), the
//! node's degree. `wl.iterations` (h, default 3) sets the depth; the features count the
//! colours of iterations 0..=h ([`crate::data::wl`]).
use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Embeddings, MethodEntry, Preset, PresetRequest};
use crate::data::wl::{CountFeatures, WlGraph};
use crate::error::Result;
use crate::eval::SparseRows;
use crate::params::{check_size, section, ParamGuard, Section, SettingError, MAX_DEPTH};
use crate::train::graph::GraphData;
use crate::train::FixedEmbeddings;

/// The `wl` settings (a config's `wl` section).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WlParams {
    /// Refinement iterations h.
    pub iterations: usize,
}

impl Default for WlParams {
    fn default() -> Self {
        WlParams { iterations: 3 }
    }
}

impl Section for WlParams {
    const KEY: &'static str = "wl";
}

impl ParamGuard for WlParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        check_size("wl.iterations", self.iterations, MAX_DEPTH)
    }
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::wl::DECL,
    "Weisfeiler-Lehman subtree features + the SVM (a classical graph-kernel floor)",
    |req| {
        let mut p = kernel_preset(req)?;
        p.sections.set(&WlParams::default())?;
        Ok(p)
    },
    |p, data, _device, _progress| {
        let g = data.graphs("wl")?;
        let h = p.sections.require::<WlParams>("wl")?.iterations;
        Ok(Box::new(count_baseline(g, |graphs| {
            crate::data::wl::wl_subtree(graphs, h)
        })?))
    },
)
.sections(&[section::<WlParams>()]);

/// The graph-kernel floors' settings: GraphCL's features and SVM, nothing to train.
pub fn kernel_preset(req: &PresetRequest) -> Result<Preset> {
    let mut p = req.of(&super::graphcl::ENTRY)?;
    p.epochs = 0;
    p.sections = Default::default();
    Ok(p)
}

/// Each node's initial colour: its feature row, or its degree where all rows are equal.
pub fn initial_colours(data: &GraphData) -> Vec<Vec<u64>> {
    let mut ids: HashMap<Vec<u32>, u64> = HashMap::new();
    let colours: Vec<Vec<u64>> = data
        .views
        .iter()
        .map(|g| {
            let d = g.dim().max(1);
            g.x.chunks(d)
                .map(|row| {
                    let key: Vec<u32> = row.iter().map(|v| v.to_bits()).collect();
                    let next = ids.len() as u64;
                    *ids.entry(key).or_insert(next)
                })
                .collect()
        })
        .collect();
    if ids.len() > 1 {
        return colours;
    }
    data.views
        .iter()
        .map(|g| {
            let mut deg = vec![0u64; g.num_nodes];
            for &(u, v) in &g.edges {
                deg[u as usize] += 1;
                deg[v as usize] += 1;
            }
            deg
        })
        .collect()
}

/// The sparse count rows `make` gives for the graphs of `data` (initial colours:
/// [`initial_colours`]), as a baseline with fixed embeddings.
pub fn count_baseline(
    data: &GraphData,
    make: impl FnOnce(&[WlGraph<'_>]) -> CountFeatures,
) -> Result<FixedEmbeddings> {
    let colours = initial_colours(data);
    let graphs: Vec<WlGraph<'_>> = data
        .views
        .iter()
        .zip(&colours)
        .map(|(g, c)| WlGraph {
            num_nodes: g.num_nodes,
            edges: &g.edges,
            colours: c,
        })
        .collect();
    let f = make(&graphs);
    let rows = SparseRows::from_rows(f.rows, f.columns)?;
    Ok(FixedEmbeddings(Embeddings {
        x: Vec::new(),
        rows: rows.n,
        dim: rows.d,
        sparse: Some(Arc::new(rows)),
    }))
}
