//! Differential tests of the operation-level kernels: every method (GraphCL, SimGRACE,
//! AD-GCL, the node-level model) and every GIN mode is trained for [`STEPS`] steps with the
//! kernels (`csrc/kernels.cpp`, the blocked loss, the fused CPU Adam) and, beside it, with
//! every operation as plain libtorch operators ([`crate::kernels::with_reference_ops`]);
//! each step's loss, every parameter's gradient and update, and the batch-norm running
//! statistics are compared.
//!
//! The two runs go in lockstep: before each step the kernel model gets the reference
//! model's variables, so every step is compared from the same state. (Two free-running
//! runs drift apart however good the kernels are: Adam turns gradients that are rounding
//! noise, e.g. a bias right before batch norm, whose exact gradient is zero, into ±lr
//! steps of either sign, and 20 steps of small batches amplify that to 2–30% in the loss.
//! Measured while writing this test.)
//!
//! Tolerances (f32; [`TIGHT`]). The two forms compute the same formulas in another order
//! (fused multiply-adds and row loops against libtorch's kernels, a blocked analytic loss
//! gradient against autograd over the N×N similarities, a per-element Adam against
//! libtorch's vector kernels). Measured worst cases over all steps and cases: losses
//! 8e-7 relative; gradients 1.7e-3 of the model's largest gradient for AD-GCL in the
//! `filter` mode (batch norm of nearly constant channels amplifies rounding by up to
//! 1/√ε), 3e-4 elsewhere; running statistics 1.3e-6; updates 1.3e-2·lr (AD-GCL), 3e-3·lr
//! elsewhere. The tolerances are 3–10 times those. A kernel whose backward misses a term
//! or scales by 1% fails them (checked by hand: a 1% error in the loss kernel's gradient
//! fails GraphCL, AD-GCL and the node model at their first step). AD-GCL with its learned
//! augmenter gets [`AFTER_VIEW_UPDATE`] for its encoder (see there).
//!
//! A run whose every step gave the same bits both ways would not show that the switch took
//! effect, so each case also checks that some step differed.
use tch::{nn, Device, Kind, Tensor};

use crate::experiment::config::{GinMode, MethodName, RunConfig, RunSpec};
use crate::graph::GraphView;
use crate::kernels::with_reference_ops;
use crate::methods::{adgcl::AdGcl, base::NodeModel, graphcl::GraphCl, simgrace::SimGrace};
use crate::train::graph::{epoch_batches, GraphData, GraphMethod};

/// Training steps per run.
const STEPS: usize = 20;

/// A trained model's variable stores (the view learner's too, for AD-GCL).
trait Stores {
    fn stores(&self) -> Vec<&nn::VarStore>;
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore>;
}

impl Stores for GraphCl {
    fn stores(&self) -> Vec<&nn::VarStore> {
        vec![&self.model.vs]
    }
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore> {
        vec![&mut self.model.vs]
    }
}

impl Stores for SimGrace {
    fn stores(&self) -> Vec<&nn::VarStore> {
        vec![&self.model.vs]
    }
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore> {
        vec![&mut self.model.vs]
    }
}

impl Stores for AdGcl {
    fn stores(&self) -> Vec<&nn::VarStore> {
        let mut v = vec![&self.vs];
        v.extend(self.view.as_ref().map(|w| &w.vs));
        v
    }
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore> {
        let mut v = vec![&mut self.vs];
        v.extend(self.view.as_mut().map(|w| &mut w.vs));
        v
    }
}

impl Stores for NodeModel {
    fn stores(&self) -> Vec<&nn::VarStore> {
        vec![&self.vs]
    }
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore> {
        vec![&mut self.vs]
    }
}

/// A variable's name, value and gradient.
type Entry = (String, Tensor, Option<Tensor>);

/// Every variable of `m` (parameters and batch-norm buffers) by name (prefixed by its
/// store's index) with its gradient where it has one, copied and sorted.
fn snapshot(m: &impl Stores) -> Vec<Entry> {
    let mut out = Vec::new();
    for (k, vs) in m.stores().into_iter().enumerate() {
        let mut v: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, t) in v {
            let g = t.grad();
            let g = g.defined().then(|| g.detach().copy());
            out.push((format!("{k}/{name}"), t.detach().copy(), g));
        }
    }
    out
}

