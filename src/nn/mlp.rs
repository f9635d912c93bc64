//! Linear layers with the references' initialisations, MLPs and the projection head.
use tch::nn::{self, Module, ModuleT};
use tch::{Device, Kind, Tensor};

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
const BN_EPS: f64 = 1e-5;

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
    if train && x.device() == Device::Cpu && x.kind() == Kind::Float && x.dim() == 2 {
        if let (Some(w), Some(b)) = (&bn.ws, &bn.bs) {
            if x.size()[0] > 1 {
                return crate::kernels::batch_norm_train(
                    x,
                    w,
                    b,
                    &bn.running_mean,
                    &bn.running_var,
                    BN_MOMENTUM,
                    BN_EPS,
                );
            }
        }
    }
    bn.forward_t(x, train)
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
    fn batch_norm_kernel_matches_libtorch() {
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
