//! AD-GCL (Suresh et al. 2021, the FIX variant) and AD-GCL+MA.
//!
//! AD-GCL learns its augmentation: a view learner (its own GIN encoder and an edge MLP on
//! `[h_src ‖ h_dst]`) scores every directed edge; a concrete (binary Gumbel) relaxation
//! with temperature 1 turns the scores into soft edge weights, which multiply the
//! messages of the weighted GIN. Per batch, the view learner takes an ascent step on
//! `NT-Xent − λ · reg` (reg = expected fraction of dropped edges, averaged over graphs
//! with edges; the model in evaluation mode), then the model takes a descent step on
//! NT-Xent with fresh (detached) weights. The loss is symmetric, T = 0.2.
//!
//! With `adgcl.augmenter = fixed` the learned view is dropped: the original graph against
//! a view with edge dropping and attribute masking. Without MA that is the control for
//! AD-GCL+MA (result rows name it `adgcl-fixed`); with MA it is AD-GCL+MA (the MA-GCL
//! appendix), the original graph following schedule K and the augmented view K′ (the loss
//! is symmetric, so `ma.k_branch` keeps K on the original graph).
use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};

use super::CheckedParts;
use super::{Checked, MethodParams, Selection};
use super::{MethodEntry, Preset, PresetRequest};
use crate::augment::{augment_views, AttrMask, Augmentor, Compose, EdgeDrop};
use crate::error::Result;
use crate::eval::Evaluator;
use crate::graph::{Batch, GraphTensors};
use crate::loss::{InfoNce, InfoNceParams};
use crate::ma::{self, MaParams, ScheduleSampler};
use crate::nn::{GinEncoder, GinStyle, Init, Mlp};
use crate::params::{
    bad, check_ratio, check_size, section, MethodTable, ParamGuard, Section, MAX_WIDTH,
};
use crate::params::{SettingError, Task};
use crate::rng::{self, streams};
use crate::train::encoder::{calibrate_batch_norm, embed_encoder};
use crate::train::graph::{GraphData, GraphMethod, GraphRunner};
use crate::train::optim::Adam;
use crate::train::state::StateVisitor;
use serde::{Deserialize, Serialize};

/// AD-GCL settings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdgclParams {
    pub view_lr: f64,
    pub reg_lambda: f64,
    pub edge_mlp_dim: usize,
    pub concrete_temperature: f64,
    /// Evaluate every this many epochs; the epoch is chosen by validation score.
    pub eval_interval: usize,
    /// AD-GCL+MA: feature-mask and edge-drop ratios replacing the learned view.
    pub ma_mask: f64,
    pub ma_edge_drop: f64,
    /// `learned` (AD-GCL's view learner) or `fixed` (edge dropping and attribute masking
    /// with the ratios above, no learned view: AD-GCL+MA without MA, its control). MA
    /// needs `fixed`; left out, it is `fixed` with MA and `learned` without.
    #[serde(default)]
    pub augmenter: Option<Augmenter>,
}

/// AD-GCL's augmenter.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Augmenter {
    Learned,
    Fixed,
}

impl Default for AdgclParams {
    /// The official code's defaults.
    fn default() -> Self {
        AdgclParams {
            view_lr: 1e-3,
            reg_lambda: 5.0,
            edge_mlp_dim: 64,
            concrete_temperature: 1.0,
            eval_interval: 5,
            ma_mask: 0.1,
            ma_edge_drop: 0.1,
            augmenter: None,
        }
    }
}

impl Section for AdgclParams {
    const KEY: &'static str = "adgcl";
}

impl ParamGuard for AdgclParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        check_size("adgcl.edge_mlp_dim", self.edge_mlp_dim, MAX_WIDTH)?;
        check_ratio("adgcl.ma_mask", self.ma_mask)?;
        check_ratio("adgcl.ma_edge_drop", self.ma_edge_drop)
    }
}

/// The learnable augmenter: encoder + edge MLP → one logit per directed edge.
pub struct ViewLearner {
    pub vs: nn::VarStore,
    pub encoder: GinEncoder,
    pub edge_mlp: Mlp,
    pub(crate) opt: Adam,
}

impl ViewLearner {
    /// Edge logits of the batch (`E`), with the learner's BN in training or eval mode.
    pub fn logits(&self, g: &GraphTensors, train: bool) -> Tensor {
        let plain = self.encoder.plain_schedule();
        let h = self.encoder.forward(g, &plain, train).nodes;
        let pair = Tensor::cat(&[h.index_select(0, &g.src), h.index_select(0, &g.dst)], 1);
        self.edge_mlp.forward(&pair).squeeze_dim(-1)
    }
}

