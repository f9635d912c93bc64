//! The node-level trainer (full-graph training on one graph): the `node` settings every
//! node-level method reads ([`NodeParams`]: views, evaluation split, best-test schedule),
//! what a method changes in the shared model ([`NodeVariant`]), the two augmented views of
//! an epoch ([`NodeViews`]: directed edge dropping with ratios `edge_drop[v]`,
//! feature-column masking with `feature_drop[v]`, or GCA's adaptive drops), the epoch loop
//! over anything that implements [`EpochStep`] ([`train_epochs`]: progress, loss checks,
//! the CUDA read-back lag, checkpoints), and [`NodeRunner`], which runs the base model
//! ([`crate::methods::base`]) in a method's variant as a [`Method`] with its evaluation
//! schedule ([`BestTest`]). The base model itself — two views, one encoder whose passes
//! follow the MA schedules, InfoNCE — is its method's file, `methods/base.rs`.

use std::time::Instant;

use tch::{Device, Kind, Tensor};

use crate::augment::{
    drop_directed_edges, drop_directed_edges_weighted, feature_column_mask,
    feature_column_mask_weighted,
};
use crate::data::NodeDataset;
use crate::error::Result;
use crate::graph::{DegreeOf, GraphTensors};
use crate::kernels::PendingScalar;
use crate::loss::InfoNceParams;
use crate::ma::{Constraints, MaParams};
use crate::methods::base::NodeModel;
use crate::methods::{Embed, Embeddings, Method, MethodParams, Preset, Selection};
use crate::nn::gcn::{ActivationKind, Features, GcnShape, Propagation};
use crate::nn::mlp::Init;
use crate::params::{
    check_ratio, check_size, Checked, MethodTable, ParamGuard, Section, SettingError, Task,
    MAX_DEPTH, MAX_EPOCHS, MAX_RESTARTS, MAX_WIDTH,
};
use crate::rng::{self, streams};
use crate::train::state::{Resume, StateVisitor};
use crate::train::{check_loss, progress_bar, TrainLog};
use serde::{Deserialize, Serialize};

/// Node-level settings (the config's `node` section), read by every node-level method:
/// the base model / MA-GCL, GRACE, GCA, BGRL and the raw-features floor; the base
/// model's presets fill them per dataset (`methods/base.rs`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeParams {
    /// The reading the settings follow.
    pub preset: NodeReading,
    /// Directed edge-drop ratio of view 1 and view 2.
    pub edge_drop: [f64; 2],
    /// Feature-column mask ratio of view 1 and view 2.
    pub feature_drop: [f64; 2],
    pub activation: ActivationKind,
    pub proj_hidden: usize,
    /// Propagation count per layer of the base model (no MA) and of the evaluation encoder.
    pub base_k: usize,
    pub eval_k: usize,
    /// The evaluation split.
    pub split: NodeSplit,
    /// Row-block size of the N×N similarity in the loss (0 = whole matrix).
    pub loss_block_rows: usize,
    /// k-means restarts for the clustering NMI.
    pub kmeans_restarts: usize,
    /// 0 (default): evaluate the final encoder. N > 0: also evaluate after every N
    /// epochs and report the highest *test* accuracy of those evaluations and the final
    /// one (its epoch in `selected_epoch`, its NMI and embeddings). This is selection on
    /// the test set, optimistic by construction; it reproduces what reporting the best of
    /// the released code's every-100-epoch evaluations would give. Written into the
    /// config only when set.
    #[serde(default, skip_serializing_if = "crate::params::is_zero")]
    pub best_test_every: usize,
    /// L2-normalise each embedding row before k-means (clustering NMI only; the
    /// classifier sees the embeddings as they are). Written into the config only when set.
    #[serde(default, skip_serializing_if = "crate::params::is_false")]
    pub kmeans_l2: bool,
}

impl NodeParams {
    /// The propagation reading of `preset`: the paper's for `paper`, else the code's.
    pub fn propagation(&self) -> Propagation {
        match self.preset {
            NodeReading::Paper => Propagation::Paper,
            NodeReading::Code => Propagation::Code,
        }
    }

