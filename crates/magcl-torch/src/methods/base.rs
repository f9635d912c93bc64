//! The node-level base model and MA-GCL (full-graph training on one graph): the model,
//! its presets and its registry entry.
//!
//! Per epoch: two views (directed edge dropping with ratios `edge_drop[v]`, feature-column
//! masking with `feature_drop[v]`), one encoder whose two passes follow the schedules the
//! MA plugin draws (the base model: both views `[base_k; 2]`), optionally the projection
//! head (preset `paper`), and the InfoNCE loss computed in row blocks. GRACE and GCA are
//! this model in their own [`NodeVariant`]; the views, the `node` settings, the epoch loop
//! and the runner are the node-level trainer's ([`crate::train::node`]).

use tch::nn;
use tch::{Device, Tensor};

use super::CheckedParts;
use super::{Checked, Embed, Embeddings, MethodParams};
use super::{MethodEntry, Preset, PresetRequest};
use crate::data::NodeDataset;
use crate::error::Result;
use crate::graph::DegreeOf;
use crate::loss::{InfoNce, InfoNceParams};
use crate::ma::{self, Constraints, MaParams, ScheduleSampler};
use crate::nn::gcn::{ActivationKind, GcnEncoder, GcnShape, NodeProjector};
use crate::nn::mlp::Init;
use crate::params::{section, MethodTable};
use crate::train::node::{
    code_ma_ranges, host_matrix, train_epochs, EpochStep, NodeParams, NodePreset, NodeReading,
    NodeRunner, NodeSplit, NodeVariant, NodeViews,
};
use crate::train::optim::Adam;
use crate::train::state::StateVisitor;
use crate::train::TrainLog;

/// The MA-GCL base model: the GCN encoder, the optional projection head, the InfoNCE loss
/// and the MA schedule sampler, trained on the two views of each epoch; GRACE and GCA
/// build it in their own [`NodeVariant`].
pub struct NodeModel {
    pub vs: nn::VarStore,
    pub encoder: GcnEncoder,
    pub projector: Option<NodeProjector>,
    opt: Adam,
    loss: InfoNce,
    sampler: Box<dyn ScheduleSampler>,
    node: NodeParams,
    views: NodeViews,
}

/// The MA-GCL base model's variant: its GCN shape, degrees counted at edge sources, the
/// projection head with libtorch's default initialisation, uniform drops.
pub fn variant() -> NodeVariant {
    NodeVariant {
        shape: GcnShape::base,
        degree_of: DegreeOf::Sources,
        // as the base model's rows were made (docs/methods.md: not its reference's)
        projector_init: Init::TchDefault,
        adaptive: None,
    }
}

impl NodeModel {
    /// The MA-GCL base model.
    pub fn new(p: &Checked<MethodParams>, ds: &NodeDataset, device: Device) -> Result<NodeModel> {
        NodeModel::with_variant(p, ds, device, variant())
    }

    /// The trainer with a method's encoder shape and augmentation (GRACE, GCA).
    pub fn with_variant(
        p: &Checked<MethodParams>,
        ds: &NodeDataset,
        device: Device,
        variant: NodeVariant,
    ) -> Result<NodeModel> {
        let node = p
            .sections
            .require::<NodeParams>("node-level training")?
            .into_inner();
        let propagation = node.propagation();
        let views = NodeViews::new(ds, device, &node, &variant, p.train.seed)?;
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let encoder = GcnEncoder::new(
            &(&root / "encoder"),
            views.num_features() as i64,
            p.gin.hidden as i64,
            (variant.shape)(p.gin.hidden as i64),
            node.activation,
            propagation,
            p.ma.pi,
        );
        let projector = p.loss.projector.then(|| {
            NodeProjector::new(
                &(&root / "projector"),
                p.gin.hidden as i64,
                node.proj_hidden as i64,
                variant.projector_init,
            )
        });
        let opt = Adam::new(&vs, p.train.lr, p.train.weight_decay)?;
        let sampler = ma::sampler(&p.ma(), 2, vec![node.base_k; 2], p.train.seed);
        Ok(NodeModel {
            vs,
            encoder,
            projector,
            opt,
            loss: InfoNce::new(p.loss(), node.loss_block_rows),
            sampler,
            node,
            views,
        })
    }

