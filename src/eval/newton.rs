//! A truncated Newton (Newton–CG) minimiser for smooth or once-differentiable strongly
//! convex objectives (L2-regularised squared hinge, logistic and multinomial losses).
//! Hessian–vector products only, diagonal preconditioning, Armijo backtracking.
use super::linalg::{axpy, dot};

pub trait Objective {
    fn dim(&self) -> usize;
    /// Value at `w`, its gradient into `g`; also remembers what [`hess_vec`](Self::hess_vec)
    /// and [`hess_diag`](Self::hess_diag) need at `w`.
    fn eval(&mut self, w: &[f64], g: &mut [f64]) -> f64;
    /// Value only (for the line search); must not disturb the state kept by `eval`.
    fn value(&self, w: &[f64]) -> f64;
    /// (Generalised) Hessian at the last `eval` point times `v`.
    fn hess_vec(&self, v: &[f64], out: &mut [f64]);
    /// Diagonal of that Hessian (preconditioner).
    fn hess_diag(&self, out: &mut [f64]);
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
    let mut f = obj.eval(w, &mut g);
    let target = rtol * gref.max(f64::MIN_POSITIVE);
    let mut s = vec![0.0; n];
    let mut trial = vec![0.0; n];
    let mut gnorm = dot(&g, &g).sqrt();
    for it in 0..max_iter {
        if gnorm <= target {
            return Report {
                iterations: it,
                grad_norm: gnorm,
                converged: true,
            };
        }
        let forcing = (gnorm / gref.max(f64::MIN_POSITIVE)).sqrt().min(0.1);
        conjugate_gradient(obj, &g, forcing, &mut s);
        let slope = dot(&g, &s);
        if slope >= 0.0 {
            // not a descent direction (numerically flat): fall back to steepest descent
            s.iter_mut().zip(&g).for_each(|(si, gi)| *si = -gi);
        }
        let slope = dot(&g, &s);
        let mut t = 1.0;
        let mut accepted = false;
        for _ in 0..60 {
            trial.copy_from_slice(w);
            axpy(t, &s, &mut trial);
            let ft = obj.value(&trial);
            if ft <= f + 1e-4 * t * slope {
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

/// Preconditioned CG for `H s = −g` to relative residual `forcing`.
fn conjugate_gradient<O: Objective>(obj: &O, g: &[f64], forcing: f64, s: &mut [f64]) {
    let n = g.len();
    let mut diag = vec![0.0; n];
    obj.hess_diag(&mut diag);
    diag.iter_mut().for_each(|v| {
        if !(*v > 1e-12) {
            *v = 1.0;
        }
    });
    s.iter_mut().for_each(|v| *v = 0.0);
    let mut r: Vec<f64> = g.iter().map(|v| -v).collect();
    let mut z: Vec<f64> = r.iter().zip(&diag).map(|(a, b)| a / b).collect();
    let mut p = z.clone();
    let mut hp = vec![0.0; n];
    let mut rz = dot(&r, &z);
    let tol = forcing * dot(g, g).sqrt();
    for _ in 0..(2 * n).max(50) {
        if dot(&r, &r).sqrt() <= tol {
            break;
        }
        obj.hess_vec(&p, &mut hp);
        let php = dot(&p, &hp);
        if !(php > 0.0) {
            break;
        }
        let a = rz / php;
        axpy(a, &p, s);
        axpy(-a, &hp, &mut r);
        z.iter_mut()
            .zip(&r)
            .zip(&diag)
            .for_each(|((zi, ri), di)| *zi = ri / di);
        let rz_new = dot(&r, &z);
        let beta = rz_new / rz;
        rz = rz_new;
        p.iter_mut()
            .zip(&z)
            .for_each(|(pi, zi)| *pi = zi + beta * *pi);
    }
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
        fn hess_vec(&self, v: &[f64], out: &mut [f64]) {
            out[0] = 3.0 * v[0] + v[1];
            out[1] = v[0] + 2.0 * v[1];
        }
        fn hess_diag(&self, out: &mut [f64]) {
            out[0] = 3.0;
            out[1] = 2.0;
        }
    }

    #[test]
    fn solves_a_quadratic() {
        let mut w = vec![0.0, 0.0];
        let r = minimize(&mut Quad, &mut w, 1.0, 1e-12, 20);
        assert!(r.converged);
        // A⁻¹ b = [0, 1]
        assert!(w[0].abs() < 1e-10 && (w[1] - 1.0).abs() < 1e-10, "{w:?}");
    }
}
