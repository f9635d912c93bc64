//! Differential tests of the operation-level kernels: every registered method that trains
//! (GraphCL, SimGRACE, AD-GCL, InfoGraph, JOAOv2 and MVGRL at graph level; the base model,
//! GRACE, GCA and BGRL at node level) is trained for [`STEPS`] steps with the kernels
//! (`crates/magcl-torch/csrc/kernels.cpp`, the blocked loss, the fused CPU Adam) and, beside it, with every
//! operation as plain libtorch operators ([`crate::kernels::with_reference_ops`]); each
//! step's loss, every parameter's gradient and update, and the batch-norm running
//! statistics are compared. GraphCL, SimGRACE and AD-GCL run every GIN mode; InfoGraph and
//! JOAOv2, which use the same encoder, run without MA and in the `filter` mode. The
//! baselines (`untrained`, `wl`, `degree`, `features`) make no gradient step and have no
//! case; [`every_trained_method_has_a_differential_case`] holds every other registered
//! method to one.
//!
//! The kernels each method's case reaches: the sparse product (every method: GIN
//! aggregation, GCN propagation, MVGRL's adjacency and block-diagonal diffusion, and the
//! pooling product of the graph-level sum pools) and the fused Adam (every method; AdamW
//! under BGRL's warm-up and cosine learning rate); the GIN layer's MLP + batch norm
//! (GraphCL, SimGRACE, AD-GCL, InfoGraph, JOAOv2, and JOAOv2's no-gradient min–max
//! estimate after each epoch); training batch norm (BGRL's online and target encoders);
//! the blocked InfoNCE loss (GraphCL, SimGRACE, AD-GCL, JOAOv2, the base model, GRACE and
//! GCA with intra-view negatives). InfoGraph's and MVGRL's Jensen–Shannon loss and BGRL's
//! bootstrap loss are plain operators in both forms (no kernel of their own); MVGRL has no
//! batch norm.
//!
//! The two runs go in lockstep: before each step the kernel model gets the reference
//! model's variables, so every step is compared from the same state. (Two free-running
//! runs drift apart however good the kernels are: Adam turns gradients that are rounding
//! noise, e.g. a bias right before batch norm, whose exact gradient is zero, into ±lr
//! steps of either sign, and 20 steps of small batches amplify that to 2–30% in the loss.
//! Measured while writing this test.) JOAOv2's augmentation distribution, which its
//! min–max step computes from losses, is compared and copied the same way
//! ([`Stores::side_state`]).
//!
//! Tolerances (f32). The two forms compute the same formulas in another order (fused
//! multiply-adds and row loops against libtorch's kernels, a blocked analytic loss
//! gradient against autograd over the N×N similarities, a per-element Adam against
//! libtorch's vector kernels). Measured worst cases over all steps and cases, as loss
//! (relative to 1 + |loss|) / gradient (of the model's largest) / running statistic /
//! update (of lr); each method's tolerances are 3–10 times its figures:
//! - GraphCL, SimGRACE, AD-GCL, the base model ([`TIGHT`]): losses 8e-7; gradients 1.7e-3
//!   for AD-GCL in the `filter` mode (batch norm of nearly constant channels amplifies
//!   rounding by up to 1/√ε), 3e-4 elsewhere; running statistics 1.3e-6; updates
//!   1.3e-2·lr (AD-GCL), 3e-3·lr elsewhere. AD-GCL with its learned augmenter gets
//!   [`AFTER_VIEW_UPDATE`] for its encoder (see there).
//! - InfoGraph ([`INFOGRAPH`]): 5.7e-7 / 1.4e-5 / 3.3e-7 / 1.2e-4.
//! - JOAOv2 ([`JOAOV2`]): 1.3e-7 / 4.1e-6 / 6.9e-7 (its distribution P included) / 1.2e-4.
//! - MVGRL ([`MVGRL`]): 3.8e-8 / 5.6e-7 / none (no batch norm) / 6.0e-5.
//! - GRACE and GCA ([`GRACE`]): 8.6e-8 / 6.0e-6 / none / 4.3e-5.
//! - BGRL ([`BGRL`]): 1.1e-7 / 6.1e-7 / 5.0e-7 / 3.9e-4; its target encoder's GCN biases
//!   9e-4 ([`TARGET_BIAS`], see there).
//!
//! (The updates' 1.2e-4·lr is one f32 rounding step of a parameter near 1 at lr 0.001.)
//! A kernel whose backward misses a term or scales by 1% fails them (checked by hand: a
//! 1% error in the loss kernel's gradient fails GraphCL, AD-GCL and the node model at
//! their first step). The figures are printed per case (`--nocapture`).
//!
//! A run whose every step gave the same bits both ways would not show that the switch took
//! effect, so each case also checks that some step differed.
use tch::{nn, Device, Kind, Tensor};

