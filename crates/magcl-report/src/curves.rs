//! Training curves: a method's accuracy against its number of training epochs, with the
//! classical floors as bands.
//!
//! Which groups form which curve point ([`build`]):
//! - A **curve** is one (dataset, method, evaluator, split, MA label, variant without its
//!   `epochs=N` key). Its points are the method's groups at each epoch count, the epoch
//!   count being the group's configured `epochs` (the run config's `epochs`, else the
//!   row's `epochs` column). The grid label `epochs=N` is dropped from the variant, so
//!   the cells of a grid over `epochs` and the cells without a grid (e.g. the 20-epoch
//!   cells of `configs/training_curves.toml`) fall on one curve.
//! - **Epoch 0** is the method's untrained encoder ([`floor::untrained_of`]: `untrained-adgcl`
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
//!   ([`floor::classical_names`]: WL, then the degree histogram, at graph level,
//!   raw features at node level) without MA, found as the floor lines find
//!   them (same evaluator as the dataset's first curve where run with it, no variant
//!   preferred); a band is the 95% t-interval of the floor's mean.
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;

use super::floor::{self, family, is_baseline, is_node, untrained_of};
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
        panels_of(self.curves.iter().map(|c| &c.key))
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
        for name in floor::classical_names(is_node(&first)) {
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

/// The floor's name in the plot's legend and the table: its declared display name.
pub fn band_label(method: &str) -> String {
    magcl_config::registry::row_method(method)
        .display()
        .map_or_else(|| method.to_string(), str::to_string)
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

/// The distinct (dataset, split) pairs of some curves' keys, in table order: the panels
/// of a plot with one panel per dataset (and split).
pub(crate) fn panels_of<'a>(keys: impl Iterator<Item = &'a GroupKey>) -> Vec<(String, String)> {
    let mut p: Vec<(String, String)> = keys.map(|k| (k.dataset.clone(), k.split.clone())).collect();
    p.sort_by_key(|(d, s)| (dataset_sort_key(d), s.clone()));
    p.dedup();
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ResultRow;
    use crate::Report;

    /// A row of `method` with MA label `ma` at `epochs` epochs (grid label `epochs=N`
    /// unless `grid` is false, as the 20-epoch cells of the sweep have none).
    fn row(
        dataset: &str,
        method: &str,
        ma: &str,
        epochs: usize,
        grid: bool,
        seed: u64,
        acc: f64,
    ) -> ResultRow {
        ResultRow {
            dataset: dataset.into(),
            method: method.into(),
            ma: ma.into(),
            variant: if grid {
                format!("epochs={epochs}")
            } else {
                String::new()
            },
            evaluator: "svc-rbf".into(),
            config_hash: format!("{dataset}-{method}-{ma}-{epochs}-{grid}-{seed}"),
            accuracy: acc,
            epochs,
            config: format!(
                r#"{{"method":"{method}","dataset":"{dataset}","ma":"{ma}","epochs":{epochs},"seed":{seed}}}"#
            ),
            ..crate::results::tests::row(seed)
        }
    }

    /// Three seeds of a cell with the given accuracies.
    fn cell(
        out: &mut Vec<ResultRow>,
        (dataset, method, ma): (&str, &str, &str),
        epochs: usize,
        grid: bool,
        accs: [f64; 3],
    ) {
        for (s, a) in accs.into_iter().enumerate() {
            out.push(row(dataset, method, ma, epochs, grid, s as u64, a));
        }
    }

    /// t(0.975, 2), in closed form: (2p − 1)/√(2p(1 − p)) with p = 0.975.
    fn t975_df2() -> f64 {
        0.95 / (2.0f64 * 0.975 * 0.025).sqrt()
    }

    fn rows() -> Vec<ResultRow> {
        let mut r = Vec::new();
        let gcl = ("MUTAG", "graphcl", "none");
        let gcl_ma = ("MUTAG", "graphcl", "ARS code");
        // GraphCL without MA: 20 epochs (no grid label) written before 5 and 1 (grid).
        cell(&mut r, gcl, 20, false, [88.0, 89.0, 90.0]);
        cell(&mut r, gcl, 5, true, [86.0, 87.0, 88.0]);
        cell(&mut r, gcl, 1, true, [84.0, 85.0, 86.0]);
        // GraphCL +MA at 5 epochs only; its untrained encoder under MA is its epoch 0.
        cell(&mut r, gcl_ma, 5, true, [87.0, 88.0, 89.0]);
        cell(
            &mut r,
            ("MUTAG", "untrained-graphcl", "none"),
            20,
            false,
            [80.0, 81.0, 82.0],
        );
        cell(
            &mut r,
            ("MUTAG", "untrained-graphcl", "ARS code"),
            20,
            false,
            [82.0, 83.0, 84.0],
        );
        // SimGRACE +MA at 1 and 20 epochs, with an untrained encoder without MA only:
        // no epoch 0 (no fallback to the untrained encoder without MA).
        let sg_ma = ("MUTAG", "simgrace", "ARS code");
        cell(&mut r, sg_ma, 1, true, [70.0, 71.0, 72.0]);
        cell(&mut r, sg_ma, 20, false, [75.0, 76.0, 77.0]);
        cell(
            &mut r,
            ("MUTAG", "untrained-simgrace", "none"),
            20,
            false,
            [60.0, 61.0, 62.0],
        );
        // AD-GCL with the fixed augmenter at 20 epochs: epoch 0 from untrained-adgcl.
        cell(
            &mut r,
            ("PROTEINS", "adgcl-fixed", "none"),
            20,
            false,
            [74.0, 75.0, 76.0],
        );
        cell(
            &mut r,
            ("PROTEINS", "untrained-adgcl", "none"),
            20,
            false,
            [73.0, 73.5, 74.0],
        );
        // A method at one epoch count without untrained rows: no curve.
        cell(
            &mut r,
            ("PROTEINS", "graphcl", "none"),
            20,
            false,
            [1.0, 2.0, 3.0],
        );
        // The classical floors of MUTAG (and WL of PROTEINS).
        cell(
            &mut r,
            ("MUTAG", "wl", "none"),
            20,
            false,
            [85.0, 86.0, 88.0],
        );
        cell(
            &mut r,
            ("MUTAG", "degree", "none"),
            20,
            false,
            [70.0, 70.0, 73.0],
        );
        cell(
            &mut r,
            ("PROTEINS", "wl", "none"),
            20,
            false,
            [76.0, 76.0, 76.0],
        );
        r
    }

    fn points(c: &Curve) -> Vec<(usize, bool, f64, usize)> {
        c.points
            .iter()
            .map(|p| (p.epochs, p.untrained, p.mean, p.n))
            .collect()
    }

    #[test]
    fn curves_group_epochs_and_take_epoch_0_from_the_untrained_encoder() {
        let r = Report::build(rows(), Metric::Accuracy).unwrap();
        let c = &r.curves;
        let labels: Vec<(String, String, String)> = c
            .curves
            .iter()
            .map(|x| {
                (
                    x.key.dataset.clone(),
                    x.key.method.clone(),
                    x.key.ma.clone(),
                )
            })
            .collect();
        let l = |d: &str, m: &str, ma: &str| (d.to_string(), m.to_string(), ma.to_string());
        assert_eq!(
            labels,
            vec![
                l("MUTAG", "graphcl", "none"),
                l("MUTAG", "graphcl", "ARS code"),
                l("MUTAG", "simgrace", "ARS code"),
                l("PROTEINS", "adgcl-fixed", "none"),
            ]
        );
        // Sorted by epoch; the grid cells (`epochs=5`) and the cells without a grid (20
        // epochs) on one curve, whose key has no variant; epoch 0 = the untrained encoder
        // with the same MA label.
        assert_eq!(
            points(&c.curves[0]),
            vec![
                (0, true, 81.0, 3),
                (1, false, 85.0, 3),
                (5, false, 87.0, 3),
                (20, false, 89.0, 3)
            ]
        );
        assert_eq!(c.curves[0].key.variant, "");
        assert_eq!(c.curves[0].points[0].group.method, "untrained-graphcl");
        assert_eq!(c.curves[0].points[2].group.variant, "epochs=5");
        assert_eq!(
            points(&c.curves[1]),
            vec![(0, true, 83.0, 3), (5, false, 88.0, 3)]
        );
        assert_eq!(c.curves[1].points[0].group.ma, "ARS code");
        // No untrained SimGRACE under MA: the curve starts at its first trained epoch.
        assert_eq!(
            points(&c.curves[2]),
            vec![(1, false, 71.0, 3), (20, false, 76.0, 3)]
        );
        // untrained-adgcl is epoch 0 of adgcl-fixed.
        assert_eq!(
            points(&c.curves[3]),
            vec![(0, true, 73.5, 3), (20, false, 75.0, 3)]
        );
        assert_eq!(c.curves[3].points[0].group.method, "untrained-adgcl");
        // Each point's interval is its group's 95% t-interval: 1, 2, 3 around the mean.
        let half = t975_df2() * 1.0 / 3f64.sqrt();
        let (lo, hi) = c.curves[0].points[1].ci95.unwrap();
        assert!((lo - (85.0 - half)).abs() < 1e-9 && (hi - (85.0 + half)).abs() < 1e-9);
        assert_eq!(c.epoch_counts(), vec![0, 1, 5, 20]);
        assert_eq!(
            c.panels(),
            vec![
                ("MUTAG".to_string(), String::new()),
                ("PROTEINS".to_string(), String::new())
            ]
        );
    }

    /// WL 85, 86, 88: mean 259/3, std √(7/3), 95% band mean ± t(0.975, 2)·√(7/3)/√3.
    #[test]
    fn floor_bands_are_the_95_percent_interval_of_the_floors_mean() {
        let r = Report::build(rows(), Metric::Accuracy).unwrap();
        let b = &r.curves.bands;
        let names: Vec<(&str, &str)> = b
            .iter()
            .map(|x| (x.dataset.as_str(), x.method.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![("MUTAG", "wl"), ("MUTAG", "degree"), ("PROTEINS", "wl")]
        );
        let mean = 259.0 / 3.0;
        let half = t975_df2() * (7.0f64 / 3.0).sqrt() / 3f64.sqrt();
        assert!((b[0].mean - mean).abs() < 1e-12);
        let (lo, hi) = b[0].ci95.unwrap();
        assert!((lo - (mean - half)).abs() < 1e-9, "{lo}");
        assert!((hi - (mean + half)).abs() < 1e-9, "{hi}");
        assert_eq!(b[0].n, 3);
        // Degree 70, 70, 73: mean 71, std √3.
        let (lo, hi) = b[1].ci95.unwrap();
        let half = t975_df2() * 3f64.sqrt() / 3f64.sqrt();
        assert!((b[1].mean - 71.0).abs() < 1e-12);
        assert!((lo - (71.0 - half)).abs() < 1e-9 && (hi - (71.0 + half)).abs() < 1e-9);
        // The markdown section lists the points and the bands.
        let md = crate::render::markdown(&r);
        assert!(md.contains("## Training curves"));
        assert!(md.contains("| MUTAG | GraphCL | ARS code | 0 (untrained) | 3 † | 83.00 |"));
        assert!(md.contains("| PROTEINS | AD-GCL (fixed augmenter) | none | 20 | 3 † | 75.00 |"));
        assert!(md.contains(&format!(
            "| MUTAG | WL subtree kernel | svc-rbf | 3 | 86.33 | [{:.2}, {:.2}] |",
            mean - t975_df2() * (7.0f64 / 3.0).sqrt() / 3f64.sqrt(),
            mean + t975_df2() * (7.0f64 / 3.0).sqrt() / 3f64.sqrt()
        )));
    }

    /// One epoch count per method and no untrained rows: no curves, and the report is as
    /// without this module (no section, no JSON key, no curve plot). A method with its
    /// untrained encoder is two epoch counts (0 and the method's).
    #[test]
    fn no_curve_data_leaves_the_report_as_it_was() {
        let mut rs = Vec::new();
        cell(
            &mut rs,
            ("MUTAG", "graphcl", "none"),
            20,
            false,
            [80.0, 81.0, 82.0],
        );
        cell(
            &mut rs,
            ("MUTAG", "graphcl", "ARS code"),
            20,
            false,
            [81.0, 82.0, 84.0],
        );
        cell(
            &mut rs,
            ("MUTAG", "wl", "none"),
            20,
            false,
            [85.0, 86.0, 88.0],
        );
        let r = Report::build(rs.clone(), Metric::Accuracy).unwrap();
        assert!(r.curves.is_empty() && r.curves.bands.is_empty());
        assert!(!crate::render::markdown(&r).contains("Training curves"));
        assert!(!crate::render::json(&r).unwrap().contains("\"curves\""));
        assert!(crate::plot::curves(&r).unwrap().is_none());
        cell(
            &mut rs,
            ("MUTAG", "untrained-graphcl", "none"),
            20,
            false,
            [79.0, 80.0, 80.0],
        );
        let r = Report::build(rs, Metric::Accuracy).unwrap();
        assert_eq!(r.curves.curves.len(), 1);
        assert!(crate::render::json(&r).unwrap().contains("\"curves\""));
    }

    /// Every number written as text in an SVG (tick labels, epoch counts).
    fn svg_numbers(svg: &str) -> Vec<f64> {
        svg.lines()
            .filter_map(|l| l.trim().parse::<f64>().ok())
            .collect()
    }

    /// Accuracy cannot pass 100%, so neither can an axis: with seeds at 100 and intervals
    /// reaching past it, the bar plot (whose legend wants room above the bars) and the
    /// curve plot stop at 100, and 100 is still on the axis.
    #[test]
    fn no_accuracy_axis_runs_past_100() {
        let mut r = Vec::new();
        cell(
            &mut r,
            ("synthetic", "graphcl", "none"),
            20,
            false,
            [96.0, 99.0, 100.0],
        );
        cell(
            &mut r,
            ("synthetic", "graphcl", "ARS code"),
            20,
            false,
            [93.0, 100.0, 100.0],
        );
        let untrained = ("synthetic", "untrained-graphcl", "none");
        cell(&mut r, untrained, 20, false, [90.0, 95.0, 100.0]);
        cell(
            &mut r,
            ("synthetic", "wl", "none"),
            20,
            false,
            [98.0, 100.0, 100.0],
        );
        let r = Report::build(r, Metric::Accuracy).unwrap();
        let bars = crate::plot::bars(&r).unwrap();
        let curves = crate::plot::curves(&r).unwrap().unwrap();
        for (name, svg) in [("bars", &bars), ("curves", &curves)] {
            let nums = svg_numbers(svg);
            let top = nums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            assert!(top <= 100.0, "{name}: the axis runs to {top}");
        }
        assert!(
            svg_numbers(&bars).contains(&100.0),
            "bars: 100 is on the axis"
        );
    }

    #[test]
    fn the_epochs_key_is_dropped_from_a_variant() {
        assert_eq!(variant_without_epochs("epochs=50"), "");
        assert_eq!(variant_without_epochs(""), "");
        assert_eq!(
            variant_without_epochs("ma.pi=0.5 epochs=5 ma.view1=[0,2]"),
            "ma.pi=0.5 ma.view1=[0,2]"
        );
        assert_eq!(variant_without_epochs("max_epochs=5"), "max_epochs=5");
    }

    /// The plot: one panel per dataset (its title once), a legend naming every curve and
    /// floor, an error bar per point.
    #[test]
    fn curve_plot_has_a_panel_per_dataset_and_a_legend() {
        let r = Report::build(rows(), Metric::Accuracy).unwrap();
        let svg = crate::plot::curves(&r).unwrap().unwrap();
        // plotters writes a text element's content on a line of its own.
        let text = |s: &str| format!(">\n{s}\n</text>");
        assert!(svg.starts_with("<svg"));
        for ds in ["MUTAG", "PROTEINS"] {
            assert_eq!(svg.matches(&text(ds)).count(), 1, "{ds}");
        }
        assert!(!svg.contains(&text("NCI1")));
        assert_eq!(
            svg.matches("training epochs (0 = untrained encoder")
                .count(),
            2,
            "one x axis per panel"
        );
        for label in [
            "GraphCL",
            "GraphCL +MA (ARS code)",
            "SimGRACE +MA (ARS code)",
            "AD-GCL (fixed augmenter)",
            "WL subtree kernel (floor: 95% CI of its mean)",
            "Degree histogram (floor: 95% CI of its mean)",
        ] {
            assert!(svg.contains(&text(label)), "missing {label}");
        }
        // Every epoch count labels the x axis of each panel.
        for e in ["0", "1", "5", "20"] {
            assert!(svg.matches(&text(e)).count() >= 2, "{e}");
        }
        // The PNG copy renders.
        let png = crate::raster::svg_to_png(&svg, 1.0).unwrap();
        assert_eq!(&png.bytes[..8], b"\x89PNG\r\n\x1a\n");
    }
}
