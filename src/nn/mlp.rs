//! Linear layers with the references' initialisations, MLPs and the projection head.
use tch::nn::{self, Module, ModuleT};
use tch::{Device, Kind, Tensor};

use crate::kernels::{cpu_f32, cpu_f32_mut};

/// Weight initialisation of linear layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// Xavier-uniform weights, zero bias (GraphCL, SimGRACE, MA-GCL's GCN weights).
    XavierZeroBias,
    /// PyTorch's default: U(−1/√fan_in, 1/√fan_in) for weights and bias (AD-GCL).
    TorchDefault,
}

/// A linear layer `in → out` initialised as `init` says.
pub fn linear(p: nn::Path, input: i64, output: i64, init: Init) -> nn::Linear {
    let cfg = match init {
        Init::XavierZeroBias => {
            let b = (6.0 / (input + output) as f64).sqrt();
            nn::LinearConfig {
                ws_init: nn::Init::Uniform { lo: -b, up: b },
                bs_init: Some(nn::Init::Const(0.0)),
                bias: true,
            }
        }
        Init::TorchDefault => {
            let b = 1.0 / (input as f64).sqrt();
            nn::LinearConfig {
                ws_init: nn::Init::Uniform { lo: -b, up: b },
                bs_init: Some(nn::Init::Uniform { lo: -b, up: b }),
                bias: true,
            }
        }
    };
    nn::linear(p, input, output, cfg)
}

/// PyTorch's batch-norm defaults.
const BN_MOMENTUM: f64 = 0.1;
pub const BN_EPS: f64 = 1e-5;

/// Batch normalisation initialised as PyTorch does (weight 1, bias 0).
pub fn batch_norm(p: nn::Path, dim: i64) -> nn::BatchNorm {
    nn::batch_norm1d(
        p,
        dim,
        nn::BatchNormConfig {
            ws_init: nn::Init::Const(1.0),
            bs_init: nn::Init::Const(0.0),
            momentum: BN_MOMENTUM,
            eps: BN_EPS,
            ..Default::default()
        },
    )
}

/// Applies a [`batch_norm`] layer: in training mode on the CPU through the fused kernel
/// of `csrc/kernels.cpp` (same semantics, a fraction of libtorch's per-call cost at GIN
/// sizes), otherwise through libtorch.
pub fn apply_batch_norm(bn: &nn::BatchNorm, x: &Tensor, train: bool) -> Tensor {
    if train {
        train_batch_norm(bn, x, &bn.running_mean, &bn.running_var, BN_MOMENTUM)
    } else {
        bn.forward_t(x, false)
    }
}

/// Training-mode batch norm whose running statistics go to `running_mean`/`running_var`
/// with `momentum` (the layer's own buffers, or scratch buffers for [`BatchStats`]).
fn train_batch_norm(
    bn: &nn::BatchNorm,
    x: &Tensor,
    running_mean: &Tensor,
    running_var: &Tensor,
    momentum: f64,
) -> Tensor {
    if let (Some(w), Some(b)) = (&bn.ws, &bn.bs) {
        if x.device() == Device::Cpu && x.kind() == Kind::Float && x.dim() == 2 && x.size()[0] > 1 {
            return crate::kernels::batch_norm_train(
                x,
                w,
                b,
                running_mean,
                running_var,
                momentum,
                BN_EPS,
            );
        }
    }
    Tensor::batch_norm(
        x,
        bn.ws.as_ref(),
        bn.bs.as_ref(),
        Some(running_mean),
        Some(running_var),
        true,
        momentum,
        BN_EPS,
        true,
    )
}

/// One training batch's statistics (mean, unbiased variance) of a batch-norm layer, held
/// back instead of folded into the running estimates at once. Two views whose forward
/// passes run concurrently each collect theirs, and [`BatchStats::fold_into`] then applies
/// them in a fixed order, so the running estimates do not depend on thread timing.
pub struct BatchStats {
    mean: Tensor,
    var: Tensor,
}

