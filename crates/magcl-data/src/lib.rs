//! # magcl-data — datasets without tensors: loading, caching and node features.
//!
//! Graph-classification sets load into a [`GraphDataset`] (one undirected simple graph per
//! entry, class labels mapped to `0..C`); node-classification sets into a [`NodeDataset`]
//! (one graph, sparse row-normalisable features, optional public split).
//!
//! | file | what |
//! |---|---|
//! | [`registry`] | the known datasets, their kind and where their files come from |
//! | [`source`] | the cache folder, the mirror, downloads, checksums; `load_*_dataset` |
//! | [`tu`] | the TU graph-kernel text format |
//! | [`dgcnn`] | the GIN/DGCNN graph text format (`NAME.txt`) |
//! | [`planetoid`], [`pickle`] | Planetoid's pickled files, read by a small pickle reader |
//! | [`npz`], [`array`](mod@array) | `.npy`/`.npz` arrays and the gnn-benchmark layout |
//! | [`synthetic`] | the embedded BA-2Motifs-style generator |
//! | [`features`] | node-feature kinds and presets for graph datasets |
//! | [`stats`] | the summary numbers `magcl datasets info` prints |
// The paths the modules were written with (`crate::error`, `crate::rng`).
pub(crate) use magcl_core::{error, rng};
pub use magcl_core::{Error, Result};

pub mod array;
pub mod checksums;
pub mod dgcnn;
pub mod features;
pub mod npz;
pub mod pickle;
pub mod planetoid;
pub mod registry;
pub mod source;
pub mod stats;
pub mod synthetic;
pub mod text;
pub mod tu;
pub mod wl;

pub use features::{graph_features, NodeFeatures};
pub use registry::{is_node_dataset, known_datasets, DatasetKind};
pub use source::{load_graph_dataset, load_node_dataset, DataConfig};

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

impl Graph {
    /// Degree of every node (each undirected edge counts once at both ends).
    pub fn degrees(&self) -> Vec<u32> {
        let mut d = vec![0u32; self.num_nodes];
        for &(u, v) in &self.edges {
            d[u as usize] += 1;
            d[v as usize] += 1;
        }
        d
    }
}

impl GraphDataset {
    pub fn num_nodes(&self) -> usize {
        self.graphs.iter().map(|g| g.num_nodes).sum()
    }
    pub fn num_edges(&self) -> usize {
        self.graphs.iter().map(|g| g.edges.len()).sum()
    }
    /// Number of graphs of each class.
    pub fn class_counts(&self) -> Vec<usize> {
        let mut c = vec![0usize; self.num_classes()];
        for g in &self.graphs {
            if let Some(slot) = c.get_mut(g.label as usize) {
                *slot += 1;
            }
        }
        c
    }
}

impl CsrMatrix {
    /// Builds a matrix from scipy-style parts, checking the structure: `indptr` has
    /// `rows + 1` non-decreasing offsets from 0 to `nnz`, every column index is below
    /// `cols`, and `data` has one value per index.
    pub fn from_parts(
        rows: usize,
        cols: usize,
        indptr: &[i64],
        indices: &[i64],
        data: Vec<f32>,
    ) -> std::result::Result<CsrMatrix, String> {
        if indptr.len() != rows.saturating_add(1) {
            return Err(format!(
                "indptr has {} entries; expected rows + 1 = {}",
                indptr.len(),
                rows.saturating_add(1)
            ));
        }
        if indices.len() != data.len() {
            return Err(format!(
                "{} column indices but {} values; expected one value per index",
                indices.len(),
                data.len()
            ));
        }
        if indptr.first() != Some(&0) {
            return Err("indptr does not start at 0".into());
        }
        if indptr.windows(2).any(|w| w[1] < w[0]) {
            return Err("indptr is not non-decreasing".into());
        }
        if indptr.last().copied() != Some(indices.len() as i64) {
            return Err(format!(
                "indptr ends at {:?}; expected the number of stored values ({})",
                indptr.last(),
                indices.len()
            ));
        }
        let mut idx = Vec::with_capacity(indices.len());
        for (k, &c) in indices.iter().enumerate() {
            if c < 0 || c as u64 >= cols as u64 {
                return Err(format!(
                    "column index {c} (entry {k}) out of range; expected 0..{cols}"
                ));
            }
            idx.push(c as u32);
        }
        Ok(CsrMatrix {
            rows,
            cols,
            indptr: indptr.iter().map(|&p| p as usize).collect(),
            indices: idx,
            data,
        })
    }

