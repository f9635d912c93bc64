//! The paper's claims beside the measurements: a claims file (TOML, e.g.
//! `configs/claims/ma_gcl_paper.toml`) lists what the paper reports MA to do — a
//! claimed Δ = +MA − baseline per dataset and method — and [`join`] pairs every claim with
//! the report's comparisons that test it and gives each pair a verdict.
//!
//! Two tests per (claim, comparison) line, each with Holm's correction over the measured
//! lines of the verdict table (stated the same way in the markdown output and
//! docs/report.md): the paired t-test of Δ = 0, and the test of Δ = c, the claimed Δ,
//! taking into account that c is itself a difference of two published means with their
//! own stds and run counts ([`inference::claim_test`]; where the paper prints no std the
//! measured arm's std stands in, where it states no run count 5 runs are assumed). At
//! α = 0.05 after Holm:
//! - **confirmed**: Δ = 0 rejected with the claimed sign; "smaller/larger than claimed"
//!   when Δ = c is rejected too.
//! - **opposite sign**: Δ = 0 rejected with the other sign.
//! - **not reproduced**: the direction not shown, and Δ = c rejected.
//! - **cannot tell**: neither rejected once the claim's uncertainty and Holm's correction
//!   are counted; the line's own 95% interval may still exclude the claimed Δ or 0.
//! - **not measured**: no comparison in the result files matches the claim.
//!
//! Every line also has the power of the paired t-test at a true Δ of |c| and the
//! minimum detectable effect, from std(Δ), or with fewer than [`POOL_BELOW`] pairs from
//! std(Δ) pooled over the comparisons of the same dataset, method, evaluator and split.
//! The per-claim summary ([`per_claim`]) reads one line per claim: the primary MA reading
//! ([`PRIMARY_MA`]) where several readings measure it.
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::floor::{self, FloorKind, FloorLine};
use super::format::{fmt_ci, fmt_num, fmt_opt, fmt_p, method_label, method_name};
use super::{inference, Comparison, GroupKey, HolmScope, Metric, Report};
use crate::error::{Error, Result};

/// A claims file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimsFile {
    /// What the file holds, e.g. "MA-GCL (AAAI 2023): graph- and node-level claims".
    pub title: String,
    /// The publication the numbers come from.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(rename = "claim", default)]
    pub claims: Vec<Claim>,
}

/// One claimed effect of MA.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Unique name, e.g. `fig3-graphcl-nci1`.
    pub id: String,
    /// `graph` or `node`.
    pub level: String,
    /// magcl's dataset name (`NCI1`, `IMDB-BINARY`, `Cora`, …).
    pub dataset: String,
    /// magcl's method: `graphcl`, `simgrace`, `adgcl`; `base` matches the node-level
    /// base model under every preset (`base:code`, `base:paper`).
    pub method: String,
    /// Which MA settings test the claim: `*` (the default) any setting other than
    /// `none`; `X*` any setting starting with `X`; otherwise this exact label.
    #[serde(default = "any_ma")]
    pub ma: String,
    /// Node level: the evaluation split (`public` or `random`); unset matches any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// `accuracy` (the default, in %) or `nmi`.
    #[serde(default = "accuracy")]
    pub metric: String,
    /// The claimed Δ = +MA − baseline.
    pub delta: f64,
    /// The baseline's method where it is not `method`: the claim's +MA arm then differs
    /// from its baseline in more than MA, and the measurement pairs `method` +MA with
    /// `baseline_method` without MA, seed by seed (AD-GCL+MA: `method = "adgcl-fixed"`,
    /// `baseline_method = "adgcl"`). Unset: the baseline is `method` without MA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_method: Option<String>,
    /// The paper's baseline value, where it prints one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f64>,
    /// The paper's +MA value, where it prints one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub treatment: Option<f64>,
    /// The std the paper prints with its baseline value (the claim's uncertainty);
    /// unset: the measured baseline's std stands in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_std: Option<f64>,
    /// The std the paper prints with its +MA value; unset: the measured +MA std.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub treatment_std: Option<f64>,
    /// How many runs the baseline value averages; unset: 5 are assumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_runs: Option<usize>,
    /// How many runs the +MA value averages; unset: 5 are assumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub treatment_runs: Option<usize>,
    /// Where in the paper the numbers are: table or figure.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

fn any_ma() -> String {
    "*".into()
}

fn accuracy() -> String {
    "accuracy".into()
}

/// Largest allowed gap between `delta` and `treatment − baseline` (the paper rounds to
/// 0.01; Fig. 3 values are read off bars to about ±0.02 each).
pub const DELTA_TOLERANCE: f64 = 0.045;

impl ClaimsFile {
    /// Reads and checks a claims file.
    pub fn read(path: &Path) -> Result<ClaimsFile> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::file(path, format!("cannot read the claims file: {e}")))?;
        ClaimsFile::parse(&text).map_err(|msg| Error::file(path, msg))
    }

    /// Parses and checks the text of a claims file; the error says which claim is wrong.
    pub fn parse(text: &str) -> std::result::Result<ClaimsFile, String> {
        let file: ClaimsFile =
            toml::from_str(text).map_err(|e| format!("not a valid claims file: {e}"))?;
        if file.claims.is_empty() {
            return Err("no [[claim]] entry".into());
        }
        let mut ids = HashSet::new();
        for (i, c) in file.claims.iter().enumerate() {
            let at = format!("claim #{} (id '{}')", i + 1, c.id);
            if c.id.trim().is_empty() {
                return Err(format!("claim #{}: empty id", i + 1));
            }
            if !ids.insert(c.id.as_str()) {
                return Err(format!("{at}: the id is used twice"));
            }
            if c.level != "graph" && c.level != "node" {
                return Err(format!("{at}: level '{}': expected graph or node", c.level));
            }
            Metric::parse(&c.metric).map_err(|e| format!("{at}: {e}"))?;
            if !c.delta.is_finite() {
                return Err(format!("{at}: delta must be a finite number"));
            }
            if let Some(s) = &c.split {
                if s != "public" && s != "random" {
                    return Err(format!("{at}: split '{s}': expected public or random"));
                }
            }
            if let Some(b) = &c.baseline_method {
                if b.trim().is_empty() || *b == c.method {
                    return Err(format!(
                        "{at}: baseline_method '{b}': name a method other than '{}' (or leave it out)",
                        c.method
                    ));
                }
            }
            for (name, v) in [
                ("baseline_std", c.baseline_std),
                ("treatment_std", c.treatment_std),
            ] {
                if let Some(v) = v.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                    return Err(format!(
                        "{at}: {name} {v}: a standard deviation is a finite number ≥ 0"
                    ));
                }
            }
            for (name, v) in [
                ("baseline_runs", c.baseline_runs),
                ("treatment_runs", c.treatment_runs),
            ] {
                if let Some(v) = v.filter(|v| *v < 2) {
                    return Err(format!(
                        "{at}: {name} {v}: a published mean ± std averages at least 2 runs"
                    ));
                }
            }
            if c.source.trim().is_empty() {
                return Err(format!("{at}: empty source (cite the table or figure)"));
            }
            if let (Some(b), Some(t)) = (c.baseline, c.treatment) {
                if (t - b - c.delta).abs() > DELTA_TOLERANCE {
                    return Err(format!(
                        "{at}: delta {} but treatment − baseline = {} − {} = {:.3}",
                        c.delta,
                        t,
                        b,
                        t - b
                    ));
                }
            }
        }
        Ok(file)
    }
}

