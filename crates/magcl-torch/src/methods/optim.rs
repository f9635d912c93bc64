//! Adam, the one optimiser of every method (`torch.optim.Adam` as the references
//! configure it), as an operation specialised by device: on the CPU one pass over each
//! parameter's memory, elsewhere (and under [`crate::kernels::with_reference_ops`])
//! libtorch's Adam.
//!
//! libtorch's Adam issues about ten tensor operations per parameter and step; a GraphCL
//! tower has 22 small parameters, so on the CPU libtorch's step took 0.4–0.8 ms of a
//! 6–9 ms MUTAG step and the fused one takes 0.05 ms (`benchmarks-history:benchmarks/history/speed/README.md`,
//! "Adam"). The fused form computes the same
//! update per element (same formula and order, f32 arithmetic; libtorch's vector kernels
//! may round its multiply-adds differently, so results agree to rounding, not bit for
//! bit).
use tch::{nn, Kind, Tensor};

use crate::error::Result;
use crate::kernels::{cpu_f32, cpu_f32_mut};

/// β₁, β₂ and ε as the references configure Adam.
const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

/// How weight decay enters the update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decay {
    /// Added to the gradient (`g + wd·p`): `torch.optim.Adam`.
    L2,
    /// Decoupled (`p ← p·(1 − lr·wd)` before the Adam update): `torch.optim.AdamW` (BGRL).
    Decoupled,
}

/// Adam with L2 weight decay (`g + wd·p`), as `torch.optim.Adam`, or with decoupled decay,
/// as `torch.optim.AdamW` ([`Adam::with_decay`]).
pub enum Adam {
    Libtorch(nn::Optimizer),
    Fused(FusedAdam),
}

impl Adam {
    /// Adam over the trainable variables of `vs`: fused when they are all contiguous f32
    /// CPU tensors, libtorch's otherwise (and in [`crate::kernels::with_reference_ops`]).
    pub fn new(vs: &nn::VarStore, lr: f64, weight_decay: f64) -> Result<Adam> {
        Adam::with_decay(vs, lr, weight_decay, Decay::L2)
    }

    /// [`Adam::new`] with weight decay applied as `decay` says.
    pub fn with_decay(vs: &nn::VarStore, lr: f64, weight_decay: f64, decay: Decay) -> Result<Adam> {
        let params = vs.trainable_variables();
        let fusable =
            !crate::kernels::reference_ops() && params.iter().all(|p| cpu_f32(p).is_some());
        if fusable {
            Ok(Adam::Fused(FusedAdam::new(params, lr, weight_decay, decay)))
        } else {
            Ok(Adam::Libtorch(Self::libtorch(vs, lr, weight_decay, decay)?))
        }
    }

    /// libtorch's Adam (or AdamW) with the references' settings.
    fn libtorch(
        vs: &nn::VarStore,
        lr: f64,
        weight_decay: f64,
        decay: Decay,
    ) -> Result<nn::Optimizer> {
        use tch::nn::OptimizerConfig;
        Ok(match decay {
            Decay::L2 => nn::Adam {
                beta1: BETA1,
                beta2: BETA2,
                eps: EPS,
                wd: weight_decay,
                amsgrad: false,
            }
            .build(vs, lr)?,
            Decay::Decoupled => nn::AdamW {
                beta1: BETA1,
                beta2: BETA2,
                eps: EPS,
                wd: weight_decay,
                amsgrad: false,
            }
            .build(vs, lr)?,
        })
    }

    /// Sets the learning rate of every parameter.
    pub fn set_lr(&mut self, lr: f64) {
        match self {
            Adam::Libtorch(o) => o.set_lr(lr),
            Adam::Fused(f) => f.lr = lr,
        }
    }

    /// Removes every parameter's gradient (the next backward pass starts from none).
    pub fn zero_grad(&mut self) {
        match self {
            Adam::Libtorch(o) => o.zero_grad(),
            Adam::Fused(f) => f.zero_grad(),
        }
    }

    /// One update from the parameters' current gradients (parameters without one are
    /// skipped, as libtorch does).
    pub fn step(&mut self) {
        match self {
            Adam::Libtorch(o) => o.step(),
            Adam::Fused(f) => f.step(),
        }
    }

    /// Shows `v` the optimiser's state (each parameter's moments and step count, and the
    /// learning rate) under `name`: saved for a checkpoint, or loaded. libtorch's Adam (on
    /// a GPU, and under [`crate::kernels::with_reference_ops`]) keeps its state where it
    /// cannot be read: a checkpoint of a run that uses it is refused.
    pub fn visit_state(&mut self, name: &str, v: &mut super::state::StateVisitor) -> Result<()> {
        match self {
            Adam::Libtorch(_) => Err(crate::error::Error::Config(
                "checkpoints need magcl's CPU Adam: libtorch's Adam (used on a GPU) keeps its \
                 moments where they cannot be saved; run without a checkpoint"
                    .into(),
            )),
            Adam::Fused(f) => {
                for (k, (m, s)) in f.exp_avg.iter().zip(&f.exp_avg_sq).enumerate() {
                    v.tensor(&format!("{name}/{k}/exp_avg"), m)?;
                    v.tensor(&format!("{name}/{k}/exp_avg_sq"), s)?;
                }
                let n = f.steps.len();
                v.values(&format!("{name}/steps"), &mut f.steps)?;
                if f.steps.len() != n {
                    return Err(crate::error::Error::Config(format!(
                        "the checkpoint's optimiser '{name}' has {} parameters, this run's {n}",
                        f.steps.len()
                    )));
                }
                v.f64(&format!("{name}/lr"), &mut f.lr)
            }
        }
    }
}

