//! Summary statistics of a dataset, as `magcl datasets info` prints them. Edges are
//! undirected and counted once, after deduplication and self-loop removal.
use super::features::{explain, kind_dim};
use super::registry::Published;
use super::source::DataSource;
use super::{GraphDataset, NodeDataset};
use crate::error::Result;
use serde::Serialize;

/// Statistics of a graph-classification dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphStats {
    pub name: String,
    /// Always `"graph"`.
    pub kind: &'static str,
    pub graphs: usize,
    pub nodes: usize,
    pub edges: usize,
    pub classes: usize,
    pub avg_nodes: f64,
    pub avg_edges: f64,
    /// Feature width under the default `graphcl` features.
    pub feature_dim: usize,
    /// How the `auto` features were chosen, e.g. "auto: labels (from the data: node
    /// labels)" or "auto: constant (from the data: neither node labels nor attributes)".
    pub feature_rule: String,
    /// Graphs per class index (classes in ascending order of their original label).
    pub class_counts: Vec<usize>,
    /// For a TU dataset without a built-in checksum: the sha256 recorded when it was
    /// fetched (see `data::source::tu_digest`); a later fetch of other bytes is reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_sha256: Option<String>,
    /// Which copy was read (path and sha256), where `datasets info` traced it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<DataSource>,
    /// The set's published statistics, for a built-in name that has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<&'static Published>,
}

/// Statistics of a node-classification dataset. The split sizes are `None` where the
/// dataset has no public split.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeStats {
    pub name: String,
    /// Always `"node"`.
    pub kind: &'static str,
    pub nodes: usize,
    pub edges: usize,
    pub features: usize,
    pub classes: usize,
    pub train: Option<usize>,
    pub val: Option<usize>,
    pub test: Option<usize>,
    /// Which file was read (path and sha256), where `datasets info` traced it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<DataSource>,
    /// The set's published statistics, for a built-in name that has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<&'static Published>,
}

pub fn graph_stats(ds: &GraphDataset) -> Result<GraphStats> {
    let (kind, feature_rule) = explain(ds, "auto")?;
    let graphs = ds.graphs.len();
    let nodes = ds.num_nodes();
    let edges = ds.num_edges();
    let per = |x: usize| {
        if graphs == 0 {
            0.0
        } else {
            x as f64 / graphs as f64
        }
    };
    Ok(GraphStats {
        name: ds.name.clone(),
        kind: "graph",
        graphs,
        nodes,
        edges,
        classes: ds.num_classes(),
        avg_nodes: per(nodes),
        avg_edges: per(edges),
        feature_dim: kind_dim(ds, kind),
        feature_rule,
        class_counts: ds.class_counts(),
        source_sha256: None,
        source: None,
        published: None,
    })
}

pub fn node_stats(ds: &NodeDataset) -> NodeStats {
    let split = ds.public_split.as_ref();
    NodeStats {
        name: ds.name.clone(),
        kind: "node",
        nodes: ds.num_nodes,
        edges: ds.edges.len(),
        features: ds.features.cols,
        classes: ds.num_classes,
        train: split.map(|s| s.train.len()),
        val: split.map(|s| s.val.len()),
        test: split.map(|s| s.test.len()),
        source: None,
        published: None,
    }
}
