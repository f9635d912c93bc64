//! Graphs as the engine sees them: a [`GraphView`] (one graph with its node features, the
//! unit augmentations work on), [`Batch`] (many views collated into one block-diagonal
//! graph, built from Rust vectors in one pass) and [`GraphTensors`] (a batch on a device).
use std::rc::Rc;

use tch::{Device, Kind, Tensor};

pub mod sparse;
pub use sparse::SparseMatrix;

/// One graph with node features: what augmentations consume and produce.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphView {
    pub num_nodes: usize,
    /// Undirected edges, each once as `(u, v)`, `u != v`.
    pub edges: Vec<(u32, u32)>,
    /// Row-major `num_nodes × dim` node features.
    pub x: Vec<f32>,
}

impl GraphView {
    pub fn dim(&self) -> usize {
        self.x.len().checked_div(self.num_nodes).unwrap_or(0)
    }

    /// Node degrees (number of incident undirected edges).
    pub fn degrees(&self) -> Vec<u32> {
        let mut deg = vec![0u32; self.num_nodes];
        for &(u, v) in &self.edges {
            deg[u as usize] += 1;
            deg[v as usize] += 1;
        }
        deg
    }
}

/// Many graphs as one block-diagonal graph. Edges are stored in both directions
/// (`src[e] → dst[e]`), node `i` of graph `g` has global index `offsets[g] + i`.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub num_graphs: usize,
    pub num_nodes: usize,
    pub dim: usize,
    pub x: Vec<f32>,
    pub src: Vec<i64>,
    pub dst: Vec<i64>,
    /// Graph index of every node.
    pub batch: Vec<i64>,
    /// `num_graphs + 1` node offsets.
    pub offsets: Vec<usize>,
}

impl Batch {
    /// Collates `graphs` (all with feature dimension `dim`) in one pass.
    pub fn collate<'a, I>(graphs: I, dim: usize) -> Batch
    where
        I: IntoIterator<Item = &'a GraphView>,
        I::IntoIter: Clone,
    {
        let it = graphs.into_iter();
        let (mut n, mut m, mut g) = (0usize, 0usize, 0usize);
        for v in it.clone() {
            n += v.num_nodes;
            m += v.edges.len();
            g += 1;
        }
        let mut b = Batch {
            num_graphs: g,
            num_nodes: n,
            dim,
            x: Vec::with_capacity(n * dim),
            src: Vec::with_capacity(2 * m),
            dst: Vec::with_capacity(2 * m),
            batch: Vec::with_capacity(n),
            offsets: Vec::with_capacity(g + 1),
        };
        let mut off = 0usize;
        b.offsets.push(0);
        for (gi, v) in it.enumerate() {
            debug_assert_eq!(v.x.len(), v.num_nodes * dim);
            b.x.extend_from_slice(&v.x);
            for &(u, w) in &v.edges {
                let (u, w) = ((u as usize + off) as i64, (w as usize + off) as i64);
                b.src.push(u);
                b.dst.push(w);
                b.src.push(w);
                b.dst.push(u);
            }
            b.batch.extend(std::iter::repeat_n(gi as i64, v.num_nodes));
            off += v.num_nodes;
            b.offsets.push(off);
        }
        b
    }

    /// Moves the batch to `device` as tensors.
    pub fn to_tensors(&self, device: Device) -> GraphTensors {
        let x = Tensor::from_slice(&self.x)
            .view([self.num_nodes as i64, self.dim as i64])
            .to_device(device);
        GraphTensors::new(
            x,
            Tensor::from_slice(&self.src).to_device(device),
            Tensor::from_slice(&self.dst).to_device(device),
            Tensor::from_slice(&self.batch).to_device(device),
            self.num_nodes,
            self.num_graphs,
        )
    }
}

/// A (batched) graph on a device: features, directed edge lists, and the graph index of
/// every node. Edge weights (AD-GCL's soft edges) multiply messages when present.
/// Which end of a directed edge counts towards a node's degree (see
/// [`GraphTensors::normalized_weights`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DegreeOf {
    /// Out-degree: the MA-GCL reference's propagation (and magcl's graph level).
    Sources,
    /// In-degree: PyG's `GCNConv` (GRACE, GCA).
    Targets,
}

pub struct GraphTensors {
    pub x: Tensor,
    pub src: Tensor,
    pub dst: Tensor,
    pub batch: Tensor,
    pub num_nodes: usize,
    pub num_graphs: usize,
    /// Per-directed-edge weights (None = all ones).
    pub edge_weight: Option<Tensor>,
    /// Which end of an edge counts towards a node's degree in Â (it matters only on a
    /// directed graph, e.g. a view after directed edge dropping). Set before first use.
    pub degree_of: DegreeOf,
    /// Â's edge weights `d̃_u^-1/2 d̃_v^-1/2` and self weights `1/d̃`, computed on first use.
    norm: std::cell::OnceCell<(Tensor, Tensor)>,
    /// The adjacency A (rows = destinations), built on first use.
    adj: std::cell::OnceCell<SparseMatrix>,
    /// The adjacency with the (constant) edge weights as entries, built on first use.
    adj_weighted: std::cell::OnceCell<SparseMatrix>,
    /// Â (self-loops included), built on first use.
    adj_norm: std::cell::OnceCell<SparseMatrix>,
    /// The filter F = (1 − π) I + π Â, with its π.
    filter: std::cell::OnceCell<(f64, Rc<SparseMatrix>)>,
    /// The `graphs × nodes` pooling matrix (CPU only), built on first use.
    pool: std::cell::OnceCell<SparseMatrix>,
}