/// Uniform noise in [1e-4, 1 − 1e-4] for the concrete relaxation, one value per directed
/// edge of `g`, from the stream `(seed, PERTURB, step, which)`.
pub fn concrete_noise(g: &GraphTensors, seed: u64, step: u64, which: u64) -> Tensor {
    let e = g.src.size()[0];
    rng::uniform_tensor(
        seed,
        &[streams::PERTURB, step, which],
        &[e],
        1e-4,
        1.0 - 1e-4,
        g.device(),
    )
}

/// Soft edge weights `sigmoid((log u − log(1 − u) + logits) / T)` ∈ (0, 1).
pub fn concrete_weights(logits: &Tensor, noise: &Tensor, temperature: f64) -> Tensor {
    let gate = noise.log() - noise.neg().g_add_scalar(1.0).log();
    ((gate + logits) / temperature).sigmoid()
}

/// Mean over graphs with at least one edge of the mean drop probability `1 − w` of their
/// edges (`edge_graph[e]` = graph of edge e).
pub fn drop_regulariser(weights: &Tensor, edge_graph: &Tensor, num_graphs: usize) -> Tensor {
    let dev = weights.device();
    let ones = Tensor::ones_like(weights);
    let count =
        Tensor::zeros([num_graphs as i64], (Kind::Float, dev)).index_add(0, edge_graph, &ones);
    let sum = Tensor::zeros([num_graphs as i64], (Kind::Float, dev)).index_add(
        0,
        edge_graph,
        &weights.neg().g_add_scalar(1.0),
    );
    let has = count.gt(0.0);
    let per_graph = sum.masked_select(&has) / count.masked_select(&has);
    if per_graph.numel() == 0 {
        return Tensor::zeros([], (Kind::Float, dev));
    }
    per_graph.mean(Kind::Float)
}

pub struct AdGcl {
    pub vs: nn::VarStore,
    pub encoder: GinEncoder,
    pub projector: Mlp,
    opt: Adam,
    /// The learned augmenter (AD-GCL); `None` with the fixed augmenter (and under MA).
    pub view: Option<ViewLearner>,
    policy: Box<dyn Augmentor>,
    sampler: Box<dyn ScheduleSampler>,
    /// Whether the original graph follows K (else the augmented view does).
    pub(crate) k_first: bool,
    /// The evaluation encoder's schedule.
    pub(crate) eval_schedule: Vec<usize>,
    loss: InfoNce,
    reg_lambda: f64,
    temperature: f64,
    seed: u64,
    /// Evaluate (validation protocol) every this many epochs to choose the epoch.
    eval_interval: usize,
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::adgcl::DECL,
    "AD-GCL (Suresh et al. 2021): a learned edge-dropping augmenter trained adversarially",
    preset,
    |p, data, device, progress| {
        GraphRunner::boxed(&ENTRY, p, data, progress, |g| AdGcl::new(p, g.dim, device))
    },
)
.sections(&[section::<AdgclParams>()])
.cost(|p, size| 5.0e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges))
.normalise(|p| {
    // Left out, the augmenter follows MA: fixed with MA, learned without.
    let ma = p.ma.enabled;
    if let Ok(Some(a)) = p.sections.get::<AdgclParams>() {
        if a.augmenter.is_none() {
            let mut a = a.into_inner();
            a.augmenter = Some(if ma {
                Augmenter::Fixed
            } else {
                Augmenter::Learned
            });
            // `set` fails only for values JSON cannot hold; these are plain numbers.
            let _ = p.sections.set(&a);
        }
    }
})
.check(|p| {
    let a = p.sections.require::<AdgclParams>("adgcl")?;
    if a.augmenter == Some(Augmenter::Learned) && p.ma.enabled {
        return Err(bad(
            "adgcl.augmenter",
            "AD-GCL+MA replaces the learned augmenter by edge dropping and attribute \
             masking (the paper's appendix): set adgcl.augmenter = fixed or turn MA off",
        ));
    }
    Ok(())
})
// With the fixed augmenter (AD-GCL+MA's control, and AD-GCL+MA) rows say `adgcl-fixed`.
.label(|entry, p| match p.sections.get::<AdgclParams>() {
    Ok(Some(a)) if a.augmenter == Some(Augmenter::Fixed) => "adgcl-fixed".into(),
    _ => entry.name.into(),
});

