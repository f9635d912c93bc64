//! RBF-kernel C-SVC with scikit-learn's `SVC()` defaults: `gamma = 'scale'`
//! (`1 / (d · Var(X_fit))`, population variance over all entries of the fit's matrix),
//! `tol = 1e-3`, shrinking on, one-vs-one for more than two classes.
//!
//! Class handling follows the libsvm that scikit-learn bundles: classes sorted by label
//! value; the fit's samples are grouped by class (index order kept within a class); the
//! pair (a, b), a < b, is trained with class a as +1; a test sample votes for a if the
//! pair's decision value is > 0, else for b; the prediction is the first class with the
//! most votes.
//!
//! All kernel values come from one precomputed matrix of squared distances, so a fit only
//! costs `exp(−γ·D²)` over its samples, and one kernel matrix serves every C of the grid.
//! Precision follows libsvm: distances and test-time kernel values in f64, the training
//! kernel stored in f32 (libsvm's `Qfloat`).
use super::linalg::is_symmetric;
use super::rbf_exp::neg_exp_f32;
use super::smo::{KernelRef, Smo};

/// libsvm's default stopping tolerance as scikit-learn passes it.
pub const TOL: f64 = 1e-3;

/// Squared distances between all samples (`n × n`, row-major, f64).
pub struct SqDist<'a> {
    pub n: usize,
    pub data: &'a [f64],
    /// whether `data` is exactly (bitwise) symmetric: kernel blocks are then computed on
    /// one triangle and mirrored, with the same values
    pub symmetric: bool,
}

impl<'a> SqDist<'a> {
    /// Wrap `data` (`n × n`), checking its symmetry.
    pub fn new(n: usize, data: &'a [f64]) -> Self {
        assert_eq!(data.len(), n * n, "squared distances: n × n values");
        SqDist {
            n,
            data,
            symmetric: is_symmetric(data, n),
        }
    }
    #[inline]
    fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.n..(i + 1) * self.n]
    }
}

struct Pair {
    a: usize,
    b: usize,
    /// positions in the fit's class-grouped order
    pos: Vec<usize>,
    /// own copy of the kernel block when the two classes are not adjacent
    own: Option<Vec<f32>>,
    /// offset of the block in the fit kernel when they are
    offset: usize,
    /// labels (+1 for class a, −1 for class b) in `pos` order
    y: Vec<f64>,
    smo: Smo,
}

/// One fit (a set of training samples and a γ) whose C can be raised step by step.
pub struct RbfPath {
    classes: Vec<u32>,
    /// global sample index for each position (grouped by class, index order within)
    order: Vec<usize>,
    gamma: f64,
    k: Vec<f32>,
    pairs: Vec<Pair>,
    /// the `C` of the last solve
    last_c: Option<f64>,
}

/// Where the solve for the next `C` of a grid starts (alpha seeding; measured in
/// `docs/evaluation.md`, "Warm starts").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Seed {
    /// α = 0 for every `C`: libsvm's path, the one scikit-learn's `SVC` follows (the
    /// evaluator's default).
    #[default]
    Cold,
    /// The previous (smaller) `C`'s solution, still feasible for the larger box.
    Warm,
    /// The previous `C`'s solution times `C / C_prev` (feasible too: `yᵀα` stays 0 and
    /// `α ≤ C`): the bounded multipliers stay at the bound.
    Scaled,
}

impl RbfPath {
    /// Prepare the fit on `fit` (global indices, in the caller's order) with labels `y`
    /// (global) and kernel width `gamma`. Returns `None` when `fit` holds fewer than two
    /// classes (libsvm refuses such a problem).
    pub fn new(d2: &SqDist<'_>, y: &[u32], fit: &[usize], gamma: f64) -> Option<Self> {
        Self::new_in(d2, y, fit, gamma, Vec::new())
    }

