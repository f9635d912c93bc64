//! JOAOv2 (You et al., ICML 2021) and JOAOv2+MA: GraphCL whose augmentation is drawn per
//! graph from a distribution P over a pool of five (node dropping, edge dropping, 1-hop
//! subgraph, attribute masking, identity) that a min–max step moves towards the
//! augmentations with the highest loss after every epoch, and with one projection head
//! per augmentation (v2). The original graph goes through head 0; the augmented view
//! through the head `joao.heads` names: `epoch` (the released code: one index drawn from P
//! per epoch, whatever each graph's augmentation) or `augmentation` (the paper: each
//! graph's own augmentation's head).
//!
//! The min–max step (the released `joaov2.py`): after epoch e, the loss of every
//! augmentation alone is estimated on the first ⌊B/5⌋ + 1 of that epoch's B batches (no
//! gradient, batch norm in training mode, head 0 on both views, as the code does), and P
//! becomes the projection onto the simplex of `P + (ℓ − γ (P − 1/5))`, by the code's
//! bisection (stopping when the clipped sum is within 0.01 of 1, then renormalised). The
//! step after the last epoch is skipped: it changes nothing the code evaluates.
//!
//! With MA the two branches follow K and K′ as GraphCL's do (`ma.k_branch`).
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use tch::nn::{self, Module};
use tch::{Device, Tensor};

use super::CheckedParts;
use super::{Checked, MethodParams};
use super::{MethodEntry, Preset, PresetRequest};
use crate::augment::{AttrMask, Augmentor, EdgeDrop, Identity, NodeDrop, Subgraph1Hop};
use crate::error::Result;
use crate::graph::{Batch, GraphView};
use crate::loss::InfoNce;
use crate::ma::{self, ScheduleSampler};
use crate::nn::{GinEncoder, GinStyle, Init, Mlp};
use crate::params::{section, MethodTable, ParamGuard, Section, SettingError};
use crate::rng::{self, streams, Rng};
use crate::train::encoder::{calibrate_batch_norm, embed_encoder};
use crate::train::graph::{GraphData, GraphMethod, GraphRunner};
use crate::train::optim::Adam;
use crate::train::state::StateVisitor;
use rayon::prelude::*;

/// The pool's size: node dropping, edge dropping, subgraph, attribute masking, identity.
pub const POOL: usize = 5;

/// JOAOv2 settings (a config's `joao` section).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JoaoParams {
    /// γ, the min–max step's pull towards the uniform distribution (the code's README:
    /// tuned over {0.01, 0.1, 1}; `arguments.py` default 0.1).
    pub gamma: f64,
    /// Which projection head the augmented view goes through.
    pub heads: JoaoHeads,
    /// The augmentations' strength (the code: 0.2 for all four; the subgraph keeps 1 − it).
    pub ratio: f64,
}

crate::params::word_setting! {
    /// Which projection head JOAOv2's augmented view goes through (`joao.heads`).
    pub enum JoaoHeads in "joao.heads" {
        /// One index drawn from P per epoch (the released code).
        Epoch = "epoch",
        /// Each graph's own augmentation's head (the paper).
        Augmentation = "augmentation",
    }
}

impl Section for JoaoParams {
    const KEY: &'static str = "joao";
}

impl ParamGuard for JoaoParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        if !(self.gamma.is_finite() && self.gamma >= 0.0) {
            return Err(SettingError::new(
                "joao.gamma",
                format!("must be finite and ≥ 0, got {}", self.gamma),
            ));
        }
        if !(self.ratio > 0.0 && self.ratio < 1.0) {
            return Err(SettingError::new(
                "joao.ratio",
                format!("must lie in (0, 1), got {}", self.ratio),
            ));
        }
        Ok(())
    }
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::joaov2::DECL,
    "JOAOv2 (You et al. 2021): GraphCL with min-max augmentation selection and a projection head per augmentation",
    preset,
    |p, data, device, progress| {
        GraphRunner::boxed(&ENTRY, p, data, progress, |g| JoaoV2::new(p, g.dim, device))
    },
)
.sections(&[section::<JoaoParams>()])
.cost(|p, size| 3.5e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges));