    fn device(&self) -> Device {
        self.vs.device()
    }
}

impl NodeModel {
    /// One optimisation step (one epoch: full-graph training). Returns the loss as a 0-d
    /// tensor; on CUDA the step is only queued until its value is read.
    pub fn step(&mut self, epoch: usize) -> Result<Tensor> {
        let [(g1, m1), (g2, m2)] = self.views.views(epoch);
        let (k1, k2) = self.sampler.sample(epoch as u64, epoch as u64);
        let mut z1 = self
            .encoder
            .forward(&self.views.features, Some(&m1), &g1, &k1, true);
        let mut z2 = self
            .encoder
            .forward(&self.views.features, Some(&m2), &g2, &k2, true);
        if let Some(p) = &self.projector {
            z1 = p.forward(&z1);
            z2 = p.forward(&z2);
        }
        let loss = self.loss.loss(&z1, &z2);
        self.opt.zero_grad();
        loss.backward();
        self.opt.step();
        Ok(loss.detach())
    }

    /// Trains for `epochs` epochs.
    pub fn train(&mut self, epochs: usize, progress: bool) -> Result<TrainLog> {
        self.train_with(epochs, progress, |_, _| Ok(()))
    }

    /// Trains for `epochs` epochs, calling `after_epoch(epoch, model)` after each
    /// ([`train_epochs`]).
    pub fn train_with(
        &mut self,
        epochs: usize,
        progress: bool,
        after_epoch: impl FnMut(usize, &NodeModel) -> Result<()>,
    ) -> Result<TrainLog> {
        train_epochs(self, epochs, progress, after_epoch)
    }

    /// The state carried across epochs: the variables and the optimiser (the views and
    /// MA schedules are drawn from keyed streams).
    pub fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        v.var_store("model", &self.vs)?;
        self.opt.visit_state("adam", v)
    }

    /// Embeddings of all nodes from the evaluation encoder (`eval_k` propagations per
    /// layer, full graph, unmasked features, no projector).
    pub fn embed(&self) -> Tensor {
        tch::no_grad(|| {
            let g = self.views.full_graph();
            let k = vec![self.node.eval_k; 2];
            self.encoder
                .forward(&self.views.features, None, &g, &k, false)
        })
    }
}

impl EpochStep for NodeModel {
    fn device(&self) -> Device {
        NodeModel::device(self)
    }
    fn step(&mut self, epoch: usize) -> Result<Tensor> {
        NodeModel::step(self, epoch)
    }
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        NodeModel::visit_state(self, v)
    }
}

impl Embed for NodeModel {
    fn embed(&self) -> Result<Embeddings> {
        host_matrix(&NodeModel::embed(self))
    }
}

/// The registry's entry: the node-level base model (MA-GCL with MA on).
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::base::DECL,
    "the MA-GCL paper's node-level base model (MA-GCL with MA on)",
    preset,
    |p, data, device, progress| {
        let ds = data.nodes("base")?;
        NodeRunner::build(p, ds, device, progress, variant())
    },
)
.sections(&[section::<NodeParams>()])
.preset_names(&["code", "paper"])
// The loss compares every node with every other: quadratic in the nodes.
.cost(|p, size| {
    let epochs = p.epochs.max(1) as f64;
    2.0e-9 * epochs * size.nodes * size.nodes + 1e-6 * epochs * size.edges
});

/// One row of the per-dataset settings: the released code's `param.yaml` or the paper's
/// appendix Tables 7/8.
struct NodeRow {
    epochs: usize,
    lr: f64,
    wd: f64,
    act: ActivationKind,
    hidden: usize,
    proj: usize,
    edge_drop: [f64; 2],
    feature_drop: [f64; 2],
    tau: f64,
    /// Paper ranges (inclusive), Table 7.
    k1: [usize; 2],
    k2: [usize; 2],
}

