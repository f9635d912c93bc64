//! The floor under every number: each method's accuracy beside what no contrastive
//! training gives.
//!
//! Two floors per group of a GCL method (dataset × method × evaluator × split × MA
//! setting × variant):
//! - **untrained**: the encoder of the method's family at its seeded random
//!   initialisation, no gradient step, evaluated with the method's protocol ([`untrained_of`]
//!   says which untrained encoder stands under which method, as the declarations give it). Paired by seed: the same
//!   seed gives the same folds (graph level) or splits (node level). The untrained group
//!   with the same MA label is used where it exists (the untrained encoder under MA's
//!   evaluation-time schedule), else the one without MA; same evaluator and split; same
//!   variant, else the one without.
//! - **classical**: a floor that learns nothing from the graphs' structure by contrast —
//!   the WL subtree kernel and the degree histogram (graph level),
//!   raw node features (node level; [`classical_names`]). Its seeds are not the method's
//!   runs, so the gap is unpaired: Welch's t-test. Same dataset and split; the same
//!   evaluator where it was run with it, else the one that was.
//!
//! Each line has Δ = method − floor, its 95% interval, the minimum detectable effect at
//! 80% power (paired t-test for the untrained floor, Welch's test for the classical one)
//! and a p-value with Holm's correction over the lines of its kind in the report. With no
//! baseline rows in the input there are no lines and the report is as before.
use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::format::{fmt_ci, fmt_num, fmt_opt, fmt_p, method_label, method_name};
use super::{inference, pair, Group, GroupKey, Metric};
use crate::error::{Error, Result};
use crate::stats;
use magcl_config::{registry, Level};

/// The classical floors of the node level (`node`) or the graph level, in the order the
/// lines are shown: the declarations' order (magcl-config's registry; WL, then the degree
/// histogram, at graph level; raw features at node level).
pub fn classical_names(node: bool) -> Vec<&'static str> {
    let level = if node { Level::Node } else { Level::Graph };
    registry::classical_floors(level)
        .into_iter()
        .map(|d| d.name)
        .collect()
}

/// A method key without its node-level preset: `base:paper` → `base`.
pub fn family(method_key: &str) -> &str {
    method_key.split(':').next().unwrap_or(method_key)
}

/// Whether a method (key) is one of the floors rather than a GCL method: an untrained
/// encoder, or a method its declaration calls a floor.
pub fn is_baseline(method_key: &str) -> bool {
    registry::row_method(method_key).is_floor()
}

/// Whether a group is node-level: node-level rows record their evaluation split
/// (`node.split`), graph-level rows never do. Read from the rows, not from the method, so
/// a new node-level method needs nothing here; rows written before the split was recorded
/// exist only for methods whose declaration says so (`node_rows_without_split`).
pub fn is_node(key: &GroupKey) -> bool {
    !key.split.is_empty() || registry::row_method(&key.method).node_rows_without_split()
}

/// Whether the group key's method (key) keeps the node-level preset in its key
/// (`base:paper`, `untrained-base:code`): its encoder depends on the preset.
pub fn keyed_by_preset(method: &str) -> bool {
    registry::row_method(method).keyed_by_preset()
}

/// The untrained encoder under `method_key`'s family (`None` for a floor itself): rows
/// `untrained-<family>`, unless the declaration names another (AD-GCL's fixed augmenter
/// shares AD-GCL's encoder).
pub fn untrained_of(method_key: &str) -> Option<String> {
    registry::row_method(family(method_key)).untrained_floor()
}

/// Which floor a line measures against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FloorKind {
    /// The method's own encoder, untrained; paired by seed.
    Untrained,
    /// A classical baseline (WL, degree histogram, raw features); unpaired (Welch).
    Classical,
}

impl FloorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FloorKind::Untrained => "untrained",
            FloorKind::Classical => "classical",
        }
    }
}

/// One method group against one floor.
#[derive(Clone, Debug, Serialize)]
pub struct FloorLine {
    /// The method's group.
    #[serde(flatten)]
    pub key: GroupKey,
    pub kind: FloorKind,
    pub floor_method: String,
    pub floor_ma: String,
    pub floor_variant: String,
    pub floor_evaluator: String,
    /// Untrained floor: the method has an MA label but no untrained group has it, so the
    /// untrained encoder without MA stands in.
    pub floor_without_ma: bool,
    /// Paired: the pairs; unpaired: the method's seeds.
    pub n: usize,
    /// Unpaired: the floor's seeds; paired: the same as `n`.
    pub n_floor: usize,
    pub method_mean: f64,
    pub floor_mean: f64,
    /// Δ = method − floor.
    pub mean_diff: f64,
    pub ci95: Option<(f64, f64)>,
    pub mde: Option<f64>,
    /// Two-sided p of Δ = 0 (paired t-test, or Welch's test).
    pub p: Option<f64>,
    /// Holm over the lines of this kind in the report.
    pub p_holm: Option<f64>,
    /// The method's and the floor's rows ran on more than one kind of device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed_devices: Option<crate::MixedDevices>,
}

