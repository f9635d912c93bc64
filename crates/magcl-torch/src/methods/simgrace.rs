//! SimGRACE (Xia et al. 2022) and SimGRACE+MA: the second view is the same encoder with
//! perturbed weights. Every encoder weight tensor P gets `eta · N(0, std(P)²)` noise,
//! fresh every step; the projection head is copied unperturbed; no gradient flows through
//! the perturbed branch. The perturbed view is the anchor of the loss; the clean view
//! supplies the candidates (the negatives). With MA, `ma.k_branch` says which branch
//! follows schedule K: the clean one under `unaugmented` (the default) and `negatives`, the
//! perturbed one under `anchor`; the other follows K′.
use tch::{Device, Tensor};

use super::CheckedParts;
use super::{Checked, MethodParams};
use super::{MethodEntry, Preset, PresetRequest};
use crate::error::{Error, Result};
use crate::graph::Batch;
use crate::loss::InfoNce;
use crate::ma::{self, ScheduleSampler};
use crate::params::{section, MethodTable, ParamGuard, Section, SettingError};
use crate::rng::{self, streams};
use crate::train::branches;
use crate::train::encoder::{sorted_vars, Tower};
use crate::train::graph::{GraphData, GraphMethod, GraphRunner};
use crate::train::optim::Adam;
use crate::train::state::StateVisitor;
use serde::{Deserialize, Serialize};

/// SimGRACE settings (a config's `simgrace` section).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SimgraceParams {
    /// The perturbation's magnitude: noise `eta · N(0, std(P)²)` on each weight tensor P.
    pub eta: f64,
}

impl Section for SimgraceParams {
    const KEY: &'static str = "simgrace";
}

impl ParamGuard for SimgraceParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        if !(self.eta.is_finite() && self.eta >= 0.0) {
            return Err(SettingError::new(
                "simgrace.eta",
                format!("must be finite and ≥ 0, got {}", self.eta),
            ));
        }
        Ok(())
    }
}

/// A parameter of the model, its twin in the perturbed copy, and whether it is perturbed.
struct Twin {
    name: String,
    main: Tensor,
    vice: Tensor,
    perturb: bool,
}

pub struct SimGrace {
    pub model: Tower,
    pub(crate) vice: Tower,
    twins: Vec<Twin>,
    opt: Adam,
    pub(crate) loss: InfoNce,
    sampler: Box<dyn ScheduleSampler>,
    /// Whether the clean branch follows K (else the perturbed one does; `ma.k_branch`).
    pub(crate) k_first: bool,
    eta: f64,
    seed: u64,
}

/// Writes `P + eta · ε · std(P)` into `out`, with `ε` the standard normal draws `noise`;
/// `std` is the sample standard deviation of all entries of P (0 for a tensor of one entry).
pub fn perturb_into(p: &Tensor, noise: &Tensor, out: &mut Tensor, eta: f64) {
    out.copy_(&(p + noise * (eta * weight_std(p))));
}

/// The sample standard deviation of all entries of `p`; 0 for a single entry or a value
/// that is not finite.
fn weight_std(p: &Tensor) -> f64 {
    let std = if p.numel() > 1 {
        p.std(true).double_value(&[])
    } else {
        0.0
    };
    if std.is_finite() {
        std
    } else {
        0.0
    }
}

