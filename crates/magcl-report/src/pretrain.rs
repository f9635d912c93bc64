//! Pre-training-set size curves: a method's accuracy against the number of unlabelled
//! graphs it was pre-trained on, beside its untrained encoder and the classical floors,
//! and the smallest size at which training beats each floor (docs/report.md, "Pre-training
//! size").
//!
//! Which groups form which curve point ([`build`]):
//! - A row whose config has a `pretrain` section with `graphs` = N was pre-trained on a
//!   subset of N graphs; a row without the section saw the whole set. The setting is part
//!   of the group's identity: the report writes it into the group's variant label as
//!   `pretrain.graphs=N` (and `pretrain.match_steps=true`), read from the config, so two
//!   sizes never share a group whether or not the sweep's grid labelled them
//!   ([`variant_with_setting`]).
//! - A **curve** is one (dataset, method, evaluator, split, MA label, variant without its
//!   `pretrain.*` keys, [`CurveKind`]): the method's epochs as its preset sets them
//!   ([`CurveKind::PresetEpochs`]), or as many gradient steps as the whole-set run
//!   (`pretrain.match_steps = true`, [`CurveKind::MatchedSteps`]). Its points are its
//!   subset groups by size, then the whole-set group (the same key without a `pretrain`
//!   section), which belongs to both curves. A curve needs one subset point.
//! - The **whole set**'s size is the dataset's graph count as the dataset registry
//!   records it (`magcl datasets info`); for a dataset it does not know, the point is
//!   labelled `all` and drawn one doubling right of the largest subset.
//! - Each point is the group's summary over its seeds (mean, 95% Student-t interval).
//! - **Against the untrained encoder**: the untrained group the floor lines use for the
//!   curve's key ([`floor`]; the untrained encoder has no subset), paired by seed, paired
//!   t-test (two-sided); **against each classical floor** (WL, degree histogram):
//!   unpaired, Welch's test, as the floor lines do. Holm's correction runs over the
//!   distinct comparisons of each kind in this section (a whole-set point shared by two
//!   curves counts once). A point is *above* a floor when its Holm p < 0.05 and Δ > 0,
//!   the floor lines' reading.
//! - The **crossover** of a curve and a floor is its smallest size that is above the
//!   floor, or "not reached up to N", N being its largest size measured.
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::curves::FloorBand;
use super::floor::{self, family, find_classical, find_untrained, is_baseline, is_node};
use super::floor::{FloorKind, FLOOR_ALPHA};
use super::format::{fmt_ci, fmt_num, fmt_p, method_label, method_name};
use super::{claims::signed, MIN_SEEDS};
use super::{group_sort_key, inference, pair, Group, GroupKey, Metric};
use crate::stats;

/// The config section of the pre-training subset.
pub const SECTION: &str = magcl_config::settings::Pretrain::SECTION;
/// Its key for the number of graphs.
pub const GRAPHS_KEY: &str = "graphs";
/// Its key that marks the run with as many gradient steps as the whole-set run.
pub const MATCH_STEPS_KEY: &str = "match_steps";

/// A row's pre-training subset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Setting {
    pub graphs: usize,
    pub match_steps: bool,
}

/// The pre-training subset of a row's config (`pretrain.graphs`, `pretrain.match_steps`);
/// `None` for the whole set (no section, or no `graphs` in it).
pub fn setting(config: &Value) -> Option<Setting> {
    let p: magcl_config::settings::Pretrain =
        serde_json::from_value(config.get(SECTION)?.clone()).ok()?;
    Some(Setting {
        graphs: p.graphs?,
        match_steps: p.match_steps,
    })
}

fn is_setting_token(t: &str) -> bool {
    t.split_once('=')
        .is_some_and(|(k, _)| k.strip_prefix(SECTION).is_some_and(|r| r.starts_with('.')))
}

/// A variant label without its `pretrain.*` keys (the other keys in their order).
pub fn variant_without_setting(variant: &str) -> String {
    variant
        .split(' ')
        .filter(|t| !t.is_empty() && !is_setting_token(t))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The variant label of a group: `variant` as it is for the whole set; otherwise without
/// its `pretrain.*` keys, followed by `pretrain.graphs=N` and, for the matched-steps
/// curve, `pretrain.match_steps=true`.
pub fn variant_with_setting(variant: &str, s: Option<Setting>) -> String {
    let Some(s) = s else {
        return variant.to_string();
    };
    let mut parts = vec![variant_without_setting(variant)];
    parts.push(format!("{SECTION}.{GRAPHS_KEY}={}", s.graphs));
    if s.match_steps {
        parts.push(format!("{SECTION}.{MATCH_STEPS_KEY}=true"));
    }
    parts.retain(|p| !p.is_empty());
    parts.join(" ")
}

/// Which training budget a curve holds its sizes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CurveKind {
    /// The epochs of the method's preset, whatever the subset's size.
    PresetEpochs,
    /// As many gradient steps as the whole-set run.
    MatchedSteps,
}

impl CurveKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CurveKind::PresetEpochs => "preset epochs",
            CurveKind::MatchedSteps => "matched steps",
        }
    }
}

