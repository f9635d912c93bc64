//! The node-level encoder: two graph-convolution layers whose propagation counts follow a
//! schedule. Its [`GcnShape`] says the layer widths and where the activation goes: the
//! MA-GCL base model (`hidden → hidden`, activation after the first layer only), GRACE's
//! and GCA's (`2·hidden → hidden`, activation after both layers, one shared activation) or
//! BGRL's (`2·hidden → hidden`, each layer followed by batch norm and its own activation).
//!
//! One layer with K propagations, weights W (Glorot) and bias b:
//! - preset `code` (the released code): `H = X W`; K = 0 → `H = Â H + b` (one plain GCN
//!   hop); K ≥ 1 → K times `H = (1 − π) H + π (Â H + b)` (the bias re-added each step);
//! - preset `paper`: `H = F^K (X W) + b` with `F = (1 − π) I + π Â`.
//!
//! `Â = D̃^-1/2 (A + I) D̃^-1/2` is built from the view's (directed) edges.
use tch::nn::{self, ModuleT};
use tch::Tensor;

use super::mlp::{linear, Init};
use super::ops::{filter_step, normalized_adjacency};
use crate::graph::{GraphTensors, SparseMatrix};

/// Which reading of a propagation step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagation {
    Code,
    Paper,
}

crate::params::word_setting! {
    /// The activation a node-level encoder applies (`node.activation`).
    pub enum ActivationKind in "node.activation" {
        Relu = "relu",
        /// One learnable slope.
        Prelu = "prelu",
        /// Random slopes (the released code: fixed outside training; see [`Activation`]).
        Rrelu = "rrelu",
    }
}

/// The activation after the first layer.
#[derive(Debug)]
pub enum Activation {
    Relu,
    /// One learnable slope (initialised to 0.25).
    Prelu(Tensor),
    /// The reference's functional rrelu outside training mode: a leaky ReLU with the fixed
    /// slope (1/8 + 1/3) / 2.
    RreluFixed,
    /// RReLU: random slopes in U(1/8, 1/3) while training, their mean at evaluation.
    Rrelu,
}

impl Activation {
    pub fn new(p: &nn::Path, kind: ActivationKind, propagation: Propagation) -> Activation {
        match (kind, propagation) {
            (ActivationKind::Prelu, _) => {
                Activation::Prelu(p.var("prelu", &[1], nn::Init::Const(0.25)))
            }
            (ActivationKind::Rrelu, Propagation::Code) => Activation::RreluFixed,
            (ActivationKind::Rrelu, Propagation::Paper) => Activation::Rrelu,
            (ActivationKind::Relu, _) => Activation::Relu,
        }
    }

    pub fn apply(&self, x: &Tensor, train: bool) -> Tensor {
        match self {
            Activation::Relu => x.relu(),
            Activation::Prelu(w) => x.prelu(w),
            Activation::RreluFixed => x.leaky_relu_with_slope((1.0 / 8.0 + 1.0 / 3.0) / 2.0),
            Activation::Rrelu => rrelu(x, train),
        }
    }
}

/// RReLU's slope bounds (`torch.nn.RReLU`'s defaults).
const RRELU_LOWER: f64 = 1.0 / 8.0;
const RRELU_UPPER: f64 = 1.0 / 3.0;

/// RReLU: while training, each negative entry is scaled by its own slope drawn from
/// U(1/8, 1/3) (libtorch's global generator, as libtorch's rrelu draws it); at evaluation
/// by their mean. Written out because tch's `Tensor::rrelu(training)` passes `training` to
/// libtorch's `lower` bound (a bool read as the scalar 0 or 1): training then fails with
/// lower 1 > upper 1/3, and evaluation uses the slope 1/6.
fn rrelu(x: &Tensor, train: bool) -> Tensor {
    if !train {
        return x.leaky_relu_with_slope((RRELU_LOWER + RRELU_UPPER) / 2.0);
    }
    let mut slope = x.empty_like();
    let _ = slope.uniform_(RRELU_LOWER, RRELU_UPPER);
    x.relu() - (-x).relu() * slope
}

