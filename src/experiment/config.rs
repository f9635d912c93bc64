//! The resolved configuration of one run. Every run — from `magcl train` flags or from a
//! cell of a `magcl bench` sweep — is described by one [`RunConfig`]; it is written next
//! to every result row, and its hash identifies the cell.
//!
//! A config is built by [`RunConfig::resolve`]: method and dataset presets first, then a
//! JSON object of overrides merged on top (unknown keys are errors).
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Graph- or node-level task.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Task {
    Graph,
    Node,
}

/// The contrastive method. `Base` is the node-level base model of the MA-GCL paper; with
/// MA enabled it is MA-GCL.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum MethodName {
    Graphcl,
    Simgrace,
    Adgcl,
    Base,
}

impl MethodName {
    pub fn task(self) -> Task {
        match self {
            MethodName::Base => Task::Node,
            _ => Task::Graph,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            MethodName::Graphcl => "graphcl",
            MethodName::Simgrace => "simgrace",
            MethodName::Adgcl => "adgcl",
            MethodName::Base => "base",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "graphcl" => Ok(MethodName::Graphcl),
            "simgrace" => Ok(MethodName::Simgrace),
            "adgcl" | "ad-gcl" => Ok(MethodName::Adgcl),
            "base" | "magcl" | "ma-gcl" | "node" => Ok(MethodName::Base),
            _ => Err(Error::Config(format!(
                "unknown method '{s}': expected graphcl, simgrace, adgcl or base (node level)"
            ))),
        }
    }
}

/// How GIN layers are read as schedules under MA (the paper leaves this open).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum GinMode {
    /// K = 0: MLP only; K = 1: standard GIN; K > 1: GIN aggregation after K−1 filter steps.
    #[default]
    #[serde(rename = "gin+filter")]
    GinFilter,
    /// K sum aggregations, then the MLP.
    #[serde(rename = "gin-sum")]
    GinSum,
    /// F^K (normalised filter), then the MLP.
    #[serde(rename = "filter")]
    Filter,
}

impl GinMode {
    pub fn as_str(self) -> &'static str {
        match self {
            GinMode::GinFilter => "gin+filter",
            GinMode::GinSum => "gin-sum",
            GinMode::Filter => "filter",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "gin+filter" | "gin-filter" => Ok(GinMode::GinFilter),
            "gin-sum" => Ok(GinMode::GinSum),
            "filter" => Ok(GinMode::Filter),
            _ => Err(Error::Config(format!(
                "unknown MA mode '{s}': expected gin+filter, gin-sum or filter"
            ))),
        }
    }
}

/// How a propagation count of 0 is read (graph level).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ZeroK {
    /// K = 0: no propagation, the layer is its MLP alone (the paper's g^[0] = identity).
    #[default]
    Mlp,
    /// K = 0: one plain propagation step, the same as K = 1 (no layer skips aggregation),
    /// as the released code's c = 0 is one plain Â step.
    Plain,
}

/// How the upper bound of a range `[lo, hi]` is read.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RangeBound {
    /// K ∈ {lo, …, hi}.
    #[default]
    Inclusive,
    /// K ∈ {lo, …, hi − 1}, as numpy's `randint(lo, hi)` in the released code.
    Exclusive,
}

/// Which of a method's two branches follows schedule K (range `view1`); the other one
/// follows K′ (range `view2`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[serde(rename_all = "kebab-case")]
pub enum KBranch {
    /// The branch that sees the un-augmented input: GraphCL's original graph, SimGRACE's
    /// clean encoder, AD-GCL's original graph.
    #[default]
    Unaugmented,
    /// The loss's anchor branch; the candidates (the negatives) follow K′, as in the
    /// released node-level code (anchor `z1` with R = [2, 2], candidates `z2` with [8, 8]).
    Anchor,
    /// The branch whose embeddings serve as the negatives (the loss's candidates), as the
    /// appendix says ("negative samples will adopt the view encoder corresponding to K").
    Negatives,
}

/// When new schedules are drawn.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Redraw {
    /// Every optimisation step (mini-batch).
    #[default]
    Step,
    /// Once per epoch, kept for all its steps (Algorithm 1: "for every epoch ... draw").
    Epoch,
}

/// Which of Algorithm 1's constraints are enforced by redrawing.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Constraints {
    #[default]
    None,
    /// ΣK ≠ ΣK′ (with the asymmetric trick).
    Sum,
    /// K_i ≠ K′_i for every layer (with the shuffle trick).
    Layers,
    /// Both.
    Both,
}

