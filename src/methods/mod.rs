//! Contrastive methods. Graph-level methods implement [`GraphMethod`] (one optimisation
//! step on a set of graphs; embeddings of all graphs with the evaluation encoder) and share
//! the training loop [`train_graph_method`]; the node-level base model / MA-GCL lives in
//! [`node`].
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tch::nn::{self, Module};
use tch::{Device, Tensor};

use crate::error::{Error, Result};
use crate::graph::{Batch, GraphTensors, GraphView};
use crate::loss::InfoNceParams;
use crate::ma::MaParams;
use crate::nn::GinParams;
use crate::nn::{GinEncoder, GinStyle, Init, Mlp};
use crate::params::Task;
use crate::params::{
    bad, check_size, Checked, MethodTable, ParamGuard, SectionSpec, MAX_BATCH_SIZE, MAX_EPOCHS,
};
use crate::rng::{self, streams};
use magcl_config::MethodDecl;
use state::{Resume, StateVisitor};

pub mod adgcl;
pub mod bgrl;
pub mod branches;
pub mod degree;
pub mod features;
pub mod gca;
pub mod grace;
pub mod graphcl;
pub mod infograph;
pub mod joaov2;
pub mod mvgrl;
pub mod node;
pub mod optim;
pub mod registry;
pub mod simgrace;
pub mod state;
pub mod untrained;
pub mod wl;

/// A graph-classification dataset ready for training: one view per graph (features
/// attached) and the class labels.
pub struct GraphData {
    pub views: Vec<GraphView>,
    pub labels: Vec<u32>,
    pub dim: usize,
}

/// One graph-level contrastive method.
pub trait GraphMethod {
    /// One optimisation step on the graphs `ids` (epoch and global step given for the
    /// deterministic random streams). Returns the loss.
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64>;
    /// Embeddings of all graphs (`n × d`, row-major, on the CPU) from the evaluation encoder.
    fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)>;
    /// Called after the last step of epoch `epoch` (whose batches were `batches` and whose
    /// mean step loss was `mean_loss`) and after that epoch's `after_epoch` callback; `last`
    /// on the final epoch. JOAOv2 moves its augmentation distribution here, MVGRL keeps its
    /// lowest-loss model. Default: nothing.
    fn end_epoch(
        &mut self,
        _data: &GraphData,
        _batches: &[Vec<usize>],
        _epoch: usize,
        _mean_loss: f64,
        _last: bool,
    ) -> Result<()> {
        Ok(())
    }
    /// How the epoch whose encoder is evaluated is chosen (default: the last).
    fn selection(&self) -> Selection {
        Selection::Final
    }
    /// Whether a step runs two branches through [`branches::forward_pair`] (GraphCL,
    /// SimGRACE). Only then does the training loop move to a branch thread, where the
    /// second branch can go to the other one; a loop without branches stays on the calling
    /// thread, which it has to itself. Default: no.
    fn has_branches(&self) -> bool {
        false
    }
    /// Sets the evaluation encoder's batch-norm running estimates from `data` without
    /// training ([`calibrate_batch_norm`]); what the `untrained` baseline asks of a method.
    fn calibrate_batch_norm(&mut self, _data: &GraphData) -> Result<()> {
        Err(Error::Config(
            "this method cannot set its batch-norm statistics without training".into(),
        ))
    }
    /// Shows `v` everything the method carries from one epoch to the next (its variable
    /// stores, optimiser state, kept models, ...): saved for a checkpoint or loaded from
    /// one ([`state`]). Default: the method cannot be checkpointed.
    fn visit_state(&mut self, _v: &mut StateVisitor) -> Result<()> {
        Err(state::not_resumable("this method"))
    }
}

/// Builds a method for its training data on a device.
pub type BuildFn =
    for<'a> fn(&Checked<MethodParams>, TrainData<'a>, Device, bool) -> Result<Box<dyn Method + 'a>>;

/// A method's settings for a dataset ([`MethodEntry::preset`]).
pub type PresetFn = fn(&PresetRequest) -> Result<Preset>;

/// Rough CPU-seconds of one thread to train `epochs` epochs on data of `size`; only ratios
/// between cells matter (a sweep deals its cells to workers by them).
pub type CostFn = fn(&Preset, &DataSize) -> f64;

/// The name result rows give a run of the method (an untrained encoder is
/// `untrained-<method>`, AD-GCL with its fixed augmenter `adgcl-fixed`).
pub type LabelFn = fn(&MethodEntry, &Preset) -> String;

/// Rules that join a method's sections with the shared settings (run after every
/// section passed its own check).
pub type CheckFn = fn(&Preset) -> Result<()>;

/// Fills in what a method's settings leave to others (AD-GCL's augmenter follows MA).
pub type NormaliseFn = fn(&mut Preset);

/// The method whose encoder a method uses (the untrained baseline's `untrained.of`):
/// its sections are allowed in the configuration too.
pub type WrapsFn = fn(&MethodTable) -> Result<Option<&'static MethodEntry>>;

/// One method: its declaration (name, aliases, levels, floor, display name, features:
/// magcl-config's [`MethodDecl`], which the reports read too), its own settings (sections,
/// presets, cost hint, checks) and its constructor. Built with [`MethodEntry::new`] and
/// the setters after it, in a `static` beside the method; one line of
/// [`registry::BUILTIN`] lists it.
pub struct MethodEntry {
    /// Everything about the method that is not tensor code.
    pub decl: &'static MethodDecl,
    /// The name configs and result rows use (the declaration's).
    pub name: &'static str,
    /// Other accepted spellings (the declaration's; matched case-insensitively).
    pub aliases: &'static [&'static str],
    /// The levels it runs at (the declaration's; the `untrained` baseline runs at both).
    pub tasks: &'static [Task],
    /// A floor (untrained encoder, graph kernel, raw features) rather than a method that
    /// learns, as declared: it cannot be the encoder of `untrained`, it makes no gradient
    /// step, and MA does not apply to it unless it has an encoder.
    pub baseline: bool,
    /// One line for `--help` and error messages.
    pub about: &'static str,
    /// The configuration sections holding the method's own hyper-parameters.
    pub sections: &'static [SectionSpec],
    /// The method's settings for a dataset (hyper-parameters, features, evaluator).
    pub preset: PresetFn,
    /// The named presets [`Self::preset`] accepts beside the default (e.g. `code`, `paper`).
    pub preset_names: &'static [&'static str],
    pub cost: CostFn,
    pub label: LabelFn,
    pub check: CheckFn,
    pub normalise: NormaliseFn,
    pub wraps: WrapsFn,
    /// Builds the method (the last argument: whether to draw progress bars).
    pub build: BuildFn,
}

