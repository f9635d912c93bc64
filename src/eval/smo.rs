//! A focused SMO solver for the C-SVC dual on a precomputed kernel matrix, following
//! libsvm (Chang & Lin) as scikit-learn bundles it:
//!
//! * working-set selection with second-order information (Fan, Chen & Lin, JMLR 2005):
//!   `i = argmax_{t ∈ I_up} −y_t G_t`, `j = argmin_{t ∈ I_low, b_t > 0} −b_t² / a_t`
//!   with `b_t = −y_i G_i + y_t G_t`, `a_t = K_ii + K_tt − 2 K_it` (τ = 1e-12 if ≤ 0);
//!   stop when `m(α) − M(α) < ε`;
//! * libsvm's analytic two-variable update with clipping to the box;
//! * shrinking every `min(l, 1000)` iterations, un-shrinking once when the gap falls
//!   below `10 ε`, gradient reconstruction through `Ḡ` (the contribution of bounded α);
//! * the bias `ρ` as the mean of `y_t G_t` over free support vectors, or the midpoint of
//!   the feasible interval when there are none.
//!
//! The state survives between calls, so a solution for `C` warm-starts the problem for a
//! larger `C'` (still feasible: `0 ≤ α ≤ C < C'`, `yᵀα = 0`; the gradient depends only on
//! α and stays exact).

/// libsvm's τ: the smallest curvature used when `a_t ≤ 0`.
const TAU: f64 = 1e-12;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum St {
    Lower,
    Upper,
    Free,
}

/// A square symmetric kernel block inside a row-major buffer: row `i` of the block is
/// `data[offset + i·stride .. offset + i·stride + m]`.
#[derive(Clone, Copy)]
pub struct KernelRef<'a> {
    pub data: &'a [f32],
    pub stride: usize,
    pub offset: usize,
    pub m: usize,
}

impl<'a> KernelRef<'a> {
    /// The whole `m × m` matrix.
    pub fn full(data: &'a [f32], m: usize) -> Self {
        KernelRef {
            data,
            stride: m,
            offset: 0,
            m,
        }
    }
    #[inline]
    fn row(&self, i: usize) -> &'a [f32] {
        let s = self.offset + i * self.stride;
        &self.data[s..s + self.m]
    }
}

/// Solver state for one binary problem (labels ±1).
#[derive(Clone, Debug)]
pub struct Smo {
    m: usize,
    y: Vec<f64>,
    alpha: Vec<f64>,
    g: Vec<f64>,
    g_bar: Vec<f64>,
    st: Vec<St>,
    qd: Vec<f64>,
    c: f64,
    /// active (not shrunk) indices, ascending
    act: Vec<usize>,
    unshrink: bool,
    rho: f64,
    pub iterations: usize,
}

impl Smo {
    /// A fresh problem at α = 0 (gradient −1) for labels `y` (each +1 or −1).
    pub fn new(k: KernelRef<'_>, y: &[f64]) -> Self {
        let m = y.len();
        Smo {
            m,
            y: y.to_vec(),
            alpha: vec![0.0; m],
            g: vec![-1.0; m],
            g_bar: vec![0.0; m],
            st: vec![St::Lower; m],
            qd: (0..m).map(|i| f64::from(k.row(i)[i])).collect(),
            c: 0.0,
            act: (0..m).collect(),
            unshrink: false,
            rho: 0.0,
            iterations: 0,
        }
    }