/// [`perturb_into`] with the noise of stream `(seed, keys)`: on the CPU (f32, contiguous,
/// kernels on) one pass over the memory instead of four operations and their temporaries,
/// with the same float arithmetic (`p + ε · s`, each step rounded to f32, `s = η · std`
/// rounded to f32 as a scalar multiplier is), so the same bits.
fn perturb_from_stream(p: &Tensor, out: &mut Tensor, eta: f64, seed: u64, keys: &[u64]) {
    let fused = !crate::kernels::reference_ops() && p.size() == out.size();
    if let (true, Some(src), Some(dst)) = (
        fused,
        crate::kernels::cpu_f32(p),
        crate::kernels::cpu_f32_mut(out),
    ) {
        let scale = (eta * weight_std(p)) as f32;
        let noise = rng::normal_vec(seed, keys, src.len());
        for ((o, &w), &e) in dst.iter_mut().zip(src).zip(&noise) {
            *o = w + e * scale;
        }
        return;
    }
    let noise = rng::normal_tensor(seed, keys, &p.size(), p.device());
    perturb_into(p, &noise, out, eta);
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::simgrace::DECL,
    "SimGRACE (Xia et al. 2022): the encoder and a weight-perturbed copy, no data augmentation",
    preset,
    |p, data, device, progress| {
        GraphRunner::boxed(&ENTRY, p, data, progress, |g| {
            SimGrace::new(p, g.dim, device)
        })
    },
)
.sections(&[section::<SimgraceParams>()])
.cost(|p, size| 6.0e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges));

/// SimGRACE's unsupervised TU setup (the official `unsupervised_TU` code: `go.sh`,
/// `simgrace.py`; its `aug.py` adds the self-loops): GraphCL's pipeline, loss, optimiser
/// and evaluation with a 5-layer GIN and no data
/// augmentation, perturbation magnitude η = 1. Its data pipeline gives every node but the
/// highest-indexed one of a graph a self-loop, so its GIN counts a node's own features
/// twice: ε = 1.
fn preset(req: &PresetRequest) -> Result<Preset> {
    if req.name.is_some() {
        return Err(req.unknown_name(&ENTRY));
    }
    let mut p = req.of(&super::graphcl::ENTRY)?;
    p.layers = 5;
    p.gin_eps = 1.0;
    p.sections = MethodTable::default();
    p.sections.set(&SimgraceParams { eta: 1.0 })?;
    Ok(p)
}

impl SimGrace {
    pub fn new(p: &Checked<MethodParams>, input_dim: usize, device: Device) -> Result<SimGrace> {
        let model = Tower::new(&p.gin(), &p.ma(), input_dim, device);
        let vice = Tower::new(&p.gin(), &p.ma(), input_dim, device);
        let vice_vars: std::collections::HashMap<String, Tensor> = vice.vs.variables();
        let mut twins = Vec::new();
        for (name, main) in sorted_vars(&model.vs, "") {
            let vice = vice_vars
                .get(&name)
                .ok_or_else(|| Error::Numeric(format!("perturbed copy lacks parameter {name}")))?
                .shallow_clone();
            let perturb = name.starts_with("encoder");
            twins.push(Twin {
                name,
                main,
                vice,
                perturb,
            });
        }
        let opt = Adam::new(&model.vs, p.train.lr, p.train.weight_decay)?;
        let eta = p.sections.require::<SimgraceParams>("simgrace")?.eta;
        let sampler = ma::sampler(
            &p.ma(),
            p.gin.layers,
            model.encoder.plain_schedule(),
            p.train.seed,
        );
        // The clean branch is not perturbed and supplies the candidates (the negatives);
        // the perturbed branch is the anchor.
        let k_first = ma::k_first(
            p.ma.k_branch,
            ma::Branches {
                first_is_anchor: false,
                first_is_unaugmented: true,
                symmetric: p.loss.symmetric,
            },
        );
        Ok(SimGrace {
            model,
            vice,
            twins,
            opt,
            loss: InfoNce::new(p.loss(), 0),
            sampler,
            k_first,
            eta,
            seed: p.train.seed,
        })
    }

    /// Refreshes the perturbed copy from the current weights; the noise of step `step`
    /// comes from the stream `(seed, PERTURB, step, parameter index)`.
    pub fn perturb(&mut self, step: u64) {
        perturb_twins(&mut self.twins, self.seed, self.eta, step);
    }

    /// Names of the perturbed parameters (the encoder's) and of the copied ones.
    pub fn parameter_roles(&self) -> Vec<(String, bool)> {
        self.twins
            .iter()
            .map(|t| (t.name.clone(), t.perturb))
            .collect()
    }