impl Constraints {
    pub fn sum(self) -> bool {
        matches!(self, Constraints::Sum | Constraints::Both)
    }
    pub fn layers(self) -> bool {
        matches!(self, Constraints::Layers | Constraints::Both)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Constraints::None => "none",
            Constraints::Sum => "sum",
            Constraints::Layers => "layers",
            Constraints::Both => "both",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "none" | "off" | "false" => Ok(Constraints::None),
            "sum" => Ok(Constraints::Sum),
            "layers" => Ok(Constraints::Layers),
            "both" | "on" | "true" => Ok(Constraints::Both),
            _ => Err(Error::Config(format!(
                "unknown constraints '{s}': expected none, sum, layers or both"
            ))),
        }
    }
}

/// `constraints` also accepts the booleans of configs written before it had four values
/// (`true` = both, `false` = none).
impl<'de> Deserialize<'de> for Constraints {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Bool(bool),
            Name(String),
        }
        match Repr::deserialize(d)? {
            Repr::Bool(true) => Ok(Constraints::Both),
            Repr::Bool(false) => Ok(Constraints::None),
            Repr::Name(s) => Constraints::parse(&s).map_err(serde::de::Error::custom),
        }
    }
}

/// The switches a named reading of the paper sets (docs/ma.md explains each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    pub name: &'static str,
    pub zero_k: ZeroK,
    pub ranges: RangeBound,
    pub k_branch: KBranch,
    pub redraw: Redraw,
    pub constraints: Constraints,
    pub eval_k: usize,
}

/// The named readings: `current` (magcl's reading before the readings existed, the
/// default), `code` (the released code wherever it decides a question, Algorithm 1
/// where it cannot) and `paper` (the paper's text: Algorithm 1 and the appendix).
pub const READINGS: &[Reading] = &[
    Reading {
        name: "current",
        zero_k: ZeroK::Mlp,
        ranges: RangeBound::Inclusive,
        k_branch: KBranch::Unaugmented,
        redraw: Redraw::Step,
        constraints: Constraints::None,
        eval_k: 1,
    },
    Reading {
        name: "code",
        zero_k: ZeroK::Plain,
        ranges: RangeBound::Exclusive,
        k_branch: KBranch::Anchor,
        redraw: Redraw::Epoch,
        constraints: Constraints::None,
        eval_k: 2,
    },
    Reading {
        name: "paper",
        zero_k: ZeroK::Mlp,
        ranges: RangeBound::Inclusive,
        k_branch: KBranch::Negatives,
        redraw: Redraw::Epoch,
        constraints: Constraints::Both,
        eval_k: 1,
    },
];

impl Reading {
    pub fn find(name: &str) -> Result<&'static Reading> {
        READINGS.iter().find(|r| r.name == name).ok_or_else(|| {
            let names: Vec<&str> = READINGS.iter().map(|r| r.name).collect();
            Error::Config(format!(
                "unknown MA reading '{name}': expected one of {}",
                names.join(", ")
            ))
        })
    }

    /// Sets the reading's switches on `ma` (and its name).
    pub fn apply(&self, ma: &mut MaConfig) {
        ma.reading = self.name.to_string();
        ma.zero_k = self.zero_k;
        ma.ranges = self.ranges;
        ma.k_branch = self.k_branch;
        ma.redraw = self.redraw;
        ma.constraints = self.constraints;
        ma.eval_k = self.eval_k;
    }
}

fn kebab<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|j| j.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn current_reading() -> String {
    "current".into()
}

fn one() -> usize {
    1
}