    /// Which epoch's encoder is evaluated: the best-test one every `best_test_every`
    /// epochs when set, else the final one.
    pub fn selection(&self) -> Selection {
        node_selection(self.best_test_every)
    }

    /// The settings of a method whose encoder is plain GCN layers (GRACE, GCA, BGRL):
    /// K = 0 (one plain hop per layer, PyG's `GCNConv`) in training and evaluation, the
    /// propagation reading under MA the node-level code reading, the random 10/10/80
    /// split.
    pub fn plain_gcn(
        edge_drop: [f64; 2],
        feature_drop: [f64; 2],
        activation: ActivationKind,
        proj_hidden: usize,
    ) -> NodeParams {
        NodeParams {
            preset: NodeReading::Code,
            edge_drop,
            feature_drop,
            activation,
            proj_hidden,
            base_k: 0,
            eval_k: 0,
            split: NodeSplit::Random,
            loss_block_rows: 4096,
            kmeans_restarts: 20,
            best_test_every: 0,
            kmeans_l2: false,
        }
    }
}

/// MA at node level as the released MA-GCL code draws it for every dataset: K from
/// `[0, 2)` and K′ from `[0, 8)`, no constraint.
pub fn code_ma_ranges() -> MaParams {
    MaParams {
        view1: [0, 1],
        view2: [0, 7],
        constraints: Constraints::None,
        ..MaParams::default()
    }
}

/// What every node-level preset shares: full-graph training (one "batch"), two layers,
/// row-normalised features, the logistic-regression probe.
pub struct NodePreset {
    pub epochs: usize,
    pub lr: f64,
    pub weight_decay: f64,
    pub hidden: usize,
    pub loss: InfoNceParams,
    pub ma: MaParams,
    pub sections: MethodTable,
}

impl From<NodePreset> for Preset {
    fn from(p: NodePreset) -> Preset {
        Preset {
            task: Task::Node,
            epochs: p.epochs,
            lr: p.lr,
            weight_decay: p.weight_decay,
            batch_size: 1,
            hidden: p.hidden,
            layers: 2,
            features: crate::params::FeatureSetting::row_normalised(),
            evaluator: crate::eval::Evaluator::LogReg,
            gin_eps: 0.0,
            loss: p.loss,
            ma: p.ma,
            pretrain: Default::default(),
            sections: p.sections,
        }
    }
}

/// `node.preset` and `node.split` are declared where the reports read them too.
pub use magcl_config::settings::{NodeReading, NodeSplit};

impl Section for NodeParams {
    const KEY: &'static str = "node";
}

impl ParamGuard for NodeParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        for (field, v, max) in [
            ("node.proj_hidden", self.proj_hidden, MAX_WIDTH),
            ("node.base_k", self.base_k, MAX_DEPTH),
            ("node.eval_k", self.eval_k, MAX_DEPTH),
            ("node.kmeans_restarts", self.kmeans_restarts, MAX_RESTARTS),
            ("node.best_test_every", self.best_test_every, MAX_EPOCHS),
        ] {
            check_size(field, v, max)?;
        }
        for (name, pair) in [
            ("node.edge_drop", self.edge_drop),
            ("node.feature_drop", self.feature_drop),
        ] {
            for v in pair {
                check_ratio(name, v)?;
            }
        }
        Ok(())
    }
}

/// What a node-level method changes in the shared model (the base model,
/// [`NodeModel::with_variant`]): the encoder's shape and, for
/// adaptive augmentation (GCA), each view's drop probabilities per directed edge and per
/// feature column.
#[derive(Clone, Debug)]
pub struct NodeVariant {
    pub shape: fn(i64) -> GcnShape,
    /// Which end of an edge counts towards the degree in Â on a view's (directed) graph.
    pub degree_of: DegreeOf,
    /// How the projection head's linear layers are initialised.
    pub projector_init: Init,
    pub adaptive: Option<AdaptiveDrops>,
}

/// Per-view drop probabilities: `edge[v][e]` for directed edge `e` in the order of
/// [`directed_edges`], `feature[v][f]` for feature column `f`.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaptiveDrops {
    pub edge: [Vec<f64>; 2],
    pub feature: [Vec<f64>; 2],
}

