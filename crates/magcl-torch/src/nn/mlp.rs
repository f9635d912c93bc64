//! Linear layers with the references' initialisations, MLPs and the projection head.
use tch::nn::{self, Module, ModuleT};
use tch::Tensor;

/// Weight initialisation of linear layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    /// Xavier-uniform weights, zero bias (GraphCL, SimGRACE, MA-GCL's GCN weights).
    XavierZeroBias,
    /// PyTorch's default: U(−1/√fan_in, 1/√fan_in) for weights and bias (AD-GCL, GRACE's
    /// and GCA's projection head).
    TorchDefault,
    /// tch's default: Kaiming-uniform weights with ReLU's gain, U(−√6/√fan_in, √6/√fan_in)
    /// (√6 times PyTorch's bound), bias U(−1/√fan_in, 1/√fan_in). What the base model's
    /// projection head has used; its reference (PyTorch) initialises as `TorchDefault`.
    TchDefault,
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
        Init::TchDefault => nn::LinearConfig::default(),
    };
    nn::linear(p, input, output, cfg)
}

/// PyTorch's batch-norm defaults.
pub const BN_MOMENTUM: f64 = 0.1;
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

/// Applies a [`batch_norm`] layer: in training mode through
/// [`crate::kernels::batch_norm_train`] (running estimates updated in place), otherwise
/// with the running estimates.
pub fn apply_batch_norm(bn: &nn::BatchNorm, x: &Tensor, train: bool) -> Tensor {
    if train {
        crate::kernels::batch_norm_train(
            x,
            bn.ws.as_ref(),
            bn.bs.as_ref(),
            &bn.running_mean,
            &bn.running_var,
            BN_MOMENTUM,
            BN_EPS,
        )
    } else {
        bn.forward_t(x, false)
    }
}

/// `BN(ReLU(mlp(x)))` in training mode, GraphCL's GIN layer after its propagation, as one
/// operation ([`crate::kernels::gin_mlp_bn`]); the running estimates are updated in place.
pub fn mlp_relu_batch_norm(mlp: &Mlp, bn: &nn::BatchNorm, x: &Tensor) -> Tensor {
    let p = crate::kernels::GinMlpBnParams {
        w1: &mlp.l1.ws,
        b1: mlp.l1.bs.as_ref(),
        w2: &mlp.l2.ws,
        b2: mlp.l2.bs.as_ref(),
        gamma: bn.ws.as_ref(),
        beta: bn.bs.as_ref(),
        running_mean: &bn.running_mean,
        running_var: &bn.running_var,
    };
    crate::kernels::gin_mlp_bn(x, &p, BN_MOMENTUM, BN_EPS)
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
    use crate::kernels::with_reference_ops;
    use tch::{Device, Kind};

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
            let fused = mlp_relu_batch_norm(&m1, &bn1, &x);
            let plain = with_reference_ops(|| mlp_relu_batch_norm(&m2, &bn2, &x2));
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
        let y = mlp_relu_batch_norm(&m1, &bn1, &x);
        (&y * &up).sum(Kind::Float).backward();
    }

    /// With a partner thread serving the backward pass (strict: every weight-gradient
    /// product is handed over), the gradients are the bits of the pass run alone.
    #[test]
    fn partner_served_backward_changes_no_bit() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(12);
        let vs = nn::VarStore::new(Device::Cpu);
        let m = Mlp::new(vs.root() / "m", 6, 32, 32, Init::TorchDefault);
        let bn = batch_norm(vs.root() / "bn", 32);
        let x = Tensor::randn([300, 6], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let up = Tensor::randn([300, 32], (Kind::Float, Device::Cpu));
        let grads = |partner: Option<&crate::kernels::Partner>| {
            for v in vs.trainable_variables().iter().chain([&x]) {
                crate::kernels::set_grad(v, &Tensor::new());
            }
            let out = mlp_relu_batch_norm(&m, &bn, &x);
            let loss = (&out * &up).sum(Kind::Float);
            match partner {
                Some(p) => std::thread::scope(|s| {
                    s.spawn(|| p.serve());
                    p.attach(|| loss.backward());
                }),
                None => loss.backward(),
            }
            vs.trainable_variables()
                .iter()
                .chain([&x])
                .map(|v| Vec::<f32>::try_from(v.grad().flatten(0, -1)).unwrap())
                .collect::<Vec<_>>()
        };
        let alone = grads(None);
        let partner = crate::kernels::Partner::new(true);
        let served = grads(Some(&partner));
        assert_eq!(partner.claimed(), 2, "both weight gradients handed over");
        assert!(alone == served);
        // a partner that never serves: the attached thread runs every task itself
        let idle = crate::kernels::Partner::new(false);
        let unserved = {
            for v in vs.trainable_variables().iter().chain([&x]) {
                crate::kernels::set_grad(v, &Tensor::new());
            }
            let out = mlp_relu_batch_norm(&m, &bn, &x);
            idle.attach(|| (&out * &up).sum(Kind::Float).backward());
            vs.trainable_variables()
                .iter()
                .chain([&x])
                .map(|v| Vec::<f32>::try_from(v.grad().flatten(0, -1)).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(idle.claimed(), 0);
        assert!(alone == unserved);
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