impl MethodEntry {
    /// The entry of the method `decl` declares, with no sections of its own, the generic
    /// cost hint (per node and edge per epoch), its name as row label, no extra checks.
    pub const fn new(
        decl: &'static MethodDecl,
        about: &'static str,
        preset: PresetFn,
        build: BuildFn,
    ) -> MethodEntry {
        MethodEntry {
            decl,
            name: decl.name,
            aliases: decl.aliases,
            tasks: decl.levels,
            baseline: decl.is_floor(),
            about,
            sections: &[],
            preset,
            preset_names: &[],
            cost: |p, size| 5.0e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges),
            label: |entry, _| entry.name.to_string(),
            check: |_| Ok(()),
            normalise: |_| {},
            wraps: |_| Ok(None),
            build,
        }
    }
    /// The features its configs write (its declared rule's word, kept since hash
    /// version 1), or `auto` for a method that declares none.
    pub fn features_written(&self) -> &'static str {
        self.decl.features.map_or("auto", |f| f.written)
    }
    pub const fn sections(mut self, sections: &'static [SectionSpec]) -> Self {
        self.sections = sections;
        self
    }
    pub const fn preset_names(mut self, names: &'static [&'static str]) -> Self {
        self.preset_names = names;
        self
    }
    pub const fn cost(mut self, cost: CostFn) -> Self {
        self.cost = cost;
        self
    }
    pub const fn label(mut self, label: LabelFn) -> Self {
        self.label = label;
        self
    }
    pub const fn check(mut self, check: CheckFn) -> Self {
        self.check = check;
        self
    }
    pub const fn normalise(mut self, normalise: NormaliseFn) -> Self {
        self.normalise = normalise;
        self
    }
    pub const fn wraps(mut self, wraps: WrapsFn) -> Self {
        self.wraps = wraps;
        self
    }
    /// Whether it runs at level `task`.
    pub fn supports(&self, task: Task) -> bool {
        self.tasks.contains(&task)
    }
    /// The sections a configuration of this method may hold: its own, and those of the
    /// method it wraps.
    pub fn allowed_sections(&self, table: &MethodTable) -> Result<Vec<SectionSpec>> {
        let mut v = self.sections.to_vec();
        if let Some(inner) = (self.wraps)(table)? {
            v.extend(inner.allowed_sections(table)?);
        }
        Ok(v)
    }
    /// Checks a method's settings: every section present is one it uses and passes its own
    /// check, the sections it needs are there, and the method's own rules hold.
    pub fn check_preset(&self, p: &Preset) -> Result<()> {
        let allowed = self.allowed_sections(&p.sections)?;
        for key in p.sections.keys() {
            let spec = allowed.iter().find(|s| s.key == key).ok_or_else(|| {
                Error::Config(format!(
                    "unknown setting '{key}' (not used by method {})",
                    self.name
                ))
            })?;
            (spec.check)(&p.sections.value(key).unwrap_or_default())?;
        }
        for spec in allowed {
            if !p.sections.contains(spec.key) {
                return Err(bad(
                    spec.key,
                    format!("{} needs its `{}` settings", self.name, spec.key),
                ));
            }
        }
        (self.check)(p)?;
        // The wrapped method's own rules hold for its sections here too.
        match (self.wraps)(&p.sections)? {
            Some(inner) => (inner.check)(p),
            None => Ok(()),
        }
    }
    /// Fills in what the method leaves to other settings ([`Self::normalise`]), and what
    /// the method it wraps leaves (an untrained AD-GCL encoder's augmenter follows MA).
    pub fn normalise_preset(&self, p: &mut Preset) {
        (self.normalise)(p);
        if let Ok(Some(inner)) = (self.wraps)(&p.sections) {
            inner.normalise_preset(p);
        }
    }
}

/// What a preset is asked for.
#[derive(Clone, Debug)]
pub struct PresetRequest<'a> {
    pub dataset: &'a str,
    /// The dataset's level where the data registry knows it (`None`: a user's file).
    pub task: Option<Task>,
    /// A named preset ([`MethodEntry::preset_names`]); `None` for the default.
    pub name: Option<&'a str>,
    /// The run's overrides, for a preset that depends on one (the untrained baseline
    /// starts from the preset of the method named by `untrained.of`).
    pub overrides: &'a serde_json::Map<String, serde_json::Value>,
}

impl PresetRequest<'_> {
    /// The override `section.key` as a string, if given.
    pub fn override_str(&self, section: &str, key: &str) -> Result<Option<&str>> {
        match self.overrides.get(section).and_then(|s| s.get(key)) {
            None => Ok(None),
            Some(v) => v.as_str().map(Some).ok_or_else(|| {
                bad(
                    &format!("{section}.{key}"),
                    format!("expected a name, got {v}"),
                )
            }),
        }
    }
    /// The request for another method's preset (same dataset, name and overrides).
    pub fn of(&self, entry: &MethodEntry) -> Result<Preset> {
        (entry.preset)(self)
    }
    /// A preset name this method does not know.
    pub fn unknown_name(&self, entry: &MethodEntry) -> Error {
        let known: Vec<&str> = entry.preset_names.to_vec();
        Error::Config(format!(
            "method {} has no preset '{}'{}",
            entry.name,
            self.name.unwrap_or(""),
            if known.is_empty() {
                " (it has only its default)".to_string()
            } else {
                format!(": expected one of {}", known.join(", "))
            }
        ))
    }
}

/// A method's settings: everything in a run's configuration but the run's identity
/// (method, dataset, seed) and machine (threads, numeric environment). The experiment
/// layer's `RunConfig` is a preset with those added.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Preset {
    pub task: Task,
    pub epochs: usize,
    pub lr: f64,
    pub weight_decay: f64,
    pub batch_size: usize,
    pub hidden: usize,
    pub layers: usize,
    /// Node features: a preset name or a kind (see the data layer).
    pub features: String,
    /// The evaluator's name.
    pub evaluator: String,
    /// GIN's ε (graph level).
    pub gin_eps: f64,
    pub loss: InfoNceParams,
    pub ma: MaParams,
    /// The pre-training subset (graph level; written only when set).
    #[serde(default, skip_serializing_if = "Pretrain::is_unset")]
    pub pretrain: Pretrain,
    /// The method's own sections.
    #[serde(flatten)]
    pub sections: MethodTable,
}

impl Preset {
    /// What a method with these settings is built from, for `seed` (not checked yet).
    pub fn method_params(&self, seed: u64) -> MethodParams {
        MethodParams {
            train: TrainParams {
                seed,
                epochs: self.epochs,
                lr: self.lr,
                weight_decay: self.weight_decay,
                batch_size: self.batch_size,
                pretrain: self.pretrain.clone(),
            },
            gin: GinParams {
                hidden: self.hidden,
                layers: self.layers,
                eps: self.gin_eps,
                mode: self.ma.gin_mode,
                pi: self.ma.pi,
            },
            loss: self.loss.clone(),
            ma: self.ma.clone(),
            sections: self.sections.clone(),
        }
    }
}

/// A dataset's size as a cost hint sees it (totals over all graphs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataSize {
    pub graphs: f64,
    pub nodes: f64,
    pub edges: f64,
}

/// What a method trains on.
#[derive(Clone, Copy)]
pub enum TrainData<'a> {
    /// Many graphs (graph classification).
    Graphs(&'a GraphData),
    /// One graph's nodes (node classification).
    Nodes(&'a crate::data::NodeDataset),
}

impl<'a> TrainData<'a> {
    /// The graphs, or an error naming `method` for node-level data.
    pub fn graphs(self, method: &str) -> Result<&'a GraphData> {
        match self {
            TrainData::Graphs(g) => Ok(g),
            TrainData::Nodes(_) => Err(Error::Config(format!(
                "{method} is a graph-level method; this dataset is node-level"
            ))),
        }
    }
    /// The nodes, or an error naming `method` for graph-level data.
    pub fn nodes(self, method: &str) -> Result<&'a crate::data::NodeDataset> {
        match self {
            TrainData::Nodes(d) => Ok(d),
            TrainData::Graphs(_) => Err(Error::Config(format!(
                "{method} is a node-level method; this dataset is graph-level"
            ))),
        }
    }
}

