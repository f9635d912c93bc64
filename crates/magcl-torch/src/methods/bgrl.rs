//! BGRL (Thakoor et al., ICLR 2022, "Large-Scale Representation Learning on Graphs via
//! Bootstrapping") and BGRL+MA.
//!
//! Per epoch: two views (directed edge dropping, feature-column masking, per-view ratios);
//! the online encoder and the target encoder each embed both views; the predictor (Linear
//! → PReLU → Linear) maps the online embeddings; the loss is
//! `2 − mean_i cos(q1_i, y2_i) − mean_i cos(q2_i, y1_i)` with `q` the online predictions
//! and `y` the target embeddings (no gradient): no negatives. AdamW (decoupled weight
//! decay) trains the online encoder and the predictor; after each step the target moves
//! towards the online encoder, `θ_t ← τ θ_t + (1 − τ) θ_o`, with τ rising from
//! `bgrl.momentum` to 1 on a half cosine over the run. The learning rate rises linearly from
//! 0 over `bgrl.warmup_epochs`, then falls to 0 on a half cosine. The target encoder starts
//! from its own random initialisation, as in the official code. Encoder: two GCN layers
//! (`2·hidden`, `hidden`), each followed by batch norm and its own PReLU. The evaluated
//! embeddings are the online encoder's on the whole graph, batch norm with its running
//! statistics.
//!
//! With MA each view's schedule (K for view 1, K′ for view 2) is used by both encoders on
//! that view, so a prediction of view 1 is pulled towards the target's embedding of view 2
//! made with the other propagation count: the asymmetry MA adds to a two-view method. The
//! evaluation encoder is one plain hop per layer. docs/ma.md.
use tch::nn::{self, Module};
use tch::{Device, Tensor};

use super::CheckedParts;
use super::{Checked, Embed, Embeddings, Method, MethodParams, Selection};
use super::{MethodEntry, Preset, PresetRequest};
use crate::data::NodeDataset;
use crate::error::{Error, Result};
use crate::graph::DegreeOf;
use crate::loss::{bootstrap_loss, InfoNceParams};
use crate::ma::{self, ScheduleSampler};
use crate::nn::gcn::{
    Activation, ActivationKind, GcnEncoder, GcnShape, Propagation, GCN_BN_MOMENTUM,
};
use crate::nn::mlp::{linear, Init};
use crate::params::{
    check_ratio, section, MethodTable, ParamGuard, Section, SettingError, MAX_EPOCHS,
};
use crate::train::encoder::calibrate_norms;
use crate::train::node::{
    code_ma_ranges, host_matrix, train_epochs_from, EpochStep, NodeParams, NodePreset, NodeVariant,
    NodeViews,
};
use crate::train::optim::{Adam, Decay};
use crate::train::state::{Resume, StateVisitor};
use crate::train::TrainLog;
use serde::{Deserialize, Serialize};

/// BGRL's own settings (the `[bgrl]` section).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BgrlParams {
    /// τ at the first epoch; it rises to 1 at the end of the run on a half cosine.
    pub momentum: f64,
    /// Epochs over which the learning rate rises linearly from 0 to `lr`.
    pub warmup_epochs: usize,
}

impl Section for BgrlParams {
    const KEY: &'static str = "bgrl";
}

impl ParamGuard for BgrlParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        check_ratio("bgrl.momentum", self.momentum)?;
        if self.warmup_epochs > MAX_EPOCHS {
            return Err(SettingError::new(
                "bgrl.warmup_epochs",
                format!("expected at most {MAX_EPOCHS}, got {}", self.warmup_epochs),
            ));
        }
        Ok(())
    }
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::bgrl::DECL,
    "BGRL (Thakoor et al. 2022): online/target encoders, a predictor, no negatives",
    preset,
    |p, data, device, progress| {
        let ds = data.nodes("bgrl")?;
        Ok(Box::new(Bgrl::new(p, ds, device, progress)?))
    },
)
.sections(&[section::<NodeParams>(), section::<BgrlParams>()])
.preset_names(&["code"])
// Four encoder passes and one backward pass per epoch, linear in nodes and edges.
.cost(|p, size| 4.0e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges));

/// BGRL's views and encoder: uniform augmentation, PyG's `GCNConv` (degree at edge
/// targets), batch norm and a PReLU per layer.
pub fn variant() -> NodeVariant {
    NodeVariant {
        shape: GcnShape::bgrl,
        degree_of: DegreeOf::Targets,
        projector_init: Init::TorchDefault,
        adaptive: None,
    }
}