    /// The perturbed copy's variables (for tests and inspection).
    pub fn vice_vars(&self) -> Vec<(String, Tensor)> {
        self.twins
            .iter()
            .map(|t| (t.name.clone(), t.vice.shallow_clone()))
            .collect()
    }
}

/// [`SimGrace::perturb`] on the parameter pairs `twins`: reads the main parameters, writes
/// only the perturbed copies.
fn perturb_twins(twins: &mut [Twin], seed: u64, eta: f64, step: u64) {
    tch::no_grad(|| {
        for (i, t) in twins.iter_mut().enumerate() {
            if t.perturb {
                let keys = [streams::PERTURB, step, i as u64];
                perturb_from_stream(&t.main, &mut t.vice, eta, seed, &keys);
            } else {
                t.vice.copy_(&t.main);
            }
        }
    });
}

impl GraphMethod for SimGrace {
    /// Both towers (the perturbed one keeps its own batch-norm estimates) and the
    /// optimiser; the perturbations come from keyed streams.
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        v.var_store("model", &self.model.vs)?;
        v.var_store("vice", &self.vice.vs)?;
        self.opt.visit_state("adam", v)
    }
    fn has_branches(&self) -> bool {
        true
    }

    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64> {
        let device = self.model.vs.device();
        let batch = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
        let (k_clean, k_perturbed) =
            ma::place(self.sampler.sample(step, epoch as u64), self.k_first);
        let (model, vice, twins) = (&self.model, &self.vice, &mut self.twins);
        let (seed, eta) = (self.seed, self.eta);
        // The clean and the perturbed branch, at the same time where `branches` allows.
        // SAFETY: the clean branch reads the model; the perturbed one reads the model's
        // parameters and writes only its own copies (`twins`' perturbed halves, which the
        // clean branch never touches); each builds its own graph tensors.
        let (clean, perturbed) = unsafe {
            branches::forward_pair(
                device,
                || model.project(&batch.to_tensors(device), &k_clean, true),
                || {
                    perturb_twins(twins, seed, eta, step);
                    tch::no_grad(|| vice.project(&batch.to_tensors(device), &k_perturbed, true))
                },
            )
        };
        let loss = self.loss.loss(&perturbed, &clean);
        self.opt.zero_grad();
        // Only the clean branch has a backward pass: the other branch thread partners it.
        branches::with_partner(device, || loss.backward());
        self.opt.step();
        Ok(loss.double_value(&[]))
    }

    fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
        self.model.embed(data)
    }

    fn calibrate_batch_norm(&mut self, data: &GraphData) -> Result<()> {
        self.model.calibrate_batch_norm(data)
    }
}

/// Tests that start from the method's preset (`TestConfig`).
#[cfg(test)]
mod tests {

    use crate::graph::Batch;
    use crate::methods::simgrace::*;
    use crate::methods::tests::TestConfig;
    use crate::rng;
    use crate::train::graph::tests::toy_data;
    use tch::Device;
    use tch::Kind;

    fn config(eta: f64) -> TestConfig {
        let o = serde_json::json!({"simgrace": {"eta": eta}, "hidden": 64});
        TestConfig::new("simgrace", "toy", None, 1, o).unwrap()
    }

    /// The clean and perturbed passes at the same time (`branches`) give the numbers of
    /// running them one after the other, bit for bit.
    #[test]
    fn concurrent_branches_change_no_number() {
        let _g = crate::rng::torch_lock();
        for ma in [false, true] {
            let o = serde_json::json!({"epochs": 2, "batch_size": 16, "ma": {"enabled": ma}});
            crate::train::graph::tests::assert_branch_concurrency_changes_nothing(
                &TestConfig::new("simgrace", "toy", None, 2, o).unwrap(),
                |p| SimGrace::new(p, 1, Device::Cpu).unwrap(),
                |m| &m.model.encoder.bns,
                &format!("MA {ma}"),
            );
        }
    }