impl GraphTensors {
    pub fn new(
        x: Tensor,
        src: Tensor,
        dst: Tensor,
        batch: Tensor,
        num_nodes: usize,
        num_graphs: usize,
    ) -> Self {
        GraphTensors {
            x,
            src,
            dst,
            batch,
            num_nodes,
            num_graphs,
            edge_weight: None,
            degree_of: DegreeOf::Sources,
            norm: std::cell::OnceCell::new(),
            adj: std::cell::OnceCell::new(),
            adj_weighted: std::cell::OnceCell::new(),
            adj_norm: std::cell::OnceCell::new(),
            filter: std::cell::OnceCell::new(),
            pool: std::cell::OnceCell::new(),
        }
    }

    pub fn device(&self) -> Device {
        self.x.device()
    }

    /// The same graph with other node features (shares the structure tensors; the lazily
    /// built matrices are built afresh).
    pub fn with_x(&self, x: Tensor) -> GraphTensors {
        let mut g = GraphTensors::new(
            x,
            self.src.shallow_clone(),
            self.dst.shallow_clone(),
            self.batch.shallow_clone(),
            self.num_nodes,
            self.num_graphs,
        );
        g.edge_weight = self.edge_weight.as_ref().map(|w| w.shallow_clone());
        g.degree_of = self.degree_of;
        g
    }

    /// The sparse `N × N` matrix with entries `(dst[e], src[e]) = values[e]` (and
    /// `(i, i) = diag[i]` when given), built on the device.
    fn sparse(&self, values: &Tensor, diag: Option<&Tensor>) -> SparseMatrix {
        let n = self.num_nodes as i64;
        match diag {
            Some(d) => {
                let ids = Tensor::arange(n, (Kind::Int64, self.device()));
                SparseMatrix::from_triplets(
                    &Tensor::cat(&[&self.dst, &ids], 0),
                    &Tensor::cat(&[&self.src, &ids], 0),
                    &Tensor::cat(&[values, d], 0),
                    n,
                    n,
                )
            }
            None => SparseMatrix::from_triplets(&self.dst, &self.src, values, n, n),
        }
    }

    /// The `graphs × nodes` matrix P with `P[batch[i], i] = 1`: `P z` sums node rows per
    /// graph.
    pub fn pooling(&self) -> &SparseMatrix {
        self.pool.get_or_init(|| {
            let n = self.num_nodes as i64;
            let dev = self.device();
            SparseMatrix::from_triplets(
                &self.batch,
                &Tensor::arange(n, (Kind::Int64, dev)),
                &Tensor::ones([n], (Kind::Float, dev)),
                self.num_graphs as i64,
                n,
            )
        })
    }

    /// The adjacency A (`A z` sums incoming messages).
    pub fn adjacency(&self) -> &SparseMatrix {
        self.adj.get_or_init(|| {
            let ones = Tensor::ones([self.src.size()[0]], (Kind::Float, self.device()));
            self.sparse(&ones, None)
        })
    }

    /// The adjacency A_w with `(dst[e], src[e]) = edge_weight[e]` (`A_w z` is the weighted
    /// message sum), when the graph has edge weights; their gradient is not tracked, so
    /// callers use it only for weights that need none. Its products round as the
    /// gather/scatter form does ([`SparseMatrix::from_triplets_rounded`]).
    pub fn weighted_adjacency(&self) -> Option<&SparseMatrix> {
        let w = self.edge_weight.as_ref()?;
        Some(self.adj_weighted.get_or_init(|| {
            let n = self.num_nodes as i64;
            SparseMatrix::from_triplets_rounded(&self.dst, &self.src, w, n, n)
        }))
    }

    /// The filter F = (1 − π) I + π Â as one sparse matrix (a filter step is then a
    /// single sparse product). Cached for the first π asked; other π are built afresh.
    pub fn filter_matrix(&self, pi: f64) -> Rc<SparseMatrix> {
        let build = || {
            let (w, self_w) = self.normalized_weights();
            Rc::new(self.sparse(&(w * pi), Some(&(self_w * pi + (1.0 - pi)))))
        };
        let (p, f) = self.filter.get_or_init(|| (pi, build()));
        if *p == pi {
            f.clone()
        } else {
            build()
        }
    }

