//! MVGRL at graph level (Hassani & Khasahmadi, ICML 2020) and MVGRL+MA: two views of each
//! graph, its adjacency and its personalised-PageRank diffusion
//! `S = α (I − (1 − α) Â)⁻¹` (Â = D̃^-1/2 (A + I) D̃^-1/2, α = 0.2), each encoded by its own
//! GCN (per layer `PReLU(P (h W) + b)` with `P` the view's matrix); a node's last-layer
//! features and a graph's concatenated per-layer sum pools go through two shared MLP
//! heads, and the loss is InfoGraph's Jensen–Shannon local–global bound across views:
//! nodes of the adjacency view against graphs of the diffusion view and the reverse. A
//! graph's embedding is the sum of its two heads' graph vectors.
//!
//! The released code (`graph/train.py`) keeps its GCN layers in a plain Python list, so
//! the optimiser never sees them: only the heads train, on top of two random GCNs. The
//! `code` preset (default) does the same (`mvgrl.train_encoder = false`); the `paper`
//! preset trains the encoders too, as the paper's objective says. Both keep the epoch of
//! the lowest mean training loss (the code's early stopping with patience 20).
//!
//! With MA the adjacency view (the unaugmented one) follows K and the diffusion view K′;
//! K propagations of a layer apply its view's matrix K times (K = 0: no propagation).
//! Evaluation runs both encoders with `ma.eval_k` (docs/ma.md, "MVGRL").
use serde::{Deserialize, Serialize};
use tch::nn::{self, Module};
use tch::{Device, Tensor};

use super::CheckedParts;
use super::{Checked, MethodParams};
use super::{MethodEntry, Preset, PresetRequest};
use crate::error::{Error, Result};
use crate::graph::{Batch, GraphTensors, GraphView, SparseMatrix};
use crate::loss::local_global_jsd;
use crate::ma::{self, ScheduleSampler};
use crate::nn::gcn::GcnLayer;
use crate::nn::mlp::linear;
use crate::nn::ops::sum_pool;
use crate::nn::Init;
use crate::params::{section, MethodTable, ParamGuard, Section, SettingError};
use crate::train::encoder::embed_in_chunks;
use crate::train::graph::{GraphData, GraphMethod, GraphRunner};
use crate::train::optim::Adam;
use crate::train::state::StateVisitor;

/// MVGRL settings (a config's `mvgrl` section).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MvgrlParams {
    /// The diffusion's teleport probability α (the code's `compute_ppr(graph, alpha=0.2)`).
    pub alpha: f64,
    /// Whether the GCN encoders train (`false`: the released code, whose optimiser sees
    /// only the heads; `true`: the paper).
    pub train_encoder: bool,
    /// Which epoch's model is evaluated.
    pub keep: Keep,
}

/// Which epoch's MVGRL model is evaluated (`mvgrl.keep`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The lowest mean training loss: the code's early stopping (`graph/train.py` saves the
    /// model whenever the epoch's loss improves and evaluates the saved one).
    #[serde(rename = "best-loss")]
    BestLoss,
    /// The last epoch's.
    #[serde(rename = "last")]
    Last,
}

impl Section for MvgrlParams {
    const KEY: &'static str = "mvgrl";
}

impl ParamGuard for MvgrlParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(SettingError::new(
                "mvgrl.alpha",
                format!("must lie in (0, 1), got {}", self.alpha),
            ));
        }
        Ok(())
    }
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::mvgrl::DECL,
    "MVGRL (Hassani & Khasahmadi 2020): adjacency and PPR-diffusion views, local-global \
     Jensen-Shannon across views, GCN encoders",
    preset,
    |p, data, device, progress| {
        GraphRunner::boxed(&ENTRY, p, data, progress, |g| Mvgrl::new(p, g, device))
    },
)
.sections(&[section::<MvgrlParams>()])
.preset_names(&["code", "paper"])
// Two GCNs of width 512 and the dense diffusion: per node the 512² products dominate.
.cost(|p, size| {
    let train = if matches!(
        p.sections.get::<MvgrlParams>(),
        Ok(Some(m)) if m.train_encoder
    ) {
        2.0
    } else {
        1.0
    };
    2.0e-5 * train * p.epochs.max(1) as f64 * (size.nodes + size.edges)
});

/// MVGRL's unsupervised TU setup, the defaults of the released `train()` (docs/methods.md
/// cites each): 4 GCN layers of width 512, 40 epochs, batch 64, Adam at 0.001 without
/// weight decay, α = 0.2, the lowest-loss epoch kept, a linear SVM with C chosen from
/// {10⁻³ … 10³} by inner 5-fold CV in 10-fold CV. `code` (default) trains the heads only,
/// as the released code does; `paper` trains the encoders as well.
fn preset(req: &PresetRequest) -> Result<Preset> {
    let train_encoder = match req.name.unwrap_or("code") {
        "code" => false,
        "paper" => true,
        _ => return Err(req.unknown_name(&ENTRY)),
    };
    let plain = PresetRequest {
        name: None,
        ..req.clone()
    };
    let mut p = plain.of(&super::graphcl::ENTRY)?;
    p.lr = 0.001;
    p.weight_decay = 0.0;
    p.epochs = 40;
    p.batch_size = 64;
    p.layers = 4;
    p.hidden = 512;
    p.evaluator = crate::eval::Evaluator::LinearSvc;
    p.features = ENTRY.features();
    p.sections = MethodTable::default();
    p.sections.set(&MvgrlParams {
        alpha: 0.2,
        train_encoder,
        keep: Keep::BestLoss,
    })?;
    Ok(p)
}

/// The matrix the diffusion inverts, row-major `n × n`: `M = I − (1 − α) Â` (Â = D̃^-1/2
/// (A + I) D̃^-1/2).
fn ppr_matrix(g: &GraphView, alpha: f64) -> Vec<f64> {
    let n = g.num_nodes;
    let deg: Vec<f64> = g.degrees().iter().map(|&d| d as f64 + 1.0).collect();
    let mut m = vec![0.0f64; n * n];
    for i in 0..n {
        m[i * n + i] = 1.0 - (1.0 - alpha) / deg[i];
    }
    for &(u, v) in &g.edges {
        let (u, v) = (u as usize, v as usize);
        let w = (1.0 - alpha) / (deg[u] * deg[v]).sqrt();
        m[u * n + v] -= w;
        m[v * n + u] -= w;
    }
    m
}

