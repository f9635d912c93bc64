//! Adam, the one optimiser of every method (`torch.optim.Adam` as the references
//! configure it), as an operation specialised by device: on the CPU one pass over each
//! parameter's memory ([`Adam::Fused`]), elsewhere libtorch's own Adam step on moments that
//! magcl keeps ([`Adam::Tensor`]), and under [`crate::kernels::with_reference_ops`]
//! libtorch's Adam itself (the differential tests' reference).
//!
//! libtorch's Adam issues about ten tensor operations per parameter and step; a GraphCL
//! tower has 22 small parameters, so on the CPU libtorch's step took 0.4–0.8 ms of a
//! 6–9 ms MUTAG step and the fused one takes 0.05 ms (`benchmarks-history:benchmarks/history/speed/README.md`,
//! "Adam"). The fused form computes the same
//! update per element (same formula and order, f32 arithmetic; libtorch's vector kernels
//! may round its multiply-adds differently, so results agree to rounding, not bit for
//! bit).
//!
//! On a GPU (any device but the CPU) the step is libtorch's: [`Adam::Tensor`] runs the
//! operators of libtorch's `torch::optim::Adam::step` / `AdamW::step` (the optimisers tch
//! builds), with the same scalars in the same order, through `crates/magcl-torch/csrc/kernels.cpp` (8.) —
//! tch's bindings drop the `alpha`/`value` factors of `add_`, `addcmul_` and `addcdiv_`, so
//! Rust code could not call the same kernels. So a GPU run computes the same bits as with
//! libtorch's optimiser, so earlier GPU rows are unchanged (the two agree bit for bit on
//! the CPU, and on a GPU where the test runs on one:
//! `tests::tensor_adam_is_libtorchs_adam_bit_for_bit`). What changes is who keeps the
//! first and second moments and step counts: libtorch's optimiser keeps them where tch
//! cannot read them, [`Adam::Tensor`] keeps them as tensors on the parameters' device, where
//! a checkpoint saves and restores them (docs/reliability.md, "Checkpoints"), so that GPU
//! runs resume mid-training.
use tch::{nn, Kind, Tensor};

use std::cell::Cell;

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
    /// libtorch's optimiser: only under [`crate::kernels::with_reference_ops`].
    Libtorch(nn::Optimizer),
    /// The CPU form: one pass over each parameter's memory (`Moments::fused_step`).
    Fused(Moments),
    /// Every other device's: libtorch's step, with moments a checkpoint can read
    /// (`Moments::tensor_step`).
    Tensor(Moments),
}

