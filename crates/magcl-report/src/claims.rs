//! The paper's claims beside the measurements: a claims file (TOML, e.g.
//! `benchmarks/claims/ma_gcl_paper.toml`) lists what the paper reports MA to do — a
//! claimed Δ = +MA − baseline per dataset and method — and [`join`] pairs every claim with
//! the report's comparisons that test it and gives each pair a verdict.
//!
//! Verdicts, from the 95% t-interval [lo, hi] of the measured Δ and the claimed Δ c
//! (stated the same way in the markdown output and docs/report.md):
//! - **confirmed**: the interval lies entirely on the claimed side of 0 (lo > 0 for
//!   c > 0, hi < 0 for c < 0): the direction of the claim holds. When the interval also
//!   excludes c, the note says whether the effect is smaller or larger than claimed.
//! - **contradicted**: not confirmed, and the interval excludes c: the data reject the
//!   claimed Δ and do not show the claimed direction (for c = 0: the interval excludes 0).
//! - **cannot tell**: the interval contains both 0 and c (or there is no interval: fewer
//!   than two pairs).
//! - **not measured**: no comparison in the result files matches the claim.
//!
//! Separately, a comparison whose minimum detectable effect exceeds |c| is marked
//! *cannot test the claim*: with these pairs and this spread, a true effect of the
//! claimed size would be missed more than 20% of the time, so a "cannot tell" there says
//! nothing about the claim. A confirmed or contradicted verdict stands regardless: the
//! interval has its 95% coverage whatever the power.
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::format::{fmt_ci, fmt_num, fmt_opt, fmt_p, method_label, method_name};
use super::{Comparison, GroupKey, HolmScope, Metric, Report};
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
        let method_ok =
            k.method == self.method || (self.method == "base" && k.method.starts_with("base:"));
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
    Confirmed,
    Contradicted,
    CannotTell,
    NotMeasured,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Contradicted => "contradicted",
            Verdict::CannotTell => "cannot tell",
            Verdict::NotMeasured => "not measured",
        }
    }
}

/// The verdict for claimed Δ `claim` given the 95% interval `ci` of the measured Δ, and
/// where the claim lies outside a confirming interval, whether the measured effect is
/// "smaller than claimed" or "larger than claimed" (see the module documentation).
pub fn verdict(claim: f64, ci: Option<(f64, f64)>) -> (Verdict, Option<&'static str>) {
    let Some((lo, hi)) = ci else {
        return (Verdict::CannotTell, None);
    };
    let excludes_claim = claim < lo || claim > hi;
    let on_claimed_side = (claim > 0.0 && lo > 0.0) || (claim < 0.0 && hi < 0.0);
    if on_claimed_side {
        let magnitude = if claim.abs() < lo.abs().min(hi.abs()) {
            Some("larger than claimed")
        } else if excludes_claim {
            Some("smaller than claimed")
        } else {
            None
        };
        (Verdict::Confirmed, magnitude)
    } else if excludes_claim {
        (Verdict::Contradicted, None)
    } else {
        (Verdict::CannotTell, None)
    }
}

/// The measurement a verdict rests on.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    #[serde(flatten)]
    pub key: GroupKey,
    pub pairs: usize,
    pub mean_diff: f64,
    pub ci95: Option<(f64, f64)>,
    pub mde: Option<f64>,
    pub p_t: Option<f64>,
    pub p_t_holm: Option<f64>,
    /// The baseline's method where it is not the key's (the claim's `baseline_method`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_method: Option<String>,
}

/// One line of the verdict table.
#[derive(Clone, Debug, Serialize)]
pub struct VerdictRow {
    pub claim: Claim,
    /// `None`: no comparison matches the claim.
    pub measured: Option<Measured>,
    pub verdict: Verdict,
    /// "smaller than claimed" / "larger than claimed" for a confirmed direction whose
    /// interval excludes the claimed value.
    pub magnitude: Option<&'static str>,
    /// MDE > |claimed Δ|: the comparison cannot test the claim.
    pub cannot_test_claim: Option<bool>,
}