    /// Â = D̃^-1/2 (A + I) D̃^-1/2 as a sparse matrix (see [`Self::normalized_weights`]).
    pub fn normalized_adjacency(&self) -> &SparseMatrix {
        self.adj_norm.get_or_init(|| {
            let (w, self_w) = self.normalized_weights();
            self.sparse(w, Some(self_w))
        })
    }

    /// Weights of the renormalised adjacency Â = D̃^-1/2 (A + I) D̃^-1/2 (D̃ = degree + 1,
    /// the degree counted over edge sources as the MA-GCL reference does, or over targets
    /// as PyG's `GCNConv` does, by [`Self::degree_of`]; the two agree on undirected graphs):
    /// `(edge weights, self-loop weights)`.
    pub fn normalized_weights(&self) -> &(Tensor, Tensor) {
        self.norm.get_or_init(|| {
            let dev = self.device();
            let ones = match &self.edge_weight {
                Some(w) => w.detach(),
                None => Tensor::ones([self.src.size()[0]], (Kind::Float, dev)),
            };
            let end = match self.degree_of {
                DegreeOf::Sources => &self.src,
                DegreeOf::Targets => &self.dst,
            };
            let deg =
                Tensor::ones([self.num_nodes as i64], (Kind::Float, dev)).index_add(0, end, &ones);
            let dinv = deg.pow_tensor_scalar(-0.5);
            let w = dinv.index_select(0, &self.src) * dinv.index_select(0, &self.dst) * ones;
            let self_w = dinv.square();
            (w, self_w)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path3() -> GraphView {
        GraphView {
            num_nodes: 3,
            edges: vec![(0, 1), (1, 2)],
            x: vec![1.0, 2.0, 3.0],
        }
    }

    #[test]
    fn collate_offsets_edges_and_batch_vector() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let a = path3();
        let b = GraphView {
            num_nodes: 2,
            edges: vec![(0, 1)],
            x: vec![10.0, 20.0],
        };
        let batch = Batch::collate([&a, &b], 1);
        assert_eq!(batch.num_graphs, 2);
        assert_eq!(batch.num_nodes, 5);
        assert_eq!(batch.offsets, vec![0, 3, 5]);
        assert_eq!(batch.batch, vec![0, 0, 0, 1, 1]);
        assert_eq!(batch.x, vec![1.0, 2.0, 3.0, 10.0, 20.0]);
        assert_eq!(batch.src, vec![0, 1, 1, 2, 3, 4]);
        assert_eq!(batch.dst, vec![1, 0, 2, 1, 4, 3]);
    }

    #[test]
    fn collate_empty_list() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let batch = Batch::collate(std::iter::empty::<&GraphView>(), 4);
        assert_eq!(batch.num_graphs, 0);
        assert_eq!(batch.offsets, vec![0]);
    }

    /// On the directed graph 0→1, 0→2 out- and in-degrees differ: d̃ over sources is
    /// [3, 1, 1], over targets [1, 2, 2].
    #[test]
    fn degree_of_sources_or_targets() {
        let _g = crate::rng::torch_lock();
        let g = |of| {
            let mut t = GraphTensors::new(
                Tensor::zeros([3, 1], (Kind::Float, Device::Cpu)),
                Tensor::from_slice(&[0i64, 0]),
                Tensor::from_slice(&[1i64, 2]),
                Tensor::zeros([3], (Kind::Int64, Device::Cpu)),
                3,
                1,
            );
            t.degree_of = of;
            let (w, s) = t.normalized_weights();
            (
                Vec::<f32>::try_from(w).unwrap(),
                Vec::<f32>::try_from(s).unwrap(),
            )
        };
        let (w, s) = g(DegreeOf::Sources);
        let e = 1.0 / 3f32.sqrt();
        assert!(w.iter().all(|v| (v - e).abs() < 1e-6), "{w:?}");
        assert!((s[0] - 1.0 / 3.0).abs() < 1e-6 && s[1] == 1.0 && s[2] == 1.0);
        let (w, s) = g(DegreeOf::Targets);
        let e = 1.0 / 2f32.sqrt();
        assert!(w.iter().all(|v| (v - e).abs() < 1e-6), "{w:?}");
        assert!(s[0] == 1.0 && (s[1] - 0.5).abs() < 1e-6 && (s[2] - 0.5).abs() < 1e-6);
    }

    #[test]
    fn normalized_weights_of_a_path() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let b = Batch::collate([&path3()], 1);
        let t = b.to_tensors(Device::Cpu);
        let (w, s) = t.normalized_weights();
        // d̃ = [2, 3, 2]; edges 0→1, 1→0, 1→2, 2→1 all have weight 1/sqrt(6).
        let w: Vec<f32> = Vec::try_from(w).unwrap();
        for v in w {
            assert!((v - 1.0 / 6f32.sqrt()).abs() < 1e-6);
        }
        let s: Vec<f32> = Vec::try_from(s).unwrap();
        assert!((s[0] - 0.5).abs() < 1e-6 && (s[1] - 1.0 / 3.0).abs() < 1e-6);
    }
}