impl Claim {
    /// Whether comparison `c` (of a report on `metric`) tests this claim.
    pub fn matches(&self, c: &Comparison, metric: Metric) -> bool {
        let k = &c.key;
        let method_ok = k.method == self.method
            || (floor::keyed_by_preset(&self.method) && floor::family(&k.method) == self.method);
        let ma_ok = match self.ma.as_str() {
            "*" => k.ma != "none",
            m => match m.strip_suffix('*') {
                Some(prefix) => k.ma.starts_with(prefix),
                None => k.ma == m,
            },
        };
        let split_ok = self.split.as_ref().is_none_or(|s| *s == k.split);
        self.metric == metric.as_str()
            && k.dataset == self.dataset
            && method_ok
            && ma_ok
            && split_ok
    }
}

/// The verdict of one claim against one comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Δ ≠ 0 rejected (Holm) with the claimed sign.
    Confirmed,
    /// Δ ≠ 0 rejected (Holm) with the other sign: MA does the opposite of the claim.
    OppositeSign,
    /// Direction not shown, and Δ = claimed Δ rejected (Holm, with the claim's own
    /// uncertainty): the claimed effect does not reproduce.
    NotReproduced,
    /// Neither test rejects (with the claim's uncertainty and Holm's correction); the
    /// line's own interval may still exclude the claimed Δ or 0.
    CannotTell,
    NotMeasured,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::OppositeSign => "opposite sign",
            Verdict::NotReproduced => "not reproduced",
            Verdict::CannotTell => "cannot tell",
            Verdict::NotMeasured => "not measured",
        }
    }
    /// Every verdict, in the order the counts are printed.
    pub const ALL: [Verdict; 5] = [
        Verdict::Confirmed,
        Verdict::OppositeSign,
        Verdict::NotReproduced,
        Verdict::CannotTell,
        Verdict::NotMeasured,
    ];
}

/// Level of the verdicts' tests (after Holm's correction).
pub const VERDICT_ALPHA: f64 = 0.05;

/// Power below which a verdict line is flagged as unable to test the claim.
pub const POWER_TARGET: f64 = 0.8;

/// Lines with fewer pairs than this take the std of Δ behind their MDE and power from
/// the pooled std of their family (see [`Measured::pooled`]).
pub const POOL_BELOW: usize = 10;

/// The verdict for claimed Δ `claim` given the measured mean Δ and the Holm-adjusted
/// p-values of the two tests behind it: `p_zero` of Δ = 0 (paired t-test) and `p_claim`
/// of Δ = claim (with the claim's uncertainty). The note says "smaller than claimed" or
/// "larger than claimed" where Δ = claim is rejected. See the module documentation.
pub fn verdict(
    claim: f64,
    mean_diff: f64,
    p_zero: Option<f64>,
    p_claim: Option<f64>,
) -> (Verdict, Option<&'static str>) {
    let rejects = |p: Option<f64>| p.is_some_and(|p| p < VERDICT_ALPHA);
    let magnitude = rejects(p_claim).then(|| {
        if mean_diff.abs() < claim.abs() || mean_diff.signum() != claim.signum() {
            "smaller than claimed"
        } else {
            "larger than claimed"
        }
    });
    if claim != 0.0 && rejects(p_zero) && mean_diff != 0.0 {
        if mean_diff.signum() == claim.signum() {
            return (Verdict::Confirmed, magnitude);
        }
        return (Verdict::OppositeSign, None);
    }
    if rejects(p_claim) {
        return (Verdict::NotReproduced, magnitude);
    }
    (Verdict::CannotTell, None)
}

/// One arm of the measurement (all the seeds of the group, not only the paired ones).
#[derive(Clone, Debug, Serialize)]
pub struct Arm {
    pub n: usize,
    pub mean: f64,
    pub std: Option<f64>,
    pub ci95: Option<(f64, f64)>,
}

/// The measurement a verdict rests on.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    #[serde(flatten)]
    pub key: GroupKey,
    pub pairs: usize,
    pub mean_diff: f64,
    /// std(Δ) of these pairs (ddof = 1).
    pub std_diff: Option<f64>,
    pub ci95: Option<(f64, f64)>,
    /// The std of Δ behind `mde` and `power_at_claim`: `std_diff`, or with fewer than
    /// [`POOL_BELOW`] pairs the pooled std of the family.
    pub power_std: Option<f64>,
    /// Fewer than [`POOL_BELOW`] pairs: the std of Δ pooled over the comparisons with the
    /// same dataset, method, evaluator and split (every MA setting and variant, against
    /// the same baseline), weighted by their degrees of freedom.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pooled: Option<inference::Pooled>,
    /// Minimum detectable effect at 80% power with `power_std`.
    pub mde: Option<f64>,
    /// Power of the paired t-test (α = 0.05) at a true Δ of |claim Δ|, with `power_std`.
    pub power_at_claim: Option<f64>,
    /// Paired t-test of Δ = 0, raw.
    pub p_t: Option<f64>,
    /// The report table's Holm p of Δ = 0 (`--holm`); `None` for a measurement against
    /// another method's baseline, which is not in the table.
    pub p_t_holm: Option<f64>,
    /// Holm's correction of `p_t` over the verdict's measured lines.
    pub p_zero_holm: Option<f64>,
    /// The claim's published arms as the test of Δ = claim used them.
    pub claim_treatment: inference::ClaimArm,
    pub claim_baseline: inference::ClaimArm,
    /// The test of Δ = claim with the claim's uncertainty.
    pub claim_test: Option<inference::ClaimTest>,
    /// Holm's correction of the Δ = claim p-value over the verdict's measured lines.
    pub p_claim_holm: Option<f64>,
    /// The baseline's method where it is not the key's (the claim's `baseline_method`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_method: Option<String>,
    /// The baseline and +MA groups over all their seeds.
    pub baseline_arm: Option<Arm>,
    pub treatment_arm: Option<Arm>,
    /// The two arms' rows ran on more than one kind of device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed_devices: Option<crate::MixedDevices>,
}

/// One line of the verdict table.
#[derive(Clone, Debug, Serialize)]
pub struct VerdictRow {
    pub claim: Claim,
    /// `None`: no comparison matches the claim.
    pub measured: Option<Measured>,
    pub verdict: Verdict,
    /// "smaller than claimed" / "larger than claimed" where Δ = claim is rejected.
    pub magnitude: Option<&'static str>,
    /// Power at |claim Δ| below [`POWER_TARGET`]: the line cannot test the claim.
    pub low_power: Option<bool>,
}

/// The verdict table of a report against a claims file.
#[derive(Clone, Debug, Serialize)]
pub struct Verdicts {
    pub file: PathBuf,
    pub title: String,
    pub source: String,
    /// The report table's Holm scope (the `p_t_holm` column); the verdicts' own Holm
    /// family is always their measured lines.
    pub holm_scope: HolmScope,
    /// The MA label read first where a claim is measured by several readings.
    pub primary_ma: String,
    pub rows: Vec<VerdictRow>,
    /// Claims on the other metric (not shown).
    pub other_metric: usize,
    /// The paired gain over the untrained encoder of the methods the claims measure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub floor: Vec<FloorLine>,
}

/// The MA label read first where a claim is measured under several readings: the
/// released code's reading.
pub const PRIMARY_MA: &str = "ARS code";

/// The group of `key` in `report`.
fn arm(report: &Report, key: &GroupKey) -> Option<Arm> {
    report.groups.iter().find(|g| g.key == *key).map(|g| Arm {
        n: g.summary.n,
        mean: g.summary.mean,
        std: g.summary.std,
        ci95: g.summary.ci95,
    })
}

/// The claim's arm: the printed std and run count, else the measured arm's std and
/// [`inference::ASSUMED_RUNS`] runs.
fn claim_arm(std: Option<f64>, runs: Option<usize>, measured: Option<&Arm>) -> inference::ClaimArm {
    let measured_std = measured.and_then(|a| a.std).unwrap_or(0.0);
    inference::ClaimArm {
        std: std.unwrap_or(measured_std),
        runs: runs.unwrap_or(inference::ASSUMED_RUNS),
        std_assumed: std.is_none(),
        runs_assumed: runs.is_none(),
    }
}