/// Which epoch's encoder a run evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The encoder after the last epoch.
    Final,
    /// Evaluate with the validation protocol after every `every` epochs (and the last);
    /// keep the epoch with the best validation score (AD-GCL).
    Validation { every: usize },
    /// Also evaluate after every `every` epochs and keep the best *test* score
    /// (`node.best_test_every`; optimistic by construction, see docs/citeseer.md).
    BestTest { every: usize },
}

/// Embeddings as row-major host values, or (the graph-kernel baselines) sparse count
/// rows, which are evaluated without forming the dense matrix: then `x` is empty.
#[derive(Clone, Debug)]
pub struct Embeddings {
    pub x: Vec<f32>,
    pub rows: usize,
    pub dim: usize,
    pub sparse: Option<std::sync::Arc<crate::eval::SparseRows>>,
}

impl Embeddings {
    /// Dense `rows × dim` values.
    pub fn dense(x: Vec<f32>, rows: usize, dim: usize) -> Embeddings {
        Embeddings {
            x,
            rows,
            dim,
            sparse: None,
        }
    }
    /// The dense matrix, formed from sparse rows where needed.
    pub fn to_dense(&self) -> Vec<f32> {
        match &self.sparse {
            Some(s) => s.to_dense_f32(),
            None => self.x.clone(),
        }
    }
}

/// What can embed every item (graph or node) with its evaluation encoder.
pub trait Embed {
    fn embed(&self) -> Result<Embeddings>;
}

/// One contrastive method as the runner drives it: train epochs (with a hook after each,
/// where the runner evaluates for [`Selection`]), then embed. Graph-level methods implement
/// the smaller [`GraphMethod`] and get this through [`GraphRunner`]; methods are built by
/// name through [`registry`].
pub trait Method: Embed {
    /// Trains `epochs` epochs, calling `after_epoch(epoch, model)` after each.
    fn train(
        &mut self,
        epochs: usize,
        after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
    ) -> Result<TrainLog> {
        self.train_from(epochs, after_epoch, Resume::none())
    }
    /// [`Method::train`] from epoch `resume.start` (the state of the epochs before loaded
    /// with [`Method::visit_state`]), running `resume.hook` when each epoch has ended.
    fn train_from(
        &mut self,
        epochs: usize,
        after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
        resume: Resume<'_>,
    ) -> Result<TrainLog>;
    /// Shows `v` the state training carries across epochs ([`GraphMethod::visit_state`]).
    /// Default: none can be saved.
    fn visit_state(&mut self, _v: &mut StateVisitor) -> Result<()> {
        Err(state::not_resumable("this method"))
    }
    /// Which epoch's encoder is evaluated.
    fn selection(&self) -> Selection;
    /// Sets the batch-norm running estimates of the evaluation encoder from the data,
    /// without a gradient step (the `untrained` baseline). Methods without batch norm do
    /// nothing.
    fn calibrate_batch_norm(&mut self) -> Result<()>;
}

/// A [`GraphMethod`] with its data and training-loop settings: a [`Method`].
pub struct GraphRunner<'a, M: GraphMethod> {
    pub method: M,
    pub data: &'a GraphData,
    pub loop_config: LoopConfig,
}

impl<'a, M: GraphMethod> GraphRunner<'a, M> {
    pub fn new(method: M, data: &'a GraphData, p: &TrainParams, progress: bool) -> Self {
        GraphRunner {
            method,
            data,
            loop_config: LoopConfig {
                epochs: p.epochs,
                batch_size: p.batch_size,
                seed: p.seed,
                progress,
                pretrain: p.pretrain.clone(),
            },
        }
    }
}

/// A graph method and its data, borrowed: what the after-epoch hook embeds with.
struct GraphRef<'b, M: GraphMethod + ?Sized> {
    method: &'b M,
    data: &'b GraphData,
}

impl<M: GraphMethod + ?Sized> Embed for GraphRef<'_, M> {
    fn embed(&self) -> Result<Embeddings> {
        let (x, dim) = self.method.embed(self.data)?;
        Ok(Embeddings::dense(x, self.data.views.len(), dim))
    }
}

impl<M: GraphMethod> Embed for GraphRunner<'_, M> {
    fn embed(&self) -> Result<Embeddings> {
        GraphRef {
            method: &self.method,
            data: self.data,
        }
        .embed()
    }
}

impl<M: GraphMethod> Method for GraphRunner<'_, M> {
    fn train_from(
        &mut self,
        epochs: usize,
        after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
        resume: Resume<'_>,
    ) -> Result<TrainLog> {
        let mut lc = self.loop_config.clone();
        lc.epochs = epochs;
        let data = self.data;
        train_graph_method_from(&mut self.method, data, &lc, resume, |epoch, m| {
            after_epoch(epoch, &GraphRef { method: m, data })
        })
    }
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        self.method.visit_state(v)
    }
    fn selection(&self) -> Selection {
        self.method.selection()
    }
    fn calibrate_batch_norm(&mut self) -> Result<()> {
        self.method.calibrate_batch_norm(self.data)
    }
}

/// A baseline whose embeddings are fixed when it is built (raw features, graph-kernel
/// counts): nothing to train, no batch norm, the final (only) encoder is evaluated.
pub struct FixedEmbeddings(pub Embeddings);

impl Embed for FixedEmbeddings {
    fn embed(&self) -> Result<Embeddings> {
        Ok(self.0.clone())
    }
}

impl Method for FixedEmbeddings {
    fn train_from(
        &mut self,
        _epochs: usize,
        _after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
        _resume: Resume<'_>,
    ) -> Result<TrainLog> {
        Ok(TrainLog::default())
    }
    /// Nothing trains: no state.
    fn visit_state(&mut self, _v: &mut StateVisitor) -> Result<()> {
        Ok(())
    }
    fn selection(&self) -> Selection {
        Selection::Final
    }
    fn calibrate_batch_norm(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The optimisation settings every method shares.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainParams {
    pub seed: u64,
    pub epochs: usize,
    pub lr: f64,
    pub weight_decay: f64,
    pub batch_size: usize,
    /// The pre-training subset (graph level).
    pub pretrain: Pretrain,
}

impl ParamGuard for TrainParams {
    /// `epochs = 0` passes here: [`MethodParams`] allows it for the baselines only.
    fn check_ref(&self) -> Result<()> {
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return Err(bad("lr", format!("must be positive, got {}", self.lr)));
        }
        if self.weight_decay.is_nan() || self.weight_decay < 0.0 {
            return Err(bad(
                "weight_decay",
                format!("must be ≥ 0, got {}", self.weight_decay),
            ));
        }
        if self.batch_size == 0 {
            return Err(bad("batch_size/hidden/layers", "must be at least 1"));
        }
        check_size("epochs", self.epochs, MAX_EPOCHS)?;
        check_size("batch_size", self.batch_size, MAX_BATCH_SIZE)?;
        self.pretrain.check_ref()
    }
}

/// The pre-training subset of a graph-level run (a config's `pretrain` section, written —
/// and so hashed — only when set; docs/methods.md, "Pre-training subsets"): the encoder
/// trains on `graphs` graphs drawn at random from the dataset ([`pretrain_subset`]) and
/// is evaluated on every graph, with the folds of a whole-set run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pretrain {
    /// How many graphs the encoder trains on; unset: every graph of the dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graphs: Option<usize>,
    /// Train for as many gradient steps as the whole-set run makes (its epochs × its
    /// batches per epoch) instead of for the preset's epochs over the subset; the last
    /// epoch stops when the count is reached ([`TrainPlan`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub match_steps: bool,
}