fn node_row(dataset: &str, paper: bool) -> Result<NodeRow> {
    let d = dataset.to_ascii_lowercase();
    #[rustfmt::skip]
    let row = match (d.as_str(), paper) {
        ("cora", false) => NodeRow { epochs: 500, lr: 5e-4, wd: 1e-5, act: ActivationKind::Relu, hidden: 512, proj: 512, edge_drop: [0.4, 0.4], feature_drop: [0.5, 0.5], tau: 0.4, k1: [0, 4], k2: [1, 4] },
        ("cora", true) => NodeRow { epochs: 500, lr: 2e-4, wd: 1e-6, act: ActivationKind::Relu, hidden: 512, proj: 512, edge_drop: [0.3, 0.3], feature_drop: [0.3, 0.3], tau: 0.4, k1: [0, 4], k2: [1, 4] },
        ("citeseer", false) => NodeRow { epochs: 600, lr: 1e-4, wd: 1e-5, act: ActivationKind::Relu, hidden: 512, proj: 512, edge_drop: [0.4, 0.4], feature_drop: [0.3, 0.3], tau: 0.8, k1: [2, 4], k2: [1, 3] },
        ("citeseer", true) => NodeRow { epochs: 400, lr: 1e-5, wd: 1e-6, act: ActivationKind::Relu, hidden: 512, proj: 512, edge_drop: [0.3, 0.2], feature_drop: [0.3, 0.2], tau: 0.9, k1: [2, 4], k2: [1, 3] },
        ("pubmed", _) => NodeRow { epochs: 900, lr: 2e-3, wd: 1e-5, act: ActivationKind::Relu, hidden: 512, proj: 128, edge_drop: [0.5, 0.4], feature_drop: [0.3, 0.5], tau: 0.4, k1: [0, 3], k2: [0, 3] },
        ("coauthor-cs", _) => NodeRow { epochs: 1000, lr: 5e-4, wd: 1e-5, act: ActivationKind::Rrelu, hidden: 256, proj: 256, edge_drop: [0.3, 0.2], feature_drop: [0.3, 0.4], tau: 0.4, k1: [0, 3], k2: [1, 3] },
        ("amazon-photo", _) => NodeRow { epochs: 1500, lr: 1e-3, wd: 0.0, act: ActivationKind::Prelu, hidden: 256, proj: 256, edge_drop: [0.3, 0.4], feature_drop: [0.2, 0.3], tau: 0.3, k1: [3, 5], k2: [1, 3] },
        ("amazon-computers", false) => NodeRow { epochs: 2000, lr: 8e-4, wd: 1e-5, act: ActivationKind::Rrelu, hidden: 256, proj: 256, edge_drop: [0.7, 0.2], feature_drop: [0.2, 0.2], tau: 0.3, k1: [1, 4], k2: [0, 3] },
        ("amazon-computers", true) => NodeRow { epochs: 2000, lr: 1e-3, wd: 1e-5, act: ActivationKind::Rrelu, hidden: 256, proj: 256, edge_drop: [0.7, 0.2], feature_drop: [0.2, 0.2], tau: 0.3, k1: [1, 4], k2: [0, 3] },
        // Any other node set (e.g. a synthetic one) gets Cora's code settings.
        (_, false) => NodeRow { epochs: 500, lr: 5e-4, wd: 1e-5, act: ActivationKind::Relu, hidden: 512, proj: 512, edge_drop: [0.4, 0.4], feature_drop: [0.5, 0.5], tau: 0.4, k1: [0, 4], k2: [1, 4] },
        (_, true) => NodeRow { epochs: 500, lr: 2e-4, wd: 1e-6, act: ActivationKind::Relu, hidden: 512, proj: 512, edge_drop: [0.3, 0.3], feature_drop: [0.3, 0.3], tau: 0.4, k1: [0, 4], k2: [1, 4] },
    };
    Ok(row)
}