/// The directed edges the node-level trainer works on: each undirected edge `(u, v)` of
/// the dataset as `u → v` then `v → u`.
pub fn directed_edges(ds: &NodeDataset) -> Vec<(u32, u32)> {
    ds.edges
        .iter()
        .flat_map(|&(u, v)| [(u, v), (v, u)])
        .collect()
}

/// The graph and features a node-level method trains on, and its two augmented views per
/// epoch (shared by every node-level trainer: the base model's InfoNCE one and BGRL's).
pub struct NodeViews {
    seed: u64,
    pub features: Features,
    num_nodes: usize,
    num_features: usize,
    src: Tensor,
    dst: Tensor,
    degree_of: DegreeOf,
    edge_drop: [f64; 2],
    feature_drop: [f64; 2],
    adaptive: Option<AdaptiveDrops>,
}

/// A host tensor on `device`. A CUDA copy goes through page-locked memory and is only
/// queued: the step never waits for the device to finish earlier work (a copy from
/// ordinary memory may wait for the stream).
fn upload(t: Tensor, device: Device) -> Tensor {
    if device.is_cuda() {
        t.pin_memory(device)
            .to_device_(device, t.kind(), true, false)
    } else {
        t
    }
}

/// The structure-only graph of a view (node-level encoders take features separately).
fn view_graph(src: Tensor, dst: Tensor, num_nodes: usize, degree_of: DegreeOf) -> GraphTensors {
    let dev = src.device();
    let mut g = GraphTensors::new(
        Tensor::zeros([0], (Kind::Float, dev)),
        src,
        dst,
        Tensor::zeros([0], (Kind::Int64, dev)),
        num_nodes,
        1,
    );
    g.degree_of = degree_of;
    g
}

impl NodeViews {
    /// The dataset's row-normalised features and directed edges on `device`, augmented as
    /// `node` (drop ratios) and `variant` (adaptive drops, degree end) say, from `seed`.
    pub fn new(
        ds: &NodeDataset,
        device: Device,
        node: &NodeParams,
        variant: &NodeVariant,
        seed: u64,
    ) -> Result<NodeViews> {
        let x = ds.features.row_normalized();
        let features = Features::from_csr(x.rows, x.cols, &x.indptr, &x.indices, &x.data, device);
        let (src, dst): (Vec<i64>, Vec<i64>) = directed_edges(ds)
            .into_iter()
            .map(|(u, v)| (u as i64, v as i64))
            .unzip();
        if let Some(a) = &variant.adaptive {
            if a.edge.iter().any(|e| e.len() != src.len())
                || a.feature.iter().any(|f| f.len() != x.cols)
            {
                return Err(crate::error::Error::Config(format!(
                    "adaptive drop probabilities: expected {} edges and {} feature columns",
                    src.len(),
                    x.cols
                )));
            }
        }
        Ok(NodeViews {
            seed,
            features,
            num_nodes: ds.num_nodes,
            num_features: x.cols,
            src: Tensor::from_slice(&src).to_device(device),
            dst: Tensor::from_slice(&dst).to_device(device),
            degree_of: variant.degree_of,
            edge_drop: node.edge_drop,
            feature_drop: node.feature_drop,
            adaptive: variant.adaptive.clone(),
        })
    }

    fn device(&self) -> Device {
        self.src.device()
    }

    /// The number of input feature columns.
    pub fn num_features(&self) -> usize {
        self.num_features
    }

    /// The whole graph (no edge dropped), for embedding.
    pub fn full_graph(&self) -> GraphTensors {
        view_graph(
            self.src.shallow_clone(),
            self.dst.shallow_clone(),
            self.num_nodes,
            self.degree_of,
        )
    }

    /// Both views: (structure after edge dropping, feature-column mask) each. The random
    /// draws of the two views (independent streams) are made in parallel on the CPU and
    /// uploaded without waiting for the device, so on CUDA they overlap the previous
    /// step's kernels.
    pub fn views(&self, epoch: usize) -> [(GraphTensors, Tensor); 2] {
        self.upload_views(self.draw_views(epoch))
    }

