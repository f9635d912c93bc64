//! GraphCL (You et al. 2020) and GraphCL+MA: the original graph (the loss's anchors)
//! against one augmented view (the candidates, i.e. the negatives). With MA, `ma.k_branch`
//! says which branch follows schedule K: the original one under `unaugmented` (the default)
//! and `anchor`, the augmented one under `negatives`; the other follows K′.
use tch::Device;

use super::optim::Adam;
use super::registry::MethodEntry;
use super::{views, GraphData, GraphMethod, Tower};
use super::{Checked, GraphRunner, MethodParams};
use crate::augment::{self, augment_views, augment_views_here, Augmentor};
use crate::error::Result;
use crate::graph::Batch;
use crate::kernels::{cpu_f32, cpu_f32_mut};
use crate::loss::InfoNce;
use crate::ma::{self, ScheduleSampler};
use crate::params::Task;

pub struct GraphCl {
    pub model: Tower,
    opt: Adam,
    loss: InfoNce,
    policy: Box<dyn Augmentor>,
    sampler: Box<dyn ScheduleSampler>,
    /// Whether the original graph follows K (else the augmented view does; `ma.k_branch`).
    k_first: bool,
    seed: u64,
    /// The trainable parameters, in the variable store's order (CPU steps set their
    /// gradients).
    params: Vec<tch::Tensor>,
    /// For each gradient of [`Tower::view_forward`]'s tape, the index of its parameter in
    /// `params`; `None` when the plain-code views do not apply to this model.
    view_slots: Option<Vec<usize>>,
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry {
    name: "graphcl",
    aliases: &[],
    task: Task::Graph,
    preset: "graphcl",
    about: "GraphCL (You et al. 2020): a graph and its augmented view, GIN encoder",
    build: |p, data, device, progress| {
        let g = data.graphs("graphcl")?;
        Ok(Box::new(GraphRunner::new(
            GraphCl::new(p, g.dim, device)?,
            g,
            &p.train,
            progress,
        )))
    },
};

impl GraphCl {
    pub fn new(p: &Checked<MethodParams>, input_dim: usize, device: Device) -> Result<GraphCl> {
        let model = Tower::new(&p.gin, &p.ma, input_dim, device);
        let opt = Adam::new(&model.vs, p.train.lr, p.train.weight_decay)?;
        let params = model.vs.trainable_variables();
        let view_slots = view_slots(&model, &params, device);
        let aug = p.augment.clone().unwrap_or_default();
        let sampler = ma::sampler(
            &p.ma,
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
            loss: InfoNce::new(p.loss.clone(), 0),
            policy: augment::from_params(&aug)?,
            sampler,
            k_first,
            seed: p.train.seed,
            params,
            view_slots,
        })
    }
}

/// Where each of the plain-code views' gradients goes in `params` (matched by storage),
/// or `None` if they do not cover every parameter exactly once, the model is not on the
/// CPU, or `MAGCL_AUTOGRAD_STEP=1` asks for the autograd form (for comparisons).
fn view_slots(model: &Tower, params: &[tch::Tensor], device: Device) -> Option<Vec<usize>> {
    if device != Device::Cpu || std::env::var("MAGCL_AUTOGRAD_STEP").as_deref() == Ok("1") {
        return None;
    }
    let order = model.view_parameters()?;
    let slots: Vec<usize> = order
        .iter()
        .map(|t| params.iter().position(|p| p.data_ptr() == t.data_ptr()))
        .collect::<Option<_>>()?;
    let mut seen = vec![false; params.len()];
    for &s in &slots {
        if std::mem::replace(&mut seen[s], true) {
            return None;
        }
    }
    seen.iter().all(|&b| b).then_some(slots)
}