/// A point against one floor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FloorTest {
    pub floor_method: String,
    pub kind: FloorKind,
    /// Paired: the pairs; unpaired: the point's seeds.
    pub n: usize,
    /// Unpaired: the floor's seeds; paired: the same as `n`.
    pub n_floor: usize,
    /// Δ = point − floor.
    pub mean_diff: f64,
    pub ci95: Option<(f64, f64)>,
    /// Two-sided p of Δ = 0 (paired t-test, or Welch's test).
    pub p: Option<f64>,
    /// Holm over the distinct comparisons of this kind in the section.
    pub p_holm: Option<f64>,
}

impl FloorTest {
    /// Above the floor: Holm p < 0.05 and Δ > 0 (the floor lines' reading).
    pub fn above(&self) -> bool {
        self.p_holm.is_some_and(|p| p < FLOOR_ALPHA) && self.mean_diff > 0.0
    }
    /// Below the floor: Holm p < 0.05 and Δ < 0.
    pub fn below(&self) -> bool {
        self.p_holm.is_some_and(|p| p < FLOOR_ALPHA) && self.mean_diff < 0.0
    }
    fn reading(&self) -> &'static str {
        if self.above() {
            "above"
        } else if self.below() {
            "below"
        } else {
            "not distinguishable"
        }
    }
}

/// One point of a curve: a group's summary at one pre-training size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizePoint {
    /// The subset's size; `None` for the whole set.
    pub graphs: Option<usize>,
    /// The number of graphs seen: the subset's size, or the whole set's where known.
    pub size: Option<usize>,
    pub group: GroupKey,
    pub n: usize,
    pub mean: f64,
    pub std: Option<f64>,
    pub ci95: Option<(f64, f64)>,
    /// Against the untrained encoder, then each classical floor.
    pub floors: Vec<FloorTest>,
}

impl SizePoint {
    /// `64`, `4110 (all)`, or `all` for a whole set of unknown size.
    pub fn label(&self) -> String {
        match (self.graphs, self.size) {
            (Some(g), _) => g.to_string(),
            (None, Some(n)) => format!("{n} (all)"),
            (None, None) => "all".into(),
        }
    }

    /// The test against `floor_method`.
    pub fn against(&self, floor_method: &str) -> Option<&FloorTest> {
        self.floors.iter().find(|f| f.floor_method == floor_method)
    }
}

/// One curve: a method × MA label × variant on one dataset under one budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeCurve {
    /// The whole-set group's key (variant without `pretrain.*` keys).
    pub key: GroupKey,
    pub kind: CurveKind,
    /// The untrained encoder's group the points are paired with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub untrained: Option<GroupKey>,
    /// Subsets by size, then the whole set.
    pub points: Vec<SizePoint>,
}

impl SizeCurve {
    /// `GraphCL`, `GraphCL +MA (ARS code) [ma.pi=0.5] (matched steps)`.
    pub fn label(&self) -> String {
        let mut s = method_label(&self.key);
        if self.key.ma != "none" {
            s.push_str(&format!(" +MA ({})", self.key.ma));
        }
        if !self.key.variant.is_empty() {
            s.push_str(&format!(" [{}]", self.key.variant));
        }
        if self.kind == CurveKind::MatchedSteps {
            s.push_str(" (matched steps)");
        }
        s
    }

    /// The floors the points are tested against, in order (untrained first).
    pub fn floor_methods(&self) -> Vec<(String, FloorKind)> {
        let mut out: Vec<(String, FloorKind)> = Vec::new();
        for f in self.points.iter().flat_map(|p| p.floors.iter()) {
            if !out.iter().any(|(m, _)| *m == f.floor_method) {
                out.push((f.floor_method.clone(), f.kind));
            }
        }
        out
    }
}

/// The smallest size at which a curve is above a floor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Crossover {
    pub key: GroupKey,
    pub curve: CurveKind,
    pub floor_method: String,
    pub kind: FloorKind,
    /// How many sizes were tested against the floor.
    pub sizes: usize,
    /// The label of the smallest size above the floor (`None`: not reached).
    pub reached: Option<String>,
    /// Its Δ and Holm p.
    pub mean_diff: Option<f64>,
    pub p_holm: Option<f64>,
    /// The label of the largest size tested.
    pub largest: String,
}

impl Crossover {
    /// `128`, or `not reached up to 4110 (all)`.
    pub fn text(&self) -> String {
        match &self.reached {
            Some(s) => s.clone(),
            None => format!("not reached up to {}", self.largest),
        }
    }
}

/// The pre-training size section of a report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PretrainCurves {
    pub curves: Vec<SizeCurve>,
    /// Per dataset (and split) with curves: each curve's untrained encoder, then the
    /// classical floors; a band is the 95% t-interval of the floor's mean.
    pub bands: Vec<FloorBand>,
    pub crossovers: Vec<Crossover>,
}

impl PretrainCurves {
    /// No curve: the rows hold no pre-training subset.
    pub fn is_empty(&self) -> bool {
        self.curves.is_empty()
    }