    /// The random part of [`Self::views`] (host only): kept edge ids and feature mask per
    /// view.
    fn draw_views(&self, epoch: usize) -> [(Vec<i64>, Vec<f32>); 2] {
        let (seed, edges, features) = (self.seed, self.src.size()[0] as usize, self.num_features);
        let (edge_drop, feature_drop) = (self.edge_drop, self.feature_drop);
        let adaptive = self.adaptive.as_ref();
        // kept directed edges and the feature-column mask of view v
        let draws = move |v: usize| {
            let mut r = rng::stream(seed, &[streams::AUGMENT, epoch as u64, v as u64]);
            match adaptive {
                None => {
                    let keep = drop_directed_edges(edges, edge_drop[v], &mut r);
                    let mask = feature_column_mask(features, feature_drop[v], &mut r);
                    (keep, mask)
                }
                Some(a) => {
                    let keep = drop_directed_edges_weighted(&a.edge[v], &mut r);
                    let mask = feature_column_mask_weighted(&a.feature[v], &mut r);
                    (keep, mask)
                }
            }
        };
        let (d1, d2) = rayon::join(|| draws(0), || draws(1));
        [d1, d2]
    }

    fn upload_views(&self, draws: [(Vec<i64>, Vec<f32>); 2]) -> [(GraphTensors, Tensor); 2] {
        let dev = self.device();
        draws.map(|(keep, mask)| {
            let keep = upload(Tensor::from_slice(&keep), dev);
            (
                view_graph(
                    self.src.index_select(0, &keep),
                    self.dst.index_select(0, &keep),
                    self.num_nodes,
                    self.degree_of,
                ),
                upload(Tensor::from_slice(&mask), dev),
            )
        })
    }
}

/// A node-level trainer: one full-graph optimisation step per epoch.
pub trait EpochStep {
    fn device(&self) -> Device;
    /// One epoch's step; returns the loss as a 0-d tensor (on CUDA only queued until read).
    fn step(&mut self, epoch: usize) -> Result<Tensor>;
    /// The state carried across epochs ([`Method::visit_state`]).
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()>;
}

/// Trains for `epochs` epochs, calling `after_epoch(epoch, m)` (epoch counted from
/// 0) once each epoch's step has been taken (e.g. to evaluate the encoder as it is
/// then).
///
/// On CUDA the loss of epoch e is copied back asynchronously and read (and checked)
/// after epoch e + 1 has been queued, so the host prepares the next views while the
/// device computes; an epoch's time is the interval between two read-backs (the same
/// in the steady state). On the CPU every epoch is read and timed as it ends.
pub fn train_epochs<M: EpochStep>(
    m: &mut M,
    epochs: usize,
    progress: bool,
    after_epoch: impl FnMut(usize, &M) -> Result<()>,
) -> Result<TrainLog> {
    train_epochs_from(m, epochs, progress, Resume::none(), after_epoch)
}

/// [`train_epochs`] from epoch `resume.start`, with `resume.hook` run when each epoch has
/// ended (on CUDA the pending loss is read first where the hook saves).
pub fn train_epochs_from<M: EpochStep>(
    m: &mut M,
    epochs: usize,
    progress: bool,
    mut resume: Resume<'_>,
    mut after_epoch: impl FnMut(usize, &M) -> Result<()>,
) -> Result<TrainLog> {
    let pb = progress_bar(epochs as u64, progress, "train");
    pb.set_position(resume.start as u64);
    let mut log = std::mem::take(&mut resume.log);
    let lag = m.device().is_cuda();
    let mut last = Instant::now();
    let mut pending: Option<(usize, PendingScalar)> = None;
    let mut finish = |epoch: usize, loss: PendingScalar, log: &mut TrainLog| -> Result<()> {
        let loss = check_loss(loss.value(), epoch, 0)?;
        log.epoch_seconds.push(last.elapsed().as_secs_f64());
        last = Instant::now();
        log.epoch_losses.push(loss);
        pb.inc(1);
        pb.set_message(format!("loss {loss:.4}"));
        Ok(())
    };
    for epoch in resume.start..epochs {
        let loss = PendingScalar::new(&m.step(epoch)?);
        if !lag {
            finish(epoch, loss, &mut log)?;
        } else if let Some((e, l)) = pending.replace((epoch, loss)) {
            finish(e, l, &mut log)?;
        }
        after_epoch(epoch, m)?;
        if let Some(hook) = resume.hook.as_mut() {
            if hook.due(epoch) {
                if let Some((e, l)) = pending.take() {
                    finish(e, l, &mut log)?;
                }
                hook.save(epoch, &log, epoch as u64 + 1, &mut |v| m.visit_state(v))?;
            }
        }
    }
    if let Some((e, l)) = pending {
        finish(e, l, &mut log)?;
    }
    pb.finish_and_clear();
    Ok(log)
}

