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
use std::f64::consts::LN_2;

use tch::nn::{self, Module};
use tch::{Device, Tensor};

use super::optim::Adam;
use super::{calibrate_batch_norm, embed_encoder, Checked, GraphRunner, MethodParams};
use super::{GraphData, GraphMethod};
use super::{MethodEntry, Preset, PresetRequest};
use crate::error::Result;
use crate::graph::Batch;
use crate::ma::{self, ScheduleSampler};
use crate::methods::state::StateVisitor;
use crate::nn::mlp::linear;
use crate::nn::{GinEncoder, GinStyle, Init};
use crate::params::{MethodTable, Task};

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    "infograph",
    &[Task::Graph],
    "InfoGraph (Sun et al. 2020): node–graph mutual information (Jensen–Shannon), GIN encoder",
    preset,
    |p, data, device, progress| {
        let g = data.graphs("infograph")?;
        Ok(Box::new(GraphRunner::new(
            InfoGraph::new(p, g.dim, device)?,
            g,
            &p.train,
            progress,
        )))
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

/// InfoGraph's local–global loss with the Jensen–Shannon estimator: scores `s = l gᵀ`
/// between every node (rows of `local`) and every graph (rows of `global`); with `batch`
/// the graph of each node,
/// `E_pos = Σ_{(v, G(v))} (log 2 − softplus(−s)) / n`,
/// `E_neg = Σ_{(v, g ≠ G(v))} (softplus(−s) + s − log 2) / (n (G − 1))`,
/// loss `= E_neg − E_pos`. A batch of one graph has no negatives: `E_neg` is 0 there.
pub fn local_global_jsd(local: &Tensor, global: &Tensor, batch: &Tensor) -> Tensor {
    let n = local.size()[0] as f64;
    let graphs = global.size()[0];
    let scores = local.mm(&global.tr());
    let pos = batch.one_hot(graphs).to_kind(scores.kind());
    let neg = pos.ones_like() - &pos;
    let sp = (-&scores).softplus();
    let e_pos = (&pos * (sp.neg() + LN_2)).sum(scores.kind()) / n;
    let e_neg =
        (&neg * (sp + &scores - LN_2)).sum(scores.kind()) / (n * (graphs - 1).max(1) as f64);
    e_neg - e_pos
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
    use crate::methods::tests::{train_toy, TestConfig};
    use tch::Kind;

    fn softplus(x: f64) -> f64 {
        (1.0 + x.exp()).ln()
    }

    /// The loss on three nodes in two graphs, by hand: scores s = l·g for each (node,
    /// graph), positives (0,0), (1,0), (2,1), negatives the other three.
    #[test]
    fn jsd_loss_by_hand() {
        let l = [[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]];
        let g = [[1.0, 0.5], [-0.5, 2.0]];
        let batch = [0usize, 0, 1];
        let s = |v: usize, j: usize| l[v][0] * g[j][0] + l[v][1] * g[j][1];
        let (mut pos, mut neg) = (0.0, 0.0);
        for (v, &own) in batch.iter().enumerate() {
            for j in 0..2 {
                if own == j {
                    pos += LN_2 - softplus(-s(v, j));
                } else {
                    neg += softplus(-s(v, j)) + s(v, j) - LN_2;
                }
            }
        }
        let want = neg / (3.0 * 1.0) - pos / 3.0;
        let t = |rows: &[[f64; 2]]| Tensor::from_slice(&rows.concat()).view([rows.len() as i64, 2]);
        let got =
            local_global_jsd(&t(&l), &t(&g), &Tensor::from_slice(&[0i64, 0, 1])).double_value(&[]);
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        // One graph: no negatives, the loss is −E_pos.
        let one = local_global_jsd(&t(&l[..2]), &t(&g[..1]), &Tensor::from_slice(&[0i64, 0]))
            .double_value(&[]);
        let want_one = -((LN_2 - softplus(-s(0, 0))) + (LN_2 - softplus(-s(1, 0)))) / 2.0;
        assert!((one - want_one).abs() < 1e-12, "{one} vs {want_one}");
    }

    /// The loss's gradient against central differences (double precision).
    #[test]
    fn jsd_loss_gradient_matches_finite_differences() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(3);
        let local = Tensor::randn([5, 3], (Kind::Double, Device::Cpu)).set_requires_grad(true);
        let global = Tensor::randn([2, 3], (Kind::Double, Device::Cpu));
        let batch = Tensor::from_slice(&[0i64, 0, 1, 1, 1]);
        local_global_jsd(&local, &global, &batch).backward();
        let grad = Vec::<f64>::try_from(local.grad().flatten(0, -1)).unwrap();
        let base = Vec::<f64>::try_from(local.detach().flatten(0, -1)).unwrap();
        let h = 1e-6;
        for i in 0..base.len() {
            let at = |d: f64| {
                let mut x = base.clone();
                x[i] += d;
                local_global_jsd(&Tensor::from_slice(&x).view([5, 3]), &global, &batch)
                    .double_value(&[])
            };
            let num = (at(h) - at(-h)) / (2.0 * h);
            assert!(
                (num - grad[i]).abs() < 1e-7,
                "entry {i}: {num} vs {}",
                grad[i]
            );
        }
    }

    /// Nodes that agree with their own graph score a lower loss than the same nodes set
    /// against the wrong graphs: the loss rewards what it should.
    #[test]
    fn matching_nodes_and_graphs_lower_the_loss() {
        let g = Tensor::from_slice(&[3.0f64, 0.0, 0.0, 3.0]).view([2, 2]);
        let l = Tensor::from_slice(&[1.0f64, 0.0, 1.0, 0.0, 0.0, 1.0]).view([3, 2]);
        let right = local_global_jsd(&l, &g, &Tensor::from_slice(&[0i64, 0, 1]));
        let wrong = local_global_jsd(&l, &g, &Tensor::from_slice(&[1i64, 1, 0]));
        assert!(right.double_value(&[]) < wrong.double_value(&[]));
    }

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
            (p.lr, p.weight_decay, p.evaluator.as_str()),
            (0.001, 0.0, "svc-rbf")
        );
        assert!(!p.ma.enabled);
    }
}
