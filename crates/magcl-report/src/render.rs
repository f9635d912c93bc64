//! Renderings of a [`Report`]: markdown (tables laid out like the paper's), CSV and JSON.
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{dataset_sort_key, Comparison, Group, GroupKey, HolmScope, Metric, Report, MIN_SEEDS};
use crate::error::{Error, Result};
pub use crate::format::{fmt_ci, fmt_num, fmt_opt, fmt_p, method_label, method_name};

use super::floor::is_node;

/// The row label of a group in the paper-style table.
fn row_label(k: &GroupKey, show_evaluator: bool) -> String {
    let mut s = method_label(k);
    if k.ma != "none" {
        s.push_str(&format!(" +MA ({})", k.ma));
    }
    if !k.variant.is_empty() {
        s.push_str(&format!(" [{}]", k.variant));
    }
    if show_evaluator {
        s.push_str(&format!(", {}", k.evaluator));
    }
    s
}

fn metric_title(m: Metric) -> &'static str {
    match m {
        Metric::Accuracy => "accuracy (%)",
        Metric::Nmi => "NMI",
    }
}

/// The markdown report.
pub fn markdown(r: &Report) -> String {
    let d = r.metric.decimals();
    let mut s = String::new();
    let _ = writeln!(s, "# magcl report: {}\n", metric_title(r.metric));
    if !r.files.is_empty() {
        let names: Vec<String> = r
            .files
            .iter()
            .map(|f| format!("`{}`", f.display()))
            .collect();
        let _ = write!(s, "From {} ({} rows", names.join(", "), r.rows);
        if let Some((only, left_out)) = &r.only {
            let _ = write!(s, " kept by `--only {only}`; {left_out} left out");
        }
        if r.duplicate_rows > 0 {
            let _ = write!(
                s,
                "; {} duplicate row(s) (same config hash) ignored",
                r.duplicate_rows
            );
        }
        if r.missing_metric > 0 {
            let _ = write!(
                s,
                "; {} row(s) without {} left out",
                r.missing_metric,
                r.metric.as_str()
            );
        }
        let _ = writeln!(s, ").\n");
    }
    let _ = writeln!(
        s,
        "Cells are mean ± sample standard deviation (ddof = 1) over seeds; **bold** marks the best mean of each column; † marks fewer than {MIN_SEEDS} seeds.\n"
    );

    // Paper-style tables, graph level first, then node level.
    for node in [false, true] {
        let groups: Vec<&Group> = r
            .groups
            .iter()
            .filter(|g| is_node(&g.key) == node)
            .collect();
        if groups.is_empty() {
            continue;
        }
        let title = if node {
            "Node classification"
        } else {
            "Graph classification"
        };
        let title = match r.metric {
            Metric::Nmi if node => "Node clustering",
            Metric::Nmi => "Clustering",
            _ => title,
        };
        let _ = writeln!(
            s,
            "## {title}: {}, mean ± std over seeds\n",
            metric_title(r.metric)
        );
        s.push_str(&paper_table(&groups, d));
        s.push('\n');
    }

    section_with_table(
        &mut s,
        "Summary per group",
        "",
        "| dataset | method | evaluator | MA | variant | n | mean | std | 95% CI | min | max |",
        "|---|---|---|---|---|--:|--:|--:|---|--:|--:|",
    );
    let mut by_dataset: Vec<&Group> = r.groups.iter().collect();
    by_dataset.sort_by_key(|g| dataset_sort_key(&g.key.dataset));
    for g in by_dataset {
        let k = &g.key;
        let ci = g
            .summary
            .ci95
            .map(|(lo, hi)| format!("[{}, {}]", fmt_num(lo, d), fmt_num(hi, d)))
            .unwrap_or_else(|| "–".into());
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {}{} | {} | {} | {} | {} | {} |",
            k.dataset,
            method_label(k),
            k.evaluator,
            k.ma,
            k.variant,
            g.summary.n,
            if g.summary.n < MIN_SEEDS { " †" } else { "" },
            fmt_num(g.summary.mean, d),
            fmt_opt(g.summary.std, d),
            ci,
            fmt_num(g.summary.min, d),
            fmt_num(g.summary.max, d)
        );
    }
    s.push('\n');

    if !r.comparisons.is_empty() {
        section_with_table(
            &mut s,
            "Baseline vs +MA, paired by seed",
            &format!(
                "Δ = +MA − baseline with its 95% t-interval; MDE = the smallest true Δ the paired t-test (two-sided, α = 0.05) detects with 80% power for these pairs and this spread of Δ. Holm's correction runs {}.\n\n",
                r.holm_scope.describe()
            ),
            "| dataset | method | evaluator | MA | variant | pairs | baseline | +MA | Δ | Δ 95% CI | MDE (80%) | p (t-test) | p (Wilcoxon) | d_z | Holm p (t) | Holm p (W) | note |",
            "|---|---|---|---|---|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|---|",
        );
        for c in &r.comparisons {
            s.push_str(&comparison_row(c, d));
        }
        s.push('\n');
    }

    s.push_str(&super::floor::markdown(&r.floor, r.metric));
    s.push_str(&super::curves::markdown(&r.curves, r.metric));
    s.push_str(&super::pretrain::markdown(&r.pretrain, r.metric));

    if !r.warned.is_empty() {
        section_with_table(
            &mut s,
            "Runs with warnings",
            "Their values are in the tables above; check them before trusting a mean.\n\n",
            "| dataset | method | MA | variant | seed | accuracy | warning |",
            "|---|---|---|---|--:|--:|---|",
        );
        for w in &r.warned {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                w.dataset,
                method_name(&w.method),
                w.ma,
                w.variant,
                w.seed,
                fmt_num(w.accuracy, 2),
                w.warnings.replace('|', "\\|")
            );
        }
        s.push('\n');
    }

    if let Some(v) = &r.verdicts {
        s.push_str(&super::claims::verdict_markdown(v, r.metric));
    }
    if !r.cross_commit_duplicates.is_empty() {
        section_with_table(
            &mut s,
            "Cells run by more than one commit",
            "The same configuration and seed appear in rows from different commits; the first row is used, the other is left out.\n\n",
            "| dataset | method | MA | variant | seed | config hash | used: commit | value | left out: commit | value |",
            "|---|---|---|---|--:|---|---|--:|---|--:|",
        );
        for c in &r.cross_commit_duplicates {
            let v = |x: Option<f64>| x.map_or("–".to_string(), |x| fmt_num(x, d));
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                c.dataset,
                method_name(&c.method),
                c.ma,
                c.variant,
                c.seed,
                c.config_hash,
                c.used_commit,
                v(c.used_value),
                c.other_commit,
                v(c.other_value)
            );
        }
        s.push('\n');
    }

    if !r.mixed_commits.is_empty() {
        section_with_table(
            &mut s,
            "Groups pooled from more than one commit",
            "Rows of one configuration from different commits were pooled (`--allow-mixed-commits`): check that the commits between them change no result.\n\n",
            "| dataset | method | evaluator | MA | variant | commit: seeds |",
            "|---|---|---|---|---|---|",
        );
        for m in &r.mixed_commits {
            let k = &m.key;
            let commits: Vec<String> = m
                .commits
                .iter()
                .map(|(c, seeds)| {
                    format!(
                        "{c}: {}",
                        seeds
                            .iter()
                            .map(|s| s.to_string())
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                k.dataset,
                method_label(k),
                k.evaluator,
                k.ma,
                k.variant,
                commits.join("; ")
            );
        }
        s.push('\n');
    }

    let mixed_comparisons: Vec<_> = r
        .comparisons
        .iter()
        .filter_map(|c| {
            let d = c.mixed_devices.as_ref()?;
            let against = if c.baseline_variant.is_empty() {
                "without MA".to_string()
            } else {
                format!("without MA [{}]", c.baseline_variant)
            };
            Some((&c.key, against, d))
        })
        .chain(
            r.floor
                .iter()
                .filter_map(|f| Some((&f.key, f.floor_label(), f.mixed_devices.as_ref()?))),
        )
        .collect();
    if !mixed_comparisons.is_empty() {
        section_with_table(
            &mut s,
            "Comparisons across kinds of device",
            "These comparisons set rows run on one kind of device against rows run on another (the CPU and a GPU, say). Such rows are not bit-comparable (the devices round differently), so part of a difference may be the devices'.\n\n",
            "| dataset | method | evaluator | MA | variant | against | its devices | the other side's |",
            "|---|---|---|---|---|---|---|---|",
        );
        for (k, against, d) in mixed_comparisons {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                k.dataset,
                method_label(k),
                k.evaluator,
                k.ma,
                k.variant,
                against,
                d.treatment.join(", "),
                d.baseline.join(", ")
            );
        }
        s.push('\n');
    }

    if !r.mixed_copies.is_empty() {
        section_with_table(
            &mut s,
            "Datasets read from more than one copy",
            "Rows of one dataset read copies of its data whose bytes differ (`data_source`, by sha256), so rows compared here may not have seen the same data: magcl builds the same dataset from a TU and a DGCNN copy of the same graphs (docs/datasets.md), other copies may differ. Rows written before the `data_source` column record no copy.\n\n",
            "| dataset | copy: rows | rows without a recorded copy |",
            "|---|---|--:|",
        );
        for m in &r.mixed_copies {
            let copies: Vec<String> = m
                .copies
                .iter()
                .map(|(c, n)| format!("`{}`: {n}", c.replace('|', "\\|")))
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                m.dataset,
                copies.join("; "),
                m.unrecorded
            );
        }
        s.push('\n');
    }

    let _ = writeln!(s, "## How the statistics are computed\n");
    s.push_str(&stats_notes(r.holm_scope));
    s
}