trait LeakyExt {
    fn leaky_relu_with_slope(&self, slope: f64) -> Tensor;
}

impl LeakyExt for Tensor {
    fn leaky_relu_with_slope(&self, slope: f64) -> Tensor {
        self.maximum(&(self * slope))
    }
}

/// One graph-convolution layer.
#[derive(Debug)]
pub struct GcnLayer {
    pub weight: Tensor,
    pub bias: Tensor,
}

impl GcnLayer {
    pub fn new(p: &nn::Path, input: i64, output: i64) -> GcnLayer {
        let a = (6.0 / (input + output) as f64).sqrt();
        GcnLayer {
            weight: p.var(
                "weight",
                &[input, output],
                nn::Init::Uniform { lo: -a, up: a },
            ),
            bias: p.var("bias", &[output], nn::Init::Const(0.0)),
        }
    }

    /// Propagates `h` (= X W already computed) `k` times and adds the bias.
    pub fn propagate(
        &self,
        g: &GraphTensors,
        h: Tensor,
        k: usize,
        prop: Propagation,
        pi: f64,
    ) -> Tensor {
        match prop {
            Propagation::Code => {
                if k == 0 {
                    return normalized_adjacency(g, &h) + &self.bias;
                }
                // (1 − π) h + π (Â h + b) = F h + π b
                let pb = &self.bias * pi;
                let mut h = h;
                for _ in 0..k {
                    h = filter_step(g, &h, pi) + &pb;
                }
                h
            }
            Propagation::Paper => {
                let mut h = h;
                for _ in 0..k {
                    h = filter_step(g, &h, pi);
                }
                h + &self.bias
            }
        }
    }
}

/// Sparse node features (`N × F`, CSR) on the device. On the CPU `X · W` is a weighted
/// embedding bag (each row a bag of its non-zero columns), which never densifies X; on
/// CUDA it is a sparse product with X and Xᵀ prepared once (libtorch's embedding-bag
/// backward reads a count back from the device, which stalls the step).
pub struct Features {
    pub rows: usize,
    pub cols: usize,
    repr: FeatureRepr,
}

/// How `X · W` is computed on the features' device.
enum FeatureRepr {
    /// CPU: the CSR arrays as an embedding bag's indices, per-sample weights and offsets.
    Bag {
        indices: Tensor,
        values: Tensor,
        offsets: Tensor,
    },
    /// CUDA: X (with Xᵀ for the backward pass) as a sparse matrix.
    Matrix(SparseMatrix),
}

impl Features {
    /// From CSR parts (`indptr` has `rows + 1` entries).
    pub fn from_csr(
        rows: usize,
        cols: usize,
        indptr: &[usize],
        indices: &[u32],
        data: &[f32],
        device: tch::Device,
    ) -> Features {
        let idx: Vec<i64> = indices.iter().map(|&v| v as i64).collect();
        let indices = Tensor::from_slice(&idx).to_device(device);
        let values = Tensor::from_slice(data).to_device(device);
        let repr = if device.is_cuda() {
            let row_of: Vec<i64> = (0..rows)
                .flat_map(|r| std::iter::repeat_n(r as i64, indptr[r + 1] - indptr[r]))
                .collect();
            FeatureRepr::Matrix(SparseMatrix::from_triplets(
                &Tensor::from_slice(&row_of).to_device(device),
                &indices,
                &values,
                rows as i64,
                cols as i64,
            ))
        } else {
            let off: Vec<i64> = indptr.iter().map(|&v| v as i64).collect();
            FeatureRepr::Bag {
                indices,
                values,
                offsets: Tensor::from_slice(&off).to_device(device),
            }
        };
        Features { rows, cols, repr }
    }

    /// `X · diag(mask) · W` — a feature-column mask applied to the weight rows, so the
    /// feature matrix is never copied.
    pub fn masked_matmul(&self, weight: &Tensor, column_mask: Option<&Tensor>) -> Tensor {
        let w = match column_mask {
            Some(m) => weight * m.unsqueeze(1),
            None => weight.shallow_clone(),
        };
        match &self.repr {
            FeatureRepr::Matrix(x) => x.mm(&w),
            FeatureRepr::Bag {
                indices,
                values,
                offsets,
            } => {
                let (out, _, _, _) = Tensor::embedding_bag(
                    &w,
                    indices,
                    offsets,
                    false,
                    0,
                    false,
                    Some(values),
                    true,
                );
                out
            }
        }
    }
}

