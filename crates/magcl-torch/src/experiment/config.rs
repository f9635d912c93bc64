//! The resolved configuration of one run. Every run — from `magcl train` flags or from a
//! cell of a `magcl bench` sweep — is described by one [`RunConfig`]; it is written next
//! to every result row, and its hash identifies the cell.
//!
//! A config is built by [`RunConfig::resolve`]: method and dataset presets first, then a
//! JSON object of overrides merged on top (unknown keys are errors).
use serde::{Deserialize, Serialize};

pub use crate::augment::AugParams;
use crate::error::Result;
pub use crate::loss::InfoNceParams;
pub use crate::ma::{
    Constraints, KBranch, MaParams, RangeBound, Reading, ReadingName, Redraw, ZeroK, READINGS,
};
pub use crate::methods::adgcl::{AdgclParams, Augmenter};
use crate::methods::registry::{self, MethodEntry};
pub use crate::methods::simgrace::SimgraceParams;
pub use crate::methods::untrained::UntrainedParams;
pub use crate::methods::wl::WlParams;
use crate::methods::{MethodParams, Preset};
pub use crate::nn::{GinMode, GinParams};
use crate::params::{bad, Checked, ParamGuard};
pub use crate::params::{FeatureSetting, MethodTable, Section};
pub use crate::params::{Task, MAX_BATCH_SIZE, MAX_DEPTH, MAX_EPOCHS, MAX_RESTARTS, MAX_WIDTH};
pub use crate::train::graph::{Pretrain, TrainPlan};
pub use crate::train::node::{NodeParams, NodeReading, NodeSplit};

/// The contrastive method: a name in the method registry ([`crate::methods::registry`]).
/// `base` is the node-level base model of the MA-GCL paper; with MA enabled it is MA-GCL.
/// Serialised as its name (`"graphcl"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MethodName(&'static str);

impl MethodName {
    /// The method of a registry entry.
    pub fn of(entry: &'static MethodEntry) -> MethodName {
        MethodName(entry.name)
    }
    /// The registry's entry (every `MethodName` comes from the registry).
    pub fn entry(self) -> Result<&'static MethodEntry> {
        registry::find(self.0)
    }
    /// The levels the method runs at.
    pub fn tasks(self) -> &'static [Task] {
        self.entry().map(|e| e.tasks).unwrap_or(&[])
    }
    /// Whether it runs at level `task`.
    pub fn supports(self, task: Task) -> bool {
        self.tasks().contains(&task)
    }
    /// Whether it is a floor (untrained encoder, graph kernel, raw features).
    pub fn is_baseline(self) -> bool {
        self.entry().map(|e| e.baseline).unwrap_or(false)
    }
    pub fn as_str(self) -> &'static str {
        self.0
    }
    /// The method named `s` (or an alias), case-insensitively.
    pub fn parse(s: &str) -> Result<Self> {
        registry::find(s).map(|e| MethodName(e.name))
    }
}

impl Serialize for MethodName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for MethodName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        MethodName::parse(&name).map_err(serde::de::Error::custom)
    }
}