/// A `## title` section: an optional lead paragraph, then a table's header and alignment.
fn section_with_table(s: &mut String, title: &str, lead: &str, header: &str, align: &str) {
    let _ = write!(s, "## {title}\n\n{lead}{header}\n{align}\n");
}

/// The definitions printed under every markdown report.
fn stats_notes(scope: HolmScope) -> String {
    STATS_NOTES.replace(
        "{holm}",
        &format!(
            "Holm's step-down correction {}, separately for the t-test and Wilcoxon p-values (`--holm family`, the default, corrects over the datasets of one family; `--holm table` over the whole table)",
            scope.describe()
        ),
    )
}

const STATS_NOTES: &str = "\
- **std**: sample standard deviation over seeds, ddof = 1. **95% CI**: Student-t interval mean ± t(0.975, n−1)·std/√n.
- **Pairs**: a +MA group is paired with the baseline (MA = none) of the same dataset, method and evaluator (same variant if the baseline has it, else the baseline without variant), seed by seed, over the seeds present in both. Δ = +MA − baseline.
- **p (t-test)**: two-sided paired t-test on Δ (n−1 degrees of freedom).
- **p (Wilcoxon)**: two-sided Wilcoxon signed-rank test on Δ with scipy.stats.wilcoxon's defaults: zero differences dropped (zero_method = wilcox), no continuity correction; exact null distribution when n ≤ 50 without ties or zeros; exact sign-flip distribution of the mid-ranks when n ≤ 13 with ties or zeros; normal approximation with tie-corrected variance otherwise. With 5 seeds the smallest possible two-sided p is 0.0625.
- **d_z**: Cohen's d_z = mean(Δ) / std(Δ).
- **Δ 95% CI**: Student-t interval of the mean of Δ, mean ± t(0.975, n−1)·std(Δ)/√n.
- **MDE (80%)**: minimum detectable effect: the true mean Δ at which the two-sided paired t-test at α = 0.05 rejects Δ = 0 with probability 0.8, for the n pairs present, taking std(Δ) as the true spread: MDE = std(Δ)·d*, where d* solves P(|T′| > t(0.975, n−1)) = 0.8 for T′ noncentral t with n−1 degrees of freedom and noncentrality d*·√n (statsmodels' TTestPower). A non-significant Δ says little about effects smaller than the MDE.
- **Holm**: {holm}.
- **note**: † fewer than 5 pairs (seeds): treat the p-values with care.
";

fn comparison_row(c: &Comparison, d: usize) -> String {
    let k = &c.key;
    let w = c.test.wilcoxon.as_ref();
    let mut note = Vec::new();
    if c.few_seeds {
        note.push(format!("† < {MIN_SEEDS} seeds"));
    }
    if c.baseline_variant != k.variant {
        note.push("baseline without variant".to_string());
    }
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {}{} | {} | {} | {} | {}{} | {} | {} | {} | {} |\n",
        k.dataset,
        method_label(k),
        k.evaluator,
        k.ma,
        k.variant,
        c.test.n,
        fmt_num(c.baseline_mean, d),
        fmt_num(c.ma_mean, d),
        if c.test.mean_diff > 0.0 { "+" } else { "" },
        fmt_num(c.test.mean_diff, d),
        fmt_ci(c.test.ci95_diff, d),
        fmt_opt(c.test.mde, d),
        fmt_p(c.test.t_test.as_ref().and_then(|t| t.p)),
        fmt_p(w.map(|w| w.p)),
        w.map(|w| format!(" ({})", w.method.as_str()))
            .unwrap_or_default(),
        fmt_opt(c.test.cohens_dz, 2),
        fmt_p(c.p_t_holm),
        fmt_p(c.p_wilcoxon_holm),
        note.join("; ")
    )
}

