//! GraphCL (You et al. 2020) and GraphCL+MA: the original graph (the loss's anchors)
//! against one augmented view (the candidates, i.e. the negatives). With MA, `ma.k_branch`
//! says which branch follows schedule K: the original one under `unaugmented` (the default)
//! and `anchor`, the augmented one under `negatives`; the other follows K′.
use tch::Device;

use super::CheckedParts;
use super::{Checked, MethodParams};
use super::{MethodEntry, Preset, PresetRequest};
use crate::augment::{self, augment_views, AugParams, Augmentor};
use crate::error::Result;
use crate::eval::Evaluator;
use crate::graph::Batch;
use crate::loss::{InfoNce, InfoNceParams};
use crate::ma::{self, MaParams, ScheduleSampler};
use crate::params::{section, MethodTable, Task};
use crate::train::branches;
use crate::train::encoder::Tower;
use crate::train::graph::{GraphData, GraphMethod, GraphRunner};
use crate::train::optim::Adam;
use crate::train::state::StateVisitor;

pub struct GraphCl {
    pub model: Tower,
    opt: Adam,
    loss: InfoNce,
    policy: Box<dyn Augmentor>,
    sampler: Box<dyn ScheduleSampler>,
    /// Whether the original graph follows K (else the augmented view does; `ma.k_branch`).
    pub(crate) k_first: bool,
    seed: u64,
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::graphcl::DECL,
    "GraphCL (You et al. 2020): a graph and its augmented view, GIN encoder",
    preset,
    |p, data, device, progress| {
        GraphRunner::boxed(&ENTRY, p, data, progress, |g| {
            GraphCl::new(p, g.dim, device)
        })
    },
)
.sections(&[section::<AugParams>()])
.cost(|p, size| 2.5e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges));

/// GraphCL's unsupervised TU setup (the official `unsupervised_TU` code: `go.sh`,
/// `gsimclr.py`, `gin.py`, `aug.py`, `evaluate_embedding.py`): 20 epochs, Adam at 0.01,
/// batch 128, a 3-layer GIN of width 32 with sum readout,
/// NT-Xent at T = 0.2 with the original graph as anchor, random pairs of augmentations
/// at ratio 0.1 (subgraph 0.2), embeddings scored by an RBF SVM in 10-fold CV.
fn preset(req: &PresetRequest) -> Result<Preset> {
    if req.name.is_some() {
        return Err(req.unknown_name(&ENTRY));
    }
    let mut sections = MethodTable::default();
    sections.set(&AugParams::default())?;
    Ok(Preset {
        task: Task::Graph,
        epochs: 20,
        lr: 0.01,
        weight_decay: 0.0,
        batch_size: 128,
        hidden: 32,
        layers: 3,
        features: ENTRY.features(),
        evaluator: Evaluator::SvcRbf,
        gin_eps: 0.0,
        loss: InfoNceParams::graph_level(false),
        ma: MaParams::default(),
        pretrain: Default::default(),
        sections,
    })
}

impl GraphCl {
    pub fn new(p: &Checked<MethodParams>, input_dim: usize, device: Device) -> Result<GraphCl> {
        let model = Tower::new(&p.gin(), &p.ma(), input_dim, device);
        let opt = Adam::new(&model.vs, p.train.lr, p.train.weight_decay)?;
        let aug = p.sections.require::<AugParams>("graphcl")?;
        let sampler = ma::sampler(
            &p.ma(),
            p.gin.layers,
            model.encoder.plain_schedule(),
            p.train.seed,
        );
        // The original graph is the anchor (one-way loss) and is not augmented.
        let k_first = ma::k_first(
            p.ma.k_branch,
            ma::Branches {
                first_is_anchor: true,
                first_is_unaugmented: true,
                symmetric: p.loss.symmetric,
            },
        );
        Ok(GraphCl {
            model,
            opt,
            loss: InfoNce::new(p.loss(), 0),
            policy: augment::from_params(&aug),
            sampler,
            k_first,
            seed: p.train.seed,
        })
    }
}