/// Level of the floor lines' reading.
pub const FLOOR_ALPHA: f64 = 0.05;

impl FloorLine {
    /// "above the floor" / "below the floor" (Holm p < 0.05) or "not distinguishable".
    pub fn reading(&self) -> &'static str {
        match self.p_holm {
            Some(p) if p < FLOOR_ALPHA && self.mean_diff > 0.0 => "above the floor",
            Some(p) if p < FLOOR_ALPHA && self.mean_diff < 0.0 => "below the floor",
            _ => "not distinguishable",
        }
    }

    /// The floor's name in tables: `GraphCL, untrained (ARS code)`, `WL subtree kernel`.
    pub fn floor_label(&self) -> String {
        let mut s = method_name(&self.floor_method);
        if self.floor_ma != "none" {
            s.push_str(&format!(" +MA ({})", self.floor_ma));
        }
        if !self.floor_variant.is_empty() {
            s.push_str(&format!(" [{}]", self.floor_variant));
        }
        if self.floor_evaluator != self.key.evaluator {
            s.push_str(&format!(", {}", self.floor_evaluator));
        }
        s
    }
}

/// The floor lines of `groups` (sorted as the groups are), with Holm's correction.
pub fn lines(groups: &[Group]) -> Vec<FloorLine> {
    let by_key: HashMap<&GroupKey, &Group> = groups.iter().map(|g| (&g.key, g)).collect();
    let mut out = Vec::new();
    for g in groups.iter().filter(|g| !is_baseline(&g.key.method)) {
        if let Some(u) = find_untrained(&by_key, &g.key) {
            out.extend(paired_line(g, u));
        }
        for name in classical_names(is_node(&g.key)) {
            if let Some(f) = find_classical(groups, &g.key, name) {
                out.extend(unpaired_line(g, f));
            }
        }
    }
    apply_holm(&mut out);
    out
}

/// The untrained group under `k`: same dataset, evaluator and split; the same MA label,
/// else none; the same preset (node level), else none recorded; the same variant, else
/// none.
pub(crate) fn find_untrained<'a>(
    by_key: &HashMap<&GroupKey, &'a Group>,
    k: &GroupKey,
) -> Option<&'a Group> {
    let u = untrained_of(&k.method)?;
    let mut methods = Vec::new();
    if let Some((_, preset)) = k.method.split_once(':') {
        methods.push(format!("{u}:{preset}"));
    }
    methods.push(u.to_string());
    let mut mas = vec![k.ma.as_str()];
    if k.ma != "none" {
        mas.push("none");
    }
    let mut variants = vec![k.variant.as_str()];
    if !k.variant.is_empty() {
        variants.push("");
    }
    for ma in &mas {
        for m in &methods {
            for v in &variants {
                let key = GroupKey {
                    dataset: k.dataset.clone(),
                    method: m.clone(),
                    evaluator: k.evaluator.clone(),
                    ma: ma.to_string(),
                    variant: v.to_string(),
                    split: k.split.clone(),
                };
                if let Some(g) = by_key.get(&key) {
                    return Some(g);
                }
            }
        }
    }
    None
}

/// The classical floor `name` for `k`: same dataset and split, without MA; the same
/// evaluator if it ran with it, and no variant, preferred.
pub(crate) fn find_classical<'a>(
    groups: &'a [Group],
    k: &GroupKey,
    name: &str,
) -> Option<&'a Group> {
    groups
        .iter()
        .filter(|f| {
            family(&f.key.method) == name
                && f.key.dataset == k.dataset
                && f.key.split == k.split
                && f.key.ma == "none"
        })
        .min_by_key(|f| (f.key.evaluator != k.evaluator, !f.key.variant.is_empty()))
}

