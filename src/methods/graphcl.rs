//! GraphCL (You et al. 2020) and GraphCL+MA: the original graph (the loss's anchors)
//! against one augmented view (the candidates, i.e. the negatives). With MA, `ma.k_branch`
//! says which branch follows schedule K: the original one under `unaugmented` (the default)
//! and `anchor`, the augmented one under `negatives`; the other follows K′.
use tch::Device;

use super::optim::Adam;
use super::MethodEntry;
use super::{Checked, GraphRunner, MethodParams};
use super::{GraphData, GraphMethod, Tower};
use crate::augment::{self, augment_views, Augmentor};
use crate::error::Result;
use crate::graph::Batch;
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
    pub(crate) k_first: bool,
    seed: u64,
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry {
    name: "graphcl",
    aliases: &[],
    tasks: &[Task::Graph],
    baseline: false,
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
        })
    }
}

impl GraphMethod for GraphCl {
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64> {
        let device = self.model.vs.device();
        let (k1, k2) = ma::place(self.sampler.sample(step, epoch as u64), self.k_first);
        let original = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
        let augmented = augment_views(&data.views, ids, self.policy.as_ref(), self.seed, epoch);
        let augmented = Batch::collate(&augmented, data.dim);
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

    fn calibrate_batch_norm(&mut self, data: &GraphData) -> Result<()> {
        self.model.calibrate_batch_norm(data)
    }
}