/// The base model ([`NodeModel`]) in a method's [`NodeVariant`] as a [`Method`], built
/// through the registry (the base model, GRACE, GCA).
pub struct NodeRunner {
    pub model: NodeModel,
    pub progress: bool,
    pub best_test_every: usize,
}

impl NodeRunner {
    /// The runner of a node-level method trained by [`NodeModel`] in `variant`.
    pub fn build(
        p: &Checked<MethodParams>,
        ds: &NodeDataset,
        device: Device,
        progress: bool,
        variant: NodeVariant,
    ) -> Result<Box<dyn Method>> {
        let best_test_every = p
            .sections
            .require::<NodeParams>("node-level training")?
            .best_test_every;
        Ok(Box::new(NodeRunner {
            model: NodeModel::with_variant(p, ds, device, variant)?,
            progress,
            best_test_every,
        }))
    }
}

impl Embed for NodeRunner {
    fn embed(&self) -> Result<Embeddings> {
        Embed::embed(&self.model)
    }
}

impl Method for NodeRunner {
    fn train_from(
        &mut self,
        epochs: usize,
        after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
        resume: Resume<'_>,
    ) -> Result<TrainLog> {
        train_epochs_from(
            &mut self.model,
            epochs,
            self.progress,
            resume,
            |epoch, m| after_epoch(epoch, m),
        )
    }
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        self.model.visit_state(v)
    }
    /// The node-level encoder (GCN layers with activations) has no batch norm.
    fn calibrate_batch_norm(&mut self) -> Result<()> {
        Ok(())
    }
    fn selection(&self) -> Selection {
        node_selection(self.best_test_every)
    }
}

/// An embedding matrix as row-major host values.
pub fn host_matrix(z: &Tensor) -> Result<Embeddings> {
    let zc = z
        .to_device(Device::Cpu)
        .to_kind(tch::Kind::Float)
        .contiguous();
    let (rows, dim) = (zc.size()[0] as usize, zc.size()[1] as usize);
    Ok(Embeddings::dense(
        Vec::<f32>::try_from(zc.flatten(0, -1))?,
        rows,
        dim,
    ))
}

/// `Selection::BestTest` every `best_test_every` epochs when that is set, else the final
/// encoder.
fn node_selection(best_test_every: usize) -> Selection {
    if best_test_every > 0 {
        Selection::BestTest {
            every: best_test_every,
        }
    } else {
        Selection::Final
    }
}

/// Keeps the evaluation with the highest test accuracy (`node.best_test_every`: selection
/// on the test set, optimistic by construction); of equal accuracies the earliest.
#[derive(Debug)]
pub struct BestTest<T> {
    /// (epoch, test accuracy, validation accuracy, what was evaluated)
    pub best: Option<(usize, f64, f64, T)>,
}

impl<T> Default for BestTest<T> {
    fn default() -> Self {
        BestTest { best: None }
    }
}

impl<T> BestTest<T> {
    /// Offers the evaluation after `epoch` epochs; returns whether it is the new best.
    pub fn offer(&mut self, epoch: usize, test: f64, val: f64, item: T) -> bool {
        let better = self.best.as_ref().is_none_or(|b| test > b.1);
        if better {
            self.best = Some((epoch, test, val, item));
        }
        better
    }
}