/// The pooled std of Δ over the comparisons of `pool` with the dataset, method,
/// evaluator and split of `c`.
fn pooled_std(c: &Comparison, pool: &[Comparison]) -> Option<inference::Pooled> {
    let parts: Vec<(f64, f64)> = pool
        .iter()
        .filter(|o| {
            o.key.dataset == c.key.dataset
                && o.key.method == c.key.method
                && o.key.evaluator == c.key.evaluator
                && o.key.split == c.key.split
        })
        .filter_map(|o| Some((o.test.std_diff?, o.test.n as f64 - 1.0)))
        .collect();
    inference::pool(&parts)
}

/// Joins `claims` with the comparisons of `report`: one row per (claim, matching
/// comparison), and one "not measured" row per claim that nothing matches. `primary_ma`
/// is the reading the per-claim summary reads first ([`PRIMARY_MA`] by default).
pub fn join(report: &Report, claims: &ClaimsFile, file: &Path, primary_ma: &str) -> Verdicts {
    let mut rows = Vec::new();
    let mut other_metric = 0;
    for claim in &claims.claims {
        if claim.metric != report.metric.as_str() {
            other_metric += 1;
            continue;
        }
        let mut any = false;
        let cross = claim
            .baseline_method
            .as_deref()
            .map(|b| super::cross_comparisons(&report.groups, &claim.method, b));
        let pool = cross.as_deref().unwrap_or(&report.comparisons);
        for c in pool.iter().filter(|c| claim.matches(c, report.metric)) {
            any = true;
            let pooled = (c.test.n < POOL_BELOW)
                .then(|| pooled_std(c, pool))
                .flatten()
                .filter(|p| p.cells > 1);
            let power_std = pooled.as_ref().map(|p| p.std).or(c.test.std_diff);
            let mde = power_std
                .and_then(|s| crate::stats::mde_effect_size_default(c.test.n).map(|d| d * s));
            let power_at_claim = power_std.filter(|s| *s > 0.0).and_then(|s| {
                crate::stats::paired_t_power(claim.delta.abs() / s, c.test.n, VERDICT_ALPHA)
            });
            let base_key = GroupKey {
                method: claim
                    .baseline_method
                    .clone()
                    .unwrap_or_else(|| c.key.method.clone()),
                ma: "none".into(),
                variant: c.baseline_variant.clone(),
                ..c.key.clone()
            };
            let baseline_arm = arm(report, &base_key);
            let treatment_arm = arm(report, &c.key);
            let claim_treatment = claim_arm(
                claim.treatment_std,
                claim.treatment_runs,
                treatment_arm.as_ref(),
            );
            let claim_baseline = claim_arm(
                claim.baseline_std,
                claim.baseline_runs,
                baseline_arm.as_ref(),
            );
            let claim_test = c.test.std_diff.and_then(|sd| {
                inference::claim_test(
                    c.test.mean_diff,
                    sd,
                    c.test.n,
                    claim.delta,
                    &claim_treatment,
                    &claim_baseline,
                )
            });
            rows.push(VerdictRow {
                claim: claim.clone(),
                measured: Some(Measured {
                    key: c.key.clone(),
                    pairs: c.test.n,
                    mean_diff: c.test.mean_diff,
                    std_diff: c.test.std_diff,
                    ci95: c.test.ci95_diff,
                    power_std,
                    pooled,
                    mde,
                    power_at_claim,
                    p_t: c.test.t_test.as_ref().and_then(|t| t.p),
                    p_t_holm: super::table_holm(
                        &report.comparisons,
                        &c.key,
                        claim.baseline_method.as_deref(),
                    ),
                    p_zero_holm: None,
                    claim_treatment,
                    claim_baseline,
                    claim_test,
                    p_claim_holm: None,
                    baseline_method: claim.baseline_method.clone(),
                    baseline_arm,
                    treatment_arm,
                    mixed_devices: c.mixed_devices.clone(),
                }),
                verdict: Verdict::CannotTell,
                magnitude: None,
                low_power: power_at_claim.map(|p| p < POWER_TARGET),
            });
        }
        if !any {
            rows.push(VerdictRow {
                claim: claim.clone(),
                measured: None,
                verdict: Verdict::NotMeasured,
                magnitude: None,
                low_power: None,
            });
        }
    }
    decide(&mut rows);
    let methods: Vec<&str> = claims
        .claims
        .iter()
        .filter(|c| c.metric == report.metric.as_str())
        .flat_map(|c| std::iter::once(c.method.as_str()).chain(c.baseline_method.as_deref()))
        .collect();
    let floor = report
        .floor
        .iter()
        .filter(|l| {
            l.kind == FloorKind::Untrained
                && methods
                    .iter()
                    .any(|m| *m == l.key.method || super::floor::family(&l.key.method) == *m)
        })
        .cloned()
        .collect();
    Verdicts {
        file: file.to_path_buf(),
        title: claims.title.clone(),
        source: claims.source.clone(),
        holm_scope: report.holm_scope,
        primary_ma: primary_ma.to_string(),
        rows,
        other_metric,
        floor,
    }
}

/// Holm's correction of both tests over the measured lines, then each line's verdict.
fn decide(rows: &mut [VerdictRow]) {
    let idx: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].measured.is_some())
        .collect();
    let m = |i: usize| rows[i].measured.as_ref();
    let pz: Vec<Option<f64>> = idx.iter().map(|&i| m(i).and_then(|m| m.p_t)).collect();
    let pc: Vec<Option<f64>> = idx
        .iter()
        .map(|&i| m(i).and_then(|m| m.claim_test.as_ref()).and_then(|t| t.p))
        .collect();
    let (hz, hc) = (crate::stats::holm(&pz), crate::stats::holm(&pc));
    for (j, &i) in idx.iter().enumerate() {
        let r = &mut rows[i];
        let Some(meas) = r.measured.as_mut() else {
            continue;
        };
        meas.p_zero_holm = hz[j];
        meas.p_claim_holm = hc[j];
        let (v, magnitude) = verdict(r.claim.delta, meas.mean_diff, hz[j], hc[j]);
        r.verdict = v;
        r.magnitude = magnitude;
    }
}

/// A signed number at `d` decimals; a value that rounds to zero prints as plain 0.
pub fn signed(x: f64, d: usize) -> String {
    let zero = fmt_num(0.0, d);
    let s = fmt_num(x, d);
    if s.trim_start_matches('-') == zero {
        zero
    } else if x > 0.0 {
        format!("+{s}")
    } else {
        s
    }
}

/// The verdict line's label of a measurement: method, MA setting, variant.
pub fn measured_label(k: &GroupKey) -> String {
    let mut s = format!("{} +MA ({})", method_label(k), k.ma);
    if !k.variant.is_empty() {
        s.push_str(&format!(" [{}]", k.variant));
    }
    s
}

/// The label of a verdict's measurement: [`measured_label`], and "vs BASELINE" where the
/// baseline is another method's.
pub fn measured_vs_label(m: &Measured) -> String {
    let mut s = measured_label(&m.key);
    if let Some(b) = &m.baseline_method {
        s.push_str(&format!(" vs {} without MA", method_name(b)));
    }
    s
}

/// The verdict text of a row: the verdict and its magnitude note.
pub fn verdict_text(r: &VerdictRow) -> String {
    let mut s = r.verdict.as_str().to_string();
    if let Some(m) = r.magnitude {
        s.push_str(&format!(" ({m})"));
    }
    s
}