/// JOAOv2's unsupervised TU setup (the released `unsupervised_TU/joaov2.sh`, docs/methods.md
/// cites each setting): GraphCL's pipeline, loss and evaluation with Adam at 0.001, a 3-layer
/// GIN of width 32, 40 epochs, batch 128, γ = 0.1, augmentation strength 0.2.
fn preset(req: &PresetRequest) -> Result<Preset> {
    if req.name.is_some() {
        return Err(req.unknown_name(&ENTRY));
    }
    let mut p = req.of(&super::graphcl::ENTRY)?;
    p.lr = 0.001;
    p.epochs = 40;
    p.layers = 3;
    p.hidden = 32;
    p.sections = MethodTable::default();
    p.sections.set(&JoaoParams {
        gamma: 0.1,
        heads: JoaoHeads::Epoch,
        ratio: 0.2,
    })?;
    Ok(p)
}

/// The pool, in the code's order (`aug.py`, `minmax`): node dropping, edge dropping,
/// subgraph (the code's walk never grows its frontier: magcl's 1-hop variant, keeping
/// 1 − ratio of the nodes), attribute masking, identity.
pub fn pool(ratio: f64) -> [Box<dyn Augmentor>; POOL] {
    [
        Box::new(NodeDrop(ratio)),
        Box::new(EdgeDrop(ratio)),
        Box::new(Subgraph1Hop(1.0 - ratio)),
        Box::new(AttrMask(ratio)),
        Box::new(Identity),
    ]
}

/// An index drawn from the distribution `p` with one uniform draw of `rng`.
pub fn draw(p: &[f64; POOL], rng: &mut Rng) -> usize {
    let u: f64 = rng.gen::<f64>() * p.iter().sum::<f64>();
    let mut acc = 0.0;
    for (i, &w) in p.iter().enumerate() {
        acc += w;
        if u < acc {
            return i;
        }
    }
    p.iter().rposition(|&w| w > 0.0).unwrap_or(POOL - 1)
}

/// The min–max step: `b = p + (loss − γ (p − 1/n))`, projected onto the simplex as the code
/// does it — bisection on the shift μ between min(b) − 1/n and max(b) − 1/n until
/// Σ max(b − μ, 0) is within 0.01 of 1, then clipped at 0 and renormalised.
pub fn minmax_update(p: &[f64; POOL], loss: &[f64; POOL], gamma: f64) -> [f64; POOL] {
    let n = POOL as f64;
    let b: Vec<f64> = (0..POOL)
        .map(|i| p[i] + (loss[i] - gamma * (p[i] - 1.0 / n)))
        .collect();
    let clipped = |mu: f64| b.iter().map(|x| (x - mu).max(0.0)).sum::<f64>();
    let (mut lo, mut hi) = (
        b.iter().cloned().fold(f64::INFINITY, f64::min) - 1.0 / n,
        b.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - 1.0 / n,
    );
    let mut mu = (lo + hi) / 2.0;
    for _ in 0..200 {
        let s = clipped(mu);
        if (s - 1.0).abs() <= 1e-2 {
            break;
        }
        if s > 1.0 {
            lo = mu;
        } else {
            hi = mu;
        }
        mu = (lo + hi) / 2.0;
    }
    let mut out = [0.0; POOL];
    for i in 0..POOL {
        out[i] = (b[i] - mu).max(0.0);
    }
    let s: f64 = out.iter().sum();
    out.iter_mut().for_each(|x| *x /= s);
    out
}

/// The views of `ids` for `epoch`, each with the index of its augmentation: drawn from
/// `probs`, or `forced` for all (the min–max estimate). Graph `i` draws from the stream
/// `(seed, AUGMENT, epoch, i)` (the estimate of augmentation a from
/// `(seed, AUGMENT, epoch, i, 1 + a)`), so views do not depend on the thread count.
pub fn views(
    pool: &[Box<dyn Augmentor>; POOL],
    probs: &[f64; POOL],
    seed: u64,
    data: &GraphData,
    ids: &[usize],
    epoch: usize,
    forced: Option<usize>,
) -> (Vec<GraphView>, Vec<usize>) {
    ids.par_iter()
        .map(|&i| {
            let mut path = vec![streams::AUGMENT, epoch as u64, i as u64];
            path.extend(forced.map(|a| 1 + a as u64));
            let mut r = rng::stream(seed, &path);
            let a = forced.unwrap_or_else(|| draw(probs, &mut r));
            (pool[a].apply(&data.views[i], &mut r), a)
        })
        .unzip()
}