/// The system the elimination solves: [`ppr_matrix`]'s `M` and `α I`, which it turns into
/// `α M⁻¹`.
fn ppr_system(g: &GraphView, alpha: f64) -> (Vec<f64>, Vec<f64>) {
    let n = g.num_nodes;
    let m = ppr_matrix(g, alpha);
    let mut inv = vec![0.0f64; n * n];
    for i in 0..n {
        inv[i * n + i] = alpha;
    }
    (m, inv)
}

/// The personalised-PageRank diffusion of one graph, `α (I − (1 − α) Â)⁻¹` with
/// Â = D̃^-1/2 (A + I) D̃^-1/2, row-major `n × n` (f64 Gauss–Jordan elimination with
/// partial pivoting; the matrix is symmetric positive definite, its eigenvalues ≥ α).
///
/// Each step divides the pivot row by its diagonal entry and subtracts its multiples
/// from every other row, with the arithmetic of the textbook loop entry by entry (so the
/// result is the same to the bit): the loops run over whole rows as slices, which the
/// compiler vectorises; the entries of `M` left of the pivot column, zero after the
/// earlier steps and never read again, are not updated; rows are eliminated in parallel
/// on graphs of [`PARALLEL_ROWS_FROM`] nodes or more (each row on its own, so the thread
/// count does not change a bit). The cost is the graph's n³: DD's largest graph (5,748
/// nodes) alone is about 3·10¹¹ multiply–subtracts.
pub fn ppr_diffusion(g: &GraphView, alpha: f64) -> Vec<f64> {
    use rayon::prelude::*;
    let n = g.num_nodes;
    if n == 0 {
        return Vec::new();
    }
    let (mut m, mut inv) = ppr_system(g, alpha);
    // The pivot row of M (from the pivot column on) and of the inverse, after division.
    let (mut pm, mut pi) = (vec![0.0f64; n], vec![0.0f64; n]);
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&a, &b| m[a * n + col].abs().total_cmp(&m[b * n + col].abs()))
            .unwrap_or(col);
        if pivot != col {
            for j in 0..n {
                m.swap(pivot * n + j, col * n + j);
                inv.swap(pivot * n + j, col * n + j);
            }
        }
        let d = m[col * n + col];
        for (x, p) in m[col * n + col..(col + 1) * n]
            .iter_mut()
            .zip(&mut pm[col..])
        {
            *x /= d;
            *p = *x;
        }
        for (x, p) in inv[col * n..(col + 1) * n].iter_mut().zip(&mut pi) {
            *x /= d;
            *p = *x;
        }
        let (pm, pi) = (&pm[col..], &pi[..]);
        let eliminate = |(r, (mr, ir)): (usize, (&mut [f64], &mut [f64]))| {
            let f = mr[col];
            if r == col || f == 0.0 {
                return;
            }
            for (a, b) in mr[col..].iter_mut().zip(pm) {
                *a -= f * b;
            }
            for (a, b) in ir.iter_mut().zip(pi) {
                *a -= f * b;
            }
        };
        if n >= PARALLEL_ROWS_FROM {
            m.par_chunks_mut(n)
                .zip(inv.par_chunks_mut(n))
                .enumerate()
                .for_each(eliminate);
        } else {
            m.chunks_mut(n)
                .zip(inv.chunks_mut(n))
                .enumerate()
                .for_each(eliminate);
        }
    }
    inv
}

/// Graphs of this many nodes or more have their diffusion's rows eliminated in parallel
/// (below it a step is too short to share out).
pub const PARALLEL_ROWS_FROM: usize = 256;

/// The diffusion of one graph as [`ppr_diffusion`] defines it, computed by libtorch on
/// `device`: `α M⁻¹` with `M = I − (1 − α) Â` inverted in f64 (LU with partial pivoting,
/// `torch.linalg.inv`), returned as an `n × n` f32 tensor there. On a CUDA device this
/// takes the GPU's time instead of the host's n³ loop; it agrees with the elimination up
/// to f64 rounding, so its f32 entries are those of [`ppr_diffusion`] or one rounding step
/// away (tested), not the same bits.
pub fn ppr_diffusion_on(g: &GraphView, alpha: f64, device: Device) -> Tensor {
    let n = g.num_nodes as i64;
    let m = Tensor::from_slice(&ppr_matrix(g, alpha))
        .view([n, n])
        .to_device(device);
    (Tensor::linalg_inv(&m) * alpha).to_kind(tch::Kind::Float)
}

/// How the diffusions of the graphs with dense products (those of [`DENSE_FROM`] nodes or
/// more) are computed; the smaller graphs' always go through [`ppr_diffusion`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Solver {
    /// [`ppr_diffusion`] on the host's cores: the same bits on any machine and thread
    /// count, so a CPU run keeps the rows of earlier commits.
    Elimination,
    /// [`ppr_diffusion_on`] on the model's device. REDDIT-BINARY's diffusions are about
    /// 16 minutes of one host core by elimination (479 s on two threads,
    /// `benchmarks/large_sets/mvgrl_reddit_binary_run.json`): ten cells sharing a GPU
    /// machine's cores would spend most of a 10-minute call on them.
    Device,
}

/// A CUDA model computes its large graphs' diffusions on its GPU; a CPU model by the
/// elimination. (A CUDA run's rows differ from a CPU run's in their last bits anyway.)
fn solver_for(device: Device) -> Solver {
    if device.is_cuda() {
        Solver::Device
    } else {
        Solver::Elimination
    }
}

/// One GCN of MVGRL: per layer `PReLU(P^k (h W) + b)` (W and b as the base model's
/// [`GcnLayer`]: Xavier-uniform, zero; one PReLU slope of 0.25, as `GCNLayer`), the node
/// features of the last layer and the concatenated per-layer sum pools.
#[derive(Debug)]
pub struct Gcn {
    /// Each layer's weight and bias, and its PReLU slope.
    layers: Vec<(GcnLayer, Tensor)>,
}

