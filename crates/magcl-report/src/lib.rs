//! # magcl-report — result files and reports, without tensors
//!
//! Result files ([`results`]: one CSV row per run, crash-safe appends), a row's config in
//! today's spelling ([`config`]), and reports over result CSVs: per-group summaries (dataset × method × evaluator × MA
//! setting × variant), baseline-vs-MA comparisons paired by seed, and their renderings
//! (markdown tables like the paper's, CSV, JSON, SVG plots).
//!
//! Definitions (also printed in the markdown report):
//! - std is the sample standard deviation (ddof = 1); the 95% interval is the Student-t
//!   interval `mean ± t_{0.975, n−1} · std / √n`.
//! - A comparison pairs a +MA group with the baseline (`ma = none`) of the same dataset,
//!   method and evaluator (and the same variant when the baseline has it, else the
//!   baseline without a variant), over the seeds present in both. Δ = +MA − baseline.
//! - Paired t-test (two-sided), Wilcoxon signed-rank test (two-sided, scipy's defaults:
//!   see [`crate::stats`]), Cohen's d_z = mean(Δ) / std(Δ).
//! - Holm's correction runs, by default, over the datasets of one family = (method,
//!   evaluator, MA setting, variant), separately for the t-test and the Wilcoxon
//!   p-values; [`HolmScope::Table`] runs it over every comparison of the report instead.
//! - Each comparison carries the 95% t-interval of Δ and its minimum detectable effect
//!   (80% power, two-sided α = 0.05, the pairs present, the observed std of Δ).
//! - Comparisons with fewer than 5 pairs are flagged.
//! - Node-level groups are split by the evaluation split (`public` / `random`): runs on
//!   different test sets are different experiments.
//! - A group's rows share one configuration and one commit: mixed configurations are
//!   refused, mixed commits too unless [`BuildOptions::allow_mixed_commits`].
//! - Rows of the baselines (untrained encoders, WL, degree histogram, raw features) add
//!   the floor lines of every method ([`floor`]); the claims join and its verdicts are
//!   in [`claims`], the tests beyond the paired comparison in [`inference`].
//! - Rows of one method at two or more epoch counts (its untrained encoder counting as
//!   epoch 0) form training curves with the classical floors as bands ([`curves`]).
//! - Rows pre-trained on a subset of the graphs (`pretrain.graphs` in the config) form
//!   pre-training size curves, with the smallest size above each floor ([`pretrain`]);
//!   their subset is part of the group's variant label.
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;

// The paths the modules were written with (`crate::error`, `crate::files`, `crate::stats`).
pub(crate) use magcl_core::{error, files};
pub(crate) use magcl_eval::stats;

use crate::error::{Error, Result};
use crate::results::{read_rows_located, ResultRow};
use crate::stats::{PairedComparison, Summary};
use magcl_core::only::Only;

pub mod claims;
pub use magcl_config::schema as config;
pub mod curves;
pub mod floor;
pub mod format;
pub mod inference;
pub mod plot;
pub mod pretrain;
pub mod raster;
pub mod render;
pub mod results;

/// Comparisons with fewer pairs than this are flagged.
pub const MIN_SEEDS: usize = 5;

/// Which metric a report summarises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    Accuracy,
    Nmi,
}

impl Metric {
    pub fn parse(s: &str) -> Result<Metric> {
        match s {
            "accuracy" | "acc" => Ok(Metric::Accuracy),
            "nmi" => Ok(Metric::Nmi),
            _ => Err(Error::Config(format!(
                "unknown metric '{s}': expected accuracy or nmi"
            ))),
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Accuracy => "accuracy",
            Metric::Nmi => "nmi",
        }
    }
    fn value(self, r: &ResultRow) -> Option<f64> {
        match self {
            Metric::Accuracy => Some(r.accuracy),
            Metric::Nmi => r.nmi,
        }
        .filter(|v| v.is_finite())
    }
    /// Decimals used in tables.
    pub fn decimals(self) -> usize {
        match self {
            Metric::Accuracy => 2,
            Metric::Nmi => 4,
        }
    }
}

/// The identity of a group of rows.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct GroupKey {
    pub dataset: String,
    pub method: String,
    pub evaluator: String,
    pub ma: String,
    pub variant: String,
    /// Node level: the evaluation split (`public` or `random`); empty at graph level.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub split: String,
}

/// Over which comparisons Holm's correction runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HolmScope {
    /// Over the datasets of one (method, evaluator, MA setting, variant).
    #[default]
    Family,
    /// Over every comparison in the report.
    Table,
}

impl HolmScope {
    pub fn parse(s: &str) -> Result<HolmScope> {
        match s {
            "family" => Ok(HolmScope::Family),
            "table" | "all" => Ok(HolmScope::Table),
            _ => Err(Error::Config(format!(
                "unknown Holm scope '{s}': expected family or table"
            ))),
        }
    }
    /// What the family is, in words (printed with every Holm column).
    pub fn describe(self) -> &'static str {
        match self {
            HolmScope::Family => {
                "over the datasets of one family (method, evaluator, split, MA setting, variant)"
            }
            HolmScope::Table => "over every comparison in this report (the whole table)",
        }
    }
}

/// Summary of one group.
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    #[serde(flatten)]
    pub key: GroupKey,
    #[serde(flatten)]
    pub summary: Summary,
    /// The metric per seed (one row per seed: repeats of a cell are left out).
    pub by_seed: BTreeMap<u64, f64>,
    /// The kinds of device its rows ran on ([`device_kind`]: `cpu`, `cuda`, …); rows
    /// that record none add nothing.
    #[serde(skip)]
    pub devices: BTreeSet<String>,
}