impl Pretrain {
    /// Whether nothing is set (the whole set, the preset's epochs): then the config
    /// leaves the section out, and its hash is what it was before the section existed.
    pub fn is_unset(&self) -> bool {
        self.graphs.is_none() && !self.match_steps
    }
}

impl ParamGuard for Pretrain {
    /// What can be checked without the dataset; the upper bound (the dataset's size) is
    /// checked by [`TrainPlan::new`].
    fn check_ref(&self) -> Result<()> {
        match self.graphs {
            Some(n) if n < MIN_PRETRAIN_GRAPHS => Err(bad(
                "pretrain.graphs",
                format!(
                    "must be at least {MIN_PRETRAIN_GRAPHS} (a contrastive batch needs \
                     another graph as its negative), got {n}; leave it unset to train on \
                     every graph"
                ),
            )),
            None if self.match_steps => Err(bad(
                "pretrain.match_steps",
                "applies to a subset: set pretrain.graphs too (a whole-set run already makes \
                 the whole-set run's steps)",
            )),
            _ => Ok(()),
        }
    }
}

/// The smallest pre-training subset: one batch of two graphs (a batch of one graph has
/// no negative and is dropped, [`epoch_batches`]).
pub const MIN_PRETRAIN_GRAPHS: usize = 2;

/// The graphs a run with `pretrain.graphs = graphs` trains on, of a dataset of `n`
/// graphs, ascending: the first `graphs` of one seeded permutation of all `n` graph
/// indices (stream `(seed, PRETRAIN_SUBSET)`). It sees the count only — no label, no
/// fold — and a larger subset of the same seed contains every smaller one. Refused when
/// `graphs` is below [`MIN_PRETRAIN_GRAPHS`] or above `n`.
pub fn pretrain_subset(n: usize, graphs: usize, seed: u64) -> Result<Vec<usize>> {
    use rand::seq::SliceRandom;
    if graphs < MIN_PRETRAIN_GRAPHS || graphs > n {
        return Err(bad(
            "pretrain.graphs",
            format!(
                "expected a count from {MIN_PRETRAIN_GRAPHS} to the dataset's {n} graphs, got \
                 {graphs}; leave it unset to train on every graph"
            ),
        ));
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng::stream(seed, &[streams::PRETRAIN_SUBSET]));
    order.truncate(graphs);
    order.sort_unstable();
    Ok(order)
}

/// The number of batches [`epoch_batches`] makes of `n` graphs: those of at least two
/// graphs (the full ones, unless a batch is one graph, and a last one of two or more).
pub fn batches_per_epoch(n: usize, batch_size: usize) -> usize {
    let b = batch_size.max(1);
    let full = if b > 1 { n / b } else { 0 };
    full + usize::from(n % b > 1)
}

/// What the graph-level training loop runs on a dataset of `n` graphs: the training graphs
/// (`pretrain.graphs`), the number of epochs over them and of gradient steps.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainPlan {
    /// The graphs trained on, ascending; `None`: every graph, batched as a run without
    /// the `pretrain` section always was.
    pub ids: Option<Vec<usize>>,
    /// How many graphs are trained on.
    pub graphs: usize,
    /// Epochs over the training graphs.
    pub epochs: usize,
    /// Gradient steps in all: `epochs` × the batches of an epoch, or, with
    /// `pretrain.match_steps`, the whole-set run's count, the last epoch cut short where
    /// needed.
    pub steps: u64,
    batches_per_epoch: usize,
    /// With `pretrain.match_steps`: the whole set's batches per epoch.
    whole_batches_per_epoch: Option<usize>,
}

impl TrainPlan {
    /// The plan of `epochs` epochs in batches of `batch_size` on `n` graphs with the
    /// pre-training settings `pretrain`; an error where `pretrain.graphs` exceeds `n`.
    pub fn new(
        n: usize,
        epochs: usize,
        batch_size: usize,
        seed: u64,
        pretrain: &Pretrain,
    ) -> Result<TrainPlan> {
        pretrain.check_ref()?;
        let whole = batches_per_epoch(n, batch_size);
        let Some(graphs) = pretrain.graphs else {
            return Ok(TrainPlan {
                ids: None,
                graphs: n,
                epochs,
                steps: (epochs * whole) as u64,
                batches_per_epoch: whole,
                whole_batches_per_epoch: None,
            });
        };
        let ids = pretrain_subset(n, graphs, seed)?;
        let per_epoch = batches_per_epoch(graphs, batch_size);
        let (epochs, steps) = if pretrain.match_steps {
            let steps = epochs * whole;
            (steps.div_ceil(per_epoch), steps)
        } else {
            (epochs, epochs * per_epoch)
        };
        check_size("epochs (pretrain.match_steps)", epochs, MAX_EPOCHS)?;
        Ok(TrainPlan {
            ids: Some(ids),
            graphs,
            epochs,
            steps: steps as u64,
            batches_per_epoch: per_epoch,
            whole_batches_per_epoch: pretrain.match_steps.then_some(whole),
        })
    }

    /// Whether a run that checks its encoder every `every` epochs (AD-GCL's validation,
    /// [`Selection::Validation`]) checks after epoch `epoch` (from 0): after every
    /// `every`-th epoch and the last; with `pretrain.match_steps`, where the steps pass a
    /// multiple of `every` whole-set epochs, so that the run checks as often, and after
    /// the same steps, as the whole-set run.
    pub fn checks_after(&self, epoch: usize, every: usize) -> bool {
        let every = every.max(1);
        if epoch + 1 == self.epochs {
            return true;
        }
        match self.whole_batches_per_epoch {
            None => (epoch + 1).is_multiple_of(every),
            Some(whole) => {
                let period = (every * whole).max(1) as u64;
                let before = (epoch * self.batches_per_epoch) as u64;
                let after = (before + self.batches_per_epoch as u64).min(self.steps);
                after / period > before / period
            }
        }
    }

    /// The batches of epoch `epoch` (graph indices of the dataset): [`epoch_batches`] over
    /// the training graphs, the last epoch cut at the plan's step count.
    pub fn batches(&self, batch_size: usize, seed: u64, epoch: usize) -> Vec<Vec<usize>> {
        let mut batches = match &self.ids {
            None => epoch_batches(self.graphs, batch_size, seed, epoch),
            Some(ids) => epoch_batches(ids.len(), batch_size, seed, epoch)
                .into_iter()
                .map(|b| b.into_iter().map(|i| ids[i]).collect())
                .collect(),
        };
        let before = (epoch * self.batches_per_epoch) as u64;
        batches.truncate(self.steps.saturating_sub(before) as usize);
        batches
    }
}

/// Everything a method is built from: the shared optimisation settings, the shared
/// stages' parameters and the method's own sections.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodParams {
    pub train: TrainParams,
    /// The GIN encoder (graph level); the node-level model reads its width.
    pub gin: GinParams,
    pub loss: InfoNceParams,
    pub ma: MaParams,
    /// The method's own hyper-parameters ([`MethodTable::get`]).
    pub sections: MethodTable,
}