impl Gcn {
    pub fn new(p: nn::Path, input: i64, hidden: i64, layers: usize) -> Gcn {
        let layers = (0..layers)
            .map(|l| {
                let q = &p / format!("layer{l}");
                let fan_in = if l == 0 { input } else { hidden };
                (
                    GcnLayer::new(&q, fan_in, hidden),
                    q.var("prelu", &[1], nn::Init::Const(0.25)),
                )
            })
            .collect();
        Gcn { layers }
    }

    /// (last layer's node features, concatenated per-layer sum pools) with `schedule[l]`
    /// applications of `prop` in layer `l`.
    pub fn forward(
        &self,
        g: &GraphTensors,
        prop: &dyn Propagation,
        schedule: &[usize],
    ) -> (Tensor, Tensor) {
        let mut h = g.x.shallow_clone();
        let mut pools = Vec::with_capacity(self.layers.len());
        for (l, (layer, a)) in self.layers.iter().enumerate() {
            let mut z = h.mm(&layer.weight);
            for _ in 0..schedule[l] {
                z = prop.mm(&z);
            }
            h = (z + &layer.bias).prelu(a);
            pools.push(sum_pool(g, &h));
        }
        (h, Tensor::cat(&pools, 1))
    }
}

/// MVGRL's head `MLP`: three Linear → PReLU layers beside a linear shortcut (PyTorch's
/// default initialisation, one PReLU slope of 0.25 each).
#[derive(Debug)]
pub struct Head {
    block: Vec<(nn::Linear, Tensor)>,
    shortcut: nn::Linear,
}

impl Head {
    pub fn new(p: nn::Path, input: i64, output: i64) -> Head {
        let block = (0..3)
            .map(|i| {
                let q = &p / format!("block{i}");
                let fan_in = if i == 0 { input } else { output };
                (
                    linear(&q / "linear", fan_in, output, Init::TorchDefault),
                    q.var("prelu", &[1], nn::Init::Const(0.25)),
                )
            })
            .collect();
        Head {
            block,
            shortcut: linear(&p / "shortcut", input, output, Init::TorchDefault),
        }
    }
}

impl Module for Head {
    fn forward(&self, x: &Tensor) -> Tensor {
        let mut h = x.shallow_clone();
        for (l, a) in &self.block {
            h = l.forward(&h).prelu(a);
        }
        h + self.shortcut.forward(x)
    }
}

/// Both encoders and both heads. The encoders live in `enc` (frozen when they do not
/// train), the heads in `heads`.
pub(crate) struct Nets {
    pub(crate) enc: nn::VarStore,
    pub(crate) heads: nn::VarStore,
    adj_gcn: Gcn,
    diff_gcn: Gcn,
    local_head: Head,
    global_head: Head,
}

impl Nets {
    /// With `one_store` the encoders go into `heads` too (they train with the heads).
    fn new(device: Device, input: i64, hidden: i64, layers: usize, one_store: bool) -> Nets {
        let enc = nn::VarStore::new(device);
        let heads = nn::VarStore::new(device);
        let local_head = Head::new(heads.root() / "mlp1", hidden, hidden);
        let global_head = Head::new(heads.root() / "mlp2", hidden * layers as i64, hidden);
        let root = if one_store { heads.root() } else { enc.root() };
        let adj_gcn = Gcn::new(&root / "gnn1", input, hidden, layers);
        let diff_gcn = Gcn::new(&root / "gnn2", input, hidden, layers);
        Nets {
            enc,
            heads,
            adj_gcn,
            diff_gcn,
            local_head,
            global_head,
        }
    }

    /// The graph embedding MVGRL evaluates: the sum of both views' graph vectors, as
    /// [`Nets::forward`] computes them, without the node vectors it discards.
    fn graph_vectors(&self, g: &GraphTensors, diff: &BlockDiagonal, k: &[usize]) -> Tensor {
        let (_, g1) = self.adj_gcn.forward(g, g.normalized_adjacency(), k);
        let g1 = self.global_head.forward(&g1);
        let (_, g2) = self.diff_gcn.forward(g, diff, k);
        g1 + self.global_head.forward(&g2)
    }

    /// Node and graph vectors of both views: `(l_adj, g_adj, l_diff, g_diff)`.
    fn forward(
        &self,
        g: &GraphTensors,
        diff: &BlockDiagonal,
        k_adj: &[usize],
        k_diff: &[usize],
    ) -> [Tensor; 4] {
        let (l1, g1) = self.adj_gcn.forward(g, g.normalized_adjacency(), k_adj);
        let (l2, g2) = self.diff_gcn.forward(g, diff, k_diff);
        [
            self.local_head.forward(&l1),
            self.global_head.forward(&g1),
            self.local_head.forward(&l2),
            self.global_head.forward(&g2),
        ]
    }
}

/// A view's propagation matrix `P`, applied to node features by `P · x`.
pub trait Propagation {
    fn mm(&self, x: &Tensor) -> Tensor;
}

impl Propagation for SparseMatrix {
    fn mm(&self, x: &Tensor) -> Tensor {
        SparseMatrix::mm(self, x)
    }
}

/// A batch's diffusion: the block-diagonal matrix of its graphs' dense diffusions (in
/// batch order), in pieces: each graph of [`DENSE_FROM`] nodes or more is one dense
/// product of its own, and each run of consecutive smaller graphs one sparse product over
/// their n² entries (a dense product per small graph costs more in calls than in
/// arithmetic: MUTAG's epochs were 15% slower that way). A large graph never becomes
/// n² index pairs, which made MVGRL on DD peak at 19.5 GB when every graph did.
pub struct BlockDiagonal {
    pieces: Vec<Piece>,
}

enum Piece {
    /// A run of small graphs.
    Sparse(SparseMatrix),
    /// One large graph's `n × n` diffusion.
    Dense(Tensor),
}

impl Piece {
    fn rows(&self) -> i64 {
        match self {
            Piece::Sparse(m) => m.n_rows(),
            Piece::Dense(b) => b.size()[0],
        }
    }
}

/// Graphs of this many nodes or more are multiplied by their dense diffusion; smaller
/// ones go through sparse products (see [`BlockDiagonal`]).
pub const DENSE_FROM: usize = 64;