pub struct JoaoV2 {
    pub vs: nn::VarStore,
    pub encoder: GinEncoder,
    heads: Vec<Mlp>,
    opt: Adam,
    loss: InfoNce,
    pool: [Box<dyn Augmentor>; POOL],
    /// The augmentation distribution P (uniform at the start).
    pub probs: [f64; POOL],
    gamma: f64,
    per_graph_heads: bool,
    sampler: Box<dyn ScheduleSampler>,
    k_first: bool,
    eval_schedule: Vec<usize>,
    seed: u64,
}

impl JoaoV2 {
    pub fn new(p: &Checked<MethodParams>, input_dim: usize, device: Device) -> Result<JoaoV2> {
        let joao = p.sections.require::<JoaoParams>("joaov2")?;
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let gin = p.gin();
        let encoder = GinEncoder::new(
            &(&root / "encoder"),
            input_dim as i64,
            &gin,
            GinStyle::GraphCl,
            Init::XavierZeroBias,
        );
        let e = encoder.embedding_dim();
        let heads = (0..POOL)
            .map(|i| Mlp::new(&root / "heads" / i, e, e, e, Init::XavierZeroBias))
            .collect();
        let opt = Adam::new(&vs, p.train.lr, p.train.weight_decay)?;
        let sampler = ma::sampler(&p.ma(), gin.layers, encoder.plain_schedule(), p.train.seed);
        // As GraphCL: the original graph is the anchor and is not augmented.
        let k_first = ma::k_first(
            p.ma.k_branch,
            ma::Branches {
                first_is_anchor: true,
                first_is_unaugmented: true,
                symmetric: p.loss.symmetric,
            },
        );
        Ok(JoaoV2 {
            vs,
            encoder,
            heads,
            opt,
            loss: InfoNce::new(p.loss(), 0),
            pool: pool(joao.ratio),
            probs: [1.0 / POOL as f64; POOL],
            gamma: joao.gamma,
            per_graph_heads: joao.heads == JoaoHeads::Augmentation,
            sampler,
            k_first,
            eval_schedule: ma::eval_schedule(&p.ma(), gin.layers),
            seed: p.train.seed,
        })
    }

    /// The views of `ids` for `epoch` with their augmentations' indices ([`views`]).
    fn views(
        &self,
        data: &GraphData,
        ids: &[usize],
        epoch: usize,
        forced: Option<usize>,
    ) -> (Vec<GraphView>, Vec<usize>) {
        let (pool, probs) = (&self.pool, &self.probs);
        views(pool, probs, self.seed, data, ids, epoch, forced)
    }

    /// Projected embeddings of `views` through `heads[head[k]]` row by row.
    fn project(&self, z: &Tensor, head: &[usize]) -> Tensor {
        if head.iter().all(|&h| h == head[0]) {
            return self.heads[head[0]].forward(z);
        }
        let all: Vec<Tensor> = self.heads.iter().map(|h| h.forward(z)).collect();
        let idx = Tensor::from_slice(&head.iter().map(|&h| h as i64).collect::<Vec<_>>())
            .to_device(z.device());
        Tensor::stack(&all, 1)
            .gather(
                1,
                &idx.view([-1, 1, 1]).expand([-1, 1, z.size()[1]], false),
                false,
            )
            .squeeze_dim(1)
    }

    /// The mean loss of each augmentation alone on the first ⌊B/5⌋ + 1 batches.
    fn estimate(&self, data: &GraphData, batches: &[Vec<usize>], epoch: usize) -> [f64; POOL] {
        let device = self.vs.device();
        let take = (batches.len() / POOL + 1).min(batches.len());
        let mut out = [0.0; POOL];
        tch::no_grad(|| {
            for (a, slot) in out.iter_mut().enumerate() {
                let mut total = 0.0;
                let mut graphs = 0usize;
                for ids in &batches[..take] {
                    // The code's estimate runs every branch on plain GIN and head 0.
                    let plain = self.encoder.plain_schedule();
                    let g1 = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim)
                        .to_tensors(device);
                    let (aug, _) = self.views(data, ids, epoch, Some(a));
                    let g2 = Batch::collate(&aug, data.dim).to_tensors(device);
                    let z1 = self.heads[0].forward(&self.encoder.forward(&g1, &plain, true).graph);
                    let z2 = self.heads[0].forward(&self.encoder.forward(&g2, &plain, true).graph);
                    total += self.loss.loss(&z1, &z2).double_value(&[]) * ids.len() as f64;
                    graphs += ids.len();
                }
                *slot = total / graphs.max(1) as f64;
            }
        });
        out
    }
}