/// Everything that determines one run: a method's settings ([`Preset`]) with the run's
/// identity (method, dataset, seed) and machine (threads, numeric environment).
///
/// Its JSON (written beside every result row) holds the shared settings, then the
/// method's own sections (`augment`, `simgrace`, `node`, …: [`MethodTable`]) in key order,
/// then `threads` and `env`. The config hash ([`RunConfig::hash`]) is taken over that JSON.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RunConfig {
    pub task: Task,
    pub method: MethodName,
    pub dataset: String,
    pub seed: u64,
    pub epochs: usize,
    pub lr: f64,
    pub weight_decay: f64,
    pub batch_size: usize,
    pub hidden: usize,
    pub layers: usize,
    /// Node features: at graph level a rule (`auto`, `attributes-else-degree`), a kind
    /// (`labels`, `attributes`, `labels+attributes`, `constant`, `degree[:N]`, …) or a
    /// method's word for the rule it declares (`graphcl`); at node level `row-normalised`.
    /// Written as the config wrote it (the hash is over that text), checked when read.
    pub features: FeatureSetting,
    /// `svc-rbf`, `linear-svc` or `logreg` (written as these names, so hashes are those
    /// of the earlier string field).
    pub evaluator: crate::eval::Evaluator,
    /// GIN's ε: the weight of a node's own features is 1 + ε. The GraphCL/SimGRACE data
    /// pipeline adds a self-loop to every node but the highest-indexed one of each graph,
    /// which makes a standard GIN count a node twice, i.e. ε = 1 in effect. SimGRACE's
    /// preset uses 1; GraphCL's keeps 0 (its augmented views lose the loops, so no single
    /// ε reproduces both views).
    #[serde(default)]
    pub gin_eps: f64,
    pub loss: InfoNceParams,
    pub ma: MaParams,
    /// The pre-training subset of a graph-level method (`pretrain.graphs`,
    /// `pretrain.match_steps`; docs/methods.md, "Pre-training subsets"). Written, and so
    /// hashed, only when set: configs without it keep their hashes.
    #[serde(default, skip_serializing_if = "Pretrain::is_unset")]
    pub pretrain: Pretrain,
    /// The method's own sections, each at the top level of the JSON under its key; a key
    /// that is neither a shared setting nor a section of the method is refused by
    /// [`RunConfig::validate`].
    #[serde(flatten, deserialize_with = "read_sections")]
    pub sections: MethodTable,
    /// CPU threads of the run (libtorch intra-op and the data pipeline). Float sums are
    /// ordered by the thread count, so SimGRACE, AD-GCL and the node-level model give
    /// (slightly) different numbers at different counts: the count is part of the
    /// configuration, so the same config gives the same numbers on every machine, and a
    /// report never averages runs made with different counts. 0 = not fixed yet: `magcl
    /// train` fills in `--threads` or the machine's cores, `magcl bench` its per-cell count
    /// (a sweep fixes it everywhere with `[overrides] threads = N`).
    #[serde(default)]
    pub threads: usize,
    /// The environment variables that change numbers ([`NUMERIC_ENV`]) as the run saw
    /// them, set ones only; written only when one is set. Filled in by `magcl train` and
    /// `magcl bench` ([`RunConfig::fill_env`]); a run refuses a config whose recorded
    /// variables differ from its own environment.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
}

/// Reads the method sections, each written as its type writes it (so a row from before a
/// section's field existed reads as a config written today).
fn read_sections<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<MethodTable, D::Error> {
    let mut table = MethodTable::deserialize(d)?;
    table.canonicalise(registry::section_spec);
    Ok(table)
}

/// The version of [`RunConfig::hash`]: FNV-1a 64 over the config's JSON as
/// [`RunConfig`] writes it (shared settings in declaration order, method sections in key
/// order, `threads`, then `env` when set; a stage's setting added after rows were first
/// written is left out while it holds its default, e.g. `loss.inter_view_negatives`).
/// Version 1 is the hash of every committed row; a change to what is hashed raises it and
/// says, in docs/results.md, how rows of the previous version are matched.
pub const HASH_VERSION: u32 = 1;

/// Environment variables that change a run's numbers: MKL's code path (magcl's vendor-check
/// override, MKL's own switches) and ATen's CPU kernels.
pub const NUMERIC_ENV: &[&str] = &[
    "MAGCL_MKL_VENDOR_CHECK",
    "MKL_CBWR",
    "MKL_ENABLE_INSTRUCTIONS",
    "MKL_DEBUG_CPU_TYPE",
    "ATEN_CPU_CAPABILITY",
];

/// The set variables of [`NUMERIC_ENV`] in `lookup` (the process environment in
/// [`RunConfig::fill_env`]).
pub fn numeric_env(
    lookup: impl Fn(&str) -> Option<String>,
) -> std::collections::BTreeMap<String, String> {
    NUMERIC_ENV
        .iter()
        .filter_map(|k| lookup(k).map(|v| (k.to_string(), v)))
        .collect()
}