thread_local! {
    /// Whether Adams built on this thread take the [`Adam::Tensor`] form on the CPU too.
    static TENSOR_ADAM: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with every [`Adam`] built inside it (on this thread) in the form GPU runs use,
/// [`Adam::Tensor`], also where the fused CPU form would be chosen: so that the GPU's
/// optimiser, its checkpoints included, is tested on the CPU. Numbers differ from the
/// fused form's at rounding level. [`crate::kernels::with_reference_ops`] takes
/// precedence. Restored afterwards, also on a panic.
pub fn with_tensor_adam<R>(f: impl FnOnce() -> R) -> R {
    crate::kernels::with_local(&TENSOR_ADAM, true, f)
}

impl Adam {
    /// Adam over the trainable variables of `vs`: fused when they are all contiguous f32
    /// CPU tensors, [`Adam::Tensor`] otherwise (on a GPU), libtorch's in
    /// [`crate::kernels::with_reference_ops`].
    pub fn new(vs: &nn::VarStore, lr: f64, weight_decay: f64) -> Result<Adam> {
        Adam::with_decay(vs, lr, weight_decay, Decay::L2)
    }

    /// [`Adam::new`] with weight decay applied as `decay` says.
    pub fn with_decay(vs: &nn::VarStore, lr: f64, weight_decay: f64, decay: Decay) -> Result<Adam> {
        if crate::kernels::reference_ops() {
            return Ok(Adam::Libtorch(Self::libtorch(vs, lr, weight_decay, decay)?));
        }
        let params = vs.trainable_variables();
        let fusable = !TENSOR_ADAM.with(|c| c.get()) && params.iter().all(|p| cpu_f32(p).is_some());
        if fusable {
            Ok(Adam::Fused(Moments::new(params, lr, weight_decay, decay)))
        } else {
            Ok(Adam::Tensor(Moments::new(params, lr, weight_decay, decay)))
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
            Adam::Fused(m) | Adam::Tensor(m) => m.lr = lr,
        }
    }

    /// Removes every parameter's gradient (the next backward pass starts from none).
    pub fn zero_grad(&mut self) {
        match self {
            Adam::Libtorch(o) => o.zero_grad(),
            Adam::Fused(m) | Adam::Tensor(m) => zero_grad(&m.params),
        }
    }

    /// One update from the parameters' current gradients (parameters without one are
    /// skipped, as libtorch does).
    pub fn step(&mut self) {
        match self {
            Adam::Libtorch(o) => o.step(),
            Adam::Fused(m) => m.fused_step(),
            Adam::Tensor(m) => m.tensor_step(),
        }
    }

    /// Shows `v` the optimiser's state (each parameter's moments and step count, and the
    /// learning rate) under `name`: saved for a checkpoint, or loaded. The fused and the
    /// tensor form keep the same entries. libtorch's Adam (only under
    /// [`crate::kernels::with_reference_ops`]) keeps its state where it cannot be read: a
    /// checkpoint of a run that uses it is refused.
    pub fn visit_state(&mut self, name: &str, v: &mut super::state::StateVisitor) -> Result<()> {
        match self {
            Adam::Libtorch(_) => Err(crate::error::Error::Config(
                "checkpoints need magcl's Adam: libtorch's own Adam (used only with the \
                 reference operations of the differential tests) keeps its moments where \
                 they cannot be saved; run without a checkpoint"
                    .into(),
            )),
            Adam::Fused(m) | Adam::Tensor(m) => m.visit(name, v),
        }
    }
}

/// Removes every parameter's gradient (as libtorch's optimisers do with `set_to_none`).
fn zero_grad(params: &[Tensor]) {
    for p in params {
        if p.grad().defined() {
            crate::kernels::set_grad(p, &Tensor::new());
        }
    }
}

/// magcl's own Adam state, kept alike by both forms (so a checkpoint of one loads into the
/// other): each parameter's first and second moments (tensors beside the parameter, on its
/// device) and step count, the learning rate and the decay.
pub struct Moments {
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

impl Moments {
    fn new(params: Vec<Tensor>, lr: f64, weight_decay: f64, decay: Decay) -> Moments {
        // libtorch creates them at the first step as `zeros_like(p)`: the same zeros
        let zeros = |p: &Tensor| p.zeros_like().detach();
        Moments {
            exp_avg: params.iter().map(zeros).collect(),
            exp_avg_sq: params.iter().map(zeros).collect(),
            steps: vec![0; params.len()],
            params,
            lr,
            weight_decay,
            decay,
        }
    }

    /// The state entries: `name/K/exp_avg` and `name/K/exp_avg_sq` for parameter K,
    /// `name/steps` and `name/lr`.
    fn visit(&mut self, name: &str, v: &mut super::state::StateVisitor) -> Result<()> {
        for (k, (m, s)) in self.exp_avg.iter().zip(&self.exp_avg_sq).enumerate() {
            v.tensor(&format!("{name}/{k}/exp_avg"), m)?;
            v.tensor(&format!("{name}/{k}/exp_avg_sq"), s)?;
        }
        let n = self.steps.len();
        v.values(&format!("{name}/steps"), &mut self.steps)?;
        if self.steps.len() != n {
            return Err(crate::error::Error::Config(format!(
                "the checkpoint's optimiser '{name}' has {} parameters, this run's {n}",
                self.steps.len()
            )));
        }
        v.f64(&format!("{name}/lr"), &mut self.lr)
    }

    /// Every device but the CPU: libtorch's Adam (or AdamW) step on each parameter
    /// ([`crate::kernels::adam_step`]: the operators of `torch::optim::Adam::step` in its
    /// order) on the moments kept here.
    fn tensor_step(&mut self) {
        let s = crate::kernels::AdamStep {
            lr: self.lr,
            beta1: BETA1,
            beta2: BETA2,
            eps: EPS,
            weight_decay: self.weight_decay,
            decoupled: self.decay == Decay::Decoupled,
        };
        for (k, p) in self.params.iter().enumerate() {
            if !p.grad().defined() {
                continue;
            }
            self.steps[k] += 1;
            crate::kernels::adam_step(
                p,
                &self.exp_avg[k],
                &self.exp_avg_sq[k],
                self.steps[k] as i64,
                s,
            );
        }
    }

    /// The CPU step: one pass over each parameter's memory (contiguous f32 tensors, as
    /// checked where the form is chosen).
    fn fused_step(&mut self) {
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

    /// A two-parameter model of `kind` on `device` (and a parameter no loss uses), from
    /// libtorch's generator as seeded.
    fn model_on(device: Device, kind: Kind) -> (nn::VarStore, Tensor, Tensor, Tensor) {
        let mut vs = nn::VarStore::new(device);
        let w = vs.root().randn("w", &[6, 4], 0.0, 1.0);
        let b = vs.root().randn("b", &[4], 0.0, 1.0);
        let unused = vs.root().randn("unused", &[3], 0.0, 1.0);
        if kind == Kind::Double {
            vs.double();
        }
        (vs, w, b, unused)
    }

    fn model(kind: Kind) -> (nn::VarStore, Tensor, Tensor, Tensor) {
        model_on(Device::Cpu, kind)
    }

    /// One step of `opt` at step `step`: a learning-rate schedule (as BGRL's: AdamW's
    /// decay follows the current rate), `b` used on even steps only (so the parameters'
    /// step counts differ and a parameter without gradient is skipped).
    fn one_step(opt: &mut Adam, x: &Tensor, w: &Tensor, b: &Tensor, step: usize) {
        opt.set_lr(0.05 / (step + 1) as f64);
        opt.zero_grad();
        let y = x.to_device(w.device()).to_kind(w.kind()).matmul(w);
        let y = if step.is_multiple_of(2) { y + b } else { y };
        y.tanh().square().sum(w.kind()).backward();
        opt.step();
    }

    const SETTINGS: [(f64, Decay); 3] =
        [(0.0, Decay::L2), (0.01, Decay::L2), (0.1, Decay::Decoupled)];

    /// On the CPU, and on a GPU where there is one (`cargo test --release --lib
    /// optim::tests` there: the form GPU runs use, against libtorch's optimiser).
    #[test]
    fn tensor_adam_is_libtorchs_adam_bit_for_bit() {
        let _g = crate::rng::torch_lock();
        let mut devices = vec![Device::Cpu];
        if tch::Cuda::is_available() {
            devices.push(Device::Cuda(0));
        }
        for (device, kind) in devices
            .into_iter()
            .flat_map(|d| [(d, Kind::Float), (d, Kind::Double)])
        {
            for (wd, decay) in SETTINGS {
                tch::manual_seed(4);
                let (vs1, w1, b1, u1) = model_on(device, kind);
                let (mut vs2, w2, b2, u2) = model_on(device, kind);
                vs2.copy(&vs1).unwrap();
                let (w0, u0) = (w1.copy(), u1.copy());
                // f32 on the CPU takes the fused form unless asked; f64 cannot, nor a GPU
                let mut tensor = if kind == Kind::Float && device == Device::Cpu {
                    with_tensor_adam(|| Adam::with_decay(&vs1, 0.05, wd, decay)).unwrap()
                } else {
                    Adam::with_decay(&vs1, 0.05, wd, decay).unwrap()
                };
                assert!(matches!(tensor, Adam::Tensor(_)));
                let mut torch =
                    crate::kernels::with_reference_ops(|| Adam::with_decay(&vs2, 0.05, wd, decay))
                        .unwrap();
                assert!(matches!(torch, Adam::Libtorch(_)));
                let x = Tensor::randn([5, 6], (Kind::Float, Device::Cpu));
                for step in 0..7 {
                    one_step(&mut tensor, &x, &w1, &b1, step);
                    one_step(&mut torch, &x, &w2, &b2, step);
                    let case = format!("{device:?} {kind:?} wd {wd} {decay:?}, step {step}");
                    assert!(w1.equal(&w2), "w, {case}");
                    assert!(b1.equal(&b2), "b, {case}");
                }
                assert!(!w1.equal(&w0), "the parameters moved");
                assert!(u1.equal(&u0) && u2.equal(&u0), "no gradient, no step");
            }
        }
    }

    #[test]
    fn the_form_follows_the_device_and_the_switches() {
        let _g = crate::rng::torch_lock();
        let (vs, ..) = model(Kind::Float);
        let form = |a: Adam| match a {
            Adam::Libtorch(_) => "libtorch",
            Adam::Fused(_) => "fused",
            Adam::Tensor(_) => "tensor",
        };
        let new = || Adam::new(&vs, 0.1, 0.0).unwrap();
        assert_eq!(form(new()), "fused");
        assert_eq!(form(with_tensor_adam(new)), "tensor");
        assert_eq!(form(new()), "fused", "the switch is restored");
        assert_eq!(form(crate::kernels::with_reference_ops(new)), "libtorch");
        assert_eq!(
            form(with_tensor_adam(|| crate::kernels::with_reference_ops(new))),
            "libtorch",
            "the reference operations take precedence"
        );
        let (vs64, ..) = model(Kind::Double);
        assert_eq!(form(Adam::new(&vs64, 0.1, 0.0).unwrap()), "tensor");
        // libtorch's own Adam cannot be checkpointed, and says so
        let mut st = crate::train::state::TrainState::default();
        let mut v = crate::train::state::StateVisitor::Save(&mut st);
        let e = crate::kernels::with_reference_ops(new)
            .visit_state("adam", &mut v)
            .unwrap_err()
            .to_string();
        assert!(e.contains("run without a checkpoint"), "{e}");
    }

    /// Saving the optimiser's state (and the weights) after some steps, rebuilding both
    /// from scratch, loading and continuing gives the bits of the uninterrupted steps:
    /// what a checkpoint of a GPU run relies on, here with the GPU's form on the CPU (and
    /// with the fused form beside it).
    #[test]
    fn adam_resumed_from_its_saved_state_continues_bit_for_bit() {
        use crate::train::state::{StateVisitor, TrainState};
        let _g = crate::rng::torch_lock();
        for tensor_form in [true, false] {
            for (wd, decay) in SETTINGS {
                let build = |vs: &nn::VarStore| {
                    let a = if tensor_form {
                        with_tensor_adam(|| Adam::with_decay(vs, 0.05, wd, decay))
                    } else {
                        Adam::with_decay(vs, 0.05, wd, decay)
                    };
                    a.unwrap()
                };
                tch::manual_seed(5);
                let x = Tensor::randn([5, 6], (Kind::Float, Device::Cpu));
                tch::manual_seed(6);
                let (vs, w, b, _) = model(Kind::Float);
                let mut opt = build(&vs);
                assert_eq!(matches!(opt, Adam::Tensor(_)), tensor_form);
                for step in 0..8 {
                    one_step(&mut opt, &x, &w, &b, step);
                }

                tch::manual_seed(6);
                let (vs1, w1, b1, _) = model(Kind::Float);
                let mut opt1 = build(&vs1);
                for step in 0..3 {
                    one_step(&mut opt1, &x, &w1, &b1, step);
                }
                let mut saved = TrainState::default();
                {
                    let mut v = StateVisitor::Save(&mut saved);
                    v.var_store("model", &vs1).unwrap();
                    opt1.visit_state("adam", &mut v).unwrap();
                }
                drop((opt1, vs1, w1, b1));
                // a fresh process: other initial weights, fresh moments
                tch::manual_seed(7);
                let (vs2, w2, b2, _) = model(Kind::Float);
                let mut opt2 = build(&vs2);
                let mut v = StateVisitor::load(&saved);
                v.var_store("model", &vs2).unwrap();
                opt2.visit_state("adam", &mut v).unwrap();
                v.finish().unwrap();
                for step in 3..8 {
                    one_step(&mut opt2, &x, &w2, &b2, step);
                }
                let case = format!("tensor form {tensor_form}, wd {wd} {decay:?}");
                assert!(w.equal(&w2), "w, {case}");
                assert!(b.equal(&b2), "b, {case}");
                // the state holds the moments, the per-parameter step counts and the rate
                let steps = Vec::<i32>::try_from(&saved.tensors["adam/steps"]).unwrap();
                assert_eq!(steps, [3, 2, 0], "{case}: w, b (even steps), unused");
                let m = &saved.tensors["adam/0/exp_avg"];
                assert!(
                    m.device() == Device::Cpu && m.abs().sum(Kind::Float).double_value(&[]) > 0.0
                );

                // without the optimiser's state the continuation differs: the test can fail
                tch::manual_seed(7);
                let (vs3, w3, b3, _) = model(Kind::Float);
                let mut opt3 = build(&vs3);
                let mut v = StateVisitor::load(&saved);
                v.var_store("model", &vs3).unwrap();
                for step in 3..8 {
                    one_step(&mut opt3, &x, &w3, &b3, step);
                }
                assert!(!w.equal(&w3), "{case}: fresh moments give other weights");
            }
        }
    }
}