/// The kind of a device as rows record it: `cuda:1` → `cuda`, `cpu` → `cpu`; `None` for
/// a row that records none.
pub fn device_kind(device: &str) -> Option<&str> {
    let kind = device.split(':').next().unwrap_or("").trim();
    (!kind.is_empty()).then_some(kind)
}

/// The device kinds of the two sides of a comparison whose rows did not all run on one
/// kind of device (the CPU and a GPU, say): such rows are not bit-comparable, and a
/// difference between them may partly be the devices'. Listed by the report, not
/// refused.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MixedDevices {
    pub baseline: Vec<String>,
    pub treatment: Vec<String>,
}

impl MixedDevices {
    /// `Some` where the rows of `treatment` and `baseline` together span more than one
    /// device kind.
    pub fn of(treatment: &Group, baseline: &Group) -> Option<MixedDevices> {
        let all: BTreeSet<&String> = treatment.devices.iter().chain(&baseline.devices).collect();
        (all.len() > 1).then(|| MixedDevices {
            baseline: baseline.devices.iter().cloned().collect(),
            treatment: treatment.devices.iter().cloned().collect(),
        })
    }
}

/// A +MA group against its baseline, paired by seed.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    #[serde(flatten)]
    pub key: GroupKey,
    /// The variant of the baseline used.
    pub baseline_variant: String,
    pub seeds: Vec<u64>,
    pub baseline_mean: f64,
    pub ma_mean: f64,
    #[serde(flatten)]
    pub test: PairedComparison,
    pub p_t_holm: Option<f64>,
    pub p_wilcoxon_holm: Option<f64>,
    /// Fewer than [`MIN_SEEDS`] pairs.
    pub few_seeds: bool,
    /// The two groups' rows ran on more than one kind of device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed_devices: Option<MixedDevices>,
}

/// Everything a report shows.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub metric: Metric,
    pub files: Vec<PathBuf>,
    pub rows: usize,
    /// The `--only` that chose the rows, with the number of rows it left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only: Option<(String, usize)>,
    /// Rows dropped because an earlier row had the same config hash.
    pub duplicate_rows: usize,
    /// Rows without a value for the metric.
    pub missing_metric: usize,
    pub groups: Vec<Group>,
    pub comparisons: Vec<Comparison>,
    /// Over which comparisons the Holm columns were corrected.
    pub holm_scope: HolmScope,
    /// Runs whose record carries warnings (result files with a `warnings` column).
    pub warned: Vec<WarnedRun>,
    /// The paper's claims joined with the comparisons (`magcl report --claims`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdicts: Option<claims::Verdicts>,
    /// Rows that repeat the config hash of a row from another commit: the same cell run
    /// by two versions of the code. The first row is used; both are reported.
    pub cross_commit_duplicates: Vec<CrossCommitDuplicate>,
    /// Groups whose rows come from more than one commit, pooled because the caller
    /// allowed it ([`BuildOptions::allow_mixed_commits`]); without that the report
    /// refuses them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mixed_commits: Vec<MixedCommits>,
    /// Datasets whose rows were read from more than one copy of the data (copies whose
    /// sha256 differ, see [`results::DataCopy`]): every comparison of the report pairs rows
    /// of one dataset, and these rows may not have seen the same bytes. Listed, not
    /// refused: magcl builds the same dataset from a TU and a DGCNN copy of the same graphs
    /// (docs/datasets.md), so such rows are one experiment. Rows that do not record their
    /// copy (written before the `data_source` column) count as no copy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mixed_copies: Vec<MixedCopies>,
    /// Each method against its floors (untrained encoder, classical baselines), see
    /// [`floor`]; empty without baseline rows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub floor: Vec<floor::FloorLine>,
    /// Accuracy against training epochs, where the rows hold a method at two or more
    /// epoch counts (the untrained encoder counting as epoch 0), see [`curves`]; empty
    /// otherwise.
    #[serde(skip_serializing_if = "curves::Curves::is_empty")]
    pub curves: curves::Curves,
    /// Accuracy against the number of graphs pre-trained on, where rows hold a
    /// pre-training subset (`pretrain.graphs`), see [`pretrain`]; empty otherwise.
    #[serde(skip_serializing_if = "pretrain::PretrainCurves::is_empty")]
    pub pretrain: pretrain::PretrainCurves,
}

/// How [`Report::build_with`] treats its rows.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildOptions {
    /// Pool the rows of one group (one configuration) that come from different commits,
    /// and list them ([`Report::mixed_commits`]), instead of refusing them.
    pub allow_mixed_commits: bool,
}

/// A group whose rows (one configuration, different seeds) come from several commits.
#[derive(Clone, Debug, Serialize)]
pub struct MixedCommits {
    #[serde(flatten)]
    pub key: GroupKey,
    /// Each commit with the seeds of the rows from it.
    pub commits: Vec<(String, Vec<u64>)>,
}

/// A dataset whose rows were read from more than one copy of its data.
#[derive(Clone, Debug, Serialize)]
pub struct MixedCopies {
    pub dataset: String,
    /// Each copy (`PATH sha256:HEX`, the path of its first row; `generated`) with the
    /// number of rows that read it, in the order of their first row.
    pub copies: Vec<(String, usize)>,
    /// Rows of the dataset that do not record which copy they read.
    pub unrecorded: usize,
}

/// The copy rows were read from, by content: the sha256 (the same bytes at two paths are
/// one copy), or `generated`; `None` where not recorded.
fn copy_key(r: &ResultRow) -> Option<&str> {
    match r.data_copy() {
        results::DataCopy::Unrecorded => None,
        results::DataCopy::Generated => Some(results::GENERATED),
        results::DataCopy::Read { sha256, .. } => Some(sha256),
    }
}

