//! Propagation operators on a [`GraphTensors`] (messages flow `src → dst`).
//!
//! Every operation here and in [`super::mlp`] runs one of `crate::kernels`' operations
//! where one applies (chosen inside the operation by device and kind) and plain libtorch
//! operators otherwise; [`with_reference_ops`] makes all of them take the plain form.
use tch::{Device, Kind, Tensor};

use crate::graph::{GraphTensors, SparseMatrix};
pub use crate::kernels::{reference_ops, with_reference_ops};
use crate::nn::GinMode;

/// Σ_{j→i} w_ji z_j: the (weighted) sum of incoming messages. Unweighted graphs use a
/// sparse matrix product; learnable edge weights (AD-GCL) use gather/scatter so that the
/// gradient reaches the weights. Weights that need no gradient (AD-GCL's descent step)
/// use a sparse product on the CPU, with the gather/scatter form's rounding: the same
/// bits in a fraction of the operations.
pub fn neighbour_sum(g: &GraphTensors, z: &Tensor) -> Tensor {
    if let Some(a) = neighbour_matrix(g, z) {
        return a.mm(z);
    }
    match &g.edge_weight {
        None => z
            .zeros_like()
            .index_add(0, &g.dst, &z.index_select(0, &g.src)),
        Some(w) => {
            let msg = z.index_select(0, &g.src) * w.unsqueeze(-1).to_kind(z.kind());
            z.zeros_like().index_add(0, &g.dst, &msg)
        }
    }
}

/// GIN aggregation `(1 + ε) z + Σ_{j→i} w_ji z_j`.
pub fn gin_aggregate(g: &GraphTensors, z: &Tensor, eps: f64) -> Tensor {
    if let Some(a) = neighbour_matrix(g, z) {
        return a.mm_plus_self(z, 1.0 + eps);
    }
    let agg = neighbour_sum(g, z);
    if eps == 0.0 {
        agg + z
    } else {
        agg + z * (1.0 + eps)
    }
}

/// The sparse matrix whose product with `z` is [`neighbour_sum`], where that is a
/// sparse product: f32 features, and edge weights (if any) on the CPU and not learnt.
fn neighbour_matrix<'a>(g: &'a GraphTensors, z: &Tensor) -> Option<&'a SparseMatrix> {
    match &g.edge_weight {
        _ if z.kind() != Kind::Float => None,
        None => Some(g.adjacency()),
        Some(w) if !w.requires_grad() && z.device() == Device::Cpu => {
            Some(g.weighted_adjacency().expect("the graph has edge weights"))
        }
        Some(_) => None,
    }
}

/// Â z with Â = D̃^-1/2 (A + I) D̃^-1/2 (a sparse matrix product; the normalisation is a
/// constant even when edge weights are learnable).
pub fn normalized_adjacency(g: &GraphTensors, z: &Tensor) -> Tensor {
    if z.kind() == Kind::Float {
        g.normalized_adjacency().mm(z)
    } else {
        let (w, self_w) = g.normalized_weights();
        let msg = z.index_select(0, &g.src) * w.unsqueeze(-1).to_kind(z.kind());
        (z * self_w.unsqueeze(-1).to_kind(z.kind())).index_add(0, &g.dst, &msg)
    }
}

/// One step of the normalised filter F z = (1 − π) z + π Â z.
pub fn filter_step(g: &GraphTensors, z: &Tensor, pi: f64) -> Tensor {
    if z.kind() == Kind::Float {
        g.filter_matrix(pi).mm(z)
    } else {
        z * (1.0 - pi) + normalized_adjacency(g, z) * pi
    }
}