impl GraphCl {
    /// Prints the time of each part of one step (development aid for the speed work).
    pub fn profile_step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) {
        use std::time::Instant;
        let reps = 20;
        let device = self.model.vs.device();
        let lap = |what: &str, t: Instant| {
            println!(
                "  {what:28} {:8.3} ms",
                t.elapsed().as_secs_f64() * 1e3 / reps as f64
            )
        };
        let t = Instant::now();
        for _ in 0..reps {
            let _ = augment_views(&data.views, ids, self.policy.as_ref(), self.seed, epoch);
        }
        lap("augment", t);
        let augmented = augment_views(&data.views, ids, self.policy.as_ref(), self.seed, epoch);
        let t = Instant::now();
        for _ in 0..reps {
            let _ = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
            let _ = Batch::collate(&augmented, data.dim);
        }
        lap("collate (both)", t);
        let original = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
        let augmented = Batch::collate(&augmented, data.dim);
        let t = Instant::now();
        for _ in 0..reps {
            let g1 = original.to_tensors(device);
            let g2 = augmented.to_tensors(device);
            let _ = (g1.adjacency(), g2.adjacency());
        }
        lap("tensors + adjacency (both)", t);
        let (k1, k2) = ma::place(self.sampler.sample(step, epoch as u64), self.k_first);
        let g1 = original.to_tensors(device);
        let g2 = augmented.to_tensors(device);
        let t = Instant::now();
        for _ in 0..reps {
            let _ = self.model.project(&g1, &k1, true);
            let _ = self.model.project(&g2, &k2, true);
        }
        lap("forward (both views)", t);
        let t = Instant::now();
        for _ in 0..reps {
            let z1 = self.model.project(&g1, &k1, true);
            let z2 = self.model.project(&g2, &k2, true);
            let _ = self.loss.loss(&z1, &z2);
        }
        lap("forward + loss", t);
        let t = Instant::now();
        for _ in 0..reps {
            let z1 = self.model.project(&g1, &k1, true);
            let z2 = self.model.project(&g2, &k2, true);
            let loss = self.loss.loss(&z1, &z2);
            self.opt.zero_grad();
            loss.backward();
        }
        lap("forward + loss + backward", t);
        if device == Device::Cpu {
            let t = Instant::now();
            for _ in 0..reps {
                let _ = views::forward_pair(
                    || self.model.project_deferred(&g1, &k1),
                    || self.model.project_deferred(&g2, &k2),
                );
            }
            lap("forward, views concurrently", t);
            let t = Instant::now();
            for _ in 0..reps {
                let (z1, _) = self.model.project_deferred(&g1, &k1);
                let (z2, _) = self.model.project_deferred(&g2, &k2);
                let (_, s1, s2) = self.loss.loss_per_view(&z1, &z2);
                let _ = tch::Tensor::run_backward(&[&s1], &self.params, false, false);
                let _ = tch::Tensor::run_backward(&[&s2], &self.params, false, false);
            }
            lap("the same, one after the other", t);
            let t = Instant::now();
            for _ in 0..reps {
                let ((z1, _), (z2, _)) = views::forward_pair(
                    || self.model.project_deferred(&g1, &k1),
                    || self.model.project_deferred(&g2, &k2),
                );
                let (_, s1, s2) = self.loss.loss_per_view(&z1, &z2);
                let _ = views::gradient_pair(&s1, &s2, &self.params);
            }
            lap("... concurrently", t);
        }
        let t = Instant::now();
        for _ in 0..reps {
            self.opt.step();
        }
        lap("optimiser step", t);
    }
}

impl GraphCl {
    /// One step on the CPU in plain code: both views concurrently, each task building its
    /// own batch (the second augments its graphs on its thread: the same views as
    /// [`augment_views`], one stream per graph) and running its forward pass
    /// ([`Tower::view_forward`]), then the loss and its gradients with respect to the two
    /// projections ([`crate::kernels::info_nce`]), then both backward passes concurrently,
    /// at a fraction of libtorch's per-operation cost. The views compute what
    /// [`Self::step_cpu`]'s autograd graph computes, bit for bit; the loss sums in another
    /// order, so a step agrees with [`Self::step_cpu`] to rounding (both tested). `None`
    /// (nothing changed) where the plain-code view does not apply to a batch.
    fn step_views(
        &mut self,
        data: &GraphData,
        ids: &[usize],
        epoch: usize,
        k1: &[usize],
        k2: &[usize],
    ) -> Option<f64> {
        // the plain-code loss has the inter-view negatives built in
        if !self.loss.cfg.inter_view_negatives {
            return None;
        }
        let slots = self.view_slots.as_ref()?;
        let (model, policy, seed) = (&self.model, self.policy.as_ref(), self.seed);
        // each view's task collates (and augments) its own batch
        let first = || {
            let b = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
            model.view_forward(&b.to_tensors(Device::Cpu), k1)
        };
        let second = || {
            let augmented = augment_views_here(&data.views, ids, policy, seed, epoch);
            let b = Batch::collate(&augmented, data.dim);
            model.view_forward(&b.to_tensors(Device::Cpu), k2)
        };
        let (v1, v2) = views::view_pair(first, second);
        let ((z1, stats1, tape1), (z2, stats2, tape2)) = (v1?, v2?);
        let (value, dz1, dz2) = crate::kernels::info_nce(&z1, &z2, &self.loss.cfg);
        let (g1, g2) = views::view_pair(|| tape1.backward(&dz1), || tape2.backward(&dz2));
        self.model.encoder.fold_stats(&stats1);
        self.model.encoder.fold_stats(&stats2);
        for ((&slot, a), b) in slots.iter().zip(g1).zip(g2) {
            // the pair's sum, as autograd's path adds its two views' gradients
            let sum = match (cpu_f32_mut(&a), cpu_f32(&b)) {
                (Some(x), Some(y)) if x.len() == y.len() => {
                    x.iter_mut().zip(y).for_each(|(x, &y)| *x += y);
                    a
                }
                _ => a + b,
            };
            crate::kernels::set_grad(&self.params[slot], &sum);
        }
        self.opt.step();
        Some(value)
    }