/// The copies one dataset's rows read, while [`mixed_copies`] counts them.
#[derive(Default)]
struct CopiesSeen<'a> {
    /// (copy key, label of its first row, rows) in order of appearance.
    copies: Vec<(&'a str, String, usize)>,
    unrecorded: usize,
}

/// The datasets of `used` (the rows a report uses) read from two or more copies.
fn mixed_copies(used: &[&ResultRow]) -> Vec<MixedCopies> {
    let mut by_dataset: BTreeMap<(usize, String), CopiesSeen> = BTreeMap::new();
    for r in used {
        let seen = by_dataset.entry(dataset_sort_key(&r.dataset)).or_default();
        match copy_key(r) {
            None => seen.unrecorded += 1,
            Some(k) => match seen.copies.iter_mut().find(|(key, _, _)| *key == k) {
                Some(c) => c.2 += 1,
                None => seen.copies.push((k, r.data_source.clone(), 1)),
            },
        }
    }
    by_dataset
        .into_iter()
        .filter(|(_, seen)| seen.copies.len() > 1)
        .map(|((_, dataset), seen)| MixedCopies {
            dataset,
            copies: seen.copies.into_iter().map(|(_, l, n)| (l, n)).collect(),
            unrecorded: seen.unrecorded,
        })
        .collect()
}

/// A cell present in the input twice, from two commits.
#[derive(Clone, Debug, Serialize)]
pub struct CrossCommitDuplicate {
    pub dataset: String,
    pub method: String,
    pub ma: String,
    pub variant: String,
    pub seed: u64,
    pub config_hash: String,
    /// The commit and metric value of the row used.
    pub used_commit: String,
    pub used_value: Option<f64>,
    /// The commit and metric value of the row left out.
    pub other_commit: String,
    pub other_value: Option<f64>,
}

/// A run that warned, e.g. about one embedding dimension dominating the others.
#[derive(Clone, Debug, Serialize)]
pub struct WarnedRun {
    pub dataset: String,
    pub method: String,
    pub ma: String,
    pub variant: String,
    pub seed: u64,
    pub accuracy: f64,
    pub warnings: String,
}

/// Dataset order of the paper's tables; other names follow in order of appearance.
const DATASET_ORDER: &[&str] = &[
    "MUTAG",
    "PROTEINS",
    "NCI1",
    "NCI109",
    "DD",
    "PTC_MR",
    "IMDB-BINARY",
    "IMDB-MULTI",
    "COLLAB",
    "REDDIT-BINARY",
    "REDDIT-MULTI-5K",
    "synthetic",
    "Cora",
    "CiteSeer",
    "PubMed",
    "Coauthor-CS",
    "Amazon-Computers",
    "Amazon-Photo",
];

fn rank(order: &[&str], name: &str) -> usize {
    order.iter().position(|o| *o == name).unwrap_or(order.len())
}

/// Sort key of a dataset name (paper order, then alphabetical).
pub fn dataset_sort_key(name: &str) -> (usize, String) {
    (rank(DATASET_ORDER, name), name.to_string())
}

/// GCL methods first, then the untrained encoders, then the classical floors; within
/// each, the declarations' order (magcl-config's registry: a method, then its row labels),
/// then a method not declared there, by name.
fn method_sort_key(name: &str) -> (usize, usize, String) {
    let row = magcl_config::registry::row_method(name);
    let tier = if !row.is_floor() {
        0
    } else if row.untrained {
        1
    } else {
        2
    };
    (
        tier,
        magcl_config::registry::report_rank(row.family),
        name.to_string(),
    )
}

/// Baseline first, then MA labels alphabetically; variants in natural order.
fn group_sort_key(k: &GroupKey) -> impl Ord {
    (
        method_sort_key(&k.method),
        k.evaluator.clone(),
        k.split.clone(),
        k.ma != "none",
        k.ma.clone(),
        variant_sort_key(&k.variant),
        dataset_sort_key(&k.dataset),
    )
}

/// Orders `ma.pi=0.1` before `ma.pi=0.5` before `ma.pi=1.0` (numbers compared as numbers).
fn variant_sort_key(v: &str) -> Vec<(String, Option<i64>)> {
    v.split([' ', '=', ',', '[', ']'])
        .map(|t| {
            let n = t.parse::<f64>().ok().map(|x| (x * 1e6).round() as i64);
            (
                if n.is_some() {
                    String::new()
                } else {
                    t.to_string()
                },
                n,
            )
        })
        .collect()
}

/// A row's value of an `--only` key.
fn row_value(r: &ResultRow, key: &str) -> String {
    match key {
        "dataset" => r.dataset.clone(),
        "method" => r.method.clone(),
        "seed" => r.seed.to_string(),
        "ma" => r.ma.clone(),
        "variant" => r.variant.clone(),
        _ => r.evaluator.clone(),
    }
}

impl Report {
    /// Reads result files and builds the report.
    pub fn from_files(files: &[PathBuf], metric: Metric) -> Result<Report> {
        Report::from_files_with(files, metric, BuildOptions::default())
    }

    /// [`Report::from_files`] with options.
    pub fn from_files_with(
        files: &[PathBuf],
        metric: Metric,
        options: BuildOptions,
    ) -> Result<Report> {
        Report::from_files_only(files, metric, options, &Only::default())
    }