/// The propagation part of one GIN layer with K propagations under `mode` (the paper leaves
/// GIN under MA undefined, appendix "Graph Classification Experiments"; the three modes:
/// docs/methods.md, "Model augmentation"):
/// - `gin+filter`: K = 0 → identity, K = 1 → GIN aggregation, K > 1 → GIN aggregation
///   after K − 1 filter steps;
/// - `gin-sum`: K GIN aggregations;
/// - `filter`: K filter steps.
pub fn gin_propagate(
    g: &GraphTensors,
    z: &Tensor,
    k: usize,
    mode: GinMode,
    eps: f64,
    pi: f64,
) -> Tensor {
    let mut h = z.shallow_clone();
    match mode {
        GinMode::GinFilter => {
            if k == 0 {
                return h;
            }
            for _ in 1..k {
                h = filter_step(g, &h, pi);
            }
            gin_aggregate(g, &h, eps)
        }
        GinMode::GinSum => {
            for _ in 0..k {
                h = gin_aggregate(g, &h, eps);
            }
            h
        }
        GinMode::Filter => {
            for _ in 0..k {
                h = filter_step(g, &h, pi);
            }
            h
        }
    }
}

/// Sum of node rows per graph (`batch[i]` = graph of node i).
pub fn sum_pool(g: &GraphTensors, z: &Tensor) -> Tensor {
    if z.device() == tch::Device::Cpu && z.kind() == Kind::Float {
        return g.pooling().mm(z);
    }
    let d = z.size()[1];
    Tensor::zeros([g.num_graphs as i64, d], (z.kind(), z.device())).index_add(0, &g.batch, z)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::graph::{Batch, GraphView};
    use tch::Device;

    /// The 4-node graph 0-1, 1-2, 2-0, 2-3 with one-hot features.
    fn toy() -> GraphTensors {
        let v = GraphView {
            num_nodes: 4,
            edges: vec![(0, 1), (1, 2), (0, 2), (2, 3)],
            x: vec![
                1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
            ],
        };
        Batch::collate([&v], 4).to_tensors(Device::Cpu)
    }

    fn mat(t: &Tensor) -> Vec<Vec<f64>> {
        let t = t.to_kind(Kind::Double);
        (0..t.size()[0])
            .map(|i| Vec::<f64>::try_from(t.get(i)).unwrap())
            .collect()
    }

    fn close(a: &[Vec<f64>], b: &[Vec<f64>]) {
        for (ra, rb) in a.iter().zip(b) {
            for (x, y) in ra.iter().zip(rb) {
                assert!((x - y).abs() < 1e-6, "{a:?} vs {b:?}");
            }
        }
    }

    /// What SimGRACE's `gin_eps = 1` stands for: a GIN over a graph that carries a
    /// self-loop on every node (the reference's data pipeline) equals ε = 1 without them.
    #[test]
    fn gin_with_a_self_loop_per_node_is_eps_one() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let v = GraphView {
            num_nodes: 4,
            edges: vec![(0, 1), (1, 2), (0, 2), (2, 3)],
            x: vec![
                0.5, -1., 2., 0., 1., 3., -2., 0.25, 1., 1., 1., -1., 4., 0., -3., 2.,
            ],
        };
        let plain = Batch::collate([&v], 4);
        let mut looped = plain.clone();
        for i in 0..4 {
            looped.src.push(i);
            looped.dst.push(i);
        }
        let (plain, looped) = (
            plain.to_tensors(Device::Cpu),
            looped.to_tensors(Device::Cpu),
        );
        let with_loops = gin_aggregate(&looped, &looped.x, 0.0);
        let eps_one = gin_aggregate(&plain, &plain.x, 1.0);
        close(&mat(&with_loops), &mat(&eps_one));
        let eps_zero = gin_aggregate(&plain, &plain.x, 0.0);
        let gap = (&with_loops - &eps_zero).abs().max().double_value(&[]);
        assert!(gap > 0.1, "the loops must change something: {gap}");
    }

    #[test]
    fn gin_aggregate_is_a_plus_i_on_one_hot_features() {
        let g = toy();
        // (A + I) applied to the identity = A + I
        let want = vec![
            vec![1., 1., 1., 0.],
            vec![1., 1., 1., 0.],
            vec![1., 1., 1., 1.],
            vec![0., 0., 1., 1.],
        ];
        close(&mat(&gin_aggregate(&g, &g.x, 0.0)), &want);
        let with_eps = mat(&gin_aggregate(&g, &g.x, 0.5));
        assert!((with_eps[0][0] - 1.5).abs() < 1e-6);
    }

    #[test]
    fn filter_matches_the_hand_computed_matrix() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let g = toy();
        // degrees + 1: [3, 3, 4, 2]; Â_ij = 1/sqrt(d̃_i d̃_j) on edges and the diagonal
        let d = [3f64, 3., 4., 2.];
        let adj = [[1, 1, 1, 0], [1, 1, 1, 0], [1, 1, 1, 1], [0, 0, 1, 1]];
        let pi = 0.3;
        let want: Vec<Vec<f64>> = (0..4)
            .map(|i| {
                (0..4)
                    .map(|j| {
                        let a = adj[i][j] as f64 / (d[i] * d[j]).sqrt();
                        (if i == j { 1.0 - pi } else { 0.0 }) + pi * a
                    })
                    .collect()
            })
            .collect();
        close(&mat(&filter_step(&g, &g.x, pi)), &want);
    }

    #[test]
    fn schedules_under_each_mode() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let g = toy();
        let x = &g.x;
        close(
            &mat(&gin_propagate(&g, x, 0, GinMode::GinFilter, 0.0, 0.5)),
            &mat(x),
        );
        close(
            &mat(&gin_propagate(&g, x, 1, GinMode::GinFilter, 0.0, 0.5)),
            &mat(&gin_aggregate(&g, x, 0.0)),
        );
        let f = filter_step(&g, x, 0.5);
        close(
            &mat(&gin_propagate(&g, x, 2, GinMode::GinFilter, 0.0, 0.5)),
            &mat(&gin_aggregate(&g, &f, 0.0)),
        );
        let s2 = gin_aggregate(&g, &gin_aggregate(&g, x, 0.0), 0.0);
        close(
            &mat(&gin_propagate(&g, x, 2, GinMode::GinSum, 0.0, 0.5)),
            &mat(&s2),
        );
        close(
            &mat(&gin_propagate(&g, x, 2, GinMode::Filter, 0.0, 0.5)),
            &mat(&filter_step(&g, &f, 0.5)),
        );
    }

    #[test]
    fn sparse_products_equal_gather_scatter() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        let g = toy();
        let z = Tensor::randn([4, 5], (Kind::Float, Device::Cpu));
        let zd = z.to_kind(Kind::Double);
        for (a, b) in [
            (neighbour_sum(&g, &z), neighbour_sum(&g, &zd)),
            (normalized_adjacency(&g, &z), normalized_adjacency(&g, &zd)),
        ] {
            let diff = (a.to_kind(Kind::Double) - b).abs().max().double_value(&[]);
            assert!(diff < 1e-5, "{diff}");
        }
        // gradients through the sparse product
        let zg = z.set_requires_grad(true);
        neighbour_sum(&g, &zg).sum(Kind::Float).backward();
        let grad: Vec<f32> =
            Vec::try_from(zg.grad().sum_dim_intlist(&[1i64][..], false, Kind::Float)).unwrap();
        // d/dz_j Σ_i (A z)_i = out-degree of j, times 5 columns
        assert_eq!(grad, vec![10.0, 10.0, 15.0, 5.0]);
    }

    #[test]
    fn sum_pool_per_graph() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let a = GraphView {
            num_nodes: 2,
            edges: vec![(0, 1)],
            x: vec![1., 2.],
        };
        let b = GraphView {
            num_nodes: 1,
            edges: vec![],
            x: vec![5.],
        };
        let g = Batch::collate([&a, &b, &a], 1).to_tensors(Device::Cpu);
        close(&mat(&sum_pool(&g, &g.x)), &[vec![3.], vec![5.], vec![3.]]);
    }

    /// Central differences of a scalar function of `x` against autograd.
    pub(crate) fn gradcheck(f: impl Fn(&Tensor) -> Tensor, x: &Tensor) {
        let x = x.to_kind(Kind::Double).set_requires_grad(true);
        let y = f(&x);
        let g = tch::Tensor::run_backward(&[&y], &[&x], false, false);
        let g: Vec<f64> = Vec::try_from(g[0].flatten(0, -1)).unwrap();
        let flat: Vec<f64> = Vec::try_from(x.detach().flatten(0, -1)).unwrap();
        let h = 1e-6;
        for i in 0..flat.len() {
            let mut p = flat.clone();
            p[i] += h;
            let mut m = flat.clone();
            m[i] -= h;
            let fp = f(&Tensor::from_slice(&p).view(x.size().as_slice())).double_value(&[]);
            let fm = f(&Tensor::from_slice(&m).view(x.size().as_slice())).double_value(&[]);
            let num = (fp - fm) / (2.0 * h);
            assert!(
                (num - g[i]).abs() < 1e-5 * (1.0 + num.abs()),
                "coordinate {i}: numeric {num} vs autograd {}",
                g[i]
            );
        }
    }

    #[test]
    fn operators_pass_gradient_checks() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        let g = toy();
        let x = Tensor::randn([4, 3], (Kind::Double, Device::Cpu));
        let w = Tensor::randn([4, 3], (Kind::Double, Device::Cpu));
        for mode in [GinMode::GinFilter, GinMode::GinSum, GinMode::Filter] {
            gradcheck(
                |z| (gin_propagate(&g, z, 3, mode, 0.1, 0.4) * &w).sum(Kind::Double),
                &x,
            );
        }
        gradcheck(
            |z| (sum_pool(&g, z) * Tensor::from_slice(&[1.0f64, -2.0, 0.5])).sum(Kind::Double),
            &x,
        );
    }

    /// AD-GCL's descent step feeds detached soft edge weights, which take the sparse
    /// product; its result and the gradient it passes back must be the bits of the
    /// gather · weight → index_add form that weights with a gradient take (a fused
    /// multiply-add would differ in the last bits). 45 columns exercise the kernel's 32-
    /// and 8-wide blocks and its scalar tail; ~10 in-edges per node make the order count.
    #[test]
    fn detached_edge_weights_give_the_gather_scatter_bits() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(11);
        let n = 30u32;
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % n as u64) as u32
        };
        let mut edges = Vec::new();
        while edges.len() < 150 {
            let (u, v) = (next(), next());
            if u != v {
                edges.push((u, v));
            }
        }
        let d = 45i64;
        let view = GraphView {
            num_nodes: n as usize,
            edges,
            x: vec![0.0; n as usize * d as usize],
        };
        let base = Batch::collate([&view], d as usize).to_tensors(Device::Cpu);
        let x = Tensor::randn([n as i64, d], (Kind::Float, Device::Cpu));
        let w = Tensor::rand([300], (Kind::Float, Device::Cpu));
        let up = Tensor::randn([n as i64, d], (Kind::Float, Device::Cpu));
        let run = |tracked: bool| {
            let mut g = base.with_x(x.shallow_clone());
            g.edge_weight = Some(w.detach().set_requires_grad(tracked));
            let xi = x.detach().set_requires_grad(true);
            let y = neighbour_sum(&g, &xi);
            (&y * &up).sum(Kind::Float).backward();
            (y.detach(), xi.grad())
        };
        let (y_sparse, gx_sparse) = run(false);
        let (y_scatter, gx_scatter) = run(true);
        assert!(y_sparse.equal(&y_scatter), "forward bits differ");
        assert!(gx_sparse.equal(&gx_scatter), "gradient bits differ");
        // and the weights did matter: the unweighted sum is another result
        let unweighted = neighbour_sum(&base.with_x(x.shallow_clone()), &x);
        assert!(!unweighted.allclose(&y_sparse, 1e-3, 1e-3, false));
    }
}