/// The momentum of the node-level encoder's batch norm (BGRL's, in PyTorch's convention:
/// the running statistics are 99% the last batch's).
pub const GCN_BN_MOMENTUM: f64 = 0.99;

/// The widths of the two layers, whether the activation follows the second one too,
/// whether each layer has its own activation and whether batch norm sits between a layer
/// and its activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GcnShape {
    /// Output width of the first layer (the second layer's is the embedding width).
    pub first_width: i64,
    pub activate_last: bool,
    /// One activation module per layer (a PReLU slope each) instead of one shared.
    pub activation_per_layer: bool,
    /// Batch norm after each layer (PyTorch's momentum 0.99: the running statistics are
    /// 99% the last batch's; ε 1e-5), before the activation.
    pub batch_norm: bool,
}

impl GcnShape {
    /// The MA-GCL base model: `hidden → hidden`, activation after the first layer.
    pub fn base(hidden: i64) -> GcnShape {
        GcnShape {
            first_width: hidden,
            activate_last: false,
            activation_per_layer: false,
            batch_norm: false,
        }
    }
    /// GRACE's and GCA's encoder (`Encoder` with `k = 2` in their code): the first layer
    /// `2·hidden` wide, the activation after every layer.
    pub fn grace(hidden: i64) -> GcnShape {
        GcnShape {
            first_width: 2 * hidden,
            activate_last: true,
            activation_per_layer: false,
            batch_norm: false,
        }
    }
    /// BGRL's encoder (`GCN` in its code with two layers, `2·hidden` then `hidden` as in
    /// every shipped configuration): each layer `GCNConv → BatchNorm → PReLU`, a slope per
    /// layer.
    pub fn bgrl(hidden: i64) -> GcnShape {
        GcnShape {
            first_width: 2 * hidden,
            activate_last: true,
            activation_per_layer: true,
            batch_norm: true,
        }
    }
}

/// Two layers; one activation module (a PReLU's slope is shared by both layers where the
/// shape activates both, as in GRACE's code) or one per layer (BGRL), optionally batch
/// norm per layer.
pub struct GcnEncoder {
    pub layers: Vec<GcnLayer>,
    /// One (shared) or one per layer.
    pub activations: Vec<Activation>,
    pub norms: Vec<nn::BatchNorm>,
    pub activate_last: bool,
    pub propagation: Propagation,
    pub pi: f64,
}

impl GcnEncoder {
    pub fn new(
        p: &nn::Path,
        input: i64,
        hidden: i64,
        shape: GcnShape,
        activation: ActivationKind,
        propagation: Propagation,
        pi: f64,
    ) -> GcnEncoder {
        let mut activations = vec![Activation::new(p, activation, propagation)];
        if shape.activation_per_layer {
            activations.push(Activation::new(&(p / "act1"), activation, propagation));
        }
        let norms = if shape.batch_norm {
            let cfg = nn::BatchNormConfig {
                momentum: GCN_BN_MOMENTUM,
                eps: 1e-5,
                ..Default::default()
            };
            vec![
                nn::batch_norm1d(p / "bn0", shape.first_width, cfg),
                nn::batch_norm1d(p / "bn1", hidden, cfg),
            ]
        } else {
            Vec::new()
        };
        GcnEncoder {
            layers: vec![
                GcnLayer::new(&(p / "conv0"), input, shape.first_width),
                GcnLayer::new(&(p / "conv1"), shape.first_width, hidden),
            ],
            activations,
            norms,
            activate_last: shape.activate_last,
            propagation,
            pi,
        }
    }

