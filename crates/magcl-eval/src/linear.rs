//! Linear classifiers on (standardised) features, each solved to high precision by
//! [`newton::minimize`](super::newton::minimize) and warm-started along the C grid.
//!
//! * [`LinearKind::SquaredHinge`] — scikit-learn's `LinearSVC(dual=False)` (liblinear's
//!   primal L2-regularised L2-loss SVC): `½‖w̃‖² + C Σ max(0, 1 − y_i w̃·x̃_i)²` with
//!   `x̃ = [x, 1]`, i.e. the intercept is an extra feature and *is* regularised
//!   (`intercept_scaling = 1`). More than two classes: one-vs-rest, prediction = the
//!   class with the largest decision value (first on ties).
//! * [`LinearKind::Logistic`] — scikit-learn's `LogisticRegression(C)` (L2, lbfgs):
//!   `½‖W‖² + C Σ_i −log p(y_i | x_i)`, intercept not regularised; binomial for two
//!   classes, multinomial (softmax) for more.
//!
//! Two classes: the larger label is the positive class; decision > 0 predicts it, as
//! scikit-learn's linear classifiers do.
use super::linalg::{axpy, dot, weighted_gram_add, Features};
use super::newton::{minimize, Objective};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinearKind {
    SquaredHinge,
    Logistic,
}

const RTOL: f64 = 1e-9;
const MAX_NEWTON: usize = 300;

/// Contiguous copy of the fit rows, each extended by a constant 1 (the intercept).
struct Design {
    m: usize,
    /// columns including the intercept column
    k: usize,
    x: Vec<f64>,
}

impl Design {
    fn new(f: &Features, rows: &[usize]) -> Self {
        let k = f.d + 1;
        let mut x = Vec::with_capacity(rows.len() * k);
        for &i in rows {
            x.extend_from_slice(f.row(i));
            x.push(1.0);
        }
        Design {
            m: rows.len(),
            k,
            x,
        }
    }
    #[inline]
    fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.k..(i + 1) * self.k]
    }
    /// `w · x̃_i`
    #[inline]
    fn z(&self, i: usize, w: &[f64]) -> f64 {
        dot(self.row(i), w)
    }
}

/// `½‖w‖²` without the last (intercept) entry.
fn half_sq_no_bias(w: &[f64]) -> f64 {
    let d = w.len() - 1;
    0.5 * dot(&w[..d], &w[..d])
}

/// Binary L2-loss SVC, labels ±1, bias regularised.
struct SqHinge<'a> {
    a: &'a Design,
    y: &'a [f64],
    c: f64,
    /// 1 for rows with positive margin loss at the last eval point, else 0
    active: Vec<f64>,
    scratch: std::cell::RefCell<Vec<f64>>,
}

impl Objective for SqHinge<'_> {
    fn dim(&self) -> usize {
        self.a.k
    }
    fn eval(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        g.copy_from_slice(w);
        let mut loss = 0.0;
        for i in 0..self.a.m {
            let z = self.a.z(i, w);
            let marg = 1.0 - self.y[i] * z;
            if marg > 0.0 {
                self.active[i] = 1.0;
                loss += marg * marg;
                axpy(2.0 * self.c * (z - self.y[i]), self.a.row(i), g);
            } else {
                self.active[i] = 0.0;
            }
        }
        0.5 * dot(w, w) + self.c * loss
    }
    fn value(&self, w: &[f64]) -> f64 {
        let mut loss = 0.0;
        for i in 0..self.a.m {
            let marg = 1.0 - self.y[i] * self.a.z(i, w);
            if marg > 0.0 {
                loss += marg * marg;
            }
        }
        0.5 * dot(w, w) + self.c * loss
    }
    fn hessian(&self, out: &mut [f64]) {
        let k = self.a.k;
        let mut scratch = self.scratch.borrow_mut();
        weighted_gram_add(
            &self.a.x,
            self.a.m,
            k,
            &self.active,
            2.0 * self.c,
            out,
            k,
            &mut scratch,
        );
        for j in 0..k {
            out[j * k + j] += 1.0;
        }
    }
}