    /// [`Report::from_files_with`] over the rows `only` keeps (`magcl report --only`,
    /// matched as `magcl bench --only` matches cells: datasets and methods
    /// case-insensitively, `ma=ARS` also keeping `ARS gin+filter`, …). A value no row
    /// has is an error, as is a filter that keeps nothing.
    pub fn from_files_only(
        files: &[PathBuf],
        metric: Metric,
        options: BuildOptions,
        only: &Only,
    ) -> Result<Report> {
        if files.is_empty() {
            return Err(Error::Config("no result file given".into()));
        }
        let mut located = Vec::new();
        for f in files {
            for (r, line) in read_rows_located(f)? {
                located.push((r, format!("{}:{line}", f.display())));
            }
        }
        let read = located.len();
        let located = only.apply(located, "row", |(r, _), k| row_value(r, k), &|_, _| false)?;
        if located.is_empty() && !only.is_empty() {
            return Err(Error::Config(format!(
                "--only {only}: no row passes every key"
            )));
        }
        let left_out = read - located.len();
        let (rows, origins): (Vec<ResultRow>, Vec<String>) = located.into_iter().unzip();
        let mut report = Report::build_inner(rows, Some(&origins), metric, options)?;
        report.files = files.to_vec();
        if !only.is_empty() {
            report.only = Some((only.to_string(), left_out));
        }
        Ok(report)
    }

    /// Builds the report of `rows`. Node-level rows are grouped per preset
    /// (`base:code`, `base:paper`): runs of the two presets are different experiments.
    /// Rows of one group from different commits are refused (see [`Report::build_with`]).
    pub fn build(rows: Vec<ResultRow>, metric: Metric) -> Result<Report> {
        Report::build_inner(rows, None, metric, BuildOptions::default())
    }

    /// [`Report::build`] with options.
    pub fn build_with(
        rows: Vec<ResultRow>,
        metric: Metric,
        options: BuildOptions,
    ) -> Result<Report> {
        Report::build_inner(rows, None, metric, options)
    }

