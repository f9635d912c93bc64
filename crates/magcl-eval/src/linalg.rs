//! Small dense helpers: a row-major feature matrix, standardisation, squared distances.
use rayon::prelude::*;

/// Row-major `n × d` matrix of f64 features.
#[derive(Clone, Debug)]
pub struct Features {
    pub n: usize,
    pub d: usize,
    pub data: Vec<f64>,
}

impl Features {
    /// Widen f32 embeddings to f64 (what scikit-learn does before fitting).
    pub fn from_f32(x: &[f32], n: usize, d: usize) -> Self {
        Features {
            n,
            d,
            data: x.iter().map(|&v| f64::from(v)).collect(),
        }
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.d..(i + 1) * self.d]
    }

    /// Population variance of all entries of the rows `idx` (numpy's `X[idx].var()`).
    pub fn variance_of_rows(&self, idx: &[usize]) -> f64 {
        let cnt = (idx.len() * self.d) as f64;
        if cnt == 0.0 {
            return 0.0;
        }
        let mut sum = 0.0;
        for &i in idx {
            sum += self.row(i).iter().sum::<f64>();
        }
        let mean = sum / cnt;
        let mut ss = 0.0;
        for &i in idx {
            ss += self
                .row(i)
                .iter()
                .map(|v| (v - mean) * (v - mean))
                .sum::<f64>();
        }
        ss / cnt
    }

    /// A copy standardised with the mean and population standard deviation of the rows
    /// `fit_rows` (scikit-learn `StandardScaler`: a constant feature keeps scale 1).
    pub fn standardized(&self, fit_rows: &[usize]) -> Features {
        let d = self.d;
        let cnt = fit_rows.len().max(1) as f64;
        let mut mean = vec![0.0; d];
        for &i in fit_rows {
            for (m, v) in mean.iter_mut().zip(self.row(i)) {
                *m += v;
            }
        }
        mean.iter_mut().for_each(|m| *m /= cnt);
        let mut var = vec![0.0; d];
        for &i in fit_rows {
            for ((s, v), m) in var.iter_mut().zip(self.row(i)).zip(&mean) {
                *s += (v - m) * (v - m);
            }
        }
        // scikit-learn's constant-feature test: a variance within the rounding error of
        // its computation counts as zero, and such a feature keeps scale 1
        let eps = f64::EPSILON;
        let scale: Vec<f64> = var
            .iter()
            .zip(&mean)
            .map(|(s, m)| {
                let v = s / cnt;
                let bound = cnt * eps * v + (cnt * m * eps).powi(2);
                if v <= bound || !v.is_finite() {
                    1.0
                } else {
                    v.sqrt()
                }
            })
            .collect();
        let mut data = self.data.clone();
        for row in data.chunks_exact_mut(d) {
            for ((v, m), s) in row.iter_mut().zip(&mean).zip(&scale) {
                *v = (*v - m) / s;
            }
        }
        Features { n: self.n, d, data }
    }
}

/// All pairwise squared Euclidean distances, `n × n` row-major, computed as
/// `|a|² + |b|² − 2 a·b` (libsvm's formula) with a blocked matrix product, in parallel.
pub fn squared_distances(x: &Features) -> Vec<f64> {
    let (n, d) = (x.n, x.d);
    let norms: Vec<f64> = (0..n)
        .map(|i| x.row(i).iter().map(|v| v * v).sum())
        .collect();
    let mut out = vec![0f64; n * n];
    const BLOCK: usize = 128;
    out.par_chunks_mut(BLOCK * n)
        .enumerate()
        .for_each(|(b, chunk)| {
            let r0 = b * BLOCK;
            let rows = chunk.len() / n.max(1);
            let mut gram = vec![0f64; rows * n];
            gram_block(&x.data, d, r0, rows, n, &mut gram);
            for r in 0..rows {
                let i = r0 + r;
                let g = &gram[r * n..(r + 1) * n];
                let o = &mut chunk[r * n..(r + 1) * n];
                for j in 0..n {
                    let v = norms[i] + norms[j] - 2.0 * g[j];
                    o[j] = if i == j { 0.0 } else { v.max(0.0) };
                }
            }
        });
    out
}