/// The model-augmentation settings (SPEC §5).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MaConfig {
    pub enabled: bool,
    /// How a GIN layer is read under MA (graph level only).
    pub gin_mode: GinMode,
    /// Range `[lo, hi]` of propagation counts for view 1 (K); `ranges` says whether `hi`
    /// is included.
    pub view1: [usize; 2],
    /// Range `[lo, hi]` of propagation counts for view 2 (K′).
    pub view2: [usize; 2],
    /// A: view 2's total number of propagations differs from view 1's.
    pub asymmetric: bool,
    /// R: redraw the schedules (every step or epoch, see `redraw`; otherwise draw once).
    pub random: bool,
    /// S: draw each layer independently (otherwise `K_i = K′_i` for all but the last layer).
    pub shuffle: bool,
    /// Algorithm 1's constraints enforced by redrawing: none, sum (ΣK ≠ ΣK′), layers
    /// (K_i ≠ K′_i) or both (`true`/`false` are read as both/none).
    pub constraints: Constraints,
    /// π of the normalised filter F = (1−π)I + πÂ.
    pub pi: f64,
    /// The named reading the switches below started from (`current`, `code`, `paper`);
    /// switches set after it show in the MA label.
    #[serde(default = "current_reading")]
    pub reading: String,
    /// What K = 0 means (graph level): `mlp` (no propagation) or `plain` (one step).
    pub zero_k: ZeroK,
    /// Whether the ranges' upper bounds are drawn: `inclusive` or `exclusive`.
    pub ranges: RangeBound,
    /// Which branch follows K (graph level): `unaugmented`, `anchor` or `negatives`.
    pub k_branch: KBranch,
    /// Draw new schedules every `step` or every `epoch` (with R).
    pub redraw: Redraw,
    /// Propagations per layer of the evaluation encoder under MA (graph level; the
    /// baseline evaluates the plain encoder, 1 per layer).
    #[serde(default = "one")]
    pub eval_k: usize,
}

impl Default for MaConfig {
    fn default() -> Self {
        MaConfig {
            enabled: false,
            gin_mode: GinMode::GinFilter,
            view1: [0, 2],
            view2: [0, 4],
            asymmetric: true,
            random: true,
            shuffle: true,
            constraints: Constraints::None,
            pi: 0.5,
            reading: current_reading(),
            zero_k: ZeroK::Mlp,
            ranges: RangeBound::Inclusive,
            k_branch: KBranch::Unaugmented,
            redraw: Redraw::Step,
            eval_k: 1,
        }
    }
}

impl MaConfig {
    /// A readable label of the setting: `none` for the baseline, else the active tricks,
    /// then (graph level) the reading — for `current` the GIN mode instead, as before the
    /// readings existed — and every switch that differs from the reading, e.g. `ARS`,
    /// `ARS gin-sum`, `ARS code`, `ARS code k_branch=negatives`, `A`.
    pub fn label(&self, task: Task) -> String {
        if !self.enabled {
            return "none".into();
        }
        let mut tricks = String::new();
        for (on, c) in [
            (self.asymmetric, 'A'),
            (self.random, 'R'),
            (self.shuffle, 'S'),
        ] {
            if on {
                tricks.push(c);
            }
        }
        if tricks.is_empty() {
            tricks.push('-');
        }
        let mut words = vec![tricks];
        let reading = Reading::find(&self.reading).unwrap_or(&READINGS[0]);
        match task {
            Task::Graph => {
                if reading.name == "current" {
                    words.push(self.gin_mode.as_str().into());
                } else {
                    words.push(reading.name.into());
                    if self.gin_mode != GinMode::GinFilter {
                        words.push(self.gin_mode.as_str().into());
                    }
                }
                for (differs, word) in [
                    (
                        self.zero_k != reading.zero_k,
                        format!("zero_k={}", kebab(&self.zero_k)),
                    ),
                    (
                        self.ranges != reading.ranges,
                        format!("ranges={}", kebab(&self.ranges)),
                    ),
                    (
                        self.k_branch != reading.k_branch,
                        format!("k_branch={}", kebab(&self.k_branch)),
                    ),
                    (
                        self.redraw != reading.redraw,
                        format!("redraw={}", kebab(&self.redraw)),
                    ),
                    (
                        self.constraints != reading.constraints,
                        format!("constraints={}", self.constraints.as_str()),
                    ),
                    (
                        self.eval_k != reading.eval_k,
                        format!("eval_k={}", self.eval_k),
                    ),
                ] {
                    if differs {
                        words.push(word);
                    }
                }
            }
            // Node level: the presets set the constraints (the label stays the tricks, as
            // before); the sampler's other switches show when they leave the default.
            Task::Node => {
                if self.ranges != RangeBound::Inclusive {
                    words.push(format!("ranges={}", kebab(&self.ranges)));
                }
                if self.redraw != Redraw::Step {
                    words.push(format!("redraw={}", kebab(&self.redraw)));
                }
            }
        }
        words.join(" ")
    }