/// AD-GCL's unsupervised TU setup (the official code's argparse defaults in
/// `test_minmax_tu.py`):
/// 150 epochs, Adam at 1e-3 for the encoder and the view learner, batch 32, a 5-layer GIN
/// of width 32, symmetric NT-Xent at T = 0.2, λ = 5, scored by a linear SVM with the
/// epoch chosen on validation folds.
fn preset(req: &PresetRequest) -> Result<Preset> {
    if req.name.is_some() {
        return Err(req.unknown_name(&ENTRY));
    }
    let mut sections = MethodTable::default();
    sections.set(&AdgclParams::default())?;
    Ok(Preset {
        task: Task::Graph,
        epochs: 150,
        lr: 1e-3,
        weight_decay: 0.0,
        batch_size: 32,
        hidden: 32,
        layers: 5,
        features: ENTRY.features(),
        evaluator: Evaluator::LinearSvc,
        gin_eps: 0.0,
        loss: InfoNceParams::graph_level(true),
        ma: MaParams::default(),
        pretrain: Default::default(),
        sections,
    })
}

impl AdGcl {
    pub fn new(p: &Checked<MethodParams>, input_dim: usize, device: Device) -> Result<AdGcl> {
        let ad = p.sections.require::<AdgclParams>("adgcl")?;
        let gin = p.gin();
        let encoder_in = |path: &nn::Path| {
            GinEncoder::new(
                path,
                input_dim as i64,
                &gin,
                GinStyle::AdGcl,
                Init::XavierZeroBias,
            )
        };
        let vs = nn::VarStore::new(device);
        let encoder = encoder_in(&(vs.root() / "encoder"));
        let h = p.gin.hidden as i64;
        let projector = Mlp::new(vs.root() / "projector", h, h, h, Init::XavierZeroBias);
        let opt = Adam::new(&vs, p.train.lr, p.train.weight_decay)?;
        // Left out, the augmenter is fixed under MA and learned without (`normalise`).
        let fixed = match ad.augmenter {
            Some(a) => a == Augmenter::Fixed,
            None => p.ma.enabled,
        };
        let view = if fixed {
            None
        } else {
            let vvs = nn::VarStore::new(device);
            let venc = encoder_in(&(vvs.root() / "encoder"));
            let edge_mlp = Mlp::new(
                vvs.root() / "edge_mlp",
                2 * h,
                ad.edge_mlp_dim as i64,
                1,
                Init::XavierZeroBias,
            );
            let vopt = Adam::new(&vvs, ad.view_lr, 0.0)?;
            Some(ViewLearner {
                vs: vvs,
                encoder: venc,
                edge_mlp,
                opt: vopt,
            })
        };
        let sampler = ma::sampler(
            &p.ma(),
            p.gin.layers,
            encoder.plain_schedule(),
            p.train.seed,
        );
        let k_first = ma::k_first(
            p.ma.k_branch,
            ma::Branches {
                first_is_anchor: true,
                first_is_unaugmented: true,
                symmetric: p.loss.symmetric,
            },
        );
        let eval_schedule = ma::eval_schedule(&p.ma, p.gin.layers);
        Ok(AdGcl {
            vs,
            encoder,
            projector,
            opt,
            view,
            policy: Box::new(Compose(vec![
                Box::new(EdgeDrop(ad.ma_edge_drop)),
                Box::new(AttrMask(ad.ma_mask)),
            ])),
            sampler,
            k_first,
            eval_schedule,
            loss: InfoNce::new(p.loss(), 0),
            reg_lambda: ad.reg_lambda,
            temperature: ad.concrete_temperature,
            seed: p.train.seed,
            eval_interval: ad.eval_interval.max(1),
        })
    }

    fn project(&self, g: &GraphTensors, schedule: &[usize], train: bool) -> Tensor {
        self.projector
            .forward(&self.encoder.forward(g, schedule, train).graph)
    }

