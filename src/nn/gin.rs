//! GIN encoders whose layers follow a propagation schedule.
use tch::nn::{self, Module};
use tch::Tensor;

use super::mlp::{
    apply_batch_norm, batch_norm, gin_layer_fused, mlp_relu_batch_norm, BatchStats, Init, Mlp,
};
use super::ops::{filter_step, gin_aggregate, gin_propagate, sum_pool};
use crate::experiment::config::GinMode;
use crate::graph::GraphTensors;

/// Layer order and readout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GinStyle {
    /// GraphCL / SimGRACE: conv → ReLU → BN per layer; graph embedding = concat of the
    /// per-layer sum pools (`layers × hidden` dims).
    GraphCl,
    /// AD-GCL: conv → BN → ReLU (no ReLU after the last layer); graph embedding = sum pool
    /// of the last layer (`hidden` dims).
    AdGcl,
}

/// What a forward pass does with batch norm.
enum BnMode<'a> {
    Eval,
    /// Training mode, running estimates updated in place.
    Train,
    /// Training mode, batch statistics collected here instead.
    Defer(&'a mut Vec<BatchStats>),
}

impl BnMode<'_> {
    fn batch_norm(&mut self, bn: &nn::BatchNorm, z: &Tensor) -> Tensor {
        match self {
            BnMode::Eval => apply_batch_norm(bn, z, false),
            BnMode::Train => apply_batch_norm(bn, z, true),
            BnMode::Defer(stats) => {
                let (y, s) = BatchStats::batch_norm(bn, z);
                stats.push(s);
                y
            }
        }
    }
}

/// A stack of GIN layers (MLP = Linear → ReLU → Linear, width `hidden`).
#[derive(Debug)]
pub struct GinEncoder {
    pub convs: Vec<Mlp>,
    pub bns: Vec<nn::BatchNorm>,
    pub style: GinStyle,
    pub mode: GinMode,
    pub eps: f64,
    pub pi: f64,
    pub hidden: i64,
    /// Whether GraphCL-style training layers run as one fused autograd node where the
    /// kernel applies (on by default; the separate operations give the same numbers and
    /// are kept as the tests' reference).
    pub fuse_layers: bool,
}

/// What one forward pass returns.
pub struct GinOutput {
    /// Graph embeddings (`num_graphs × embedding_dim`).
    pub graph: Tensor,
    /// Node embeddings of the last layer (`num_nodes × hidden`).
    pub nodes: Tensor,
}

