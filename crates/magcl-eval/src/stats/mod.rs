//! Statistics for result tables: summaries (mean, sample standard deviation with
//! ddof = 1, Student-t confidence intervals) and paired comparisons of a baseline with a
//! treatment over seeds (paired t-test, Wilcoxon signed-rank test, Cohen's d_z, Holm's
//! step-down correction).
//!
//! Conventions (the reports print them too):
//! - `std` is the **sample** standard deviation, `sqrt(Σ(x−x̄)² / (n−1))`.
//! - The 95% interval is `x̄ ± t_{0.975, n−1} · std / √n`.
//! - Differences are `treatment − baseline`, paired by seed.
//! - The Wilcoxon test follows `scipy.stats.wilcoxon` defaults: zero differences are
//!   dropped (`zero_method = "wilcox"`), two-sided, no continuity correction, and the
//!   `method = "auto"` choice of scipy ≥ 1.13: for n ≤ 50 (n counts zeros) without ties
//!   or zeros, the exact null distribution of the signed-rank statistic; for n ≤ 13 with
//!   ties or zeros, the exact sign-flip (permutation) distribution of the mid-ranks
//!   (scipy's permutation test, which is exhaustive at that size); otherwise the normal
//!   approximation with the tie-corrected variance.
//! - Holm's correction is applied within a family of p-values; undefined p-values are
//!   left out of the family.
//! - The minimum detectable effect (MDE) of a paired comparison is the true mean
//!   difference that the two-sided paired t-test at α = 0.05 would detect with 80% power,
//!   for the number of pairs present and the observed standard deviation of the
//!   differences (see [`power`]).
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

pub mod power;
pub use power::{increasing_root, nct_cdf, paired_t_mde, paired_t_mde_effect_size, paired_t_power};

/// Level of the test behind the reported minimum detectable effect.
pub const MDE_ALPHA: f64 = 0.05;
/// Power behind the reported minimum detectable effect.
pub const MDE_POWER: f64 = 0.8;

/// Arithmetic mean; `None` for an empty sample.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        None
    } else {
        Some(xs.iter().sum::<f64>() / xs.len() as f64)
    }
}

/// Median (the mean of the two middle values for an even count, as numpy's); `None` for
/// an empty sample. NaNs sort last (`f64::total_cmp`).
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some(0.5 * (v[n / 2 - 1] + v[n / 2])),
    }
}

/// Sample standard deviation (ddof = 1); `None` for fewer than two values.
pub fn sample_std(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs)?;
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    Some((ss / (xs.len() - 1) as f64).sqrt())
}

/// The `p`-quantile of Student's t distribution with `df` degrees of freedom.
pub fn t_quantile(p: f64, df: f64) -> Option<f64> {
    let valid = p > 0.0 && p < 1.0 && df > 0.0;
    if !valid {
        return None;
    }
    let t = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(t.inverse_cdf(p))
}

/// Two-sided p-value of a t statistic with `df` degrees of freedom.
pub fn t_two_sided_p(t: f64, df: f64) -> Option<f64> {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return None;
    }
    if t.is_infinite() {
        return Some(0.0);
    }
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some((2.0 * dist.sf(t.abs())).min(1.0))
}

/// Mean ± half-width interval at `level` (e.g. 0.95) from the t distribution with n−1
/// degrees of freedom; `None` for fewer than two values.
pub fn t_interval(xs: &[f64], level: f64) -> Option<(f64, f64)> {
    let n = xs.len();
    let m = mean(xs)?;
    let s = sample_std(xs)?;
    let q = t_quantile(0.5 + level / 2.0, (n - 1) as f64)?;
    let h = q * s / (n as f64).sqrt();
    Some((m - h, m + h))
}

/// A one-sample summary.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (ddof = 1); `None` when n < 2.
    pub std: Option<f64>,
    /// 95% Student-t interval; `None` when n < 2.
    pub ci95: Option<(f64, f64)>,
    pub min: f64,
    pub max: f64,
}

/// Summarises a sample; `None` when it is empty.
pub fn summarize(xs: &[f64]) -> Option<Summary> {
    let m = mean(xs)?;
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Summary {
        n: xs.len(),
        mean: m,
        std: sample_std(xs),
        ci95: t_interval(xs, 0.95),
        min,
        max,
    })
}

