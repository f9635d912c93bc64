//! Tests the report needs beyond the paired comparison of `magcl_eval::stats`: the
//! power of a t-test with any degrees of freedom (Welch's included), its minimum
//! detectable effect, Welch's unpaired comparison (a method against a classical floor
//! run on other seeds), the pooled standard deviation of several paired comparisons, and
//! the test of a measured Δ against a claimed Δ that has its own uncertainty.
//!
//! Power of a two-sided t-test at level α with `df` degrees of freedom, when the true
//! effect over its standard error is `nc` (the noncentrality):
//!
//! ```text
//! power = P(T′ > c) + P(T′ < −c),   c = t(1 − α/2, df),   T′ ~ noncentral t(df, nc)
//! ```
//!
//! For n paired differences (df = n − 1, nc = Δ/σ·√n) this is
//! [`stats::paired_t_power`]; for Welch's test df is Welch–Satterthwaite's and
//! nc = Δ / √(s₁²/n₁ + s₂²/n₂) (the usual approximation; statsmodels' `TTestIndPower`
//! uses the same form with the pooled variance).
use serde::Serialize;

use crate::stats::{self, nct_cdf, t_quantile, t_two_sided_p, MDE_ALPHA, MDE_POWER};

/// Power of the two-sided t-test at level `alpha` with `df` degrees of freedom at
/// noncentrality `nc` (true effect / its standard error). `None` for df ≤ 0 or α outside
/// (0, 1).
pub fn t_power(nc: f64, df: f64, alpha: f64) -> Option<f64> {
    if !(df > 0.0 && alpha > 0.0 && alpha < 1.0 && nc.is_finite()) {
        return None;
    }
    let crit = t_quantile(1.0 - alpha / 2.0, df)?;
    let upper = 1.0 - nct_cdf(crit, df, nc)?;
    let lower = nct_cdf(-crit, df, nc)?;
    Some((upper + lower).clamp(0.0, 1.0))
}

/// The smallest true effect the two-sided t-test with `df` degrees of freedom detects
/// with probability [`MDE_POWER`] at α = [`MDE_ALPHA`], when its standard error is `se`:
/// `se · nc*` with nc* solving `t_power(nc*, df) = 0.8` (bisection to 1e-12 relative).
pub fn mde(se: f64, df: f64) -> Option<f64> {
    if !(se.is_finite() && se >= 0.0 && df > 0.0) {
        return None;
    }
    let nc = stats::increasing_root(
        |nc| t_power(nc, df, MDE_ALPHA).map(|p| p - MDE_POWER),
        1e-12,
    )?;
    Some(se * nc)
}

/// Welch–Satterthwaite degrees of freedom of a sum of independent variance terms
/// `v_i = s_i²/n_i`, each with `df_i` degrees of freedom. `None` when every term is 0.
pub fn satterthwaite(terms: &[(f64, f64)]) -> Option<f64> {
    let total: f64 = terms.iter().map(|(v, _)| v).sum();
    let denom: f64 = terms
        .iter()
        .filter(|(v, _)| *v > 0.0)
        .map(|(v, df)| v * v / df)
        .sum();
    (total > 0.0 && denom > 0.0).then(|| total * total / denom)
}

/// An unpaired comparison of two samples, `a − b`, by Welch's t-test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Welch {
    pub n_a: usize,
    pub n_b: usize,
    pub mean_diff: f64,
    /// √(s_a²/n_a + s_b²/n_b).
    pub se: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value of Δ = 0.
    pub p: Option<f64>,
    /// mean_diff ± t(0.975, df) · se.
    pub ci95: Option<(f64, f64)>,
    /// Minimum detectable effect at 80% power, α = 0.05, this se and df.
    pub mde: Option<f64>,
}

/// Welch's test of `a − b`; `None` with fewer than 2 values in either sample or no
/// spread in both.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    let (ma, mb) = (stats::mean(a)?, stats::mean(b)?);
    let (sa, sb) = (stats::sample_std(a)?, stats::sample_std(b)?);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (va, vb) = (sa * sa / na, sb * sb / nb);
    let df = satterthwaite(&[(va, na - 1.0), (vb, nb - 1.0)])?;
    let se = (va + vb).sqrt();
    let d = ma - mb;
    let q = t_quantile(0.975, df)?;
    Some(Welch {
        n_a: a.len(),
        n_b: b.len(),
        mean_diff: d,
        se,
        df,
        p: t_two_sided_p(d / se, df),
        ci95: Some((d - q * se, d + q * se)),
        mde: mde(se, df),
    })
}