    pub fn alpha(&self) -> &[f64] {
        &self.alpha
    }
    pub fn y(&self) -> &[f64] {
        &self.y
    }
    /// Decision function: `Σ α_t y_t K(x_t, x) − ρ`.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    fn status_of(&self, a: f64) -> St {
        if a >= self.c {
            St::Upper
        } else if a <= 0.0 {
            St::Lower
        } else {
            St::Free
        }
    }

    /// Solve for box constraint `c` to tolerance `eps`, starting from the current α
    /// (which must satisfy `α ≤ c`: true for a fresh problem or a previous smaller `c`).
    pub fn solve(&mut self, k: KernelRef<'_>, c: f64, eps: f64, shrinking: bool) {
        let m = self.m;
        self.c = c;
        for t in 0..m {
            self.alpha[t] = self.alpha[t].min(c);
            self.st[t] = self.status_of(self.alpha[t]);
        }
        // Ḡ_t = Σ_{s at upper bound} C y_s y_t K_st
        self.g_bar.iter_mut().for_each(|v| *v = 0.0);
        for s in 0..m {
            if self.st[s] == St::Upper {
                let row = k.row(s);
                let ys = self.y[s];
                for t in 0..m {
                    self.g_bar[t] += c * ys * self.y[t] * f64::from(row[t]);
                }
            }
        }
        self.act = (0..m).collect();
        self.unshrink = false;
        if m == 0 {
            return;
        }
        let max_iter = 10_000_000usize.max(m.saturating_mul(100));
        let mut counter = m.min(1000) + 1;
        let mut iter = 0usize;
        while iter < max_iter {
            counter -= 1;
            if counter == 0 {
                counter = m.min(1000);
                if shrinking {
                    self.do_shrinking(k, eps);
                }
            }
            let (i, j) = match self.select_working_set(k, eps) {
                Some(p) => p,
                None => {
                    self.reconstruct_gradient(k);
                    self.act = (0..m).collect();
                    match self.select_working_set(k, eps) {
                        Some(p) => {
                            counter = 1;
                            p
                        }
                        None => break,
                    }
                }
            };
            iter += 1;
            self.update_pair(k, i, j);
        }
        if self.act.len() < m {
            self.reconstruct_gradient(k);
            self.act = (0..m).collect();
        }
        self.iterations += iter;
        self.rho = self.calculate_rho();
    }

    fn select_working_set(&self, k: KernelRef<'_>, eps: f64) -> Option<(usize, usize)> {
        let mut gmax = f64::NEG_INFINITY;
        let mut gmax2 = f64::NEG_INFINITY;
        let mut gmax_idx: Option<usize> = None;
        for &t in &self.act {
            if self.y[t] > 0.0 {
                if self.st[t] != St::Upper && -self.g[t] >= gmax {
                    gmax = -self.g[t];
                    gmax_idx = Some(t);
                }
            } else if self.st[t] != St::Lower && self.g[t] >= gmax {
                gmax = self.g[t];
                gmax_idx = Some(t);
            }
        }
        let i = gmax_idx?;
        let ki = k.row(i);
        let qdi = self.qd[i];
        let mut gmin_idx: Option<usize> = None;
        let mut obj_diff_min = f64::INFINITY;
        for &j in &self.act {
            let (grad_diff, viol) = if self.y[j] > 0.0 {
                if self.st[j] == St::Lower {
                    continue;
                }
                (gmax + self.g[j], self.g[j])
            } else {
                if self.st[j] == St::Upper {
                    continue;
                }
                (gmax - self.g[j], -self.g[j])
            };
            if viol >= gmax2 {
                gmax2 = viol;
            }
            if grad_diff > 0.0 {
                let quad = qdi + self.qd[j] - 2.0 * f64::from(ki[j]);
                let obj_diff = if quad > 0.0 {
                    -(grad_diff * grad_diff) / quad
                } else {
                    -(grad_diff * grad_diff) / TAU
                };
                if obj_diff <= obj_diff_min {
                    gmin_idx = Some(j);
                    obj_diff_min = obj_diff;
                }
            }
        }
        if gmax + gmax2 < eps {
            return None;
        }
        gmin_idx.map(|j| (i, j))
    }

    fn update_pair(&mut self, k: KernelRef<'_>, i: usize, j: usize) {
        let c = self.c;
        let (ki, kj) = (k.row(i), k.row(j));
        let (yi, yj) = (self.y[i], self.y[j]);
        let kij = f64::from(ki[j]);
        let (old_ai, old_aj) = (self.alpha[i], self.alpha[j]);
        let mut quad = self.qd[i] + self.qd[j] - 2.0 * kij;
        if quad <= 0.0 {
            quad = TAU;
        }
        let (mut ai, mut aj) = (old_ai, old_aj);
        if yi != yj {
            let delta = (-self.g[i] - self.g[j]) / quad;
            let diff = ai - aj;
            ai += delta;
            aj += delta;
            if diff > 0.0 {
                if aj < 0.0 {
                    aj = 0.0;
                    ai = diff;
                }
            } else if ai < 0.0 {
                ai = 0.0;
                aj = -diff;
            }
            // C_i == C_j == c
            if diff > 0.0 {
                if ai > c {
                    ai = c;
                    aj = c - diff;
                }
            } else if aj > c {
                aj = c;
                ai = c + diff;
            }
        } else {
            let delta = (self.g[i] - self.g[j]) / quad;
            let sum = ai + aj;
            ai -= delta;
            aj += delta;
            if sum > c {
                if ai > c {
                    ai = c;
                    aj = sum - c;
                }
            } else if aj < 0.0 {
                aj = 0.0;
                ai = sum;
            }
            if sum > c {
                if aj > c {
                    aj = c;
                    ai = sum - c;
                }
            } else if ai < 0.0 {
                ai = 0.0;
                aj = sum;
            }
        }
        self.alpha[i] = ai;
        self.alpha[j] = aj;
        // G_t += y_t (y_i Δα_i K_it + y_j Δα_j K_jt) over the active set
        let di = yi * (ai - old_ai);
        let dj = yj * (aj - old_aj);
        for &t in &self.act {
            self.g[t] += self.y[t] * (di * f64::from(ki[t]) + dj * f64::from(kj[t]));
        }
        let (ui, uj) = (self.st[i] == St::Upper, self.st[j] == St::Upper);
        self.st[i] = self.status_of(ai);
        self.st[j] = self.status_of(aj);
        for (idx, was_upper, row) in [(i, ui, ki), (j, uj, kj)] {
            let now_upper = self.st[idx] == St::Upper;
            if was_upper != now_upper {
                let s = if was_upper { -c } else { c } * self.y[idx];
                for t in 0..self.m {
                    self.g_bar[t] += s * self.y[t] * f64::from(row[t]);
                }
            }
        }
    }

    fn be_shrunk(&self, t: usize, gmax1: f64, gmax2: f64) -> bool {
        match self.st[t] {
            St::Upper => {
                if self.y[t] > 0.0 {
                    -self.g[t] > gmax1
                } else {
                    -self.g[t] > gmax2
                }
            }
            St::Lower => {
                if self.y[t] > 0.0 {
                    self.g[t] > gmax2
                } else {
                    self.g[t] > gmax1
                }
            }
            St::Free => false,
        }
    }

    fn do_shrinking(&mut self, k: KernelRef<'_>, eps: f64) {
        let mut gmax1 = f64::NEG_INFINITY; // max { −y_t G_t | t ∈ I_up }
        let mut gmax2 = f64::NEG_INFINITY; // max { y_t G_t | t ∈ I_low }
        for &t in &self.act {
            let g = self.g[t];
            if self.y[t] > 0.0 {
                if self.st[t] != St::Upper && -g >= gmax1 {
                    gmax1 = -g;
                }
                if self.st[t] != St::Lower && g >= gmax2 {
                    gmax2 = g;
                }
            } else {
                if self.st[t] != St::Upper && -g >= gmax2 {
                    gmax2 = -g;
                }
                if self.st[t] != St::Lower && g >= gmax1 {
                    gmax1 = g;
                }
            }
        }
        if !self.unshrink && gmax1 + gmax2 <= eps * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient(k);
            self.act = (0..self.m).collect();
        }
        let act = std::mem::take(&mut self.act);
        self.act = act
            .into_iter()
            .filter(|&t| !self.be_shrunk(t, gmax1, gmax2))
            .collect();
    }

    fn reconstruct_gradient(&mut self, k: KernelRef<'_>) {
        let m = self.m;
        if self.act.len() == m {
            return;
        }
        let mut is_active = vec![false; m];
        for &t in &self.act {
            is_active[t] = true;
        }
        let inactive: Vec<usize> = (0..m).filter(|&t| !is_active[t]).collect();
        for &j in &inactive {
            self.g[j] = self.g_bar[j] - 1.0;
        }
        let free: Vec<usize> = self
            .act
            .iter()
            .copied()
            .filter(|&t| self.st[t] == St::Free)
            .collect();
        let n_act = self.act.len();
        if free.len() * m > 2 * n_act * (m - n_act) {
            for &i in &inactive {
                let ki = k.row(i);
                let mut s = 0.0;
                for &j in &free {
                    s += self.alpha[j] * self.y[j] * f64::from(ki[j]);
                }
                self.g[i] += self.y[i] * s;
            }
        } else {
            for &i in &free {
                let ki = k.row(i);
                let a = self.alpha[i] * self.y[i];
                for &j in &inactive {
                    self.g[j] += a * self.y[j] * f64::from(ki[j]);
                }
            }
        }
    }

    fn calculate_rho(&self) -> f64 {
        let mut nr_free = 0usize;
        let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut sum_free = 0.0;
        for t in 0..self.m {
            let yg = self.y[t] * self.g[t];
            match self.st[t] {
                St::Upper => {
                    if self.y[t] < 0.0 {
                        ub = ub.min(yg);
                    } else {
                        lb = lb.max(yg);
                    }
                }
                St::Lower => {
                    if self.y[t] > 0.0 {
                        ub = ub.min(yg);
                    } else {
                        lb = lb.max(yg);
                    }
                }
                St::Free => {
                    nr_free += 1;
                    sum_free += yg;
                }
            }
        }
        if nr_free > 0 {
            sum_free / nr_free as f64
        } else {
            (ub + lb) / 2.0
        }
    }

    /// The dual objective `½ αᵀQα − eᵀα` (for tests).
    pub fn objective(&self) -> f64 {
        // G = Qα − e  ⇒  ½ αᵀQα − eᵀα = ½ Σ α_t (G_t − 1)
        self.alpha
            .iter()
            .zip(&self.g)
            .map(|(a, g)| 0.5 * a * (g - 1.0))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rbf(x: &[[f64; 2]], gamma: f64) -> Vec<f32> {
        let n = x.len();
        let mut k = vec![0f32; n * n];
        for i in 0..n {
            for j in 0..n {
                let d = (x[i][0] - x[j][0]).powi(2) + (x[i][1] - x[j][1]).powi(2);
                k[i * n + j] = (-gamma * d).exp() as f32;
            }
        }
        k
    }

    #[test]
    fn two_points_hand_computed() {
        // two points, labels +1/−1, linear kernel K = [[1,0],[0,1]]:
        // dual optimum α1 = α2 = 1 (if C ≥ 1), w = x1 − x2, ρ = 0
        let k = vec![1f32, 0.0, 0.0, 1.0];
        let kr = KernelRef::full(&k, 2);
        let mut s = Smo::new(kr, &[1.0, -1.0]);
        s.solve(kr, 10.0, 1e-6, true);
        assert!((s.alpha()[0] - 1.0).abs() < 1e-9);
        assert!((s.alpha()[1] - 1.0).abs() < 1e-9);
        assert!(s.rho().abs() < 1e-9);
        // with C = 0.5 both are at the bound
        let mut s = Smo::new(kr, &[1.0, -1.0]);
        s.solve(kr, 0.5, 1e-6, true);
        assert_eq!(s.alpha(), &[0.5, 0.5]);
    }

    #[test]
    fn warm_start_reaches_the_cold_optimum() {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..60 {
            let t = i as f64 * 0.7;
            let lab = if i % 3 == 0 { -1.0 } else { 1.0 };
            x.push([t.sin() * 2.0 + lab * 0.3, (t * 1.3).cos() * 2.0]);
            y.push(lab);
        }
        let k = rbf(&x, 0.5);
        let kr = KernelRef::full(&k, x.len());
        let mut warm = Smo::new(kr, &y);
        for c in [0.01, 0.1, 1.0, 10.0] {
            warm.solve(kr, c, 1e-8, true);
            let mut cold = Smo::new(kr, &y);
            cold.solve(kr, c, 1e-8, false);
            assert!(
                (warm.objective() - cold.objective()).abs() < 1e-6 * (1.0 + cold.objective().abs())
            );
            assert!(
                (warm.rho() - cold.rho()).abs() < 1e-4,
                "{} {}",
                warm.rho(),
                cold.rho()
            );
            // feasibility
            let s: f64 = warm.alpha().iter().zip(&y).map(|(a, b)| a * b).sum();
            assert!(s.abs() < 1e-9);
            assert!(warm.alpha().iter().all(|&a| (0.0..=c).contains(&a)));
        }
    }
}
