//! Training curves: a method's accuracy against its number of training epochs, with the
//! classical floors as bands (issue #26, item 2).
//!
//! Which groups form which curve point ([`build`]):
//! - A **curve** is one (dataset, method, evaluator, split, MA label, variant without its
//!   `epochs=N` key). Its points are the method's groups at each epoch count, the epoch
//!   count being the group's configured `epochs` (the run config's `epochs`, else the
//!   row's `epochs` column). The grid label `epochs=N` is dropped from the variant, so
//!   the cells of a grid over `epochs` and the cells without a grid (e.g. the 20-epoch
//!   cells of `benchmarks/training_curves.toml`) fall on one curve.
//! - **Epoch 0** is the method's untrained encoder ([`floor::UNTRAINED`]: `untrained-adgcl`
//!   is epoch 0 of `adgcl` and of `adgcl-fixed`) with the *same* MA label, the same
//!   evaluator, split and (node level) preset, and the same remaining variant, else the
//!   one without a variant. Unlike the floor lines, an MA curve does not fall back to
//!   the untrained encoder without MA: MA changes the evaluation encoder, so that would
//!   be another encoder's point; such a curve starts at its first trained epoch count.
//! - A curve needs two or more distinct epoch counts; the report has curve data when at
//!   least one curve does. If two groups fall on one point (say a grid cell `epochs=20`
//!   beside cells configured with 20 epochs and no grid), the first in report order is
//!   used.
//! - Each point is the group's summary over its seeds: mean and 95% Student-t interval
//!   (the report's [`crate::stats`]). Points of one curve are not paired: epoch counts
//!   may have different seeds.
//! - **Floor bands**, per dataset (and split) with curves: the classical floors
//!   ([`floor::GRAPH_CLASSICAL`] at graph level — WL, then the degree histogram —,
//!   [`floor::NODE_CLASSICAL`] at node level) without MA, found as the floor lines find
//!   them (same evaluator as the dataset's first curve where run with it, no variant
//!   preferred); a band is the 95% t-interval of the floor's mean.
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;

use super::floor::{self, family, is_baseline, is_node_method, untrained_of};
use super::format::{fmt_ci, fmt_num, method_label};
use super::{dataset_sort_key, group_sort_key, Group, GroupKey, Metric, MIN_SEEDS};

/// The grid key that sets the number of training epochs.
pub const EPOCHS_KEY: &str = "epochs";

/// One point of a curve: a group's summary at one epoch count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CurvePoint {
    pub epochs: usize,
    /// The group the point summarises (the untrained encoder's at epoch 0).
    pub group: GroupKey,
    pub untrained: bool,
    pub n: usize,
    pub mean: f64,
    pub std: Option<f64>,
    pub ci95: Option<(f64, f64)>,
}

/// One training curve: a method with one MA label on one dataset; points sorted by epoch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curve {
    /// The method's group key at its first trained point, with the `epochs` key dropped
    /// from the variant.
    pub key: GroupKey,
    pub points: Vec<CurvePoint>,
}

impl Curve {
    /// `GraphCL`, `GraphCL +MA (ARS code)`, with the remaining variant in brackets.
    pub fn label(&self) -> String {
        let mut s = method_label(&self.key);
        if self.key.ma != "none" {
            s.push_str(&format!(" +MA ({})", self.key.ma));
        }
        if !self.key.variant.is_empty() {
            s.push_str(&format!(" [{}]", self.key.variant));
        }
        s
    }
}

/// A classical floor drawn as a horizontal band: the 95% interval of its mean.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FloorBand {
    pub dataset: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub split: String,
    /// `wl`, `degree` or `features`.
    pub method: String,
    pub evaluator: String,
    pub n: usize,
    pub mean: f64,
    pub ci95: Option<(f64, f64)>,
}

/// The curves of a report and the floor bands of their datasets.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Curves {
    pub curves: Vec<Curve>,
    pub bands: Vec<FloorBand>,
}

impl Curves {
    /// No curve: the report has no curve data.
    pub fn is_empty(&self) -> bool {
        self.curves.is_empty()
    }

    /// Panels of the plot, in table order: (dataset, split).
    pub fn panels(&self) -> Vec<(String, String)> {
        let mut p: Vec<(String, String)> = self
            .curves
            .iter()
            .map(|c| (c.key.dataset.clone(), c.key.split.clone()))
            .collect();
        p.sort_by_key(|(d, s)| (dataset_sort_key(d), s.clone()));
        p.dedup();
        p
    }

    /// The distinct epoch counts of all curves, ascending (the plot's x categories).
    pub fn epoch_counts(&self) -> Vec<usize> {
        let mut e: Vec<usize> = self
            .curves
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.epochs))
            .collect();
        e.sort_unstable();
        e.dedup();
        e
    }
}

