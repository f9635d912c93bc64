//! The node-level base model and MA-GCL (full-graph training on one graph).
//!
//! Per epoch: two views (directed edge dropping with ratios `edge_drop[v]`, feature-column
//! masking with `feature_drop[v]`), one encoder whose two passes follow the schedules the
//! MA plugin draws (the base model: both views `[base_k; 2]`), optionally the projection
//! head (preset `paper`), and the InfoNCE loss computed in row blocks.

use std::time::Instant;

use tch::nn;
use tch::{Device, Kind, Tensor};

use super::optim::Adam;
use super::MethodEntry;
use super::{check_loss, progress_bar, TrainLog};
use super::{Checked, Embed, Embeddings, Method, MethodParams, Selection};
use crate::augment::{drop_directed_edges, feature_column_mask};
use crate::data::NodeDataset;
use crate::error::{Error, Result};
use crate::graph::GraphTensors;
use crate::kernels::PendingScalar;
use crate::loss::InfoNce;
use crate::ma::{self, ScheduleSampler};
use crate::nn::gcn::{Features, GcnEncoder, NodeProjector, Propagation};
use crate::params::Task;
use crate::params::{
    bad, check_ratio, check_size, ParamGuard, MAX_DEPTH, MAX_EPOCHS, MAX_RESTARTS, MAX_WIDTH,
};
use crate::rng::{self, streams};
use serde::{Deserialize, Serialize};

/// Node-level settings (the base model / MA-GCL).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeParams {
    /// `code` (the released code) or `paper`.
    pub preset: String,
    /// Directed edge-drop ratio of view 1 and view 2.
    pub edge_drop: [f64; 2],
    /// Feature-column mask ratio of view 1 and view 2.
    pub feature_drop: [f64; 2],
    /// `relu`, `prelu` or `rrelu`.
    pub activation: String,
    pub proj_hidden: usize,
    /// Propagation count per layer of the base model (no MA) and of the evaluation encoder.
    pub base_k: usize,
    pub eval_k: usize,
    /// `public` (Planetoid split), `public-swapped` (the public split as the released
    /// `pGRACE/eval.py` unpacks it, `train, test, val`: the 500 validation nodes are the
    /// test set and the 1000 test nodes choose the classifier's step) or `random`
    /// (10/10/80 from the seed).
    pub split: String,
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

/// The evaluation splits `node.split` accepts.
pub const NODE_SPLITS: [&str; 3] = ["public", "public-swapped", "random"];

impl ParamGuard for NodeParams {
    fn check_ref(&self) -> Result<()> {
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
        if self.preset != "code" && self.preset != "paper" {
            return Err(bad(
                "node.preset",
                format!("expected code or paper, got '{}'", self.preset),
            ));
        }
        if !NODE_SPLITS.contains(&self.split.as_str()) {
            return Err(bad(
                "node.split",
                format!(
                    "expected public, public-swapped or random, got '{}'",
                    self.split
                ),
            ));
        }
        if !["relu", "prelu", "rrelu"].contains(&self.activation.as_str()) {
            return Err(bad(
                "node.activation",
                format!("expected relu, prelu or rrelu, got '{}'", self.activation),
            ));
        }
        Ok(())
    }
}

pub struct NodeModel {
    pub vs: nn::VarStore,
    pub encoder: GcnEncoder,
    pub projector: Option<NodeProjector>,
    opt: Adam,
    loss: InfoNce,
    sampler: Box<dyn ScheduleSampler>,
    node: NodeParams,
    seed: u64,
    features: Features,
    num_nodes: usize,
    num_features: usize,
    src: Tensor,
    dst: Tensor,
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
fn view_graph(src: Tensor, dst: Tensor, num_nodes: usize) -> GraphTensors {
    let dev = src.device();
    GraphTensors::new(
        Tensor::zeros([0], (Kind::Float, dev)),
        src,
        dst,
        Tensor::zeros([0], (Kind::Int64, dev)),
        num_nodes,
        1,
    )
}

impl NodeModel {
    pub fn new(p: &Checked<MethodParams>, ds: &NodeDataset, device: Device) -> Result<NodeModel> {
        let node = p
            .node
            .clone()
            .ok_or_else(|| Error::Config("a node-level run needs the [node] settings".into()))?;
        let propagation = if node.preset == "paper" {
            Propagation::Paper
        } else {
            Propagation::Code
        };
        let x = ds.features.row_normalized();
        let features = Features::from_csr(x.rows, x.cols, &x.indptr, &x.indices, &x.data, device);
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let encoder = GcnEncoder::new(
            &(&root / "encoder"),
            x.cols as i64,
            p.gin.hidden as i64,
            &node.activation,
            propagation,
            p.ma.pi,
        );
        let projector = p.loss.projector.then(|| {
            NodeProjector::new(
                &(&root / "projector"),
                p.gin.hidden as i64,
                node.proj_hidden as i64,
            )
        });
        let opt = Adam::new(&vs, p.train.lr, p.train.weight_decay)?;
        let mut src = Vec::with_capacity(2 * ds.edges.len());
        let mut dst = Vec::with_capacity(2 * ds.edges.len());
        for &(u, v) in &ds.edges {
            src.extend([u as i64, v as i64]);
            dst.extend([v as i64, u as i64]);
        }
        let sampler = ma::sampler(&p.ma, 2, vec![node.base_k; 2], p.train.seed);
        Ok(NodeModel {
            vs,
            encoder,
            projector,
            opt,
            loss: InfoNce::new(p.loss.clone(), node.loss_block_rows),
            sampler,
            seed: p.train.seed,
            features,
            num_nodes: ds.num_nodes,
            num_features: x.cols,
            src: Tensor::from_slice(&src).to_device(device),
            dst: Tensor::from_slice(&dst).to_device(device),
            node,
        })
    }