/// The predictor: Linear(hidden → width) → PReLU → Linear(width → hidden), PyTorch's
/// default initialisation.
pub struct Predictor {
    fc1: nn::Linear,
    act: Activation,
    fc2: nn::Linear,
}

impl Predictor {
    fn new(p: &nn::Path, hidden: i64, width: i64) -> Predictor {
        Predictor {
            fc1: linear(p / "fc1", hidden, width, Init::TorchDefault),
            act: Activation::new(p, ActivationKind::Prelu, Propagation::Code),
            fc2: linear(p / "fc2", width, hidden, Init::TorchDefault),
        }
    }

    fn forward(&self, h: &Tensor) -> Tensor {
        self.fc2
            .forward(&self.act.apply(&self.fc1.forward(h), true))
    }
}

/// The learning rate at epoch `k` (from 0) of `total`: `lr·k/W` during the `W` warm-up
/// epochs, then `lr·(1 + cos(π (k − W)/(total − W)))/2`.
pub fn learning_rate(lr: f64, k: usize, warmup: usize, total: usize) -> f64 {
    if k < warmup {
        lr * k as f64 / warmup as f64
    } else {
        let span = total.saturating_sub(warmup).max(1) as f64;
        lr * (1.0 + (std::f64::consts::PI * (k - warmup) as f64 / span).cos()) / 2.0
    }
}

/// τ at epoch `k` (from 0) of `total`: `1 − (1 − τ₀)(1 + cos(π k/total))/2`.
pub fn target_momentum(base: f64, k: usize, total: usize) -> f64 {
    let span = total.max(1) as f64;
    1.0 - (1.0 - base) * (1.0 + (std::f64::consts::PI * k as f64 / span).cos()) / 2.0
}

/// A BGRL run: online encoder and predictor (trained), target encoder (moving average).
pub struct Bgrl {
    pub vs: nn::VarStore,
    pub encoder: GcnEncoder,
    predictor: Predictor,
    pub target_vs: nn::VarStore,
    pub target: GcnEncoder,
    /// (online, target) pairs of every encoder parameter, in a fixed order.
    pairs: Vec<(Tensor, Tensor)>,
    opt: Adam,
    sampler: Box<dyn ScheduleSampler>,
    views: NodeViews,
    node: NodeParams,
    bgrl: BgrlParams,
    lr: f64,
    /// The run's length, which the two schedules span (set by [`Method::train`]).
    epochs: usize,
    progress: bool,
}

impl Bgrl {
    pub fn new(
        p: &Checked<MethodParams>,
        ds: &NodeDataset,
        device: Device,
        progress: bool,
    ) -> Result<Bgrl> {
        let node = p.sections.require::<NodeParams>("bgrl")?.into_inner();
        let bgrl = p.sections.require::<BgrlParams>("bgrl")?.into_inner();
        let v = variant();
        let views = NodeViews::new(ds, device, &node, &v, p.train.seed)?;
        let hidden = p.gin.hidden as i64;
        let propagation = node.propagation();
        let make = |root: &nn::Path| {
            GcnEncoder::new(
                &(root / "encoder"),
                views.num_features() as i64,
                hidden,
                (v.shape)(hidden),
                node.activation,
                propagation,
                p.ma.pi,
            )
        };
        let vs = nn::VarStore::new(device);
        let encoder = make(&vs.root());
        let predictor = Predictor::new(&(vs.root() / "predictor"), hidden, node.proj_hidden as i64);
        // the target: its own initialisation (drawn after the online network's)
        let mut target_vs = nn::VarStore::new(device);
        let target = make(&target_vs.root());
        target_vs.freeze();
        let online = vs.variables();
        let target_vars = target_vs.variables();
        let mut names: Vec<&String> = online
            .iter()
            .filter(|(name, t)| name.starts_with("encoder.") && t.requires_grad())
            .map(|(name, _)| name)
            .collect();
        names.sort();
        let pairs = names
            .into_iter()
            .map(|name| {
                let t = target_vars.get(name).ok_or_else(|| {
                    Error::Config(format!("BGRL's target encoder has no parameter {name}"))
                })?;
                Ok((online[name].shallow_clone(), t.shallow_clone()))
            })
            .collect::<Result<Vec<_>>>()?;
        let opt = Adam::with_decay(&vs, p.train.lr, p.train.weight_decay, Decay::Decoupled)?;
        let sampler = ma::sampler(&p.ma(), 2, vec![node.base_k; 2], p.train.seed);
        Ok(Bgrl {
            vs,
            encoder,
            predictor,
            target_vs,
            target,
            pairs,
            opt,
            sampler,
            views,
            node,
            bgrl,
            lr: p.train.lr,
            epochs: p.train.epochs,
            progress,
        })
    }