impl GraphMethod for JoaoV2 {
    /// The model, the optimiser and the augmentation distribution P, which
    /// [`GraphMethod::end_epoch`] moves every epoch.
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        v.var_store("model", &self.vs)?;
        self.opt.visit_state("adam", v)?;
        let mut probs = self.probs.to_vec();
        v.values("probs", &mut probs)?;
        self.probs = probs.try_into().map_err(|p: Vec<f64>| {
            crate::error::Error::Config(format!(
                "the checkpoint's augmentation distribution has {} entries, expected {POOL}",
                p.len()
            ))
        })?;
        Ok(())
    }
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64> {
        let device = self.vs.device();
        let (k1, k2) = ma::place(self.sampler.sample(step, epoch as u64), self.k_first);
        let original = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
        let (augmented, chosen) = self.views(data, ids, epoch, None);
        let head: Vec<usize> = if self.per_graph_heads {
            chosen
        } else {
            let mut r = rng::stream(self.seed, &[streams::AUGMENT_HEAD, epoch as u64]);
            vec![draw(&self.probs, &mut r); ids.len()]
        };
        let g1 = original.to_tensors(device);
        let g2 = Batch::collate(&augmented, data.dim).to_tensors(device);
        let z1 = self.heads[0].forward(&self.encoder.forward(&g1, &k1, true).graph);
        let z2 = self.project(&self.encoder.forward(&g2, &k2, true).graph, &head);
        let loss = self.loss.loss(&z1, &z2);
        self.opt.zero_grad();
        loss.backward();
        self.opt.step();
        Ok(loss.double_value(&[]))
    }

    fn end_epoch(
        &mut self,
        data: &GraphData,
        batches: &[Vec<usize>],
        epoch: usize,
        _mean_loss: f64,
        last: bool,
    ) -> Result<()> {
        if !last {
            let loss = self.estimate(data, batches, epoch);
            self.probs = minmax_update(&self.probs, &loss, self.gamma);
        }
        Ok(())
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

    /// The update by hand. Uniform P, losses (0.5, 0.1, 0.1, 0.1, 0.1), γ = 0.1:
    /// b = 0.2 + loss = (0.7, 0.3, 0.3, 0.3, 0.3); the shift with Σ (b − μ) = 1 is
    /// μ = 0.18, so P = (0.52, 0.12, 0.12, 0.12, 0.12) (to the bisection's tolerance).
    /// With losses (2, 0, 0, 0, 0) the projection clips: μ = 1.2 and P = (1, 0, 0, 0, 0).
    #[test]
    fn minmax_update_by_hand() {
        let u = [0.2; POOL];
        let p = minmax_update(&u, &[0.5, 0.1, 0.1, 0.1, 0.1], 0.1);
        let want = [0.52, 0.12, 0.12, 0.12, 0.12];
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        for (a, b) in p.iter().zip(want) {
            assert!((a - b).abs() < 3e-3, "{p:?}");
        }
        assert_eq!(
            minmax_update(&u, &[2.0, 0.0, 0.0, 0.0, 0.0], 0.1),
            [1.0, 0.0, 0.0, 0.0, 0.0]
        );
        // Equal losses leave a uniform P uniform; γ pulls a skewed P back towards it:
        // (0.6, 0.1, …) with no loss and γ = 0.5 gives b = (0.4, 0.15, 0.15, 0.15, 0.15),
        // already on the simplex; γ = 1 returns it to uniform.
        let same = minmax_update(&u, &[0.3; POOL], 1.0);
        assert!(same.iter().all(|x| (x - 0.2).abs() < 1e-12), "{same:?}");
        let skew = [0.6, 0.1, 0.1, 0.1, 0.1];
        let back = minmax_update(&skew, &[0.0; POOL], 0.5);
        for (a, b) in back.iter().zip([0.4, 0.15, 0.15, 0.15, 0.15]) {
            assert!((a - b).abs() < 3e-3, "{back:?}");
        }
        let home = minmax_update(&skew, &[0.0; POOL], 1.0);
        assert!(home.iter().all(|x| (x - 0.2).abs() < 1e-9), "{home:?}");
    }

    #[test]
    fn draws_follow_the_distribution() {
        let p = [0.5, 0.0, 0.25, 0.25, 0.0];
        let mut r = rng::stream(1, &[99]);
        let mut count = [0usize; POOL];
        for _ in 0..20_000 {
            count[draw(&p, &mut r)] += 1;
        }
        assert_eq!((count[1], count[4]), (0, 0), "{count:?}");
        for (c, w) in count.iter().zip(p) {
            assert!((*c as f64 / 20_000.0 - w).abs() < 0.015, "{count:?}");
        }
    }

    fn config(overrides: serde_json::Value) -> TestConfig {
        let mut o = serde_json::json!({"epochs": 3, "batch_size": 8});
        o.as_object_mut()
            .unwrap()
            .extend(serde_json::from_value::<serde_json::Map<_, _>>(overrides).unwrap());
        TestConfig::new("joaov2", "toy", None, 5, o).unwrap()
    }

    /// Per-row heads: each row goes through its own head.
    #[test]
    fn each_row_goes_through_its_head() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(5);
        let cfg = config(serde_json::json!({}));
        let m = JoaoV2::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
        let z = Tensor::randn([4, 96], (tch::Kind::Float, Device::Cpu));
        let heads = [3usize, 0, 4, 3];
        let got = m.project(&z, &heads);
        for (row, &h) in heads.iter().enumerate() {
            let want = m.heads[h].forward(&z.narrow(0, row as i64, 1));
            let diff = (got.narrow(0, row as i64, 1) - want)
                .abs()
                .max()
                .double_value(&[]);
            assert!(diff < 1e-6, "row {row}: {diff}");
        }
    }

    /// One short run; returns the losses, the embeddings and the final P.
    fn run(cfg: &TestConfig) -> (Vec<f64>, Vec<f32>, [f64; POOL]) {
        let (m, losses, emb) = train_toy(cfg, |p| JoaoV2::new(p, 1, Device::Cpu).unwrap());
        assert_eq!(emb.len(), 40 * 96);
        (losses, emb, m.probs)
    }

    #[test]
    fn same_seed_same_run_and_the_distribution_moves() {
        let _g = crate::rng::torch_lock();
        for o in [
            serde_json::json!({}),
            serde_json::json!({"joao": {"heads": "augmentation"}, "ma": {"enabled": true, "reading": "code"}}),
        ] {
            let cfg = config(o);
            let (l1, e1, p1) = run(&cfg);
            let (l2, e2, p2) = run(&cfg);
            assert_eq!(l1, l2);
            assert!(e1 == e2, "embeddings differ");
            assert_eq!(p1, p2);
            assert!(l1.iter().all(|l| l.is_finite()));
            assert!((p1.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            // two updates (after epochs 1 and 2; none after the last): P left uniform
            assert!(p1.iter().any(|x| (x - 0.2).abs() > 1e-6), "{p1:?}");
        }
    }

    #[test]
    fn the_preset_is_the_released_script() {
        let cfg = TestConfig::new("joaov2", "toy", None, 0, serde_json::json!({})).unwrap();
        let p = &cfg.preset;
        assert_eq!(
            (p.epochs, p.batch_size, p.hidden, p.layers),
            (40, 128, 32, 3)
        );
        assert_eq!((p.lr, p.evaluator.name()), (0.001, "svc-rbf"));
        let j = p.sections.require::<JoaoParams>("joaov2").unwrap();
        assert_eq!((j.gamma, j.heads, j.ratio), (0.1, JoaoHeads::Epoch, 0.2));
        let bad = TestConfig::new(
            "joaov2",
            "toy",
            None,
            0,
            serde_json::json!({"joao": {"heads": "x"}}),
        );
        let e = bad.err().unwrap().to_string();
        assert!(
            e.contains("joao.heads") && e.contains("epoch, augmentation"),
            "{e}"
        );
    }
}
