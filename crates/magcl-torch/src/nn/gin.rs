//! GIN encoders whose layers follow a propagation schedule.
use tch::nn::{self, Module};
use tch::Tensor;

use super::mlp::{apply_batch_norm, batch_norm, mlp_relu_batch_norm, Init, Mlp};
use super::ops::{gin_propagate, sum_pool};
use crate::graph::GraphTensors;
use crate::nn::{GinMode, GinParams};
use crate::params::Checked;

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
}

/// What one forward pass returns.
pub struct GinOutput {
    /// Graph embeddings (`num_graphs × embedding_dim`).
    pub graph: Tensor,
    /// Node embeddings of the last layer (`num_nodes × hidden`).
    pub nodes: Tensor,
    /// Node embeddings of every layer, first to last (InfoGraph's local features are
    /// their concatenation; the last is `nodes`).
    pub layers: Vec<Tensor>,
}

impl GinEncoder {
    /// A GIN encoder on `input` features with the width, depth, ε, MA mode and π of
    /// `gin`, its variables under `p`.
    pub fn new(
        p: &nn::Path,
        input: i64,
        gin: &Checked<GinParams>,
        style: GinStyle,
        init: Init,
    ) -> GinEncoder {
        let (hidden, layers) = (gin.hidden as i64, gin.layers);
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
            mode: gin.mode,
            eps: gin.eps,
            pi: gin.pi,
            hidden,
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

    /// Runs the encoder with `schedule[i]` propagations in layer i, batch norm in training
    /// mode (running estimates updated in place) when `train`.
    pub fn forward(&self, g: &GraphTensors, schedule: &[usize], train: bool) -> GinOutput {
        debug_assert_eq!(schedule.len(), self.layers());
        let mut h = g.x.shallow_clone();
        let mut pools = Vec::with_capacity(self.layers());
        let mut layers = Vec::with_capacity(self.layers());
        let last = self.layers() - 1;
        for (i, (conv, bn)) in self.convs.iter().zip(&self.bns).enumerate() {
            let p = gin_propagate(g, &h, schedule[i], self.mode, self.eps, self.pi);
            h = match self.style {
                GinStyle::GraphCl if train => mlp_relu_batch_norm(conv, bn, &p),
                GinStyle::GraphCl => apply_batch_norm(bn, &conv.forward(&p).relu(), false),
                GinStyle::AdGcl => {
                    let z = apply_batch_norm(bn, &conv.forward(&p), train);
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
            layers.push(h.shallow_clone());
        }
        let graph = match self.style {
            GinStyle::GraphCl => Tensor::cat(&pools, 1),
            GinStyle::AdGcl => sum_pool(g, &h),
        };
        GinOutput {
            graph,
            nodes: h,
            layers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Batch, GraphView};
    use crate::params::ParamGuard;
    use tch::{Device, Kind};

    /// Width 8, π = 0.5, ε = 0.
    fn test_params(layers: usize, mode: GinMode) -> Checked<GinParams> {
        GinParams {
            hidden: 8,
            layers,
            eps: 0.0,
            mode,
            pi: 0.5,
        }
        .check()
        .unwrap()
    }

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
            &test_params(3, GinMode::GinFilter),
            GinStyle::GraphCl,
            Init::XavierZeroBias,
        );
        let out = enc.forward(&g, &[0, 1, 3], true);
        assert_eq!(out.graph.size(), vec![4, 24]);
        assert_eq!(out.nodes.size(), vec![10, 8]);
        let enc = GinEncoder::new(
            &(vs.root() / "ad"),
            2,
            &test_params(5, GinMode::GinFilter),
            GinStyle::AdGcl,
            Init::TorchDefault,
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
            &test_params(3, GinMode::GinFilter),
            GinStyle::GraphCl,
            Init::XavierZeroBias,
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
            &test_params(3, GinMode::GinSum),
            GinStyle::GraphCl,
            Init::XavierZeroBias,
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
}