    /// [`new`](Self::new), storing the fit's kernel in `buf` (its contents are
    /// overwritten; get it back with [`into_kernel_buffer`](Self::into_kernel_buffer)):
    /// reusing one buffer across fits saves allocating and faulting in tens of MB per
    /// fit.
    pub fn new_in(
        d2: &SqDist<'_>,
        y: &[u32],
        fit: &[usize],
        gamma: f64,
        buf: Vec<f32>,
    ) -> Option<Self> {
        let mut classes: Vec<u32> = fit.iter().map(|&i| y[i]).collect();
        classes.sort_unstable();
        classes.dedup();
        if classes.len() < 2 {
            return None;
        }
        let mut order = Vec::with_capacity(fit.len());
        let mut start = Vec::with_capacity(classes.len() + 1);
        for &c in &classes {
            start.push(order.len());
            order.extend(fit.iter().copied().filter(|&i| y[i] == c));
        }
        start.push(order.len());
        let m = order.len();
        let mut k = buf;
        // every entry is written below
        k.resize(m * m, 0.0);
        // K = exp(−γ·D²) as f32, computed by `neg_exp_f32` (bit for bit the library's
        // exp, several times faster) on gathered runs of distances
        let mut dist = Vec::with_capacity(m);
        if d2.symmetric {
            // K[r][c] = K[c][r] exactly: one exp per pair, in tiles so that the mirrored
            // writes stay in cache
            const TILE: usize = 64;
            let mut vals = [0f32; TILE];
            for r0 in (0..m).step_by(TILE) {
                let r1 = (r0 + TILE).min(m);
                for c0 in (r0..m).step_by(TILE) {
                    let c1 = (c0 + TILE).min(m);
                    for r in r0..r1 {
                        let drow = d2.row(order[r]);
                        let cs = c0.max(r)..c1;
                        dist.clear();
                        dist.extend(order[cs.clone()].iter().map(|&gj| drow[gj]));
                        let vals = &mut vals[..dist.len()];
                        neg_exp_f32(gamma, &dist, vals);
                        for (c, &v) in cs.zip(vals.iter()) {
                            k[r * m + c] = v;
                            k[c * m + r] = v;
                        }
                    }
                }
            }
        } else {
            for (r, &gi) in order.iter().enumerate() {
                let drow = d2.row(gi);
                dist.clear();
                dist.extend(order.iter().map(|&gj| drow[gj]));
                neg_exp_f32(gamma, &dist, &mut k[r * m..(r + 1) * m]);
            }
        }
        let mut pairs = Vec::new();
        for a in 0..classes.len() {
            for b in a + 1..classes.len() {
                let mut pos: Vec<usize> = (start[a]..start[a + 1]).collect();
                pos.extend(start[b]..start[b + 1]);
                let adjacent = b == a + 1;
                let own = if adjacent {
                    None
                } else {
                    let mp = pos.len();
                    let mut o = vec![0f32; mp * mp];
                    for (r, &p) in pos.iter().enumerate() {
                        let src = &k[p * m..(p + 1) * m];
                        for (v, &q) in o[r * mp..(r + 1) * mp].iter_mut().zip(&pos) {
                            *v = src[q];
                        }
                    }
                    Some(o)
                };
                let ylab: Vec<f64> = pos
                    .iter()
                    .map(|&p| if p < start[a + 1] { 1.0 } else { -1.0 })
                    .collect();
                let offset = start[a] * m + start[a];
                let kr = block(&k, m, &own, offset, pos.len());
                let smo = Smo::new(kr, &ylab);
                pairs.push(Pair {
                    a,
                    b,
                    pos,
                    own,
                    offset,
                    y: ylab,
                    smo,
                });
            }
        }
        Some(RbfPath {
            classes,
            order,
            gamma,
            k,
            pairs,
            last_c: None,
        })
    }

    /// Solve every pair for box constraint `c` from α = 0, as libsvm does.
    pub fn solve(&mut self, c: f64) {
        self.solve_seeded(c, Seed::Cold);
    }