/// The verdict table of a report against a claims file.
#[derive(Clone, Debug, Serialize)]
pub struct Verdicts {
    pub file: PathBuf,
    pub title: String,
    pub source: String,
    pub holm_scope: HolmScope,
    pub rows: Vec<VerdictRow>,
    /// Claims on the other metric (not shown).
    pub other_metric: usize,
}

/// Joins `claims` with the comparisons of `report`: one row per (claim, matching
/// comparison), and one "not measured" row per claim that nothing matches.
pub fn join(report: &Report, claims: &ClaimsFile, file: &Path) -> Verdicts {
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
        for c in cross
            .as_deref()
            .unwrap_or(&report.comparisons)
            .iter()
            .filter(|c| claim.matches(c, report.metric))
        {
            any = true;
            let ci = c.test.ci95_diff;
            let (v, magnitude) = verdict(claim.delta, ci);
            rows.push(VerdictRow {
                claim: claim.clone(),
                measured: Some(Measured {
                    key: c.key.clone(),
                    pairs: c.test.n,
                    mean_diff: c.test.mean_diff,
                    ci95: ci,
                    mde: c.test.mde,
                    p_t: c.test.t_test.as_ref().and_then(|t| t.p),
                    p_t_holm: c.p_t_holm,
                    baseline_method: claim.baseline_method.clone(),
                }),
                verdict: v,
                magnitude,
                cannot_test_claim: c.test.mde.map(|m| m > claim.delta.abs()),
            });
        }
        if !any {
            rows.push(VerdictRow {
                claim: claim.clone(),
                measured: None,
                verdict: Verdict::NotMeasured,
                magnitude: None,
                cannot_test_claim: None,
            });
        }
    }
    Verdicts {
        file: file.to_path_buf(),
        title: claims.title.clone(),
        source: claims.source.clone(),
        holm_scope: report.holm_scope,
        rows,
        other_metric,
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

/// The verdict text of a row: the verdict, its magnitude note, and "cannot test the
/// claim" where the MDE exceeds |claimed Δ|.
pub fn verdict_text(r: &VerdictRow) -> String {
    let mut s = r.verdict.as_str().to_string();
    if let Some(m) = r.magnitude {
        s.push_str(&format!(" ({m})"));
    }
    if r.cannot_test_claim == Some(true) {
        s.push_str("; cannot test the claim (MDE > claimed effect)");
    }
    s
}

/// Definitions printed under the verdict table.
pub const VERDICT_NOTES: &str = "\
- **claim Δ**: the paper's +MA − baseline (source column: table or figure); **measured Δ**: this report's paired Δ with its 95% Student-t interval; **MDE**: minimum detectable effect at 80% power, two-sided α = 0.05, for the pairs present and the observed std(Δ).
- **confirmed**: the 95% interval lies entirely on the claimed side of 0 (MA helps, or hurts, as claimed); \"smaller/larger than claimed\" when it also excludes the claimed Δ.
- **contradicted**: not confirmed, and the 95% interval excludes the claimed Δ: the data reject the claimed effect (for a claimed Δ of 0: the interval excludes 0).
- **cannot tell**: the 95% interval contains both 0 and the claimed Δ (or there are fewer than 2 pairs).
- **cannot test the claim**: MDE > claimed effect, i.e. MDE > |claim Δ|: with these seeds and this spread, an effect of the claimed size would be missed more than 20% of the time, so \"cannot tell\" says nothing about the claim. Confirmed and contradicted verdicts stand regardless (the interval's coverage does not depend on power).
- **not measured**: no comparison in the result files matches the claim (same dataset, method, MA setting, split and metric).
- Verdicts use the unadjusted 95% intervals, one claim at a time; the Holm column says whether Δ ≠ 0 survives the correction for multiple comparisons.
";

/// The verdict table as a markdown section.
pub fn verdict_markdown(v: &Verdicts, metric: Metric) -> String {
    let d = metric.decimals();
    let mut s = String::new();
    let _ = writeln!(s, "## The paper's claims beside the measurements\n");
    let _ = writeln!(
        s,
        "Claims: `{}` — {} ({}). Holm's correction runs {}.\n",
        v.file.display(),
        v.title,
        v.source,
        v.holm_scope.describe()
    );
    let count = |x: Verdict| v.rows.iter().filter(|r| r.verdict == x).count();
    let untestable = v
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::CannotTell && r.cannot_test_claim == Some(true))
        .count();
    let _ = writeln!(
        s,
        "{} line(s): {} confirmed, {} contradicted, {} cannot tell ({} of them cannot test the claim: MDE > claimed effect), {} not measured.{}\n",
        v.rows.len(),
        count(Verdict::Confirmed),
        count(Verdict::Contradicted),
        count(Verdict::CannotTell),
        untestable,
        count(Verdict::NotMeasured),
        if v.other_metric > 0 {
            format!(
                " {} claim(s) on another metric are not shown (see --metric).",
                v.other_metric
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        s,
        "| claim | source | dataset | measured as | pairs | claim Δ | measured Δ [95% CI] | MDE (80%) | Holm p (t) | verdict |"
    );
    let _ = writeln!(s, "|---|---|---|---|--:|--:|---|--:|--:|---|");
    for r in &v.rows {
        let c = &r.claim;
        let (label, pairs, measured, mde, holm) = match &r.measured {
            Some(m) => (
                measured_vs_label(m),
                m.pairs.to_string(),
                format!("{} {}", signed(m.mean_diff, d), fmt_ci(m.ci95, d)),
                fmt_opt(m.mde, d),
                fmt_p(m.p_t_holm),
            ),
            None => {
                let mut l = method_name(&c.method);
                if let Some(sp) = &c.split {
                    l.push_str(&format!(" ({sp} split)"));
                }
                (l, "0".into(), "–".into(), "–".into(), "–".into())
            }
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.id,
            c.source.replace('|', "\\|"),
            c.dataset,
            label.replace('|', "\\|"),
            pairs,
            signed(c.delta, d),
            measured,
            mde,
            holm,
            verdict_text(r)
        );
    }
    s.push('\n');
    s.push_str(VERDICT_NOTES);
    s.push('\n');
    s
}

/// The verdict table as CSV (one line per row of the markdown table).
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
        "cannot_test_claim",
    ])
    .map_err(err)?;
    let o = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
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
        match &r.measured {
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
            r.cannot_test_claim
                .map(|b| b.to_string())
                .unwrap_or_default(),
        ]);
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
        // Positive claim of +1.
        assert_eq!(verdict(1.0, Some((0.2, 1.5))), (Confirmed, None));
        assert_eq!(
            verdict(1.0, Some((0.1, 0.6))),
            (Confirmed, Some("smaller than claimed"))
        );
        assert_eq!(
            verdict(1.0, Some((1.5, 3.0))),
            (Confirmed, Some("larger than claimed"))
        );
        assert_eq!(verdict(1.0, Some((-0.5, 0.8))), (Contradicted, None));
        assert_eq!(verdict(1.0, Some((-2.5, -1.0))), (Contradicted, None));
        assert_eq!(verdict(1.0, Some((-0.5, 1.2))), (CannotTell, None));
        assert_eq!(verdict(1.0, None), (CannotTell, None));
        // Negative claim mirrors it.
        assert_eq!(verdict(-1.0, Some((-1.5, -0.2))), (Confirmed, None));
        assert_eq!(verdict(-1.0, Some((-0.8, 0.5))), (Contradicted, None));
        assert_eq!(verdict(-1.0, Some((-1.2, 0.5))), (CannotTell, None));
        // A claim of no effect.
        assert_eq!(verdict(0.0, Some((-0.3, 0.4))), (CannotTell, None));
        assert_eq!(verdict(0.0, Some((0.1, 0.4))), (Contradicted, None));
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
}
