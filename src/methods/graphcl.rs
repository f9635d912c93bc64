//! GraphCL (You et al. 2020) and GraphCL+MA: the original graph (the loss's anchors)
//! against one augmented view (the candidates, i.e. the negatives). With MA, `ma.k_branch`
//! says which branch follows schedule K: the original one under `unaugmented` (the default)
//! and `anchor`, the augmented one under `negatives`; the other follows K′.
use tch::Device;

use super::optim::Adam;
use super::{Checked, GraphRunner, MethodParams};
use super::{GraphData, GraphMethod, Tower};
use super::{MethodEntry, Preset, PresetRequest};
use crate::augment::{self, augment_views, AugParams, Augmentor};
use crate::error::Result;
use crate::graph::Batch;
use crate::loss::{InfoNce, InfoNceParams};
use crate::ma::{self, MaParams, ScheduleSampler};
use crate::params::{section, MethodTable, Task};

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
    "graphcl",
    &[Task::Graph],
    "GraphCL (You et al. 2020): a graph and its augmented view, GIN encoder",
    preset,
    |p, data, device, progress| {
        let g = data.graphs("graphcl")?;
        Ok(Box::new(GraphRunner::new(
            GraphCl::new(p, g.dim, device)?,
            g,
            &p.train,
            progress,
        )))
    },
)
.sections(&[section::<AugParams>()])
.cost(|p, size| 2.5e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges));

/// GraphCL's unsupervised TU setup (REFERENCE.md §1.2; the official `unsupervised_TU`
/// code): 20 epochs, Adam at 0.01, batch 128, a 3-layer GIN of width 32 with sum readout,
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
        features: "graphcl".into(),
        evaluator: "svc-rbf".into(),
        gin_eps: 0.0,
        loss: InfoNceParams::graph_level(false),
        ma: MaParams::default(),
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
            policy: augment::from_params(&aug)?,
            sampler,
            k_first,
            seed: p.train.seed,
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
        let t = Instant::now();
        for _ in 0..reps {
            self.opt.step();
        }
        lap("optimiser step", t);
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
