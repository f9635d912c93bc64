//! `exp(−γ·d)` rounded to f32, bit for bit what `(-(gamma * d)).exp() as f32` gives,
//! several times faster: the training kernel of every fit is built from these values
//! (tens of millions per evaluation).
//!
//! The vector path (AVX2) evaluates `e^x`, `x = −γ·d`, in f64 with a relative error
//! below 2⁻⁴⁴ (Cody–Waite reduction `x = k·ln 2 + r`, `|r| ≤ ½ ln 2`, and the degree-11
//! Taylor polynomial of `e^r`, whose truncation error is below 2⁻⁴⁶). The library's
//! `exp` is within 1 ulp of the true value, so the two f64 results are less than 2¹⁰
//! ulps apart; they round to the same f32 unless one lies within that distance of an
//! f32 rounding midpoint (the 29 discarded significand bits then read about 2²⁸). Such
//! values (about one in 2¹⁷), and every `x` outside `[−87, 0]` (where `e^x` would leave
//! the range of normal f32 numbers) or NaN, are computed with the library's `exp`
//! instead, so the result never differs.

/// `out[t] = (-(gamma * d[t])).exp() as f32` for every `t` (`out.len() == d.len()`).
pub fn neg_exp_f32(gamma: f64, d: &[f64], out: &mut [f32]) {
    assert_eq!(d.len(), out.len(), "neg_exp_f32: lengths");
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports the features the function is compiled for.
            unsafe { avx2::neg_exp_f32(gamma, d, out) };
            return;
        }
    }
    scalar(gamma, d, out);
}