fn paired_line(g: &Group, u: &Group) -> Option<FloorLine> {
    let c = pair(g, u)?;
    Some(FloorLine {
        key: g.key.clone(),
        kind: FloorKind::Untrained,
        floor_method: u.key.method.clone(),
        floor_ma: u.key.ma.clone(),
        floor_variant: u.key.variant.clone(),
        floor_evaluator: u.key.evaluator.clone(),
        floor_without_ma: g.key.ma != "none" && u.key.ma == "none",
        n: c.test.n,
        n_floor: c.test.n,
        // Δ of `pair` is its first argument minus its second: method − untrained.
        method_mean: c.ma_mean,
        floor_mean: c.baseline_mean,
        mean_diff: c.test.mean_diff,
        ci95: c.test.ci95_diff,
        mde: c.test.mde,
        p: c.test.t_test.as_ref().and_then(|t| t.p),
        p_holm: None,
        mixed_devices: c.mixed_devices,
    })
}

fn unpaired_line(g: &Group, f: &Group) -> Option<FloorLine> {
    let a: Vec<f64> = g.by_seed.values().copied().collect();
    let b: Vec<f64> = f.by_seed.values().copied().collect();
    let w = inference::welch(&a, &b)?;
    Some(FloorLine {
        key: g.key.clone(),
        kind: FloorKind::Classical,
        floor_method: f.key.method.clone(),
        floor_ma: f.key.ma.clone(),
        floor_variant: f.key.variant.clone(),
        floor_evaluator: f.key.evaluator.clone(),
        floor_without_ma: false,
        n: w.n_a,
        n_floor: w.n_b,
        method_mean: stats::mean(&a).unwrap_or(f64::NAN),
        floor_mean: stats::mean(&b).unwrap_or(f64::NAN),
        mean_diff: w.mean_diff,
        ci95: w.ci95,
        mde: w.mde,
        p: w.p,
        p_holm: None,
        mixed_devices: crate::MixedDevices::of(g, f),
    })
}

/// Holm over the lines of each kind.
fn apply_holm(lines: &mut [FloorLine]) {
    for kind in [FloorKind::Untrained, FloorKind::Classical] {
        let idx: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].kind == kind)
            .collect();
        let ps: Vec<Option<f64>> = idx.iter().map(|&i| lines[i].p).collect();
        for (j, adj) in stats::holm(&ps).into_iter().enumerate() {
            lines[idx[j]].p_holm = adj;
        }
    }
}

/// What the floor section says about its columns.
pub const FLOOR_NOTES: &str = "\
- **untrained**: the method's own encoder at its seeded random initialisation, no gradient step, evaluated with the method's protocol (each method → its own encoder untrained, `untrained-<method>`; AD-GCL with the fixed augmenter → untrained AD-GCL; the base model → the untrained base model of the same preset). Paired by seed (the same seed gives the same folds or splits): Δ is the mean of the per-seed differences with its Student-t interval and the paired MDE. A method with MA is set against the untrained encoder under the same MA label where that ran (MA's evaluation-time schedule), else against the untrained encoder without MA (marked \"without MA\").
- **classical**: WL subtree kernel and degree histogram (graph level), raw node features (node level), same dataset and split. Different runs, so unpaired: Welch's t-test, its interval mean ± t(0.975, df)·se with Welch–Satterthwaite df, and the MDE of Welch's test (noncentral t with that df) at 80% power.
- **Holm p**: Holm's correction over all lines of the same kind (untrained or classical) in this table. **reading**: above / below the floor when Holm p < 0.05, else not distinguishable.
";

/// The floor section of the markdown report; empty without lines.
pub fn markdown(lines: &[FloorLine], metric: Metric) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let d = metric.decimals();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Floor: gain over the untrained encoder and gap to classical baselines\n"
    );
    let _ = writeln!(
        s,
        "Δ = method − floor. Untrained: paired by seed; classical: unpaired (Welch). Holm's correction runs over the lines of each kind in this table.\n"
    );
    let _ = writeln!(
        s,
        "| dataset | method | evaluator | MA | variant | floor | kind | n | method mean | floor mean | Δ | Δ 95% CI | MDE (80%) | p | Holm p | reading |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---|---|---|---|--:|--:|--:|--:|---|--:|--:|--:|---|"
    );
    for l in lines {
        let k = &l.key;
        let n = match l.kind {
            FloorKind::Untrained => l.n.to_string(),
            FloorKind::Classical => format!("{} / {}", l.n, l.n_floor),
        };
        let mut floor = l.floor_label();
        if l.floor_without_ma {
            floor.push_str(" (without MA)");
        }
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            k.dataset,
            method_label(k),
            k.evaluator,
            k.ma,
            k.variant,
            floor.replace('|', "\\|"),
            l.kind.as_str(),
            n,
            fmt_num(l.method_mean, d),
            fmt_num(l.floor_mean, d),
            super::claims::signed(l.mean_diff, d),
            fmt_ci(l.ci95, d),
            fmt_opt(l.mde, d),
            fmt_p(l.p),
            fmt_p(l.p_holm),
            l.reading()
        );
    }
    s.push('\n');
    s.push_str(FLOOR_NOTES);
    s.push('\n');
    s
}