impl BatchStats {
    /// Scratch buffers for `bn`'s statistics: a training-mode pass that updates them with
    /// momentum 1 leaves exactly the batch statistics in them.
    fn scratch(bn: &nn::BatchNorm) -> BatchStats {
        BatchStats {
            mean: bn.running_mean.zeros_like(),
            var: bn.running_var.zeros_like(),
        }
    }

    /// Statistics computed elsewhere (a batch mean and unbiased variance, one entry per
    /// channel).
    pub fn from_parts(mean: Tensor, var: Tensor) -> BatchStats {
        BatchStats { mean, var }
    }

    /// The batch mean and unbiased variance.
    #[cfg(test)]
    pub(crate) fn parts(&self) -> (&Tensor, &Tensor) {
        (&self.mean, &self.var)
    }

    /// Training-mode batch norm of `x` that leaves the layer's running estimates alone and
    /// returns this batch's statistics with the output.
    pub fn batch_norm(bn: &nn::BatchNorm, x: &Tensor) -> (Tensor, BatchStats) {
        let s = BatchStats::scratch(bn);
        let y = train_batch_norm(bn, x, &s.mean, &s.var, 1.0);
        (y, s)
    }

    /// Folds the statistics into `bn`'s running estimates, as a training-mode forward pass
    /// would have: `running = (1 − momentum)·running + momentum·batch`.
    pub fn fold_into(&self, bn: &nn::BatchNorm) {
        for (running, batch) in [(&bn.running_mean, &self.mean), (&bn.running_var, &self.var)] {
            if let (Some(r), Some(b)) = (cpu_f32_mut(running), cpu_f32(batch)) {
                if r.len() == b.len() {
                    // libtorch's `r.mul_(1 − m).add_(b * m)`: the scalars as f32, each
                    // product rounded (Rust does not fuse multiply-adds), the same bits
                    let (keep, take) = ((1.0 - BN_MOMENTUM) as f32, BN_MOMENTUM as f32);
                    for (r, &b) in r.iter_mut().zip(b) {
                        *r = *r * keep + b * take;
                    }
                    continue;
                }
            }
            tch::no_grad(|| {
                let mut r = running.shallow_clone();
                let _ = r.g_mul_scalar_(1.0 - BN_MOMENTUM);
                let _ = r.g_add_(&(batch * BN_MOMENTUM));
            });
        }
    }
}

/// `BN(ReLU(mlp(x)))` in training mode, GraphCL's GIN layer after its propagation. With
/// `stats` the running estimates are left alone and this batch's statistics are pushed
/// there (see [`BatchStats`]). On the CPU this is one fused autograd node
/// ([`crate::kernels::gin_mlp_bn`]); the same operations otherwise.
pub fn mlp_relu_batch_norm(
    mlp: &Mlp,
    bn: &nn::BatchNorm,
    x: &Tensor,
    stats: Option<&mut Vec<BatchStats>>,
) -> Tensor {
    let scratch = stats.is_some().then(|| BatchStats::scratch(bn));
    let (running_mean, running_var, momentum) = match &scratch {
        Some(s) => (&s.mean, &s.var, 1.0),
        None => (&bn.running_mean, &bn.running_var, BN_MOMENTUM),
    };
    let fused = x.device() == Device::Cpu && x.kind() == Kind::Float && x.dim() == 2;
    let y = match (&mlp.l1.bs, &mlp.l2.bs, &bn.ws, &bn.bs) {
        (Some(b1), Some(b2), Some(gamma), Some(beta)) if fused && x.size()[0] > 1 => {
            let p = crate::kernels::GinMlpBnParams {
                layer: crate::kernels::LayerParams {
                    w1: &mlp.l1.ws,
                    b1,
                    w2: &mlp.l2.ws,
                    b2,
                    gamma,
                    beta,
                },
                running_mean,
                running_var,
            };
            crate::kernels::gin_mlp_bn(x, &p, momentum, BN_EPS)
        }
        _ => train_batch_norm(
            bn,
            &mlp.forward(x).relu(),
            running_mean,
            running_var,
            momentum,
        ),
    };
    if let (Some(stats), Some(s)) = (stats, scratch) {
        stats.push(s);
    }
    y
}