/// What a run is asked to be before presets are applied.
#[derive(Clone, Debug, Default)]
pub struct RunSpec {
    pub method: Option<MethodName>,
    pub dataset: String,
    pub seed: u64,
    /// Node level: `code` or `paper` (default `code`).
    pub preset: Option<String>,
    /// A JSON object merged onto the preset config (nested keys allowed, e.g.
    /// `{"ma": {"enabled": true}, "epochs": 5}`).
    pub overrides: serde_json::Map<String, serde_json::Value>,
}

impl RunConfig {
    /// A config of `method` on `dataset` with `seed` from the method's settings
    /// (threads not fixed yet, no numeric environment recorded).
    pub fn from_preset(method: MethodName, dataset: &str, seed: u64, p: Preset) -> RunConfig {
        let Preset {
            task,
            epochs,
            lr,
            weight_decay,
            batch_size,
            hidden,
            layers,
            features,
            evaluator,
            gin_eps,
            loss,
            ma,
            pretrain,
            sections,
        } = p;
        RunConfig {
            task,
            method,
            dataset: dataset.into(),
            seed,
            epochs,
            lr,
            weight_decay,
            batch_size,
            hidden,
            layers,
            features,
            evaluator,
            gin_eps,
            loss,
            ma,
            pretrain,
            sections,
            threads: 0,
            env: Default::default(),
        }
    }

    /// The method's settings of this config (what its entry's hooks read).
    pub fn settings(&self) -> Preset {
        Preset {
            task: self.task,
            epochs: self.epochs,
            lr: self.lr,
            weight_decay: self.weight_decay,
            batch_size: self.batch_size,
            hidden: self.hidden,
            layers: self.layers,
            features: self.features.clone(),
            evaluator: self.evaluator,
            gin_eps: self.gin_eps,
            loss: self.loss.clone(),
            ma: self.ma.clone(),
            pretrain: self.pretrain.clone(),
            sections: self.sections.clone(),
        }
    }

    /// Fills in what the method leaves to other settings (AD-GCL's augmenter follows MA:
    /// [`MethodEntry::normalise`]). Configs read from files go through it too.
    pub fn normalise(&mut self) {
        if let Ok(entry) = self.method.entry() {
            let mut p = self.settings();
            entry.normalise_preset(&mut p);
            self.sections = p.sections;
        }
    }

    /// The method as result rows name it ([`MethodEntry::label`]): e.g. `adgcl-fixed` for
    /// AD-GCL with the fixed augmenter, `untrained-M` for the untrained encoder of M.
    pub fn method_label(&self) -> String {
        match self.method.entry() {
            Ok(entry) => (entry.label)(entry, &self.settings()),
            Err(_) => self.method.as_str().into(),
        }
    }

    /// Records the numeric environment ([`NUMERIC_ENV`]) of this process in `env`, or, if
    /// the config already records one, checks that this process has the same.
    pub fn fill_env(&mut self) -> Result<()> {
        self.fill_env_from(|k| std::env::var(k).ok())
    }