    /// The view learner's objective `NT-Xent − λ·reg` on batch `g` with the given concrete
    /// noise (model in evaluation mode, learner in training mode). Only the augmented
    /// branch depends on the learner, so the original graph's embeddings are computed
    /// without an autograd record (the same numbers; the backward pass skips that branch).
    pub fn view_objective(&self, g: &GraphTensors, noise: &Tensor) -> Option<Tensor> {
        let view = self.view.as_ref()?;
        let plain = self.encoder.plain_schedule();
        let w = concrete_weights(&view.logits(g, true), noise, self.temperature);
        let x = tch::no_grad(|| self.project(g, &plain, false));
        let mut g_aug = g.with_x(g.x.shallow_clone());
        g_aug.edge_weight = Some(w.shallow_clone());
        let x_aug = self.project(&g_aug, &plain, false);
        let edge_graph = g.batch.index_select(0, &g.src);
        let reg = drop_regulariser(&w, &edge_graph, g.num_graphs);
        Some(self.loss.loss(&x, &x_aug) - reg * self.reg_lambda)
    }

    /// One ascent step of the view learner on `g` (with `noise`); returns the objective.
    ///
    /// The model's weights are frozen for the step: the ascent only updates the learner,
    /// and without `requires_grad` on the model's weights the backward pass computes the
    /// gradients of the model's activations (through which the learner's gradient flows)
    /// but not those of its weights, which the descent step would zero anyway. The
    /// learner's gradient is the same, bit for bit.
    pub fn view_step(&mut self, g: &GraphTensors, noise: &Tensor) -> Option<f64> {
        self.view.as_ref()?;
        self.vs.freeze();
        let out = self.view_objective(g, noise).and_then(|obj| {
            let view = self.view.as_mut()?;
            view.opt.zero_grad();
            (-&obj).backward();
            view.opt.step();
            Some(obj.double_value(&[]))
        });
        self.vs.unfreeze();
        out
    }
}

/// MKL's own thread count for BLAS calls made from this thread, set to 1 for as long as
/// the guard lives (then restored).
///
/// With two or more intra-op threads, MKL splits the K dimension of AD-GCL's tall, thin
/// weight-gradient products (K = nodes or edges of a batch, M, N ≤ 64) across threads and
/// waits for the partner in a spin loop (`gblock_by_k_omp`). On the CPU that loop was 44 %
/// of a two-thread AD-GCL run's samples (`perf`, PROTEINS, a busy 2-core machine) and made
/// an epoch cost 2.8× the CPU time of a one-thread epoch. Element-wise operations keep
/// libtorch's intra-op threads. A no-op where the library has no MKL (the symbol is looked
/// up at run time).
pub(crate) struct SerialBlas(
    pub(crate)  Option<(
        unsafe extern "C" fn(libc::c_int) -> libc::c_int,
        libc::c_int,
    )>,
);

impl SerialBlas {
    pub(crate) fn new(device: Device) -> SerialBlas {
        if device != Device::Cpu {
            return SerialBlas(None);
        }
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol up.
        let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"MKL_Set_Num_Threads_Local".as_ptr()) };
        if sym.is_null() {
            return SerialBlas(None);
        }
        // SAFETY: MKL's C entry point, `int MKL_Set_Num_Threads_Local(int)` (the lower-case
        // name is the Fortran one, which takes a pointer); it
        // changes the calling thread's setting only and returns the previous one (0 = the
        // global setting).
        let set: unsafe extern "C" fn(libc::c_int) -> libc::c_int =
            unsafe { std::mem::transmute(sym) };
        let previous = unsafe { set(1) };
        SerialBlas(Some((set, previous)))
    }
}

impl Drop for SerialBlas {
    fn drop(&mut self) {
        if let Some((set, previous)) = self.0 {
            // SAFETY: as in `new`; restores this thread's previous setting.
            unsafe { set(previous) };
        }
    }
}