/// Result of a paired (one-sample on differences) t-test.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TTest {
    pub t: f64,
    pub df: f64,
    /// Two-sided p-value; `None` when undefined (all differences zero, or n < 2).
    pub p: Option<f64>,
}

/// Paired t-test on differences `d` (H0: mean difference 0), two-sided, like
/// `scipy.stats.ttest_rel`. With zero spread and a non-zero mean, t is infinite and p = 0.
pub fn paired_t_test(d: &[f64]) -> Option<TTest> {
    let n = d.len();
    if n < 2 {
        return None;
    }
    let m = mean(d)?;
    let s = sample_std(d)?;
    let df = (n - 1) as f64;
    let t = if s == 0.0 {
        if m == 0.0 {
            f64::NAN
        } else {
            f64::INFINITY * m.signum()
        }
    } else {
        m / (s / (n as f64).sqrt())
    };
    Some(TTest {
        t,
        df,
        p: t_two_sided_p(t, df),
    })
}

/// How a Wilcoxon p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WilcoxonMethod {
    /// Exact null distribution of the signed-rank statistic (no ties, no zeros).
    Exact,
    /// Exact sign-flip distribution of the mid-ranks (ties or zeros, n ≤ 13).
    Permutation,
    /// Normal approximation with the tie-corrected variance, no continuity correction.
    Normal,
}

impl WilcoxonMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            WilcoxonMethod::Exact => "exact",
            WilcoxonMethod::Permutation => "permutation",
            WilcoxonMethod::Normal => "normal",
        }
    }
}

/// Result of a Wilcoxon signed-rank test.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Wilcoxon {
    /// min(W+, W−), as scipy reports for the two-sided test.
    pub statistic: f64,
    /// Sum of the ranks of the positive differences.
    pub w_plus: f64,
    /// Number of non-zero differences used.
    pub n: usize,
    pub p: f64,
    pub method: WilcoxonMethod,
}

/// Largest sample size (zeros included) for which an exact distribution is used.
pub const WILCOXON_EXACT_MAX_N: usize = 50;
/// Largest sample size (zeros included) for which ties or zeros get the exact sign-flip
/// distribution; larger samples with ties or zeros use the normal approximation.
pub const WILCOXON_PERMUTATION_MAX_N: usize = 13;

/// Wilcoxon signed-rank test on differences `d`, two-sided, `scipy.stats.wilcoxon`
/// defaults (see the module documentation). `None` when no non-zero difference remains.
pub fn wilcoxon(d: &[f64]) -> Option<Wilcoxon> {
    let nz: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0).collect();
    let n = nz.len();
    if n == 0 || nz.iter().any(|x| x.is_nan()) {
        return None;
    }
    // Mid-ranks of |d|.
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| nz[a].abs().total_cmp(&nz[b].abs()));
    let mut ranks = vec![0.0; n];
    let mut tie_term = 0.0; // Σ (t³ − t) over tie groups
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && nz[idx[j]].abs() == nz[idx[i]].abs() {
            j += 1;
        }
        let r = (i + 1 + j) as f64 / 2.0; // mean of ranks i+1..=j
        for &k in &idx[i..j] {
            ranks[k] = r;
        }
        let t = (j - i) as f64;
        tie_term += t * t * t - t;
        i = j;
    }
    let w_plus: f64 = (0..n).filter(|&k| nz[k] > 0.0).map(|k| ranks[k]).sum();
    let total = (n * (n + 1)) as f64 / 2.0;
    let w_minus = total - w_plus;
    let statistic = w_plus.min(w_minus);
    let has_ties = tie_term > 0.0;
    let has_zeros = nz.len() != d.len();
    // scipy's `auto` rule looks at the sample size including zeros.
    let method = if d.len() > WILCOXON_EXACT_MAX_N {
        WilcoxonMethod::Normal
    } else if !has_ties && !has_zeros {
        WilcoxonMethod::Exact
    } else if d.len() <= WILCOXON_PERMUTATION_MAX_N {
        WilcoxonMethod::Permutation
    } else {
        WilcoxonMethod::Normal
    };
    let p = match method {
        WilcoxonMethod::Exact => wilcoxon_exact_two_sided(n, statistic),
        WilcoxonMethod::Permutation => signflip_two_sided(&ranks, w_plus),
        WilcoxonMethod::Normal => {
            let nf = n as f64;
            let mn = nf * (nf + 1.0) / 4.0;
            let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
            if var <= 0.0 {
                1.0
            } else {
                let z = (w_plus - mn) / var.sqrt();
                let normal = Normal::new(0.0, 1.0).ok()?;
                (2.0 * normal.cdf(-z.abs())).min(1.0)
            }
        }
    };
    Some(Wilcoxon {
        statistic,
        w_plus,
        n,
        p,
        method,
    })
}