    /// One step on the CPU through autograd: the two views' forward and backward passes
    /// run concurrently (see [`super::views`]).
    fn step_cpu(&mut self, original: &Batch, augmented: &Batch, k1: &[usize], k2: &[usize]) -> f64 {
        let model = &self.model;
        let forward =
            |b: &Batch, k: &[usize]| model.project_deferred(&b.to_tensors(Device::Cpu), k);
        let ((z1, stats1), (z2, stats2)) =
            views::forward_pair(|| forward(original, k1), || forward(augmented, k2));
        let (value, s1, s2) = self.loss.loss_per_view(&z1, &z2);
        let grads = views::gradient_pair(&s1, &s2, &self.params);
        self.model.encoder.fold_stats(&stats1);
        self.model.encoder.fold_stats(&stats2);
        for (p, g) in self.params.iter().zip(&grads) {
            crate::kernels::set_grad(p, g);
        }
        self.opt.step();
        value.double_value(&[])
    }
}

impl GraphMethod for GraphCl {
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64> {
        let device = self.model.vs.device();
        let (k1, k2) = ma::place(self.sampler.sample(step, epoch as u64), self.k_first);
        if device == Device::Cpu && self.view_slots.is_some() {
            if let Some(loss) = views::on_pool(|| self.step_views(data, ids, epoch, &k1, &k2)) {
                return Ok(loss);
            }
        }
        let original = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
        let augmented = augment_views(&data.views, ids, self.policy.as_ref(), self.seed, epoch);
        let augmented = Batch::collate(&augmented, data.dim);
        if device == Device::Cpu {
            return Ok(views::on_pool(|| {
                self.step_cpu(&original, &augmented, &k1, &k2)
            }));
        }
        let g1 = original.to_tensors(device);
        let g2 = augmented.to_tensors(device);
        let z1 = self.model.project(&g1, &k1, true);
        let z2 = self.model.project(&g2, &k2, true);
        let loss = self.loss.loss(&z1, &z2);
        self.opt.zero_grad();
        loss.backward();
        self.opt.step();
        Ok(loss.double_value(&[]))
    }

    fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
        self.model.embed(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::config::{GinMode, MethodName, RunConfig, RunSpec};
    use crate::graph::GraphView;
    use crate::methods::{tests::toy_data, train_graph_method, GraphData, LoopConfig};
    use tch::{Kind, Tensor};

    fn config(ma: bool) -> RunConfig {
        config_with(serde_json::json!({"ma": {"enabled": ma}}))
    }

    /// Two epochs of batches of 16 with `overrides` on top.
    fn config_with(overrides: serde_json::Value) -> RunConfig {
        let mut spec = RunSpec {
            method: Some(MethodName::Graphcl),
            dataset: "toy".into(),
            seed: 3,
            ..Default::default()
        };
        let mut o: serde_json::Map<String, serde_json::Value> =
            serde_json::from_value(serde_json::json!({"epochs": 2, "batch_size": 16})).unwrap();
        o.extend(serde_json::from_value::<serde_json::Map<_, _>>(overrides).unwrap());
        spec.overrides = o;
        RunConfig::resolve(&spec).unwrap()
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
    fn run(cfg: &RunConfig) -> (Vec<f64>, Vec<f32>) {
        tch::set_num_threads(1);
        tch::manual_seed(cfg.seed as i64);
        let data = toy_data(40);
        let mut m = GraphCl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
        let lc = LoopConfig {
            epochs: cfg.epochs,
            batch_size: cfg.batch_size,
            seed: cfg.seed,
            progress: false,
        };
        let log = train_graph_method(&mut m, &data, &lc, |_, _| Ok(())).unwrap();
        let (emb, d) = m.embed(&data).unwrap();
        assert_eq!(d, 96);
        assert_eq!(emb.len(), 40 * 96);
        (log.epoch_losses, emb)
    }

    /// `count` graphs of 2–9 nodes with random undirected edges and `dim` random features.
    fn random_views(count: usize, dim: usize, seed: u64) -> Vec<GraphView> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..count)
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
            .collect()
    }