/// The floor lines as CSV.
pub fn csv(lines: &[FloorLine], metric: Metric) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Error::Config(format!("cannot write CSV: {e}"));
    w.write_record([
        "dataset",
        "method",
        "evaluator",
        "ma",
        "variant",
        "split",
        "metric",
        "kind",
        "floor_method",
        "floor_ma",
        "floor_variant",
        "floor_evaluator",
        "floor_without_ma",
        "n",
        "n_floor",
        "method_mean",
        "floor_mean",
        "mean_diff",
        "ci95_low",
        "ci95_high",
        "mde80",
        "p",
        "p_holm",
        "reading",
    ])
    .map_err(err)?;
    let o = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    for l in lines {
        let k = &l.key;
        w.write_record([
            k.dataset.clone(),
            k.method.clone(),
            k.evaluator.clone(),
            k.ma.clone(),
            k.variant.clone(),
            k.split.clone(),
            metric.as_str().to_string(),
            l.kind.as_str().to_string(),
            l.floor_method.clone(),
            l.floor_ma.clone(),
            l.floor_variant.clone(),
            l.floor_evaluator.clone(),
            l.floor_without_ma.to_string(),
            l.n.to_string(),
            l.n_floor.to_string(),
            l.method_mean.to_string(),
            l.floor_mean.to_string(),
            l.mean_diff.to_string(),
            o(l.ci95.map(|c| c.0)),
            o(l.ci95.map(|c| c.1)),
            o(l.mde),
            o(l.p),
            o(l.p_holm),
            l.reading().to_string(),
        ])
        .map_err(err)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::Config(format!("cannot write CSV: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::ResultRow;
    use crate::Report;

    fn row(method: &str, ma: &str, seed: u64, acc: f64) -> ResultRow {
        ResultRow {
            method: method.into(),
            ma: ma.into(),
            variant: String::new(),
            config_hash: format!("{method}-{ma}-{seed}"),
            accuracy: acc,
            ..crate::results::tests::row(seed)
        }
    }

    fn rows(method: &str, ma: &str, accs: &[f64]) -> Vec<ResultRow> {
        accs.iter()
            .enumerate()
            .map(|(s, a)| row(method, ma, s as u64, *a))
            .collect()
    }

    fn find<'a>(r: &'a Report, ma: &str, kind: FloorKind, floor: &str) -> &'a FloorLine {
        r.floor
            .iter()
            .find(|l| l.key.ma == ma && l.kind == kind && l.floor_method == floor)
            .unwrap_or_else(|| panic!("no {ma} {floor} line in {:#?}", r.floor))
    }

    /// Hand-made: GraphCL 80, 82, 84 (seeds 0–2) and with MA (`ARS code`) 81, 82, 86;
    /// the untrained encoder without MA 79, 80, 80, and under another MA label only
    /// (`ARS gin+filter`); WL 85, 86, 87, 88 on seeds 0–3.
    #[test]
    fn paired_gain_with_fallback_and_welch_gap() {
        let mut input = rows("graphcl", "none", &[80.0, 82.0, 84.0]);
        input.extend(rows("graphcl", "ARS code", &[81.0, 82.0, 86.0]));
        input.extend(rows("untrained-graphcl", "none", &[79.0, 80.0, 80.0]));
        input.extend(rows(
            "untrained-graphcl",
            "ARS gin+filter",
            &[70.0, 70.0, 71.0],
        ));
        input.extend(rows("wl", "none", &[85.0, 86.0, 87.0, 88.0]));
        let r = Report::build(input, Metric::Accuracy).unwrap();
        // GraphCL without MA: Δ = (1, 2, 4), mean 7/3.
        let l = find(&r, "none", FloorKind::Untrained, "untrained-graphcl");
        assert!((l.mean_diff - 7.0 / 3.0).abs() < 1e-12);
        assert_eq!(
            (l.n, l.floor_ma.as_str(), l.floor_without_ma),
            (3, "none", false)
        );
        // With MA, no untrained `ARS code` group: the one without MA, not the other
        // label's. Δ = (2, 2, 6), mean 10/3, variance ((2 − 10/3)² · 2 + (6 − 10/3)²) / 2.
        let l = find(&r, "ARS code", FloorKind::Untrained, "untrained-graphcl");
        assert!((l.mean_diff - 10.0 / 3.0).abs() < 1e-12);
        assert_eq!((l.floor_ma.as_str(), l.floor_without_ma), ("none", true));
        let sd = ((2.0f64 - 10.0 / 3.0).powi(2) * 2.0 + (6.0f64 - 10.0 / 3.0).powi(2)) / 2.0;
        let q = stats::t_quantile(0.975, 2.0).unwrap();
        let (lo, hi) = l.ci95.unwrap();
        let half = q * sd.sqrt() / 3f64.sqrt();
        assert!((lo - (10.0 / 3.0 - half)).abs() < 1e-9 && (hi - (10.0 / 3.0 + half)).abs() < 1e-9);
        // Holm over the two untrained lines.
        let ps: Vec<Option<f64>> = r
            .floor
            .iter()
            .filter(|l| l.kind == FloorKind::Untrained)
            .map(|l| l.p)
            .collect();
        let adj = stats::holm(&ps);
        let got: Vec<Option<f64>> = r
            .floor
            .iter()
            .filter(|l| l.kind == FloorKind::Untrained)
            .map(|l| l.p_holm)
            .collect();
        assert_eq!(got, adj);
        // WL: unpaired, 82 − 86.5 = −4.5; Welch with variances 4/3 and (5/3)/4.
        let l = find(&r, "none", FloorKind::Classical, "wl");
        assert!((l.mean_diff + 4.5).abs() < 1e-12);
        assert_eq!((l.n, l.n_floor), (3, 4));
        let w = inference::welch(&[80.0, 82.0, 84.0], &[85.0, 86.0, 87.0, 88.0]).unwrap();
        assert_eq!(l.p, w.p);
        assert!((w.se - (4.0f64 / 3.0 + 5.0 / 12.0).sqrt()).abs() < 1e-12);
        // The baselines get no floor lines of their own; 2 methods × (untrained + WL).
        assert!(r.floor.iter().all(|l| !is_baseline(&l.key.method)));
        assert_eq!(r.floor.len(), 4);
        let md = crate::render::markdown(&r);
        assert!(
            md.contains("## Floor: gain over the untrained encoder"),
            "{md}"
        );
        assert!(md.contains("GraphCL, untrained (without MA)"));
    }

    /// An untrained group with the method's MA label is preferred to the one without.
    #[test]
    fn untrained_with_the_same_ma_label_is_preferred() {
        let mut input = rows("graphcl", "ARS code", &[81.0, 82.0, 86.0]);
        input.extend(rows("graphcl", "none", &[80.0, 82.0, 84.0]));
        input.extend(rows("untrained-graphcl", "none", &[79.0, 80.0, 80.0]));
        input.extend(rows("untrained-graphcl", "ARS code", &[78.0, 80.0, 81.0]));
        let r = Report::build(input, Metric::Accuracy).unwrap();
        let l = find(&r, "ARS code", FloorKind::Untrained, "untrained-graphcl");
        assert_eq!(
            (l.floor_ma.as_str(), l.floor_without_ma),
            ("ARS code", false)
        );
        assert!((l.mean_diff - 10.0 / 3.0).abs() < 1e-12); // (3, 2, 5)
                                                           // the MA comparisons (and their Holm family) hold the method only, not its floor
        let methods: Vec<&str> = r
            .comparisons
            .iter()
            .map(|c| c.key.method.as_str())
            .collect();
        assert_eq!(methods, ["graphcl"]);
    }

    /// Node level: the base model of a preset pairs with the untrained base model of the
    /// same preset and split; raw features are its classical floor.
    #[test]
    fn node_level_keys_on_preset_and_split() {
        let node = |method: &str, ma: &str, split: &str, seed: u64, acc: f64| ResultRow {
            dataset: "Cora".into(),
            evaluator: "logreg".into(),
            config: format!(
                r#"{{"method":"{method}","seed":{seed},"node":{{"preset":"paper","split":"{split}"}}}}"#
            ),
            config_hash: format!("{method}-{ma}-{split}-{seed}"),
            ..row(method, ma, seed, acc)
        };
        let mut input = Vec::new();
        for (s, (b, u, f)) in [(83.0, 70.0, 58.0), (83.5, 69.0, 57.0), (82.5, 69.5, 59.0)]
            .into_iter()
            .enumerate()
        {
            let s = s as u64;
            input.push(node("base", "none", "public", s, b));
            input.push(node("untrained-base", "none", "public", s, u));
            input.push(node("features", "none", "public", s, f));
            // Another split: never paired with the public one.
            input.push(node("untrained-base", "none", "random", s, 10.0));
        }
        let r = Report::build(input, Metric::Accuracy).unwrap();
        let l = find(&r, "none", FloorKind::Untrained, "untrained-base:paper");
        assert_eq!(l.key.method, "base:paper");
        assert!((l.floor_mean - 69.5).abs() < 1e-12);
        assert!((l.mean_diff - 13.5).abs() < 1e-12);
        let l = find(&r, "none", FloorKind::Classical, "features");
        assert!((l.mean_diff - 25.0).abs() < 1e-12);
        assert_eq!(r.floor.len(), 2);
        // Baselines sit in the node-level table.
        let md = crate::render::markdown(&r);
        let node_table = md.split("## Node classification").nth(1).unwrap();
        assert!(node_table.contains("Raw features"), "{md}");
    }

    /// A node-level method the report has never heard of (no list names it) is placed
    /// by its rows: the node table, its own untrained encoder, the node-level classical
    /// floor; graph-level floors never apply to it.
    #[test]
    fn an_unlisted_node_method_finds_its_floors_by_name_and_split() {
        let node = |method: &str, ma: &str, seed: u64, acc: f64| ResultRow {
            dataset: "Cora".into(),
            evaluator: "logreg".into(),
            config: format!(r#"{{"seed":{seed},"node":{{"split":"random"}}}}"#),
            config_hash: format!("{method}-{ma}-{seed}"),
            ..row(method, ma, seed, acc)
        };
        let mut input = Vec::new();
        for (s, (m, u, f)) in [(80.0, 60.0, 55.0), (82.0, 59.0, 54.0), (81.0, 61.0, 56.0)]
            .into_iter()
            .enumerate()
        {
            let s = s as u64;
            input.push(node("newnode", "none", s, m));
            input.push(node("untrained-newnode", "none", s, u));
            input.push(node("features", "none", s, f));
            input.push(node("wl", "none", s, 99.0));
        }
        let r = Report::build(input, Metric::Accuracy).unwrap();
        let l = find(&r, "none", FloorKind::Untrained, "untrained-newnode");
        assert!((l.mean_diff - 21.0).abs() < 1e-12);
        let l = find(&r, "none", FloorKind::Classical, "features");
        assert!((l.mean_diff - 26.0).abs() < 1e-12);
        assert_eq!(r.floor.len(), 2, "wl is a graph-level floor");
        let md = crate::render::markdown(&r);
        assert!(!md.contains("## Graph classification"), "{md}");
        let node_table = md.split("## Node classification").nth(1).unwrap();
        let pos = |m: &str| node_table.find(m).unwrap();
        assert!(pos("| newnode (random split)") < pos("| newnode, untrained"));
        assert!(pos("| newnode, untrained") < pos("| Raw features"));
    }

    /// AD-GCL with the fixed augmenter shares AD-GCL's encoder and so its floor.
    #[test]
    fn shared_encoders_share_the_untrained_floor() {
        assert_eq!(
            untrained_of("adgcl-fixed").as_deref(),
            Some("untrained-adgcl")
        );
        assert_eq!(
            untrained_of("base:paper").as_deref(),
            Some("untrained-base")
        );
        assert_eq!(untrained_of("untrained-grace"), None);
        assert_eq!(untrained_of("wl"), None);
    }

    /// Without baseline rows there is no floor and the markdown has no floor section.
    #[test]
    fn no_baselines_no_floor() {
        let mut input = rows("graphcl", "none", &[80.0, 82.0, 84.0]);
        input.extend(rows("graphcl", "ARS code", &[81.0, 82.0, 86.0]));
        let r = Report::build(input, Metric::Accuracy).unwrap();
        assert!(r.floor.is_empty());
        assert!(!crate::render::markdown(&r).contains("Floor"));
        let json = crate::render::json(&r).unwrap();
        assert!(!json.contains("\"floor\""), "{json}");
    }
}
