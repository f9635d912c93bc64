//! Datasets: loading, caching and node features.
//!
//! Graph-classification sets load into a [`GraphDataset`] (one undirected simple graph per
//! entry, class labels mapped to `0..C`); node-classification sets into a [`NodeDataset`]
//! (one graph, sparse row-normalisable features, optional public split).

/// One graph of a graph-classification dataset: undirected and simple.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub num_nodes: usize,
    /// Undirected edges, each once as `(u, v)` with `u < v`, sorted, no self-loops.
    pub edges: Vec<(u32, u32)>,
    /// Discrete node labels as indices into [`GraphDataset::node_label_values`].
    pub node_labels: Option<Vec<u32>>,
    /// Continuous node attributes, row-major `num_nodes × node_attr_dim`.
    pub node_attributes: Option<Vec<f32>>,
    /// Discrete edge labels (indices into [`GraphDataset::edge_label_values`]), aligned with `edges`.
    pub edge_labels: Option<Vec<u32>>,
    /// Continuous edge attributes, row-major `edges.len() × edge_attr_dim`, aligned with `edges`.
    pub edge_attributes: Option<Vec<f32>>,
    /// Class index in `0..num_classes`.
    pub label: u32,
}

/// A graph-classification dataset.
#[derive(Clone, Debug, Default)]
pub struct GraphDataset {
    pub name: String,
    pub graphs: Vec<Graph>,
    /// The original label value of each class index (sorted ascending).
    pub class_values: Vec<i64>,
    /// The original value of each node-label index (sorted ascending); empty if none.
    pub node_label_values: Vec<i64>,
    pub node_attr_dim: usize,
    /// The original value of each edge-label index (sorted ascending); empty if none.
    pub edge_label_values: Vec<i64>,
    pub edge_attr_dim: usize,
}

impl GraphDataset {
    pub fn num_classes(&self) -> usize {
        self.class_values.len()
    }
    pub fn labels(&self) -> Vec<u32> {
        self.graphs.iter().map(|g| g.label).collect()
    }
}

/// A sparse matrix in compressed-sparse-row form.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CsrMatrix {
    pub rows: usize,
    pub cols: usize,
    /// `rows + 1` offsets into `indices`/`data`.
    pub indptr: Vec<usize>,
    pub indices: Vec<u32>,
    pub data: Vec<f32>,
}

/// Train/validation/test node indices.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Split {
    pub train: Vec<u32>,
    pub val: Vec<u32>,
    pub test: Vec<u32>,
}

/// A node-classification dataset: one graph.
#[derive(Clone, Debug)]
pub struct NodeDataset {
    pub name: String,
    pub num_nodes: usize,
    /// Undirected edges, each once as `(u, v)` with `u < v`, sorted, no self-loops.
    pub edges: Vec<(u32, u32)>,
    /// Raw features (`num_nodes × num_features`), not yet normalised.
    pub features: CsrMatrix,
    pub labels: Vec<u32>,
    pub num_classes: usize,
    /// The standard public split where the dataset defines one (Planetoid).
    pub public_split: Option<Split>,
}