/// Two-sided p-value of `W+ = w_plus` under the exact sign-flip distribution of the given
/// (mid-)ranks: every assignment of signs is equally likely. Ranks are multiples of ½, so
/// the distribution is computed on doubled ranks.
fn signflip_two_sided(ranks: &[f64], w_plus: f64) -> f64 {
    let doubled: Vec<usize> = ranks.iter().map(|r| (r * 2.0).round() as usize).collect();
    let max: usize = doubled.iter().sum();
    let mut counts = vec![0.0f64; max + 1];
    counts[0] = 1.0;
    for &r in &doubled {
        for s in (r..=max).rev() {
            counts[s] += counts[s - r];
        }
    }
    let total: f64 = counts.iter().sum();
    let obs = w_plus * 2.0;
    let le: f64 = counts
        .iter()
        .enumerate()
        .filter(|(s, _)| (*s as f64) <= obs + 1e-9)
        .map(|(_, c)| c)
        .sum::<f64>()
        / total;
    let ge: f64 = counts
        .iter()
        .enumerate()
        .filter(|(s, _)| (*s as f64) >= obs - 1e-9)
        .map(|(_, c)| c)
        .sum::<f64>()
        / total;
    (2.0 * le.min(ge)).min(1.0)
}

/// Exact two-sided p-value of the signed-rank statistic `w` (integer-valued, no ties):
/// `2 · min(P(W ≤ w), P(W ≥ w))`, capped at 1, from the counts of subsets of `1..=n`
/// with each rank sum.
pub fn wilcoxon_exact_two_sided(n: usize, w: f64) -> f64 {
    let max = n * (n + 1) / 2;
    let mut counts = vec![0.0f64; max + 1];
    counts[0] = 1.0;
    for r in 1..=n {
        for s in (r..=max).rev() {
            counts[s] += counts[s - r];
        }
    }
    let total: f64 = counts.iter().sum();
    let w = w.round().clamp(0.0, max as f64) as usize;
    let le: f64 = counts[..=w].iter().sum::<f64>() / total;
    let ge: f64 = counts[w..].iter().sum::<f64>() / total;
    (2.0 * le.min(ge)).min(1.0)
}

/// Cohen's d_z: mean difference over the sample standard deviation of the differences.
/// `None` when n < 2 or the differences have no spread.
pub fn cohens_dz(d: &[f64]) -> Option<f64> {
    let m = mean(d)?;
    let s = sample_std(d)?;
    if s == 0.0 {
        None
    } else {
        Some(m / s)
    }
}

/// Holm's step-down adjustment of a family of p-values. Entries that are `None` are not
/// part of the family and stay `None`. Adjusted values are monotone in the raw ones and
/// capped at 1.
pub fn holm(ps: &[Option<f64>]) -> Vec<Option<f64>> {
    let mut idx: Vec<usize> = (0..ps.len()).filter(|&i| ps[i].is_some()).collect();
    idx.sort_by(|&a, &b| {
        ps[a]
            .unwrap_or(f64::NAN)
            .total_cmp(&ps[b].unwrap_or(f64::NAN))
    });
    let m = idx.len();
    let mut out = vec![None; ps.len()];
    let mut running = 0.0f64;
    for (rank, &i) in idx.iter().enumerate() {
        let p = ps[i].unwrap_or(f64::NAN);
        let adj = ((m - rank) as f64 * p).min(1.0);
        running = running.max(adj);
        out[i] = Some(running);
    }
    out
}