impl GraphMethod for AdGcl {
    /// The encoder and projection head, their optimiser, and the learned augmenter's
    /// network and optimiser where there is one.
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        v.var_store("model", &self.vs)?;
        self.opt.visit_state("adam", v)?;
        if let Some(view) = &mut self.view {
            v.var_store("view", &view.vs)?;
            view.opt.visit_state("view_adam", v)?;
        }
        Ok(())
    }
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64> {
        let device = self.vs.device();
        let _blas = SerialBlas::new(device);
        let g = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim).to_tensors(device);
        let plain = self.encoder.plain_schedule();
        let loss = if self.view.is_some() {
            let noise = concrete_noise(&g, self.seed, step, 0);
            self.view_step(&g, &noise);
            let noise = concrete_noise(&g, self.seed, step, 1);
            let w = match &self.view {
                Some(v) => tch::no_grad(|| {
                    concrete_weights(&v.logits(&g, false), &noise, self.temperature)
                }),
                None => noise.ones_like(),
            };
            let x = self.project(&g, &plain, true);
            let mut g_aug = g.with_x(g.x.shallow_clone());
            g_aug.edge_weight = Some(w.detach());
            let x_aug = self.project(&g_aug, &plain, true);
            self.loss.loss(&x, &x_aug)
        } else {
            let (k1, k2) = ma::place(self.sampler.sample(step, epoch as u64), self.k_first);
            let aug = augment_views(&data.views, ids, self.policy.as_ref(), self.seed, epoch);
            let g_aug = Batch::collate(&aug, data.dim).to_tensors(device);
            let x = self.project(&g, &k1, true);
            let x_aug = self.project(&g_aug, &k2, true);
            self.loss.loss(&x, &x_aug)
        };
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
    fn selection(&self) -> Selection {
        Selection::Validation {
            every: self.eval_interval,
        }
    }
}

/// Tests that start from the method's preset (`TestConfig`).
#[cfg(test)]
mod tests {

    use crate::graph::Batch;
    use crate::methods::adgcl::SerialBlas;
    use crate::methods::adgcl::*;
    use crate::methods::tests::TestConfig;
    use crate::rng;
    use crate::train::graph::tests::toy_data;
    use crate::train::graph::GraphMethod;
    use crate::train::graph::{train_graph_method, LoopConfig};
    use tch::{Device, Kind, Tensor};

    fn config(ma: bool) -> TestConfig {
        config_with(serde_json::json!({"ma": {"enabled": ma}, "epochs": 2}))
    }

    fn config_with(overrides: serde_json::Value) -> TestConfig {
        TestConfig::new("adgcl", "toy", None, 4, overrides).unwrap()
    }