/// Definitions printed under the verdict table.
pub const VERDICT_NOTES: &str = "\
- **claim Δ**: the paper's +MA − baseline (source column: table or figure), with its standard error se = √(s_T²/n_T + s_B²/n_B) from the published stds and run counts of its two means; where the paper prints no std, the measured arm's std stands in, and where it states no run count, 5 runs (the original scripts' seeds) are assumed (marked *; the CSV says which). **measured Δ**: this report's paired Δ with its 95% Student-t interval.
- **Two tests per line**, each Holm-corrected over the measured lines of this table (the family: every claim × reading line with a measurement), at α = 0.05: the paired t-test of Δ = 0 (**Holm p (Δ = 0)**), and the test of Δ = claim Δ with the claim's uncertainty, t = (Δ̂ − c)/√(se_Δ̂² + se_c²) with Welch–Satterthwaite degrees of freedom (**Holm p (Δ = claim)**).
- **confirmed**: Δ = 0 rejected, on the claimed side; \"smaller/larger than claimed\" when Δ = claim is rejected too.
- **opposite sign**: Δ = 0 rejected on the other side of 0 from the claim: MA does the opposite of what is claimed.
- **not reproduced**: the direction is not shown, and Δ = claim is rejected: the measured effect is smaller than the claim, beyond the claim's own uncertainty.
- **cannot tell**: neither test rejects once the claim's own uncertainty and Holm's correction are counted. That is not \"consistent with both\": the line's own 95% interval can still exclude the claim Δ (or 0); compare the two columns, and read the line with the power column.
- **power at claim**: the probability that the paired t-test (α = 0.05) detects a true Δ of |claim Δ| with these pairs and this spread; below 0.8 a line cannot test the claim, whatever its verdict. **MDE (80%)**: the Δ detected with power 0.8. Both use std(Δ) of the line, or, with fewer than 10 pairs, std(Δ) pooled over the comparisons of the same dataset, method, evaluator and split (every MA setting, weighted by n − 1; marked ‡), since 5 seeds give a noisy std.
- **not measured**: no comparison in the result files matches the claim (same dataset, method, MA setting, split and metric).
- **Per claim**: a claim measured under several MA readings reads the primary one (the released code's reading unless `--primary-ma` says otherwise); readings share their baseline, so they are not independent confirmations. **arms − paper**: each measured arm's mean minus the paper's printed value, \"matches\" when the paper's value lies in the arm's 95% interval, \"departs\" when it does not.
";

fn claim_cell(m: Option<&Measured>, c: &Claim, d: usize) -> String {
    match m {
        Some(m) => {
            let assumed = m.claim_treatment.std_assumed
                || m.claim_treatment.runs_assumed
                || m.claim_baseline.std_assumed
                || m.claim_baseline.runs_assumed;
            let se = m.claim_test.as_ref().map(|t| t.claim_se);
            format!(
                "{} (se {}{})",
                signed(c.delta, d),
                fmt_opt(se, d),
                if assumed { "*" } else { "" }
            )
        }
        None => signed(c.delta, d),
    }
}

fn power_cell(m: &Measured) -> String {
    match m.power_at_claim {
        Some(p) => format!("{p:.2}{}", if m.pooled.is_some() { " ‡" } else { "" }),
        None => "–".into(),
    }
}

fn mde_cell(m: &Measured, d: usize) -> String {
    format!(
        "{}{}",
        fmt_opt(m.mde, d),
        if m.pooled.is_some() && m.mde.is_some() {
            " ‡"
        } else {
            ""
        }
    )
}

/// "baseline +2.01 (departs); +MA +0.03 (matches)" where the claim prints the values.
fn arms_cell(c: &Claim, m: &Measured, d: usize) -> String {
    let one = |name: &str, paper: Option<f64>, arm: Option<&Arm>| {
        let (p, a) = (paper?, arm?);
        let inside = a.ci95.map(|(lo, hi)| lo <= p && p <= hi);
        Some(format!(
            "{name} {}{}",
            signed(a.mean - p, d),
            match inside {
                Some(true) => " (matches)",
                Some(false) => " (departs)",
                None => "",
            }
        ))
    };
    let parts: Vec<String> = [
        one("baseline", c.baseline, m.baseline_arm.as_ref()),
        one("+MA", c.treatment, m.treatment_arm.as_ref()),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        "–".into()
    } else {
        parts.join("; ")
    }
}

/// A claim, its primary verdict line (if any) and its other measured lines.
pub type ClaimLines<'a> = (&'a Claim, Option<&'a VerdictRow>, Vec<&'a VerdictRow>);

/// The primary line of each claim (by id, in file order): the line whose MA label is
/// `primary_ma`, else the only measured line, else none; and the claim's other lines.
pub fn per_claim(v: &Verdicts) -> Vec<ClaimLines<'_>> {
    let mut ids: Vec<&str> = Vec::new();
    for r in &v.rows {
        if !ids.contains(&r.claim.id.as_str()) {
            ids.push(&r.claim.id);
        }
    }
    ids.into_iter()
        .map(|id| {
            let lines: Vec<&VerdictRow> = v.rows.iter().filter(|r| r.claim.id == id).collect();
            let measured: Vec<&VerdictRow> = lines
                .iter()
                .copied()
                .filter(|r| r.measured.is_some())
                .collect();
            let primary = measured
                .iter()
                .copied()
                .find(|r| {
                    r.measured
                        .as_ref()
                        .is_some_and(|m| m.key.ma == v.primary_ma)
                })
                .or_else(|| (measured.len() == 1).then(|| measured[0]))
                .or_else(|| lines.iter().copied().find(|r| r.measured.is_none()));
            let others = measured
                .into_iter()
                .filter(|r| !primary.is_some_and(|p| std::ptr::eq(*r, p)))
                .collect();
            (&lines[0].claim, primary, others)
        })
        .collect()
}

