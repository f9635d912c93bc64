//! InfoGraph (Sun et al., ICLR 2020) and InfoGraph+MA: maximise the mutual information
//! between a graph's embedding and the embeddings of its nodes. One GIN encoder (GraphCL's,
//! which was built from InfoGraph's) gives every node its per-layer features concatenated
//! (the local features) and every graph the concatenation of its per-layer sum pools (the
//! global one); two discriminator heads map both into one space, where a node and its own
//! graph are a positive pair and a node and any other graph of the batch a negative one,
//! scored by the Jensen–Shannon estimator. No data augmentation, no projection head.
//!
//! With MA the encoder runs schedule K′ (MA's augmented view) in every step: InfoGraph has
//! one view, on the unaugmented graphs, and under the released code's reading K is the
//! plain encoder, so following K would leave MA nothing to change. The tricks shape K′
//! (R: redrawn per step or epoch; A: its wider range; S: every layer drawn, not only the
//! last), but there is no second view for them to make differ (docs/ma.md, "One view").
use tch::nn::{self, Module};
use tch::{Device, Tensor};

use super::CheckedParts;
use super::{Checked, MethodParams};
use super::{MethodEntry, Preset, PresetRequest};
use crate::error::Result;
use crate::graph::Batch;
use crate::loss::local_global_jsd;
use crate::ma::{self, ScheduleSampler};
use crate::nn::mlp::linear;
use crate::nn::{GinEncoder, GinStyle, Init};
use crate::params::MethodTable;
use crate::train::encoder::{calibrate_batch_norm, embed_encoder};
use crate::train::graph::{GraphData, GraphMethod, GraphRunner};
use crate::train::optim::Adam;
use crate::train::state::StateVisitor;

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::infograph::DECL,
    "InfoGraph (Sun et al. 2020): node–graph mutual information (Jensen–Shannon), GIN encoder",
    preset,
    |p, data, device, progress| {
        GraphRunner::boxed(&ENTRY, p, data, progress, |g| {
            InfoGraph::new(p, g.dim, device)
        })
    },
)
.cost(|p, size| 1.5e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges));

/// InfoGraph's unsupervised TU setup (the official `unsupervised/` code, docs/methods.md
/// cites each line): GraphCL's pipeline (node features, batch 128, 20 epochs, the RBF SVM
/// with its C search in 10-fold CV) with Adam at 0.001 and a 3-layer GIN of width 32, as
/// the code's README runs it (`--lr 0.001 --num-gc-layers 3`).
fn preset(req: &PresetRequest) -> Result<Preset> {
    if req.name.is_some() {
        return Err(req.unknown_name(&ENTRY));
    }
    let mut p = req.of(&super::graphcl::ENTRY)?;
    p.lr = 0.001;
    p.layers = 3;
    p.hidden = 32;
    p.weight_decay = 0.0;
    p.gin_eps = 0.0;
    // No augmentation section; the InfoNCE settings GraphCL's preset carries are not read.
    p.sections = MethodTable::default();
    Ok(p)
}

/// InfoGraph's discriminator head `FF`: three Linear → ReLU layers of the input's width
/// beside a linear shortcut, `block(x) + shortcut(x)`.
#[derive(Debug)]
pub struct FeedForward {
    block: [nn::Linear; 3],
    shortcut: nn::Linear,
}

impl FeedForward {
    pub fn new(p: nn::Path, dim: i64) -> FeedForward {
        let l = |name: &str| linear(&p / name, dim, dim, Init::XavierZeroBias);
        FeedForward {
            block: [l("block0"), l("block1"), l("block2")],
            shortcut: l("shortcut"),
        }
    }
}

impl Module for FeedForward {
    fn forward(&self, x: &Tensor) -> Tensor {
        let mut h = x.shallow_clone();
        for l in &self.block {
            h = l.forward(&h).relu();
        }
        h + self.shortcut.forward(x)
    }
}

pub struct InfoGraph {
    pub vs: nn::VarStore,
    pub encoder: GinEncoder,
    local_d: FeedForward,
    global_d: FeedForward,
    opt: Adam,
    sampler: Box<dyn ScheduleSampler>,
    /// The evaluation encoder's schedule ([`crate::ma::eval_schedule`]).
    pub eval_schedule: Vec<usize>,
}