/// A variant label without its `epochs=N` key (the other keys in their order).
pub fn variant_without_epochs(variant: &str) -> String {
    variant
        .split(' ')
        .filter(|t| !t.is_empty())
        .filter(|t| t.split_once('=').map(|(k, _)| k) != Some(EPOCHS_KEY))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The curves of `groups`; `epochs` gives each trained group's configured epoch count
/// (groups missing from it are left out). See the module's notes for the rules.
pub fn build(groups: &[Group], epochs: &HashMap<GroupKey, usize>) -> Curves {
    let by_key: HashMap<&GroupKey, &Group> = groups.iter().map(|g| (&g.key, g)).collect();
    // Curve key → epoch count → group (the first in report order).
    let mut trained: BTreeMap<GroupKey, BTreeMap<usize, &Group>> = BTreeMap::new();
    for g in groups.iter().filter(|g| !is_baseline(&g.key.method)) {
        let Some(&e) = epochs.get(&g.key) else {
            continue;
        };
        let key = GroupKey {
            variant: variant_without_epochs(&g.key.variant),
            ..g.key.clone()
        };
        trained.entry(key).or_default().entry(e).or_insert(g);
    }
    let mut curves = Vec::new();
    for (key, by_epoch) in trained {
        let mut points: BTreeMap<usize, (&Group, bool)> =
            by_epoch.into_iter().map(|(e, g)| (e, (g, false))).collect();
        if let Some(u) = untrained_under(&by_key, &key) {
            points.entry(0).or_insert((u, true));
        }
        if points.len() < 2 {
            continue;
        }
        curves.push(Curve {
            key,
            points: points
                .into_iter()
                .map(|(e, (g, untrained))| CurvePoint {
                    epochs: e,
                    group: g.key.clone(),
                    untrained,
                    n: g.summary.n,
                    mean: g.summary.mean,
                    std: g.summary.std,
                    ci95: g.summary.ci95,
                })
                .collect(),
        });
    }
    curves.sort_by_key(|c| group_sort_key(&c.key));
    let mut c = Curves {
        curves,
        bands: Vec::new(),
    };
    for (dataset, split) in c.panels() {
        let first = c
            .curves
            .iter()
            .find(|x| x.key.dataset == dataset && x.key.split == split)
            .map(|x| x.key.clone())
            .expect("a panel has a curve");
        let names = if is_node_method(&first.method) {
            floor::NODE_CLASSICAL
        } else {
            floor::GRAPH_CLASSICAL
        };
        for name in names {
            if let Some(f) = floor::find_classical(groups, &first, name) {
                c.bands.push(FloorBand {
                    dataset: dataset.clone(),
                    split: split.clone(),
                    method: family(&f.key.method).to_string(),
                    evaluator: f.key.evaluator.clone(),
                    n: f.summary.n,
                    mean: f.summary.mean,
                    ci95: f.summary.ci95,
                });
            }
        }
    }
    c
}

/// The untrained group that is epoch 0 of curve `k`: same dataset, evaluator, split and
/// MA label; the same preset (node level), else none recorded; the same variant, else
/// none.
fn untrained_under<'a>(by_key: &HashMap<&GroupKey, &'a Group>, k: &GroupKey) -> Option<&'a Group> {
    let u = untrained_of(&k.method)?;
    let mut methods = Vec::new();
    if let Some((_, preset)) = k.method.split_once(':') {
        methods.push(format!("{u}:{preset}"));
    }
    methods.push(u.to_string());
    let mut variants = vec![k.variant.as_str()];
    if !k.variant.is_empty() {
        variants.push("");
    }
    for m in &methods {
        for v in &variants {
            let key = GroupKey {
                method: m.clone(),
                variant: v.to_string(),
                ..k.clone()
            };
            if let Some(g) = by_key.get(&key) {
                return Some(g);
            }
        }
    }
    None
}

/// The floor's name in the plot's legend and the table.
pub fn band_label(method: &str) -> String {
    match method {
        "wl" => "WL subtree kernel".into(),
        "degree" => "Degree histogram".into(),
        "features" => "Raw features".into(),
        other => other.into(),
    }
}

/// The markdown section "Training curves" (empty without curves).
pub fn markdown(c: &Curves, metric: Metric) -> String {
    if c.is_empty() {
        return String::new();
    }
    let d = metric.decimals();
    let mut s = String::new();
    let _ = write!(
        s,
        "## Training curves\n\n\
         Mean {} over seeds after each number of training epochs, with its 95% t-interval. \
         Epoch 0 is the method's untrained encoder with the same MA label (`untrained-adgcl` \
         for AD-GCL with either augmenter); an MA curve without its untrained rows starts at \
         its first trained epoch count. Points of one curve are separate runs, not paired. \
         † marks fewer than {MIN_SEEDS} seeds.\n\n\
         | dataset | method | MA | epochs | n | mean | 95% CI |\n\
         |---|---|---|--:|--:|--:|---|\n",
        metric.as_str()
    );
    for curve in &c.curves {
        let mut method = method_label(&curve.key);
        if !curve.key.variant.is_empty() {
            method.push_str(&format!(" [{}]", curve.key.variant));
        }
        for p in &curve.points {
            let epochs = if p.untrained {
                "0 (untrained)".to_string()
            } else {
                p.epochs.to_string()
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {}{} | {} | {} |",
                curve.key.dataset,
                method,
                curve.key.ma,
                epochs,
                p.n,
                if p.n < MIN_SEEDS { " †" } else { "" },
                fmt_num(p.mean, d),
                fmt_ci(p.ci95, d)
            );
        }
    }
    s.push('\n');
    if !c.bands.is_empty() {
        let _ = write!(
            s,
            "Floor bands of the plot (no training epochs; the band is the 95% t-interval of the mean):\n\n\
             | dataset | floor | evaluator | n | mean | 95% CI |\n\
             |---|---|---|--:|--:|---|\n"
        );
        for b in &c.bands {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                b.dataset,
                band_label(&b.method),
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

/// The epoch count of a row's configuration: `epochs` of its config JSON, else the row's
/// `epochs` column.
pub fn configured_epochs(config: &serde_json::Value, column: usize) -> usize {
    config["epochs"]
        .as_u64()
        .map(|e| e as usize)
        .unwrap_or(column)
}