    /// Panels of the plot, in table order: (dataset, split).
    pub fn panels(&self) -> Vec<(String, String)> {
        super::curves::panels_of(self.curves.iter().map(|c| &c.key))
    }
}

/// The number of graphs of `dataset` as the dataset registry records it.
pub fn whole_set_size(dataset: &str) -> Option<usize> {
    magcl_data::registry::find(dataset)
        .filter(|d| d.kind == magcl_data::registry::DatasetKind::Graph)
        .and_then(|d| d.size)
        .map(|s| s.graphs)
}

fn summary_point(g: &Group, graphs: Option<usize>, size: Option<usize>) -> SizePoint {
    SizePoint {
        graphs,
        size,
        group: g.key.clone(),
        n: g.summary.n,
        mean: g.summary.mean,
        std: g.summary.std,
        ci95: g.summary.ci95,
        floors: Vec::new(),
    }
}

fn paired_test(g: &Group, u: &Group) -> Option<FloorTest> {
    let c = pair(g, u)?;
    Some(FloorTest {
        floor_method: u.key.method.clone(),
        kind: FloorKind::Untrained,
        n: c.test.n,
        n_floor: c.test.n,
        // `pair`'s Δ is its first argument minus its second: point − untrained.
        mean_diff: c.test.mean_diff,
        ci95: c.test.ci95_diff,
        p: c.test.t_test.as_ref().and_then(|t| t.p),
        p_holm: None,
    })
}

fn welch_test(g: &Group, f: &Group) -> Option<FloorTest> {
    let a: Vec<f64> = g.by_seed.values().copied().collect();
    let b: Vec<f64> = f.by_seed.values().copied().collect();
    let w = inference::welch(&a, &b)?;
    Some(FloorTest {
        floor_method: f.key.method.clone(),
        kind: FloorKind::Classical,
        n: w.n_a,
        n_floor: w.n_b,
        mean_diff: w.mean_diff,
        ci95: w.ci95,
        p: w.p,
        p_holm: None,
    })
}

/// The pre-training size curves of `groups`; `settings` gives the subset of each group
/// pre-trained on one (the others saw the whole set). See the module's notes.
pub fn build(groups: &[Group], settings: &HashMap<GroupKey, Setting>) -> PretrainCurves {
    if settings.is_empty() {
        return PretrainCurves::default();
    }
    let by_key: HashMap<&GroupKey, &Group> = groups.iter().map(|g| (&g.key, g)).collect();
    // (curve key, kind) → subset size → group (the first in report order).
    let mut subsets: BTreeMap<(GroupKey, CurveKind), BTreeMap<usize, &Group>> = BTreeMap::new();
    for g in groups.iter().filter(|g| !is_baseline(&g.key.method)) {
        let Some(s) = settings.get(&g.key) else {
            continue;
        };
        let key = GroupKey {
            variant: variant_without_setting(&g.key.variant),
            ..g.key.clone()
        };
        let kind = if s.match_steps {
            CurveKind::MatchedSteps
        } else {
            CurveKind::PresetEpochs
        };
        subsets
            .entry((key, kind))
            .or_default()
            .entry(s.graphs)
            .or_insert(g);
    }
    let mut curves = Vec::new();
    for ((key, kind), by_size) in subsets {
        let whole_size = whole_set_size(&key.dataset);
        let mut points: Vec<(&Group, SizePoint)> = by_size
            .into_iter()
            .map(|(n, g)| (g, summary_point(g, Some(n), Some(n))))
            .collect();
        // The whole-set group has the curve's key itself, and no subset.
        if let Some(w) = by_key.get(&key).filter(|w| !settings.contains_key(&w.key)) {
            points.push((w, summary_point(w, None, whole_size)));
        }
        let untrained = find_untrained(&by_key, &key);
        let classical: Vec<&Group> = floor::classical_names(is_node(&key))
            .iter()
            .filter_map(|name| find_classical(groups, &key, name))
            .collect();
        for (g, p) in &mut points {
            p.floors.extend(untrained.and_then(|u| paired_test(g, u)));
            p.floors
                .extend(classical.iter().filter_map(|f| welch_test(g, f)));
        }
        curves.push(SizeCurve {
            key,
            kind,
            untrained: untrained.map(|u| u.key.clone()),
            points: points.into_iter().map(|(_, p)| p).collect(),
        });
    }
    curves.sort_by_key(|c| (group_sort_key(&c.key), c.kind));
    apply_holm(&mut curves);
    let crossovers = crossovers(&curves);
    let bands = bands(groups, &by_key, &curves);
    PretrainCurves {
        curves,
        bands,
        crossovers,
    }
}

