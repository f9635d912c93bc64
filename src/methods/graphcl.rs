//! GraphCL (You et al. 2020) and GraphCL+MA: the original graph against one augmented view.
//! With MA the original branch follows schedule K and the augmented branch K′.
use tch::Device;

use super::optim::Adam;
use super::{views, GraphData, GraphMethod, Tower};
use crate::augment::{augment_views, AugPolicy};
use crate::error::Result;
use crate::experiment::config::RunConfig;
use crate::graph::Batch;
use crate::loss::InfoNce;
use crate::ma::{self, ScheduleSampler};

pub struct GraphCl {
    pub model: Tower,
    opt: Adam,
    loss: InfoNce,
    policy: AugPolicy,
    sampler: Box<dyn ScheduleSampler>,
    seed: u64,
    /// The trainable parameters, in the variable store's order (CPU steps set their
    /// gradients).
    params: Vec<tch::Tensor>,
}

impl GraphCl {
    pub fn new(cfg: &RunConfig, input_dim: usize, device: Device) -> Result<GraphCl> {
        let model = Tower::new(cfg, input_dim, device);
        let opt = Adam::new(&model.vs, cfg.lr, cfg.weight_decay)?;
        let params = model.vs.trainable_variables();
        let aug = cfg.augment.clone().unwrap_or_default();
        let sampler = ma::sampler(
            &cfg.ma,
            cfg.layers,
            model.encoder.plain_schedule(),
            cfg.seed,
        );
        Ok(GraphCl {
            model,
            opt,
            loss: InfoNce::new(cfg.loss.clone(), 0),
            policy: AugPolicy::from_config(&aug)?,
            sampler,
            seed: cfg.seed,
            params,
        })
    }
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
            let _ = augment_views(&data.views, ids, &self.policy, self.seed, epoch);
        }
        lap("augment", t);
        let augmented = augment_views(&data.views, ids, &self.policy, self.seed, epoch);
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
        let (k1, k2) = self.sampler.sample(step);
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
    /// One step on the CPU: the two views' forward and backward passes run concurrently
    /// (see [`super::views`]).
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
        let original = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
        let augmented = augment_views(&data.views, ids, &self.policy, self.seed, epoch);
        let augmented = Batch::collate(&augmented, data.dim);
        let (k1, k2) = self.sampler.sample(step);
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
    use crate::experiment::config::{MethodName, RunSpec};
    use crate::methods::{tests::toy_data, train_graph_method, LoopConfig};

    fn config(ma: bool) -> RunConfig {
        let mut spec = RunSpec {
            method: Some(MethodName::Graphcl),
            dataset: "toy".into(),
            seed: 3,
            ..Default::default()
        };
        spec.overrides = serde_json::from_value(
            serde_json::json!({"ma": {"enabled": ma}, "epochs": 2, "batch_size": 16}),
        )
        .unwrap();
        RunConfig::resolve(&spec).unwrap()
    }

    fn run(cfg: &RunConfig) -> (Vec<f64>, Vec<f32>) {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(cfg.seed as i64);
        let data = toy_data(40);
        let mut m = GraphCl::new(cfg, 1, Device::Cpu).unwrap();
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

    #[test]
    fn same_seed_same_losses_and_embeddings() {
        for ma in [false, true] {
            let cfg = config(ma);
            let (l1, e1) = run(&cfg);
            let (l2, e2) = run(&cfg);
            assert_eq!(l1, l2);
            assert!(e1 == e2, "embeddings differ");
            assert!(l1.iter().all(|l| l.is_finite()));
        }
    }
}