/// `log(1 + exp(−t))`, stable.
fn log1pexp_neg(t: f64) -> f64 {
    if t > 0.0 {
        (-t).exp().ln_1p()
    } else {
        -t + t.exp().ln_1p()
    }
}

fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// Binary logistic regression, labels ±1, bias not regularised.
struct Binomial<'a> {
    a: &'a Design,
    y: &'a [f64],
    c: f64,
    /// σ(z)(1 − σ(z)) at the last eval point
    dvec: Vec<f64>,
    scratch: std::cell::RefCell<Vec<f64>>,
}

impl Objective for Binomial<'_> {
    fn dim(&self) -> usize {
        self.a.k
    }
    fn eval(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        let d = self.a.k - 1;
        g.copy_from_slice(w);
        g[d] = 0.0;
        let mut loss = 0.0;
        for i in 0..self.a.m {
            let z = self.a.z(i, w);
            let yz = self.y[i] * z;
            loss += log1pexp_neg(yz);
            let s = sigmoid(z);
            self.dvec[i] = s * (1.0 - s);
            axpy(self.c * (sigmoid(yz) - 1.0) * self.y[i], self.a.row(i), g);
        }
        half_sq_no_bias(w) + self.c * loss
    }
    fn value(&self, w: &[f64]) -> f64 {
        let loss: f64 = (0..self.a.m)
            .map(|i| log1pexp_neg(self.y[i] * self.a.z(i, w)))
            .sum();
        half_sq_no_bias(w) + self.c * loss
    }
    fn hessian(&self, out: &mut [f64]) {
        let k = self.a.k;
        let mut scratch = self.scratch.borrow_mut();
        weighted_gram_add(
            &self.a.x,
            self.a.m,
            k,
            &self.dvec,
            self.c,
            out,
            k,
            &mut scratch,
        );
        for j in 0..k - 1 {
            out[j * k + j] += 1.0;
        }
    }
}

/// Multinomial logistic regression over `nc` classes; parameters `nc × k`.
struct Multinomial<'a> {
    a: &'a Design,
    /// class position of each row
    y: &'a [usize],
    nc: usize,
    c: f64,
    /// probabilities at the last eval point, `m × nc`
    p: Vec<f64>,
    scratch: std::cell::RefCell<Vec<f64>>,
}

impl Multinomial<'_> {
    fn scores(&self, w: &[f64], i: usize, out: &mut [f64]) {
        let k = self.a.k;
        for (c, o) in out.iter_mut().enumerate() {
            *o = self.a.z(i, &w[c * k..(c + 1) * k]);
        }
    }
    fn reg(&self, w: &[f64]) -> f64 {
        let k = self.a.k;
        w.chunks(k).map(half_sq_no_bias).sum()
    }
}

fn log_softmax_at(z: &[f64], y: usize) -> f64 {
    let mx = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let lse = mx + z.iter().map(|v| (v - mx).exp()).sum::<f64>().ln();
    z[y] - lse
}