/// `count` graphs of 2–9 nodes with random undirected edges and `dim` random features.
fn random_views(count: usize, dim: usize, seed: u64) -> GraphData {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let views = (0..count)
        .map(|_| {
            let n = rng.gen_range(2..10u32);
            let mut edges = Vec::new();
            for u in 0..n {
                for v in u + 1..n {
                    if rng.gen_bool(0.35) {
                        edges.extend([(u, v), (v, u)]);
                    }
                }
            }
            let x = (0..n as usize * dim)
                .map(|_| rng.gen_range(-1.0f32..2.0))
                .collect();
            GraphView {
                num_nodes: n as usize,
                edges,
                x,
            }
        })
        .collect::<Vec<_>>();
    GraphData {
        labels: vec![0; views.len()],
        views,
        dim,
    }
}

fn config(method: MethodName, overrides: serde_json::Value) -> RunConfig {
    let mut spec = RunSpec {
        method: Some(method),
        dataset: "toy".into(),
        seed: 7,
        ..Default::default()
    };
    spec.overrides = serde_json::from_value(overrides).unwrap();
    RunConfig::resolve(&spec).unwrap()
}

/// Trains two copies of a model in lockstep for [`STEPS`] steps, `kernel` with the
/// kernels and `reference` with the reference operations (both built by `make`, from
/// seed `seed`; the reference one inside [`with_reference_ops`], which also picks its
/// optimiser). Before each step the kernel model gets the reference model's variables, so
/// every step starts from the same state; `step(model, k)` runs step `k` and returns its
/// loss. Each step's loss, gradients, batch-norm statistics and updates are compared
/// ([`check_step`]); returns the number of steps whose results were not all the same bits.
fn lockstep<M: Stores>(
    case: &str,
    seed: u64,
    lr: f64,
    tol: &dyn Fn(&str) -> Tol,
    make: impl Fn() -> M,
    mut step: impl FnMut(&mut M, usize) -> f64,
) -> usize {
    tch::set_num_threads(1);
    tch::manual_seed(seed as i64);
    let mut kernel = make();
    tch::manual_seed(seed as i64);
    let mut reference = with_reference_ops(&make);
    let mut differing = 0;
    for k in 0..STEPS {
        let before = snapshot(&reference);
        for (dst, src) in kernel.stores_mut().into_iter().zip(reference.stores()) {
            dst.copy(src).unwrap();
        }
        let lk = step(&mut kernel, k);
        let lr_ = with_reference_ops(|| step(&mut reference, k));
        let same = check_step(
            &format!("{case}, step {k}"),
            lr,
            tol,
            (lk, &snapshot(&kernel)),
            (lr_, &snapshot(&reference)),
            &before,
        );
        differing += usize::from(!same);
    }
    differing
}

/// How closely one step of the two forms must agree (see the module's documentation).
#[derive(Clone, Copy, Debug)]
struct Tol {
    /// A step's loss, relative to 1 + |loss|.
    loss: f64,
    /// A gradient, relative to the largest gradient of the model.
    grad: f64,
    /// A batch-norm running statistic, relative to the larger of 1 and its largest
    /// magnitude.
    stat: f64,
    /// A parameter's update, as a fraction of the learning rate, where its gradient is
    /// above [`NOISE`] (`None`: updates not compared).
    update: Option<f64>,
}

/// One optimiser update per step from the same state: rounding-level agreement.
const TIGHT: Tol = Tol {
    loss: 1e-5,
    grad: 5e-3,
    stat: 1e-5,
    update: Some(5e-2),
};

/// AD-GCL's encoder under the learned augmenter: its step follows the view learner's own
/// update within the same step, and that update already differs between the forms by
/// Adam's ±lr on noise-level gradients (below), so the encoder sees other edge weights.
const AFTER_VIEW_UPDATE: Tol = Tol {
    loss: 1e-2,
    grad: 2e-1,
    stat: 5e-3,
    update: None,
};