/// Scales each row of the row-major `n × d` matrix `x` to unit L2 norm (as
/// scikit-learn's `normalize(x, norm='l2')`: an all-zero row stays zero).
pub fn l2_normalize_rows(x: &mut [f32], d: usize) {
    if d == 0 {
        return;
    }
    for row in x.chunks_exact_mut(d) {
        let norm = row.iter().map(|&v| v as f64 * v as f64).sum::<f64>().sqrt();
        if norm > 0.0 {
            for v in row.iter_mut() {
                *v = (*v as f64 / norm) as f32;
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::CsrMatrix;
    use crate::data::Split;
    use crate::eval::evaluator::HostMatrix;
    use crate::eval::protocol::{random_split, RandomSplit};
    use crate::eval::{self, run_protocol};
    use crate::eval_node::{node_protocol, NodeLogReg};
    use crate::methods::tests::TestConfig;

    /// Two noisy communities with informative features.
    pub fn toy_dataset(n: usize) -> NodeDataset {
        let mut r = rng::stream(9, &[]);
        use rand::Rng as _;
        let mut edges = Vec::new();
        for u in 0..n as u32 {
            for v in (u + 1)..n as u32 {
                let same = (u % 2) == (v % 2);
                if r.gen::<f64>() < if same { 0.08 } else { 0.01 } {
                    edges.push((u, v));
                }
            }
        }
        let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
        for u in 0..n {
            for f in 0..20u32 {
                let p = if (f as usize % 2) == u % 2 { 0.3 } else { 0.1 };
                if r.gen::<f64>() < p {
                    indices.push(f);
                    data.push(1.0);
                }
            }
            indptr.push(indices.len());
        }
        NodeDataset {
            name: "toy".into(),
            num_nodes: n,
            edges,
            features: CsrMatrix {
                rows: n,
                cols: 20,
                indptr,
                indices,
                data,
            },
            labels: (0..n as u32).map(|u| u % 2).collect(),
            num_classes: 2,
            public_split: None,
        }
    }

    /// (test, validation) accuracy of the logistic-regression probe on `e` for the toy
    /// set's communities, on the random split of seed 0.
    pub fn toy_probe(e: &Embeddings, ds: &NodeDataset) -> (f64, f64) {
        let probe = NodeLogReg {
            num_classes: 2,
            steps: 300,
            seed: 0,
            device: Device::Cpu,
        };
        let r = run_protocol(
            &RandomSplit,
            &probe,
            HostMatrix::new(&e.x, e.rows, e.dim),
            &ds.labels,
            0,
        )
        .unwrap();
        (r.accuracy, r.val_accuracy.unwrap())
    }

    /// A node-level method (`name`, built as `variant()`) trains deterministically, its
    /// loss falls, and, with and without MA, its embeddings separate the toy set's two
    /// communities for the probe.
    pub fn check_trains_and_learns(name: &str, variant: fn() -> NodeVariant) {
        check_method_learns(name, serde_json::json!({}), &|p, ds| {
            NodeRunner::build(p, ds, Device::Cpu, false, variant()).unwrap()
        });
    }

    /// Builds a node-level method from checked settings and a data set (tests).
    pub type BuildToy<'a> = dyn Fn(&Checked<MethodParams>, &NodeDataset) -> Box<dyn Method> + 'a;

    /// [`check_trains_and_learns`] for any node-level method: `build` makes it from the
    /// checked settings (the toy settings, `extra`'s top-level entries added or replacing
    /// theirs) and the toy set.
    pub fn check_method_learns(name: &str, extra: serde_json::Value, build: &BuildToy) {
        let _g = crate::rng::torch_lock();
        let ds = toy_dataset(120);
        for ma in [false, true] {
            // K′ up to 3: on this small dense graph up to 7 filter steps smooth every node
            // to one direction at initialisation (the loss starts at log(2N − 1), GRACE's
            // value for identical embeddings, and the last ReLU keeps it there)
            let mut o = serde_json::json!({"ma": {"enabled": ma, "view2": [0, 3]}, "hidden": 16, "epochs": 30, "lr": 0.01, "node": {"proj_hidden": 16, "loss_block_rows": 7}});
            if let (Some(o), Some(extra)) = (o.as_object_mut(), extra.as_object()) {
                o.extend(extra.clone());
            }
            let cfg = TestConfig::new(name, "toy", None, 2, o).unwrap();
            let go = || {
                tch::set_num_threads(1);
                tch::manual_seed(5);
                let mut m = build(&cfg.method_params().unwrap(), &ds);
                let log = m.train(cfg.preset.epochs, &mut |_, _| Ok(())).unwrap();
                let e = m.embed().unwrap();
                (log.epoch_losses, e)
            };
            let (l1, e1) = go();
            let (l2, e2) = go();
            assert_eq!(l1, l2, "{name} ma={ma}");
            assert_eq!(e1.x, e2.x, "{name} ma={ma}");
            assert!(
                l1.last().unwrap() < l1.first().unwrap(),
                "{name} ma={ma}: loss decreases: {l1:?}"
            );
            let (test, val) = toy_probe(&e1, &ds);
            assert!(test > 80.0 && val > 70.0, "{name} ma={ma}: {test} {val}");
        }
    }

    /// A CiteSeer-sized node set (3327 nodes) with a Planetoid-shaped public split:
    /// train 0..120, val 120..620 (500), test 620..1620 (1000).
    fn with_public_split() -> NodeDataset {
        let mut ds = toy_dataset(4);
        ds.num_nodes = 3327;
        ds.public_split = Some(Split {
            train: (0..120).collect(),
            val: (120..620).collect(),
            test: (620..1620).collect(),
        });
        ds
    }

    /// The one split of `node.split = name` for `ds`, drawn from `seed`.
    fn node_split(name: &str, ds: &NodeDataset, seed: u64) -> Result<eval::Split> {
        let mut s = node_protocol(name.parse()?, ds)?.splits(&ds.labels, ds.num_nodes, seed)?;
        assert_eq!(s.len(), 1, "{name}");
        Ok(s.remove(0))
    }

    #[test]
    fn public_swapped_split_reads_the_public_split_as_the_released_eval_does() {
        let ds = with_public_split();
        let public = node_split("public", &ds, 3).unwrap();
        assert_eq!(
            (public.train.len(), public.val.len(), public.test.len()),
            (120, 500, 1000)
        );
        let swapped = node_split("public-swapped", &ds, 3).unwrap();
        // the 500 validation nodes are tested, the 1000 test nodes pick the step
        assert_eq!(
            (swapped.train.len(), swapped.val.len(), swapped.test.len()),
            (120, 1000, 500)
        );
        assert_eq!(swapped.train, public.train);
        assert_eq!(swapped.test, (120..620).collect::<Vec<usize>>());
        assert_eq!(swapped.val, (620..1620).collect::<Vec<usize>>());
        // the random split ignores the public one and follows the seed
        assert_eq!(node_split("random", &ds, 3).unwrap(), random_split(3327, 3));
        // without a public split both public readings fail with advice
        let plain = toy_dataset(30);
        for name in ["public", "public-swapped"] {
            let e = node_split(name, &plain, 0).unwrap_err().to_string();
            assert!(e.contains("no public split") && e.contains("random"), "{e}");
        }
        assert!(node_split("publik", &ds, 0).is_err());
    }

    #[test]
    fn best_test_keeps_the_highest_test_accuracy_earliest_on_ties() {
        let mut b = BestTest::default();
        // (epoch, test, val): 100 → 70.0, 200 → 72.5, 300 → 72.5, 400 (final) → 71.0
        assert!(b.offer(100, 70.0, 69.0, "e100"));
        assert!(b.offer(200, 72.5, 68.0, "e200"));
        assert!(!b.offer(300, 72.5, 71.0, "e300"));
        assert!(!b.offer(400, 71.0, 72.0, "e400"));
        assert_eq!(b.best, Some((200, 72.5, 68.0, "e200")));
        // the best validation accuracy (epoch 400) plays no part: this is test selection
        let mut only = BestTest::default();
        only.offer(400, 71.0, 72.0, ());
        assert_eq!(only.best.map(|b| b.0), Some(400));
    }

    #[test]
    fn l2_normalised_rows_by_hand() {
        // rows (3, 4), (0, 0), (−2, 0), (1e-20, 0): unit rows, the zero row untouched
        let mut x = vec![3.0f32, 4.0, 0.0, 0.0, -2.0, 0.0, 1e-20, 0.0];
        l2_normalize_rows(&mut x, 2);
        assert_eq!(x, vec![0.6, 0.8, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0]);
    }
}