impl Objective for Multinomial<'_> {
    fn dim(&self) -> usize {
        self.nc * self.a.k
    }
    fn eval(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
        let (k, nc) = (self.a.k, self.nc);
        g.copy_from_slice(w);
        for c in 0..nc {
            g[c * k + k - 1] = 0.0;
        }
        let mut z = vec![0.0; nc];
        let mut loss = 0.0;
        for i in 0..self.a.m {
            self.scores(w, i, &mut z);
            loss -= log_softmax_at(&z, self.y[i]);
            let mx = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let mut sum = 0.0;
            for v in z.iter_mut() {
                *v = (*v - mx).exp();
                sum += *v;
            }
            for c in 0..nc {
                let p = z[c] / sum;
                self.p[i * nc + c] = p;
                let coef = self.c * (p - if self.y[i] == c { 1.0 } else { 0.0 });
                axpy(coef, self.a.row(i), &mut g[c * k..(c + 1) * k]);
            }
        }
        self.reg(w) + self.c * loss
    }
    fn value(&self, w: &[f64]) -> f64 {
        let mut z = vec![0.0; self.nc];
        let mut loss = 0.0;
        for i in 0..self.a.m {
            self.scores(w, i, &mut z);
            loss -= log_softmax_at(&z, self.y[i]);
        }
        self.reg(w) + self.c * loss
    }
    fn hessian(&self, out: &mut [f64]) {
        // block (a, b) = δ_ab I_w + C Σ_i (p_ia δ_ab − p_ia p_ib) x̃_i x̃_iᵀ
        let (k, nc, m) = (self.a.k, self.nc, self.a.m);
        let ld = nc * k;
        let mut scratch = self.scratch.borrow_mut();
        let mut wts = vec![0.0; m];
        for a in 0..nc {
            for b in a..nc {
                for (i, wt) in wts.iter_mut().enumerate() {
                    let (pa, pb) = (self.p[i * nc + a], self.p[i * nc + b]);
                    *wt = if a == b { pa - pa * pb } else { -pa * pb };
                }
                let off = a * k * ld + b * k;
                weighted_gram_add(
                    &self.a.x,
                    m,
                    k,
                    &wts,
                    self.c,
                    &mut out[off..],
                    ld,
                    &mut scratch,
                );
            }
        }
        // mirror the upper blocks and add the regulariser
        for r in 0..ld {
            for c in 0..r {
                if (c / k) < (r / k) {
                    out[r * ld + c] = out[c * ld + r];
                }
            }
        }
        for a in 0..nc {
            for j in 0..k - 1 {
                let q = a * k + j;
                out[q * ld + q] += 1.0;
            }
        }
    }
}

/// Fit on the rows `fit` for each C of `cs` (ascending; each warm-starts the next) and
/// predict the rows `evals`: `out[c][r]`. `None` when `fit` has fewer than two classes.
pub fn linear_path(
    kind: LinearKind,
    x: &Features,
    y: &[u32],
    fit: &[usize],
    evals: &[usize],
    cs: &[f64],
) -> Option<Vec<Vec<u32>>> {
    let mut classes: Vec<u32> = fit.iter().map(|&i| y[i]).collect();
    classes.sort_unstable();
    classes.dedup();
    if classes.len() < 2 {
        return None;
    }
    let a = Design::new(x, fit);
    let d1 = x.d + 1;
    let nc = classes.len();
    let cls_of = |v: u32| classes.binary_search(&v).unwrap_or(0);
    let mut out = Vec::with_capacity(cs.len());
    match kind {
        LinearKind::SquaredHinge => {
            // one binary problem (2 classes) or one per class (one-vs-rest)
            let n_models = if nc == 2 { 1 } else { nc };
            let ys: Vec<Vec<f64>> = (0..n_models)
                .map(|mdl| {
                    let pos = if nc == 2 { 1 } else { mdl };
                    fit.iter()
                        .map(|&i| if cls_of(y[i]) == pos { 1.0 } else { -1.0 })
                        .collect()
                })
                .collect();
            let mut ws = vec![vec![0.0; d1]; n_models];
            for &c in cs {
                for (w, yy) in ws.iter_mut().zip(&ys) {
                    let mut obj = SqHinge {
                        a: &a,
                        y: yy,
                        c,
                        active: vec![0.0; a.m],
                        scratch: Default::default(),
                    };
                    let gref = grad_norm_at_zero(&mut obj);
                    minimize(&mut obj, w, gref, RTOL, MAX_NEWTON);
                }
                out.push(predict_linear(x, evals, &ws, &classes));
            }
        }
        LinearKind::Logistic if nc == 2 => {
            let yy: Vec<f64> = fit
                .iter()
                .map(|&i| if cls_of(y[i]) == 1 { 1.0 } else { -1.0 })
                .collect();
            let mut w = vec![0.0; d1];
            for &c in cs {
                let mut obj = Binomial {
                    a: &a,
                    y: &yy,
                    c,
                    dvec: vec![0.0; a.m],
                    scratch: Default::default(),
                };
                let gref = grad_norm_at_zero(&mut obj);
                minimize(&mut obj, &mut w, gref, RTOL, MAX_NEWTON);
                out.push(predict_linear(x, evals, std::slice::from_ref(&w), &classes));
            }
        }
        LinearKind::Logistic => {
            let yy: Vec<usize> = fit.iter().map(|&i| cls_of(y[i])).collect();
            let mut w = vec![0.0; nc * d1];
            for &c in cs {
                let mut obj = Multinomial {
                    a: &a,
                    y: &yy,
                    nc,
                    c,
                    p: vec![0.0; a.m * nc],
                    scratch: Default::default(),
                };
                let gref = grad_norm_at_zero(&mut obj);
                minimize(&mut obj, &mut w, gref, RTOL, MAX_NEWTON);
                let ws: Vec<Vec<f64>> = w.chunks(d1).map(|c| c.to_vec()).collect();
                out.push(predict_linear(x, evals, &ws, &classes));
            }
        }
    }
    Some(out)
}