    /// One epoch: both views through both encoders, the loss, the online update, the
    /// target's moving average.
    pub fn step(&mut self, epoch: usize) -> Result<Tensor> {
        let [(g1, m1), (g2, m2)] = self.views.views(epoch);
        let (k1, k2) = self.sampler.sample(epoch as u64, epoch as u64);
        let x = &self.views.features;
        self.opt.set_lr(learning_rate(
            self.lr,
            epoch,
            self.bgrl.warmup_epochs,
            self.epochs,
        ));
        let q1 = self
            .predictor
            .forward(&self.encoder.forward(x, Some(&m1), &g1, &k1, true));
        let q2 = self
            .predictor
            .forward(&self.encoder.forward(x, Some(&m2), &g2, &k2, true));
        let (y1, y2) = tch::no_grad(|| {
            (
                self.target.forward(x, Some(&m1), &g1, &k1, true),
                self.target.forward(x, Some(&m2), &g2, &k2, true),
            )
        });
        let loss = bootstrap_loss(&q1, &y2, &q2, &y1);
        self.opt.zero_grad();
        loss.backward();
        self.opt.step();
        self.update_target(epoch);
        Ok(loss.detach())
    }

    /// `θ_t ← τ θ_t + (1 − τ) θ_o` with τ of `epoch`.
    fn update_target(&mut self, epoch: usize) {
        let tau = target_momentum(self.bgrl.momentum, epoch, self.epochs);
        tch::no_grad(|| {
            for (o, t) in &self.pairs {
                let mut t = t.shallow_clone();
                let _ = t
                    .f_mul_scalar_(tau)
                    .and_then(|mut t| t.f_add_(&(o * (1.0 - tau))));
            }
        });
    }

    /// The online encoder's embeddings of the whole graph (batch norm's running
    /// statistics, `eval_k` hops per layer).
    pub fn embed_tensor(&self) -> Tensor {
        tch::no_grad(|| {
            let g = self.views.full_graph();
            let k = vec![self.node.eval_k; 2];
            self.encoder
                .forward(&self.views.features, None, &g, &k, false)
        })
    }
}

impl EpochStep for Bgrl {
    fn device(&self) -> Device {
        self.vs.device()
    }
    fn step(&mut self, epoch: usize) -> Result<Tensor> {
        Bgrl::step(self, epoch)
    }
    /// The online network (encoder and predictor), the target network (its moving
    /// average) and the optimiser; the schedules follow from the epoch.
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        v.var_store("online", &self.vs)?;
        v.var_store("target", &self.target_vs)?;
        self.opt.visit_state("adam", v)
    }
}

impl Embed for Bgrl {
    fn embed(&self) -> Result<Embeddings> {
        host_matrix(&self.embed_tensor())
    }
}

impl Method for Bgrl {
    fn train_from(
        &mut self,
        epochs: usize,
        after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
        resume: Resume<'_>,
    ) -> Result<TrainLog> {
        self.epochs = epochs;
        let progress = self.progress;
        train_epochs_from(self, epochs, progress, resume, |e, m| after_epoch(e, m))
    }
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        EpochStep::visit_state(self, v)
    }
    fn selection(&self) -> Selection {
        self.node.selection()
    }
    /// For the `untrained` floor only (a trained BGRL is evaluated with the running
    /// statistics its training left, as in the official code): each batch norm's running
    /// estimates become the mean and unbiased variance of its input over all nodes of the
    /// unaugmented graph, from one training-mode pass of the evaluation encoder (the
    /// estimates zeroed first, the momentum divided out).
    fn calibrate_batch_norm(&mut self) -> Result<()> {
        let (g, k) = (self.views.full_graph(), vec![self.node.eval_k; 2]);
        calibrate_norms(&self.encoder.norms, GCN_BN_MOMENTUM, || {
            let _ = self
                .encoder
                .forward(&self.views.features, None, &g, &k, true);
        });
        Ok(())
    }
}

/// One configuration of BGRL's released code (`config/*.cfg`).
struct BgrlRow {
    epochs: usize,
    warmup: usize,
    lr: f64,
    /// The second layer's width (the first is twice it).
    hidden: usize,
    edge_drop: [f64; 2],
    feature_drop: [f64; 2],
}