    /// Node embeddings of the view (`g`'s edges, `column_mask` over features) with
    /// `schedule[i]` propagations in layer i.
    pub fn forward(
        &self,
        x: &Features,
        column_mask: Option<&Tensor>,
        g: &GraphTensors,
        schedule: &[usize],
        train: bool,
    ) -> Tensor {
        let l0 = &self.layers[0];
        let h = x.masked_matmul(&l0.weight, column_mask);
        let h = l0.propagate(g, h, schedule[0], self.propagation, self.pi);
        let h = self.activate(0, h, train);
        let l1 = &self.layers[1];
        let h = l1.propagate(
            g,
            h.matmul(&l1.weight),
            schedule[1],
            self.propagation,
            self.pi,
        );
        if self.activate_last {
            self.activate(1, h, train)
        } else {
            self.normalise(1, h, train)
        }
    }

    /// Layer `i`'s batch norm (where the shape has one).
    fn normalise(&self, i: usize, h: Tensor, train: bool) -> Tensor {
        match self.norms.get(i) {
            Some(bn) => bn.forward_t(&h, train),
            None => h,
        }
    }

    /// Layer `i`'s batch norm and activation.
    fn activate(&self, i: usize, h: Tensor, train: bool) -> Tensor {
        let h = self.normalise(i, h, train);
        self.activations[i.min(self.activations.len() - 1)].apply(&h, train)
    }
}

/// The node-level projection head (Linear → ELU → Linear), used by preset `paper`.
pub struct NodeProjector {
    pub fc1: nn::Linear,
    pub fc2: nn::Linear,
}

impl NodeProjector {
    pub fn new(p: &nn::Path, hidden: i64, proj_hidden: i64, init: Init) -> NodeProjector {
        NodeProjector {
            fc1: linear(p / "fc1", hidden, proj_hidden, init),
            fc2: linear(p / "fc2", proj_hidden, hidden, init),
        }
    }

    pub fn forward(&self, z: &Tensor) -> Tensor {
        use tch::nn::Module;
        self.fc2.forward(&self.fc1.forward(z).elu())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Batch, GraphView};
    use tch::{Device, Kind};

    /// The 4-node graph 0-1, 1-2, 2-0, 2-3.
    fn toy() -> GraphTensors {
        let v = GraphView {
            num_nodes: 4,
            edges: vec![(0, 1), (1, 2), (0, 2), (2, 3)],
            x: vec![0.0; 4],
        };
        Batch::collate([&v], 1).to_tensors(Device::Cpu)
    }

    /// Â of the toy graph, by hand: d̃ = [3, 3, 4, 2].
    fn a_hat() -> Vec<Vec<f64>> {
        let d = [3f64, 3., 4., 2.];
        let adj = [[1, 1, 1, 0], [1, 1, 1, 0], [1, 1, 1, 1], [0, 0, 1, 1]];
        (0..4)
            .map(|i| {
                (0..4)
                    .map(|j| adj[i][j] as f64 / (d[i] * d[j]).sqrt())
                    .collect()
            })
            .collect()
    }

    fn matvec(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
        m.iter()
            .map(|r| r.iter().zip(v).map(|(a, b)| a * b).sum())
            .collect()
    }

    fn layer(bias: f64) -> GcnLayer {
        GcnLayer {
            weight: Tensor::ones([1, 1], (Kind::Double, Device::Cpu)),
            bias: Tensor::from_slice(&[bias]),
        }
    }

    fn run(k: usize, prop: Propagation, bias: f64, h: &[f64]) -> Vec<f64> {
        let h = Tensor::from_slice(h).view([4, 1]);
        Vec::<f64>::try_from(
            layer(bias)
                .propagate(&toy(), h, k, prop, 0.5)
                .flatten(0, -1),
        )
        .unwrap()
    }