/// The most nodes MVGRL embeds in one batch (a graph larger is a batch of its own): each
/// activation of a batch is that many rows of the hidden width (65,536 × 512 floats: 128
/// MiB), where 1,024 REDDIT-BINARY graphs (about 440,000 nodes) made MVGRL's embedding
/// grow the process by 11.5 GB. The small TU sets' chunks of 1,024 graphs stay whole
/// (the largest, PROTEINS' first, holds 41,773 nodes), so their embeddings keep their bits.
pub const EMBED_NODES: usize = 65_536;

impl BlockDiagonal {
    /// The whole matrix as a dense tensor (tests).
    pub fn to_dense(&self) -> Tensor {
        let blocks: Vec<Tensor> = self
            .pieces
            .iter()
            .map(|p| match p {
                Piece::Sparse(m) => m.to_dense(),
                Piece::Dense(b) => b.shallow_clone(),
            })
            .collect();
        Tensor::block_diag(&blocks)
    }
}

impl Propagation for BlockDiagonal {
    fn mm(&self, x: &Tensor) -> Tensor {
        let mut off = 0;
        let mut out: Vec<Tensor> = self
            .pieces
            .iter()
            .map(|p| {
                let n = p.rows();
                let rows = x.narrow(0, off, n);
                off += n;
                match p {
                    Piece::Sparse(m) => m.mm(&rows),
                    Piece::Dense(b) => b.to_kind(x.kind()).mm(&rows),
                }
            })
            .collect();
        if out.len() == 1 {
            out.pop().unwrap()
        } else {
            Tensor::cat(&out, 0)
        }
    }
}

/// One graph's diffusion, row-major: a small graph's on the host (for the sparse
/// products), a large graph's as an `n × n` tensor on the model's device.
enum Diffusion {
    Small(Vec<f32>, usize),
    Large(Tensor),
}

/// Every graph's diffusion (computed once: the set's Σ n² floats, 0.73 GB on DD and
/// about 3.9 GB on REDDIT-BINARY), graphs of `dense_from` nodes or more as tensors on
/// `device`, computed by `solver`.
fn diffusions(
    data: &GraphData,
    alpha: f64,
    dense_from: usize,
    device: Device,
    solver: Solver,
) -> Vec<Diffusion> {
    use rayon::prelude::*;
    let on_device = |n: usize| solver == Solver::Device && n >= dense_from;
    let host: Vec<Option<Vec<f32>>> = data
        .views
        .par_iter()
        .map(|v| {
            (!on_device(v.num_nodes)).then(|| {
                ppr_diffusion(v, alpha)
                    .into_iter()
                    .map(|x| x as f32)
                    .collect()
            })
        })
        .collect();
    host.into_iter()
        .zip(&data.views)
        .map(|(d, v)| {
            let n = v.num_nodes;
            match d {
                Some(d) if n < dense_from => Diffusion::Small(d, n),
                Some(d) => {
                    let t = Tensor::from_slice(&d).view([n as i64, n as i64]);
                    Diffusion::Large(t.to_device(device))
                }
                None => Diffusion::Large(ppr_diffusion_on(v, alpha, device)),
            }
        })
        .collect()
}

/// The block-diagonal diffusion of the graphs `ids` (in that order) on `device`.
fn batch_diffusion(diff: &[Diffusion], ids: &[usize], device: Device) -> BlockDiagonal {
    let mut pieces = Vec::new();
    let mut small: Vec<(&[f32], usize)> = Vec::new();
    for &i in ids {
        match &diff[i] {
            Diffusion::Small(d, n) => small.push((d, *n)),
            Diffusion::Large(b) => {
                pieces.extend(sparse_run(&small, device));
                small.clear();
                pieces.push(Piece::Dense(b.shallow_clone()));
            }
        }
    }
    pieces.extend(sparse_run(&small, device));
    BlockDiagonal { pieces }
}

/// The sparse piece of a run of consecutive small graphs (`(diffusion, n)` each): every
/// entry of each graph's `n × n` block, row by row; none for a run without rows.
fn sparse_run(graphs: &[(&[f32], usize)], device: Device) -> Option<Piece> {
    let total: usize = graphs.iter().map(|&(d, _)| d.len()).sum();
    let (mut rows, mut cols, mut vals) = (
        Vec::with_capacity(total),
        Vec::with_capacity(total),
        Vec::with_capacity(total),
    );
    let mut off = 0i64;
    for &(d, n) in graphs {
        for r in 0..n {
            for c in 0..n {
                rows.push(off + r as i64);
                cols.push(off + c as i64);
                vals.push(d[r * n + c]);
            }
        }
        off += n as i64;
    }
    if off == 0 {
        return None;
    }
    let m = SparseMatrix::from_triplets(
        &Tensor::from_slice(&rows).to_device(device),
        &Tensor::from_slice(&cols).to_device(device),
        &Tensor::from_slice(&vals).to_device(device),
        off,
        off,
    );
    Some(Piece::Sparse(m))
}

pub struct Mvgrl {
    pub(crate) nets: Nets,
    /// The kept model (the lowest-loss epoch's) when `mvgrl.keep = best-loss`.
    best: Option<Nets>,
    best_loss: f64,
    diff: Vec<Diffusion>,
    opt: Adam,
    sampler: Box<dyn ScheduleSampler>,
    eval_schedule: Vec<usize>,
}

impl Mvgrl {
    pub fn new(p: &Checked<MethodParams>, data: &GraphData, device: Device) -> Result<Mvgrl> {
        let m = p.sections.require::<MvgrlParams>("mvgrl")?;
        let gin = p.gin();
        let (hidden, layers) = (gin.hidden as i64, gin.layers);
        if layers == 0 {
            return Err(Error::Config("mvgrl needs at least one layer".into()));
        }
        let mut nets = Nets::new(device, data.dim as i64, hidden, layers, m.train_encoder);
        nets.enc.freeze();
        // Adam over what trains: the heads, and the encoders when they train.
        let opt = Adam::new(&nets.heads, p.train.lr, p.train.weight_decay)?;
        let best = (m.keep == Keep::BestLoss).then(|| {
            let mut b = Nets::new(device, data.dim as i64, hidden, layers, m.train_encoder);
            b.enc.freeze();
            b.heads.freeze();
            b
        });
        let sampler = ma::sampler(&p.ma(), layers, vec![1; layers], p.train.seed);
        Ok(Mvgrl {
            nets,
            best,
            best_loss: f64::INFINITY,
            diff: diffusions(data, m.alpha, DENSE_FROM, device, solver_for(device)),
            opt,
            sampler,
            eval_schedule: ma::eval_schedule(&p.ma(), layers),
        })
    }

