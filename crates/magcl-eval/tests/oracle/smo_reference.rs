//! The SMO solver as it was before the active set became a mask (libsvm's layout: every
//! per-sample array physically permuted so the active set is a prefix, the kernel read
//! through the permutation). Test-only: the oracle that the mask-based solver in
//! [`super::smo`] must reproduce bit for bit.
#![allow(dead_code)]
use super::smo::KernelRef;

/// libsvm's τ: the smallest curvature used when `a_t ≤ 0`.
const TAU: f64 = 1e-12;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum St {
    Lower,
    Upper,
    Free,
}

/// Solver state for one binary problem (labels ±1).
///
/// Like libsvm, every per-sample array is kept in a permuted order whose prefix
/// `0..active` is the active (not shrunk) set; `perm[t]` is the original index of
/// position `t`, used to read the kernel (stored in original order).
///
/// The gradient is stored multiplied by the label, `yg_t = y_t G_t`, the quantity every
/// selection rule uses; its update `Δyg_t = y_i Δα_i K_it + y_j Δα_j K_jt` needs no
/// label. Membership of `I_up` / `I_low` is kept as additive penalties (0 or −∞) so the
/// selection loops need no status branches.
#[derive(Clone, Debug)]
pub struct RefSmo {
    m: usize,
    perm: Vec<u32>,
    y: Vec<f64>,
    alpha: Vec<f64>,
    yg: Vec<f64>,
    yg_bar: Vec<f64>,
    st: Vec<St>,
    /// 0 if the position is in I_up (α can move in the +y direction), else −∞
    up_pen: Vec<f64>,
    /// 0 if the position is in I_low, else −∞
    low_pen: Vec<f64>,
    qd: Vec<f64>,
    c: f64,
    active: usize,
    unshrink: bool,
    /// `max_{I_up} −yg` and its position, computed during the last gradient update
    next_i: Option<(f64, usize)>,
    rho: f64,
    pub iterations: usize,
}

impl RefSmo {
    /// A fresh problem at α = 0 (gradient −1) for labels `y` (each +1 or −1).
    pub fn new(k: KernelRef<'_>, y: &[f64]) -> Self {
        let m = y.len();
        let mut s = RefSmo {
            m,
            perm: (0..m as u32).collect(),
            y: y.to_vec(),
            alpha: vec![0.0; m],
            yg: y.iter().map(|v| -v).collect(),
            yg_bar: vec![0.0; m],
            st: vec![St::Lower; m],
            up_pen: vec![0.0; m],
            low_pen: vec![0.0; m],
            qd: (0..m).map(|i| f64::from(k.row(i)[i])).collect(),
            c: 0.0,
            active: m,
            unshrink: false,
            next_i: None,
            rho: 0.0,
            iterations: 0,
        };
        for t in 0..m {
            s.set_status(t, St::Lower);
        }
        s
    }