    /// The ranges as inclusive bounds (`exclusive` drops each upper bound).
    pub fn inclusive_ranges(&self) -> [[usize; 2]; 2] {
        let f = |r: [usize; 2]| match self.ranges {
            RangeBound::Inclusive => r,
            RangeBound::Exclusive => [r[0], r[1].saturating_sub(1)],
        };
        [f(self.view1), f(self.view2)]
    }
}

/// The contrastive loss family (SPEC §3).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LossConfig {
    pub temperature: f64,
    /// Whether the positive pair appears in the denominator.
    pub positive_in_denominator: bool,
    /// Average of both directions (view 1 → view 2 and back) instead of one way.
    pub symmetric: bool,
    /// Add intra-view negatives to the denominator.
    pub intra_view_negatives: bool,
    /// Keep the inter-view negatives (the other view's non-matching rows) in the
    /// denominator: true everywhere by default. False with `intra_view_negatives` true
    /// leaves the intra-view negatives alone (the paper's "only intra-view modeling" read
    /// literally; docs/citeseer.md). Written into the config only when false, so configs
    /// and hashes from before the switch existed stay as they were.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub inter_view_negatives: bool,
    /// Apply the projection head before the loss.
    pub projector: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl LossConfig {
    /// Why the loss would have no negatives at all (neither inter- nor intra-view ones:
    /// the loss is then zero or undefined, whatever the embeddings), or `None`.
    pub fn missing_negatives(&self) -> Option<String> {
        (!self.inter_view_negatives && !self.intra_view_negatives).then(|| {
            "with neither inter- nor intra-view negatives the loss has no negatives (it is \
             constant): set loss.intra_view_negatives = true (the intra-view reading) or \
             loss.inter_view_negatives = true"
                .to_string()
        })
    }
}

/// Graph-level augmentation settings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AugConfig {
    /// `random2`, `random3`, `random4`, `node-drop`, `edge-drop`, `mask`, `subgraph`,
    /// `subgraph-1hop`, `none`, or a `+`-joined list of single augmentations applied in order.
    pub name: String,
    pub node_drop: f64,
    pub edge_drop: f64,
    pub mask: f64,
    pub subgraph: f64,
}

impl Default for AugConfig {
    fn default() -> Self {
        AugConfig {
            name: "random2".into(),
            node_drop: 0.1,
            edge_drop: 0.1,
            mask: 0.1,
            subgraph: 0.2,
        }
    }
}

/// Node-level settings (the base model / MA-GCL).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
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
    #[serde(default, skip_serializing_if = "is_zero")]
    pub best_test_every: usize,
    /// L2-normalise each embedding row before k-means (clustering NMI only; the
    /// classifier sees the embeddings as they are). Written into the config only when set.
    #[serde(default, skip_serializing_if = "is_false")]
    pub kmeans_l2: bool,
}

/// The evaluation splits `node.split` accepts.
pub const NODE_SPLITS: [&str; 3] = ["public", "public-swapped", "random"];

/// SimGRACE settings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SimgraceConfig {
    pub eta: f64,
}

/// AD-GCL settings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdgclConfig {
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