/// A standard deviation pooled over several samples: √(Σ dfᵢ sᵢ² / Σ dfᵢ).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pooled {
    pub std: f64,
    /// Σ dfᵢ.
    pub df: f64,
    /// How many samples went in.
    pub cells: usize,
}

/// Pools `(std, df)` pairs (entries with df ≤ 0 are left out); `None` when none is left.
pub fn pool(parts: &[(f64, f64)]) -> Option<Pooled> {
    let used: Vec<&(f64, f64)> = parts
        .iter()
        .filter(|(s, df)| *df > 0.0 && s.is_finite())
        .collect();
    let df: f64 = used.iter().map(|(_, df)| df).sum();
    if used.is_empty() || df <= 0.0 {
        return None;
    }
    let ss: f64 = used.iter().map(|(s, df)| s * s * df).sum();
    Some(Pooled {
        std: (ss / df).sqrt(),
        df,
        cells: used.len(),
    })
}

/// One arm of a published claim: its standard deviation and run count, each either
/// printed by the paper or assumed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClaimArm {
    pub std: f64,
    pub runs: usize,
    /// The std was not printed: the measured arm's std stands in for it.
    pub std_assumed: bool,
    /// The run count was not printed: [`ASSUMED_RUNS`] stands in for it.
    pub runs_assumed: bool,
}

/// The run count assumed for a published mean that does not state one: the 5 seeds of
/// GraphCL's, SimGRACE's and MA-GCL's released scripts.
pub const ASSUMED_RUNS: usize = 5;

/// The test of a measured Δ against a claimed Δ = treatment − baseline of two published
/// means, each with its own uncertainty.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClaimTest {
    /// Standard error of the claimed Δ: √(s_T²/n_T + s_B²/n_B).
    pub claim_se: f64,
    /// Standard error of the measured Δ: std(Δ)/√n.
    pub measured_se: f64,
    /// (Δ̂ − c) / √(measured_se² + claim_se²).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom of the three variance terms.
    pub df: f64,
    /// Two-sided p-value of Δ = c.
    pub p: Option<f64>,
}