/// The reference: the library's `exp`, rounded to f32.
pub fn scalar(gamma: f64, d: &[f64], out: &mut [f32]) {
    for (o, &v) in out.iter_mut().zip(d) {
        *o = (-(gamma * v)).exp() as f32;
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// fdlibm's split of ln 2: `LN2_HI` has 32 trailing zero bits, so `k·LN2_HI` is
    /// exact for `|k| < 2²⁰`.
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000); // 6.93147180369123816490e-1
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76); // 1.90821492927058770002e-10
    /// 1/i! for i = 11 down to 2 (Horner order)
    const INV_FACT: [f64; 10] = [
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
    ];
    /// Distance (in f64 ulps) from an f32 rounding midpoint below which the library's
    /// `exp` decides.
    const MARGIN: i64 = 1 << 12;

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn neg_exp_f32(gamma: f64, d: &[f64], out: &mut [f32]) {
        let n = d.len();
        let n4 = n - n % 4;
        let vg = _mm256_set1_pd(gamma);
        let sign = _mm256_set1_pd(-0.0);
        let lo_bound = _mm256_set1_pd(-87.0);
        let zero = _mm256_setzero_pd();
        let log2e = _mm256_set1_pd(std::f64::consts::LOG2_E);
        let ln2_hi = _mm256_set1_pd(LN2_HI);
        let ln2_lo = _mm256_set1_pd(LN2_LO);
        let one = _mm256_set1_pd(1.0);
        let coef: [__m256d; 10] = std::array::from_fn(|i| _mm256_set1_pd(INV_FACT[i]));
        let bias = _mm256_set1_epi64x(1023);
        let low_mask = _mm256_set1_epi64x((1 << 29) - 1);
        let mid = _mm256_set1_epi64x(1 << 28);
        let hi_lim = _mm256_set1_epi64x(MARGIN);
        let lo_lim = _mm256_set1_epi64x(-MARGIN);
        let (pd, po) = (d.as_ptr(), out.as_mut_ptr());
        let mut t = 0;
        while t < n4 {
            // SAFETY: t + 4 ≤ n4 ≤ n = d.len() = out.len()
            let x = _mm256_xor_pd(_mm256_mul_pd(vg, _mm256_loadu_pd(pd.add(t))), sign);
            // −87 ≤ x ≤ 0 (false for NaN)
            let in_range = _mm256_and_pd(
                _mm256_cmp_pd::<_CMP_GE_OQ>(x, lo_bound),
                _mm256_cmp_pd::<_CMP_LE_OQ>(x, zero),
            );
            // outside the range x is clamped so the arithmetic below stays finite
            let xc = _mm256_blendv_pd(zero, x, in_range);
            let k = _mm256_round_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
                _mm256_mul_pd(xc, log2e),
            );
            let r = _mm256_sub_pd(
                _mm256_sub_pd(xc, _mm256_mul_pd(k, ln2_hi)),
                _mm256_mul_pd(k, ln2_lo),
            );
            let mut p = coef[0];
            for c in &coef[1..] {
                p = _mm256_add_pd(_mm256_mul_pd(p, r), *c);
            }
            p = _mm256_add_pd(_mm256_mul_pd(p, r), one);
            p = _mm256_add_pd(_mm256_mul_pd(p, r), one);
            // 2^k by the exponent field (k ∈ [−126, 0])
            let ki = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k));
            let scale = _mm256_castsi256_pd(_mm256_slli_epi64::<52>(_mm256_add_epi64(ki, bias)));
            let v = _mm256_mul_pd(p, scale);
            // how far the 29 bits that f32 rounding drops are from the midpoint
            let low = _mm256_and_si256(_mm256_castpd_si256(v), low_mask);
            let dist = _mm256_sub_epi64(low, mid);
            let safe = _mm256_or_si256(
                _mm256_cmpgt_epi64(dist, hi_lim),
                _mm256_cmpgt_epi64(lo_lim, dist),
            );
            let ok = _mm256_and_pd(in_range, _mm256_castsi256_pd(safe));
            _mm_storeu_ps(po.add(t), _mm256_cvtpd_ps(v));
            let mask = _mm256_movemask_pd(ok);
            if mask != 0b1111 {
                for l in 0..4 {
                    if mask & (1 << l) == 0 {
                        *po.add(t + l) = (-(gamma * *pd.add(t + l))).exp() as f32;
                    }
                }
            }
            t += 4;
        }
        super::scalar(gamma, &d[n4..], &mut out[n4..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// Bit for bit the library's result on millions of arguments across the whole
    /// range, including 0, the range ends, out-of-range values, and values the vector
    /// path must hand to the library.
    #[test]
    fn equals_the_library_exp_bit_for_bit() {
        let mut raw = crate::lcg(0x9e37_79b9_7f4a_7c15);
        let mut next = || ((raw() >> 11) as f64) / ((1u64 << 53) as f64);
        let mut d: Vec<f64> = (0..4_000_000)
            .map(|i| match i % 4 {
                0 => next() * 2.0,
                1 => next() * 100.0,
                2 => (next() * 40.0 - 30.0).exp(),
                _ => next() * 1e-6,
            })
            .collect();
        d.extend([
            0.0,
            87.0,
            87.000001,
            86.99999,
            1e300,
            f64::INFINITY,
            5e-324,
            1.0,
        ]);
        for gamma in [1.0, 0.037, 0.5, 3.3, 1e-3] {
            let mut fast = vec![0f32; d.len()];
            let mut slow = vec![0f32; d.len()];
            neg_exp_f32(gamma, &d, &mut fast);
            scalar(gamma, &d, &mut slow);
            let bad = (0..d.len()).find(|&t| fast[t].to_bits() != slow[t].to_bits());
            assert_eq!(bad, None, "gamma {gamma}: d = {:?}", bad.map(|t| d[t]));
        }
        // odd lengths (the scalar tail)
        for len in 0..9 {
            let mut fast = vec![0f32; len];
            let mut slow = vec![0f32; len];
            neg_exp_f32(0.7, &d[..len], &mut fast);
            scalar(0.7, &d[..len], &mut slow);
            assert_eq!(bits(&fast), bits(&slow));
        }
    }

    /// The midpoint test is what keeps the results equal: an f64 value next to an f32
    /// rounding midpoint goes to the library. Arguments whose true `e^x` lies within
    /// 2⁻⁴⁰ (relative) of a midpoint are built here and must still agree.
    #[test]
    fn values_next_to_rounding_midpoints_agree() {
        let mut d = Vec::new();
        for m in 0..2000u32 {
            // midpoint between two neighbouring f32 values in (0.2, 1)
            let a = 0.2f32 + m as f32 * 3.7e-4;
            let b = f32::from_bits(a.to_bits() + 1);
            let mid = (f64::from(a) + f64::from(b)) / 2.0;
            for j in -3i32..=3 {
                let v = mid * (1.0 + f64::from(j) * 2f64.powi(-44));
                d.push(-v.ln());
            }
        }
        let mut fast = vec![0f32; d.len()];
        let mut slow = vec![0f32; d.len()];
        neg_exp_f32(1.0, &d, &mut fast);
        scalar(1.0, &d, &mut slow);
        let bad = (0..d.len()).find(|&t| fast[t].to_bits() != slow[t].to_bits());
        assert_eq!(bad, None);
    }
}