    /// `origins[i]` names where row i comes from (`file:line`) for error messages.
    fn build_inner(
        rows: Vec<ResultRow>,
        origins: Option<&[String]>,
        metric: Metric,
        options: BuildOptions,
    ) -> Result<Report> {
        let origin = |i: usize| {
            origins
                .and_then(|o| o.get(i))
                .map(|o| format!(" ({o})"))
                .unwrap_or_default()
        };
        let total = rows.len();
        let mut seen: HashMap<&str, &ResultRow> = HashMap::new();
        let mut duplicate_rows = 0;
        let mut missing_metric = 0;
        let mut values: HashMap<GroupKey, BTreeMap<u64, Vec<f64>>> = HashMap::new();
        let mut devices: HashMap<GroupKey, BTreeSet<String>> = HashMap::new();
        // The configuration (seed left out) of the first row of each group.
        let mut configs: HashMap<GroupKey, (serde_json::Value, &ResultRow)> = HashMap::new();
        let mut first_of_seed: HashMap<(GroupKey, u64), &ResultRow> = HashMap::new();
        let mut warned = Vec::new();
        let mut cross_commit_duplicates = Vec::new();
        // The commits of the rows used per group, with the first row (index) of each.
        let mut commits: HashMap<GroupKey, SeedsByCommit> = HashMap::new();
        // The groups pre-trained on a subset of the graphs, with their subset.
        let mut subsets: HashMap<GroupKey, pretrain::Setting> = HashMap::new();
        // The rows used (neither a repeated cell nor a repeated seed).
        let mut used: Vec<&ResultRow> = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            if let Some(first) = seen.get(r.config_hash.as_str()) {
                duplicate_rows += 1;
                cross_commit_duplicates.extend(cross_commit(first, r, metric));
                continue;
            }
            seen.insert(&r.config_hash, r);
            let cfg = config_without_seed(r);
            // A pre-training subset is part of the group's identity, read from the config
            // whether or not a grid label names it (see `pretrain`).
            let subset = pretrain::setting(&cfg);
            let key = GroupKey {
                dataset: r.dataset.clone(),
                method: method_key(r),
                evaluator: r.evaluator.clone(),
                ma: r.ma.clone(),
                variant: pretrain::variant_with_setting(&r.variant, subset),
                split: node_split(r),
            };
            if let Some(s) = subset {
                subsets.insert(key.clone(), s);
            }
            match configs.get(&key) {
                None => {
                    configs.insert(key.clone(), (cfg, r));
                }
                Some((first_cfg, first)) if *first_cfg != cfg => {
                    return Err(mixed_configs(&key, first, first_cfg, r, &cfg));
                }
                Some(_) => {}
            }
            // The same configuration and seed under another config hash (e.g. written by
            // a version that hashed differently) is the same cell again: never averaged.
            if let Some(first) = first_of_seed.get(&(key.clone(), r.seed)) {
                duplicate_rows += 1;
                cross_commit_duplicates.extend(cross_commit(first, r, metric));
                continue;
            }
            first_of_seed.insert((key.clone(), r.seed), r);
            used.push(r);
            commits
                .entry(key.clone())
                .or_default()
                .entry(r.git_commit.clone())
                .or_insert_with(|| (i, Vec::new()))
                .1
                .push(r.seed);
            if !r.warnings.is_empty() {
                warned.push(WarnedRun {
                    dataset: r.dataset.clone(),
                    method: method_key(r),
                    ma: r.ma.clone(),
                    variant: r.variant.clone(),
                    seed: r.seed,
                    accuracy: r.accuracy,
                    warnings: r.warnings.clone(),
                });
            }
            let Some(v) = metric.value(r) else {
                missing_metric += 1;
                continue;
            };
            if let Some(kind) = device_kind(&r.device) {
                devices
                    .entry(key.clone())
                    .or_default()
                    .insert(kind.to_string());
            }
            values
                .entry(key)
                .or_default()
                .entry(r.seed)
                .or_default()
                .push(v);
        }
        if values.is_empty() {
            return Err(Error::Config(format!(
                "no row has a value for the metric '{}' ({} rows read)",
                metric.as_str(),
                total
            )));
        }
        let mut mixed_commits = Vec::new();
        let mut mixed: Vec<(&GroupKey, &SeedsByCommit)> =
            commits.iter().filter(|(_, c)| c.len() > 1).collect();
        mixed.sort_by_key(|(k, _)| group_sort_key(k));
        for (key, by_commit) in mixed {
            if !options.allow_mixed_commits {
                let parts: Vec<String> = by_commit
                    .iter()
                    .map(|(c, (i, seeds))| {
                        format!(
                            "commit {c}: seeds {} (first row{})",
                            seed_list(seeds),
                            origin(*i)
                        )
                    })
                    .collect();
                return Err(Error::Config(format!(
                    "rows of {} · {} · {} · MA {} · variant '{}' come from {} commits ({}); \
                     a report does not pool one configuration's runs from different versions \
                     of the code: rerun the cells at one commit, report the files \
                     separately, or pass --allow-mixed-commits to pool them (the report then \
                     lists the group)",
                    key.dataset,
                    key.method,
                    key.evaluator,
                    key.ma,
                    key.variant,
                    by_commit.len(),
                    parts.join("; ")
                )));
            }
            mixed_commits.push(MixedCommits {
                key: key.clone(),
                commits: by_commit
                    .iter()
                    .map(|(c, (_, seeds))| (c.clone(), seeds.clone()))
                    .collect(),
            });
        }
        let mut groups: Vec<Group> = values
            .into_iter()
            .filter_map(|(key, by_seed)| {
                let by_seed: BTreeMap<u64, f64> = by_seed
                    .into_iter()
                    .filter_map(|(s, v)| stats::mean(&v).map(|m| (s, m)))
                    .collect();
                let xs: Vec<f64> = by_seed.values().copied().collect();
                stats::summarize(&xs).map(|summary| Group {
                    devices: devices.remove(&key).unwrap_or_default(),
                    key,
                    summary,
                    by_seed,
                })
            })
            .collect();
        groups.sort_by_key(|g| group_sort_key(&g.key));
        let mut comparisons = compare(&groups);
        apply_holm(&mut comparisons, HolmScope::Family);
        let floor = floor::lines(&groups);
        // Groups pre-trained on a subset are points of the pre-training size curves, not
        // of the training curves.
        let epochs: HashMap<GroupKey, usize> = configs
            .iter()
            .filter(|(k, _)| !subsets.contains_key(*k))
            .map(|(k, (cfg, r))| (k.clone(), curves::configured_epochs(cfg, r.epochs)))
            .collect();
        let curves = curves::build(&groups, &epochs);
        let pretrain = pretrain::build(&groups, &subsets);
        Ok(Report {
            metric,
            files: Vec::new(),
            only: None,
            rows: total,
            duplicate_rows,
            missing_metric,
            groups,
            comparisons,
            holm_scope: HolmScope::Family,
            warned,
            verdicts: None,
            cross_commit_duplicates,
            mixed_commits,
            mixed_copies: mixed_copies(&used),
            floor,
            curves,
            pretrain,
        })
    }

    /// Recomputes the Holm columns over `scope` (and the verdicts' Holm column).
    pub fn set_holm_scope(&mut self, scope: HolmScope) {
        apply_holm(&mut self.comparisons, scope);
        self.holm_scope = scope;
        if let Some(v) = &mut self.verdicts {
            v.holm_scope = scope;
            for m in v.rows.iter_mut().filter_map(|r| r.measured.as_mut()) {
                m.p_t_holm = table_holm(&self.comparisons, &m.key, m.baseline_method.as_deref());
            }
        }
    }

    /// Joins a claims file (see [`claims`]), reading [`claims::PRIMARY_MA`] first.
    pub fn add_claims(&mut self, file: &Path, c: &claims::ClaimsFile) {
        self.add_claims_with(file, c, claims::PRIMARY_MA);
    }

    /// Joins a claims file, reading the MA label `primary_ma` first where several
    /// readings measure a claim.
    pub fn add_claims_with(&mut self, file: &Path, c: &claims::ClaimsFile, primary_ma: &str) {
        self.verdicts = Some(claims::join(self, c, file, primary_ma));
    }

    /// Datasets in table order.
    pub fn datasets(&self) -> Vec<String> {
        let mut d: Vec<String> = self.groups.iter().map(|g| g.key.dataset.clone()).collect();
        d.sort_by_key(|x| dataset_sort_key(x));
        d.dedup();
        d
    }
}

/// Per commit: the index of its first row and the seeds of its rows.
type SeedsByCommit = BTreeMap<String, (usize, Vec<u64>)>;

/// The table's Holm p (t) of the comparison of group `key` against the baseline of
/// `baseline_method`: the report's table pairs every +MA group with its own method's
/// baseline only, so a measurement against another method's baseline (a claim's
/// `baseline_method`) is not in the table and has none.
pub(crate) fn table_holm(
    comparisons: &[Comparison],
    key: &GroupKey,
    baseline_method: Option<&str>,
) -> Option<f64> {
    if baseline_method.is_some_and(|b| b != key.method) {
        return None;
    }
    comparisons
        .iter()
        .find(|c| c.key == *key)
        .and_then(|c| c.p_t_holm)
}