    fn device(&self) -> Device {
        self.vs.device()
    }

    /// Both views: (structure after edge dropping, feature-column mask) each. The random
    /// draws of the two views (independent streams) are made in parallel on the CPU and
    /// uploaded without waiting for the device, so on CUDA they overlap the previous
    /// step's kernels.
    fn views(&self, epoch: usize) -> [(GraphTensors, Tensor); 2] {
        self.upload_views(self.draw_views(epoch))
    }

    /// The random part of [`Self::views`] (host only): kept edge ids and feature mask per
    /// view.
    fn draw_views(&self, epoch: usize) -> [(Vec<i64>, Vec<f32>); 2] {
        let (seed, edges, features) = (self.seed, self.src.size()[0] as usize, self.num_features);
        let (edge_drop, feature_drop) = (self.node.edge_drop, self.node.feature_drop);
        // kept directed edges and the feature-column mask of view v
        let draws = move |v: usize| {
            let mut r = rng::stream(seed, &[streams::AUGMENT, epoch as u64, v as u64]);
            let keep = drop_directed_edges(edges, edge_drop[v], &mut r);
            let mask = feature_column_mask(features, feature_drop[v], &mut r);
            (keep, mask)
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
                ),
                upload(Tensor::from_slice(&mask), dev),
            )
        })
    }

    /// One optimisation step (one epoch: full-graph training). Returns the loss as a 0-d
    /// tensor; on CUDA the step is only queued until its value is read.
    pub fn step(&mut self, epoch: usize) -> Result<Tensor> {
        let [(g1, m1), (g2, m2)] = self.views(epoch);
        let (k1, k2) = self.sampler.sample(epoch as u64, epoch as u64);
        let mut z1 = self
            .encoder
            .forward(&self.features, Some(&m1), &g1, &k1, true);
        let mut z2 = self
            .encoder
            .forward(&self.features, Some(&m2), &g2, &k2, true);
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

    /// Trains for `epochs` epochs, calling `after_epoch(epoch, model)` (epoch counted from
    /// 0) once each epoch's step has been taken (e.g. to evaluate the encoder as it is
    /// then).
    ///
    /// On CUDA the loss of epoch e is copied back asynchronously and read (and checked)
    /// after epoch e + 1 has been queued, so the host prepares the next views while the
    /// device computes; an epoch's time is the interval between two read-backs (the same
    /// in the steady state). On the CPU every epoch is read and timed as it ends.
    pub fn train_with(
        &mut self,
        epochs: usize,
        progress: bool,
        mut after_epoch: impl FnMut(usize, &NodeModel) -> Result<()>,
    ) -> Result<TrainLog> {
        let pb = progress_bar(epochs as u64, progress, "train");
        let mut log = TrainLog::default();
        let lag = self.device().is_cuda();
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
        for epoch in 0..epochs {
            let loss = PendingScalar::new(&self.step(epoch)?);
            if !lag {
                finish(epoch, loss, &mut log)?;
            } else if let Some((e, l)) = pending.replace((epoch, loss)) {
                finish(e, l, &mut log)?;
            }
            after_epoch(epoch, self)?;
        }
        if let Some((e, l)) = pending {
            finish(e, l, &mut log)?;
        }
        pb.finish_and_clear();
        Ok(log)
    }

    /// Embeddings of all nodes from the evaluation encoder (`eval_k` propagations per
    /// layer, full graph, unmasked features, no projector).
    pub fn embed(&self) -> Tensor {
        tch::no_grad(|| {
            let g = view_graph(
                self.src.shallow_clone(),
                self.dst.shallow_clone(),
                self.num_nodes,
            );
            let k = vec![self.node.eval_k; 2];
            self.encoder.forward(&self.features, None, &g, &k, false)
        })
    }
}

/// The node-level model as a [`Method`], built through the registry.
pub struct NodeRunner {
    pub model: NodeModel,
    pub progress: bool,
    pub best_test_every: usize,
}

/// The registry's entry: the node-level base model (MA-GCL with MA on).
pub static ENTRY: MethodEntry = MethodEntry {
    name: "base",
    aliases: &["magcl", "ma-gcl", "node"],
    tasks: &[Task::Node],
    baseline: false,
    preset: "base",
    about: "the MA-GCL paper's node-level base model (MA-GCL with MA on)",
    build: |p, data, device, progress| {
        let ds = data.nodes("base")?;
        let best_test_every = p.node.as_ref().map(|n| n.best_test_every).unwrap_or(0);
        Ok(Box::new(NodeRunner {
            model: NodeModel::new(p, ds, device)?,
            progress,
            best_test_every,
        }))
    },
};

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

impl Embed for NodeModel {
    fn embed(&self) -> Result<Embeddings> {
        host_matrix(&NodeModel::embed(self))
    }
}

impl Embed for NodeRunner {
    fn embed(&self) -> Result<Embeddings> {
        Embed::embed(&self.model)
    }
}

impl Method for NodeRunner {
    fn train(
        &mut self,
        epochs: usize,
        after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
    ) -> Result<TrainLog> {
        self.model
            .train_with(epochs, self.progress, |epoch, m| after_epoch(epoch, m))
    }
    /// The node-level encoder (GCN layers with activations) has no batch norm.
    fn calibrate_batch_norm(&mut self) -> Result<()> {
        Ok(())
    }
    fn selection(&self) -> Selection {
        if self.best_test_every > 0 {
            Selection::BestTest {
                every: self.best_test_every,
            }
        } else {
            Selection::Final
        }
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