impl InfoGraph {
    pub fn new(p: &Checked<MethodParams>, input_dim: usize, device: Device) -> Result<InfoGraph> {
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let gin = p.gin();
        // The official model initialises every linear layer, the encoder's included,
        // Xavier-uniform with zero bias (`init_emb`).
        let encoder = GinEncoder::new(
            &(&root / "encoder"),
            input_dim as i64,
            &gin,
            GinStyle::GraphCl,
            Init::XavierZeroBias,
        );
        let dim = encoder.embedding_dim();
        let local_d = FeedForward::new(&root / "local_d", dim);
        let global_d = FeedForward::new(&root / "global_d", dim);
        let opt = Adam::new(&vs, p.train.lr, p.train.weight_decay)?;
        let sampler = ma::sampler(&p.ma(), gin.layers, encoder.plain_schedule(), p.train.seed);
        Ok(InfoGraph {
            vs,
            encoder,
            local_d,
            global_d,
            opt,
            sampler,
            eval_schedule: ma::eval_schedule(&p.ma(), gin.layers),
        })
    }
}

impl GraphMethod for InfoGraph {
    /// The encoder and discriminators (one variable store) and the optimiser.
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        v.var_store("model", &self.vs)?;
        self.opt.visit_state("adam", v)
    }
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64> {
        let device = self.vs.device();
        // One view: MA's augmented schedule K′ drives the encoder.
        let (_, k) = self.sampler.sample(step, epoch as u64);
        let g = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim).to_tensors(device);
        let out = self.encoder.forward(&g, &k, true);
        let local = self.local_d.forward(&Tensor::cat(&out.layers, 1));
        let global = self.global_d.forward(&out.graph);
        let loss = local_global_jsd(&local, &global, &g.batch);
        self.opt.zero_grad();
        loss.backward();
        self.opt.step();
        Ok(loss.double_value(&[]))
    }

    fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
        embed_encoder(&self.encoder, &self.eval_schedule, data, self.vs.device())
    }

    fn calibrate_batch_norm(&mut self, data: &GraphData) -> Result<()> {
        calibrate_batch_norm(&self.encoder, &self.eval_schedule, data, self.vs.device())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::tests::TestConfig;
    use crate::train::graph::tests::train_toy;
    use std::f64::consts::LN_2;

    fn config(ma: serde_json::Value) -> TestConfig {
        TestConfig::new(
            "infograph",
            "toy",
            None,
            3,
            serde_json::json!({"epochs": 2, "batch_size": 16, "ma": ma}),
        )
        .unwrap()
    }

    /// One short training run (the caller holds [`crate::rng::torch_lock`]).
    fn run(cfg: &TestConfig) -> (Vec<f64>, Vec<f32>) {
        let (_, losses, emb) = train_toy(cfg, |p| InfoGraph::new(p, 1, Device::Cpu).unwrap());
        assert_eq!(emb.len(), 40 * 96, "3 layers × 32 units, concatenated");
        (losses, emb)
    }

    #[test]
    fn same_seed_same_losses_and_embeddings() {
        let _g = crate::rng::torch_lock();
        let mut runs = Vec::new();
        for ma in [
            serde_json::json!({"enabled": false}),
            serde_json::json!({"enabled": true, "reading": "code"}),
        ] {
            let cfg = config(ma);
            let (l1, e1) = run(&cfg);
            let (l2, e2) = run(&cfg);
            assert_eq!(l1, l2);
            assert!(e1 == e2, "embeddings differ");
            assert!(l1.iter().all(|l| l.is_finite()));
            // The JSD bound: E_pos ≤ log 2 and E_neg ≥ −log 2, so the loss ≥ −2 log 2.
            assert!(l1.iter().all(|&l| l >= -2.0 * LN_2 - 1e-9), "{l1:?}");
            runs.push(l1);
        }
        // MA changes the training (under the code reading K alone would be the plain
        // encoder: the single view follows K′).
        assert_ne!(runs[0], runs[1]);
    }

    #[test]
    fn the_preset_is_the_readme_command() {
        let cfg = TestConfig::new("infograph", "toy", None, 0, serde_json::json!({})).unwrap();
        let p = &cfg.preset;
        assert_eq!(
            (p.epochs, p.batch_size, p.hidden, p.layers),
            (20, 128, 32, 3)
        );
        assert_eq!(
            (p.lr, p.weight_decay, p.evaluator.name()),
            (0.001, 0.0, "svc-rbf")
        );
        assert!(!p.ma.enabled);
    }
}