    /// Dual coefficients α in the original sample order.
    pub fn alpha(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.m];
        for (t, &o) in self.perm.iter().enumerate() {
            out[o as usize] = self.alpha[t];
        }
        out
    }
    /// Labels (±1) in the original sample order.
    pub fn y(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.m];
        for (t, &o) in self.perm.iter().enumerate() {
            out[o as usize] = self.y[t];
        }
        out
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

    fn set_status(&mut self, t: usize, st: St) {
        self.st[t] = st;
        let pos = self.y[t] > 0.0;
        // I_up = {y=+1, α<C} ∪ {y=−1, α>0};  I_low = {y=+1, α>0} ∪ {y=−1, α<C}
        let (in_up, in_low) = match st {
            St::Free => (true, true),
            St::Upper => (!pos, pos),
            St::Lower => (pos, !pos),
        };
        self.up_pen[t] = if in_up { 0.0 } else { f64::NEG_INFINITY };
        self.low_pen[t] = if in_low { 0.0 } else { f64::NEG_INFINITY };
    }

    /// Solve for box constraint `c` to tolerance `eps`, starting from the current α
    /// (which must satisfy `α ≤ c`: true for a fresh problem or a previous smaller `c`).
    pub fn solve(&mut self, k: KernelRef<'_>, c: f64, eps: f64, shrinking: bool) {
        self.solve_impl(k, c, eps, shrinking);
    }

    #[inline(always)]
    fn solve_impl(&mut self, k: KernelRef<'_>, c: f64, eps: f64, shrinking: bool) {
        let m = self.m;
        self.c = c;
        for t in 0..m {
            self.alpha[t] = self.alpha[t].min(c);
            let st = self.status_of(self.alpha[t]);
            self.set_status(t, st);
        }
        // y_t Ḡ_t = Σ_{s at upper bound} C y_s K_st
        self.yg_bar.iter_mut().for_each(|v| *v = 0.0);
        for s in 0..m {
            if self.st[s] == St::Upper {
                let row = k.row(self.perm[s] as usize);
                let cy = c * self.y[s];
                for (gb, &o) in self.yg_bar.iter_mut().zip(&self.perm) {
                    *gb += cy * f64::from(row[o as usize]);
                }
            }
        }
        self.activate_all();
        self.unshrink = false;
        self.next_i = None;
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
                    self.activate_all();
                    self.next_i = None;
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
        if self.active < m {
            self.reconstruct_gradient(k);
            self.activate_all();
        }
        self.next_i = None;
        self.iterations += iter;
        self.rho = self.calculate_rho();
    }

    /// `max_{t ∈ I_up} −y_t G_t` and its (last) position.
    #[inline(always)]
    fn max_up(&self) -> (f64, usize) {
        let mut gmax = f64::NEG_INFINITY;
        let mut idx = usize::MAX;
        for t in 0..self.active {
            let v = self.up_pen[t] - self.yg[t];
            if v >= gmax {
                gmax = v;
                idx = t;
            }
        }
        (gmax, idx)
    }

    #[inline(always)]
    fn select_working_set(&mut self, k: KernelRef<'_>, eps: f64) -> Option<(usize, usize)> {
        let n = self.active;
        let (gmax, i) = match self.next_i.take() {
            Some(p) => p,
            None => self.max_up(),
        };
        if gmax == f64::NEG_INFINITY || i >= n {
            return None;
        }
        let ki = k.row(self.perm[i] as usize);
        let qdi = self.qd[i];
        let mut gmax2 = f64::NEG_INFINITY;
        let mut gmin_idx: Option<usize> = None;
        // the best −b²/a so far kept as the fraction best_num / best_den (compared by
        // cross-multiplication: no division in the loop); 0/1 accepts the first candidate
        let (mut best_num, mut best_den) = (0.0f64, 1.0f64);
        let yg = &self.yg[..n];
        let low = &self.low_pen[..n];
        let qd = &self.qd[..n];
        let perm = &self.perm[..n];
        for j in 0..n {
            // y_j G_j over I_low (−∞ outside); b = −y_i G_i + y_j G_j
            let viol = yg[j] + low[j];
            if viol > gmax2 {
                gmax2 = viol;
            }
            let grad_diff = gmax + viol;
            if grad_diff > 0.0 {
                let quad = qdi + qd[j] - 2.0 * f64::from(ki[perm[j] as usize]);
                let den = if quad > 0.0 { quad } else { TAU };
                let num = grad_diff * grad_diff;
                // −num/den ≤ −best_num/best_den  ⇔  num·best_den ≥ best_num·den
                if num * best_den >= best_num * den {
                    gmin_idx = Some(j);
                    best_num = num;
                    best_den = den;
                }
            }
        }
        if gmax + gmax2 < eps {
            return None;
        }
        gmin_idx.map(|j| (i, j))
    }

    #[inline(always)]
    fn update_pair(&mut self, k: KernelRef<'_>, i: usize, j: usize) {
        let c = self.c;
        let (ki, kj) = (k.row(self.perm[i] as usize), k.row(self.perm[j] as usize));
        let (yi, yj) = (self.y[i], self.y[j]);
        let (gi, gj) = (yi * self.yg[i], yj * self.yg[j]);
        let kij = f64::from(ki[self.perm[j] as usize]);
        let (old_ai, old_aj) = (self.alpha[i], self.alpha[j]);
        let mut quad = self.qd[i] + self.qd[j] - 2.0 * kij;
        if quad <= 0.0 {
            quad = TAU;
        }
        let (mut ai, mut aj) = (old_ai, old_aj);
        if yi != yj {
            let delta = (-gi - gj) / quad;
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
            let delta = (gi - gj) / quad;
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
        let (ui, uj) = (self.st[i] == St::Upper, self.st[j] == St::Upper);
        let (si, sj) = (self.status_of(ai), self.status_of(aj));
        self.set_status(i, si);
        self.set_status(j, sj);
        // yg_t += y_i Δα_i K_it + y_j Δα_j K_jt over the active set, and on the way the
        // next iteration's max over I_up (statuses are already updated)
        let di = yi * (ai - old_ai);
        let dj = yj * (aj - old_aj);
        let n = self.active;
        let mut gmax = f64::NEG_INFINITY;
        let mut gidx = usize::MAX;
        let up = &self.up_pen[..n];
        let perm = &self.perm[..n];
        for (t, (g, (&o, &pen))) in self.yg[..n].iter_mut().zip(perm.iter().zip(up)).enumerate() {
            let o = o as usize;
            let v = *g + (di * f64::from(ki[o]) + dj * f64::from(kj[o]));
            *g = v;
            let u = pen - v;
            if u >= gmax {
                gmax = u;
                gidx = t;
            }
        }
        self.next_i = Some((gmax, gidx));
        for (was_upper, now, row, yv) in [(ui, si, ki, yi), (uj, sj, kj, yj)] {
            let now_upper = now == St::Upper;
            if was_upper != now_upper {
                let s = if was_upper { -c } else { c } * yv;
                for (gb, &o) in self.yg_bar.iter_mut().zip(&self.perm) {
                    *gb += s * f64::from(row[o as usize]);
                }
            }
        }
    }

    /// A bounded position that cannot enter the next working set.
    fn be_shrunk(&self, t: usize, gmax1: f64, gmax2: f64) -> bool {
        if self.st[t] == St::Free {
            return false;
        }
        if self.up_pen[t] == 0.0 {
            // only in I_up
            self.yg[t] > gmax2
        } else {
            // only in I_low
            -self.yg[t] > gmax1
        }
    }

    fn do_shrinking(&mut self, k: KernelRef<'_>, eps: f64) {
        self.next_i = None;
        let mut gmax1 = f64::NEG_INFINITY; // max { −y_t G_t | t ∈ I_up }
        let mut gmax2 = f64::NEG_INFINITY; // max { y_t G_t | t ∈ I_low }
        for t in 0..self.active {
            gmax1 = gmax1.max(self.up_pen[t] - self.yg[t]);
            gmax2 = gmax2.max(self.low_pen[t] + self.yg[t]);
        }
        if !self.unshrink && gmax1 + gmax2 <= eps * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient(k);
            self.activate_all();
        }
        let n = self.active;
        let mut order: Vec<usize> = (0..n)
            .filter(|&t| !self.be_shrunk(t, gmax1, gmax2))
            .collect();
        let kept = order.len();
        if kept == n {
            return;
        }
        order.extend((0..n).filter(|&t| self.be_shrunk(t, gmax1, gmax2)));
        order.extend(n..self.m);
        self.reorder(&order);
        self.active = kept;
    }
    fn reorder(&mut self, order: &[usize]) {
        fn apply<T: Copy>(v: &mut Vec<T>, order: &[usize]) {
            let old = std::mem::take(v);
            *v = order.iter().map(|&o| old[o]).collect();
        }
        apply(&mut self.perm, order);
        apply(&mut self.y, order);
        apply(&mut self.alpha, order);
        apply(&mut self.yg, order);
        apply(&mut self.yg_bar, order);
        apply(&mut self.st, order);
        apply(&mut self.up_pen, order);
        apply(&mut self.low_pen, order);
        apply(&mut self.qd, order);
    }
    fn activate_all(&mut self) {
        self.active = self.m;
        let mut order: Vec<usize> = (0..self.m).collect();
        order.sort_unstable_by_key(|&t| self.perm[t]);
        self.reorder(&order);
    }

    fn reconstruct_gradient(&mut self, k: KernelRef<'_>) {
        let (m, n) = (self.m, self.active);
        if n == m {
            return;
        }
        for j in n..m {
            // y_j G_j = y_j (Ḡ_j − 1)
            self.yg[j] = self.yg_bar[j] - self.y[j];
        }
        let nr_free = (0..n).filter(|&t| self.st[t] == St::Free).count();
        if nr_free * m > 2 * n * (m - n) {
            for i in n..m {
                let ki = k.row(self.perm[i] as usize);
                let mut s = 0.0;
                for j in 0..n {
                    if self.st[j] == St::Free {
                        s += self.alpha[j] * self.y[j] * f64::from(ki[self.perm[j] as usize]);
                    }
                }
                self.yg[i] += s;
            }
        } else {
            for i in 0..n {
                if self.st[i] == St::Free {
                    let ki = k.row(self.perm[i] as usize);
                    let a = self.alpha[i] * self.y[i];
                    for j in n..m {
                        self.yg[j] += a * f64::from(ki[self.perm[j] as usize]);
                    }
                }
            }
        }
    }

    fn calculate_rho(&self) -> f64 {
        let mut nr_free = 0usize;
        let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut sum_free = 0.0;
        for t in 0..self.m {
            let yg = self.yg[t];
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
            .zip(self.yg.iter().zip(&self.y))
            .map(|(a, (yg, y))| 0.5 * a * (y * yg - 1.0))
            .sum()
    }
}