/// Seeds as `0–4, 7, 9`.
fn seed_list(seeds: &[u64]) -> String {
    let mut s: Vec<u64> = seeds.to_vec();
    s.sort_unstable();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let mut j = i;
        while j + 1 < s.len() && s[j + 1] == s[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}–{}", s[i], s[j])
        } else {
            s[i].to_string()
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// A baseline's identity: (dataset, method, evaluator, split, variant).
type BaselineKey<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str);

/// The baselines (MA = none) of `groups`, by [`BaselineKey`].
fn baselines(groups: &[Group]) -> HashMap<BaselineKey<'_>, &Group> {
    groups
        .iter()
        .filter(|g| g.key.ma == "none")
        .map(|g| {
            (
                (
                    g.key.dataset.as_str(),
                    g.key.method.as_str(),
                    g.key.evaluator.as_str(),
                    g.key.split.as_str(),
                    g.key.variant.as_str(),
                ),
                g,
            )
        })
        .collect()
}

/// The baseline of the +MA group `k` among `baselines`, taken from `method`: same dataset,
/// evaluator and split, the same variant if that baseline has it, else the one without.
fn baseline_of<'a>(
    baselines: &HashMap<BaselineKey, &'a Group>,
    k: &GroupKey,
    method: &str,
) -> Option<&'a Group> {
    let key = |variant| {
        (
            k.dataset.as_str(),
            method,
            k.evaluator.as_str(),
            k.split.as_str(),
            variant,
        )
    };
    baselines
        .get(&key(k.variant.as_str()))
        .or_else(|| baselines.get(&key("")))
        .copied()
}

/// The floors (untrained encoders, graph kernels, raw features) are not compared with
/// MA: their rows are the reference of the floor section, and an untrained encoder under
/// MA's evaluation schedule is not a claim about MA, so it stays out of the comparisons'
/// Holm family.
fn compare(groups: &[Group]) -> Vec<Comparison> {
    let baselines = baselines(groups);
    groups
        .iter()
        .filter(|g| g.key.ma != "none" && !floor::is_baseline(&g.key.method))
        .filter_map(|g| pair(g, baseline_of(&baselines, &g.key, &g.key.method)?))
        .collect()
}

/// The seeds `g` and `base` both have (ascending), with `base`'s and `g`'s value at each.
pub fn paired_by_seed(g: &Group, base: &Group) -> (Vec<u64>, Vec<f64>, Vec<f64>) {
    let seeds: Vec<u64> = g
        .by_seed
        .keys()
        .filter(|s| base.by_seed.contains_key(s))
        .copied()
        .collect();
    let b = seeds
        .iter()
        .filter_map(|s| base.by_seed.get(s))
        .copied()
        .collect();
    let t = seeds
        .iter()
        .filter_map(|s| g.by_seed.get(s))
        .copied()
        .collect();
    (seeds, b, t)
}

/// `g` (+MA) against `base`, paired by seed over the seeds both have; `None` with no
/// testable pair.
fn pair(g: &Group, base: &Group) -> Option<Comparison> {
    let (seeds, b, t) = paired_by_seed(g, base);
    let test = stats::paired_comparison(&b, &t)?;
    Some(Comparison {
        key: g.key.clone(),
        baseline_variant: base.key.variant.clone(),
        few_seeds: seeds.len() < MIN_SEEDS,
        mixed_devices: MixedDevices::of(g, base),
        seeds,
        baseline_mean: stats::mean(&b).unwrap_or(f64::NAN),
        ma_mean: stats::mean(&t).unwrap_or(f64::NAN),
        test,
        p_t_holm: None,
        p_wilcoxon_holm: None,
    })
}

/// Comparisons of the +MA groups of `method` against the baseline (MA = none) of another
/// method, `baseline_method`, on the same dataset, evaluator and split (same variant if
/// that baseline has it, else the one without), paired by seed. This is how a claim whose
/// +MA arm changes more than MA is measured: the paper's AD-GCL+MA drops AD-GCL's learned
/// augmenter and adds MA, so its claim pairs `adgcl-fixed` +MA with `adgcl` as published.
/// Not part of the report's table, so no Holm correction.
pub fn cross_comparisons(groups: &[Group], method: &str, baseline_method: &str) -> Vec<Comparison> {
    let baselines = baselines(groups);
    groups
        .iter()
        .filter(|g| g.key.ma != "none" && g.key.method == method)
        .filter_map(|g| pair(g, baseline_of(&baselines, &g.key, baseline_method)?))
        .collect()
}

/// Fills the Holm columns: within each family (method, evaluator, split, MA setting,
/// variant) across datasets, or over all comparisons.
fn apply_holm(out: &mut [Comparison], scope: HolmScope) {
    let mut families: BTreeMap<(String, String, String, String, String), Vec<usize>> =
        BTreeMap::new();
    for (i, c) in out.iter().enumerate() {
        let family = match scope {
            HolmScope::Family => (
                c.key.method.clone(),
                c.key.evaluator.clone(),
                c.key.split.clone(),
                c.key.ma.clone(),
                c.key.variant.clone(),
            ),
            HolmScope::Table => Default::default(),
        };
        families.entry(family).or_default().push(i);
    }
    for idx in families.values() {
        let pt: Vec<Option<f64>> = idx
            .iter()
            .map(|&i| out[i].test.t_test.as_ref().and_then(|t| t.p))
            .collect();
        let pw: Vec<Option<f64>> = idx
            .iter()
            .map(|&i| out[i].test.wilcoxon.as_ref().map(|w| w.p))
            .collect();
        let ht = stats::holm(&pt);
        let hw = stats::holm(&pw);
        for (j, &i) in idx.iter().enumerate() {
            out[i].p_t_holm = ht[j];
            out[i].p_wilcoxon_holm = hw[j];
        }
    }
}