/// Methods (+MA variants) as rows, datasets as columns, best mean per column in bold.
fn paper_table(groups: &[&Group], d: usize) -> String {
    let mut datasets: Vec<String> = groups.iter().map(|g| g.key.dataset.clone()).collect();
    datasets.sort_by_key(|x| dataset_sort_key(x));
    datasets.dedup();
    // Several evaluators for one method → show the evaluator in the label.
    let mut evals: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for g in groups {
        evals
            .entry(g.key.method.as_str())
            .or_default()
            .insert(g.key.evaluator.as_str());
    }
    let mut rows: Vec<(String, BTreeMap<String, &Group>)> = Vec::new();
    for g in groups {
        let show = evals
            .get(g.key.method.as_str())
            .map(|e| e.len() > 1)
            .unwrap_or(false);
        let label = row_label(&g.key, show);
        match rows.iter_mut().find(|(l, _)| *l == label) {
            Some((_, m)) => {
                m.insert(g.key.dataset.clone(), g);
            }
            None => {
                let mut m = BTreeMap::new();
                m.insert(g.key.dataset.clone(), *g);
                rows.push((label, m));
            }
        }
    }
    let best: BTreeMap<&str, f64> = datasets
        .iter()
        .map(|ds| {
            let b = rows
                .iter()
                .filter_map(|(_, m)| m.get(ds).map(|g| round_to(g.summary.mean, d)))
                .fold(f64::NEG_INFINITY, f64::max);
            (ds.as_str(), b)
        })
        .collect();
    let mut s = String::new();
    let _ = writeln!(s, "| method | {} |", datasets.join(" | "));
    let _ = writeln!(s, "|---|{}", "--:|".repeat(datasets.len()));
    for (label, cells) in &rows {
        let mut line = format!("| {label} |");
        for ds in &datasets {
            let cell = match cells.get(ds) {
                None => "–".to_string(),
                Some(g) => {
                    let mut c = format!(
                        "{} ± {}",
                        fmt_num(g.summary.mean, d),
                        fmt_opt(g.summary.std, d)
                    );
                    if rows.len() > 1 && round_to(g.summary.mean, d) == best[ds.as_str()] {
                        c = format!("**{c}**");
                    }
                    if g.summary.n < MIN_SEEDS {
                        c.push_str(" †");
                    }
                    c
                }
            };
            line.push_str(&format!(" {cell} |"));
        }
        s.push_str(&line);
        s.push('\n');
    }
    s
}

