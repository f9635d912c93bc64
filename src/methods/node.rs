//! The node-level base model and MA-GCL (full-graph training on one graph).
//!
//! Per epoch: two views (directed edge dropping with ratios `edge_drop[v]`, feature-column
//! masking with `feature_drop[v]`), one encoder whose two passes follow the schedules the
//! MA plugin draws (the base model: both views `[base_k; 2]`), optionally the projection
//! head (preset `paper`), and the InfoNCE loss computed in row blocks.
use std::time::Instant;

use tch::nn;
use tch::{Device, Kind, Tensor};

use super::{adam, check_loss, progress_bar, TrainLog};
use crate::augment::{drop_directed_edges, feature_column_mask};
use crate::data::{NodeDataset, Split};
use crate::error::{Error, Result};
use crate::experiment::config::{NodeConfig, RunConfig};
use crate::graph::GraphTensors;
use crate::kernels::PendingScalar;
use crate::loss::InfoNce;
use crate::ma::{self, ScheduleSampler};
use crate::nn::gcn::{Features, GcnEncoder, NodeProjector, Propagation};
use crate::rng::{self, streams};

pub struct NodeModel {
    pub vs: nn::VarStore,
    pub encoder: GcnEncoder,
    pub projector: Option<NodeProjector>,
    opt: nn::Optimizer,
    loss: InfoNce,
    sampler: Box<dyn ScheduleSampler>,
    node: NodeConfig,
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
    pub fn new(cfg: &RunConfig, ds: &NodeDataset, device: Device) -> Result<NodeModel> {
        let node = cfg
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
            cfg.hidden as i64,
            &node.activation,
            propagation,
            cfg.ma.pi,
        );
        let projector = cfg.loss.projector.then(|| {
            NodeProjector::new(
                &(&root / "projector"),
                cfg.hidden as i64,
                node.proj_hidden as i64,
            )
        });
        let opt = adam(&vs, cfg.lr, cfg.weight_decay)?;
        let mut src = Vec::with_capacity(2 * ds.edges.len());
        let mut dst = Vec::with_capacity(2 * ds.edges.len());
        for &(u, v) in &ds.edges {
            src.extend([u as i64, v as i64]);
            dst.extend([v as i64, u as i64]);
        }
        let sampler = ma::sampler(&cfg.ma, 2, vec![node.base_k; 2], cfg.seed);
        Ok(NodeModel {
            vs,
            encoder,
            projector,
            opt,
            loss: InfoNce::new(cfg.loss.clone(), node.loss_block_rows),
            sampler,
            seed: cfg.seed,
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

    /// Prints the time of each part of one step (development aid for the speed work).
    /// With `sync` false a CUDA part's time is the host's time to queue it, which exposes
    /// the parts that wait for the device.
    pub fn profile_step(&mut self, epoch: usize, sync: bool) {
        let cuda_dev = self.device().is_cuda();
        let cuda = cuda_dev && sync;
        let t = Instant::now();
        let lap = |what: &str, t: &mut Instant| {
            if cuda {
                tch::Cuda::synchronize(0);
            }
            println!("  {what:28} {:8.2} ms", t.elapsed().as_secs_f64() * 1e3);
            *t = Instant::now();
        };
        let mut t = t;
        let draws = self.draw_views(epoch);
        lap("view draws (host)", &mut t);
        if !sync && cuda_dev {
            // the upload's parts, on a copy of the draws
            let keep = Tensor::from_slice(&draws[0].0);
            lap("  from_slice", &mut t);
            let pinned = keep.pin_memory(self.device());
            lap("  pin_memory", &mut t);
            let on_dev = pinned.to_device_(self.device(), keep.kind(), true, false);
            lap("  non-blocking copy", &mut t);
            let _ = self.src.index_select(0, &on_dev);
            lap("  index_select", &mut t);
        }
        let [(g1, m1), (g2, m2)] = self.upload_views(draws);
        lap("view uploads", &mut t);
        for g in [&g1, &g2] {
            let _ = g.normalized_adjacency();
            let _ = g.filter_matrix(self.encoder.pi);
        }
        lap("Â and F of both views", &mut t);
        let (k1, k2) = self.sampler.sample(epoch as u64, epoch as u64);
        println!("  schedules {k1:?} {k2:?}");
        let x1 = self
            .features
            .masked_matmul(&self.encoder.layers[0].weight, Some(&m1));
        let x2 = self
            .features
            .masked_matmul(&self.encoder.layers[0].weight, Some(&m2));
        lap("X·W (both views)", &mut t);
        let _ = (x1, x2);
        let z1 = self
            .encoder
            .forward(&self.features, Some(&m1), &g1, &k1, true);
        let z2 = self
            .encoder
            .forward(&self.features, Some(&m2), &g2, &k2, true);
        lap("encoder forward (both)", &mut t);
        let loss = self.loss.loss(&z1, &z2);
        lap("loss (value + analytic grad)", &mut t);
        self.opt.zero_grad();
        loss.backward();
        lap("backward", &mut t);
        self.opt.step();
        lap("optimiser", &mut t);
    }

    /// Trains for `epochs` epochs.
    ///
    /// On CUDA the loss of epoch e is copied back asynchronously and read (and checked)
    /// after epoch e + 1 has been queued, so the host prepares the next views while the
    /// device computes; an epoch's time is the interval between two read-backs (the same
    /// in the steady state). On the CPU every epoch is read and timed as it ends.
    pub fn train(&mut self, epochs: usize, progress: bool) -> Result<TrainLog> {
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

/// A random 10/10/80 split of `n` nodes drawn from `seed` (train = ⌊0.1 n⌋,
/// val = ⌊0.1 n⌋, test = the rest).
pub fn random_split(n: usize, seed: u64) -> Split {
    use rand::seq::SliceRandom;
    let mut perm: Vec<u32> = (0..n as u32).collect();
    perm.shuffle(&mut rng::stream(seed, &[streams::SPLIT]));
    let t = n / 10;
    Split {
        train: perm[..t].to_vec(),
        val: perm[t..2 * t].to_vec(),
        test: perm[2 * t..].to_vec(),
    }
}

/// Logistic-regression evaluation (SPEC §6): one linear layer (Xavier weight, zero bias),
/// Adam lr 0.01, no weight decay, `steps` full-batch steps on the training nodes; every 20
/// steps validation and test accuracy; returns (test accuracy at the strictly best
/// validation accuracy, that validation accuracy), in percent.
pub fn logreg_accuracy(
    z: &Tensor,
    labels: &[u32],
    num_classes: usize,
    split: &Split,
    steps: usize,
    seed: u64,
) -> Result<(f64, f64)> {
    let device = z.device();
    let z = z.detach().to_kind(Kind::Float);
    let y =
        Tensor::from_slice(&labels.iter().map(|&l| l as i64).collect::<Vec<_>>()).to_device(device);
    let idx = |v: &[u32]| {
        Tensor::from_slice(&v.iter().map(|&i| i as i64).collect::<Vec<_>>()).to_device(device)
    };
    let (tr, va, te) = (idx(&split.train), idx(&split.val), idx(&split.test));
    if split.train.is_empty() || split.val.is_empty() || split.test.is_empty() {
        return Err(Error::Config(
            "the node split has an empty train, validation or test part".into(),
        ));
    }
    tch::manual_seed(rng::derive(seed, &[streams::EVAL]) as i64 & i64::MAX);
    let vs = nn::VarStore::new(device);
    let d = z.size()[1];
    let lin = crate::nn::mlp::linear(
        vs.root() / "classifier",
        d,
        num_classes as i64,
        crate::nn::Init::XavierZeroBias,
    );
    let mut opt = adam(&vs, 0.01, 0.0)?;
    let (ztr, ytr) = (z.index_select(0, &tr), y.index_select(0, &tr));
    let acc = |rows: &Tensor| -> f64 {
        tch::no_grad(|| {
            use tch::nn::Module;
            let pred = lin.forward(&z.index_select(0, rows)).argmax(1, false);
            pred.eq_tensor(&y.index_select(0, rows))
                .to_kind(Kind::Double)
                .mean(Kind::Double)
                .double_value(&[])
                * 100.0
        })
    };
    let (mut best_val, mut best_test) = (f64::NEG_INFINITY, 0.0);
    for it in 0..steps {
        use tch::nn::Module;
        let loss = lin
            .forward(&ztr)
            .log_softmax(-1, Kind::Float)
            .nll_loss(&ytr);
        opt.zero_grad();
        loss.backward();
        opt.step();
        if (it + 1) % 20 == 0 {
            let v = acc(&va);
            if v > best_val {
                best_val = v;
                best_test = acc(&te);
            }
        }
    }
    Ok((best_test, best_val))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::CsrMatrix;
    use crate::experiment::config::{MethodName, RunSpec};

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

    fn config(preset: &str, ma: bool) -> RunConfig {
        let mut spec = RunSpec {
            method: Some(MethodName::Base),
            dataset: "toy".into(),
            seed: 2,
            preset: Some(preset.into()),
            ..Default::default()
        };
        spec.overrides = serde_json::from_value(serde_json::json!({"ma": {"enabled": ma}, "hidden": 16, "epochs": 30, "lr": 0.01, "node": {"proj_hidden": 16, "loss_block_rows": 7}})).unwrap();
        RunConfig::resolve(&spec).unwrap()
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
                let mut m = NodeModel::new(&cfg, &ds, Device::Cpu).unwrap();
                let log = m.train(cfg.epochs, false).unwrap();
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
        let mut m = NodeModel::new(&cfg, &ds, Device::Cpu).unwrap();
        m.train(cfg.epochs, false).unwrap();
        let split = random_split(120, 0);
        let (test, val) = logreg_accuracy(&m.embed(), &ds.labels, 2, &split, 300, 0).unwrap();
        assert!(test > 80.0 && val > 70.0, "{test} {val}");
    }

    #[test]
    fn random_split_sizes_and_disjointness() {
        let s = random_split(2708, 4);
        assert_eq!((s.train.len(), s.val.len(), s.test.len()), (270, 270, 2168));
        let mut all: Vec<u32> = [s.train.clone(), s.val.clone(), s.test.clone()].concat();
        all.sort_unstable();
        assert_eq!(all, (0..2708).collect::<Vec<_>>());
        assert_eq!(s, random_split(2708, 4));
        assert_ne!(s, random_split(2708, 5));
    }
}
