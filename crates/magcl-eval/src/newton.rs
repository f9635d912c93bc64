//! A damped Newton minimiser for small-dimensional strongly convex objectives (the
//! L2-regularised squared hinge, logistic and multinomial losses of the linear
//! evaluators, a few hundred parameters at most): the (generalised) Hessian is formed
//! densely, the Newton system solved by Cholesky, the step accepted by Armijo
//! backtracking. For the piecewise-quadratic squared hinge this is the semismooth Newton
//! method, which ends in finitely many steps once the active set settles.
use super::linalg::{axpy, dot};

pub trait Objective {
    fn dim(&self) -> usize;
    /// Value at `w` and its gradient into `g`; also remembers what
    /// [`hessian`](Self::hessian) needs at `w`.
    fn eval(&mut self, w: &[f64], g: &mut [f64]) -> f64;
    /// Value only (for the line search); must not disturb the state kept by `eval`.
    fn value(&self, w: &[f64]) -> f64;
    /// The (generalised) Hessian at the last `eval` point, `dim × dim` row-major
    /// (`out` arrives zeroed).
    fn hessian(&self, out: &mut [f64]);
}

/// Outcome of [`minimize`].
#[derive(Debug, Clone, Copy)]
pub struct Report {
    pub iterations: usize,
    pub grad_norm: f64,
    pub converged: bool,
}

/// Minimise from `w` (updated in place) until `‖∇f‖ ≤ rtol · gref`, where `gref` is a
/// scale for the gradient supplied by the caller (typically `‖∇f(0)‖`).
pub fn minimize<O: Objective>(
    obj: &mut O,
    w: &mut [f64],
    gref: f64,
    rtol: f64,
    max_iter: usize,
) -> Report {
    let n = obj.dim();
    let mut g = vec![0.0; n];
    let mut h = vec![0.0; n * n];
    let mut s = vec![0.0; n];
    let mut trial = vec![0.0; n];
    let mut f = obj.eval(w, &mut g);
    let target = rtol * gref.max(f64::MIN_POSITIVE);
    let mut gnorm = dot(&g, &g).sqrt();
    for it in 0..max_iter {
        if gnorm <= target {
            return Report {
                iterations: it,
                grad_norm: gnorm,
                converged: true,
            };
        }
        h.iter_mut().for_each(|v| *v = 0.0);
        obj.hessian(&mut h);
        s.iter_mut().zip(&g).for_each(|(si, gi)| *si = -gi);
        if !solve_spd(&mut h, n, &mut s) {
            s.iter_mut().zip(&g).for_each(|(si, gi)| *si = -gi);
        }
        let mut slope = dot(&g, &s);
        if slope >= 0.0 {
            s.iter_mut().zip(&g).for_each(|(si, gi)| *si = -gi);
            slope = dot(&g, &s);
        }
        // Close to the optimum the predicted decrease drops below the rounding error of
        // f itself and the Armijo test becomes noise: take the full Newton step there.
        if -slope <= 1e-12 * (1.0 + f.abs()) {
            axpy(1.0, &s, w);
            f = obj.eval(w, &mut g);
            gnorm = dot(&g, &g).sqrt();
            continue;
        }
        let mut t = 1.0;
        let mut accepted = false;
        for _ in 0..60 {
            trial.copy_from_slice(w);
            axpy(t, &s, &mut trial);
            if obj.value(&trial) <= f + 1e-4 * t * slope {
                accepted = true;
                break;
            }
            t *= 0.5;
        }
        if !accepted {
            return Report {
                iterations: it,
                grad_norm: gnorm,
                converged: false,
            };
        }
        w.copy_from_slice(&trial);
        f = obj.eval(w, &mut g);
        gnorm = dot(&g, &g).sqrt();
    }
    Report {
        iterations: max_iter,
        grad_norm: gnorm,
        converged: gnorm <= target,
    }
}

/// Solve `H x = b` in place (`b` becomes `x`) for symmetric positive (semi)definite `H`
/// by Cholesky, with a tiny diagonal shift for directions of zero curvature (e.g. the
/// softmax's common intercept). `H` is overwritten. Returns false if it fails.
pub fn solve_spd(h: &mut [f64], n: usize, b: &mut [f64]) -> bool {
    let maxdiag = (0..n).map(|i| h[i * n + i].abs()).fold(0.0, f64::max);
    let shift = 1e-12 * maxdiag.max(1e-300);
    for i in 0..n {
        h[i * n + i] += shift;
    }
    // lower-triangular factor in place
    for j in 0..n {
        let mut djj = h[j * n + j];
        for k in 0..j {
            djj -= h[j * n + k] * h[j * n + k];
        }
        if djj.is_nan() || djj <= 0.0 {
            return false;
        }
        let ljj = djj.sqrt();
        h[j * n + j] = ljj;
        for i in j + 1..n {
            let (ri, rj) = (i * n, j * n);
            let mut v = h[ri + j];
            v -= dot(&h[ri..ri + j], &h[rj..rj + j]);
            h[ri + j] = v / ljj;
        }
    }
    // forward: L z = b
    for i in 0..n {
        let v = b[i] - dot(&h[i * n..i * n + i], &b[..i]);
        b[i] = v / h[i * n + i];
    }
    // backward: Lᵀ x = z
    for i in (0..n).rev() {
        let mut v = b[i];
        for k in i + 1..n {
            v -= h[k * n + i] * b[k];
        }
        b[i] = v / h[i * n + i];
    }
    b.iter().all(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(w) = ½ wᵀAw − bᵀw with A = [[3,1],[1,2]]: minimiser A⁻¹b.
    struct Quad;
    impl Objective for Quad {
        fn dim(&self) -> usize {
            2
        }
        fn eval(&mut self, w: &[f64], g: &mut [f64]) -> f64 {
            g[0] = 3.0 * w[0] + w[1] - 1.0;
            g[1] = w[0] + 2.0 * w[1] - 2.0;
            self.value(w)
        }
        fn value(&self, w: &[f64]) -> f64 {
            0.5 * (3.0 * w[0] * w[0] + 2.0 * w[0] * w[1] + 2.0 * w[1] * w[1]) - w[0] - 2.0 * w[1]
        }
        fn hessian(&self, out: &mut [f64]) {
            out.copy_from_slice(&[3.0, 1.0, 1.0, 2.0]);
        }
    }

    #[test]
    fn solves_a_quadratic() {
        let mut w = vec![0.0, 0.0];
        let r = minimize(&mut Quad, &mut w, 1.0, 1e-12, 20);
        assert!(r.converged);
        assert!(r.iterations <= 2);
        // A⁻¹ b = [0, 1]
        assert!(w[0].abs() < 1e-10 && (w[1] - 1.0).abs() < 1e-10, "{w:?}");
    }

    #[test]
    fn cholesky_solves() {
        // H = [[4,2,0],[2,5,1],[0,1,3]], x = [1,−1,2] → b = H x = [2,−1,5]
        let mut h = vec![4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0];
        let mut b = vec![2.0, -1.0, 5.0];
        assert!(solve_spd(&mut h, 3, &mut b));
        for (v, want) in b.iter().zip([1.0, -1.0, 2.0]) {
            assert!((v - want).abs() < 1e-9, "{b:?}");
        }
    }
}