/// Whether the row-major `n × n` matrix `a` equals its transpose bit for bit (compared in
/// tiles, so both reads stay in cache).
pub fn is_symmetric(a: &[f64], n: usize) -> bool {
    assert!(a.len() >= n * n);
    const TILE: usize = 64;
    for r0 in (0..n).step_by(TILE) {
        for c0 in (r0..n).step_by(TILE) {
            for r in r0..(r0 + TILE).min(n) {
                for c in c0.max(r + 1)..(c0 + TILE).min(n) {
                    if a[r * n + c].to_bits() != a[c * n + r].to_bits() {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// `gram[r][j] = x[r0 + r] · x[j]` for `r < rows`, `j < n`.
fn gram_block(x: &[f64], d: usize, r0: usize, rows: usize, n: usize, gram: &mut [f64]) {
    debug_assert!(x.len() >= n * d && gram.len() >= rows * n && r0 + rows <= n);
    if rows == 0 || n == 0 || d == 0 {
        return;
    }
    let a = &x[r0 * d..(r0 + rows) * d];
    // SAFETY: `a` is `rows × d` row-major (row stride d, column stride 1); `x` read as its
    // transpose is `d × n` (row stride 1, column stride d), all in bounds because
    // x.len() ≥ n·d; `gram` is `rows × n` row-major with gram.len() ≥ rows·n. The slices
    // do not alias (gram is a separate allocation).
    unsafe {
        matrixmultiply::dgemm(
            rows,
            d,
            n,
            1.0,
            a.as_ptr(),
            d as isize,
            1,
            x.as_ptr(),
            1,
            d as isize,
            0.0,
            gram.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// `out[r·ld + c] += scale · Σ_i w_i x_ir x_ic` for `r, c < k`: a weighted Gram matrix
/// `Xᵀ diag(w) X` of the row-major `m × k` matrix `x`, added into a `k × k` block of a
/// larger row-major matrix with row stride `ld`. `scratch` is resized as needed.
#[allow(clippy::too_many_arguments)]
pub fn weighted_gram_add(
    x: &[f64],
    m: usize,
    k: usize,
    w: &[f64],
    scale: f64,
    out: &mut [f64],
    ld: usize,
    scratch: &mut Vec<f64>,
) {
    assert!(x.len() >= m * k && w.len() >= m && ld >= k);
    assert!(k == 0 || out.len() >= (k - 1) * ld + k);
    if m == 0 || k == 0 {
        return;
    }
    scratch.clear();
    for (row, &wi) in x.chunks_exact(k).take(m).zip(w) {
        scratch.extend(row.iter().map(|v| v * wi));
    }
    // SAFETY: A = xᵀ is `k × m` (row stride 1, column stride k) inside x (len ≥ m·k);
    // B = scratch is `m × k` row-major (len = m·k); C is `k × k` with row stride `ld`
    // inside `out`, whose length was checked above. `out` does not alias x or scratch.
    unsafe {
        matrixmultiply::dgemm(
            k,
            m,
            k,
            scale,
            x.as_ptr(),
            1,
            k as isize,
            scratch.as_ptr(),
            k as isize,
            1,
            1.0,
            out.as_mut_ptr(),
            ld as isize,
            1,
        );
    }
}

/// Dot product with four accumulators (vectorises without fast-math).
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = [0.0f64; 4];
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        s[0] += x[0] * y[0];
        s[1] += x[1] * y[1];
        s[2] += x[2] * y[2];
        s[3] += x[3] * y[3];
    }
    let mut t = (s[0] + s[1]) + (s[2] + s[3]);
    for (x, y) in ra.iter().zip(rb) {
        t += x * y;
    }
    t
}

/// `y += a·x`.
pub fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_match_direct_computation() {
        let n = 300;
        let d = 7;
        let data: Vec<f64> = (0..n * d)
            .map(|i| ((i * 37 % 101) as f64) / 10.0 - 3.0)
            .collect();
        let x = Features { n, d, data };
        let d2 = squared_distances(&x);
        for &(i, j) in &[(0, 1), (5, 299), (150, 17), (42, 42), (299, 0)] {
            let direct: f64 = x
                .row(i)
                .iter()
                .zip(x.row(j))
                .map(|(a, b)| (a - b) * (a - b))
                .sum();
            assert!((d2[i * n + j] - direct).abs() < 1e-9 * (1.0 + direct));
        }
    }

    #[test]
    fn symmetry_check() {
        let n = 150;
        let mut a: Vec<f64> = (0..n * n)
            .map(|t| {
                let (i, j) = (t / n, t % n);
                ((i * j) as f64).sin() + (i + j) as f64
            })
            .collect();
        assert!(is_symmetric(&a, n));
        assert!(is_symmetric(&a[..0], 0));
        a[140 * n + 3] += 1e-12;
        assert!(!is_symmetric(&a, n));
        // +0 and −0 differ bitwise
        a[140 * n + 3] = 0.0;
        a[3 * n + 140] = -0.0;
        assert!(!is_symmetric(&a, n));
        // the distances of a point set are symmetric as computed
        let d = 5;
        let x = Features {
            n,
            d,
            data: (0..n * d)
                .map(|i| ((i * 31 % 97) as f64) / 7.0 - 5.0)
                .collect(),
        };
        assert!(is_symmetric(&squared_distances(&x), n));
    }

    #[test]
    fn weighted_gram_matches_loops() {
        let (m, k) = (5, 3);
        let x: Vec<f64> = (0..m * k).map(|i| (i as f64 * 0.7).sin()).collect();
        let w = [1.0, -0.5, 2.0, 0.0, 0.3];
        let ld = 4;
        let mut out = vec![1.0; (k - 1) * ld + k];
        let mut scratch = Vec::new();
        weighted_gram_add(&x, m, k, &w, 2.0, &mut out, ld, &mut scratch);
        for r in 0..k {
            for c in 0..k {
                let want: f64 = 1.0
                    + 2.0
                        * (0..m)
                            .map(|i| w[i] * x[i * k + r] * x[i * k + c])
                            .sum::<f64>();
                assert!((out[r * ld + c] - want).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn variance_and_standardisation() {
        let x = Features {
            n: 3,
            d: 2,
            data: vec![1.0, 5.0, 3.0, 5.0, 5.0, 5.0],
        };
        // entries 1,5,3,5,5,5: mean 4, squared deviations 9,1,1,1,1,1 -> 14/6
        assert!((x.variance_of_rows(&[0, 1, 2]) - 14.0 / 6.0).abs() < 1e-12);
        let s = x.standardized(&[0, 1, 2]);
        let sd = (8.0f64 / 3.0).sqrt();
        assert!((s.data[0] - (-2.0 / sd)).abs() < 1e-12);
        // the constant feature is centred and keeps scale 1
        assert_eq!(s.data[1], 0.0);
    }
}