/// Rounds to the displayed precision so that "best" agrees with what the table shows.
fn round_to(x: f64, d: usize) -> f64 {
    let f = 10f64.powi(d as i32);
    (x * f).round() / f
}

/// One flat CSV table: a row per group; +MA groups carry their comparison columns.
pub fn csv(r: &Report) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = [
        "dataset",
        "method",
        "evaluator",
        "ma",
        "variant",
        "split",
        "metric",
        "n",
        "mean",
        "std_ddof1",
        "ci95_low",
        "ci95_high",
        "min",
        "max",
        "seeds",
        "pairs",
        "baseline_variant",
        "baseline_mean",
        "mean_diff",
        "t",
        "p_t",
        "wilcoxon_statistic",
        "p_wilcoxon",
        "wilcoxon_method",
        "cohens_dz",
        "p_t_holm",
        "p_wilcoxon_holm",
        "few_seeds",
        "diff_ci95_low",
        "diff_ci95_high",
        "mde80",
        "holm_scope",
    ];
    let err = |e: csv::Error| Error::Config(format!("cannot write CSV: {e}"));
    w.write_record(header).map_err(err)?;
    let o = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    for g in &r.groups {
        let k = &g.key;
        let c = r.comparisons.iter().find(|c| c.key == *k);
        let seeds: Vec<String> = g.by_seed.keys().map(|s| s.to_string()).collect();
        let mut rec = vec![
            k.dataset.clone(),
            k.method.clone(),
            k.evaluator.clone(),
            k.ma.clone(),
            k.variant.clone(),
            k.split.clone(),
            r.metric.as_str().to_string(),
            g.summary.n.to_string(),
            g.summary.mean.to_string(),
            o(g.summary.std),
            o(g.summary.ci95.map(|c| c.0)),
            o(g.summary.ci95.map(|c| c.1)),
            g.summary.min.to_string(),
            g.summary.max.to_string(),
            seeds.join(" "),
        ];
        match c {
            Some(c) => {
                let w = c.test.wilcoxon.as_ref();
                rec.extend([
                    c.test.n.to_string(),
                    c.baseline_variant.clone(),
                    c.baseline_mean.to_string(),
                    c.test.mean_diff.to_string(),
                    o(c.test.t_test.as_ref().map(|t| t.t)),
                    o(c.test.t_test.as_ref().and_then(|t| t.p)),
                    o(w.map(|w| w.statistic)),
                    o(w.map(|w| w.p)),
                    w.map(|w| w.method.as_str().to_string()).unwrap_or_default(),
                    o(c.test.cohens_dz),
                    o(c.p_t_holm),
                    o(c.p_wilcoxon_holm),
                    c.few_seeds.to_string(),
                    o(c.test.ci95_diff.map(|c| c.0)),
                    o(c.test.ci95_diff.map(|c| c.1)),
                    o(c.test.mde),
                    holm_scope_name(r.holm_scope).to_string(),
                ]);
            }
            None => rec.extend(std::iter::repeat_n(String::new(), 17)),
        }
        w.write_record(&rec).map_err(err)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::Config(format!("cannot write CSV: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn holm_scope_name(s: HolmScope) -> &'static str {
    match s {
        HolmScope::Family => "family",
        HolmScope::Table => "table",
    }
}

/// The report as JSON, with the conventions spelled out.
pub fn json(r: &Report) -> Result<String> {
    let mut v = serde_json::to_value(r)?;
    if let Some(m) = v.as_object_mut() {
        m.insert(
            "conventions".into(),
            serde_json::json!({
                "std": "sample standard deviation over seeds, ddof = 1",
                "ci95": "Student-t interval mean ± t(0.975, n-1) * std / sqrt(n)",
                "mean_diff": "+MA minus baseline, paired by seed",
                "t_test": "two-sided paired t-test",
                "wilcoxon": "two-sided signed-rank test, scipy.stats.wilcoxon defaults (zero_method wilcox, no correction, auto method)",
                "cohens_dz": "mean(diff) / std(diff)",
                "holm": r.holm_scope.describe(),
                "ci95_diff": "Student-t interval of the mean paired difference",
                "mde": "minimum detectable effect: std(diff) * d*, where the two-sided paired t-test at alpha 0.05 has power 0.8 at effect size d* (noncentral t, n-1 df), n = pairs present",
                "few_seeds": format!("fewer than {MIN_SEEDS} pairs"),
            }),
        );
    }
    Ok(serde_json::to_string_pretty(&v)? + "\n")
}