/// Reads the value of `key` out of a variant label such as `ma.view1=[0,2] ma.view2=[0,4]`.
pub fn variant_keys(variant: &str) -> Vec<(String, String)> {
    variant
        .split(' ')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Writes `text` to `path` (creating its folder) atomically: a temporary file beside it,
/// then a rename, so a failure leaves the previous file as it was.
pub fn write_file(path: &Path, text: &str) -> Result<()> {
    write_bytes(path, text.as_bytes())
}

/// Writes `bytes` to `path` atomically, like [`write_file`].
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::files::write_atomic(path, bytes)
}

/// The evaluation split of a node-level row (`node.split` of its config); empty for
/// graph-level rows and configs that do not record it.
fn node_split(r: &ResultRow) -> String {
    row_node(r)
        .split
        .map(|s| s.word().to_string())
        .unwrap_or_default()
}

/// The node section of a row's config as the trainers' types read it (preset and split);
/// empty for graph-level rows.
fn row_node(r: &ResultRow) -> magcl_config::settings::RowNode {
    serde_json::from_str::<serde_json::Value>(&r.config)
        .ok()
        .and_then(|mut c| c.get_mut("node").map(serde_json::Value::take))
        .and_then(|n| serde_json::from_value(n).ok())
        .unwrap_or_default()
}

/// The report entry of `again`, a repeat of the cell of `first`, if it comes from
/// another commit.
fn cross_commit(
    first: &ResultRow,
    again: &ResultRow,
    metric: Metric,
) -> Option<CrossCommitDuplicate> {
    (first.git_commit != again.git_commit).then(|| CrossCommitDuplicate {
        dataset: again.dataset.clone(),
        method: method_key(again),
        ma: again.ma.clone(),
        variant: again.variant.clone(),
        seed: again.seed,
        config_hash: again.config_hash.clone(),
        used_commit: first.git_commit.clone(),
        used_value: metric.value(first),
        other_commit: again.git_commit.clone(),
        other_value: metric.value(again),
    })
}

/// A row's configuration as JSON without its seed, in today's spelling
/// ([`config::normalise`]), so that files written before a field existed compare equal.
fn config_without_seed(r: &ResultRow) -> serde_json::Value {
    let mut v = config::normalise(&r.config);
    if let Some(o) = v.as_object_mut() {
        o.remove("seed");
    }
    v
}

/// The dotted keys where two configs differ, with both values (at most `limit`).
fn differing_keys(a: &serde_json::Value, b: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let null = Value::Null;
                differing_keys(
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                    &p,
                    out,
                );
            }
        }
        _ if a != b => {
            let name = if path.is_empty() { "config" } else { path };
            out.push(format!("{name} ({a} vs {b})"));
        }
        _ => {}
    }
}

fn mixed_configs(
    key: &GroupKey,
    first: &ResultRow,
    first_cfg: &serde_json::Value,
    other: &ResultRow,
    other_cfg: &serde_json::Value,
) -> Error {
    let mut keys = Vec::new();
    differing_keys(first_cfg, other_cfg, "", &mut keys);
    let shown = keys.len().min(8);
    let more = if keys.len() > shown {
        format!(" and {} more", keys.len() - shown)
    } else {
        String::new()
    };
    Error::Config(format!(
        "rows of {} · {} · {} · MA {} · variant '{}' come from different configurations \
         (seed {} config_hash {} from commit {} vs seed {} config_hash {} from commit {}), \
         differing in {}{more}; a report never averages different configurations: \
         report these files separately, or run the settings as grid variants",
        key.dataset,
        key.method,
        key.evaluator,
        key.ma,
        key.variant,
        first.seed,
        first.config_hash,
        first.git_commit,
        other.seed,
        other.config_hash,
        other.git_commit,
        keys[..shown].join(", ")
    ))
}