impl Checked<MethodParams> {
    /// The GIN encoder's parameters, checked with the rest ([`MethodParams::check_ref`]).
    pub fn gin(&self) -> Checked<GinParams> {
        Checked::checked_by_parent(self.gin.clone())
    }
    /// MA's parameters, checked with the rest.
    pub fn ma(&self) -> Checked<MaParams> {
        Checked::checked_by_parent(self.ma.clone())
    }
    /// The loss's parameters, checked with the rest.
    pub fn loss(&self) -> Checked<InfoNceParams> {
        Checked::checked_by_parent(self.loss.clone())
    }
}

impl ParamGuard for MethodParams {
    /// The shared stages; the sections are checked by the method's entry
    /// ([`MethodEntry::check_preset`]) and again when a method reads one.
    fn check_ref(&self) -> Result<()> {
        self.train.check_ref()?;
        self.ma.check_ref()?;
        self.gin.check_ref()?;
        self.loss.check_ref()
    }
}

/// Training-loop settings shared by the graph-level methods.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    pub epochs: usize,
    pub batch_size: usize,
    pub seed: u64,
    pub progress: bool,
    /// The pre-training subset ([`TrainPlan`]).
    pub pretrain: Pretrain,
}

impl LoopConfig {
    /// The loop's plan on `n` graphs ([`TrainPlan::new`]).
    pub fn plan(&self, n: usize) -> Result<TrainPlan> {
        TrainPlan::new(n, self.epochs, self.batch_size, self.seed, &self.pretrain)
    }
}

/// Per-epoch record of a training run.
#[derive(Clone, Debug, Default)]
pub struct TrainLog {
    pub epoch_seconds: Vec<f64>,
    pub epoch_losses: Vec<f64>,
}

/// A progress bar on stderr (drawn only when stderr is a terminal and `show`).
pub fn progress_bar(total: u64, show: bool, what: &str) -> ProgressBar {
    let pb = if show {
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed} elapsed, ETA {eta})",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_prefix(what.to_string());
    pb
}

/// The graphs of each batch of an epoch: a seeded permutation cut into `batch_size`
/// pieces. A final batch of a single graph is dropped (a contrastive batch needs negatives).
pub fn epoch_batches(n: usize, batch_size: usize, seed: u64, epoch: usize) -> Vec<Vec<usize>> {
    use rand::seq::SliceRandom;
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng::stream(seed, &[streams::SHUFFLE, epoch as u64]));
    order
        .chunks(batch_size.max(1))
        .filter(|c| c.len() > 1)
        .map(|c| c.to_vec())
        .collect()
}

/// Checks a loss value; NaN or infinity stops the run with the position.
pub fn check_loss(loss: f64, epoch: usize, step_in_epoch: usize) -> Result<f64> {
    if loss.is_finite() {
        Ok(loss)
    } else {
        Err(Error::Diverged {
            loss,
            epoch: epoch + 1,
            step: step_in_epoch + 1,
        })
    }
}

/// Runs `method` on `data` as `cfg` plans it ([`LoopConfig::plan`]: `cfg.epochs` epochs
/// over every graph, or over the pre-training subset), calling `after_epoch(epoch, method)`
/// after each epoch.
pub fn train_graph_method<M: GraphMethod + ?Sized>(
    method: &mut M,
    data: &GraphData,
    cfg: &LoopConfig,
    after_epoch: impl FnMut(usize, &M) -> Result<()>,
) -> Result<TrainLog> {
    train_graph_method_from(method, data, cfg, Resume::none(), after_epoch)
}

/// [`train_graph_method`] from epoch `resume.start`, with `resume.hook` run when each
/// epoch has ended (after the method's [`GraphMethod::end_epoch`]).
pub fn train_graph_method_from<M: GraphMethod + ?Sized>(
    method: &mut M,
    data: &GraphData,
    cfg: &LoopConfig,
    mut resume: Resume<'_>,
    mut after_epoch: impl FnMut(usize, &M) -> Result<()>,
) -> Result<TrainLog> {
    if !method.has_branches() {
        return train_loop(method, data, cfg, &mut resume, &mut after_epoch);
    }
    // SAFETY: the loop runs on one thread at a time (this one blocks meanwhile) and reads
    // no thread-local state but the concurrency setting, which `on_pool` carries over.
    unsafe { branches::on_pool(|| train_loop(method, data, cfg, &mut resume, &mut after_epoch)) }
}

/// [`train_graph_method`]'s loop.
fn train_loop<M: GraphMethod + ?Sized>(
    method: &mut M,
    data: &GraphData,
    cfg: &LoopConfig,
    resume: &mut Resume<'_>,
    after_epoch: &mut impl FnMut(usize, &M) -> Result<()>,
) -> Result<TrainLog> {
    let plan = cfg.plan(data.views.len())?;
    let pb = progress_bar(plan.steps, cfg.progress, "train");
    pb.set_position(resume.step);
    let mut log = std::mem::take(&mut resume.log);
    let mut step = resume.step;
    for epoch in resume.start..plan.epochs {
        let t0 = Instant::now();
        let mut total = 0.0;
        let batches = plan.batches(cfg.batch_size, cfg.seed, epoch);
        for (i, ids) in batches.iter().enumerate() {
            let loss = check_loss(method.step(data, ids, epoch, step)?, epoch, i)?;
            total += loss;
            step += 1;
            pb.inc(1);
        }
        let mean = total / batches.len().max(1) as f64;
        log.epoch_seconds.push(t0.elapsed().as_secs_f64());
        log.epoch_losses.push(mean);
        pb.set_message(format!("epoch {} loss {mean:.4}", epoch + 1));
        after_epoch(epoch, method)?;
        method.end_epoch(data, &batches, epoch, mean, epoch + 1 == plan.epochs)?;
        state::epoch_ended(&mut resume.hook, epoch, &log, step, &mut |v| {
            method.visit_state(v)
        })?;
    }
    pb.finish_and_clear();
    Ok(log)
}

/// A GraphCL-style GIN encoder (per-layer sum-pool concat) and its projection head in one
/// variable store, as GraphCL and SimGRACE build them.
pub struct Tower {
    pub vs: nn::VarStore,
    pub encoder: GinEncoder,
    pub projector: Mlp,
    /// The evaluation encoder's schedule ([`crate::ma::eval_schedule`]).
    pub eval_schedule: Vec<usize>,
}

impl Tower {
    pub fn new(
        gin: &Checked<GinParams>,
        ma: &Checked<MaParams>,
        input_dim: usize,
        device: Device,
    ) -> Tower {
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let encoder = GinEncoder::new(
            &(&root / "encoder"),
            input_dim as i64,
            gin,
            GinStyle::GraphCl,
            Init::XavierZeroBias,
        );
        let e = encoder.embedding_dim();
        let projector = Mlp::new(&root / "projector", e, e, e, Init::XavierZeroBias);
        Tower {
            vs,
            encoder,
            projector,
            eval_schedule: crate::ma::eval_schedule(ma, gin.layers),
        }
    }

    /// Projected graph embeddings of batch `g` with `schedule[i]` propagations in layer i.
    pub fn project(&self, g: &GraphTensors, schedule: &[usize], train: bool) -> Tensor {
        self.projector
            .forward(&self.encoder.forward(g, schedule, train).graph)
    }