    #[test]
    fn plain_code_views_are_the_autograd_views_bit_for_bit() {
        // every propagation mode, ε = 0 and ε ≠ 0, schedules with 0–3 steps per layer
        let cases = [
            (GinMode::GinFilter, 0.0, [1, 1, 1]),
            (GinMode::GinFilter, 0.3, [0, 3, 2]),
            (GinMode::GinSum, 1.0, [2, 0, 1]),
            (GinMode::Filter, 0.0, [1, 2, 3]),
        ];
        let _g = crate::rng::torch_lock();
        for (case, (mode, eps, schedule)) in cases.into_iter().enumerate() {
            tch::manual_seed(case as i64);
            let mut cfg = config(false);
            cfg.ma.gin_mode = mode;
            cfg.ma.pi = 0.4;
            cfg.gin_eps = eps;
            let tower = Tower::new(&cfg.gin_params(), &cfg.ma, 3, Device::Cpu);
            // batch-norm scales and shifts away from their initial 1 and 0
            tch::no_grad(|| {
                for bn in &tower.encoder.bns {
                    for p in [bn.ws.as_ref().unwrap(), bn.bs.as_ref().unwrap()] {
                        let mut p = p.shallow_clone();
                        let _ = p.g_add_(&(p.randn_like() * 0.3));
                    }
                }
            });
            let views = random_views(11, 3, case as u64);
            let g = Batch::collate(&views, 3).to_tensors(Device::Cpu);
            let (z, stats) = tower.project_deferred(&g, &schedule);
            let dz = z.randn_like();
            let params: Vec<Tensor> = tower
                .view_parameters()
                .unwrap()
                .into_iter()
                .map(|p| p.shallow_clone())
                .collect();
            let surrogate = (&z * &dz).sum(Kind::Float);
            let grads = Tensor::run_backward(&[&surrogate], &params, false, false);
            let (z2, stats2, tape) = tower.view_forward(&g, &schedule).unwrap();
            let grads2 = tape.backward(&dz);
            assert!(z.detach().equal(&z2), "projections, case {case}");
            for (a, b) in stats.iter().zip(&stats2) {
                assert!(a.parts().0.equal(b.parts().0), "batch mean, case {case}");
                assert!(
                    a.parts().1.equal(b.parts().1),
                    "batch variance, case {case}"
                );
            }
            assert_eq!(grads.len(), grads2.len());
            for (k, (a, b)) in grads.iter().zip(&grads2).enumerate() {
                assert!(a.equal(b), "gradient {k}, case {case}");
            }
        }
    }

    #[test]
    fn plain_code_steps_follow_the_autograd_steps() {
        // The loss and its gradient with respect to the projections are computed in
        // another order than libtorch's, so the two steps agree to rounding, not in bits.
        // Compared: the first step's loss and the gradients it installs (the parameters
        // after it are not: Adam's first update is ±lr wherever a gradient is not zero, so
        // a gradient at rounding level flips a whole step).
        let cfg = config(true);
        let views = random_views(40, 3, 9);
        let data = GraphData {
            labels: vec![0; views.len()],
            views,
            dim: 3,
        };
        let ids: Vec<usize> = (0..40).step_by(2).collect();
        let mut runs = Vec::new();
        for plain in [true, false] {
            let _g = crate::rng::torch_lock();
            tch::manual_seed(cfg.seed as i64);
            let mut m = GraphCl::new(&cfg.method_params().unwrap(), 3, Device::Cpu).unwrap();
            assert!(m.view_slots.is_some());
            if !plain {
                m.view_slots = None;
            }
            let loss = m.step(&data, &ids, 0, 0).unwrap();
            let grads: Vec<Tensor> = m.params.iter().map(|p| p.grad().copy()).collect();
            runs.push((loss, grads));
        }
        let ((l1, g1), (l2, g2)) = (&runs[0], &runs[1]);
        assert!(
            (l1 - l2).abs() < 1e-5 * (1.0 + l2.abs()),
            "loss {l1} vs {l2}"
        );
        for (k, (a, b)) in g1.iter().zip(g2).enumerate() {
            let scale = b.abs().max().double_value(&[]);
            let gap = (a - b).abs().max().double_value(&[]);
            assert!(
                gap <= 1e-4 * scale + 1e-7,
                "gradient {k}: off by {gap} at scale {scale}"
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