    #[test]
    fn code_preset_k0_is_one_gcn_hop_with_bias() {
        let h = [1.0, 2.0, 3.0, 4.0];
        let want: Vec<f64> = matvec(&a_hat(), &h).iter().map(|v| v + 0.7).collect();
        let got = run(0, Propagation::Code, 0.7, &h);
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-6, "{got:?} {want:?}");
        }
    }

    #[test]
    fn code_preset_re_adds_the_bias_each_step() {
        let h0 = [1.0, -2.0, 0.5, 4.0];
        let mut h = h0.to_vec();
        for _ in 0..3 {
            let ah = matvec(&a_hat(), &h);
            h = h
                .iter()
                .zip(&ah)
                .map(|(x, a)| 0.5 * x + 0.5 * (a + 0.3))
                .collect();
        }
        let got = run(3, Propagation::Code, 0.3, &h0);
        for (a, b) in got.iter().zip(&h) {
            assert!((a - b).abs() < 1e-6);
        }
    }

    #[test]
    fn paper_preset_is_f_to_the_k_plus_bias_once() {
        let h0 = [1.0, -2.0, 0.5, 4.0];
        let mut h = h0.to_vec();
        for _ in 0..2 {
            let ah = matvec(&a_hat(), &h);
            h = h.iter().zip(&ah).map(|(x, a)| 0.5 * x + 0.5 * a).collect();
        }
        let got = run(2, Propagation::Paper, 0.3, &h0);
        for (a, b) in got.iter().zip(&h) {
            assert!((a - (b + 0.3)).abs() < 1e-6);
        }
        // K = 0 under the paper's reading is no propagation at all
        let got = run(0, Propagation::Paper, 0.0, &h0);
        assert_eq!(got, h0.to_vec());
    }

    #[test]
    fn sparse_features_and_masks() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let f = Features::from_csr(2, 3, &[0, 2, 3], &[0, 2, 1], &[1.0, 2.0, 3.0], Device::Cpu);
        let w = Tensor::from_slice(&[1.0f32, 10.0, 100.0]).view([3, 1]);
        let full: Vec<f32> = Vec::try_from(f.masked_matmul(&w, None).flatten(0, -1)).unwrap();
        assert_eq!(full, vec![201.0, 30.0]);
        let m = Tensor::from_slice(&[1.0f32, 1.0, 0.0]);
        let masked: Vec<f32> = Vec::try_from(f.masked_matmul(&w, Some(&m)).flatten(0, -1)).unwrap();
        assert_eq!(masked, vec![1.0, 30.0]);
    }

    #[test]
    fn activations() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        let x = Tensor::from_slice(&[-1.0f32, 2.0]);
        let vs = nn::VarStore::new(Device::Cpu);
        let fixed: Vec<f32> = Vec::try_from(
            Activation::new(&vs.root(), ActivationKind::Rrelu, Propagation::Code).apply(&x, true),
        )
        .unwrap();
        assert!((fixed[0] + 0.2291667).abs() < 1e-6 && fixed[1] == 2.0);
        let p: Vec<f32> = Vec::try_from(
            Activation::new(&vs.root(), ActivationKind::Prelu, Propagation::Code).apply(&x, true),
        )
        .unwrap();
        assert_eq!(p, vec![-0.25, 2.0]);
    }

    /// The paper preset's RReLU: negative entries scaled by slopes in [1/8, 1/3] while
    /// training (not all the same), positive ones kept; the mean slope 11/48 at evaluation.
    #[test]
    fn rrelu_draws_slopes_in_its_bounds_and_uses_their_mean_at_evaluation() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(5);
        let vs = nn::VarStore::new(Device::Cpu);
        let act = Activation::new(&vs.root(), ActivationKind::Rrelu, Propagation::Paper);
        let mut xs = vec![-1.0f64; 200];
        xs.extend([2.0, 0.5]);
        let x = Tensor::from_slice(&xs);
        let y: Vec<f64> = Vec::try_from(act.apply(&x, true)).unwrap();
        let neg = &y[..200];
        assert!(
            neg.iter().all(|&v| (-1.0 / 3.0..=-1.0 / 8.0).contains(&v)),
            "{neg:?}"
        );
        assert!(
            neg.iter().any(|&v| (v - neg[0]).abs() > 1e-3),
            "one slope for all"
        );
        assert_eq!(&y[200..], &[2.0, 0.5]);
        let e: Vec<f64> = Vec::try_from(act.apply(&x, false)).unwrap();
        assert!(
            (e[0] + 11.0 / 48.0).abs() < 1e-12 && e[200] == 2.0,
            "{:?}",
            &e[..1]
        );
    }
}