fn counts(rows: &[&VerdictRow]) -> String {
    Verdict::ALL
        .iter()
        .map(|x| {
            format!(
                "{} {}",
                rows.iter().filter(|r| r.verdict == *x).count(),
                x.as_str()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn power_count(rows: &[&VerdictRow]) -> String {
    let measured = rows.iter().filter(|r| r.measured.is_some()).count();
    let powered = rows.iter().filter(|r| r.low_power == Some(false)).count();
    format!("power ≥ 0.8 at the claimed Δ for {powered} of the {measured} measured")
}

/// The verdict table as a markdown section.
pub fn verdict_markdown(v: &Verdicts, metric: Metric) -> String {
    let d = metric.decimals();
    let mut s = String::new();
    let _ = writeln!(s, "## The paper's claims beside the measurements\n");
    let _ = writeln!(
        s,
        "Claims: `{}` — {} ({}). The verdicts' Holm correction runs over the {} measured line(s) of the table below (two families: Δ = 0 and Δ = claim).{}\n",
        v.file.display(),
        v.title,
        v.source,
        v.rows.iter().filter(|r| r.measured.is_some()).count(),
        if v.other_metric > 0 {
            format!(
                " {} claim(s) on another metric are not shown (see --metric).",
                v.other_metric
            )
        } else {
            String::new()
        }
    );

    // Per claim.
    let claims = per_claim(v);
    let primaries: Vec<&VerdictRow> = claims.iter().filter_map(|(_, p, _)| *p).collect();
    let _ = writeln!(s, "### Per claim (primary reading `{}`)\n", v.primary_ma);
    let without_primary = claims.len() - primaries.len();
    let _ = writeln!(
        s,
        "{} claim(s): {}{}; {} claim(s).\n",
        claims.len(),
        counts(&primaries),
        if without_primary > 0 {
            format!(
                ", {without_primary} measured only under other readings than `{}` (not counted)",
                v.primary_ma
            )
        } else {
            String::new()
        },
        power_count(&primaries)
    );
    let _ = writeln!(
        s,
        "| claim | dataset | claim Δ | measured as | pairs | measured Δ [95% CI] | power at claim | verdict | other readings | arms − paper |"
    );
    let _ = writeln!(s, "|---|---|--:|---|--:|---|--:|---|---|---|");
    for (c, primary, others) in &claims {
        let m = primary.and_then(|p| p.measured.as_ref());
        let other = if others.is_empty() {
            "–".to_string()
        } else {
            others
                .iter()
                .filter_map(|r| {
                    let om = r.measured.as_ref()?;
                    Some(format!(
                        "{}: {} {}",
                        om.key.ma,
                        signed(om.mean_diff, d),
                        verdict_text(r)
                    ))
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let (label, pairs, measured, power, arms) = match m {
            Some(m) => (
                measured_vs_label(m),
                m.pairs.to_string(),
                format!("{} {}", signed(m.mean_diff, d), fmt_ci(m.ci95, d)),
                power_cell(m),
                arms_cell(c, m, d),
            ),
            None if !others.is_empty() => (
                format!("no `{}` line", v.primary_ma),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ),
            None => (
                not_measured_label(c),
                "0".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ),
        };
        let verdict = primary.map(verdict_text).unwrap_or("–".into());
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.id,
            c.dataset,
            signed(c.delta, d),
            label.replace('|', "\\|"),
            pairs,
            measured,
            power,
            verdict,
            other.replace('|', "\\|"),
            arms
        );
    }
    s.push('\n');

    // Per line.
    let all: Vec<&VerdictRow> = v.rows.iter().collect();
    let _ = writeln!(s, "### Per line (a claim × an MA reading)\n");
    let _ = writeln!(
        s,
        "{} line(s): {}; {} line(s).\n",
        v.rows.len(),
        counts(&all),
        power_count(&all)
    );
    let _ = writeln!(
        s,
        "| claim | source | dataset | measured as | pairs | claim Δ (se) | measured Δ [95% CI] | MDE (80%) | power at claim | Holm p (Δ = 0) | Holm p (Δ = claim) | verdict |"
    );
    let _ = writeln!(s, "|---|---|---|---|--:|--:|---|--:|--:|--:|--:|---|");
    for r in &v.rows {
        let c = &r.claim;
        let m = r.measured.as_ref();
        let (label, pairs, measured, mde, power, hz, hc) = match m {
            Some(m) => (
                measured_vs_label(m),
                m.pairs.to_string(),
                format!("{} {}", signed(m.mean_diff, d), fmt_ci(m.ci95, d)),
                mde_cell(m, d),
                power_cell(m),
                fmt_p(m.p_zero_holm),
                fmt_p(m.p_claim_holm),
            ),
            None => (
                not_measured_label(c),
                "0".into(),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.id,
            c.source.replace('|', "\\|"),
            c.dataset,
            label.replace('|', "\\|"),
            pairs,
            claim_cell(m, c, d),
            measured,
            mde,
            power,
            hz,
            hc,
            verdict_text(r)
        );
    }
    s.push('\n');
    if !v.floor.is_empty() {
        let _ = writeln!(s, "### Gain over the untrained encoder\n");
        let _ = writeln!(
            s,
            "The claims' methods against their own encoder at its random initialisation, paired by seed (the report's floor section; Holm over its untrained lines).\n"
        );
        let _ = writeln!(
            s,
            "| dataset | method | MA | untrained | pairs | Δ [95% CI] | MDE (80%) | Holm p | reading |"
        );
        let _ = writeln!(s, "|---|---|---|---|--:|---|--:|--:|---|");
        for l in &v.floor {
            let mut floor = l.floor_label();
            if l.floor_without_ma {
                floor.push_str(" (without MA)");
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} {} | {} | {} | {} |",
                l.key.dataset,
                method_label(&l.key),
                l.key.ma,
                floor.replace('|', "\\|"),
                l.n,
                signed(l.mean_diff, d),
                fmt_ci(l.ci95, d),
                fmt_opt(l.mde, d),
                fmt_p(l.p_holm),
                l.reading()
            );
        }
        s.push('\n');
    }
    let mixed: Vec<(&VerdictRow, &Measured, &crate::MixedDevices)> = v
        .rows
        .iter()
        .filter_map(|r| {
            let m = r.measured.as_ref()?;
            Some((r, m, m.mixed_devices.as_ref()?))
        })
        .collect();
    if !mixed.is_empty() {
        let _ = writeln!(
            s,
            "### Lines whose two arms ran on different kinds of device\n\n\
             Their rows are not bit-comparable (the CPU and a GPU round differently), so part of Δ may be the devices'.\n\n\
             | claim | dataset | measured | devices of the +MA arm | devices of the baseline |\n|---|---|---|---|---|"
        );
        for (r, m, d) in mixed {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                r.claim.id,
                m.key.dataset,
                measured_vs_label(m),
                d.treatment.join(", "),
                d.baseline.join(", ")
            );
        }
        s.push('\n');
    }
    s.push_str(VERDICT_NOTES);
    s.push('\n');
    s
}

fn not_measured_label(c: &Claim) -> String {
    let mut l = method_name(&c.method);
    if let Some(sp) = &c.split {
        l.push_str(&format!(" ({sp} split)"));
    }
    l
}

/// The verdict table as CSV (one line per row of the markdown per-line table).
pub fn verdict_csv(v: &Verdicts, metric: Metric) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Error::Config(format!("cannot write CSV: {e}"));
    w.write_record([
        "claim_id",
        "claim_source",
        "level",
        "dataset",
        "claim_method",
        "claim_ma",
        "claim_split",
        "metric",
        "claim_delta",
        "claim_baseline",
        "claim_treatment",
        "method",
        "evaluator",
        "split",
        "ma",
        "variant",
        "pairs",
        "measured_delta",
        "ci95_low",
        "ci95_high",
        "mde80",
        "p_t",
        "p_t_holm",
        "baseline_method",
        "holm_scope",
        "verdict",
        "magnitude",
        "std_diff",
        "power_std",
        "pooled_cells",
        "power_at_claim",
        "low_power",
        "p_zero_holm",
        "claim_se",
        "claim_treatment_std",
        "claim_treatment_runs",
        "claim_baseline_std",
        "claim_baseline_runs",
        "claim_assumed",
        "t_claim",
        "df_claim",
        "p_claim",
        "p_claim_holm",
        "baseline_arm_mean",
        "treatment_arm_mean",
        "primary",
    ])
    .map_err(err)?;
    let o = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    let primaries: Vec<*const VerdictRow> = per_claim(v)
        .into_iter()
        .filter_map(|(_, p, _)| p.map(|p| p as *const VerdictRow))
        .collect();
    for r in &v.rows {
        let c = &r.claim;
        let mut rec = vec![
            c.id.clone(),
            c.source.clone(),
            c.level.clone(),
            c.dataset.clone(),
            c.method.clone(),
            c.ma.clone(),
            c.split.clone().unwrap_or_default(),
            metric.as_str().to_string(),
            c.delta.to_string(),
            o(c.baseline),
            o(c.treatment),
        ];
        let m = r.measured.as_ref();
        match m {
            Some(m) => rec.extend([
                m.key.method.clone(),
                m.key.evaluator.clone(),
                m.key.split.clone(),
                m.key.ma.clone(),
                m.key.variant.clone(),
                m.pairs.to_string(),
                m.mean_diff.to_string(),
                o(m.ci95.map(|c| c.0)),
                o(m.ci95.map(|c| c.1)),
                o(m.mde),
                o(m.p_t),
                o(m.p_t_holm),
                m.baseline_method.clone().unwrap_or_default(),
            ]),
            None => rec.extend(std::iter::repeat_n(String::new(), 13)),
        }
        rec.extend([
            match v.holm_scope {
                HolmScope::Family => "family".to_string(),
                HolmScope::Table => "table".to_string(),
            },
            r.verdict.as_str().to_string(),
            r.magnitude.unwrap_or_default().to_string(),
        ]);
        match m {
            Some(m) => {
                let mut assumed = Vec::new();
                for (name, a) in [
                    ("treatment", &m.claim_treatment),
                    ("baseline", &m.claim_baseline),
                ] {
                    if a.std_assumed {
                        assumed.push(format!("{name} std = measured"));
                    }
                    if a.runs_assumed {
                        assumed.push(format!("{name} runs = {}", a.runs));
                    }
                }
                let t = m.claim_test.as_ref();
                rec.extend([
                    o(m.std_diff),
                    o(m.power_std),
                    m.pooled
                        .as_ref()
                        .map(|p| p.cells.to_string())
                        .unwrap_or_default(),
                    o(m.power_at_claim),
                    r.low_power.map(|b| b.to_string()).unwrap_or_default(),
                    o(m.p_zero_holm),
                    o(t.map(|t| t.claim_se)),
                    m.claim_treatment.std.to_string(),
                    m.claim_treatment.runs.to_string(),
                    m.claim_baseline.std.to_string(),
                    m.claim_baseline.runs.to_string(),
                    assumed.join("; "),
                    o(t.map(|t| t.t)),
                    o(t.map(|t| t.df)),
                    o(t.and_then(|t| t.p)),
                    o(m.p_claim_holm),
                    o(m.baseline_arm.as_ref().map(|a| a.mean)),
                    o(m.treatment_arm.as_ref().map(|a| a.mean)),
                ]);
            }
            None => rec.extend(std::iter::repeat_n(String::new(), 18)),
        }
        rec.push(primaries.contains(&(r as *const VerdictRow)).to_string());
        w.write_record(&rec).map_err(err)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::Config(format!("cannot write CSV: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_cases_by_hand() {
        use Verdict::*;
        let (sig, ns) = (Some(0.01), Some(0.2));
        // Positive claim of +1; p-values are the Holm-adjusted ones.
        assert_eq!(verdict(1.0, 0.8, sig, ns), (Confirmed, None));
        assert_eq!(
            verdict(1.0, 0.3, sig, sig),
            (Confirmed, Some("smaller than claimed"))
        );
        assert_eq!(
            verdict(1.0, 2.5, sig, sig),
            (Confirmed, Some("larger than claimed"))
        );
        // The interval on the other side of 0: opposite sign, whatever Δ = c says.
        assert_eq!(verdict(1.0, -1.7, sig, sig), (OppositeSign, None));
        assert_eq!(verdict(1.0, -1.7, sig, ns), (OppositeSign, None));
        // Direction not shown, claim rejected: not reproduced (smaller than claimed).
        assert_eq!(
            verdict(1.0, 0.1, ns, sig),
            (NotReproduced, Some("smaller than claimed"))
        );
        assert_eq!(
            verdict(1.0, -0.3, ns, sig),
            (NotReproduced, Some("smaller than claimed"))
        );
        // Neither rejects.
        assert_eq!(verdict(1.0, 0.4, ns, ns), (CannotTell, None));
        assert_eq!(verdict(1.0, 0.4, None, None), (CannotTell, None));
        // At exactly α = 0.05 nothing is rejected.
        assert_eq!(verdict(1.0, 0.8, Some(0.05), ns), (CannotTell, None));
        // A negative claim mirrors it.
        assert_eq!(verdict(-1.0, -0.9, sig, ns), (Confirmed, None));
        assert_eq!(verdict(-1.0, 0.6, sig, sig), (OppositeSign, None));
        assert_eq!(
            verdict(-1.0, -0.1, ns, sig),
            (NotReproduced, Some("smaller than claimed"))
        );
        // A claim of no effect is never confirmed nor opposed: rejected Δ = 0 is not
        // reproduced.
        assert_eq!(verdict(0.0, 0.2, ns, ns), (CannotTell, None));
        assert_eq!(
            verdict(0.0, 0.3, sig, sig),
            (NotReproduced, Some("larger than claimed"))
        );
    }

    #[test]
    fn claims_file_errors_name_the_claim() {
        let ok = "title = \"t\"\nsource = \"s\"\n[[claim]]\nid = \"a\"\nlevel = \"graph\"\ndataset = \"NCI1\"\nmethod = \"graphcl\"\ndelta = 0.27\nbaseline = 77.87\ntreatment = 78.14\nsource = \"Fig. 3\"\n";
        let f = ClaimsFile::parse(ok).unwrap();
        assert_eq!(f.claims[0].ma, "*");
        assert_eq!(f.claims[0].metric, "accuracy");
        let bad = ok.replace("delta = 0.27", "delta = 0.5");
        let e = ClaimsFile::parse(&bad).unwrap_err();
        assert!(
            e.contains("claim #1 (id 'a')") && e.contains("treatment − baseline"),
            "{e}"
        );
        let twice = format!("{ok}{}", &ok[ok.find("[[claim]]").unwrap()..]);
        assert!(ClaimsFile::parse(&twice)
            .unwrap_err()
            .contains("used twice"));
        let typo = ok.replace("dataset =", "datset =");
        assert!(ClaimsFile::parse(&typo)
            .unwrap_err()
            .contains("not a valid claims file"));
        let std = ok.replace("delta = 0.27", "delta = 0.27\nbaseline_std = -0.4");
        let e = ClaimsFile::parse(&std).unwrap_err();
        assert!(e.contains("claim #1 (id 'a'): baseline_std -0.4"), "{e}");
        let runs = ok.replace("delta = 0.27", "delta = 0.27\ntreatment_runs = 1");
        let e = ClaimsFile::parse(&runs).unwrap_err();
        assert!(e.contains("claim #1 (id 'a'): treatment_runs 1"), "{e}");
        let both = ok.replace(
            "delta = 0.27",
            "delta = 0.27\nbaseline_std = 0.41\nbaseline_runs = 5",
        );
        let c = &ClaimsFile::parse(&both).unwrap().claims[0];
        assert_eq!((c.baseline_std, c.baseline_runs), (Some(0.41), Some(5)));
        let level = ok.replace("\"graph\"", "\"edge\"");
        assert!(ClaimsFile::parse(&level)
            .unwrap_err()
            .contains("level 'edge'"));
    }

    /// A claim with `baseline_method` pairs the +MA arm with the other method's baseline,
    /// seed by seed; without it the same +MA arm is paired with its own method's baseline.
    /// Hand-made: adgcl (learned) 70, 71, 72; adgcl-fixed none 69, 69, 70; adgcl-fixed +MA
    /// 70, 71, 73 on seeds 0, 1, 2 → Δ vs adgcl = (0, 0, 1) mean 1/3; vs its own control
    /// (1, 2, 3) mean 2.
    #[test]
    fn baseline_method_pairs_across_methods() {
        use crate::results::ResultRow;
        let row = |method: &str, ma: &str, seed: u64, acc: f64| ResultRow {
            method: method.into(),
            ma: ma.into(),
            variant: String::new(),
            evaluator: "linear-svc".into(),
            config_hash: format!("{method}-{ma}-{seed}"),
            accuracy: acc,
            ..crate::results::tests::row(seed)
        };
        let mut rows = Vec::new();
        for (s, (a, b, c)) in [(70.0, 69.0, 70.0), (71.0, 69.0, 71.0), (72.0, 70.0, 73.0)]
            .into_iter()
            .enumerate()
        {
            rows.push(row("adgcl", "none", s as u64, a));
            rows.push(row("adgcl-fixed", "none", s as u64, b));
            rows.push(row("adgcl-fixed", "ARS", s as u64, c));
        }
        let mut report = Report::build(rows, Metric::Accuracy).unwrap();
        let text = |extra: &str| {
            format!(
                "title = \"t\"\nsource = \"s\"\n[[claim]]\nid = \"a\"\nlevel = \"graph\"\ndataset = \"MUTAG\"\nmethod = \"adgcl-fixed\"\ndelta = 0.22\nsource = \"Fig. 3\"\n{extra}"
            )
        };
        let cross = ClaimsFile::parse(&text("baseline_method = \"adgcl\"\n")).unwrap();
        report.add_claims(Path::new("c.toml"), &cross);
        let v = report.verdicts.as_ref().unwrap();
        assert_eq!(v.rows.len(), 1);
        let m = v.rows[0].measured.as_ref().unwrap();
        assert_eq!(m.pairs, 3);
        assert!((m.mean_diff - 1.0 / 3.0).abs() < 1e-12, "{}", m.mean_diff);
        assert_eq!(m.baseline_method.as_deref(), Some("adgcl"));
        assert_eq!(m.p_t_holm, None);
        assert!(measured_vs_label(m).ends_with("vs AD-GCL without MA"));
        // The table's own comparison of the same +MA group (against adgcl-fixed without
        // MA) has a Holm p; recomputing the Holm scope after the join must not hand it to
        // the line measured against AD-GCL.
        let own_holm = report
            .comparisons
            .iter()
            .find(|c| c.key == m.key)
            .and_then(|c| c.p_t_holm);
        assert!(own_holm.is_some());
        report.set_holm_scope(HolmScope::Table);
        let m = report.verdicts.as_ref().unwrap().rows[0]
            .measured
            .clone()
            .unwrap();
        assert_eq!(
            m.p_t_holm, None,
            "took the table's Holm p of another comparison"
        );
        let own = ClaimsFile::parse(&text("")).unwrap();
        report.add_claims(Path::new("c.toml"), &own);
        let m = report.verdicts.as_ref().unwrap().rows[0]
            .measured
            .clone()
            .unwrap();
        assert!((m.mean_diff - 2.0).abs() < 1e-12, "{}", m.mean_diff);
        assert_eq!(m.baseline_method, None);
        // A baseline method equal to the method is refused.
        let e = ClaimsFile::parse(&text("baseline_method = \"adgcl-fixed\"\n")).unwrap_err();
        assert!(e.contains("baseline_method"), "{e}");
    }

    /// A verdict line whose arms ran on different kinds of device (the learned AD-GCL on
    /// a GPU against the fixed augmenter + MA on the CPU) carries both kinds and is listed
    /// under the verdict table; with every row on one kind nothing is listed.
    #[test]
    fn verdict_lines_across_device_kinds_are_listed() {
        use crate::results::ResultRow;
        let row = |method: &str, ma: &str, seed: u64, device: &str| ResultRow {
            method: method.into(),
            ma: ma.into(),
            variant: String::new(),
            evaluator: "linear-svc".into(),
            config_hash: format!("{method}-{ma}-{seed}"),
            accuracy: 70.0 + seed as f64 + if ma == "none" { 0.0 } else { 0.5 },
            device: device.into(),
            ..crate::results::tests::row(seed)
        };
        let claims = ClaimsFile::parse(
            "title = \"t\"\nsource = \"s\"\n[[claim]]\nid = \"fig3\"\nlevel = \"graph\"\ndataset = \"MUTAG\"\nmethod = \"adgcl-fixed\"\nbaseline_method = \"adgcl\"\ndelta = 0.42\nsource = \"Fig. 3\"\n",
        )
        .unwrap();
        for (learned_on, listed) in [("cuda:0", true), ("cpu", false)] {
            let mut rows = Vec::new();
            for s in 0..3 {
                rows.push(row("adgcl", "none", s, learned_on));
                rows.push(row("adgcl-fixed", "none", s, "cpu"));
                rows.push(row("adgcl-fixed", "ARS", s, "cpu"));
            }
            let mut report = Report::build(rows, Metric::Accuracy).unwrap();
            report.add_claims(Path::new("c.toml"), &claims);
            let v = report.verdicts.as_ref().unwrap();
            let m = v.rows[0].measured.as_ref().unwrap();
            let md = verdict_markdown(v, Metric::Accuracy);
            if listed {
                let d = m.mixed_devices.as_ref().unwrap();
                assert_eq!(
                    (d.treatment.clone(), d.baseline.clone()),
                    (vec!["cpu".to_string()], vec!["cuda".to_string()])
                );
                assert!(
                    md.contains("### Lines whose two arms ran on different kinds of device"),
                    "{md}"
                );
                assert!(
                    md.contains("| fig3 | MUTAG |") && md.contains("| cpu | cuda |"),
                    "{md}"
                );
            } else {
                assert_eq!(m.mixed_devices, None);
                assert!(!md.contains("different kinds of device"), "{md}");
            }
        }
    }

    /// Rows of `method` on `dataset`: baseline (MA none) `80 + seed` and +MA `ARS code`
    /// = baseline + `deltas[seed]`.
    fn paired_rows(dataset: &str, deltas: &[f64]) -> Vec<crate::results::ResultRow> {
        use crate::results::ResultRow;
        let row = |ma: &str, seed: u64, acc: f64| ResultRow {
            dataset: dataset.into(),
            ma: ma.into(),
            variant: String::new(),
            config_hash: format!("{dataset}-{ma}-{seed}"),
            accuracy: acc,
            ..crate::results::tests::row(seed)
        };
        let mut rows = Vec::new();
        for (s, d) in deltas.iter().enumerate() {
            let b = 80.0 + s as f64;
            rows.push(row("none", s as u64, b));
            rows.push(row("ARS code", s as u64, b + d));
        }
        rows
    }

    fn claim_toml(id: &str, dataset: &str, delta: f64, extra: &str) -> String {
        format!(
            "[[claim]]\nid = \"{id}\"\nlevel = \"graph\"\ndataset = \"{dataset}\"\nmethod = \"graphcl\"\ndelta = {delta}\nsource = \"Fig. 3\"\n{extra}"
        )
    }

    fn verdicts(rows: Vec<crate::results::ResultRow>, claims: &str) -> Verdicts {
        let mut report = Report::build(rows, Metric::Accuracy).unwrap();
        let file = ClaimsFile::parse(&format!("title = \"t\"\nsource = \"s\"\n{claims}")).unwrap();
        report.add_claims(Path::new("c.toml"), &file);
        report.verdicts.unwrap()
    }

    /// The claim's own uncertainty, by hand. Δ per seed = (−0.2, 0, 0.2, 0.4, 0.6): mean
    /// 0.2, std √0.1, se √0.02; its 95% interval [−0.193, 0.593] excludes a claim of
    /// 1.0, which the old rule called "contradicted". With published stds 0.8 (5 runs) on
    /// both arms, se_c² = 2 · 0.64/5 = 0.256 and t = −0.8/√0.276 = −1.5228 with
    /// df = 0.276² / (0.02²/4 + 2 · 0.128²/4) = 9.19: p ≈ 0.16, cannot tell. Taken as an
    /// exact point (stds 0) the same claim is rejected: t = −0.8/√0.02 = −5.657, df 4,
    /// p < 0.01: not reproduced.
    #[test]
    fn claim_uncertainty_decides_between_not_reproduced_and_cannot_tell() {
        let d = [-0.2, 0.0, 0.2, 0.4, 0.6];
        let with_std =
            "baseline_std = 0.8\ntreatment_std = 0.8\nbaseline_runs = 5\ntreatment_runs = 5\n";
        let v = verdicts(
            paired_rows("MUTAG", &d),
            &claim_toml("a", "MUTAG", 1.0, with_std),
        );
        let r = &v.rows[0];
        let m = r.measured.as_ref().unwrap();
        let (lo, hi) = m.ci95.unwrap();
        assert!(lo < 0.0 && hi < 1.0, "{lo} {hi}");
        let t = m.claim_test.as_ref().unwrap();
        assert!((t.claim_se - 0.256f64.sqrt()).abs() < 1e-12);
        assert!((t.t - (-0.8 / 0.276f64.sqrt())).abs() < 1e-9, "{}", t.t);
        let df = 0.276f64.powi(2) / (0.02f64.powi(2) / 4.0 + 2.0 * 0.128f64.powi(2) / 4.0);
        assert!((t.df - df).abs() < 1e-9, "{} vs {df}", t.df);
        assert!(t.p.unwrap() > 0.1 && t.p.unwrap() < 0.2, "{:?}", t.p);
        assert_eq!(r.verdict, Verdict::CannotTell);
        assert!(!m.claim_treatment.std_assumed && !m.claim_baseline.runs_assumed);

        let exact =
            "baseline_std = 0.0\ntreatment_std = 0.0\nbaseline_runs = 5\ntreatment_runs = 5\n";
        let v = verdicts(
            paired_rows("MUTAG", &d),
            &claim_toml("a", "MUTAG", 1.0, exact),
        );
        let r = &v.rows[0];
        let t = r.measured.as_ref().unwrap().claim_test.clone().unwrap();
        assert!((t.t - (-0.8 / 0.02f64.sqrt())).abs() < 1e-9);
        assert!((t.df - 4.0).abs() < 1e-12);
        assert!(t.p.unwrap() < 0.01);
        assert_eq!(
            (r.verdict, r.magnitude),
            (Verdict::NotReproduced, Some("smaller than claimed"))
        );

        // Unset stds and runs: the measured arms' stds and 5 runs, and the CSV says so.
        let v = verdicts(paired_rows("MUTAG", &d), &claim_toml("a", "MUTAG", 1.0, ""));
        let m = v.rows[0].measured.as_ref().unwrap();
        assert!(m.claim_treatment.std_assumed && m.claim_baseline.runs_assumed);
        assert_eq!(m.claim_baseline.runs, 5);
        // The baseline arm is 80..84 over seeds 0–4: std √2.5.
        assert!((m.claim_baseline.std - 2.5f64.sqrt()).abs() < 1e-12);
        let csv = verdict_csv(&v, Metric::Accuracy).unwrap();
        assert!(csv.contains("treatment std = measured"), "{csv}");
    }

    /// Holm over the verdict's own lines. Δ = (−0.2, 0, 0.2, 0.4, 0.6) against an exact
    /// claim of 0.63: t = −0.43/√0.02 = −3.04 with 4 df, raw p ≈ 0.038 < 0.05: alone, the
    /// line is "not reproduced". Two such lines (MUTAG and NCI1) form a family of two:
    /// Holm gives both 2 · 0.038 ≈ 0.077, so both are "cannot tell".
    #[test]
    fn holm_runs_over_the_verdict_lines() {
        let d = [-0.2, 0.0, 0.2, 0.4, 0.6];
        let exact =
            "baseline_std = 0.0\ntreatment_std = 0.0\nbaseline_runs = 5\ntreatment_runs = 5\n";
        let one = verdicts(
            paired_rows("MUTAG", &d),
            &claim_toml("a", "MUTAG", 0.63, exact),
        );
        let m = one.rows[0].measured.as_ref().unwrap();
        let p = m.claim_test.as_ref().unwrap().p.unwrap();
        assert!(p > 0.025 && p < 0.05, "{p}");
        assert_eq!(m.p_claim_holm, Some(p));
        assert_eq!(one.rows[0].verdict, Verdict::NotReproduced);

        let mut rows = paired_rows("MUTAG", &d);
        rows.extend(paired_rows("NCI1", &d));
        let claims = format!(
            "{}{}",
            claim_toml("a", "MUTAG", 0.63, exact),
            claim_toml("b", "NCI1", 0.63, exact)
        );
        let two = verdicts(rows, &claims);
        assert_eq!(two.rows.len(), 2);
        for r in &two.rows {
            let m = r.measured.as_ref().unwrap();
            assert!((m.p_claim_holm.unwrap() - 2.0 * p).abs() < 1e-12);
            assert_eq!(r.verdict, Verdict::CannotTell, "{}", r.claim.id);
            // Δ = 0: raw p of t = 0.2/√0.02 with 4 df, doubled by Holm.
            assert!((m.p_zero_holm.unwrap() - (2.0 * m.p_t.unwrap()).min(1.0)).abs() < 1e-12);
        }
    }

    /// Power at the claimed effect and the pooled std: with 5 pairs, std(Δ) is pooled
    /// over the comparisons of the same dataset and method (two MA settings here).
    #[test]
    fn power_and_pooled_std_by_hand() {
        use crate::results::ResultRow;
        let row = |ma: &str, seed: u64, acc: f64| ResultRow {
            ma: ma.into(),
            variant: String::new(),
            config_hash: format!("{ma}-{seed}"),
            accuracy: acc,
            ..crate::results::tests::row(seed)
        };
        let mut rows = Vec::new();
        let (a, b) = ([0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 2.0, 4.0, 6.0, 8.0]);
        for s in 0..5u64 {
            let base = 80.0 + (s % 2) as f64;
            rows.push(row("none", s, base));
            rows.push(row("ARS code", s, base + a[s as usize]));
            rows.push(row("ARS gin+filter", s, base + b[s as usize]));
        }
        let v = verdicts(rows, &claim_toml("a", "MUTAG", 1.5, "ma = \"ARS code\"\n"));
        let m = v.rows[0].measured.as_ref().unwrap();
        // std of a: √2.5; of b: √10; pooled over 4 + 4 df: √6.25 = 2.5.
        assert!((m.std_diff.unwrap() - 2.5f64.sqrt()).abs() < 1e-12);
        let pooled = m.pooled.as_ref().unwrap();
        assert_eq!((pooled.cells, pooled.df), (2, 8.0));
        assert!((m.power_std.unwrap() - 2.5).abs() < 1e-12);
        let want = crate::stats::paired_t_power(1.5 / 2.5, 5, 0.05).unwrap();
        assert!((m.power_at_claim.unwrap() - want).abs() < 1e-12);
        assert_eq!(v.rows[0].low_power, Some(want < 0.8));
        let mde = crate::stats::paired_t_mde(5, 2.5, 0.05, 0.8).unwrap();
        assert!((m.mde.unwrap() - mde).abs() < 1e-9);
    }

    /// Per claim: the primary reading is read, the others are listed.
    #[test]
    fn per_claim_reads_the_primary_reading() {
        let mut rows = paired_rows("MUTAG", &[1.0, 1.2, 0.9, 1.1, 1.0]);
        for r in paired_rows("MUTAG", &[-3.0, -2.8, -3.1, -2.9, -3.0]) {
            if r.ma != "none" {
                rows.push(crate::results::ResultRow {
                    ma: "ARS gin+filter".into(),
                    config_hash: format!("{}-g", r.config_hash),
                    ..r
                });
            }
        }
        let v = verdicts(rows, &claim_toml("a", "MUTAG", 1.0, ""));
        assert_eq!(v.rows.len(), 2);
        let claims = per_claim(&v);
        assert_eq!(claims.len(), 1);
        let (_, primary, others) = &claims[0];
        let p = primary.unwrap();
        assert_eq!(p.measured.as_ref().unwrap().key.ma, "ARS code");
        assert_eq!(p.verdict, Verdict::Confirmed);
        assert_eq!(others.len(), 1);
        assert_eq!(others[0].verdict, Verdict::OppositeSign);
        let md = verdict_markdown(&v, Metric::Accuracy);
        assert!(
            md.contains("1 claim(s): 1 confirmed, 0 opposite sign"),
            "{md}"
        );
        assert!(
            md.contains("2 line(s): 1 confirmed, 1 opposite sign"),
            "{md}"
        );
        // A primary reading that did not run: the claim is not read under another one.
        let mut other = v.clone();
        other.primary_ma = "ARS other".into();
        let (_, primary, others) = &per_claim(&other)[0];
        assert!(primary.is_none());
        assert_eq!(others.len(), 2);
        let md = verdict_markdown(&other, Metric::Accuracy);
        assert!(
            md.contains("1 claim(s): 0 confirmed, 0 opposite sign, 0 not reproduced, 0 cannot tell, 0 not measured, 1 measured only under other readings than `ARS other` (not counted)"),
            "{md}"
        );
    }
}