use crate::error::Result;
use crate::experiment::config::{GinMode, MethodName, RunConfig, RunSpec};
use crate::graph::GraphView;
use crate::kernels::with_reference_ops;
use crate::methods::adgcl::AdGcl;
use crate::methods::base::NodeModel;
use crate::methods::bgrl::{self, Bgrl};
use crate::methods::gca::{adaptive_drops, GcaParams};
use crate::methods::graphcl::GraphCl;
use crate::methods::infograph::InfoGraph;
use crate::methods::joaov2::JoaoV2;
use crate::methods::mvgrl::Mvgrl;
use crate::methods::registry::BUILTIN;
use crate::methods::simgrace::SimGrace;
use crate::methods::{grace, MethodParams};
use crate::params::Checked;
use crate::train::graph::{epoch_batches, GraphData, GraphMethod};
use crate::train::node::tests::toy_dataset;
use crate::train::node::{EpochStep, NodeParams, NodeVariant};
use serde_json::json;

/// Training steps per run.
const STEPS: usize = 20;

/// A trained model's variable stores (the view learner's too, for AD-GCL; the target
/// encoder's for BGRL), and any other state a step reads that the two forms may round
/// differently.
trait Stores {
    fn stores(&self) -> Vec<&nn::VarStore>;
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore>;
    /// State beside the variables that steps carry forward and that the forms compute
    /// (JOAOv2's augmentation distribution): compared after each step and copied like the
    /// variables before the next. Default: none.
    fn side_state(&self) -> Vec<f64> {
        Vec::new()
    }
    fn set_side_state(&mut self, _: &[f64]) {}
}

/// [`Stores`] of a method whose variables are one store at `$($store).+`.
macro_rules! one_store {
    ($($method:ty => $($store:ident).+;)*) => {$(
        impl Stores for $method {
            fn stores(&self) -> Vec<&nn::VarStore> {
                vec![&self.$($store).+]
            }
            fn stores_mut(&mut self) -> Vec<&mut nn::VarStore> {
                vec![&mut self.$($store).+]
            }
        }
    )*};
}

