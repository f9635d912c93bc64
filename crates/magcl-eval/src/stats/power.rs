//! Power of the paired (one-sample) t-test and the minimum detectable effect (MDE).
//!
//! The power of the two-sided t-test at level α on n paired differences with true mean
//! Δ and standard deviation σ is, with d = Δ/σ, df = n − 1, noncentrality δ = d·√n and
//! the critical value c = t_{1−α/2, df}:
//!
//! ```text
//! power(d) = P(T′ > c) + P(T′ < −c),   T′ ~ noncentral t(df, δ)
//! ```
//!
//! which is what statsmodels' `TTestPower().power(d, n, α, alternative="two-sided")`
//! computes. The MDE at power 1 − β is σ·d*, where d* solves power(d*) = 1 − β
//! (statsmodels' `tt_solve_power`); σ is taken to be the observed standard deviation of
//! the differences. Reference values: `tools/power_fixture.py` →
//! `tests/fixtures/power/ttest_power.json`.
//!
//! The noncentral t CDF is the series of Lenth (1989, Applied Statistics algorithm
//! AS 243): for t ≥ 0, with x = t²/(t² + df) and λ = δ²/2,
//!
//! ```text
//! F(t; df, δ) = Φ(−δ) + ½ Σ_j [ P_j · I_x(j + ½, df/2) + Q_j · I_x(j + 1, df/2) ]
//! P_j = e^{−λ} λ^j / j!,   Q_j = δ e^{−λ} λ^j / (√2 · Γ(j + 3/2))
//! ```
//!
//! (I_x the regularised incomplete beta function), and F(t; df, δ) = 1 − F(−t; df, −δ)
//! for t < 0. The weights are Poisson-like around j = λ; terms further than 12√λ + 40
//! from λ are below 1e-30 of the total and are not summed.
use statrs::distribution::{ContinuousCDF, Normal};
use statrs::function::beta::beta_reg;
use statrs::function::gamma::ln_gamma;

use super::t_quantile;

/// CDF of the noncentral t distribution with `df` degrees of freedom and noncentrality
/// `nc`, at `t`. `None` for df ≤ 0 or a NaN argument.
pub fn nct_cdf(t: f64, df: f64, nc: f64) -> Option<f64> {
    if t.is_nan() || df.is_nan() || nc.is_nan() || df <= 0.0 || !nc.is_finite() {
        return None;
    }
    if t == f64::INFINITY {
        return Some(1.0);
    }
    if t == f64::NEG_INFINITY {
        return Some(0.0);
    }
    if t < 0.0 {
        return nct_cdf_nonneg(-t, df, -nc).map(|p| (1.0 - p).clamp(0.0, 1.0));
    }
    nct_cdf_nonneg(t, df, nc)
}

fn nct_cdf_nonneg(t: f64, df: f64, nc: f64) -> Option<f64> {
    let normal = Normal::new(0.0, 1.0).ok()?;
    let base = normal.cdf(-nc);
    if t == 0.0 {
        return Some(base);
    }
    let x = t * t / (t * t + df);
    let lambda = nc * nc / 2.0;
    let half_df = df / 2.0;
    let spread = 12.0 * lambda.sqrt() + 40.0;
    let j_lo = (lambda - spread).floor().max(0.0) as u64;
    let j_hi = (lambda + spread).ceil() as u64;
    let ln_lambda = lambda.ln(); // −∞ when nc = 0: only j = 0 contributes then
    let ln_abs_q = nc.abs().ln() - std::f64::consts::LN_2 / 2.0;
    let mut sum = 0.0;
    for j in j_lo..=j_hi {
        let jf = j as f64;
        let ln_pow = if j == 0 { 0.0 } else { jf * ln_lambda };
        let p = (-lambda + ln_pow - ln_gamma(jf + 1.0)).exp();
        let q = if nc == 0.0 {
            0.0
        } else {
            nc.signum() * (ln_abs_q - lambda + ln_pow - ln_gamma(jf + 1.5)).exp()
        };
        if p > 0.0 {
            sum += p * beta_reg(jf + 0.5, half_df, x);
        }
        if q != 0.0 {
            sum += q * beta_reg(jf + 1.0, half_df, x);
        }
    }
    Some((base + sum / 2.0).clamp(0.0, 1.0))
}

/// Power of the two-sided one-sample (paired) t-test at level `alpha` with `n`
/// differences and standardised effect `effect_size` = Δ/σ (statsmodels'
/// `TTestPower().power(effect_size, n, alpha, alternative="two-sided")`).
/// `None` for n < 2 or α outside (0, 1).
pub fn paired_t_power(effect_size: f64, n: usize, alpha: f64) -> Option<f64> {
    if n < 2 || !(alpha > 0.0 && alpha < 1.0) || !effect_size.is_finite() {
        return None;
    }
    let df = (n - 1) as f64;
    let nc = effect_size * (n as f64).sqrt();
    let crit = t_quantile(1.0 - alpha / 2.0, df)?;
    let upper = 1.0 - nct_cdf(crit, df, nc)?;
    let lower = nct_cdf(-crit, df, nc)?;
    Some((upper + lower).clamp(0.0, 1.0))
}