/// BGRL's released configurations; any other set (Cora, CiteSeer, PubMed: the code ships
/// none) gets WikiCS's settings with 2000 epochs and 200 warm-up epochs (the shipped
/// 10000 / 1000 cut five-fold at the same ratio), a magcl choice.
fn bgrl_row(dataset: &str) -> BgrlRow {
    #[rustfmt::skip]
    let row = match dataset.to_ascii_lowercase().as_str() {
        "amazon-computers" => BgrlRow { epochs: 10000, warmup: 1000, lr: 5e-4, hidden: 128, edge_drop: [0.5, 0.4], feature_drop: [0.2, 0.1] },
        "amazon-photo" => BgrlRow { epochs: 10000, warmup: 1000, lr: 1e-4, hidden: 128, edge_drop: [0.4, 0.1], feature_drop: [0.1, 0.2] },
        "coauthor-cs" => BgrlRow { epochs: 10000, warmup: 1000, lr: 1e-5, hidden: 256, edge_drop: [0.3, 0.2], feature_drop: [0.3, 0.4] },
        "coauthor-physics" => BgrlRow { epochs: 10000, warmup: 1000, lr: 1e-5, hidden: 128, edge_drop: [0.4, 0.1], feature_drop: [0.1, 0.4] },
        "wikics" | "wiki-cs" => BgrlRow { epochs: 10000, warmup: 1000, lr: 5e-4, hidden: 256, edge_drop: [0.2, 0.3], feature_drop: [0.2, 0.1] },
        _ => BgrlRow { epochs: 2000, warmup: 200, lr: 5e-4, hidden: 256, edge_drop: [0.2, 0.3], feature_drop: [0.2, 0.1] },
    };
    row
}