/// A baseline-vs-treatment comparison paired by seed.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PairedComparison {
    /// Number of pairs (seeds present in both groups).
    pub n: usize,
    /// Mean of `treatment − baseline`.
    pub mean_diff: f64,
    pub std_diff: Option<f64>,
    pub t_test: Option<TTest>,
    pub wilcoxon: Option<Wilcoxon>,
    pub cohens_dz: Option<f64>,
    /// 95% Student-t interval of the mean difference; `None` when n < 2.
    pub ci95_diff: Option<(f64, f64)>,
    /// Minimum detectable effect (two-sided paired t-test, α = [`MDE_ALPHA`], power
    /// [`MDE_POWER`], these n pairs, σ = `std_diff`); `None` when n < 2.
    pub mde: Option<f64>,
}

/// [`paired_t_mde_effect_size`] at α = [`MDE_ALPHA`] and power [`MDE_POWER`], remembered
/// per n (a report asks for the same few n many times).
pub fn mde_effect_size_default(n: usize) -> Option<f64> {
    static CACHE: OnceLock<Mutex<HashMap<usize, Option<f64>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(d) = cache.lock().ok().and_then(|c| c.get(&n).copied()) {
        return d;
    }
    let d = paired_t_mde_effect_size(n, MDE_ALPHA, MDE_POWER);
    if let Ok(mut c) = cache.lock() {
        c.insert(n, d);
    }
    d
}

/// Compares paired samples (`baseline[i]` and `treatment[i]` come from the same seed).
/// `None` when there are no pairs or the lengths differ.
pub fn paired_comparison(baseline: &[f64], treatment: &[f64]) -> Option<PairedComparison> {
    if baseline.len() != treatment.len() || baseline.is_empty() {
        return None;
    }
    let d: Vec<f64> = treatment.iter().zip(baseline).map(|(t, b)| t - b).collect();
    let std_diff = sample_std(&d);
    let mde = std_diff.and_then(|s| mde_effect_size_default(d.len()).map(|e| e * s));
    Some(PairedComparison {
        n: d.len(),
        mean_diff: mean(&d)?,
        std_diff,
        t_test: paired_t_test(&d),
        wilcoxon: wilcoxon(&d),
        cohens_dz: cohens_dz(&d),
        ci95_diff: t_interval(&d, 0.95),
        mde,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty_samples() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[-1.0, 7.0]), Some(3.0));
    }

    #[test]
    fn hand_computed_summary() {
        let s = summarize(&[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(s.mean, 2.5);
        // Σ(x−x̄)² = 5, /3
        assert!((s.std.unwrap() - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!((s.min, s.max), (1.0, 4.0));
        assert!(summarize(&[]).is_none());
        let one = summarize(&[7.0]).unwrap();
        assert_eq!(one.std, None);
        assert_eq!(one.ci95, None);
    }

    #[test]
    fn exact_wilcoxon_small_cases() {
        // n = 5, all positive: P(W− = 0) = 1/32, two-sided 1/16.
        let w = wilcoxon(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(w.method, WilcoxonMethod::Exact);
        assert_eq!(w.statistic, 0.0);
        assert!((w.p - 0.0625).abs() < 1e-12);
        // Symmetric statistic gives p = 1.
        assert!((wilcoxon_exact_two_sided(4, 5.0) - 1.0).abs() < 1e-12);
        assert!(wilcoxon(&[0.0, 0.0]).is_none());
    }

    #[test]
    fn holm_hand_computed() {
        let adj = holm(&[Some(0.01), Some(0.04), None, Some(0.03)]);
        // sorted 0.01, 0.03, 0.04 → 0.03, 0.06, max(0.06, 0.04) = 0.06
        assert!((adj[0].unwrap() - 0.03).abs() < 1e-12);
        assert!((adj[3].unwrap() - 0.06).abs() < 1e-12);
        assert!((adj[1].unwrap() - 0.06).abs() < 1e-12);
        assert_eq!(adj[2], None);
    }

    #[test]
    fn t_test_degenerate_cases() {
        let t = paired_t_test(&[1.0, 1.0, 1.0]).unwrap();
        assert_eq!(t.p, Some(0.0));
        let t = paired_t_test(&[0.0, 0.0]).unwrap();
        assert_eq!(t.p, None);
        assert!(paired_t_test(&[1.0]).is_none());
    }
}