    /// `nets`' embedding of `data`, in batches of at most `max_nodes` nodes.
    fn embed_with(
        &self,
        nets: &Nets,
        data: &GraphData,
        max_nodes: usize,
    ) -> Result<(Vec<f32>, usize)> {
        let device = nets.heads.device();
        let s = &self.eval_schedule;
        embed_in_chunks(data, device, max_nodes, |g, range| {
            let ids: Vec<usize> = range.collect();
            let diff = batch_diffusion(&self.diff, &ids, device);
            nets.graph_vectors(g, &diff, s)
        })
    }
}

/// Copies every variable of `from` into `to` (built with the same layout).
fn copy_nets(to: &mut Nets, from: &Nets) -> Result<()> {
    let err = |e: tch::TchError| Error::Config(format!("mvgrl: keeping the best epoch: {e}"));
    to.heads.copy(&from.heads).map_err(err)?;
    to.enc.copy(&from.enc).map_err(err)
}

impl GraphMethod for Mvgrl {
    /// The encoders and heads, the optimiser, and with `mvgrl.keep = best-loss` the kept
    /// model and its loss.
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        v.var_store("enc", &self.nets.enc)?;
        v.var_store("heads", &self.nets.heads)?;
        self.opt.visit_state("adam", v)?;
        v.f64("best_loss", &mut self.best_loss)?;
        if let Some(b) = &self.best {
            v.var_store("best/enc", &b.enc)?;
            v.var_store("best/heads", &b.heads)?;
        }
        Ok(())
    }
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64> {
        let device = self.nets.heads.device();
        let (k_adj, k_diff) = self.sampler.sample(step, epoch as u64);
        let g = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim).to_tensors(device);
        let diff = batch_diffusion(&self.diff, ids, device);
        let [l1, g1, l2, g2] = self.nets.forward(&g, &diff, &k_adj, &k_diff);
        let loss = local_global_jsd(&l1, &g2, &g.batch) + local_global_jsd(&l2, &g1, &g.batch);
        self.opt.zero_grad();
        loss.backward();
        self.opt.step();
        Ok(loss.double_value(&[]))
    }

    fn end_epoch(
        &mut self,
        _data: &GraphData,
        _batches: &[Vec<usize>],
        _epoch: usize,
        mean_loss: f64,
        _last: bool,
    ) -> Result<()> {
        if mean_loss < self.best_loss {
            self.best_loss = mean_loss;
            if let Some(mut b) = self.best.take() {
                copy_nets(&mut b, &self.nets)?;
                self.best = Some(b);
            }
        }
        Ok(())
    }

    fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
        match &self.best {
            // Before any epoch (the untrained floor) the kept model is the live one.
            Some(b) if self.best_loss.is_finite() => self.embed_with(b, data, EMBED_NODES),
            _ => self.embed_with(&self.nets, data, EMBED_NODES),
        }
    }

    /// No batch norm: nothing to set.
    fn calibrate_batch_norm(&mut self, _data: &GraphData) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::tests::TestConfig;
    use crate::train::graph::tests::{toy_data, train_toy};
    use std::f64::consts::LN_2;

    fn view(num_nodes: usize, edges: &[(u32, u32)]) -> GraphView {
        GraphView {
            num_nodes,
            edges: edges.to_vec(),
            x: vec![1.0; num_nodes],
        }
    }

    /// One edge: Â = [[½, ½], [½, ½]], I − 0.8 Â = [[0.6, −0.4], [−0.4, 0.6]] with
    /// determinant 0.2, so S = 0.2 · [[3, 2], [2, 3]] = [[0.6, 0.4], [0.4, 0.6]].
    #[test]
    fn diffusion_of_one_edge_by_hand() {
        let s = ppr_diffusion(&view(2, &[(0, 1)]), 0.2);
        for (got, want) in s.iter().zip([0.6, 0.4, 0.4, 0.6]) {
            assert!((got - want).abs() < 1e-12, "{s:?}");
        }
    }

    /// The textbook Gauss–Jordan elimination of `ppr_system`, entry by entry over whole
    /// rows, as the diffusion was written before its rows became slices: the oracle the
    /// restructured loop must match to the bit.
    fn textbook_diffusion(g: &GraphView, alpha: f64) -> Vec<f64> {
        let n = g.num_nodes;
        let (mut m, mut inv) = ppr_system(g, alpha);
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&a, &b| m[a * n + col].abs().total_cmp(&m[b * n + col].abs()))
                .unwrap_or(col);
            if pivot != col {
                for j in 0..n {
                    m.swap(pivot * n + j, col * n + j);
                    inv.swap(pivot * n + j, col * n + j);
                }
            }
            let d = m[col * n + col];
            for j in 0..n {
                m[col * n + j] /= d;
                inv[col * n + j] /= d;
            }
            for r in 0..n {
                let f = m[r * n + col];
                if r == col || f == 0.0 {
                    continue;
                }
                for j in 0..n {
                    m[r * n + j] -= f * m[col * n + j];
                    inv[r * n + j] -= f * inv[col * n + j];
                }
            }
        }
        inv
    }

    /// Graphs of 1, 2, 9, 60 and [`PARALLEL_ROWS_FROM`] + 13 nodes with uniformly drawn
    /// edges (isolated nodes, multi-edges and self-loops among them).
    fn random_views() -> Vec<GraphView> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |k: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % k
        };
        [
            (1, 0),
            (2, 1),
            (9, 12),
            (60, 150),
            (PARALLEL_ROWS_FROM + 13, 900),
        ]
        .into_iter()
        .map(|(n, edges)| {
            let e: Vec<(u32, u32)> = (0..edges)
                .map(|_| (next(n as u64) as u32, next(n as u64) as u32))
                .collect();
            view(n, &e)
        })
        .collect()
    }

    /// Random graphs below and above the size from which rows go in parallel, in thread
    /// pools of 1 and 3 threads: the diffusion equals the textbook loop's bit for bit.
    #[test]
    fn diffusion_is_the_textbook_loop_to_the_bit() {
        for g in random_views() {
            let n = g.num_nodes;
            let want: Vec<u64> = textbook_diffusion(&g, 0.2)
                .iter()
                .map(|x| x.to_bits())
                .collect();
            for threads in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let got = pool.install(|| ppr_diffusion(&g, 0.2));
                let got: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
                assert!(got == want, "{n} nodes, {threads} threads");
            }
        }
        assert!(ppr_diffusion(&view(0, &[]), 0.2).is_empty());
    }

    /// libtorch's f64 inverse gives the elimination's diffusion up to the f32 rounding of
    /// each entry (within one f32 spacing of the f64 value), on the random graphs and on
    /// the one edge by hand; an empty graph gives an empty matrix.
    #[test]
    fn device_solver_is_the_elimination_up_to_rounding() {
        let mut graphs = random_views();
        graphs.push(view(2, &[(0, 1)]));
        for g in graphs {
            let n = g.num_nodes;
            let want = ppr_diffusion(&g, 0.2);
            let got = ppr_diffusion_on(&g, 0.2, Device::Cpu);
            assert_eq!(got.size(), [n as i64, n as i64]);
            assert_eq!(got.kind(), tch::Kind::Float);
            let got = Vec::<f32>::try_from(got.flatten(0, -1)).unwrap();
            for (k, (&a, &b)) in got.iter().zip(&want).enumerate() {
                let tol = (b.abs() * f32::EPSILON as f64).max(1e-12);
                assert!(
                    (a as f64 - b).abs() <= tol,
                    "{n} nodes, entry {k}: {a} vs {b}"
                );
            }
        }
        assert_eq!(ppr_diffusion_on(&view(0, &[]), 0.2, Device::Cpu).numel(), 0);
    }

    /// With the device solver the graphs below `dense_from` keep the elimination's bits
    /// and the larger ones become tensors equal to it up to rounding; a CUDA model picks
    /// the device solver, a CPU model the elimination.
    #[test]
    fn device_solver_takes_only_the_dense_graphs() {
        let data = GraphData {
            views: vec![
                view(2, &[(0, 1)]),
                view(3, &[(0, 1), (1, 2)]),
                view(4, &[(0, 1), (1, 2), (2, 3), (3, 3)]),
            ],
            labels: vec![0, 1, 0],
            dim: 1,
        };
        let by = |s| diffusions(&data, 0.2, 3, Device::Cpu, s);
        let (elim, dev) = (by(Solver::Elimination), by(Solver::Device));
        for (i, (a, b)) in elim.iter().zip(&dev).enumerate() {
            match (a, b) {
                (Diffusion::Small(a, n), Diffusion::Small(b, m)) if i == 0 => {
                    assert_eq!((a, n), (b, m))
                }
                (Diffusion::Large(a), Diffusion::Large(b)) if i > 0 => {
                    assert!(a.allclose(b, 2.4e-7, 1e-12, false), "graph {i}")
                }
                _ => panic!("graph {i}: pieces of different kinds"),
            }
        }
        assert_eq!(solver_for(Device::Cpu), Solver::Elimination);
        assert_eq!(solver_for(Device::Cuda(0)), Solver::Device);
    }

    /// On a triangle with a pendant and an isolated node: S equals the series
    /// α Σ_t (1 − α)^t Â^t, is symmetric, and keeps Â's eigenvector D̃^½ 1 (eigenvalue 1):
    /// S D̃^½ 1 = D̃^½ 1.
    #[test]
    fn diffusion_is_the_pagerank_series() {
        let g = view(5, &[(0, 1), (1, 2), (2, 0), (2, 3)]);
        let alpha = 0.15;
        let s = ppr_diffusion(&g, alpha);
        let n = 5;
        let deg: Vec<f64> = g.degrees().iter().map(|&d| d as f64 + 1.0).collect();
        let mut a_hat = vec![0.0; n * n];
        for i in 0..n {
            a_hat[i * n + i] = 1.0 / deg[i];
        }
        for &(u, v) in &g.edges {
            let (u, v) = (u as usize, v as usize);
            a_hat[u * n + v] = 1.0 / (deg[u] * deg[v]).sqrt();
            a_hat[v * n + u] = a_hat[u * n + v];
        }
        let mut term: Vec<f64> = (0..n * n)
            .map(|k| if k % (n + 1) == 0 { alpha } else { 0.0 })
            .collect();
        let mut sum = term.clone();
        for _ in 0..400 {
            let mut next = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    for k in 0..n {
                        next[i * n + j] += (1.0 - alpha) * term[i * n + k] * a_hat[k * n + j];
                    }
                }
            }
            term = next;
            for (s, t) in sum.iter_mut().zip(&term) {
                *s += t;
            }
        }
        for i in 0..n {
            for j in 0..n {
                assert!((s[i * n + j] - sum[i * n + j]).abs() < 1e-10, "({i}, {j})");
                assert!((s[i * n + j] - s[j * n + i]).abs() < 1e-12);
            }
            let sv: f64 = (0..n).map(|j| s[i * n + j] * deg[j].sqrt()).sum();
            assert!((sv - deg[i].sqrt()).abs() < 1e-10, "row {i}: {sv}");
        }
        // The isolated node diffuses to itself alone: α / (1 − (1 − α)) = 1.
        assert!((s[4 * n + 4] - 1.0).abs() < 1e-12);
    }

    /// One GCN layer on the one-edge graph by hand: x = (1, 3), w = −1, b = 0, slope ¼:
    /// z = (−1, −3); Â z = (−2, −2); S z = (−1.8, −2.2); S² z = (−1.96, −2.04); no
    /// propagation leaves z; PReLU scales the negatives by ¼; the pool sums the nodes.
    #[test]
    fn one_gcn_layer_by_hand() {
        // Building the layer draws its initial weights from libtorch's global generator,
        // which the seeded tests share: without the lock this test could shift their draws.
        let _g = crate::rng::torch_lock();
        let vs = nn::VarStore::new(Device::Cpu);
        let mut gcn = Gcn::new(vs.root(), 1, 1, 1);
        tch::no_grad(|| {
            let _ = gcn.layers[0].0.weight.fill_(-1.0);
        });
        let mut v = view(2, &[(0, 1)]);
        v.x = vec![1.0, 3.0];
        let data = GraphData {
            views: vec![v],
            labels: vec![0],
            dim: 1,
        };
        let g = Batch::collate(&data.views, 1).to_tensors(Device::Cpu);
        let diff = batch_diffusion(
            &diffusions(&data, 0.2, 2, Device::Cpu, Solver::Elimination),
            &[0],
            Device::Cpu,
        );
        let run = |p: &dyn Propagation, k: usize| {
            let (h, pool) = gcn.forward(&g, p, &[k]);
            let h = Vec::<f32>::try_from(h.flatten(0, -1)).unwrap();
            (h, pool.double_value(&[0, 0]))
        };
        let close = |got: (Vec<f32>, f64), want: [f64; 2]| {
            for (a, b) in got.0.iter().zip(want) {
                assert!((*a as f64 - 0.25 * b).abs() < 1e-6, "{got:?} vs {want:?}");
            }
            assert!((got.1 - 0.25 * (want[0] + want[1])).abs() < 1e-6);
        };
        close(run(g.normalized_adjacency(), 1), [-2.0, -2.0]);
        close(run(&diff, 1), [-1.8, -2.2]);
        close(run(&diff, 2), [-1.96, -2.04]);
        close(run(&diff, 0), [-1.0, -3.0]);
    }

    /// Graphs of 2, 3, 2 and 4 nodes with dense products from 3 nodes, batched as
    /// [0, 2, 1, 3, 0]: a sparse run of two small graphs, two dense blocks, a sparse run of
    /// one; the whole is the block-diagonal matrix of their diffusions, and its product and
    /// the product's gradient are the dense matrix's.
    #[test]
    fn batched_diffusion_is_block_diagonal() {
        let data = GraphData {
            views: vec![
                view(2, &[(0, 1)]),
                view(3, &[(0, 1), (1, 2)]),
                view(2, &[]),
                view(4, &[(0, 1), (1, 2), (2, 3)]),
            ],
            labels: vec![0, 1, 0, 1],
            dim: 1,
        };
        let ids = [0, 2, 1, 3, 0];
        let batch = batch_diffusion(
            &diffusions(&data, 0.2, 3, Device::Cpu, Solver::Elimination),
            &ids,
            Device::Cpu,
        );
        let kinds: Vec<&str> = batch
            .pieces
            .iter()
            .map(|p| match p {
                Piece::Sparse(..) => "sparse",
                Piece::Dense(_) => "dense",
            })
            .collect();
        assert_eq!(kinds, ["sparse", "dense", "dense", "sparse"]);
        let blocks: Vec<Tensor> = ids
            .iter()
            .map(|&i| {
                let n = data.views[i].num_nodes as i64;
                let d: Vec<f32> = ppr_diffusion(&data.views[i], 0.2)
                    .iter()
                    .map(|&x| x as f32)
                    .collect();
                Tensor::from_slice(&d).view([n, n])
            })
            .collect();
        let want = Tensor::block_diag(&blocks);
        assert!(batch.to_dense().equal(&want));
        let _g = crate::rng::torch_lock();
        let x = Tensor::randn([13, 3], (tch::Kind::Float, Device::Cpu)).set_requires_grad(true);
        let (y, dense) = (batch.mm(&x), want.mm(&x));
        assert!(y.allclose(&dense, 1e-6, 1e-6, false));
        let w = Tensor::randn([13, 3], (tch::Kind::Float, Device::Cpu));
        let gx = Tensor::run_backward(&[(&y * &w).sum(tch::Kind::Float)], &[&x], false, false);
        let gd = Tensor::run_backward(&[(&dense * &w).sum(tch::Kind::Float)], &[&x], false, false);
        assert!(gx[0].allclose(&gd[0], 1e-6, 1e-6, false));
    }

    /// The embedding is the sum of both views' graph vectors as the training's forward
    /// pass computes them (to the bit in one batch), whatever the batches' node bound
    /// (up to rounding), with graphs of 8 nodes or more in dense pieces and the rest sparse.
    #[test]
    fn embedding_is_both_views_graph_vectors_in_any_batches() {
        let _g = crate::rng::torch_lock();
        let (mut m, _, _) = run(&config(None, serde_json::json!({})));
        let data = toy_data(40);
        m.diff = diffusions(&data, 0.2, 8, Device::Cpu, Solver::Elimination);
        let ids: Vec<usize> = (0..data.views.len()).collect();
        let g = Batch::collate(&data.views, data.dim).to_tensors(Device::Cpu);
        let diff = batch_diffusion(&m.diff, &ids, Device::Cpu);
        let s = &m.eval_schedule;
        let [_, g1, _, g2] = tch::no_grad(|| m.nets.forward(&g, &diff, s, s));
        let want = Vec::<f32>::try_from((g1 + g2).flatten(0, -1)).unwrap();
        let (whole, d) = m.embed_with(&m.nets, &data, usize::MAX).unwrap();
        assert_eq!(d, 32);
        assert!(whole == want, "one batch differs from the forward pass");
        let sizes: Vec<usize> = data.views.iter().map(|v| v.num_nodes).collect();
        assert!(crate::train::encoder::chunk_ranges(&sizes, 25).len() > 10);
        let (split, _) = m.embed_with(&m.nets, &data, 25).unwrap();
        for (i, (a, b)) in split.iter().zip(&want).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                "graph {}: {a} vs {b}",
                i / d
            );
        }
    }

    fn config(preset: Option<&str>, over: serde_json::Value) -> TestConfig {
        let mut o = serde_json::json!({"epochs": 3, "batch_size": 16, "hidden": 32, "layers": 2});
        for (k, v) in over.as_object().unwrap() {
            o[k] = v.clone();
        }
        TestConfig::new("mvgrl", "toy", preset, 5, o).unwrap()
    }

    fn run(cfg: &TestConfig) -> (Mvgrl, Vec<f64>, Vec<f32>) {
        train_toy(cfg, |p| Mvgrl::new(p, &toy_data(40), Device::Cpu).unwrap())
    }

    fn values(vs: &nn::VarStore, prefix: &str) -> Vec<(String, Vec<f32>)> {
        let mut v: Vec<(String, Vec<f32>)> = vs
            .variables()
            .into_iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .map(|(n, t)| (n, Vec::<f32>::try_from(t.flatten(0, -1)).unwrap()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// Same seed, same losses and embeddings (with and without MA); MA changes the run;
    /// the JSD bound holds for each of the two terms.
    #[test]
    fn same_seed_same_run() {
        let _g = crate::rng::torch_lock();
        let mut losses = Vec::new();
        for ma in [
            serde_json::json!({"enabled": false}),
            serde_json::json!({"enabled": true, "reading": "code"}),
        ] {
            let cfg = config(None, serde_json::json!({ "ma": ma }));
            let (_, l1, e1) = run(&cfg);
            let (_, l2, e2) = run(&cfg);
            assert_eq!(l1, l2);
            assert!(e1 == e2, "embeddings differ");
            assert_eq!(e1.len(), 40 * 32, "the heads' width");
            assert!(l1.iter().all(|&l| l.is_finite() && l >= -4.0 * LN_2 - 1e-9));
            losses.push(l1);
        }
        assert_ne!(losses[0], losses[1]);
    }

    /// The code preset trains the heads only (the encoders keep their initial values);
    /// the paper preset trains the encoders as well.
    #[test]
    fn code_trains_the_heads_paper_the_encoders_too() {
        let _g = crate::rng::torch_lock();
        // (encoder values, head values) at initialisation and after training
        let run_with_start = |cfg: &TestConfig, enc_store: bool| {
            let start = std::cell::RefCell::new(None);
            let store = |m: &Mvgrl| {
                let enc = if enc_store {
                    &m.nets.enc
                } else {
                    &m.nets.heads
                };
                (values(enc, "gnn"), values(&m.nets.heads, "mlp"))
            };
            let (trained, _, _) = train_toy(cfg, |p| {
                let m = Mvgrl::new(p, &toy_data(40), Device::Cpu).unwrap();
                *start.borrow_mut() = Some(store(&m));
                m
            });
            (start.into_inner().unwrap(), store(&trained))
        };
        let ((enc0, heads0), (enc1, heads1)) =
            run_with_start(&config(None, serde_json::json!({})), true);
        assert!(!enc0.is_empty() && !heads0.is_empty());
        assert!(enc0 == enc1, "the code preset changed an encoder");
        assert!(heads0 != heads1, "the heads did not train");
        let ((enc0, _), (enc1, _)) =
            run_with_start(&config(Some("paper"), serde_json::json!({})), false);
        assert!(!enc0.is_empty());
        assert!(
            enc0 != enc1,
            "the paper preset left the encoders as they were"
        );
    }

    /// `keep = best-loss` evaluates the lowest-loss epoch's model: the same embeddings as
    /// a run stopped after that epoch.
    #[test]
    fn best_loss_keeps_the_lowest_loss_epoch() {
        let _g = crate::rng::torch_lock();
        // A rate so large that the loss does not fall monotonically.
        let over = |epochs: usize, keep: &str| serde_json::json!({"epochs": epochs, "lr": 0.05, "mvgrl": {"keep": keep}});
        let (_, losses, kept) = run(&config(None, over(6, "best-loss")));
        let best = (0..losses.len())
            .min_by(|&a, &b| losses[a].total_cmp(&losses[b]))
            .unwrap();
        let (_, _, stopped) = run(&config(None, over(best + 1, "last")));
        assert!(kept == stopped, "best epoch {best} of {losses:?}");
        if best + 1 < losses.len() {
            let (_, _, last) = run(&config(None, over(6, "last")));
            assert!(kept != last);
        }
    }

    #[test]
    fn presets_are_the_released_defaults() {
        let cfg = TestConfig::new("mvgrl", "toy", None, 0, serde_json::json!({})).unwrap();
        let p = &cfg.preset;
        assert_eq!(
            (p.epochs, p.batch_size, p.hidden, p.layers),
            (40, 64, 512, 4)
        );
        assert_eq!((p.lr, p.weight_decay), (0.001, 0.0));
        assert_eq!(
            (p.evaluator.name(), p.features.as_str()),
            ("linear-svc", "mvgrl")
        );
        let m = p.sections.require::<MvgrlParams>("mvgrl").unwrap();
        assert_eq!(
            (m.alpha, m.train_encoder, m.keep),
            (0.2, false, Keep::BestLoss)
        );
        let paper = TestConfig::new("mvgrl", "toy", Some("paper"), 0, serde_json::json!({}));
        let m = paper
            .unwrap()
            .preset
            .sections
            .require::<MvgrlParams>("mvgrl")
            .unwrap();
        assert!(m.train_encoder);
        assert!(TestConfig::new("mvgrl", "toy", Some("fast"), 0, serde_json::json!({})).is_err());
    }

    /// `mvgrl.keep` names one of two choices, written as before (config hashes keep);
    /// anything else is refused with both names.
    #[test]
    fn keep_is_one_of_two_names() {
        let last = serde_json::json!({"mvgrl": {"keep": "last"}});
        let p = TestConfig::new("mvgrl", "toy", None, 0, last)
            .unwrap()
            .preset;
        let m = p
            .sections
            .require::<MvgrlParams>("mvgrl")
            .unwrap()
            .into_inner();
        assert_eq!(m.keep, Keep::Last);
        assert_eq!(serde_json::to_value(m.keep).unwrap(), "last");
        assert_eq!(serde_json::to_value(Keep::BestLoss).unwrap(), "best-loss");
        let first = serde_json::json!({"mvgrl": {"keep": "first"}});
        let e = TestConfig::new("mvgrl", "toy", None, 0, first)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("best-loss") && e.contains("last"), "{e}");
    }
}