/// Tests Δ = c: the measured mean difference `mean_diff` of `n` pairs with std `sd`
/// against the claimed `c` = mean_T − mean_B of two published arms. `None` with fewer
/// than 2 pairs.
pub fn claim_test(
    mean_diff: f64,
    sd: f64,
    n: usize,
    c: f64,
    treatment: &ClaimArm,
    baseline: &ClaimArm,
) -> Option<ClaimTest> {
    if n < 2 || !sd.is_finite() {
        return None;
    }
    let vm = sd * sd / n as f64;
    let arm = |a: &ClaimArm| {
        (
            a.std * a.std / a.runs as f64,
            a.runs.saturating_sub(1) as f64,
        )
    };
    let (vt, dft) = arm(treatment);
    let (vb, dfb) = arm(baseline);
    let total = vm + vt + vb;
    let diff = mean_diff - c;
    if total == 0.0 {
        return Some(ClaimTest {
            claim_se: 0.0,
            measured_se: 0.0,
            t: if diff == 0.0 { 0.0 } else { f64::INFINITY },
            df: (n - 1) as f64,
            p: (diff != 0.0).then_some(0.0),
        });
    }
    let terms: Vec<(f64, f64)> = [(vm, (n - 1) as f64), (vt, dft), (vb, dfb)]
        .into_iter()
        .filter(|(_, df)| *df > 0.0)
        .collect();
    let df = satterthwaite(&terms).unwrap_or((n - 1) as f64);
    let t = diff / total.sqrt();
    Some(ClaimTest {
        claim_se: (vt + vb).sqrt(),
        measured_se: vm.sqrt(),
        t,
        df,
        p: t_two_sided_p(t, df),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With df = n − 1 and nc = d√n, `t_power` is the paired power of magcl-eval, and
    /// `mde` the paired MDE (d* · sd).
    #[test]
    fn agrees_with_the_paired_power() {
        for (d, n) in [(0.5, 5usize), (1.2, 5), (0.3, 20), (0.8, 12)] {
            let a = t_power(d * (n as f64).sqrt(), (n - 1) as f64, 0.05).unwrap();
            let b = stats::paired_t_power(d, n, 0.05).unwrap();
            assert!((a - b).abs() < 1e-12, "d {d} n {n}: {a} vs {b}");
        }
        let sd = 1.7;
        let m = mde(sd / 20f64.sqrt(), 19.0).unwrap();
        let want = stats::paired_t_mde(20, sd, 0.05, 0.8).unwrap();
        assert!((m - want).abs() < 1e-9 * want, "{m} vs {want}");
    }

    /// Welch by hand: a = (1, 2, 3, 4), b = (2, 4, 6): means 2.5 and 4, variances 5/3 and
    /// 4; se² = 5/12 + 4/3 = 1.75; df = 1.75² / ((5/12)²/3 + (4/3)²/2) = 3.0625 / 0.94676.
    #[test]
    fn welch_by_hand() {
        let w = welch(&[1.0, 2.0, 3.0, 4.0], &[2.0, 4.0, 6.0]).unwrap();
        assert!((w.mean_diff + 1.5).abs() < 1e-12);
        assert!((w.se - 1.75f64.sqrt()).abs() < 1e-12);
        let df = 3.0625 / ((5.0f64 / 12.0).powi(2) / 3.0 + (4.0f64 / 3.0).powi(2) / 2.0);
        assert!((w.df - df).abs() < 1e-12, "{}", w.df);
        // t = −1.13389, df = 3.23472: p = 1 − 2∫₀^|t| f(x; df) dx, the t density integrated
        // by Simpson's rule (200 000 panels) in a few lines of Python, independently of statrs.
        assert!(
            (w.p.unwrap() - 0.3338237000774934).abs() < 1e-9,
            "{:?}",
            w.p
        );
        let (lo, hi) = w.ci95.unwrap();
        let q = t_quantile(0.975, df).unwrap();
        assert!((lo - (-1.5 - q * w.se)).abs() < 1e-12 && (hi - (-1.5 + q * w.se)).abs() < 1e-12);
        assert!(welch(&[1.0], &[2.0, 3.0]).is_none());
    }

    #[test]
    fn pooled_std_by_hand() {
        // (2² · 4 + 1² · 4) / 8 = 2.5
        let p = pool(&[(2.0, 4.0), (1.0, 4.0), (9.0, 0.0)]).unwrap();
        assert!((p.std - 2.5f64.sqrt()).abs() < 1e-12);
        assert_eq!((p.df, p.cells), (8.0, 2));
        assert!(pool(&[]).is_none());
    }

    /// Δ = c with the claim's uncertainty, by hand: 20 pairs, Δ̂ = −0.22, sd 0.5; claim
    /// 0.27 from arms with std 0.41 (5 runs) and 0.3 (5 runs).
    #[test]
    fn claim_test_by_hand() {
        let arm = |std| ClaimArm {
            std,
            runs: 5,
            std_assumed: false,
            runs_assumed: false,
        };
        let t = claim_test(-0.22, 0.5, 20, 0.27, &arm(0.3), &arm(0.41)).unwrap();
        let (vm, vt, vb) = (0.25 / 20.0, 0.09 / 5.0, 0.1681 / 5.0);
        let total: f64 = vm + vt + vb;
        assert!((t.t - (-0.49 / total.sqrt())).abs() < 1e-12);
        let df = total * total / (vm * vm / 19.0 + vt * vt / 4.0 + vb * vb / 4.0);
        assert!((t.df - df).abs() < 1e-9, "{} vs {df}", t.df);
        assert!((t.claim_se - (vt + vb).sqrt()).abs() < 1e-12);
        let p = t_two_sided_p(t.t, df).unwrap();
        assert_eq!(t.p, Some(p));
        // The claim's own uncertainty makes the test milder than the exact-point test.
        let exact = claim_test(-0.22, 0.5, 20, 0.27, &arm(0.0), &arm(0.0)).unwrap();
        assert!(exact.p.unwrap() < p, "{:?} vs {p}", exact.p);
        assert!((exact.df - 19.0).abs() < 1e-9);
    }
}