    /// [`Self::fill_env`] with the environment read from `lookup`.
    pub fn fill_env_from(&mut self, lookup: impl Fn(&str) -> Option<String>) -> Result<()> {
        let here = numeric_env(lookup);
        if self.env.is_empty() || self.env == here {
            self.env = here;
            return Ok(());
        }
        let show = |m: &std::collections::BTreeMap<String, String>| {
            if m.is_empty() {
                "none set".to_string()
            } else {
                m.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        };
        Err(crate::error::Error::Config(format!(
            "env: this config was made with {} but this process has {}; these variables \
             change the numbers: set them as the config records, or drop `env` from it",
            show(&self.env),
            show(&here)
        )))
    }

    /// The method's parameters composed from this config's stages, checked.
    pub fn method_params(&self) -> Result<Checked<MethodParams>> {
        Ok(MethodParams::from_preset(&self.settings(), self.seed).check()?)
    }

    /// Checks every stage's parameters ([`ParamGuard`]) and the rules that join them;
    /// the error says which field is wrong.
    pub fn validate(&self) -> Result<()> {
        if !self.method.supports(self.task) {
            return Err(bad(
                "task",
                format!(
                    "method {} is not a {:?}-level method",
                    self.method.as_str(),
                    self.task
                ),
            ));
        }
        let baseline = self.method.is_baseline();
        if baseline && self.epochs != 0 {
            return Err(bad(
                "epochs",
                format!(
                    "{} makes no gradient step: epochs must be 0, got {}",
                    self.method.as_str(),
                    self.epochs
                ),
            ));
        }
        if !baseline && self.epochs == 0 {
            return Err(bad(
                "epochs",
                "must be at least 1 (the encoder at its initialisation is the `untrained` \
                 method)",
            ));
        }
        if !self.pretrain.is_unset() {
            let field = if self.pretrain.graphs.is_some() {
                "pretrain.graphs"
            } else {
                "pretrain.match_steps"
            };
            if self.task == Task::Node {
                return Err(bad(
                    field,
                    "applies to graph-level methods only (a node-level method trains on \
                     one graph)",
                ));
            }
            if baseline {
                return Err(bad(
                    field,
                    format!(
                        "{} trains on no graphs (a floor, computed on the whole set); leave \
                         `pretrain` unset",
                        self.method.as_str()
                    ),
                ));
            }
        }
        let entry = self.method.entry()?;
        if baseline && self.ma.enabled && (entry.wraps)(&self.sections)?.is_none() {
            return Err(bad(
                "ma.enabled",
                format!(
                    "{} has no encoder for model augmentation to act on",
                    self.method.as_str()
                ),
            ));
        }
        MethodParams::from_preset(&self.settings(), self.seed).check_ref()?;
        entry.check_preset(&self.settings())?;
        if self.task == Task::Node {
            let d = MaParams::default();
            for (name, differs) in [
                ("ma.reading", self.ma.reading != d.reading),
                ("ma.zero_k", self.ma.zero_k != d.zero_k),
                ("ma.k_branch", self.ma.k_branch != d.k_branch),
                ("ma.eval_k", self.ma.eval_k != d.eval_k),
            ] {
                if differs {
                    return Err(bad(
                        name,
                        "applies to graph-level methods only (the node-level presets \
                         follow the released code or the paper; see node.eval_k)",
                    ));
                }
            }
        }
        let node_features = self.features.spec().is_node_level();
        if node_features != (self.task == Task::Node) {
            return Err(bad(
                "features",
                match self.task {
                    Task::Node => format!(
                        "a node-level method reads its dataset's features row-normalised: \
                         `row-normalised`, got '{}'",
                        self.features
                    ),
                    Task::Graph => "`row-normalised` is the node level's input; a \
                                    graph-level method takes a rule (auto, \
                                    attributes-else-degree) or a kind (labels, attributes, \
                                    constant, degree, …)"
                        .to_string(),
                },
            ));
        }
        // The names the evaluators answer to: the graph-level classifiers of magcl-eval,
        // the node-level probe.
        let evaluators: &[crate::eval::Evaluator] = match self.task {
            Task::Graph => &crate::eval::Evaluator::ALL,
            Task::Node => &crate::eval_node::NODE_EVALUATORS,
        };
        if !evaluators.contains(&self.evaluator) {
            let names: Vec<&str> = evaluators.iter().map(|e| e.name()).collect();
            return Err(bad(
                "evaluator",
                format!("expected one of {names:?}, got '{}'", self.evaluator),
            ));
        }
        Ok(())
    }

    /// The label of the MA setting (`none` for the baseline).
    pub fn ma_label(&self) -> String {
        self.ma.label(self.task)
    }

    /// A stable hash of the whole config (hex, 16 digits), seed included.
    pub fn hash(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        // FNV-1a 64: stable across platforms and releases, unlike std's hasher.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in json.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("{h:016x}")
    }
}
