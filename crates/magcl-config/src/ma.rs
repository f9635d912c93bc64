//! Model augmentation's settings (a config's `ma` section): the A/R/S switches, the
//! ranges, and the named readings of the paper (docs/ma.md) with the switches each sets.
//! Declared here, without tensors, so that the reports and the schema's defaults read the
//! same type the trainers run (the trainers add its checks, `magcl_torch::ma`).
use serde::{Deserialize, Serialize};

use crate::method::Level;
use crate::params::{check_size, ParamGuard, MAX_DEPTH};
use crate::settings::{SettingError, UnknownName};

/// How GIN layers are read as schedules under MA (the paper leaves this open; `ma.gin_mode`).
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
    pub fn parse(s: &str) -> Result<Self, UnknownName> {
        match s {
            "gin+filter" | "gin-filter" => Ok(GinMode::GinFilter),
            "gin-sum" => Ok(GinMode::GinSum),
            "filter" => Ok(GinMode::Filter),
            _ => Err(UnknownName {
                what: "MA mode",
                name: s.into(),
                expected: "gin+filter, gin-sum or filter".into(),
            }),
        }
    }
}

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
    pub fn parse(s: &str) -> Result<Self, UnknownName> {
        match s {
            "none" | "off" | "false" => Ok(Constraints::None),
            "sum" => Ok(Constraints::Sum),
            "layers" => Ok(Constraints::Layers),
            "both" | "on" | "true" => Ok(Constraints::Both),
            _ => Err(UnknownName {
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

crate::word_setting! {
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
    pub fn find(name: &str) -> Result<&'static Reading, UnknownName> {
        READINGS
            .iter()
            .find(|r| r.name.word() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = READINGS.iter().map(|r| r.name.word()).collect();
                UnknownName {
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
    /// The config section these settings are (`ma`).
    pub const SECTION: &'static str = "ma";

    /// A readable label of the setting: `none` for the baseline, else the active tricks,
    /// then (graph level) the reading — for `current` the GIN mode instead, as before the
    /// readings existed — and every switch that differs from the reading, e.g. `ARS`,
    /// `ARS gin-sum`, `ARS code`, `ARS code k_branch=negatives`, `A`.
    pub fn label(&self, level: Level) -> String {
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
        match level {
            Level::Graph => {
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
            Level::Node => {
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
    fn check_ref(&self) -> Result<(), SettingError> {
        check_size("ma.view1", self.view1[1], MAX_DEPTH)?;
        check_size("ma.view2", self.view2[1], MAX_DEPTH)?;
        for (name, r) in [("ma.view1", self.view1), ("ma.view2", self.view2)] {
            if r[0] > r[1] {
                return Err(SettingError::new(
                    name,
                    format!("range lower bound {} exceeds upper bound {}", r[0], r[1]),
                ));
            }
        }
        if !(0.0..=1.0).contains(&self.pi) {
            return Err(SettingError::new(
                "ma.pi",
                format!("must lie in [0, 1], got {}", self.pi),
            ));
        }
        if self.ranges == RangeBound::Exclusive {
            for (name, r) in [("ma.view1", self.view1), ("ma.view2", self.view2)] {
                if r[0] >= r[1] {
                    return Err(SettingError::new(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ADDED_FIELDS;

    /// The schema's table fills in a row's missing `ma` fields with MaParams' own
    /// defaults, and lists every field MaParams writes: a field added to MaParams without
    /// its line in the table fails here, not in a report of old rows.
    #[test]
    fn the_schema_table_holds_every_ma_field_at_its_default() {
        let written = serde_json::to_value(MaParams::default()).unwrap();
        let written = written.as_object().unwrap();
        let listed: Vec<(&str, serde_json::Value)> = ADDED_FIELDS
            .iter()
            .filter(|(section, _, _)| *section == MaParams::SECTION)
            .map(|(_, field, default)| (*field, default.to_json()))
            .collect();
        assert_eq!(listed.len(), written.len(), "{listed:?} vs {written:?}");
        for (field, default) in &listed {
            assert_eq!(written.get(*field), Some(default), "ma.{field}");
        }
        // A row written before any of these fields existed reads as the defaults.
        let empty: MaParams = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, MaParams::default());
    }

    /// Every reading's name finds that reading, and an unknown name lists them.
    #[test]
    fn readings_are_found_by_their_word_and_unknown_ones_are_named() {
        for r in READINGS {
            assert_eq!(Reading::find(r.name.word()).unwrap(), r);
            assert_eq!(Reading::of(r.name), r);
        }
        let e = Reading::find("papr").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown MA reading 'papr': expected one of current, code, paper"
        );
        assert_eq!(
            Constraints::parse("sums").unwrap_err().to_string(),
            "unknown constraints 'sums': expected none, sum, layers or both"
        );
        assert!(GinMode::parse("gin").is_err());
        assert_eq!(GinMode::parse("gin-filter").unwrap(), GinMode::GinFilter);
    }

    /// The label names the tricks, then (graph level) the reading and every switch that
    /// leaves it; the node level shows the tricks and the sampler's non-default switches.
    #[test]
    fn labels_name_the_tricks_the_reading_and_what_leaves_it() {
        let mut ma = MaParams {
            enabled: true,
            ..MaParams::default()
        };
        assert_eq!(MaParams::default().label(Level::Graph), "none");
        assert_eq!(ma.label(Level::Graph), "ARS gin+filter");
        assert_eq!(ma.label(Level::Node), "ARS");
        Reading::of(ReadingName::Code).apply(&mut ma);
        assert_eq!(ma.label(Level::Graph), "ARS code");
        assert_eq!(ma.label(Level::Node), "ARS ranges=exclusive redraw=epoch");
        ma.k_branch = KBranch::Negatives;
        ma.asymmetric = false;
        assert_eq!(ma.label(Level::Graph), "RS code k_branch=negatives");
        assert_eq!(ma.inclusive_ranges(), [[0, 1], [0, 3]]);
    }
}