/// Gradients smaller than this fraction of the model's largest gradient are rounding
/// noise (e.g. a bias right before batch norm, whose exact gradient is zero): Adam turns
/// them into ±lr steps of either sign, so their updates are not compared.
const NOISE: f64 = 1e-3;

/// Compares one step of the two models from the same state `before`; returns whether all
/// results were the same bits.
fn check_step(
    case: &str,
    lr: f64,
    tol: &dyn Fn(&str) -> Tol,
    (lk, kernel): (f64, &[Entry]),
    (lr_, reference): (f64, &[Entry]),
    before: &[Entry],
) -> bool {
    assert!(
        lk.is_finite() && lr_.is_finite(),
        "{case}: loss {lk} vs {lr_}"
    );
    assert!(
        (lk - lr_).abs() <= tol("0/").loss * (1.0 + lr_.abs()),
        "{case}: loss: kernels {lk}, reference {lr_}"
    );
    let mut same = lk.to_bits() == lr_.to_bits();
    let grad_scale = reference
        .iter()
        .filter_map(|(_, _, g)| g.as_ref())
        .map(|g| g.abs().max().double_value(&[]))
        .fold(0.0f64, f64::max);
    assert_eq!(kernel.len(), reference.len(), "{case}");
    for (((name, pk, gk), (name_r, pr, gr)), (_, p0, _)) in kernel.iter().zip(reference).zip(before)
    {
        assert_eq!(name, name_r, "{case}");
        let t = tol(name);
        let (pk, pr, p0) = (
            pk.to_kind(Kind::Double),
            pr.to_kind(Kind::Double),
            p0.to_kind(Kind::Double),
        );
        same &= pk.equal(&pr);
        match (gk, gr) {
            (Some(gk), Some(gr)) => {
                let (gk, gr) = (gk.to_kind(Kind::Double), gr.to_kind(Kind::Double));
                same &= gk.equal(&gr);
                let gap = (&gk - &gr).abs().max().double_value(&[]);
                assert!(
                    gap <= t.grad * grad_scale,
                    "{case}: gradient of {name} off by {gap} (largest gradient {grad_scale})"
                );
                // updates where the gradient is not noise
                if let Some(update) = t.update {
                    let mask = gr.abs().ge(NOISE * grad_scale).to_kind(Kind::Double);
                    let gap = ((&pk - &p0) - (&pr - &p0)).abs() * mask;
                    let gap = gap.max().double_value(&[]);
                    assert!(
                        gap <= update * lr,
                        "{case}: update of {name} off by {gap} (lr {lr})"
                    );
                }
            }
            (None, None) if !pr.requires_grad() => {
                // a buffer (batch-norm running statistics), or a parameter the step left
                // without a gradient
                let scale = pr.abs().max().double_value(&[]).max(1.0);
                let gap = (&pk - &pr).abs().max().double_value(&[]);
                assert!(
                    gap <= t.stat * scale,
                    "{case}: {name} off by {gap} (largest magnitude {scale})"
                );
            }
            (None, None) => {}
            _ => panic!("{case}: {name} has a gradient in one form only"),
        }
    }
    same
}

const MODES: [GinMode; 3] = [GinMode::GinFilter, GinMode::GinSum, GinMode::Filter];

/// No MA, and MA in every GIN mode (schedules with 0–3 propagations per layer, so filter
/// steps and repeated aggregations are exercised).
fn ma_settings() -> Vec<serde_json::Value> {
    let mut v = vec![serde_json::json!({"enabled": false})];
    for mode in MODES {
        let mode = serde_json::to_value(mode).unwrap();
        v.push(serde_json::json!({"enabled": true, "gin_mode": mode, "pi": 0.4}));
    }
    v
}

/// A graph-level method in lockstep on `data` in batches of 16.
fn graph_lockstep<M: Stores + GraphMethod>(
    case: &str,
    cfg: &RunConfig,
    data: &GraphData,
    tol: &dyn Fn(&str) -> Tol,
    make: impl Fn() -> M,
) -> usize {
    let batches: Vec<(usize, Vec<usize>)> = (0..)
        .flat_map(|e| {
            epoch_batches(data.views.len(), 16, cfg.seed, e)
                .into_iter()
                .map(move |b| (e, b))
        })
        .take(STEPS)
        .collect();
    lockstep(case, cfg.seed, cfg.lr, tol, make, |m, k| {
        let (epoch, ids) = &batches[k];
        m.step(data, ids, *epoch, k as u64).unwrap()
    })
}