/// The base model's settings on a dataset: `code` (default; the released code's
/// per-dataset configuration, `param.yaml`) or `paper` (the paper's appendix Table 7).
pub fn preset(req: &PresetRequest) -> Result<Preset> {
    let name = req.name.unwrap_or("code");
    let paper = match name {
        "code" => false,
        "paper" => true,
        _ => return Err(req.unknown_name(&ENTRY)),
    };
    let dataset = req.dataset;
    let row = node_row(dataset, paper)?;
    let d = dataset.to_ascii_lowercase();
    let citation = matches!(d.as_str(), "cora" | "citeseer" | "pubmed");
    let eval_k = if !paper || matches!(d.as_str(), "cora" | "citeseer") {
        2
    } else {
        1
    };
    let ma = if paper {
        MaParams {
            view1: row.k1,
            view2: row.k2,
            constraints: Constraints::Both,
            ..MaParams::default()
        }
    } else {
        code_ma_ranges()
    };
    let mut sections = MethodTable::default();
    sections.set(&NodeParams {
        preset: if paper {
            NodeReading::Paper
        } else {
            NodeReading::Code
        },
        edge_drop: row.edge_drop,
        feature_drop: row.feature_drop,
        activation: row.act,
        proj_hidden: row.proj,
        base_k: eval_k,
        eval_k,
        split: if paper && citation {
            NodeSplit::Public
        } else {
            NodeSplit::Random
        },
        loss_block_rows: 4096,
        kmeans_restarts: 20,
        best_test_every: 0,
        kmeans_l2: false,
    })?;
    Ok(NodePreset {
        epochs: row.epochs,
        lr: row.lr,
        weight_decay: row.wd,
        hidden: row.hidden,
        loss: InfoNceParams {
            temperature: row.tau,
            positive_in_denominator: true,
            symmetric: false,
            intra_view_negatives: false,
            inter_view_negatives: true,
            projector: paper,
        },
        ma,
        sections,
    }
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::tests::TestConfig;
    use crate::train::node::tests::{toy_dataset, toy_probe};

    fn config(preset: &str, ma: bool) -> TestConfig {
        let o = serde_json::json!({"ma": {"enabled": ma}, "hidden": 16, "epochs": 30, "lr": 0.01, "node": {"proj_hidden": 16, "loss_block_rows": 7}});
        TestConfig::new("base", "toy", Some(preset), 2, o).unwrap()
    }

    #[test]
    fn trains_deterministically_and_learns_the_communities() {
        let _g = crate::rng::torch_lock();
        let ds = toy_dataset(120);
        for (preset, ma) in [("code", true), ("paper", false), ("paper", true)] {
            let cfg = config(preset, ma);
            let go = || {
                tch::set_num_threads(1);
                tch::manual_seed(5);
                let mut m =
                    NodeModel::new(&cfg.method_params().unwrap(), &ds, Device::Cpu).unwrap();
                let log = m.train(cfg.preset.epochs, false).unwrap();
                (
                    log.epoch_losses,
                    Vec::<f32>::try_from(m.embed().flatten(0, -1)).unwrap(),
                )
            };
            let (l1, e1) = go();
            let (l2, e2) = go();
            assert_eq!(l1, l2, "{preset} {ma}");
            assert_eq!(e1, e2);
            assert!(
                l1.last().unwrap() < l1.first().unwrap(),
                "loss decreases: {l1:?}"
            );
        }
        let cfg = config("code", true);
        tch::manual_seed(5);
        let mut m = NodeModel::new(&cfg.method_params().unwrap(), &ds, Device::Cpu).unwrap();
        m.train(cfg.preset.epochs, false).unwrap();
        let (test, val) = toy_probe(&Embed::embed(&m).unwrap(), &ds);
        assert!(test > 80.0 && val > 70.0, "{test} {val}");
    }
}