/// Linear → ReLU → Linear.
#[derive(Debug)]
pub struct Mlp {
    pub l1: nn::Linear,
    pub l2: nn::Linear,
}

impl Mlp {
    pub fn new(p: nn::Path, input: i64, hidden: i64, output: i64, init: Init) -> Mlp {
        Mlp {
            l1: linear(&p / "0", input, hidden, init),
            l2: linear(&p / "2", hidden, output, init),
        }
    }
}

impl Module for Mlp {
    fn forward(&self, x: &Tensor) -> Tensor {
        self.l2.forward(&self.l1.forward(x).relu())
    }
}

/// The projection head used by the contrastive loss (Linear → ReLU → Linear).
pub type Projector = Mlp;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_statistics_is_libtorchs_update_bit_for_bit() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(12);
        let vs = nn::VarStore::new(Device::Cpu);
        let bn = batch_norm(vs.root() / "bn", 7);
        let opts = (Kind::Float, Device::Cpu);
        tch::no_grad(|| {
            let mut m = bn.running_mean.shallow_clone();
            m.copy_(&Tensor::randn([7], opts));
            let mut v = bn.running_var.shallow_clone();
            v.copy_(&Tensor::rand([7], opts));
        });
        let stats = BatchStats::from_parts(Tensor::randn([7], opts), Tensor::rand([7], opts));
        let want: Vec<Tensor> = [
            (&bn.running_mean, &stats.mean),
            (&bn.running_var, &stats.var),
        ]
        .iter()
        .map(|(r, b)| r.copy() * (1.0 - BN_MOMENTUM) + *b * BN_MOMENTUM)
        .collect();
        stats.fold_into(&bn);
        assert!(bn.running_mean.equal(&want[0]));
        assert!(bn.running_var.equal(&want[1]));
    }

    #[test]
    fn fused_gin_layer_matches_its_operations() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(11);
        let make = || {
            let vs = nn::VarStore::new(Device::Cpu);
            let m = Mlp::new(vs.root() / "m", 5, 8, 8, Init::TorchDefault);
            let bn = batch_norm(vs.root() / "bn", 8);
            (vs, m, bn)
        };
        let (vs1, m1, bn1) = make();
        let (mut vs2, m2, bn2) = make();
        tch::no_grad(|| {
            let opts = (Kind::Float, Device::Cpu);
            let mut w = bn1.ws.as_ref().unwrap().shallow_clone();
            w.copy_(&(Tensor::randn([8], opts) * 0.5 + 1.0));
            let mut b = bn1.bs.as_ref().unwrap().shallow_clone();
            b.copy_(&Tensor::randn([8], opts));
        });
        vs2.copy(&vs1).unwrap();
        let up = Tensor::randn([40, 8], (Kind::Float, Device::Cpu));
        for step in 0..2 {
            let x = Tensor::randn([40, 5], (Kind::Float, Device::Cpu)).set_requires_grad(true);
            let x2 = x.detach().copy().set_requires_grad(true);
            let fused = mlp_relu_batch_norm(&m1, &bn1, &x, None);
            let plain = train_batch_norm(
                &bn2,
                &m2.forward(&x2).relu(),
                &bn2.running_mean,
                &bn2.running_var,
                BN_MOMENTUM,
            );
            assert!(
                fused.allclose(&plain, 1e-5, 1e-5, false),
                "output, step {step}"
            );
            (&fused * &up).sum(Kind::Float).backward();
            (&plain * &up).sum(Kind::Float).backward();
            assert!(x.grad().allclose(&x2.grad(), 1e-4, 1e-5, false), "dx");
            let v2 = vs2.variables();
            for (name, v) in vs1.variables() {
                let w = &v2[&name];
                if v.requires_grad() {
                    assert!(
                        v.grad().allclose(&w.grad(), 1e-4, 1e-5, false),
                        "gradient of {name}, step {step}"
                    );
                } else {
                    assert!(v.allclose(w, 1e-6, 1e-7, false), "buffer {name}");
                }
            }
        }
        // the first layer's input needs no gradient: none is computed, the rest still flow
        let x = Tensor::randn([40, 5], (Kind::Float, Device::Cpu));
        let y = mlp_relu_batch_norm(&m1, &bn1, &x, None);
        (&y * &up).sum(Kind::Float).backward();
        let _ = mlp_relu_batch_norm(&m2, &bn2, &x, None);

        // deferred statistics: the running estimates stay put until folded in, and then
        // equal the in-place update
        let x = Tensor::randn([30, 5], (Kind::Float, Device::Cpu));
        let before = bn1.running_var.copy();
        let mut stats = Vec::new();
        let deferred = mlp_relu_batch_norm(&m1, &bn1, &x, Some(&mut stats));
        assert!(bn1.running_var.equal(&before));
        let at_once = mlp_relu_batch_norm(&m2, &bn2, &x, None);
        assert!(deferred.allclose(&at_once, 1e-6, 1e-6, false));
        assert_eq!(stats.len(), 1);
        stats[0].fold_into(&bn1);
        assert!(bn1
            .running_mean
            .allclose(&bn2.running_mean, 1e-6, 1e-6, false));
        assert!(bn1
            .running_var
            .allclose(&bn2.running_var, 1e-6, 1e-6, false));
    }

    #[test]
    fn batch_norm_kernel_matches_libtorch() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        tch::manual_seed(7);
        let vs = nn::VarStore::new(Device::Cpu);
        let ours = batch_norm(vs.root() / "a", 7);
        let theirs = batch_norm(vs.root() / "b", 7);
        for bn in [&ours, &theirs] {
            tch::no_grad(|| {
                bn.ws
                    .as_ref()
                    .unwrap()
                    .shallow_clone()
                    .copy_(&Tensor::from_slice(&[
                        1.0f32, 0.5, 2.0, -1.0, 1.5, 0.3, 1.0,
                    ]));
                bn.bs
                    .as_ref()
                    .unwrap()
                    .shallow_clone()
                    .copy_(&Tensor::from_slice(&[
                        0.0f32, 0.1, -0.2, 0.3, 0.0, 1.0, -1.0,
                    ]));
            });
        }
        let w = Tensor::randn([50, 7], (Kind::Float, Device::Cpu));
        for step in 0..3 {
            let x = (Tensor::randn([50, 7], (Kind::Float, Device::Cpu)) * (step + 1) as f64 + 3.0)
                .set_requires_grad(true);
            let x2 = x.detach().copy().set_requires_grad(true);
            let y1 = apply_batch_norm(&ours, &x, true);
            let y2 = theirs.forward_t(&x2, true);
            assert!(y1.allclose(&y2, 1e-4, 1e-5, false), "output, step {step}");
            (&y1 * &w).sum(Kind::Float).backward();
            (&y2 * &w).sum(Kind::Float).backward();
            assert!(
                x.grad().allclose(&x2.grad(), 1e-4, 1e-5, false),
                "dx, step {step}"
            );
            assert!(ours
                .running_mean
                .allclose(&theirs.running_mean, 1e-5, 1e-6, false));
            assert!(ours
                .running_var
                .allclose(&theirs.running_var, 1e-5, 1e-6, false));
        }
        for (a, b) in [(&ours.ws, &theirs.ws), (&ours.bs, &theirs.bs)] {
            let (a, b) = (a.as_ref().unwrap().grad(), b.as_ref().unwrap().grad());
            assert!(a.allclose(&b, 1e-4, 1e-4, false), "{a:?} vs {b:?}");
        }
        // evaluation mode uses the (identical) running statistics
        let x = Tensor::randn([9, 7], (Kind::Float, Device::Cpu));
        let e1 = apply_batch_norm(&ours, &x, false);
        let e2 = theirs.forward_t(&x, false);
        assert!(e1.allclose(&e2, 1e-5, 1e-6, false));
    }
}