    /// Embeddings of all graphs from the evaluation encoder in evaluation mode.
    pub fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
        embed_encoder(&self.encoder, &self.eval_schedule, data, self.vs.device())
    }

    /// The evaluation encoder's batch-norm estimates from `data` ([`calibrate_batch_norm`]).
    pub fn calibrate_batch_norm(&self, data: &GraphData) -> Result<()> {
        calibrate_batch_norm(&self.encoder, &self.eval_schedule, data, self.vs.device())
    }
}

/// Embeddings of all graphs from `encoder` with `schedule` (the plain one, or `eval_k`
/// per layer under MA: [`crate::ma::eval_schedule`]), in evaluation mode: what every
/// graph-level method evaluates.
pub fn embed_encoder(
    encoder: &GinEncoder,
    schedule: &[usize],
    data: &GraphData,
    device: Device,
) -> Result<(Vec<f32>, usize)> {
    embed_in_chunks(data, device, |g, _| {
        encoder.forward(g, schedule, false).graph
    })
}

/// Sets the running estimates of every batch-norm layer of `encoder` to the statistics
/// of its input over all of `data`: one forward pass in training mode with `schedule`
/// (the evaluation encoder's), all graphs as one batch, unaugmented, no gradient. The
/// estimates are zeroed first, so after the pass they hold `momentum × (batch
/// statistic)`, which is divided out: the result is the mean and the unbiased variance
/// of each channel over every node of the dataset — what the running estimates of a
/// long training would approach if the weights stood still. Nothing but the running
/// estimates changes.
pub fn calibrate_batch_norm(
    encoder: &GinEncoder,
    schedule: &[usize],
    data: &GraphData,
    device: Device,
) -> Result<()> {
    calibrate_norms(&encoder.bns, crate::nn::BN_MOMENTUM, || {
        let all = Batch::collate(&data.views, data.dim).to_tensors(device);
        let _ = encoder.forward(&all, schedule, true);
    });
    Ok(())
}

/// Sets the running estimates of `bns` (batch norms of momentum `momentum`) to the
/// statistics of their inputs in `pass`, one forward pass in training mode: the estimates
/// are zeroed first, so after the pass they hold `momentum × (batch statistic)`, which is
/// divided out. No gradient is recorded.
pub fn calibrate_norms(bns: &[tch::nn::BatchNorm], momentum: f64, pass: impl FnOnce()) {
    tch::no_grad(|| {
        for bn in bns {
            let _ = bn.running_mean.shallow_clone().zero_();
            let _ = bn.running_var.shallow_clone().zero_();
        }
        pass();
        for bn in bns {
            let _ = bn.running_mean.shallow_clone().g_div_scalar_(momentum);
            let _ = bn.running_var.shallow_clone().g_div_scalar_(momentum);
        }
    });
}

/// Runs `forward` over all graphs in chunks (no gradient; it gets each chunk batched and its
/// range of graph indices) and gathers `n × d` rows on the CPU.
pub fn embed_in_chunks(
    data: &GraphData,
    device: Device,
    forward: impl Fn(&GraphTensors, std::ops::Range<usize>) -> Tensor,
) -> Result<(Vec<f32>, usize)> {
    const CHUNK: usize = 1024;
    let mut parts = Vec::new();
    tch::no_grad(|| -> Result<()> {
        for start in (0..data.views.len()).step_by(CHUNK) {
            let end = (start + CHUNK).min(data.views.len());
            let b = Batch::collate(&data.views[start..end], data.dim);
            parts.push(forward(&b.to_tensors(device), start..end).to_device(Device::Cpu));
        }
        Ok(())
    })?;
    let all = Tensor::cat(&parts, 0)
        .to_kind(tch::Kind::Float)
        .contiguous();
    let d = all.size().get(1).copied().unwrap_or(0) as usize;
    let v = Vec::<f32>::try_from(all.flatten(0, -1))?;
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(Error::Numeric(format!(
            "the embedding of graph {} is not finite",
            i / d.max(1)
        )));
    }
    Ok((v, d))
}