/// BGRL's settings on a dataset: `code` (the only preset).
pub fn preset(req: &PresetRequest) -> Result<Preset> {
    if !matches!(req.name.unwrap_or("code"), "code") {
        return Err(req.unknown_name(&ENTRY));
    }
    let row = bgrl_row(req.dataset);
    let mut sections = MethodTable::default();
    // the predictor's hidden width in `node.proj_hidden` (`predictor_hidden_size` 512 in
    // every config)
    sections.set(&NodeParams {
        // no N × N similarity to compute in blocks
        loss_block_rows: 0,
        ..NodeParams::plain_gcn(row.edge_drop, row.feature_drop, ActivationKind::Prelu, 512)
    })?;
    sections.set(&BgrlParams {
        momentum: 0.99,
        warmup_epochs: row.warmup,
    })?;
    Ok(NodePreset {
        epochs: row.epochs,
        lr: row.lr,
        weight_decay: 1e-5,
        hidden: row.hidden,
        // BGRL has no contrastive loss: these settings are not read
        loss: InfoNceParams {
            temperature: 1.0,
            positive_in_denominator: true,
            symmetric: true,
            intra_view_negatives: false,
            inter_view_negatives: true,
            projector: false,
        },
        ma: code_ma_ranges(),
        sections,
    }
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::tests::TestConfig;
    use crate::train::node::tests::{check_method_learns, toy_dataset};
    use tch::Kind;

    #[test]
    fn schedules_by_hand() {
        let lr = |k| learning_rate(2.0, k, 10, 110);
        assert_eq!(lr(0), 0.0);
        assert_eq!(lr(5), 1.0);
        assert_eq!(lr(10), 2.0);
        assert!((lr(60) - 1.0).abs() < 1e-12);
        assert!(lr(110).abs() < 1e-12);
        assert!((learning_rate(2.0, 0, 0, 4) - 2.0).abs() < 1e-12);
        let tau = |k| target_momentum(0.99, k, 100);
        assert!((tau(0) - 0.99).abs() < 1e-12);
        assert!((tau(50) - 0.995).abs() < 1e-12);
        assert!((tau(100) - 1.0).abs() < 1e-12);
    }

    fn toy_model(epochs: usize) -> Bgrl {
        let ds = toy_dataset(30);
        let o = serde_json::json!({"hidden": 8, "epochs": epochs, "lr": 0.01, "node": {"proj_hidden": 12}, "bgrl": {"warmup_epochs": 0}});
        let cfg = TestConfig::new("bgrl", "toy", None, 1, o).unwrap();
        Bgrl::new(&cfg.method_params().unwrap(), &ds, Device::Cpu, false).unwrap()
    }

    /// After a step the target is exactly τ₀·(its old value) + (1 − τ₀)·(the online
    /// encoder's new value), parameter by parameter; the target gets no gradient, starts
    /// from its own initialisation, and the predictor is not averaged into it.
    #[test]
    fn target_is_the_moving_average_of_the_online_encoder() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(1);
        let mut m = toy_model(10);
        // conv weight and bias, batch-norm weight and bias per layer, a PReLU per layer
        assert_eq!(m.pairs.len(), 10);
        assert!(m
            .pairs
            .iter()
            .all(|(o, t)| o.requires_grad() && !t.requires_grad()));
        let w = |e: &GcnEncoder| e.layers[0].weight.copy();
        assert!(
            !w(&m.encoder).equal(&w(&m.target)),
            "independent initialisation"
        );
        let before: Vec<Tensor> = m.pairs.iter().map(|(_, t)| t.copy()).collect();
        let online_before: Vec<Tensor> = m.pairs.iter().map(|(o, _)| o.copy()).collect();
        let _ = m.step(0).unwrap();
        let tau = target_momentum(0.99, 0, 10);
        assert_eq!(tau, 0.99);
        let mut moved = 0;
        for ((o, t), (t0, o0)) in m.pairs.iter().zip(before.iter().zip(&online_before)) {
            let want = t0 * tau + o * (1.0 - tau);
            assert!(t.equal(&want), "target = τ·target + (1 − τ)·online");
            moved += usize::from(!o.equal(o0));
        }
        assert!(
            moved >= 8,
            "the online encoder was trained: {moved} of 10 moved"
        );
    }

    #[test]
    fn encoder_has_bgrls_shape() {
        let _g = crate::rng::torch_lock();
        let m = toy_model(2);
        let shapes: Vec<Vec<i64>> = m.encoder.layers.iter().map(|l| l.weight.size()).collect();
        assert_eq!(shapes, vec![vec![20, 16], vec![16, 8]]);
        assert_eq!((m.encoder.norms.len(), m.encoder.activations.len()), (2, 2));
        // batch norm in evaluation mode with fresh running statistics (mean 0, var 1) is
        // the identity up to ε: the embeddings equal PReLU(GCN) without it
        let z = m.embed_tensor();
        assert_eq!(z.size(), vec![30, 8]);
        assert!(i64::try_from(z.isnan().sum(Kind::Int64)).unwrap() == 0);
    }

    /// The untrained floor's calibration: the first layer's running mean becomes the mean
    /// of its input (the first GCN layer's output on the whole graph) over the nodes.
    #[test]
    fn calibration_sets_the_running_statistics_of_the_whole_graph() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(2);
        let mut m = toy_model(2);
        m.calibrate_batch_norm().unwrap();
        let l0 = &m.encoder.layers[0];
        let h = tch::no_grad(|| {
            let g = m.views.full_graph();
            let h = m.views.features.masked_matmul(&l0.weight, None);
            l0.propagate(&g, h, 0, Propagation::Code, 0.5)
        });
        let bn = &m.encoder.norms[0];
        let mean = h.mean_dim(0, false, Kind::Float);
        let var = h.var_dim(0, true, false);
        assert!(bn.running_mean.allclose(&mean, 1e-5, 1e-6, false));
        assert!(bn.running_var.allclose(&var, 1e-4, 1e-6, false));
    }

    #[test]
    fn trains_deterministically_and_learns_the_communities() {
        check_method_learns(
            "bgrl",
            serde_json::json!({"bgrl": {"warmup_epochs": 3}}),
            &|p, ds| Box::new(Bgrl::new(p, ds, Device::Cpu, false).unwrap()),
        );
    }

    #[test]
    fn presets_follow_the_released_configs() {
        let over = serde_json::Map::new();
        let req = |d| PresetRequest {
            dataset: d,
            task: Some(crate::params::Task::Node),
            name: None,
            overrides: &over,
        };
        let cs = preset(&req("Coauthor-CS")).unwrap();
        assert_eq!(
            (cs.epochs, cs.hidden, cs.lr, cs.weight_decay),
            (10000, 256, 1e-5, 1e-5)
        );
        let node = cs
            .sections
            .get::<NodeParams>()
            .unwrap()
            .unwrap()
            .into_inner();
        assert_eq!(
            (node.edge_drop, node.feature_drop),
            ([0.3, 0.2], [0.3, 0.4])
        );
        assert_eq!(
            (node.proj_hidden, node.activation),
            (512, ActivationKind::Prelu)
        );
        let b = cs
            .sections
            .get::<BgrlParams>()
            .unwrap()
            .unwrap()
            .into_inner();
        assert_eq!((b.momentum, b.warmup_epochs), (0.99, 1000));
        let cora = preset(&req("Cora")).unwrap();
        assert_eq!((cora.epochs, cora.hidden, cora.lr), (2000, 256, 5e-4));
        let named = PresetRequest {
            name: Some("paper"),
            ..req("Cora")
        };
        assert!(preset(&named).unwrap_err().to_string().contains("code"));
    }
}