    /// Solve every pair for box constraint `c`, starting as `seed` says. A warm seed
    /// needs the previous solve's `C` to be at most `c`; otherwise (and for the first
    /// solve) the pair starts from α = 0.
    pub fn solve_seeded(&mut self, c: f64, seed: Seed) {
        let m = self.order.len();
        let k = &self.k;
        let prev = self.last_c.filter(|&p| p <= c);
        for p in &mut self.pairs {
            let kr = block(k, m, &p.own, p.offset, p.pos.len());
            match (seed, prev) {
                (Seed::Warm, Some(_)) => {}
                (Seed::Scaled, Some(pc)) => p.smo.scale_alpha(kr, c / pc),
                _ => p.smo.restart(kr),
            }
            p.smo.solve(kr, c, TOL, true);
        }
        self.last_c = Some(c);
    }

    /// Kernel values between the samples `eval` and the fit's samples (`|eval| × m`).
    pub fn test_kernel(&self, d2: &SqDist<'_>, eval: &[usize]) -> Vec<f64> {
        let m = self.order.len();
        let mut out = vec![0f64; eval.len() * m];
        for (r, &gi) in eval.iter().enumerate() {
            let drow = d2.row(gi);
            for (v, &gj) in out[r * m..(r + 1) * m].iter_mut().zip(&self.order) {
                *v = (-(self.gamma * drow[gj])).exp();
            }
        }
        out
    }

    /// Predicted labels of the rows of a [`test_kernel`](Self::test_kernel) matrix.
    pub fn predict(&self, kt: &[f64]) -> Vec<u32> {
        let m = self.order.len();
        let nc = self.classes.len();
        let rows = kt.len().checked_div(m).unwrap_or(0);
        // coefficients α_t y_t per pair, only for support vectors
        let coefs: Vec<Vec<(usize, f64)>> = self
            .pairs
            .iter()
            .map(|p| {
                let alpha = p.smo.alpha();
                p.pos
                    .iter()
                    .zip(alpha.iter().zip(&p.y))
                    .filter(|(_, (a, _))| **a > 0.0)
                    .map(|(&q, (a, y))| (q, a * y))
                    .collect()
            })
            .collect();
        let mut out = Vec::with_capacity(rows);
        let mut votes = vec![0usize; nc];
        for r in 0..rows {
            let kr = &kt[r * m..(r + 1) * m];
            votes.iter_mut().for_each(|v| *v = 0);
            for (p, cf) in self.pairs.iter().zip(&coefs) {
                let mut s = 0.0;
                for &(q, c) in cf {
                    s += c * kr[q];
                }
                s -= p.smo.rho();
                if s > 0.0 {
                    votes[p.a] += 1;
                } else {
                    votes[p.b] += 1;
                }
            }
            let mut best = 0;
            for c in 1..nc {
                if votes[c] > votes[best] {
                    best = c;
                }
            }
            out.push(self.classes[best]);
        }
        out
    }

    /// Total SMO iterations so far (all pairs).
    pub fn iterations(&self) -> usize {
        self.pairs.iter().map(|p| p.smo.iterations).sum()
    }

    /// The fit's kernel buffer, for reuse by [`new_in`](Self::new_in).
    pub fn into_kernel_buffer(self) -> Vec<f32> {
        self.k
    }
}

fn block<'a>(
    k: &'a [f32],
    m: usize,
    own: &'a Option<Vec<f32>>,
    offset: usize,
    mp: usize,
) -> KernelRef<'a> {
    match own {
        Some(o) => KernelRef::full(o, mp),
        None => KernelRef {
            data: k,
            stride: m,
            offset,
            m: mp,
        },
    }
}