/// The method part of a group key: the method, with the node-level preset appended
/// (`base:paper`) so that the two presets never share a group.
fn method_key(r: &ResultRow) -> String {
    if !floor::keyed_by_preset(&r.method) {
        return r.method.clone();
    }
    match row_node(r).preset {
        Some(p) => format!("{}:{p}", r.method),
        None => r.method.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seed: u64, commit: &str) -> ResultRow {
        ResultRow {
            variant: String::new(),
            config_hash: format!("h{seed}"),
            git_commit: commit.into(),
            accuracy: 80.0 + seed as f64,
            ..crate::results::tests::row(seed)
        }
    }

    /// One configuration's seeds from two commits: refused, naming the group, both
    /// commits and their seeds; with the option, pooled and listed.
    #[test]
    fn rows_of_one_config_from_two_commits() {
        let rows = vec![row(0, "aaa"), row(1, "aaa"), row(2, "bbb"), row(3, "bbb")];
        let e = Report::build(rows.clone(), Metric::Accuracy)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("MUTAG · graphcl")
                && e.contains("commit aaa: seeds 0–1")
                && e.contains("commit bbb: seeds 2–3")
                && e.contains("--allow-mixed-commits"),
            "{e}"
        );
        let r = Report::build_with(
            rows,
            Metric::Accuracy,
            BuildOptions {
                allow_mixed_commits: true,
            },
        )
        .unwrap();
        assert_eq!(r.mixed_commits.len(), 1);
        assert_eq!(
            r.mixed_commits[0].commits,
            vec![
                ("aaa".to_string(), vec![0, 1]),
                ("bbb".to_string(), vec![2, 3])
            ]
        );
        assert_eq!(r.groups[0].summary.n, 4);
        assert!(render::markdown(&r).contains("Groups pooled from more than one commit"));
        // A repeat of a cell from another commit is not mixing: it is left out and listed.
        let mut again = row(1, "bbb");
        again.config_hash = "h1".into();
        let r = Report::build(vec![row(0, "aaa"), row(1, "aaa"), again], Metric::Accuracy).unwrap();
        assert_eq!(r.cross_commit_duplicates.len(), 1);
        assert!(r.mixed_commits.is_empty());
    }

    /// A comparison whose two sides ran on different kinds of device (CPU rows against
    /// GPU rows; `cuda:0` and `cuda:1` are one kind) is marked and listed with both
    /// sides' kinds; one kind on both sides is not.
    #[test]
    fn comparisons_across_device_kinds_are_listed() {
        let with = |seed: u64, ma: &str, device: &str| ResultRow {
            ma: ma.into(),
            config_hash: format!("h{seed}{ma}"),
            device: device.into(),
            ..row(seed, "aaa")
        };
        let one_kind: Vec<ResultRow> = (0..3)
            .flat_map(|s| [with(s, "none", "cuda:0"), with(s, "ARS", "cuda:1")])
            .collect();
        let r = Report::build(one_kind, Metric::Accuracy).unwrap();
        assert_eq!(r.comparisons.len(), 1);
        assert_eq!(r.comparisons[0].mixed_devices, None);
        assert!(!render::markdown(&r).contains("Comparisons across kinds of device"));

        let mixed: Vec<ResultRow> = (0..3)
            .flat_map(|s| [with(s, "none", "cpu"), with(s, "ARS", "cuda:0")])
            .collect();
        let r = Report::build(mixed, Metric::Accuracy).unwrap();
        assert_eq!(
            r.comparisons[0].mixed_devices,
            Some(MixedDevices {
                baseline: vec!["cpu".into()],
                treatment: vec!["cuda".into()],
            })
        );
        let md = render::markdown(&r);
        assert!(md.contains("## Comparisons across kinds of device"), "{md}");
        assert!(md.contains("| without MA | cuda | cpu |"), "{md}");
        // One side mixing kinds is listed too; rows that record no device add none.
        let mut half = vec![with(0, "none", "cpu"), with(1, "none", "cuda:0")];
        half.extend((0..2).map(|s| with(s, "ARS", "cpu")));
        half.push(with(2, "none", ""));
        let r = Report::build(half, Metric::Accuracy).unwrap();
        let d = r.comparisons[0].mixed_devices.as_ref().unwrap();
        assert_eq!(d.baseline, vec!["cpu".to_string(), "cuda".to_string()]);
        assert_eq!(d.treatment, vec!["cpu".to_string()]);
        assert_eq!(device_kind(""), None);
        assert_eq!(device_kind("cuda:3"), Some("cuda"));
    }

    /// The error of a file names its file and line.
    #[test]
    fn mixed_commits_error_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let (w, _) = crate::results::ResultsFile::open(&path, false).unwrap();
        for r in [row(0, "aaa"), row(1, "bbb")] {
            w.append(&r).unwrap();
        }
        drop(w);
        let e = Report::from_files(std::slice::from_ref(&path), Metric::Accuracy)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("{}:3", path.display())), "{e}");
    }

    /// Rows of one dataset read from copies whose sha256 differ are listed (the same
    /// bytes at another path are one copy; rows without a recorded copy are counted
    /// apart), whether the rows are of one group or of two paired ones; one copy, or
    /// one copy beside unrecorded rows, is not listed.
    #[test]
    fn rows_read_from_different_copies_are_listed() {
        let (a, b) = ("a".repeat(64), "b".repeat(64));
        let with = |seed: u64, ma: &str, source: String| ResultRow {
            ma: ma.into(),
            config_hash: format!("h{seed}{ma}"),
            data_source: source,
            ..row(seed, "aaa")
        };
        let same = vec![
            with(0, "none", format!("/x/tu/MUTAG sha256:{a}")),
            with(1, "none", format!("/y/tu/MUTAG sha256:{a}")),
            with(2, "none", String::new()),
            with(0, "ARS", format!("/x/tu/MUTAG sha256:{a}")),
        ];
        let r = Report::build(same.clone(), Metric::Accuracy).unwrap();
        assert!(r.mixed_copies.is_empty());
        assert!(!render::markdown(&r).contains("more than one copy"));
        assert!(!render::json(&r).unwrap().contains("mixed_copies"));
        let mut mixed = same;
        mixed.push(with(1, "ARS", format!("/z/dgcnn/MUTAG.zip sha256:{b}")));
        let r = Report::build(mixed, Metric::Accuracy).unwrap();
        assert_eq!(r.mixed_copies.len(), 1);
        let m = &r.mixed_copies[0];
        assert_eq!(m.dataset, "MUTAG");
        assert_eq!(
            m.copies,
            vec![
                (format!("/x/tu/MUTAG sha256:{a}"), 3),
                (format!("/z/dgcnn/MUTAG.zip sha256:{b}"), 1)
            ]
        );
        assert_eq!(m.unrecorded, 1);
        let md = render::markdown(&r);
        assert!(
            md.contains("## Datasets read from more than one copy"),
            "{md}"
        );
        assert!(
            md.contains(&format!(
                "| MUTAG | `/x/tu/MUTAG sha256:{a}`: 3; `/z/dgcnn/MUTAG.zip sha256:{b}`: 1 | 1 |"
            )),
            "{md}"
        );
    }

    #[test]
    fn seed_lists() {
        assert_eq!(seed_list(&[4, 0, 1, 2, 7, 9, 10]), "0–2, 4, 7, 9–10");
        assert_eq!(seed_list(&[]), "");
    }
}