    #[test]
    fn the_fixed_augmenter_drops_the_view_learner_with_or_without_ma() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        let learned = AdGcl::new(&config(false).method_params().unwrap(), 1, Device::Cpu).unwrap();
        assert!(learned.view.is_some(), "AD-GCL learns its view");
        let control = config_with(serde_json::json!({"adgcl": {"augmenter": "fixed"}}));
        let c = AdGcl::new(&control.method_params().unwrap(), 1, Device::Cpu).unwrap();
        assert!(c.view.is_none(), "the control has no view learner");
        assert_eq!(c.eval_schedule, vec![1; 5]);
        let ma = AdGcl::new(&config(true).method_params().unwrap(), 1, Device::Cpu).unwrap();
        assert!(ma.view.is_none(), "AD-GCL+MA has no view learner");
        // the loss is symmetric: every reading keeps K on the original graph
        for reading in ["current", "code", "paper"] {
            let cfg = config_with(serde_json::json!({"ma": {"enabled": true, "reading": reading}}));
            let m = AdGcl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
            assert!(m.k_first, "{reading}");
        }
        // the control trains: one step on the toy set moves its loss off NaN and the weights
        tch::manual_seed(2);
        let data = toy_data(16);
        let mut c = AdGcl::new(&control.method_params().unwrap(), 1, Device::Cpu).unwrap();
        let before = c.embed(&data).unwrap().0;
        let ids: Vec<usize> = (0..16).collect();
        assert!(c.step(&data, &ids, 0, 0).unwrap().is_finite());
        assert!(c.embed(&data).unwrap().0 != before);
    }

    #[test]
    fn serial_blas_gives_mkl_one_thread_here_and_restores_the_setting() {
        let _g = crate::rng::torch_lock(); // the thread counts are process state
                                           // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol up.
        let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"MKL_Get_Max_Threads".as_ptr()) };
        if sym.is_null() {
            assert!(
                SerialBlas::new(Device::Cpu).0.is_none(),
                "no MKL, no setting"
            );
            return;
        }
        // SAFETY: MKL's C entry point `int MKL_Get_Max_Threads(void)`.
        let max: unsafe extern "C" fn() -> libc::c_int = unsafe { std::mem::transmute(sym) };
        let threads = tch::get_num_threads();
        tch::set_num_threads(2);
        let before = unsafe { max() };
        {
            let _b = SerialBlas::new(Device::Cpu);
            assert_eq!(unsafe { max() }, 1, "MKL runs serially inside the step");
        }
        assert_eq!(unsafe { max() }, before, "the setting is restored");
        assert!(
            SerialBlas::new(Device::Cuda(0)).0.is_none(),
            "nothing to do off the CPU"
        );
        tch::set_num_threads(threads);
    }

    #[test]
    fn concrete_weights_are_bounded_and_differentiable() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let logits = Tensor::from_slice(&[-50.0f32, -1.0, 0.0, 1.0, 50.0]).set_requires_grad(true);
        let noise = Tensor::from_slice(&[1e-4f32, 0.3, 0.5, 0.7, 1.0 - 1e-4]);
        let w = concrete_weights(&logits, &noise, 1.0);
        let v: Vec<f32> = Vec::try_from(&w).unwrap();
        assert!(v.iter().all(|&x| (0.0..=1.0).contains(&x)));
        assert!((v[2] - 0.5).abs() < 1e-6, "u = 0.5 and logit 0 give 1/2");
        // sigmoid(log(u/(1-u)) + l): u = 0.3, l = -1
        let want = 1.0 / (1.0 + (-((0.3f64 / 0.7).ln() - 1.0)).exp());
        assert!((v[1] as f64 - want).abs() < 1e-6);
        w.sum(Kind::Float).backward();
        let g: Vec<f32> = Vec::try_from(logits.grad()).unwrap();
        assert!(
            g[1] > 0.0 && g[2] > 0.0 && g[3] > 0.0,
            "gradient flows into the logits"
        );
        let data = toy_data(300);
        let g = Batch::collate(&data.views, 1).to_tensors(Device::Cpu);
        let u: Vec<f32> = Vec::try_from(concrete_noise(&g, 0, 0, 0)).unwrap();
        assert!(u.len() > 1000 && u.iter().all(|&x| (1e-4..=1.0 - 1e-4).contains(&x)));
    }

    #[test]
    fn regulariser_averages_per_graph_and_skips_edgeless_graphs() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let w = Tensor::from_slice(&[1.0f32, 0.5, 0.0, 0.0]);
        let eg = Tensor::from_slice(&[0i64, 0, 2, 2]);
        // graph 0: mean(0, 0.5) = 0.25; graph 1: no edges; graph 2: mean(1, 1) = 1
        let r = drop_regulariser(&w, &eg, 3).double_value(&[]);
        assert!((r - 0.625).abs() < 1e-6);
    }

    #[test]
    fn the_view_step_ascends_its_objective() {
        let _g = rng::torch_lock();
        tch::manual_seed(0);
        let data = toy_data(16);
        let mut m = AdGcl::new(&config(false).method_params().unwrap(), 1, Device::Cpu).unwrap();
        if let Some(v) = m.view.as_mut() {
            v.opt.set_lr(0.01);
        }
        let g = Batch::collate(&data.views, 1).to_tensors(Device::Cpu);
        let noise = concrete_noise(&g, 0, 0, 0);
        let before = m.view_objective(&g, &noise).unwrap().double_value(&[]);
        for _ in 0..5 {
            m.view_step(&g, &noise);
        }
        let after = m.view_objective(&g, &noise).unwrap().double_value(&[]);
        assert!(after > before, "{before} → {after}");
    }

    #[test]
    fn both_variants_train_deterministically() {
        let _g = rng::torch_lock();
        for over in [
            serde_json::json!({"ma": {"enabled": false}, "epochs": 2}),
            serde_json::json!({"ma": {"enabled": true}, "epochs": 2}),
            serde_json::json!({"ma": {"enabled": false}, "adgcl": {"augmenter": "fixed"}, "epochs": 2}),
            serde_json::json!({"ma": {"enabled": true, "reading": "code"}, "epochs": 2}),
        ] {
            let cfg = config_with(over);
            let (label, ma) = cfg.labels();
            let ma = label + " " + &ma;
            let go = || {
                tch::set_num_threads(1);
                tch::manual_seed(1);
                let data = toy_data(40);
                let mut m = AdGcl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
                let lc = LoopConfig {
                    epochs: 2,
                    batch_size: cfg.preset.batch_size,
                    seed: cfg.seed,
                    progress: false,
                    pretrain: Default::default(),
                };
                let log = train_graph_method(&mut m, &data, &lc, |_, _| Ok(())).unwrap();
                let (e, d) = m.embed(&data).unwrap();
                assert_eq!(d, 32);
                (log.epoch_losses, e)
            };
            let (a, b) = (go(), go());
            assert!(a == b, "ma = {ma}: runs differ");
        }
    }
}
