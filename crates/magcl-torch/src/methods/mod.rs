//! Contrastive methods, one file each, and what a method is to the rest of the crate: its
//! registry entry ([`MethodEntry`], one line of [`registry::BUILTIN`] lists it), its
//! settings ([`Preset`], from which [`MethodParams`] are built) and what a built method
//! is to the runner ([`Method`]: training with an after-epoch hook, [`Embed`], and the
//! [`Selection`] of the epoch evaluated).
//!
//! The trainers that drive the methods are framework, in [`crate::train`]: a graph-level
//! method implements [`GraphMethod`] and gets the loop over batches of graphs from
//! [`GraphRunner`]; a node-level one runs the base model ([`base`]) in its own
//! [`NodeVariant`] through [`NodeRunner`], or implements [`EpochStep`] for the node-level
//! epoch loop.
//!
//! [`GraphMethod`]: crate::train::graph::GraphMethod
//! [`GraphRunner`]: crate::train::graph::GraphRunner
//! [`NodeVariant`]: crate::train::node::NodeVariant
//! [`NodeRunner`]: crate::train::node::NodeRunner
//! [`EpochStep`]: crate::train::node::EpochStep
use tch::Device;

use crate::error::{Error, Result};
use crate::loss::InfoNceParams;
use crate::ma::MaParams;
use crate::nn::GinParams;
use crate::params::{bad, Checked, MethodTable, ParamGuard, SectionSpec};
use crate::params::{SettingError, Task};
use crate::train::graph::GraphData;
use crate::train::state::{Resume, StateVisitor};
use crate::train::{TrainLog, TrainParams};
use magcl_config::MethodDecl;
pub mod adgcl;
pub mod base;
pub mod bgrl;
pub mod degree;
pub mod features;
pub mod gca;
pub mod grace;
pub mod graphcl;
pub mod infograph;
pub mod joaov2;
pub mod mvgrl;
pub mod registry;
pub mod simgrace;
pub mod untrained;
pub mod wl;

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
    /// The features its configs write: its declared rule in the word kept since hash
    /// version 1, or `auto` for a method that declares none.
    pub fn features(&self) -> crate::params::FeatureSetting {
        crate::params::FeatureSetting::declared(self.decl.features)
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
            let spec =
                allowed
                    .iter()
                    .find(|s| s.key == key)
                    .ok_or_else(|| Error::UnknownSetting {
                        key: key.to_string(),
                        method: self.name.into(),
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

/// A method's settings, declared in the torch-free magcl-config (the config schema the
/// reports read too).
pub use magcl_config::preset::Preset;

impl MethodParams {
    /// What a method with the settings `p` is built from, for `seed` (not checked yet).
    pub fn from_preset(p: &Preset, seed: u64) -> MethodParams {
        MethodParams {
            train: TrainParams {
                seed,
                epochs: p.epochs,
                lr: p.lr,
                weight_decay: p.weight_decay,
                batch_size: p.batch_size,
                pretrain: p.pretrain.clone(),
            },
            gin: GinParams {
                hidden: p.hidden,
                layers: p.layers,
                eps: p.gin_eps,
                mode: p.ma.gin_mode,
                pi: p.ma.pi,
            },
            loss: p.loss.clone(),
            ma: p.ma.clone(),
            sections: p.sections.clone(),
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
/// the smaller [`GraphMethod`] and get this through [`GraphRunner`], the node-level base
/// model and its variants through [`NodeRunner`]; methods are built by name through
/// [`registry`].
///
/// [`GraphMethod`]: crate::train::graph::GraphMethod
/// [`GraphRunner`]: crate::train::graph::GraphRunner
/// [`NodeRunner`]: crate::train::node::NodeRunner
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
    /// Shows `v` the state training carries across epochs
    /// ([`crate::train::graph::GraphMethod::visit_state`]).
    /// Default: none can be saved.
    fn visit_state(&mut self, _v: &mut StateVisitor) -> Result<()> {
        Err(crate::train::state::not_resumable("this method"))
    }
    /// Which epoch's encoder is evaluated.
    fn selection(&self) -> Selection;
    /// Sets the batch-norm running estimates of the evaluation encoder from the data,
    /// without a gradient step (the `untrained` baseline). Methods without batch norm do
    /// nothing.
    fn calibrate_batch_norm(&mut self) -> Result<()>;
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

/// The shared stages' parameters of checked [`MethodParams`], handed out checked: their
/// checks ran with the whole ([`MethodParams::check_ref`]). A trait because [`Checked`]
/// is declared in magcl-config; method files import it with the rest of `methods`.
pub trait CheckedParts {
    /// The GIN encoder's parameters.
    fn gin(&self) -> Checked<GinParams>;
    /// MA's parameters.
    fn ma(&self) -> Checked<MaParams>;
    /// The loss's parameters.
    fn loss(&self) -> Checked<InfoNceParams>;
}

impl CheckedParts for Checked<MethodParams> {
    fn gin(&self) -> Checked<GinParams> {
        Checked::checked_by_parent(self.gin.clone())
    }
    fn ma(&self) -> Checked<MaParams> {
        Checked::checked_by_parent(self.ma.clone())
    }
    fn loss(&self) -> Checked<InfoNceParams> {
        Checked::checked_by_parent(self.loss.clone())
    }
}

impl ParamGuard for MethodParams {
    /// The shared stages; the sections are checked by the method's entry
    /// ([`MethodEntry::check_preset`]) and again when a method reads one.
    fn check_ref(&self) -> Result<(), SettingError> {
        self.train.check_ref()?;
        self.ma.check_ref()?;
        self.gin.check_ref()?;
        self.loss.check_ref()
    }
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
            Ok(MethodParams::from_preset(&self.preset, self.seed).check()?)
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
}
