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
pub use crate::ma::{Constraints, KBranch, MaParams, RangeBound, Reading, Redraw, ZeroK, READINGS};
pub use crate::methods::adgcl::{AdgclParams, Augmenter};
pub use crate::methods::node::{NodeParams, NODE_SPLITS};
use crate::methods::registry::{self, MethodEntry};
pub use crate::methods::simgrace::SimgraceParams;
pub use crate::methods::untrained::UntrainedParams;
pub use crate::methods::wl::WlParams;
use crate::methods::{MethodParams, TrainParams};
pub use crate::nn::{GinMode, GinParams};
use crate::params::{bad, Checked, ParamGuard};
pub use crate::params::{Task, MAX_BATCH_SIZE, MAX_DEPTH, MAX_EPOCHS, MAX_RESTARTS, MAX_WIDTH};

/// The contrastive method: a name in the method registry ([`crate::methods::registry`]).
/// `base` is the node-level base model of the MA-GCL paper; with MA enabled it is MA-GCL.
/// Serialised as its name (`"graphcl"`), so configs and hashes read as before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MethodName(&'static str);

#[allow(non_upper_case_globals)]
impl MethodName {
    pub const Graphcl: MethodName = MethodName("graphcl");
    pub const Simgrace: MethodName = MethodName("simgrace");
    pub const Adgcl: MethodName = MethodName("adgcl");
    pub const Base: MethodName = MethodName("base");
    pub const Untrained: MethodName = MethodName("untrained");
    pub const Wl: MethodName = MethodName("wl");
    pub const Degree: MethodName = MethodName("degree");
    pub const Features: MethodName = MethodName("features");

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
    /// The built-in method whose presets this one starts from.
    pub fn preset_family(self) -> MethodName {
        self.entry()
            .map(|e| MethodName(e.preset))
            .unwrap_or(MethodName::Graphcl)
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

/// Everything that determines one run.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
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
    /// Node features (graph level): a preset (`graphcl`, `adgcl`) or a kind
    /// (`labels`, `attributes`, `labels+attributes`, `constant`, `degree`).
    pub features: String,
    /// `svc-rbf`, `linear-svc` or `logreg`.
    pub evaluator: String,
    /// GIN's ε: the weight of a node's own features is 1 + ε. The GraphCL/SimGRACE data
    /// pipeline adds a self-loop to every node but the highest-indexed one of each graph,
    /// which makes a standard GIN count a node twice, i.e. ε = 1 in effect. SimGRACE's
    /// preset uses 1; GraphCL's keeps 0 (its augmented views lose the loops, so no single
    /// ε reproduces both views).
    #[serde(default)]
    pub gin_eps: f64,
    pub loss: InfoNceParams,
    pub ma: MaParams,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub augment: Option<AugParams>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeParams>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simgrace: Option<SimgraceParams>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adgcl: Option<AdgclParams>,
    /// The `untrained` baseline: whose encoder, and where batch-norm estimates come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untrained: Option<UntrainedParams>,
    /// The `wl` baseline's depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wl: Option<WlParams>,
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
    /// them, set ones only; written into the config only when one is set, so configs and
    /// hashes without them stay as they were. Filled in by `magcl train` and `magcl bench`
    /// ([`RunConfig::fill_env`]); a run refuses a config whose recorded variables differ
    /// from its own environment.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
}

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
    /// Fills in what is decided by other fields: AD-GCL's augmenter when left out
    /// (`fixed` with MA, `learned` without). Configs read from files go through it too.
    pub fn normalise(&mut self) {
        let ma = self.ma.enabled;
        if let Some(a) = self.adgcl.as_mut() {
            if a.augmenter.is_none() {
                a.augmenter = Some(if ma {
                    Augmenter::Fixed
                } else {
                    Augmenter::Learned
                });
            }
        }
    }

    /// The method as result rows name it: `adgcl-fixed` for AD-GCL with the fixed
    /// augmenter (its control, and AD-GCL+MA), else the method's name.
    /// The untrained encoder of method M is `untrained-M` (its floor in the report).
    pub fn method_label(&self) -> String {
        match (self.method, self.adgcl.as_ref().and_then(|a| a.augmenter)) {
            (MethodName::Untrained, _) => match &self.untrained {
                Some(u) => format!("untrained-{}", u.of),
                None => "untrained".into(),
            },
            (MethodName::Adgcl, Some(Augmenter::Fixed)) => "adgcl-fixed".into(),
            (m, _) => m.as_str().into(),
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

    /// The optimisation settings every method shares.
    pub fn train_params(&self) -> TrainParams {
        TrainParams {
            seed: self.seed,
            epochs: self.epochs,
            lr: self.lr,
            weight_decay: self.weight_decay,
            batch_size: self.batch_size,
        }
    }

    /// The GIN encoder of the graph-level methods (the MA GIN mode and π from `ma`).
    pub fn gin_params(&self) -> GinParams {
        GinParams {
            hidden: self.hidden,
            layers: self.layers,
            eps: self.gin_eps,
            mode: self.ma.gin_mode,
            pi: self.ma.pi,
        }
    }

    /// The method's parameters composed from this config's stages, checked.
    pub fn method_params(&self) -> Result<Checked<MethodParams>> {
        self.method_params_unchecked().check()
    }

    fn method_params_unchecked(&self) -> MethodParams {
        MethodParams {
            train: self.train_params(),
            gin: self.gin_params(),
            loss: self.loss.clone(),
            ma: self.ma.clone(),
            augment: self.augment.clone(),
            node: self.node.clone(),
            simgrace: self.simgrace.clone(),
            adgcl: self.adgcl.clone(),
            untrained: self.untrained.clone(),
            wl: self.wl.clone(),
        }
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
        if baseline && self.untrained.is_none() && self.ma.enabled {
            return Err(bad(
                "ma.enabled",
                format!(
                    "{} has no encoder for model augmentation to act on",
                    self.method.as_str()
                ),
            ));
        }
        if self.method == MethodName::Untrained {
            let u = self
                .untrained
                .as_ref()
                .ok_or_else(|| bad("untrained", "the untrained settings are missing"))?;
            if !MethodName::parse(&u.of)?.supports(self.task) {
                return Err(bad(
                    "untrained.of",
                    format!("{} is not a {:?}-level method", u.of, self.task),
                ));
            }
        }
        self.method_params_unchecked().check_ref()?;
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
        // The names the evaluators answer to: the graph-level classifiers of magcl-eval,
        // the node-level probe.
        let evaluators: Vec<&str> = match self.task {
            Task::Graph => crate::eval::Evaluator::ALL.map(|e| e.name()).to_vec(),
            Task::Node => crate::eval_node::NODE_EVALUATORS.to_vec(),
        };
        if !evaluators.contains(&self.evaluator.as_str()) {
            return Err(bad(
                "evaluator",
                format!("expected one of {evaluators:?}, got '{}'", self.evaluator),
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