/// scikit-learn's `gamma='scale'`: `1 / (d · X.var())`, or 1 when the variance is 0.
pub fn gamma_scale(var: f64, d: usize) -> f64 {
    if var == 0.0 || d == 0 {
        1.0
    } else {
        1.0 / (d as f64 * var)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::{squared_distances, Features};

    /// `Seed::Cold` is libsvm's path bit for bit whatever came before; the warm seeds
    /// start from α = 0 for a first or a smaller C, and otherwise end within the stopping
    /// tolerance of the same problem (their α differ, their objectives agree).
    #[test]
    fn seeds_cold_is_exact_and_warm_seeds_solve_the_same_problem() {
        let (n, d) = (240, 3);
        let x = Features {
            n,
            d,
            data: (0..n * d)
                .map(|i| ((i * 53 % 97) as f64 * 0.61).sin())
                .collect(),
        };
        let y: Vec<u32> = (0..n as u32).map(|i| (i * 5 % 13) % 3).collect();
        let data = squared_distances(&x);
        let d2 = SqDist::new(n, &data);
        let fit: Vec<usize> = (0..n).filter(|i| i % 5 != 2).collect();
        let gamma = 0.8;
        let state = |p: &RbfPath| -> Vec<(Vec<u64>, u64, u64)> {
            p.pairs
                .iter()
                .map(|q| {
                    let a = q.smo.alpha().iter().map(|v| v.to_bits()).collect();
                    (a, q.smo.rho().to_bits(), q.smo.objective().to_bits())
                })
                .collect()
        };
        for seed in [Seed::Cold, Seed::Warm, Seed::Scaled] {
            let mut p = RbfPath::new(&d2, &y, &fit, gamma).unwrap();
            for (step, c) in [1.0, 10.0, 100.0, 0.1].into_iter().enumerate() {
                p.solve_seeded(c, seed);
                let mut cold = RbfPath::new(&d2, &y, &fit, gamma).unwrap();
                cold.solve(c);
                // the first C, a smaller C and every cold seed start from α = 0
                if seed == Seed::Cold || step == 0 || c < 1.0 {
                    assert_eq!(state(&p), state(&cold), "{seed:?} c={c}");
                    continue;
                }
                for (q, r) in p.pairs.iter().zip(&cold.pairs) {
                    let (a, b) = (q.smo.objective(), r.smo.objective());
                    assert!(
                        (a - b).abs() < 1e-3 * (1.0 + b.abs()),
                        "{seed:?} c={c}: {a} {b}"
                    );
                    assert!(q.smo.alpha().iter().all(|&v| (0.0..=c).contains(&v)));
                }
            }
        }
    }

    /// The one-triangle kernel equals the full computation bit for bit, whatever buffer
    /// it is written into, and so do the fits.
    #[test]
    fn symmetric_kernel_and_reused_buffer_change_nothing() {
        let (n, d) = (157, 4);
        let x = Features {
            n,
            d,
            data: (0..n * d)
                .map(|i| ((i * 37 % 101) as f64 * 0.37).sin())
                .collect(),
        };
        let y: Vec<u32> = (0..n as u32).map(|i| (i * 7 % 11) % 3).collect();
        let data = squared_distances(&x);
        let sym = SqDist::new(n, &data);
        assert!(sym.symmetric);
        let plain = SqDist {
            n,
            data: &data,
            symmetric: false,
        };
        // every sample but a few, not in index order
        let mut fit: Vec<usize> = (0..n).filter(|i| i % 9 != 4).collect();
        fit.reverse();
        let gamma = 0.3;
        let mut a = RbfPath::new(&plain, &y, &fit, gamma).unwrap();
        let dirty = vec![f32::NAN; 2 * n * n];
        let mut b = RbfPath::new_in(&sym, &y, &fit, gamma, dirty).unwrap();
        let bits = |k: &[f32]| k.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.k), bits(&b.k));
        let eval: Vec<usize> = (0..n).filter(|i| i % 9 == 4).collect();
        let kt = a.test_kernel(&plain, &eval);
        for c in [0.1, 10.0] {
            a.solve(c);
            b.solve(c);
            assert_eq!(a.predict(&kt), b.predict(&kt));
            for (pa, pb) in a.pairs.iter().zip(&b.pairs) {
                assert_eq!(pa.smo.alpha(), pb.smo.alpha());
                assert_eq!(pa.smo.rho().to_bits(), pb.smo.rho().to_bits());
            }
        }
        // the buffer comes back for the next fit
        let buf = b.into_kernel_buffer();
        assert_eq!(buf.len(), fit.len() * fit.len());
    }
}