/// Size limits checked by [`RunConfig::validate`]: far beyond every published setting
/// (hidden ≤ 512, ≤ 5 layers, ≤ 2000 epochs), and small enough that a typo such as
/// `--hidden 100000000` is refused up front instead of failing inside an allocation.
pub const MAX_WIDTH: usize = 16_384;
/// Layers, propagations per layer (MA ranges, `base_k`, `eval_k`).
pub const MAX_DEPTH: usize = 64;
pub const MAX_EPOCHS: usize = 1_000_000;
pub const MAX_BATCH_SIZE: usize = 1 << 20;
pub const MAX_RESTARTS: usize = 10_000;

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
    pub loss: LossConfig,
    pub ma: MaConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub augment: Option<AugConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simgrace: Option<SimgraceConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adgcl: Option<AdgclConfig>,
    /// CPU threads of the run (libtorch intra-op and the data pipeline). Float sums are
    /// ordered by the thread count, so SimGRACE, AD-GCL and the node-level model give
    /// (slightly) different numbers at different counts: the count is part of the
    /// configuration, so the same config gives the same numbers on every machine, and a
    /// report never averages runs made with different counts. 0 = not fixed yet: `magcl
    /// train` fills in `--threads` or the machine's cores, `magcl bench` its per-cell count
    /// (a sweep fixes it everywhere with `[overrides] threads = N`).
    #[serde(default)]
    pub threads: usize,
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
    /// The preset config for `spec`, with `spec.overrides` merged on top and validated.
    pub fn resolve(spec: &RunSpec) -> Result<RunConfig> {
        let method = spec.method.unwrap_or(MethodName::Graphcl);
        let mut base =
            super::presets::preset(method, &spec.dataset, spec.seed, spec.preset.as_deref())?;
        // A named reading sets its switches first; switches given beside it win.
        if let Some(r) = spec.overrides.get("ma").and_then(|m| m.get("reading")) {
            let name = r
                .as_str()
                .ok_or_else(|| Error::Config(format!("ma.reading: expected a name, got {r}")))?;
            Reading::find(name)?.apply(&mut base.ma);
        }
        let mut value = serde_json::to_value(&base)?;
        settable_defaults(&mut value);
        merge(
            &mut value,
            &serde_json::Value::Object(spec.overrides.clone()),
            "",
        )?;
        let mut cfg: RunConfig = serde_json::from_value(value)
            .map_err(|e| Error::Config(format!("invalid configuration: {e}")))?;
        cfg.normalise();
        cfg.validate()?;
        Ok(cfg)
    }

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
    pub fn method_label(&self) -> String {
        match (self.method, self.adgcl.as_ref().and_then(|a| a.augmenter)) {
            (MethodName::Adgcl, Some(Augmenter::Fixed)) => "adgcl-fixed".into(),
            (m, _) => m.as_str().into(),
        }
    }

    /// Checks ranges and names; the error says which field is wrong.
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &str, msg: String| Err(Error::Config(format!("{field}: {msg}")));
        if self.method.task() != self.task {
            return bad(
                "task",
                format!(
                    "method {} is not a {:?}-level method",
                    self.method.as_str(),
                    self.task
                ),
            );
        }
        if self.epochs == 0 {
            return bad("epochs", "must be at least 1".into());
        }
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return bad("lr", format!("must be positive, got {}", self.lr));
        }
        if self.weight_decay.is_nan() || self.weight_decay < 0.0 {
            return bad(
                "weight_decay",
                format!("must be ≥ 0, got {}", self.weight_decay),
            );
        }
        if self.batch_size == 0 || self.hidden == 0 || self.layers == 0 {
            return bad("batch_size/hidden/layers", "must be at least 1".into());
        }
        let mut sizes = vec![
            ("epochs", self.epochs, MAX_EPOCHS),
            ("batch_size", self.batch_size, MAX_BATCH_SIZE),
            ("hidden", self.hidden, MAX_WIDTH),
            ("layers", self.layers, MAX_DEPTH),
            ("ma.view1", self.ma.view1[1], MAX_DEPTH),
            ("ma.view2", self.ma.view2[1], MAX_DEPTH),
        ];
        if let Some(n) = &self.node {
            sizes.extend([
                ("node.proj_hidden", n.proj_hidden, MAX_WIDTH),
                ("node.base_k", n.base_k, MAX_DEPTH),
                ("node.eval_k", n.eval_k, MAX_DEPTH),
                ("node.kmeans_restarts", n.kmeans_restarts, MAX_RESTARTS),
                ("node.best_test_every", n.best_test_every, MAX_EPOCHS),
            ]);
        }
        if let Some(a) = &self.adgcl {
            sizes.push(("adgcl.edge_mlp_dim", a.edge_mlp_dim, MAX_WIDTH));
        }
        for (field, v, max) in sizes {
            if v > max {
                return bad(
                    field,
                    format!("{v} is larger than the limit of {max} (no run of this size fits in memory or finishes)"),
                );
            }
        }
        if let Some(msg) = self.loss.missing_negatives() {
            return bad("loss.inter_view_negatives", msg);
        }
        if self.loss.temperature.is_nan() || self.loss.temperature <= 0.0 {
            return bad(
                "loss.temperature",
                format!("must be positive, got {}", self.loss.temperature),
            );
        }
        for (name, r) in [("ma.view1", self.ma.view1), ("ma.view2", self.ma.view2)] {
            if r[0] > r[1] {
                return bad(
                    name,
                    format!("range lower bound {} exceeds upper bound {}", r[0], r[1]),
                );
            }
        }
        if !(0.0..=1.0).contains(&self.ma.pi) {
            return bad("ma.pi", format!("must lie in [0, 1], got {}", self.ma.pi));
        }
        if let Err(e) = Reading::find(&self.ma.reading) {
            return bad("ma.reading", e.to_string());
        }
        if self.ma.ranges == RangeBound::Exclusive {
            for (name, r) in [("ma.view1", self.ma.view1), ("ma.view2", self.ma.view2)] {
                if r[0] >= r[1] {
                    return bad(
                        name,
                        format!(
                            "with ma.ranges = exclusive the range [{}, {}) is empty; raise the upper bound",
                            r[0], r[1]
                        ),
                    );
                }
            }
        }
        if self.task == Task::Node {
            let d = MaConfig::default();
            for (name, differs) in [
                ("ma.reading", self.ma.reading != d.reading),
                ("ma.zero_k", self.ma.zero_k != d.zero_k),
                ("ma.k_branch", self.ma.k_branch != d.k_branch),
                ("ma.eval_k", self.ma.eval_k != d.eval_k),
            ] {
                if differs {
                    return bad(
                        name,
                        "applies to graph-level methods only (the node-level presets \
                         follow the released code or the paper; see node.eval_k)"
                            .into(),
                    );
                }
            }
        }
        if let Some(Augmenter::Learned) = self.adgcl.as_ref().and_then(|a| a.augmenter) {
            if self.ma.enabled {
                return bad(
                    "adgcl.augmenter",
                    "AD-GCL+MA replaces the learned augmenter by edge dropping and attribute \
                     masking (the paper's appendix): set adgcl.augmenter = fixed or turn MA off"
                        .into(),
                );
            }
        }
        if let Some(a) = &self.augment {
            for (name, v) in [
                ("augment.node_drop", a.node_drop),
                ("augment.edge_drop", a.edge_drop),
                ("augment.mask", a.mask),
                ("augment.subgraph", a.subgraph),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return bad(name, format!("ratio must lie in [0, 1], got {v}"));
                }
            }
        }
        if let Some(n) = &self.node {
            for (name, pair) in [
                ("node.edge_drop", n.edge_drop),
                ("node.feature_drop", n.feature_drop),
            ] {
                for v in pair {
                    if !(0.0..=1.0).contains(&v) {
                        return bad(name, format!("ratio must lie in [0, 1], got {v}"));
                    }
                }
            }
            if n.preset != "code" && n.preset != "paper" {
                return bad(
                    "node.preset",
                    format!("expected code or paper, got '{}'", n.preset),
                );
            }
            if !NODE_SPLITS.contains(&n.split.as_str()) {
                return bad(
                    "node.split",
                    format!(
                        "expected public, public-swapped or random, got '{}'",
                        n.split
                    ),
                );
            }
            if !["relu", "prelu", "rrelu"].contains(&n.activation.as_str()) {
                return bad(
                    "node.activation",
                    format!("expected relu, prelu or rrelu, got '{}'", n.activation),
                );
            }
        }
        let evaluators: &[&str] = match self.task {
            Task::Graph => &["svc-rbf", "linear-svc", "logreg"],
            Task::Node => &["logreg"],
        };
        if !evaluators.contains(&self.evaluator.as_str()) {
            return bad(
                "evaluator",
                format!("expected one of {evaluators:?}, got '{}'", self.evaluator),
            );
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

/// Deep-merges `over` into `base`; a key `base` does not have is an error naming its path.
/// Puts the settings that a config leaves out while they hold their default (so that
/// earlier configs and hashes stay as they were) back into its JSON form, so that
/// overrides may set them.
fn settable_defaults(value: &mut serde_json::Value) {
    use serde_json::json;
    let mut put = |section: &str, key: &str, v: serde_json::Value| {
        if let Some(obj) = value.get_mut(section).and_then(|s| s.as_object_mut()) {
            obj.entry(key.to_string()).or_insert(v);
        }
    };
    put("loss", "inter_view_negatives", json!(true));
    put("node", "best_test_every", json!(0));
    put("node", "kmeans_l2", json!(false));
}

fn merge(base: &mut serde_json::Value, over: &serde_json::Value, path: &str) -> Result<()> {
    use serde_json::Value;
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match b.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v, &p)?,
                    Some(slot) => *slot = v.clone(),
                    None => {
                        return Err(Error::Config(format!(
                            "unknown setting '{p}' (not used by this method)"
                        )))
                    }
                }
            }
            Ok(())
        }
        (b, o) => {
            *b = o.clone();
            Ok(())
        }
    }
}