    /// The one-pass perturbation writes the bits of the operator form.
    #[test]
    fn fused_perturbation_equals_the_operator_form() {
        let _g = rng::torch_lock();
        tch::manual_seed(4);
        for shape in [&[32i64, 7][..], &[32], &[1], &[96, 96]] {
            let p = Tensor::randn(shape, (Kind::Float, Device::Cpu));
            let mut fused = p.zeros_like();
            perturb_from_stream(&p, &mut fused, 1.5, 9, &[1, 2]);
            let mut plain = p.zeros_like();
            crate::kernels::with_reference_ops(|| {
                perturb_from_stream(&p, &mut plain, 1.5, 9, &[1, 2])
            });
            let (f, q) = (
                Vec::<f32>::try_from(fused.flatten(0, -1)).unwrap(),
                Vec::<f32>::try_from(plain.flatten(0, -1)).unwrap(),
            );
            assert!(f == q, "{shape:?}");
            if p.numel() > 1 {
                assert!(
                    f != Vec::<f32>::try_from(p.flatten(0, -1)).unwrap(),
                    "noise was added"
                );
            }
        }
    }

    #[test]
    fn each_reading_places_k() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // (reading, clean branch follows K, evaluation schedule)
        for (reading, k_first, eval) in
            [("current", true, 1), ("code", false, 2), ("paper", true, 1)]
        {
            let o = serde_json::json!({"ma": {"enabled": true, "reading": reading}});
            let cfg = TestConfig::new("simgrace", "toy", None, 0, o).unwrap();
            let m = SimGrace::new(&cfg.method_params().unwrap(), 3, Device::Cpu).unwrap();
            assert_eq!(m.k_first, k_first, "{reading}");
            assert_eq!(m.model.eval_schedule, vec![eval; 5], "{reading}");
        }
    }

    #[test]
    fn noise_std_matches_eta_times_weight_std_and_projector_is_untouched() {
        let _g = rng::torch_lock();
        tch::manual_seed(0);
        let mut m = SimGrace::new(&config(2.0).method_params().unwrap(), 3, Device::Cpu).unwrap();
        m.perturb(0);
        let main: std::collections::HashMap<_, _> = m.model.vs.variables();
        for (name, vice) in m.vice_vars() {
            let p = &main[&name];
            let diff = &vice - p;
            if name.starts_with("projector") {
                assert_eq!(
                    diff.abs().max().double_value(&[]),
                    0.0,
                    "{name} copied unperturbed"
                );
            } else if p.numel() >= 1000 {
                let want = 2.0 * p.std(true).double_value(&[]);
                let got = diff.std(true).double_value(&[]);
                assert!(
                    (got / want - 1.0).abs() < 0.1,
                    "{name}: noise std {got} vs {want}"
                );
                assert!(diff.mean(Kind::Float).double_value(&[]).abs() < 0.1 * want);
            }
        }
        assert!(m
            .parameter_roles()
            .iter()
            .any(|(n, p)| *p && n.contains("encoder")));
    }

    #[test]
    fn no_gradient_reaches_the_model_through_the_perturbed_branch() {
        let _g = rng::torch_lock();
        tch::manual_seed(0);
        let data = toy_data(8);
        let mut m = SimGrace::new(&config(1.0).method_params().unwrap(), 1, Device::Cpu).unwrap();
        m.perturb(0);
        let g = Batch::collate(&data.views, 1).to_tensors(Device::Cpu);
        let plain = m.model.encoder.plain_schedule();
        let z = tch::no_grad(|| m.vice.project(&g, &plain, true));
        assert!(!z.requires_grad(), "the perturbed branch carries no graph");
        let vice_grad_free = m.vice_vars().iter().all(|(_, t)| {
            !t.grad().defined() || t.grad().abs().sum(Kind::Float).double_value(&[]) == 0.0
        });
        let clean = m.model.project(&g, &plain, true);
        m.loss.loss(&z, &clean).backward();
        assert!(vice_grad_free);
        for (_, t) in m.vice_vars() {
            assert!(
                !t.grad().defined() || t.grad().abs().sum(Kind::Float).double_value(&[]) == 0.0
            );
        }
    }
}