/// The CPU form: first and second moments kept beside each parameter.
pub struct FusedAdam {
    params: Vec<Tensor>,
    exp_avg: Vec<Tensor>,
    exp_avg_sq: Vec<Tensor>,
    /// Steps taken per parameter (a parameter's count advances only when it has a
    /// gradient, as in libtorch).
    steps: Vec<i32>,
    lr: f64,
    weight_decay: f64,
    decay: Decay,
}

impl FusedAdam {
    fn new(params: Vec<Tensor>, lr: f64, weight_decay: f64, decay: Decay) -> FusedAdam {
        let zeros = |p: &Tensor| p.zeros_like().detach();
        FusedAdam {
            exp_avg: params.iter().map(zeros).collect(),
            exp_avg_sq: params.iter().map(zeros).collect(),
            steps: vec![0; params.len()],
            params,
            lr,
            weight_decay,
            decay,
        }
    }

    fn zero_grad(&mut self) {
        for p in &self.params {
            if p.grad().defined() {
                crate::kernels::set_grad(p, &Tensor::new());
            }
        }
    }

    fn step(&mut self) {
        let (b1, b2) = (BETA1 as f32, BETA2 as f32);
        let (wd, eps) = (self.weight_decay as f32, EPS as f32);
        // AdamW: every parameter with a gradient shrinks by lr·wd first
        let (l2, shrink) = match self.decay {
            Decay::L2 => (wd, 1.0f32),
            Decay::Decoupled => (0.0, (1.0 - self.lr * self.weight_decay) as f32),
        };
        for (k, p) in self.params.iter().enumerate() {
            let g = p.grad();
            if !g.defined() {
                continue;
            }
            let g = g.to_kind(Kind::Float).contiguous();
            self.steps[k] += 1;
            let t = self.steps[k];
            let bias1 = 1.0 - BETA1.powi(t);
            let bias2 = 1.0 - BETA2.powi(t);
            let step_size = (self.lr / bias1) as f32;
            let sqrt_bias2 = bias2.sqrt() as f32;
            // `p` was checked at construction, the moments are its zeros_like, and `g` was
            // made contiguous f32 above with the parameter's shape; the four are distinct
            // tensors that nothing else touches during the loop.
            const FUSED: &str =
                "a fused parameter, its moments and its gradient are contiguous f32 CPU tensors";
            let (p, m, v, g) = (
                cpu_f32_mut(p).expect(FUSED),
                cpu_f32_mut(&self.exp_avg[k]).expect(FUSED),
                cpu_f32_mut(&self.exp_avg_sq[k]).expect(FUSED),
                cpu_f32(&g).expect(FUSED),
            );
            let n = p.len();
            assert!(
                m.len() == n && v.len() == n && g.len() == n,
                "{FUSED} of one size"
            );
            for i in 0..n {
                if shrink != 1.0 {
                    p[i] *= shrink;
                }
                let gi = if l2 != 0.0 { g[i] + l2 * p[i] } else { g[i] };
                m[i] = m[i] * b1 + gi * (1.0 - b1);
                v[i] = v[i] * b2 + gi * gi * (1.0 - b2);
                let denom = v[i].sqrt() / sqrt_bias2 + eps;
                p[i] -= step_size * (m[i] / denom);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    #[test]
    fn fused_adam_follows_libtorchs_adam() {
        let _g = crate::rng::torch_lock();
        for (wd, decay) in [(0.0, Decay::L2), (0.01, Decay::L2), (0.1, Decay::Decoupled)] {
            tch::manual_seed(3);
            let make = || {
                let vs = nn::VarStore::new(Device::Cpu);
                let w = vs.root().randn("w", &[6, 4], 0.0, 1.0);
                let b = vs.root().randn("b", &[4], 0.0, 1.0);
                let unused = vs.root().randn("unused", &[3], 0.0, 1.0);
                (vs, w, b, unused)
            };
            let (vs1, w1, b1, u1) = make();
            let (mut vs2, w2, b2, u2) = make();
            vs2.copy(&vs1).unwrap();
            let mut fused = Adam::with_decay(&vs1, 0.05, wd, decay).unwrap();
            assert!(matches!(fused, Adam::Fused(_)));
            let mut torch =
                crate::kernels::with_reference_ops(|| Adam::with_decay(&vs2, 0.05, wd, decay))
                    .unwrap();
            assert!(matches!(torch, Adam::Libtorch(_)));
            let x = Tensor::randn([5, 6], (Kind::Float, Device::Cpu));
            for step in 0..6 {
                for (opt, w, b) in [(&mut fused, &w1, &b1), (&mut torch, &w2, &b2)] {
                    // a schedule, as BGRL's: the decoupled decay follows the current rate
                    opt.set_lr(0.05 / (step + 1) as f64);
                    opt.zero_grad();
                    (x.matmul(w) + b)
                        .tanh()
                        .square()
                        .sum(Kind::Float)
                        .backward();
                    opt.step();
                }
                assert!(w1.allclose(&w2, 1e-5, 1e-5, false), "w, step {step}");
                assert!(
                    b1.allclose(&b2, 1e-5, 1e-5, false),
                    "b, step {step}: {:?}",
                    (&b1 - &b2).abs().max()
                );
            }
            // (agreement to rounding: lr = 0.05, differences ~1e-6)
            // a parameter without gradient is left alone by both
            assert!(u1.equal(&u2));
            assert!(!w1.equal(&w1.zeros_like()));
            assert!(!u1.grad().defined());
        }
    }
}