/// The standardised effect d* > 0 at which the two-sided paired t-test with `n` pairs at
/// level `alpha` has power `power` (statsmodels' `tt_solve_power`, solved here by
/// bisection to a relative precision of 1e-13). `None` for n < 2, or α or the power
/// outside (0, 1), or power ≤ α (no positive effect is needed).
pub fn paired_t_mde_effect_size(n: usize, alpha: f64, power: f64) -> Option<f64> {
    if n < 2 || !(alpha > 0.0 && alpha < 1.0) || !(power > alpha && power < 1.0) {
        return None;
    }
    increasing_root(|d| paired_t_power(d, n, alpha).map(|p| p - power), 1e-13)
}

/// The root in (0, 10⁶] of `f`, increasing and negative at 0 (a power curve minus its
/// target): the bracket doubles from [0, 1] until `f` is no longer negative, then
/// bisection until the bracket is `rel_tol` of its upper end. `None` where `f` is undefined
/// on the way or has no root below 10⁶.
pub fn increasing_root(f: impl Fn(f64) -> Option<f64>, rel_tol: f64) -> Option<f64> {
    let mut lo = 0.0;
    let mut hi = 1.0;
    while f(hi)? < 0.0 {
        lo = hi;
        hi *= 2.0;
        if hi > 1e6 {
            return None;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid)? < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= rel_tol * hi {
            break;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The minimum detectable effect, in the units of the differences: `sd` · d* (see
/// [`paired_t_mde_effect_size`]). `None` when d* is undefined or `sd` is not a finite
/// non-negative number.
pub fn paired_t_mde(n: usize, sd: f64, alpha: f64, power: f64) -> Option<f64> {
    if !(sd.is_finite() && sd >= 0.0) {
        return None;
    }
    paired_t_mde_effect_size(n, alpha, power).map(|d| d * sd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::distribution::StudentsT;

    /// With δ = 0 the noncentral t is Student's t; with df = 1 also Cauchy.
    #[test]
    fn central_case_is_students_t() {
        for df in [1.0, 3.0, 12.0] {
            let t = StudentsT::new(0.0, 1.0, df).unwrap();
            for x in [-3.0, -0.4, 0.0, 0.9, 2.5] {
                let got = nct_cdf(x, df, 0.0).unwrap();
                assert!((got - t.cdf(x)).abs() < 1e-12, "df {df} t {x}: {got}");
            }
        }
        let cauchy = |x: f64| 0.5 + x.atan() / std::f64::consts::PI;
        assert!((nct_cdf(1.0, 1.0, 0.0).unwrap() - cauchy(1.0)).abs() < 1e-12);
        assert!((nct_cdf(1.0, 1.0, 0.0).unwrap() - 0.75).abs() < 1e-12);
    }

    /// P(T′ ≤ 0) = P(Z ≤ −δ) = Φ(−δ) exactly, whatever df.
    #[test]
    fn cdf_at_zero_is_phi_of_minus_delta() {
        let phi = Normal::new(0.0, 1.0).unwrap();
        for nc in [-2.0, 0.5, 3.0] {
            let got = nct_cdf(0.0, 7.0, nc).unwrap();
            assert!((got - phi.cdf(-nc)).abs() < 1e-15);
        }
    }

    /// At effect 0 the test rejects with probability α: power = α.
    #[test]
    fn power_at_zero_effect_is_alpha() {
        for n in [2, 5, 30] {
            for alpha in [0.05, 0.01] {
                let p = paired_t_power(0.0, n, alpha).unwrap();
                assert!((p - alpha).abs() < 1e-12, "n {n}: {p}");
            }
        }
    }

    /// For large n the t-test is the z-test: d* → (z_{1−α/2} + z_{power})/√n.
    #[test]
    fn mde_approaches_the_normal_formula() {
        let n = 20_000;
        let d = paired_t_mde_effect_size(n, 0.05, 0.8).unwrap();
        let z = 1.959963984540054 + 0.8416212335729143;
        let want = z / (n as f64).sqrt();
        assert!((d / want - 1.0).abs() < 1e-3, "{d} vs {want}");
        // And power is monotone: more pairs, smaller MDE.
        let m5 = paired_t_mde(5, 1.0, 0.05, 0.8).unwrap();
        let m20 = paired_t_mde(20, 1.0, 0.05, 0.8).unwrap();
        assert!(m20 < m5);
        // MDE scales with the spread.
        let m = paired_t_mde(5, 2.0, 0.05, 0.8).unwrap();
        assert!((m - 2.0 * m5).abs() < 1e-12);
    }

    #[test]
    fn undefined_cases() {
        assert!(paired_t_mde(1, 1.0, 0.05, 0.8).is_none());
        assert!(paired_t_mde(5, f64::NAN, 0.05, 0.8).is_none());
        assert!(paired_t_mde_effect_size(5, 0.05, 0.04).is_none());
        assert_eq!(paired_t_mde(5, 0.0, 0.05, 0.8), Some(0.0));
        assert!(nct_cdf(1.0, 0.0, 1.0).is_none());
    }
}