/// Holm over the distinct comparisons (point's group, floor) of each kind.
fn apply_holm(curves: &mut [SizeCurve]) {
    for kind in [FloorKind::Untrained, FloorKind::Classical] {
        let mut index: BTreeMap<(GroupKey, String), usize> = BTreeMap::new();
        let mut ps: Vec<Option<f64>> = Vec::new();
        for c in curves.iter() {
            for p in &c.points {
                for f in p.floors.iter().filter(|f| f.kind == kind) {
                    index
                        .entry((p.group.clone(), f.floor_method.clone()))
                        .or_insert_with(|| {
                            ps.push(f.p);
                            ps.len() - 1
                        });
                }
            }
        }
        let adj = stats::holm(&ps);
        for c in curves.iter_mut() {
            for p in &mut c.points {
                for f in p.floors.iter_mut().filter(|f| f.kind == kind) {
                    let i = index[&(p.group.clone(), f.floor_method.clone())];
                    f.p_holm = adj[i];
                }
            }
        }
    }
}

fn crossovers(curves: &[SizeCurve]) -> Vec<Crossover> {
    let mut out = Vec::new();
    for c in curves {
        for (floor_method, kind) in c.floor_methods() {
            let tested: Vec<(&SizePoint, &FloorTest)> = c
                .points
                .iter()
                .filter_map(|p| Some((p, p.against(&floor_method)?)))
                .collect();
            let Some((last, _)) = tested.last() else {
                continue;
            };
            let first = tested.iter().find(|(_, f)| f.above());
            out.push(Crossover {
                key: c.key.clone(),
                curve: c.kind,
                floor_method,
                kind,
                sizes: tested.len(),
                reached: first.map(|(p, _)| p.label()),
                mean_diff: first.map(|(_, f)| f.mean_diff),
                p_holm: first.and_then(|(_, f)| f.p_holm),
                largest: last.label(),
            });
        }
    }
    out
}

fn band(g: &Group, dataset: &str, split: &str) -> FloorBand {
    FloorBand {
        dataset: dataset.to_string(),
        split: split.to_string(),
        method: family(&g.key.method).to_string(),
        evaluator: g.key.evaluator.clone(),
        n: g.summary.n,
        mean: g.summary.mean,
        ci95: g.summary.ci95,
    }
}

/// Per panel: the untrained encoders of its curves (once each), then the classical
/// floors of its first curve.
fn bands(
    groups: &[Group],
    by_key: &HashMap<&GroupKey, &Group>,
    curves: &[SizeCurve],
) -> Vec<FloorBand> {
    let mut out: Vec<FloorBand> = Vec::new();
    let c = PretrainCurves {
        curves: curves.to_vec(),
        ..Default::default()
    };
    for (dataset, split) in c.panels() {
        let in_panel: Vec<&SizeCurve> = curves
            .iter()
            .filter(|x| x.key.dataset == dataset && x.key.split == split)
            .collect();
        let mut untrained: Vec<&GroupKey> = Vec::new();
        for k in in_panel.iter().filter_map(|x| x.untrained.as_ref()) {
            if !untrained.contains(&k) {
                untrained.push(k);
            }
        }
        for k in untrained {
            if let Some(g) = by_key.get(k) {
                out.push(band(g, &dataset, &split));
            }
        }
        let first = &in_panel[0].key;
        for name in floor::classical_names(is_node(first)) {
            if let Some(f) = find_classical(groups, first, name) {
                out.push(band(f, &dataset, &split));
            }
        }
    }
    out
}

/// A floor's name in the tables and the plot's legend.
pub fn floor_label(method: &str) -> String {
    method_name(method)
}