impl GraphMethod for GraphCl {
    /// The tower and the optimiser (augmentations and MA schedules come from keyed
    /// streams).
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        v.var_store("model", &self.model.vs)?;
        self.opt.visit_state("adam", v)
    }
    fn has_branches(&self) -> bool {
        true
    }

    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64> {
        let device = self.model.vs.device();
        let (k1, k2) = ma::place(self.sampler.sample(step, epoch as u64), self.k_first);
        let (model, policy, seed) = (&self.model, self.policy.as_ref(), self.seed);
        // The two views' forward passes, at the same time where `branches` allows.
        // SAFETY: both closures only read the shared model and data, and each builds its
        // own batch and graph tensors.
        let (z1, z2) = unsafe {
            branches::forward_pair(
                device,
                || {
                    let original = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
                    model.project(&original.to_tensors(device), &k1, true)
                },
                || {
                    let augmented = augment_views(&data.views, ids, policy, seed, epoch);
                    let augmented = Batch::collate(&augmented, data.dim);
                    model.project(&augmented.to_tensors(device), &k2, true)
                },
            )
        };
        // The loss's gradient with respect to each view's output, then each view's
        // backward pass (again at the same time where allowed).
        let (u1, u2) = (branches::leaf(&z1), branches::leaf(&z2));
        let loss = self.loss.loss(&u1, &u2);
        self.opt.zero_grad();
        loss.backward();
        branches::backward_pair(device, (z1, u1.grad()), (z2, u2.grad()));
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

    use crate::methods::graphcl::*;
    use crate::methods::tests::TestConfig;
    use crate::train::graph::tests::train_toy;
    use tch::Device;

    fn config(ma: bool) -> TestConfig {
        config_with(serde_json::json!({"ma": {"enabled": ma}}))
    }

    /// Two epochs of batches of 16 with `overrides` on top.
    fn config_with(overrides: serde_json::Value) -> TestConfig {
        let mut o = serde_json::json!({"epochs": 2, "batch_size": 16});
        o.as_object_mut()
            .unwrap()
            .extend(serde_json::from_value::<serde_json::Map<_, _>>(overrides).unwrap());
        TestConfig::new("graphcl", "toy", None, 3, o).unwrap()
    }

    #[test]
    fn each_reading_places_k_and_sets_the_evaluation_encoder() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // (reading, original graph follows K, evaluation schedule)
        for (reading, k_first, eval) in [
            ("current", true, [1, 1, 1]),
            ("code", true, [2, 2, 2]),
            ("paper", false, [1, 1, 1]),
        ] {
            let cfg = config_with(serde_json::json!({"ma": {"enabled": true, "reading": reading}}));
            let m = GraphCl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
            assert_eq!(m.k_first, k_first, "{reading}");
            assert_eq!(m.model.eval_schedule, eval, "{reading}");
        }
        let m = GraphCl::new(&config(false).method_params().unwrap(), 1, Device::Cpu).unwrap();
        assert_eq!(
            m.model.eval_schedule,
            [1, 1, 1],
            "the baseline evaluates plain GIN"
        );
    }

    /// One short training run. The caller holds [`crate::rng::torch_lock`]; the thread
    /// count is set first, as an earlier test (or run) may have left another.
    fn run(cfg: &TestConfig) -> (Vec<f64>, Vec<f32>) {
        let (_, losses, emb) = train_toy(cfg, |p| GraphCl::new(p, 1, Device::Cpu).unwrap());
        assert_eq!(emb.len(), 40 * 96);
        (losses, emb)
    }

    /// The two views' passes at the same time (`branches`) give the numbers of running them
    /// one after the other, bit for bit: losses, embeddings and batch-norm estimates.
    #[test]
    fn concurrent_views_change_no_number() {
        let _g = crate::rng::torch_lock();
        for ma in [false, true] {
            crate::train::graph::tests::assert_branch_concurrency_changes_nothing(
                &config(ma),
                |p| GraphCl::new(p, 1, Device::Cpu).unwrap(),
                |m| &m.model.encoder.bns,
                &format!("MA {ma}"),
            );
        }
    }

    #[test]
    fn same_seed_same_losses_and_embeddings() {
        let _g = crate::rng::torch_lock();
        for ma in [
            serde_json::json!({"enabled": false}),
            serde_json::json!({"enabled": true}),
            serde_json::json!({"enabled": true, "reading": "code"}),
            serde_json::json!({"enabled": true, "reading": "paper"}),
        ] {
            let cfg = config_with(serde_json::json!({ "ma": ma }));
            let (l1, e1) = run(&cfg);
            let (l2, e2) = run(&cfg);
            assert_eq!(l1, l2);
            assert!(e1 == e2, "embeddings differ");
            assert!(l1.iter().all(|l| l.is_finite()));
        }
    }
}