fn grad_norm_at_zero<O: Objective>(obj: &mut O) -> f64 {
    let n = obj.dim();
    let zero = vec![0.0; n];
    let mut g = vec![0.0; n];
    obj.eval(&zero, &mut g);
    dot(&g, &g).sqrt().max(1e-12)
}

/// One weight vector: binary (positive = larger label, decision > 0); several: argmax.
fn predict_linear(x: &Features, rows: &[usize], ws: &[Vec<f64>], classes: &[u32]) -> Vec<u32> {
    let d = x.d;
    rows.iter()
        .map(|&i| {
            let xi = x.row(i);
            if ws.len() == 1 {
                let z = dot(xi, &ws[0][..d]) + ws[0][d];
                classes[usize::from(z > 0.0)]
            } else {
                let mut best = 0;
                let mut best_z = f64::NEG_INFINITY;
                for (c, w) in ws.iter().enumerate() {
                    let z = dot(xi, &w[..d]) + w[d];
                    if z > best_z {
                        best_z = z;
                        best = c;
                    }
                }
                classes[best]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separable_line_is_learned() {
        // 1-d points, label 1 iff x > 0.5
        let n = 40;
        let data: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
        let y: Vec<u32> = data.iter().map(|&v| u32::from(v > 0.5)).collect();
        let x = Features { n, d: 1, data };
        let idx: Vec<usize> = (0..n).collect();
        for kind in [LinearKind::SquaredHinge, LinearKind::Logistic] {
            let p = linear_path(kind, &x, &y, &idx, &idx, &[1000.0]).unwrap();
            let wrong = p[0].iter().zip(&y).filter(|(a, b)| a != b).count();
            assert!(wrong <= 1, "{kind:?}: {wrong}");
        }
    }

    #[test]
    fn squared_hinge_two_points_hand_computed() {
        // x = ±1 with labels ±1; by symmetry bias 0 and
        // f(w) = ½w² + 2C(1−w)² (both points active while w < 1) → w = 4C/(1+4C)
        let x = Features {
            n: 2,
            d: 1,
            data: vec![-1.0, 1.0],
        };
        let y = [0u32, 1];
        let a = Design::new(&x, &[0, 1]);
        let yy = [-1.0, 1.0];
        let mut obj = SqHinge {
            a: &a,
            y: &yy,
            c: 0.5,
            active: vec![0.0; 2],
            scratch: Default::default(),
        };
        let mut w = vec![0.0, 0.0];
        let gref = grad_norm_at_zero(&mut obj);
        let r = minimize(&mut obj, &mut w, gref, 1e-12, 50);
        assert!(r.converged);
        assert!((w[0] - 2.0 / 3.0).abs() < 1e-9, "{w:?}");
        assert!(w[1].abs() < 1e-9);
        assert!(linear_path(LinearKind::SquaredHinge, &x, &y, &[0], &[0], &[1.0]).is_none());
    }
}