    /// A sparse copy of a dense row-major matrix (zeros are not stored).
    pub fn from_dense(rows: usize, cols: usize, values: &[f64]) -> CsrMatrix {
        let mut m = CsrMatrix {
            rows,
            cols,
            indptr: Vec::with_capacity(rows + 1),
            indices: Vec::new(),
            data: Vec::new(),
        };
        m.indptr.push(0);
        for r in 0..rows {
            for c in 0..cols {
                let v = values.get(r * cols + c).copied().unwrap_or(0.0);
                if v != 0.0 {
                    m.indices.push(c as u32);
                    m.data.push(v as f32);
                }
            }
            m.indptr.push(m.indices.len());
        }
        m
    }

    /// Number of stored values.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// Column indices and values of row `r` (empty for a row out of range).
    pub fn row(&self, r: usize) -> (&[u32], &[f32]) {
        match (self.indptr.get(r), self.indptr.get(r + 1)) {
            (Some(&a), Some(&b)) if a <= b && b <= self.indices.len() => {
                (&self.indices[a..b], &self.data[a..b])
            }
            _ => (&[], &[]),
        }
    }

    /// Each row divided by its sum, so that it sums to 1; rows summing to 0 stay as they
    /// are. For the non-negative bag-of-words features of the node datasets this is
    /// PyG's `NormalizeFeatures`.
    pub fn row_normalized(&self) -> CsrMatrix {
        let mut out = self.clone();
        for r in 0..self.rows {
            let (a, b) = (self.indptr[r], self.indptr[r + 1]);
            let sum: f64 = self.data[a..b].iter().map(|&v| f64::from(v)).sum();
            if sum != 0.0 {
                for v in &mut out.data[a..b] {
                    *v = (f64::from(*v) / sum) as f32;
                }
            }
        }
        out
    }

    /// The dense row-major `rows × cols` matrix (repeated entries are summed).
    pub fn to_dense(&self) -> Vec<f32> {
        let mut d = vec![0f32; self.rows * self.cols];
        for r in 0..self.rows {
            let (cols, vals) = self.row(r);
            for (&c, &v) in cols.iter().zip(vals) {
                d[r * self.cols + c as usize] += v;
            }
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csr_roundtrip_and_normalisation() {
        // [[1, 0, 3], [0, 0, 0], [0, 2, 0]]
        let m =
            CsrMatrix::from_parts(3, 3, &[0, 2, 2, 3], &[0, 2, 1], vec![1.0, 3.0, 2.0]).unwrap();
        assert_eq!(
            m.to_dense(),
            vec![1.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]
        );
        let n = m.row_normalized();
        assert_eq!(
            n.to_dense(),
            vec![0.25, 0.0, 0.75, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        );
        let d = CsrMatrix::from_dense(3, 3, &[1.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]);
        assert_eq!(d, m);
        assert!(CsrMatrix::from_parts(2, 2, &[0, 1], &[0], vec![1.0]).is_err());
        assert!(CsrMatrix::from_parts(1, 2, &[0, 1], &[2], vec![1.0]).is_err());
        assert!(CsrMatrix::from_parts(1, 2, &[0, 2], &[0], vec![1.0]).is_err());
        assert!(CsrMatrix::from_parts(2, 2, &[0, 1, 0], &[0], vec![1.0]).is_err());
    }
}
