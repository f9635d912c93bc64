//! Model augmentation's parameters: the A/R/S switches, the ranges, and the named
//! readings of the paper (docs/ma.md) with the switches each sets.
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::nn::GinMode;
use crate::params::{bad, check_size, ParamGuard, Task, MAX_DEPTH};

/// How a propagation count of 0 is read (graph level).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ZeroK {
    /// K = 0: no propagation, the layer is its MLP alone (the paper's g^\[0\] = identity).
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
            _ => Err(Error::UnknownName {
                what: "constraints",
                name: s.into(),
                expected: "none, sum, layers or both".into(),
            }),
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

crate::params::word_setting! {
    /// The name of a reading of the paper ([`READINGS`]; `ma.reading`).
    pub enum ReadingName in "ma.reading" {
        /// magcl's reading before the readings existed (the default).
        Current = "current",
        /// The released code wherever it decides a question, Algorithm 1 where it cannot.
        Code = "code",
        /// The paper's text: Algorithm 1 and the appendix.
        Paper = "paper",
    }
}

/// The switches a named reading of the paper sets (docs/ma.md explains each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    pub name: ReadingName,
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
        name: ReadingName::Current,
        zero_k: ZeroK::Mlp,
        ranges: RangeBound::Inclusive,
        k_branch: KBranch::Unaugmented,
        redraw: Redraw::Step,
        constraints: Constraints::None,
        eval_k: 1,
    },
    Reading {
        name: ReadingName::Code,
        zero_k: ZeroK::Plain,
        ranges: RangeBound::Exclusive,
        k_branch: KBranch::Anchor,
        redraw: Redraw::Epoch,
        constraints: Constraints::None,
        eval_k: 2,
    },
    Reading {
        name: ReadingName::Paper,
        zero_k: ZeroK::Mlp,
        ranges: RangeBound::Inclusive,
        k_branch: KBranch::Negatives,
        redraw: Redraw::Epoch,
        constraints: Constraints::Both,
        eval_k: 1,
    },
];

impl Reading {
    /// The reading named `name`.
    pub fn find(name: &str) -> Result<&'static Reading> {
        READINGS
            .iter()
            .find(|r| r.name.word() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = READINGS.iter().map(|r| r.name.word()).collect();
                Error::UnknownName {
                    what: "MA reading",
                    name: name.into(),
                    expected: format!("one of {}", names.join(", ")),
                }
            })
    }

    /// The reading of `name`.
    pub fn of(name: ReadingName) -> &'static Reading {
        READINGS
            .iter()
            .find(|r| r.name == name)
            .unwrap_or(&READINGS[0])
    }

    /// Sets the reading's switches on `ma` (and its name).
    pub fn apply(&self, ma: &mut MaParams) {
        ma.reading = self.name;
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

fn current_reading() -> ReadingName {
    ReadingName::Current
}

fn one() -> usize {
    1
}

/// The model-augmentation settings (docs/ma.md).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MaParams {
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
    pub reading: ReadingName,
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

impl Default for MaParams {
    fn default() -> Self {
        MaParams {
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

impl MaParams {
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
        let reading = Reading::of(self.reading);
        match task {
            Task::Graph => {
                if reading.name == ReadingName::Current {
                    words.push(self.gin_mode.as_str().into());
                } else {
                    words.push(reading.name.word().into());
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

impl ParamGuard for MaParams {
    fn check_ref(&self) -> Result<()> {
        check_size("ma.view1", self.view1[1], MAX_DEPTH)?;
        check_size("ma.view2", self.view2[1], MAX_DEPTH)?;
        for (name, r) in [("ma.view1", self.view1), ("ma.view2", self.view2)] {
            if r[0] > r[1] {
                return Err(bad(
                    name,
                    format!("range lower bound {} exceeds upper bound {}", r[0], r[1]),
                ));
            }
        }
        if !(0.0..=1.0).contains(&self.pi) {
            return Err(bad("ma.pi", format!("must lie in [0, 1], got {}", self.pi)));
        }
        if self.ranges == RangeBound::Exclusive {
            for (name, r) in [("ma.view1", self.view1), ("ma.view2", self.view2)] {
                if r[0] >= r[1] {
                    return Err(bad(
                        name,
                        format!(
                            "with ma.ranges = exclusive the range [{}, {}) is empty; raise the upper bound",
                            r[0], r[1]
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}