#[test]
fn graphcl_trains_the_same_with_kernels_and_reference_operations() {
    let _g = crate::rng::torch_lock();
    let data = random_views(48, 3, 1);
    for ma in ma_settings() {
        let cfg = config(
            MethodName::parse("graphcl").unwrap(),
            serde_json::json!({"ma": ma, "gin_eps": 0.2}),
        );
        let case = format!("GraphCL, ma {ma}");
        let differing = graph_lockstep(&case, &cfg, &data, &|_| TIGHT, || {
            GraphCl::new(&cfg.method_params().unwrap(), 3, Device::Cpu).unwrap()
        });
        assert!(differing > 0, "{case}: the switch took no effect");
    }
}

#[test]
fn simgrace_trains_the_same_with_kernels_and_reference_operations() {
    let _g = crate::rng::torch_lock();
    let data = random_views(48, 3, 2);
    for ma in ma_settings() {
        let cfg = config(
            MethodName::parse("simgrace").unwrap(),
            serde_json::json!({"ma": ma}),
        );
        let case = format!("SimGRACE, ma {ma}");
        let differing = graph_lockstep(&case, &cfg, &data, &|_| TIGHT, || {
            SimGrace::new(&cfg.method_params().unwrap(), 3, Device::Cpu).unwrap()
        });
        assert!(differing > 0, "{case}: the switch took no effect");
    }
}

#[test]
fn adgcl_trains_the_same_with_kernels_and_reference_operations() {
    let _g = crate::rng::torch_lock();
    let data = random_views(48, 3, 3);
    // without MA: the learned augmenter (soft edge weights: the weighted sparse products
    // and the view learner's own optimiser); with MA: the fixed augmenter, every GIN mode
    for ma in ma_settings() {
        let cfg = config(
            MethodName::parse("adgcl").unwrap(),
            serde_json::json!({"ma": ma}),
        );
        let case = format!("AD-GCL, ma {ma}");
        let learned = AdGcl::new(&cfg.method_params().unwrap(), 3, Device::Cpu)
            .unwrap()
            .view
            .is_some();
        assert_eq!(learned, ma["enabled"] == false, "{case}");
        // the view learner's own gradients come from the same state: tight
        let tol = |name: &str| {
            if learned && name.starts_with("0/") {
                AFTER_VIEW_UPDATE
            } else {
                TIGHT
            }
        };
        let differing = graph_lockstep(&case, &cfg, &data, &tol, || {
            AdGcl::new(&cfg.method_params().unwrap(), 3, Device::Cpu).unwrap()
        });
        assert!(differing > 0, "{case}: the switch took no effect");
    }
}

#[test]
fn node_model_trains_the_same_with_kernels_and_reference_operations() {
    let _g = crate::rng::torch_lock();
    let ds = crate::train::node::tests::toy_dataset(90);
    for (preset, ma) in [("code", false), ("code", true), ("paper", true)] {
        let mut spec = RunSpec {
            method: Some(MethodName::parse("base").unwrap()),
            dataset: "toy".into(),
            seed: 4,
            preset: Some(preset.into()),
            ..Default::default()
        };
        spec.overrides = serde_json::from_value(serde_json::json!({
            "ma": {"enabled": ma}, "hidden": 16, "lr": 0.01,
            "node": {"proj_hidden": 16, "loss_block_rows": 7}
        }))
        .unwrap();
        let cfg = RunConfig::resolve(&spec).unwrap();
        let case = format!("node level, {preset}, ma {ma}");
        let differing = lockstep(
            &case,
            cfg.seed,
            cfg.lr,
            &|_| TIGHT,
            || NodeModel::new(&cfg.method_params().unwrap(), &ds, Device::Cpu).unwrap(),
            |m, k| m.step(k).unwrap().double_value(&[]),
        );
        assert!(differing > 0, "{case}: the switch took no effect");
    }
}