impl GinEncoder {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        p: &nn::Path,
        input: i64,
        hidden: i64,
        layers: usize,
        style: GinStyle,
        init: Init,
        mode: GinMode,
        pi: f64,
    ) -> GinEncoder {
        let mut convs = Vec::with_capacity(layers);
        let mut bns = Vec::with_capacity(layers);
        for i in 0..layers {
            let inp = if i == 0 { input } else { hidden };
            convs.push(Mlp::new(p / "convs" / i, inp, hidden, hidden, init));
            bns.push(batch_norm(p / "bns" / i, hidden));
        }
        GinEncoder {
            convs,
            bns,
            style,
            mode,
            eps: 0.0,
            pi,
            hidden,
            fuse_layers: true,
        }
    }

    pub fn layers(&self) -> usize {
        self.convs.len()
    }

    pub fn embedding_dim(&self) -> i64 {
        match self.style {
            GinStyle::GraphCl => self.hidden * self.layers() as i64,
            GinStyle::AdGcl => self.hidden,
        }
    }

    /// The plain encoder's schedule: one propagation per layer (standard GIN).
    pub fn plain_schedule(&self) -> Vec<usize> {
        vec![1; self.layers()]
    }

    /// Runs the encoder with `schedule[i]` propagations in layer i.
    pub fn forward(&self, g: &GraphTensors, schedule: &[usize], train: bool) -> GinOutput {
        let mode = if train { BnMode::Train } else { BnMode::Eval };
        self.run(g, schedule, mode)
    }

    /// A training-mode forward pass that leaves the batch-norm running estimates alone
    /// and returns each layer's batch statistics instead, for [`Self::fold_stats`] to apply
    /// later (what lets two views run their forward passes concurrently).
    pub fn forward_deferred(
        &self,
        g: &GraphTensors,
        schedule: &[usize],
    ) -> (GinOutput, Vec<BatchStats>) {
        let mut stats = Vec::with_capacity(self.layers());
        let out = self.run(g, schedule, BnMode::Defer(&mut stats));
        (out, stats)
    }

    /// Folds the statistics of a [`Self::forward_deferred`] pass into the running
    /// estimates, as a training-mode [`Self::forward`] would have.
    pub fn fold_stats(&self, stats: &[BatchStats]) {
        debug_assert_eq!(stats.len(), self.bns.len());
        for (s, bn) in stats.iter().zip(&self.bns) {
            s.fold_into(bn);
        }
    }

    /// One GraphCL-style layer in training mode through [`gin_layer_fused`]: the
    /// propagations of [`gin_propagate`] up to its last GIN aggregation run as before, and
    /// that aggregation, the MLP, batch norm and the pooling as one autograd node. Returns
    /// the layer's output and pooled rows, or — where the kernel does not apply — the
    /// propagated input for the separate operations (the same numbers either way).
    fn fused_layer(
        &self,
        g: &GraphTensors,
        h: &Tensor,
        k: usize,
        conv: &Mlp,
        bn: &nn::BatchNorm,
        mode: &mut BnMode<'_>,
    ) -> std::result::Result<(Tensor, Tensor), Tensor> {
        let mut z = h.shallow_clone();
        let aggregate = match self.mode {
            GinMode::GinFilter => {
                for _ in 1..k {
                    z = filter_step(g, &z, self.pi);
                }
                k > 0
            }
            GinMode::GinSum => {
                for _ in 1..k {
                    z = gin_aggregate(g, &z, self.eps);
                }
                k > 0
            }
            GinMode::Filter => {
                for _ in 0..k {
                    z = filter_step(g, &z, self.pi);
                }
                false
            }
        };
        let stats = match mode {
            BnMode::Defer(stats) => Some(&mut **stats),
            _ => None,
        };
        let agg = aggregate.then(|| (g.adjacency(), 1.0 + self.eps));
        match gin_layer_fused(conv, bn, &z, agg, g.pooling(), stats) {
            Some(out) => Ok(out),
            None if aggregate => Err(gin_aggregate(g, &z, self.eps)),
            None => Err(z),
        }
    }

    fn run(&self, g: &GraphTensors, schedule: &[usize], mut mode: BnMode<'_>) -> GinOutput {
        debug_assert_eq!(schedule.len(), self.layers());
        let mut h = g.x.shallow_clone();
        let mut pools = Vec::with_capacity(self.layers());
        let last = self.layers() - 1;
        // GraphCL-style training layers run as one autograd node each where the kernel
        // applies (CPU f32, unweighted edges): see `fused_layer`.
        let fuse = self.fuse_layers
            && self.style == GinStyle::GraphCl
            && g.edge_weight.is_none()
            && !matches!(mode, BnMode::Eval);
        for (i, (conv, bn)) in self.convs.iter().zip(&self.bns).enumerate() {
            let p = if fuse {
                match self.fused_layer(g, &h, schedule[i], conv, bn, &mut mode) {
                    Ok((y, pooled)) => {
                        h = y;
                        pools.push(pooled);
                        continue;
                    }
                    Err(p) => p,
                }
            } else {
                gin_propagate(g, &h, schedule[i], self.mode, self.eps, self.pi)
            };
            h = match (self.style, &mut mode) {
                (GinStyle::GraphCl, BnMode::Eval) => {
                    apply_batch_norm(bn, &conv.forward(&p).relu(), false)
                }
                (GinStyle::GraphCl, BnMode::Train) => mlp_relu_batch_norm(conv, bn, &p, None),
                (GinStyle::GraphCl, BnMode::Defer(stats)) => {
                    mlp_relu_batch_norm(conv, bn, &p, Some(stats))
                }
                (GinStyle::AdGcl, _) => {
                    let z = mode.batch_norm(bn, &conv.forward(&p));
                    if i < last {
                        z.relu()
                    } else {
                        z
                    }
                }
            };
            if self.style == GinStyle::GraphCl {
                pools.push(sum_pool(g, &h));
            }
        }
        let graph = match self.style {
            GinStyle::GraphCl => Tensor::cat(&pools, 1),
            GinStyle::AdGcl => sum_pool(g, &h),
        };
        GinOutput { graph, nodes: h }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Batch, GraphView};
    use tch::{Device, Kind};

    fn batch() -> GraphTensors {
        let a = GraphView {
            num_nodes: 3,
            edges: vec![(0, 1), (1, 2)],
            x: vec![1., 0., 0., 1., 1., 1.],
        };
        let b = GraphView {
            num_nodes: 2,
            edges: vec![(0, 1)],
            x: vec![0.5, 0.5, 1., 0.],
        };
        Batch::collate([&a, &b, &a, &b], 2).to_tensors(Device::Cpu)
    }

    #[test]
    fn shapes_for_both_styles() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(0);
        let vs = nn::VarStore::new(Device::Cpu);
        let g = batch();
        let enc = GinEncoder::new(
            &vs.root(),
            2,
            8,
            3,
            GinStyle::GraphCl,
            Init::XavierZeroBias,
            GinMode::GinFilter,
            0.5,
        );
        let out = enc.forward(&g, &[0, 1, 3], true);
        assert_eq!(out.graph.size(), vec![4, 24]);
        assert_eq!(out.nodes.size(), vec![10, 8]);
        let enc = GinEncoder::new(
            &(vs.root() / "ad"),
            2,
            8,
            5,
            GinStyle::AdGcl,
            Init::TorchDefault,
            GinMode::GinFilter,
            0.5,
        );
        let out = enc.forward(&g, &enc.plain_schedule(), false);
        assert_eq!(out.graph.size(), vec![4, 8]);
    }

    #[test]
    fn identical_graphs_get_identical_embeddings_in_eval_mode() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(1);
        let vs = nn::VarStore::new(Device::Cpu);
        let g = batch();
        let enc = GinEncoder::new(
            &vs.root(),
            2,
            8,
            3,
            GinStyle::GraphCl,
            Init::XavierZeroBias,
            GinMode::GinFilter,
            0.5,
        );
        let e = enc.forward(&g, &[1, 1, 1], false).graph;
        let diff = (e.get(0) - e.get(2)).abs().max().double_value(&[]);
        assert!(diff < 1e-6);
        let diff = (e.get(0) - e.get(1)).abs().max().double_value(&[]);
        assert!(diff > 1e-6);
    }

    #[test]
    fn gradients_reach_every_parameter() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(2);
        let vs = nn::VarStore::new(Device::Cpu);
        let g = batch();
        let enc = GinEncoder::new(
            &vs.root(),
            2,
            8,
            3,
            GinStyle::GraphCl,
            Init::XavierZeroBias,
            GinMode::GinSum,
            0.5,
        );
        let out = enc.forward(&g, &[2, 1, 1], true);
        (out.graph.square().sum(Kind::Float) + out.graph.sum(Kind::Float)).backward();
        for (name, v) in vs.variables() {
            if v.requires_grad() {
                let gn = v.grad().abs().sum(Kind::Float).double_value(&[]);
                assert!(gn > 0.0, "no gradient reached {name}");
            }
        }
    }

    /// 12 random graphs of 2–9 nodes with 5 features.
    fn random_batch(seed: u64) -> GraphTensors {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let views: Vec<GraphView> = (0..12)
            .map(|_| {
                let n = rng.gen_range(2..10);
                let mut edges = Vec::new();
                for u in 0..n {
                    for v in u + 1..n {
                        if rng.gen_bool(0.35) {
                            edges.push((u as u32, v as u32));
                        }
                    }
                }
                let x = (0..n * 5).map(|_| rng.gen_range(-1.0f32..1.0)).collect();
                GraphView {
                    num_nodes: n,
                    edges,
                    x,
                }
            })
            .collect();
        Batch::collate(&views, 5).to_tensors(Device::Cpu)
    }

    #[test]
    fn fused_layers_give_the_same_bits_as_the_separate_operations() {
        let _g = crate::rng::torch_lock();
        let g = random_batch(9);
        let cases: [(GinMode, [usize; 4], f64); 6] = [
            (GinMode::GinFilter, [1, 1, 1, 1], 0.0),
            (GinMode::GinFilter, [1, 1, 1, 1], 1.0),
            (GinMode::GinFilter, [0, 2, 3, 1], 0.3),
            (GinMode::GinSum, [2, 0, 1, 3], 0.0),
            (GinMode::GinSum, [1, 2, 1, 0], 0.3),
            (GinMode::Filter, [1, 2, 0, 1], 0.0),
        ];
        for (mode, schedule, eps) in cases {
            for deferred in [false, true] {
                for use_nodes in [false, true] {
                    tch::manual_seed(4);
                    let make = |vs: &nn::VarStore, fuse: bool| {
                        let mut e = GinEncoder::new(
                            &vs.root(),
                            5,
                            16,
                            4,
                            GinStyle::GraphCl,
                            Init::TorchDefault,
                            mode,
                            0.4,
                        );
                        e.eps = eps;
                        e.fuse_layers = fuse;
                        e
                    };
                    let vs1 = nn::VarStore::new(Device::Cpu);
                    let fused = make(&vs1, true);
                    let mut vs2 = nn::VarStore::new(Device::Cpu);
                    let plain = make(&vs2, false);
                    vs2.copy(&vs1).unwrap();
                    let weights = Tensor::randn([12, 64], (Kind::Float, Device::Cpu));
                    let node_weights =
                        Tensor::randn([g.num_nodes as i64, 16], (Kind::Float, Device::Cpu));
                    let run = |enc: &GinEncoder, vs: &nn::VarStore| {
                        let out = if deferred {
                            let (out, stats) = enc.forward_deferred(&g, &schedule);
                            enc.fold_stats(&stats);
                            out
                        } else {
                            enc.forward(&g, &schedule, true)
                        };
                        let mut loss = (&out.graph * &weights).sum(Kind::Float);
                        if use_nodes {
                            loss += (&out.nodes * &node_weights).sum(Kind::Float);
                        }
                        let params = vs.trainable_variables();
                        let grads = Tensor::run_backward(&[&loss], &params, false, false);
                        let mut state: Vec<Tensor> = vec![out.graph, out.nodes];
                        state.extend(grads);
                        let mut named = vs.variables().into_iter().collect::<Vec<_>>();
                        named.sort_by(|a, b| a.0.cmp(&b.0));
                        state.extend(named.into_iter().map(|(_, v)| v));
                        state
                    };
                    let a = run(&fused, &vs1);
                    let b = run(&plain, &vs2);
                    assert_eq!(a.len(), b.len());
                    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                        assert!(
                            x.equal(y),
                            "{mode:?} {schedule:?} eps {eps} deferred {deferred} nodes {use_nodes}: \
                             tensor {i} differs by {}",
                            (x - y).abs().max().double_value(&[])
                        );
                    }
                }
            }
        }
    }
}