one_store! {
    GraphCl => model.vs;
    SimGrace => model.vs;
    NodeModel => vs;
    InfoGraph => vs;
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

impl Stores for JoaoV2 {
    fn stores(&self) -> Vec<&nn::VarStore> {
        vec![&self.vs]
    }
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore> {
        vec![&mut self.vs]
    }
    /// The augmentation distribution P, which the min–max step moves from the losses.
    fn side_state(&self) -> Vec<f64> {
        self.probs.to_vec()
    }
    fn set_side_state(&mut self, p: &[f64]) {
        self.probs.copy_from_slice(p);
    }
}

/// The encoders (frozen under the `code` preset) and the heads; not the kept best-loss
/// copy, which training never reads.
impl Stores for Mvgrl {
    fn stores(&self) -> Vec<&nn::VarStore> {
        vec![&self.nets.enc, &self.nets.heads]
    }
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore> {
        vec![&mut self.nets.enc, &mut self.nets.heads]
    }
}

/// The online network and the target encoder (compared as state: it has no gradient, it
/// follows the online encoder's moving average).
impl Stores for Bgrl {
    fn stores(&self) -> Vec<&nn::VarStore> {
        vec![&self.vs, &self.target_vs]
    }
    fn stores_mut(&mut self) -> Vec<&mut nn::VarStore> {
        vec![&mut self.vs, &mut self.target_vs]
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

/// The resolved config of `method` (preset `preset`, seed `seed`) on the toy set with
/// `overrides`.
fn config(
    method: MethodName,
    preset: Option<&str>,
    seed: u64,
    overrides: serde_json::Value,
) -> RunConfig {
    let mut spec = RunSpec {
        method: Some(method),
        dataset: "toy".into(),
        seed,
        preset: preset.map(Into::into),
        ..Default::default()
    };
    spec.overrides = serde_json::from_value(overrides).unwrap();
    RunConfig::resolve(&spec).unwrap()
}

/// The worst deviations of a run between the two forms, in the units of [`Tol`] (the
/// figures the module's documentation quotes; shown with `--nocapture`).
#[derive(Clone, Copy, Debug, Default)]
struct Worst {
    loss: f64,
    grad: f64,
    stat: f64,
    /// A fraction of the step's learning rate.
    update: f64,
}

impl Worst {
    fn max(self, o: Worst) -> Worst {
        Worst {
            loss: self.loss.max(o.loss),
            grad: self.grad.max(o.grad),
            stat: self.stat.max(o.stat),
            update: self.update.max(o.update),
        }
    }
}

/// Trains two copies of a model in lockstep for [`STEPS`] steps, `kernel` with the
/// kernels and `reference` with the reference operations (both built by `make`, from
/// seed `seed`; the reference one inside [`with_reference_ops`], which also picks its
/// optimiser). Before each step the kernel model gets the reference model's variables
/// (and [`Stores::side_state`]), so every step starts from the same state; `step(model,
/// k)` runs step `k` and returns its loss. Each step's loss, gradients, batch-norm
/// statistics, side state and updates (relative to step `k`'s learning rate `lr(k)`) are
/// compared ([`check_step`]), and some step must have given other bits in the two forms
/// (else the switch took no effect). Returns the worst deviations.
fn lockstep<M: Stores>(
    case: &str,
    seed: u64,
    lr: &dyn Fn(usize) -> f64,
    tol: &dyn Fn(&str) -> Tol,
    make: impl Fn() -> M,
    mut step: impl FnMut(&mut M, usize) -> f64,
) -> Worst {
    tch::set_num_threads(1);
    tch::manual_seed(seed as i64);
    let mut kernel = make();
    tch::manual_seed(seed as i64);
    let mut reference = with_reference_ops(&make);
    let mut differing = 0;
    let mut worst = Worst::default();
    for k in 0..STEPS {
        let before = snapshot(&reference);
        for (dst, src) in kernel.stores_mut().into_iter().zip(reference.stores()) {
            dst.copy(src).unwrap();
        }
        kernel.set_side_state(&reference.side_state());
        let lk = step(&mut kernel, k);
        let lr_ = with_reference_ops(|| step(&mut reference, k));
        let case = format!("{case}, step {k}");
        let (same, w) = check_step(
            &case,
            lr(k),
            tol,
            (lk, &snapshot(&kernel)),
            (lr_, &snapshot(&reference)),
            &before,
        );
        let (sk, sr) = (kernel.side_state(), reference.side_state());
        let side_gap = sk
            .iter()
            .zip(&sr)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(side_gap <= tol("0/").stat, "{case}: {sk:?} vs {sr:?}");
        differing += usize::from(!(same && sk == sr));
        worst = worst.max(w).max(Worst {
            stat: side_gap,
            ..Worst::default()
        });
    }
    eprintln!("{case}: worst {worst:?}");
    assert!(differing > 0, "{case}: the switch took no effect");
    worst
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

/// InfoGraph (GIN with batch norm, the Jensen–Shannon loss in plain operators).
const INFOGRAPH: Tol = Tol {
    loss: 3e-6,
    grad: 1e-4,
    stat: 2e-6,
    update: Some(1e-3),
};

/// JOAOv2 (GraphCL's encoder and loss; `stat` covers the augmentation distribution too).
const JOAOV2: Tol = Tol {
    loss: 1e-6,
    grad: 3e-5,
    stat: 5e-6,
    update: Some(1e-3),
};

/// MVGRL: no batch norm; the only variables without a gradient are the frozen encoders
/// of the `code` preset, which no step moves, so they must keep their bits.
const MVGRL: Tol = Tol {
    loss: 3e-7,
    grad: 5e-6,
    stat: 0.0,
    update: Some(5e-4),
};

/// GRACE and GCA (the node-level trainer with GRACE's encoder): no batch norm, every
/// variable has a gradient.
const GRACE: Tol = Tol {
    loss: 5e-7,
    grad: 5e-5,
    stat: 0.0,
    update: Some(3e-4),
};

/// BGRL's online network, and its target encoder's batch-norm statistics (from the
/// target's training-mode passes, made from the synchronised state).
const BGRL: Tol = Tol {
    loss: 1e-6,
    grad: 5e-6,
    stat: 3e-6,
    update: Some(3e-3),
};

/// BGRL's target encoder's GCN biases, each right before a batch norm. The target moves
/// by (1 − τ) of the online encoder's update, and the online update of such a bias is
/// Adam's ±lr step on a rounding-noise gradient (its exact gradient is zero), which the
/// update comparison leaves out ([`NOISE`]); the target keeps (1 − τ) of that
/// difference. Measured: 9e-4 (with lr 0.01 and τ from 0.9, as the case runs it). The
/// moving average is plain libtorch arithmetic in both forms (no kernel), and the online
/// update and the target's statistics stay under [`BGRL`], so this loosens nothing a
/// kernel computes.
const TARGET_BIAS: Tol = Tol { stat: 5e-3, ..BGRL };

/// Gradients smaller than this fraction of the model's largest gradient are rounding
/// noise (e.g. a bias right before batch norm, whose exact gradient is zero): Adam turns
/// them into ±lr steps of either sign, so their updates are not compared.
const NOISE: f64 = 1e-3;

/// Compares one step of the two models from the same state `before`; returns whether all
/// results were the same bits, and the worst deviations.
fn check_step(
    case: &str,
    lr: f64,
    tol: &dyn Fn(&str) -> Tol,
    (lk, kernel): (f64, &[Entry]),
    (lr_, reference): (f64, &[Entry]),
    before: &[Entry],
) -> (bool, Worst) {
    assert!(
        lk.is_finite() && lr_.is_finite(),
        "{case}: loss {lk} vs {lr_}"
    );
    let mut worst = Worst {
        loss: (lk - lr_).abs() / (1.0 + lr_.abs()),
        ..Worst::default()
    };
    assert!(
        worst.loss <= tol("0/").loss,
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
                worst.grad = worst.grad.max(gap / grad_scale);
                assert!(
                    gap <= t.grad * grad_scale,
                    "{case}: gradient of {name} off by {gap} (largest gradient {grad_scale})"
                );
                // updates where the gradient is not noise
                if let Some(update) = t.update {
                    let mask = gr.abs().ge(NOISE * grad_scale).to_kind(Kind::Double);
                    let gap = ((&pk - &p0) - (&pr - &p0)).abs() * mask;
                    let gap = gap.max().double_value(&[]);
                    // (a learning rate of 0, BGRL's first warm-up step, moves nothing)
                    worst.update = worst.update.max(if lr > 0.0 { gap / lr } else { gap });
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
                worst.stat = worst.stat.max(gap / scale);
                assert!(
                    gap <= t.stat * scale,
                    "{case}: {name} off by {gap} (largest magnitude {scale})"
                );
            }
            (None, None) => {}
            _ => panic!("{case}: {name} has a gradient in one form only"),
        }
    }
    (same, worst)
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

/// A graph-level method in lockstep on `data` in batches of 16, epoch after epoch; after
/// each epoch's last batch but the run's, [`GraphMethod::end_epoch`] (JOAOv2's min–max
/// step, MVGRL's kept model; its mean loss stands in as that batch's loss, which only
/// MVGRL's copy of its best epoch reads).
fn graph_lockstep<M: Stores + GraphMethod>(
    case: &str,
    cfg: &RunConfig,
    data: &GraphData,
    tol: &dyn Fn(&str) -> Tol,
    make: impl Fn() -> M,
) -> Worst {
    let epochs: Vec<Vec<Vec<usize>>> = (0..STEPS)
        .map(|e| epoch_batches(data.views.len(), 16, cfg.seed, e))
        .collect();
    let batches: Vec<(usize, usize)> = (0..)
        .flat_map(|e| (0..epochs[e].len()).map(move |b| (e, b)))
        .take(STEPS)
        .collect();
    lockstep(case, cfg.seed, &|_| cfg.lr, tol, make, |m, k| {
        let (epoch, b) = batches[k];
        let loss = m.step(data, &epochs[epoch][b], epoch, k as u64).unwrap();
        if k + 1 < STEPS && b + 1 == epochs[epoch].len() {
            m.end_epoch(data, &epochs[epoch], epoch, loss, false)
                .unwrap();
        }
        loss
    })
}

/// A node-level method in lockstep on the node toy set, one full-graph step per epoch;
/// step `k`'s learning rate is `lr(k)`.
fn node_lockstep<M: Stores + EpochStep>(
    case: &str,
    cfg: &RunConfig,
    lr: &dyn Fn(usize) -> f64,
    tol: &dyn Fn(&str) -> Tol,
    make: impl Fn() -> M,
) -> Worst {
    lockstep(case, cfg.seed, lr, tol, make, |m, k| {
        m.step(k).unwrap().double_value(&[])
    })
}

/// Builds a graph-level method for input features of a width.
type GraphNew<M> = fn(&Checked<MethodParams>, usize, Device) -> Result<M>;

/// A graph-level method built by `new` in lockstep on 48 random graphs with 3 features
/// (drawn from `data_seed`), once under each MA setting of `settings` with `overrides`
/// beside it, its cases named `label, ma …`.
fn graph_cases<M: Stores + GraphMethod>(
    (label, method): (&str, MethodName),
    data_seed: u64,
    settings: &[serde_json::Value],
    overrides: serde_json::Value,
    tol: Tol,
    new: GraphNew<M>,
) {
    let data = random_views(48, 3, data_seed);
    for ma in settings {
        let mut overrides = overrides.clone();
        overrides["ma"] = ma.clone();
        let cfg = config(method, None, 7, overrides);
        graph_lockstep(&format!("{label}, ma {ma}"), &cfg, &data, &|_| tol, || {
            new(&cfg.method_params().unwrap(), 3, Device::Cpu).unwrap()
        });
    }
}

fn graphcl(method: MethodName) {
    let eps = json!({"gin_eps": 0.2});
    graph_cases(
        ("GraphCL", method),
        1,
        &ma_settings(),
        eps,
        TIGHT,
        GraphCl::new,
    );
}

fn simgrace(method: MethodName) {
    let settings = ma_settings();
    graph_cases(
        ("SimGRACE", method),
        2,
        &settings,
        json!({}),
        TIGHT,
        SimGrace::new,
    );
}

fn adgcl(method: MethodName) {
    let data = random_views(48, 3, 3);
    // without MA: the learned augmenter (soft edge weights: the weighted sparse products
    // and the view learner's own optimiser); with MA: the fixed augmenter, every GIN mode
    for ma in ma_settings() {
        let cfg = config(method, None, 7, json!({"ma": ma}));
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
        graph_lockstep(&case, &cfg, &data, &tol, || {
            AdGcl::new(&cfg.method_params().unwrap(), 3, Device::Cpu).unwrap()
        });
    }
}

fn base(method: MethodName) {
    let ds = toy_dataset(90);
    for (preset, ma) in [("code", false), ("code", true), ("paper", true)] {
        let cfg = config(method, Some(preset), 4, node_overrides(ma));
        let case = format!("node level, {preset}, ma {ma}");
        node_lockstep(&case, &cfg, &|_| cfg.lr, &|_| TIGHT, || {
            NodeModel::new(&cfg.method_params().unwrap(), &ds, Device::Cpu).unwrap()
        });
    }
}

/// No MA, and MA in the mode of the most varied schedules (`filter`: 0–3 propagations a
/// layer); GraphCL's case runs the other modes through the same encoder.
fn ma_off_and_filter() -> [serde_json::Value; 2] {
    let settings = ma_settings();
    [settings[0].clone(), settings[MODES.len()].clone()]
}

fn infograph(method: MethodName) {
    let small = json!({"hidden": 16});
    let settings = ma_off_and_filter();
    graph_cases(
        ("InfoGraph", method),
        5,
        &settings,
        small,
        INFOGRAPH,
        InfoGraph::new,
    );
}

fn joaov2(method: MethodName) {
    // the released code's one head per epoch, and the paper's head per graph (the
    // gathered projections)
    for (ma, heads) in ma_off_and_filter()
        .into_iter()
        .zip(["epoch", "augmentation"])
    {
        let label = format!("JOAOv2, heads {heads}");
        let joao = json!({"hidden": 16, "joao": {"gamma": 0.1, "heads": heads, "ratio": 0.2}});
        graph_cases((&label, method), 6, &[ma], joao, JOAOV2, JoaoV2::new);
    }
}

fn mvgrl(method: MethodName) {
    let data = random_views(48, 3, 8);
    // `code`: only the heads train, on top of frozen GCNs; `paper`: the GCNs too (the
    // backward of both views' sparse products)
    for (preset, ma) in [("code", false), ("paper", false), ("paper", true)] {
        let cfg = config(
            method,
            Some(preset),
            7,
            json!({"ma": {"enabled": ma}, "hidden": 16, "layers": 3}),
        );
        let case = format!("MVGRL, {preset}, ma {ma}");
        graph_lockstep(&case, &cfg, &data, &|_| MVGRL, || {
            Mvgrl::new(&cfg.method_params().unwrap(), &data, Device::Cpu).unwrap()
        });
    }
}

/// The overrides of the node-level cases: a small model, the loss in blocks of 7 rows.
fn node_overrides(ma: bool) -> serde_json::Value {
    json!({
        "ma": {"enabled": ma}, "hidden": 16, "lr": 0.01,
        "node": {"proj_hidden": 16, "loss_block_rows": 7}
    })
}

fn grace(method: MethodName) {
    let ds = toy_dataset(90);
    for ma in [false, true] {
        let cfg = config(method, None, 4, node_overrides(ma));
        node_lockstep(
            &format!("GRACE, ma {ma}"),
            &cfg,
            &|_| cfg.lr,
            &|_| GRACE,
            || {
                let p = cfg.method_params().unwrap();
                NodeModel::with_variant(&p, &ds, Device::Cpu, grace::variant()).unwrap()
            },
        );
    }
}

fn gca(method: MethodName) {
    let ds = toy_dataset(90);
    for ma in [false, true] {
        let cfg = config(method, None, 4, node_overrides(ma));
        node_lockstep(
            &format!("GCA, ma {ma}"),
            &cfg,
            &|_| cfg.lr,
            &|_| GRACE,
            || {
                let p = cfg.method_params().unwrap();
                let gca = p.sections.require::<GcaParams>("gca").unwrap();
                let node = p.sections.require::<NodeParams>("gca").unwrap();
                let variant = NodeVariant {
                    adaptive: adaptive_drops(&ds, &gca, &node),
                    ..grace::variant()
                };
                assert!(variant.adaptive.is_some(), "GCA's preset drops by degree");
                NodeModel::with_variant(&p, &ds, Device::Cpu, variant).unwrap()
            },
        );
    }
}

fn bgrl(method: MethodName) {
    let ds = toy_dataset(90);
    let warmup = 2;
    for ma in [false, true] {
        let mut overrides = node_overrides(ma);
        overrides["epochs"] = json!(STEPS);
        overrides["bgrl"] = json!({"momentum": 0.9, "warmup_epochs": warmup});
        let cfg = config(method, None, 4, overrides);
        // the run's schedule: warm-up from 0, then a half cosine over the 20 steps
        let lr = |k| bgrl::learning_rate(cfg.lr, k, warmup, STEPS);
        let tol = |name: &str| {
            if name.starts_with("1/encoder.conv") && name.ends_with(".bias") {
                TARGET_BIAS
            } else {
                BGRL
            }
        };
        node_lockstep(&format!("BGRL, ma {ma}"), &cfg, &lr, &tol, || {
            Bgrl::new(&cfg.method_params().unwrap(), &ds, Device::Cpu, false).unwrap()
        });
    }
}

/// One test per trained method, `$test` running `$run` on the registered method `$name`;
/// [`CASES`] lists their names.
macro_rules! cases {
    ($($test:ident: $name:literal => $run:ident;)*) => {
        /// The registry names of the methods with a differential case.
        const CASES: &[&str] = &[$($name),*];
        $(
            #[test]
            fn $test() {
                let _g = crate::rng::torch_lock();
                $run(MethodName::parse($name).unwrap());
            }
        )*
    };
}

cases! {
    graphcl_trains_the_same_with_kernels_and_reference_operations: "graphcl" => graphcl;
    simgrace_trains_the_same_with_kernels_and_reference_operations: "simgrace" => simgrace;
    adgcl_trains_the_same_with_kernels_and_reference_operations: "adgcl" => adgcl;
    infograph_trains_the_same_with_kernels_and_reference_operations: "infograph" => infograph;
    joaov2_trains_the_same_with_kernels_and_reference_operations: "joaov2" => joaov2;
    mvgrl_trains_the_same_with_kernels_and_reference_operations: "mvgrl" => mvgrl;
    node_model_trains_the_same_with_kernels_and_reference_operations: "base" => base;
    grace_trains_the_same_with_kernels_and_reference_operations: "grace" => grace;
    gca_trains_the_same_with_kernels_and_reference_operations: "gca" => gca;
    bgrl_trains_the_same_with_kernels_and_reference_operations: "bgrl" => bgrl;
}

/// A method that trains (every registered one but the baselines: the untrained encoder,
/// WL, degree and raw features make no gradient step) has a case above, so a new method
/// cannot be left out; the cases name registered methods that train.
#[test]
fn every_trained_method_has_a_differential_case() {
    for e in BUILTIN {
        assert!(
            e.baseline || CASES.contains(&e.name),
            "{}: add its case to the differential tests (crates/magcl-torch/src/experiment/differential.rs)",
            e.name
        );
    }
    for name in CASES {
        let e = crate::methods::registry::find(name).unwrap();
        assert_eq!(e.name, *name, "a case runs {name}, an alias of {}", e.name);
        assert!(!e.baseline, "{name} is a baseline: it does not train");
    }
}