/// Trainable variables of `vs` whose names start with `prefix`, sorted by name (so that
/// random draws over them happen in a fixed order).
pub fn sorted_vars(vs: &nn::VarStore, prefix: &str) -> Vec<(String, Tensor)> {
    let mut v: Vec<(String, Tensor)> = vs
        .variables()
        .into_iter()
        .filter(|(k, t)| k.starts_with(prefix) && t.requires_grad())
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A method's preset on a dataset with overrides merged on top, as a run would have
    /// it, for the methods' unit tests (which sit below the experiment layer).
    #[derive(Clone)]
    pub struct TestConfig {
        pub entry: &'static MethodEntry,
        pub preset: Preset,
        pub seed: u64,
    }

    impl TestConfig {
        /// `method`'s preset (named preset `name`) on `dataset` with `overrides` (nested
        /// JSON; `ma.reading` sets its switches first), normalised and checked.
        pub fn new(
            method: &str,
            dataset: &str,
            name: Option<&str>,
            seed: u64,
            overrides: serde_json::Value,
        ) -> Result<TestConfig> {
            let entry = registry::find(method)?;
            let overrides: serde_json::Map<String, serde_json::Value> =
                serde_json::from_value(overrides)?;
            let request = PresetRequest {
                dataset,
                task: None,
                name,
                overrides: &overrides,
            };
            let mut preset = (entry.preset)(&request)?;
            if let Some(r) = overrides.get("ma").and_then(|m| m.get("reading")) {
                crate::ma::Reading::find(r.as_str().unwrap_or_default())?.apply(&mut preset.ma);
            }
            let mut value = serde_json::to_value(&preset)?;
            merge(&mut value, &serde_json::Value::Object(overrides));
            let mut preset: Preset = serde_json::from_value(value)?;
            preset.sections.canonicalise(registry::section_spec);
            entry.normalise_preset(&mut preset);
            entry.check_preset(&preset)?;
            Ok(TestConfig {
                entry,
                preset,
                seed,
            })
        }
        pub fn method_params(&self) -> Result<Checked<MethodParams>> {
            self.preset.method_params(self.seed).check()
        }
        /// The row label ([`MethodEntry::label`]) and the MA label, as a row shows them.
        pub fn labels(&self) -> (String, String) {
            (
                (self.entry.label)(self.entry, &self.preset),
                self.preset.ma.label(self.preset.task),
            )
        }
    }

    fn merge(base: &mut serde_json::Value, over: &serde_json::Value) {
        match (base, over) {
            (serde_json::Value::Object(b), serde_json::Value::Object(o)) => {
                for (k, v) in o {
                    match b.get_mut(k) {
                        Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                        Some(slot) => *slot = v.clone(),
                        None => panic!("unknown setting '{k}' in a test's overrides"),
                    }
                }
            }
            (b, o) => *b = o.clone(),
        }
    }

    /// One short training run of a graph-level method on `toy_data(40)`: one thread,
    /// torch seeded with `cfg.seed` before `build` makes the method, `cfg`'s epochs and
    /// batch size. Returns the method, the epoch losses and the embeddings (40 × width).
    /// The caller holds [`crate::rng::torch_lock`].
    pub fn train_toy<M: GraphMethod>(
        cfg: &TestConfig,
        build: impl FnOnce(&Checked<MethodParams>) -> M,
    ) -> (M, Vec<f64>, Vec<f32>) {
        tch::set_num_threads(1);
        tch::manual_seed(cfg.seed as i64);
        let data = toy_data(40);
        let mut m = build(&cfg.method_params().unwrap());
        let lc = LoopConfig {
            epochs: cfg.preset.epochs,
            batch_size: cfg.preset.batch_size,
            seed: cfg.seed,
            progress: false,
            pretrain: cfg.preset.pretrain.clone(),
        };
        let log = train_graph_method(&mut m, &data, &lc, |_, _| Ok(())).unwrap();
        let (emb, d) = m.embed(&data).unwrap();
        assert_eq!(emb.len(), 40 * d);
        (m, log.epoch_losses, emb)
    }

    /// Trains `cfg` ([`train_toy`]) with a step's branches run one after the other and at
    /// the same time ([`super::branches`]) and asserts the same losses, embeddings and
    /// running estimates of the batch norms `bns` picks, bit for bit. The caller holds
    /// [`crate::rng::torch_lock`].
    pub fn assert_branch_concurrency_changes_nothing<M: GraphMethod>(
        cfg: &TestConfig,
        build: impl Fn(&Checked<MethodParams>) -> M,
        bns: impl Fn(&M) -> &[tch::nn::BatchNorm],
        what: &str,
    ) {
        let run_with = |on| {
            super::branches::with_concurrency(on, || {
                let (m, losses, emb) = train_toy(cfg, &build);
                let estimates: Vec<Vec<f32>> = bns(&m)
                    .iter()
                    .flat_map(|b| [&b.running_mean, &b.running_var])
                    .map(|t| Vec::<f32>::try_from(t).unwrap())
                    .collect();
                (losses, emb, estimates)
            })
        };
        let (serial, concurrent) = (run_with(false), run_with(true));
        assert_eq!(serial.0, concurrent.0, "losses, {what}");
        assert!(serial.1 == concurrent.1, "embeddings, {what}");
        assert!(serial.2 == concurrent.2, "batch-norm estimates, {what}");
    }

    /// A small two-class set: cycles vs paths with constant features.
    pub fn toy_data(n: usize) -> GraphData {
        let mut views = Vec::new();
        let mut labels = Vec::new();
        for i in 0..n {
            let len = 5 + i % 7;
            let mut edges: Vec<(u32, u32)> = (0..len as u32 - 1).map(|v| (v, v + 1)).collect();
            let label = (i % 2) as u32;
            if label == 1 {
                edges.push((0, len as u32 - 1));
            }
            views.push(GraphView {
                num_nodes: len,
                edges,
                x: vec![1.0; len],
            });
            labels.push(label);
        }
        GraphData {
            views,
            labels,
            dim: 1,
        }
    }

    #[test]
    fn epoch_batches_cover_every_graph_once() {
        let b = epoch_batches(300, 128, 1, 0);
        let mut all: Vec<usize> = b.concat();
        all.sort_unstable();
        assert_eq!(all, (0..300).collect::<Vec<_>>());
        assert_eq!(
            b.iter().map(|c| c.len()).collect::<Vec<_>>(),
            vec![128, 128, 44]
        );
        assert_ne!(b, epoch_batches(300, 128, 1, 1));
        assert_eq!(
            epoch_batches(129, 128, 1, 0).len(),
            1,
            "a last batch of one is dropped"
        );
    }

    #[test]
    fn pretrain_subsets_are_seeded_nested_and_refused_out_of_range() {
        let n = 500;
        let sizes = [2, 3, 64, 128, 256, 499, 500];
        for seed in [0, 1, 7] {
            let mut previous: Vec<usize> = Vec::new();
            for &size in &sizes {
                let s = pretrain_subset(n, size, seed).unwrap();
                assert_eq!(s, pretrain_subset(n, size, seed).unwrap(), "deterministic");
                assert_eq!(s.len(), size);
                assert!(s.windows(2).all(|w| w[0] < w[1]), "ascending, distinct");
                assert!(s.iter().all(|&i| i < n));
                assert!(
                    previous.iter().all(|i| s.binary_search(i).is_ok()),
                    "seed {seed}: the subset of {size} holds the smaller one"
                );
                previous = s;
            }
            assert_eq!(previous, (0..n).collect::<Vec<_>>(), "the whole set");
        }
        // another seed, another subset
        assert_ne!(
            pretrain_subset(n, 64, 0).unwrap(),
            pretrain_subset(n, 64, 1).unwrap()
        );
        // not simply the first graphs of the file
        assert_ne!(
            pretrain_subset(n, 64, 0).unwrap(),
            (0..64).collect::<Vec<_>>()
        );
        for (size, says) in [(0, "got 0"), (1, "got 1"), (501, "got 501")] {
            let e = pretrain_subset(n, size, 0).unwrap_err().to_string();
            assert!(
                e.contains("pretrain.graphs") && e.contains(says) && e.contains("500 graphs"),
                "{e}"
            );
        }
        let e = Pretrain {
            graphs: Some(0),
            match_steps: false,
        }
        .check_ref()
        .unwrap_err()
        .to_string();
        assert!(e.contains("pretrain.graphs") && e.contains("got 0"), "{e}");
        let e = Pretrain {
            graphs: None,
            match_steps: true,
        }
        .check_ref()
        .unwrap_err()
        .to_string();
        assert!(e.contains("pretrain.match_steps"), "{e}");
    }

    /// The subset is drawn without the folds: it takes a share of every outer fold's test
    /// graphs near its share of the set (here 200 of 400: 20 of each fold's 40, ± 10),
    /// for every seed, so no fold is left out of (or made of) the training graphs.
    #[test]
    fn pretrain_subsets_cut_across_the_evaluation_folds() {
        use crate::eval::protocol::{Protocol, StratifiedKFold};
        let labels: Vec<u32> = (0..400).map(|i| u32::from(i % 5 == 0)).collect();
        for seed in 0..5 {
            let subset = pretrain_subset(400, 200, seed).unwrap();
            let folds = StratifiedKFold { k: 10 }
                .splits(&labels, 400, seed)
                .unwrap();
            for f in &folds {
                let inside = f
                    .test
                    .iter()
                    .filter(|i| subset.binary_search(i).is_ok())
                    .count();
                assert!(
                    (10..=30).contains(&inside),
                    "seed {seed}: {inside} of {} test graphs",
                    f.test.len()
                );
            }
        }
    }

    #[test]
    fn batches_per_epoch_counts_what_epoch_batches_makes() {
        for n in 0..300 {
            for b in [1, 2, 3, 7, 128] {
                assert_eq!(
                    batches_per_epoch(n, b),
                    epoch_batches(n, b, 0, 0).len(),
                    "n {n} batch {b}"
                );
            }
        }
    }

    fn plan(n: usize, epochs: usize, batch: usize, graphs: Option<usize>, m: bool) -> TrainPlan {
        let p = Pretrain {
            graphs,
            match_steps: m,
        };
        TrainPlan::new(n, epochs, batch, 3, &p).unwrap()
    }

    #[test]
    fn a_plan_without_subset_batches_as_before_and_the_whole_set_as_a_subset_too() {
        let whole = plan(300, 4, 128, None, false);
        let explicit = plan(300, 4, 128, Some(300), false);
        assert_eq!((whole.epochs, whole.steps, whole.graphs), (4, 12, 300));
        for e in 0..4 {
            assert_eq!(whole.batches(128, 3, e), epoch_batches(300, 128, 3, e));
            assert_eq!(explicit.batches(128, 3, e), epoch_batches(300, 128, 3, e));
        }
        // match_steps on the whole set changes nothing either
        assert_eq!(
            plan(300, 4, 128, Some(300), true).batches(128, 3, 3),
            whole.batches(128, 3, 3)
        );
    }

    #[test]
    fn a_plan_trains_on_its_subset_and_a_small_one_as_one_batch() {
        let p = plan(300, 5, 32, Some(100), false);
        let subset = pretrain_subset(300, 100, 3).unwrap();
        assert_eq!((p.epochs, p.steps, p.graphs), (5, 20, 100));
        for e in 0..5 {
            let b = p.batches(32, 3, e);
            assert_eq!(b.iter().map(Vec::len).collect::<Vec<_>>(), [32, 32, 32, 4]);
            let mut all = b.concat();
            all.sort_unstable();
            assert_eq!(all, subset, "epoch {e}: every subset graph once");
        }
        assert_ne!(p.batches(32, 3, 0), p.batches(32, 3, 1), "reshuffled");
        // smaller than a batch: one batch of all of it
        let p = plan(300, 5, 128, Some(64), false);
        assert_eq!(p.steps, 5);
        for e in 0..5 {
            let b = p.batches(128, 3, e);
            assert_eq!(b.len(), 1);
            let mut one = b[0].clone();
            one.sort_unstable();
            assert_eq!(one, pretrain_subset(300, 64, 3).unwrap());
        }
        let e = TrainPlan::new(
            300,
            5,
            128,
            3,
            &Pretrain {
                graphs: Some(301),
                match_steps: false,
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("pretrain.graphs") && e.contains("300 graphs"),
            "{e}"
        );
    }

    /// `pretrain.match_steps`: the whole-set run's steps (20 epochs × 10 batches of 128 of
    /// 1,250 graphs, the last of 98) over a subset of 300 (3 batches: 128, 128, 44): 67
    /// epochs, the last one cut to 200 − 66 × 3 = 2 batches.
    #[test]
    fn matching_steps_makes_the_whole_sets_count() {
        let whole = plan(1250, 20, 128, None, false);
        assert_eq!(whole.steps, 200);
        let p = plan(1250, 20, 128, Some(300), true);
        assert_eq!((p.epochs, p.steps), (67, 200));
        let steps: usize = (0..p.epochs).map(|e| p.batches(128, 3, e).len()).sum();
        assert_eq!(steps, 200);
        assert_eq!(p.batches(128, 3, 65).len(), 3);
        assert_eq!(p.batches(128, 3, 66).len(), 2);
        let subset = pretrain_subset(1250, 300, 3).unwrap();
        let full: Vec<Vec<usize>> = epoch_batches(300, 128, 3, 66)
            .into_iter()
            .map(|b| b.into_iter().map(|i| subset[i]).collect())
            .collect();
        assert_eq!(
            p.batches(128, 3, 66),
            full[..2],
            "the cut epoch is the start of the epoch it would be"
        );
        // validation every 5 epochs: the whole-set run checks after steps 50, 100, 150
        // and 200; the subset run after the epochs that pass them (17 × 3 = 51, 34 × 3 =
        // 102, 50 × 3 = 150) and its last
        let checks = |p: &TrainPlan| -> Vec<usize> {
            (0..p.epochs)
                .filter(|&e| p.checks_after(e, 5))
                .map(|e| e + 1)
                .collect()
        };
        assert_eq!(checks(&whole), [5, 10, 15, 20]);
        assert_eq!(checks(&p), [17, 34, 50, 67]);
        assert_eq!(
            checks(&plan(1250, 20, 128, Some(300), false)),
            [5, 10, 15, 20]
        );
        // a subset of one batch: one step an epoch, as many epochs as steps
        let p = plan(1250, 20, 128, Some(64), true);
        assert_eq!((p.epochs, p.steps), (200, 200));
        assert_eq!(checks(&p), [50, 100, 150, 200]);
        // without it, the preset's epochs
        let p = plan(1250, 20, 128, Some(64), false);
        assert_eq!((p.epochs, p.steps), (20, 20));
    }

    /// A method that records what the loop gives it.
    #[derive(Default)]
    struct Recorder {
        steps: Vec<(usize, Vec<usize>)>,
        ends: Vec<(usize, usize, bool)>,
    }

    impl GraphMethod for Recorder {
        fn step(&mut self, _: &GraphData, ids: &[usize], epoch: usize, _: u64) -> Result<f64> {
            self.steps.push((epoch, ids.to_vec()));
            Ok(1.0)
        }
        fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
            Ok((vec![0.0; data.views.len()], 1))
        }
        fn end_epoch(
            &mut self,
            _: &GraphData,
            batches: &[Vec<usize>],
            epoch: usize,
            _: f64,
            last: bool,
        ) -> Result<()> {
            self.ends.push((epoch, batches.len(), last));
            Ok(())
        }
    }

    fn record(data: &GraphData, epochs: usize, pretrain: Pretrain) -> Recorder {
        let mut m = Recorder::default();
        let lc = LoopConfig {
            epochs,
            batch_size: 4,
            seed: 9,
            progress: false,
            pretrain,
        };
        let log = train_graph_method(&mut m, data, &lc, |_, _| Ok(())).unwrap();
        assert_eq!(log.epoch_losses.len(), m.ends.len());
        m
    }

    /// The loop steps on the subset's graphs only, each once an epoch, whatever the labels
    /// say; with matched steps it makes the whole set's count and ends on a `last` epoch.
    #[test]
    fn the_loop_trains_on_the_subset_only_whatever_the_labels() {
        let data = toy_data(40);
        let subset = pretrain_subset(40, 10, 9).unwrap();
        let sub = Pretrain {
            graphs: Some(10),
            match_steps: false,
        };
        let m = record(&data, 3, sub.clone());
        assert_eq!(m.steps.len(), 3 * 3, "10 graphs in batches of 4: 4, 4, 2");
        for e in 0..3 {
            let mut seen: Vec<usize> = m
                .steps
                .iter()
                .filter(|s| s.0 == e)
                .flat_map(|s| s.1.clone())
                .collect();
            seen.sort_unstable();
            assert_eq!(seen, subset, "epoch {e}");
        }
        assert_eq!(m.ends.last(), Some(&(2, 3, true)));
        // the labels reversed (and all one class): the same steps
        let mut relabelled = toy_data(40);
        relabelled.labels.reverse();
        assert_eq!(record(&relabelled, 3, sub.clone()).steps, m.steps);
        relabelled.labels = vec![0; 40];
        assert_eq!(record(&relabelled, 3, sub).steps, m.steps);
        // matched steps: 3 epochs × 10 batches of the whole set = 30 steps in 10 epochs
        let m = record(
            &data,
            3,
            Pretrain {
                graphs: Some(10),
                match_steps: true,
            },
        );
        assert_eq!(m.steps.len(), 30);
        assert_eq!(m.ends.len(), 10);
        assert_eq!(m.ends.last(), Some(&(9, 3, true)));
        assert!(m
            .steps
            .iter()
            .all(|s| s.1.iter().all(|i| subset.contains(i))));
        // no subset: every graph
        let m = record(&data, 1, Pretrain::default());
        assert_eq!(m.steps.len(), 10);
        assert_eq!(m.steps.iter().map(|s| s.1.len()).sum::<usize>(), 40);
    }

    #[test]
    fn nan_losses_stop_the_run() {
        let e = check_loss(f64::NAN, 2, 4).unwrap_err().to_string();
        assert!(e.contains("epoch 3 step 5"), "{e}");
    }
}