/// The markdown section "Pre-training size" (empty without curves).
pub fn markdown(c: &PretrainCurves, metric: Metric) -> String {
    if c.is_empty() {
        return String::new();
    }
    let d = metric.decimals();
    let mut s = String::new();
    let _ = write!(
        s,
        "## Pre-training size\n\n\
         Mean {} over seeds after pre-training on a subset of the dataset's graphs, with its \
         95% t-interval; `all` is the whole set (its graph count where known), shared by both \
         curves. Curves: *preset epochs* (the method's epochs whatever the subset) and \
         *matched steps* (as many gradient steps as the whole-set run). Δ against the \
         untrained encoder is paired by seed (paired t-test), against the classical floors \
         unpaired (Welch's test); Holm's correction runs over the distinct comparisons of \
         each kind in this section; *above* / *below* when Holm p < {FLOOR_ALPHA} and Δ > 0 / \
         Δ < 0. † marks fewer than {MIN_SEEDS} seeds.\n\n\
         | dataset | method | MA | curve | graphs | n | mean | 95% CI | Δ untrained | Δ 95% CI | Holm p | reading |\n\
         |---|---|---|---|--:|--:|--:|---|--:|---|--:|---|\n",
        metric.as_str()
    );
    for curve in &c.curves {
        let mut method = method_label(&curve.key);
        if !curve.key.variant.is_empty() {
            method.push_str(&format!(" [{}]", curve.key.variant));
        }
        for p in &curve.points {
            let u = p.floors.iter().find(|f| f.kind == FloorKind::Untrained);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {}{} | {} | {} | {} | {} | {} | {} |",
                curve.key.dataset,
                method,
                curve.key.ma,
                curve.kind.as_str(),
                p.label(),
                p.n,
                if p.n < MIN_SEEDS { " †" } else { "" },
                fmt_num(p.mean, d),
                fmt_ci(p.ci95, d),
                u.map_or("–".into(), |f| signed(f.mean_diff, d)),
                fmt_ci(u.and_then(|f| f.ci95), d),
                fmt_p(u.and_then(|f| f.p_holm)),
                u.map_or("–", |f| f.reading()),
            );
        }
    }
    s.push('\n');
    if !c.crossovers.is_empty() {
        let _ = write!(
            s,
            "Smallest pre-training size above each floor (Holm p < {FLOOR_ALPHA} and Δ > 0, \
             Holm over the comparisons of the floor's kind above):\n\n\
             | dataset | method | MA | curve | floor | kind | sizes | smallest size above | Δ there | Holm p there |\n\
             |---|---|---|---|---|---|--:|---|--:|--:|\n"
        );
        for x in &c.crossovers {
            let mut method = method_label(&x.key);
            if !x.key.variant.is_empty() {
                method.push_str(&format!(" [{}]", x.key.variant));
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                x.key.dataset,
                method,
                x.key.ma,
                x.curve.as_str(),
                floor_label(&x.floor_method),
                x.kind.as_str(),
                x.sizes,
                x.text(),
                x.mean_diff.map_or("–".into(), |v| signed(v, d)),
                fmt_p(x.p_holm),
            );
        }
        s.push('\n');
    }
    if !c.bands.is_empty() {
        let _ = write!(
            s,
            "Floor bands of the plot (no pre-training subset; the band is the 95% t-interval of the mean):\n\n\
             | dataset | floor | evaluator | n | mean | 95% CI |\n\
             |---|---|---|--:|--:|---|\n"
        );
        for b in &c.bands {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                b.dataset,
                floor_label(&b.method),
                b.evaluator,
                b.n,
                fmt_num(b.mean, d),
                fmt_ci(b.ci95, d)
            );
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ResultRow;
    use crate::Report;

    // Method names of no real method: the report places them by their rows and by the
    // floor pairing alone (`untrained-<method>`).
    const A: &str = "toy-a";
    const B: &str = "toy-b";
    /// MUTAG: the registry's 188 graphs are the whole set.
    const DATASET: &str = "MUTAG";
    const WHOLE: usize = 188;

    fn untrained(m: &str) -> String {
        floor::untrained_of(m).unwrap()
    }

    fn wl() -> &'static str {
        floor::classical_names(false)[0]
    }

    /// A row of `method` pre-trained on `graphs` graphs (`None`: the whole set), on the
    /// matched-steps curve when `matched`. The grid label names the size only, as a grid
    /// over `pretrain.graphs` with `match_steps` as an override writes it.
    fn row(method: &str, graphs: Option<usize>, matched: bool, seed: u64, acc: f64) -> ResultRow {
        let section = match graphs {
            Some(g) => format!(
                r#","pretrain":{{"graphs":{g}{}}}"#,
                if matched {
                    r#","match_steps":true"#
                } else {
                    ""
                }
            ),
            None => String::new(),
        };
        ResultRow {
            dataset: DATASET.into(),
            method: method.into(),
            ma: "none".into(),
            variant: graphs
                .map(|g| format!("pretrain.graphs={g}"))
                .unwrap_or_default(),
            evaluator: "svc-rbf".into(),
            config_hash: format!("{method}-{graphs:?}-{matched}-{seed}"),
            accuracy: acc,
            config: format!(r#"{{"method":"{method}","seed":{seed}{section}}}"#),
            ..crate::results::tests::row(seed)
        }
    }

    /// The untrained encoders' accuracy per seed (10 seeds).
    const U: [f64; 10] = [70.0, 70.8, 69.5, 71.2, 70.3, 69.1, 70.6, 69.8, 71.0, 69.6];
    const NOISE: [f64; 10] = [0.2, -0.3, 0.1, 0.4, -0.2, 0.0, 0.3, -0.1, -0.4, 0.2];
    const SPREAD: [f64; 10] = [1.5, -0.5, 1.0, 0.2, 1.8, -0.6, 0.9, 0.4, 1.2, -0.3];

    /// Paired differences over the untrained encoder, per (method, size):
    /// - A at 64: SPREAD + 0.2 (mean 0.76, t = 2.83 on 9 df, p ≈ 0.0198 < 0.05, but
    ///   Holm's ×4 lifts it to 0.079);
    /// - A at 128: 3 + NOISE, A on the whole set: 5 + NOISE reversed (p < 1e-10);
    /// - B at 64: (0.5, −0.6, 0.3, −0.2, 0.4, −0.5, 0.1, 0.2, −0.3, 0.1), mean 0;
    /// - B at 128: those + 0.2, mean 0.2, p ≈ 0.13;
    /// - B on the whole set: SPREAD + 0.15 (t = 2.64, p ≈ 0.0269; Holm ×3 → 0.081).
    fn diffs() -> Vec<(&'static str, Option<usize>, [f64; 10])> {
        let add = |xs: [f64; 10], c: f64| xs.map(|x| x + c);
        let mut rev = NOISE;
        rev.reverse();
        let b64 = [0.5, -0.6, 0.3, -0.2, 0.4, -0.5, 0.1, 0.2, -0.3, 0.1];
        vec![
            (A, Some(64), add(SPREAD, 0.2)),
            (A, Some(128), add(NOISE, 3.0)),
            (A, None, add(rev, 5.0)),
            (B, Some(64), b64),
            (B, Some(128), add(b64, 0.2)),
            (B, None, add(SPREAD, 0.15)),
        ]
    }

    const WL: [f64; 10] = [72.5, 71.5, 73.0, 71.0, 72.3, 71.7, 72.8, 71.2, 72.0, 72.0];

    fn rows() -> Vec<ResultRow> {
        let mut r = Vec::new();
        for (m, graphs, d) in diffs() {
            for s in 0..10 {
                r.push(row(m, graphs, false, s as u64, U[s] + d[s]));
            }
        }
        for m in [A, B] {
            for (s, u) in U.iter().enumerate() {
                r.push(row(&untrained(m), None, false, s as u64, *u));
            }
        }
        for (s, w) in WL.iter().enumerate() {
            r.push(row(wl(), None, false, s as u64, *w));
        }
        r
    }

    /// Holm by hand: sorted ascending, p_(i) · (m − i + 1), running maximum, capped at 1.
    fn holm_by_hand(ps: &[f64]) -> Vec<f64> {
        let mut order: Vec<usize> = (0..ps.len()).collect();
        order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
        let m = ps.len();
        let mut out = vec![0.0; m];
        let mut run: f64 = 0.0;
        for (rank, &i) in order.iter().enumerate() {
            run = run.max(ps[i] * (m - rank) as f64).min(1.0);
            out[i] = run;
        }
        out
    }

    fn crossover<'a>(c: &'a PretrainCurves, method: &str, floor_method: &str) -> &'a Crossover {
        c.crossovers
            .iter()
            .find(|x| x.key.method == method && x.floor_method == floor_method)
            .unwrap()
    }

    /// The crossover table of the hand-made case: A is first above its untrained encoder
    /// at 128 graphs (at 64 its raw p < 0.05 does not survive Holm over the table's six
    /// comparisons), B never is ("not reached up to 188 (all)", its whole-set raw p < 0.05
    /// as well).
    #[test]
    fn crossover_table_of_a_hand_made_case() {
        let r = Report::build(rows(), Metric::Accuracy).unwrap();
        let c = &r.pretrain;
        assert_eq!(c.curves.len(), 2);
        for curve in &c.curves {
            assert_eq!(curve.kind, CurveKind::PresetEpochs);
            assert_eq!(curve.key.variant, "");
            let labels: Vec<String> = curve.points.iter().map(SizePoint::label).collect();
            assert_eq!(labels, ["64", "128", "188 (all)"]);
            assert_eq!(curve.points[2].size, Some(WHOLE));
            assert_eq!(curve.points[0].group.variant, "pretrain.graphs=64");
            assert_eq!(
                curve.untrained.as_ref().unwrap().method,
                untrained(&curve.key.method)
            );
        }
        // The raw p-values: each point's paired t-test against the untrained encoder.
        let tests: Vec<&FloorTest> = c
            .curves
            .iter()
            .flat_map(|x| x.points.iter())
            .map(|p| p.against(&untrained(&p.group.method)).unwrap())
            .collect();
        assert_eq!(tests.len(), 6);
        let raw: Vec<f64> = tests.iter().map(|t| t.p.unwrap()).collect();
        // Independently of statrs: p = 1 − 2∫₀^|t| f(x; 9) dx by Simpson's rule (200 000
        // panels), in a few lines of Python.
        assert!((raw[0] - 0.019815268173580924).abs() < 1e-6, "{raw:?}");
        assert!((raw[4] - 0.13045069058222658).abs() < 1e-6, "{raw:?}");
        assert!((raw[5] - 0.02686408686996644).abs() < 1e-6, "{raw:?}");
        assert!(raw[1] < 1e-9 && raw[2] < 1e-9, "{raw:?}");
        assert!(raw[3] > 0.99, "{raw:?}");
        let holm = holm_by_hand(&raw);
        for (t, h) in tests.iter().zip(&holm) {
            assert!(
                (t.p_holm.unwrap() - h).abs() < 1e-12,
                "{:?} vs {h}",
                t.p_holm
            );
        }
        // Holm matters: raw p < 0.05 at A's 64 and B's whole set, Holm p > 0.05.
        assert!(raw[0] < 0.05 && holm[0] > 0.05 && !tests[0].above());
        assert!(raw[5] < 0.05 && holm[5] > 0.05 && !tests[5].above());
        assert!((holm[0] - 4.0 * raw[0]).abs() < 1e-12);
        assert!(tests[1].above() && tests[2].above());
        let a = crossover(c, A, &untrained(A));
        assert_eq!(a.reached.as_deref(), Some("128"));
        assert_eq!(a.text(), "128");
        assert_eq!(a.sizes, 3);
        assert!((a.mean_diff.unwrap() - 3.02).abs() < 1e-9);
        assert_eq!(a.p_holm, tests[1].p_holm);
        let b = crossover(c, B, &untrained(B));
        assert_eq!(b.reached, None);
        assert_eq!(b.text(), "not reached up to 188 (all)");
        assert_eq!(b.kind, FloorKind::Untrained);
        // Against WL: unpaired (Welch), Holm over the six WL comparisons.
        let welch: Vec<f64> = c
            .curves
            .iter()
            .flat_map(|x| x.points.iter())
            .map(|p| {
                let g = r.groups.iter().find(|g| g.key == p.group).unwrap();
                let a: Vec<f64> = g.by_seed.values().copied().collect();
                inference::welch(&a, &WL).unwrap().p.unwrap()
            })
            .collect();
        let welch_holm = holm_by_hand(&welch);
        let got: Vec<f64> = c
            .curves
            .iter()
            .flat_map(|x| x.points.iter())
            .map(|p| p.against(wl()).unwrap().p_holm.unwrap())
            .collect();
        for (g, w) in got.iter().zip(&welch_holm) {
            assert!((g - w).abs() < 1e-12, "{got:?} vs {welch_holm:?}");
        }
        let a = crossover(c, A, wl());
        assert_eq!(a.kind, FloorKind::Classical);
        // A at 64 lies under WL's mean (70.95 vs 72.0), at 128 above it (73.21).
        assert!(c.curves[0].points[0].against(wl()).unwrap().mean_diff < 0.0);
        assert_eq!(a.reached.as_deref(), Some("128"), "{welch_holm:?}");
        assert_eq!(crossover(c, B, wl()).text(), "not reached up to 188 (all)");
        // Bands: each method's untrained encoder, then WL.
        let bands: Vec<String> = c.bands.iter().map(|b| b.method.clone()).collect();
        assert_eq!(bands, [untrained(A), untrained(B), wl().to_string()]);
        // The markdown section: the points and the crossover table.
        let md = crate::render::markdown(&r);
        assert!(md.contains("## Pre-training size"), "{md}");
        assert!(md.contains("| MUTAG | toy-a | none | preset epochs | 128 | 10 | 73.21 |"));
        assert!(md.contains(
            "| MUTAG | toy-b | none | preset epochs | toy-b, untrained | untrained | 3 | not reached up to 188 (all) | – | – |"
        ), "{md}");
        // Pre-training subsets are not epoch counts: no training curve holds them.
        assert!(r
            .curves
            .curves
            .iter()
            .flat_map(|x| x.points.iter())
            .all(|p| !p.group.variant.contains("pretrain")));
    }

    /// The matched-steps rows carry the same grid label as the preset-epochs rows (the
    /// sweep sets `match_steps` as an override): their config tells them apart, so they
    /// form a curve of their own instead of a mixed-configuration error; the whole-set
    /// rows belong to both curves, and their comparison counts once in Holm's family.
    #[test]
    fn matched_steps_form_their_own_curve_sharing_the_whole_set() {
        let mut input = rows();
        let matched = [(64, 1.0), (128, 4.0)];
        for (g, d) in matched {
            for s in 0..10 {
                input.push(row(A, Some(g), true, s as u64, U[s] + d + NOISE[s]));
            }
        }
        let r = Report::build(input, Metric::Accuracy).unwrap();
        let c = &r.pretrain;
        let kinds: Vec<(&str, CurveKind)> = c
            .curves
            .iter()
            .map(|x| (x.key.method.as_str(), x.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                (A, CurveKind::PresetEpochs),
                (A, CurveKind::MatchedSteps),
                (B, CurveKind::PresetEpochs)
            ]
        );
        let m = &c.curves[1];
        assert_eq!(m.label(), "toy-a (matched steps)");
        assert_eq!(
            m.points[0].group.variant,
            "pretrain.graphs=64 pretrain.match_steps=true"
        );
        let labels: Vec<String> = m.points.iter().map(SizePoint::label).collect();
        assert_eq!(labels, ["64", "128", "188 (all)"]);
        assert_eq!(m.points[2].group, c.curves[0].points[2].group);
        // 8 distinct comparisons with the untrained encoder (3 + 2 + 3), not 9: the
        // smallest p (A on the whole set) is multiplied by 8.
        let whole = m.points[2].against(&untrained(A)).unwrap();
        assert!((whole.p_holm.unwrap() - 8.0 * whole.p.unwrap()).abs() < 1e-15);
        assert_eq!(c.curves[0].points[2].against(&untrained(A)), Some(whole));
        assert_eq!(
            crossover_of(c, CurveKind::MatchedSteps).reached.as_deref(),
            Some("64")
        );
    }

    fn crossover_of(c: &PretrainCurves, kind: CurveKind) -> &Crossover {
        c.crossovers
            .iter()
            .find(|x| x.curve == kind && x.kind == FloorKind::Untrained)
            .unwrap()
    }

    /// Without a pre-training subset in the rows the report is as before: no section, no
    /// JSON key, no plot.
    #[test]
    fn no_subsets_no_section() {
        let input: Vec<ResultRow> = rows()
            .into_iter()
            .filter(|r| !r.config.contains(SECTION))
            .collect();
        let r = Report::build(input, Metric::Accuracy).unwrap();
        assert!(r.pretrain.is_empty());
        assert!(!crate::render::markdown(&r).contains("Pre-training size"));
        assert!(!crate::render::json(&r).unwrap().contains("\"pretrain\""));
        assert!(crate::plot::pretrain_sizes(&r).unwrap().is_none());
    }

    #[test]
    fn settings_and_variant_labels() {
        let cfg: Value = serde_json::from_str(r#"{"pretrain":{"graphs":256}}"#).unwrap();
        assert_eq!(
            setting(&cfg),
            Some(Setting {
                graphs: 256,
                match_steps: false
            })
        );
        for text in [r#"{}"#, r#"{"pretrain":null}"#, r#"{"pretrain":{}}"#] {
            assert_eq!(
                setting(&serde_json::from_str(text).unwrap()),
                None,
                "{text}"
            );
        }
        let s = Setting {
            graphs: 64,
            match_steps: true,
        };
        assert_eq!(
            variant_with_setting("ma.pi=0.5 pretrain.graphs=64", Some(s)),
            "ma.pi=0.5 pretrain.graphs=64 pretrain.match_steps=true"
        );
        assert_eq!(variant_with_setting("", None), "");
        assert_eq!(
            variant_without_setting("pretrain.graphs=64 ma.pi=0.5"),
            "ma.pi=0.5"
        );
        assert_eq!(variant_without_setting("pretraining=3"), "pretraining=3");
        assert_eq!(whole_set_size(DATASET), Some(WHOLE));
        assert_eq!(whole_set_size("Cora"), None);
    }

    /// The plot: a panel per dataset, one polyline per curve (in its colour, drawn once
    /// in the panel and once in the legend), the floors as bands, sizes on the x axis;
    /// a whole-set point of accuracy near 100 keeps the y axis at or below 100.
    #[test]
    fn size_plot_has_a_line_per_curve_and_an_axis_capped_at_100() {
        let mut input = rows();
        for (g, d) in [(64, 1.0), (128, 4.0)] {
            for s in 0..10 {
                input.push(row(A, Some(g), true, s as u64, U[s] + d + NOISE[s]));
            }
        }
        let r = Report::build(input, Metric::Accuracy).unwrap();
        let svg = crate::plot::pretrain_sizes(&r).unwrap().unwrap();
        let text = |s: &str| format!(">\n{s}\n</text>");
        assert!(svg.starts_with("<svg"));
        assert_eq!(svg.matches(&text(DATASET)).count(), 1);
        for label in ["64", "128", "188 (all)"] {
            assert_eq!(svg.matches(&text(label)).count(), 1, "{label}");
        }
        assert!(svg.contains("log2 axis"));
        for label in ["toy-a", "toy-a (matched steps)", "toy-b"] {
            assert!(svg.contains(&text(label)), "{label}");
        }
        assert!(svg.contains(&text("WL subtree kernel (floor: 95% CI of its mean)")));
        assert!(svg.contains(&text("toy-a, untrained (floor: 95% CI of its mean)")));
        // Solid polylines at full opacity are the curves and their legend samples only.
        let solid: Vec<&str> = svg
            .split("<polyline")
            .skip(1)
            .filter(|p| p.contains(r#"opacity="1""#) && p.contains(r#"stroke-width="2""#))
            .collect();
        assert_eq!(solid.len(), 2 * r.pretrain.curves.len(), "{svg}");
        // The y range of data reaching past 100 stops at 100.
        let (y0, y1) =
            crate::plot::bounded_y_range(&[97.0, 99.5, 101.2], Metric::Accuracy).unwrap();
        assert_eq!(y1, 100.0);
        assert!(y0 < 97.0);
        let png = crate::raster::svg_to_png(&svg, 1.0).unwrap();
        assert_eq!(&png.bytes[..8], b"\x89PNG\r\n\x1a\n");
        // Drawn: accuracies near 100 whose intervals reach past it; the y axis's tick
        // labels (the numbers with a decimal point) stop at 100.
        let high: Vec<ResultRow> = (0..4u64)
            .flat_map(|s| {
                let x = [0.0, 0.9, 0.2, 0.8][s as usize];
                [
                    row(A, Some(64), false, s, 97.0 + x),
                    row(A, None, false, s, 99.0 + x),
                    row(&untrained(A), None, false, s, 90.0 + x),
                ]
            })
            .collect();
        let r = Report::build(high, Metric::Accuracy).unwrap();
        let hi = r.pretrain.curves[0].points[1].ci95.unwrap().1;
        assert!(hi > 100.0, "{hi}");
        let svg = crate::plot::pretrain_sizes(&r).unwrap().unwrap();
        let ticks: Vec<f64> = svg
            .split("</text>")
            .filter_map(|t| t.rsplit('>').next())
            .map(str::trim)
            .filter(|t| t.contains('.'))
            .filter_map(|t| t.parse().ok())
            .collect();
        assert!(ticks.len() >= 3, "{ticks:?}");
        assert!(ticks.iter().all(|t| *t <= 100.0), "{ticks:?}");
    }
}
