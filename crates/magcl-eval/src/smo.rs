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
//!
//! # Layout: sample order, a compacted view, shrunk samples as NaN
//!
//! libsvm keeps every per-sample array permuted so that the active (not shrunk) set is a
//! prefix, and reads the kernel through that permutation (a gather per element, which
//! keeps its scans scalar). Here the state stays in the original sample order, and the
//! two per-iteration scans (the gradient update with the next `i`, the search for `j`)
//! run over a *view*: a list of samples in increasing index order with its own copies
//! of the scanned arrays and its own contiguous kernel block, so they run on 4-wide AVX2
//! vectors without gathers. At first the view is every sample and its block is the
//! caller's matrix. A sample shrunk later stays in the view with NaN selection penalties
//! (NaN fails every comparison the selection rules make, so the scans skip it without a
//! branch; its gradient keeps being updated, harmlessly: it is recomputed by
//! `reconstruct_gradient` before it becomes active again). Once the scans have spent
//! about as much on shrunk positions as a compaction costs, the view is rebuilt from the
//! active samples only, with their kernel block gathered once (`build_view`); un-shrinking
//! goes back to the full view.
//!
//! The results are bit for bit those of the permuted layout: libsvm's shrinking keeps the
//! relative order of the samples that stay active, so its active prefix always lists them
//! by increasing index, as the view does, and every order-dependent choice (ties in the
//! arg-max / arg-min scans, summation order in the gradient reconstruction) sees the same
//! sequence in both layouts; the vector scans reproduce the scalar ones exactly (see
//! `avx2`). `smo_reference.rs` keeps the permuted solver as a test oracle.

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
    pub(crate) fn row(&self, i: usize) -> &'a [f32] {
        let s = self.offset + i * self.stride;
        &self.data[s..s + self.m]
    }
}

/// Solver state for one binary problem (labels ±1).
///
/// The per-sample state lives in the original sample order; the two hot scans run over a
/// *view*: the positions `0..P` of `vmap` (sample indices, increasing), with the view's
/// copies of `y_t G_t`, penalties and `K_tt`, and the view's kernel block (the caller's
/// matrix while the view is every sample, else a compacted copy). Every active sample is
/// in the view; a view position whose sample has been shrunk since the view was built
/// carries NaN penalties (see the module doc). Inside the view, `vyg` is authoritative
/// for active samples; `yg` (sample order) is brought up to date from it by `sync_out`.
///
/// The gradient is stored multiplied by the label, `yg_t = y_t G_t`, the quantity every
/// selection rule uses; its update `Δyg_t = y_i Δα_i K_it + y_j Δα_j K_jt` needs no
/// label. Membership of `I_up` / `I_low` is kept as additive penalties (0 or −∞) so the
/// selection loops need no status branches.
#[derive(Clone, Debug)]
pub struct Smo {
    m: usize,
    y: Vec<f64>,
    alpha: Vec<f64>,
    yg: Vec<f64>,
    yg_bar: Vec<f64>,
    st: Vec<St>,
    /// false for a shrunk sample
    active: Vec<bool>,
    n_active: usize,
    qd: Vec<f64>,
    /// sample index of each view position (increasing)
    vmap: Vec<usize>,
    /// whether the view is every sample in order (its kernel is then the caller's)
    view_full: bool,
    vyg: Vec<f64>,
    /// 0 if the position is in I_up (α can move in the +y direction), −∞ if not, NaN if
    /// shrunk
    vup: Vec<f64>,
    /// 0 if the position is in I_low, −∞ if not, NaN if shrunk
    vlow: Vec<f64>,
    vqd: Vec<f64>,
    /// the view's kernel block (`P × P`) when the view is not full
    vk: Vec<f32>,
    /// a buffer for the next block
    vk_spare: Vec<f32>,
    /// how many compacted views were built (for tests)
    compactions: usize,
    /// how many vector selections deferred to the scalar scan (for tests)
    fallbacks: usize,
    /// scan work spent on shrunk view positions since the view was built
    waste: usize,
    c: f64,
    unshrink: bool,
    /// `max_{I_up} −yg` and its view position, computed during the last gradient update
    next_i: Option<(f64, usize)>,
    rho: f64,
    pub iterations: usize,
}

impl Smo {
    /// A fresh problem at α = 0 (gradient −1) for labels `y` (each +1 or −1).
    pub fn new(k: KernelRef<'_>, y: &[f64]) -> Self {
        let m = y.len();
        let mut s = Smo {
            m,
            y: y.to_vec(),
            alpha: vec![0.0; m],
            yg: y.iter().map(|v| -v).collect(),
            yg_bar: vec![0.0; m],
            st: vec![St::Lower; m],
            active: vec![true; m],
            n_active: m,
            qd: (0..m).map(|i| f64::from(k.row(i)[i])).collect(),
            vmap: Vec::new(),
            view_full: false,
            vyg: Vec::new(),
            vup: Vec::new(),
            vlow: Vec::new(),
            vqd: Vec::new(),
            vk: Vec::new(),
            vk_spare: Vec::new(),
            compactions: 0,
            fallbacks: 0,
            waste: 0,
            c: 0.0,
            unshrink: false,
            next_i: None,
            rho: 0.0,
            iterations: 0,
        };
        s.build_view(k);
        s
    }

    /// Back to α = 0 for the same kernel and labels, as [`new`](Self::new) would give
    /// (keeping the iteration count and the buffers).
    pub fn restart(&mut self, k: KernelRef<'_>) {
        let m = self.m;
        assert_eq!(k.m, m, "kernel size");
        self.alpha.iter_mut().for_each(|a| *a = 0.0);
        for (g, &y) in self.yg.iter_mut().zip(&self.y) {
            *g = -y;
        }
        self.yg_bar.iter_mut().for_each(|v| *v = 0.0);
        self.st.iter_mut().for_each(|s| *s = St::Lower);
        self.active.iter_mut().for_each(|a| *a = true);
        self.n_active = m;
        self.c = 0.0;
        self.unshrink = false;
        self.next_i = None;
        self.rho = 0.0;
        self.build_view(k);
    }

    /// Dual coefficients α in the original sample order.
    pub fn alpha(&self) -> Vec<f64> {
        self.alpha.clone()
    }
    /// Labels (±1) in the original sample order.
    pub fn y(&self) -> Vec<f64> {
        self.y.clone()
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

    /// The selection penalties `(up, low)` of sample `t` from its status and activity.
    fn penalties(&self, t: usize) -> (f64, f64) {
        if !self.active[t] {
            return (f64::NAN, f64::NAN);
        }
        let pos = self.y[t] > 0.0;
        // I_up = {y=+1, α<C} ∪ {y=−1, α>0};  I_low = {y=+1, α>0} ∪ {y=−1, α<C}
        let (in_up, in_low) = match self.st[t] {
            St::Free => (true, true),
            St::Upper => (!pos, pos),
            St::Lower => (pos, !pos),
        };
        (
            if in_up { 0.0 } else { f64::NEG_INFINITY },
            if in_low { 0.0 } else { f64::NEG_INFINITY },
        )
    }

    /// Set the status of the sample at view position `p`.
    fn set_status(&mut self, p: usize, st: St) {
        let t = self.vmap[p];
        self.st[t] = st;
        (self.vup[p], self.vlow[p]) = self.penalties(t);
    }

    /// Copy the view's gradient of the active samples back to sample order.
    fn sync_out(&mut self) {
        for (&t, &g) in self.vmap.iter().zip(&self.vyg) {
            if self.active[t] {
                self.yg[t] = g;
            }
        }
    }

    /// Rebuild the view from the sample-order state (synced): all samples if all are
    /// active, else the active ones with a compacted kernel block gathered from the
    /// current view's (`k` is the caller's full matrix).
    fn build_view(&mut self, k: KernelRef<'_>) {
        let old_full = self.view_full;
        let full = self.n_active == self.m;
        let new_map: Vec<usize> = if full {
            (0..self.m).collect()
        } else {
            (0..self.m).filter(|&t| self.active[t]).collect()
        };
        if !full {
            // the new block, read from the old view's block (old positions of the
            // active samples, which are all in the old view)
            let n = new_map.len();
            let (src, src_pos): (KernelRef<'_>, Vec<usize>) = if old_full {
                (k, new_map.clone())
            } else {
                let mut pos = Vec::with_capacity(n);
                let mut p = 0;
                for &t in &new_map {
                    while self.vmap[p] != t {
                        p += 1;
                    }
                    pos.push(p);
                }
                (KernelRef::full(&self.vk, self.vmap.len()), pos)
            };
            // written into the spare buffer (no allocation after the first compactions)
            let mut block = std::mem::take(&mut self.vk_spare);
            block.clear();
            block.reserve(n * n);
            for &pa in &src_pos {
                let row = src.row(pa);
                block.extend(src_pos.iter().map(|&pb| row[pb]));
            }
            self.vk_spare = std::mem::replace(&mut self.vk, block);
            self.compactions += 1;
        } else if self.vk.capacity() > self.vk_spare.capacity() {
            // keep the larger buffer as the spare
            std::mem::swap(&mut self.vk, &mut self.vk_spare);
        }
        self.view_full = full;
        self.vyg = new_map.iter().map(|&t| self.yg[t]).collect();
        self.vqd = new_map.iter().map(|&t| self.qd[t]).collect();
        let pens: Vec<(f64, f64)> = new_map.iter().map(|&t| self.penalties(t)).collect();
        self.vup = pens.iter().map(|p| p.0).collect();
        self.vlow = pens.iter().map(|p| p.1).collect();
        self.vmap = new_map;
        self.waste = 0;
    }

    /// The view's kernel block.
    #[inline(always)]
    fn view_kernel<'a>(&'a self, k: KernelRef<'a>) -> KernelRef<'a> {
        if self.view_full {
            k
        } else {
            KernelRef::full(&self.vk, self.vmap.len())
        }
    }

    /// Solve for box constraint `c` to tolerance `eps`, starting from the current α
    /// (which must satisfy `α ≤ c`: true for a fresh problem or a previous smaller `c`).
    pub fn solve(&mut self, k: KernelRef<'_>, c: f64, eps: f64, shrinking: bool) {
        #[cfg(target_arch = "x86_64")]
        {
            if avx2::available() {
                // SAFETY: the CPU supports the features the function is compiled for.
                unsafe { self.solve_avx2(k, c, eps, shrinking) };
                return;
            }
        }
        self.solve_impl::<false>(k, c, eps, shrinking);
    }

    /// [`solve`](Self::solve) without the vector scans (the reference they must match).
    pub fn solve_scalar(&mut self, k: KernelRef<'_>, c: f64, eps: f64, shrinking: bool) {
        self.solve_impl::<false>(k, c, eps, shrinking);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn solve_avx2(&mut self, k: KernelRef<'_>, c: f64, eps: f64, shrinking: bool) {
        self.solve_impl::<true>(k, c, eps, shrinking);
    }

    /// `SIMD` may be true only when [`avx2::available`].
    #[inline(always)]
    fn solve_impl<const SIMD: bool>(
        &mut self,
        k: KernelRef<'_>,
        c: f64,
        eps: f64,
        shrinking: bool,
    ) {
        let m = self.m;
        assert_eq!(k.m, m, "kernel size");
        self.c = c;
        self.sync_out();
        self.active.iter_mut().for_each(|a| *a = true);
        self.n_active = m;
        for t in 0..m {
            self.alpha[t] = self.alpha[t].min(c);
            self.st[t] = self.status_of(self.alpha[t]);
        }
        self.build_view(k);
        // y_t Ḡ_t = Σ_{s at upper bound} C y_s K_st
        self.yg_bar.iter_mut().for_each(|v| *v = 0.0);
        for s in 0..m {
            if self.st[s] == St::Upper {
                let row = k.row(s);
                let cy = c * self.y[s];
                for (gb, &kv) in self.yg_bar.iter_mut().zip(row) {
                    *gb += cy * f64::from(kv);
                }
            }
        }
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
            let (i, j) = match self.select_working_set::<SIMD>(k, eps) {
                Some(p) => p,
                None => {
                    self.reconstruct_gradient(k);
                    self.activate_all(k);
                    self.next_i = None;
                    match self.select_working_set::<SIMD>(k, eps) {
                        Some(p) => {
                            counter = 1;
                            p
                        }
                        None => break,
                    }
                }
            };
            iter += 1;
            self.waste += self.vmap.len() - self.n_active;
            self.update_pair::<SIMD>(k, i, j);
        }
        if self.n_active < m {
            self.reconstruct_gradient(k);
            self.activate_all(k);
        }
        self.sync_out();
        self.next_i = None;
        self.iterations += iter;
        self.rho = self.calculate_rho();
    }

    /// Returns the working pair as view positions.
    #[inline(always)]
    fn select_working_set<const SIMD: bool>(
        &mut self,
        k: KernelRef<'_>,
        eps: f64,
    ) -> Option<(usize, usize)> {
        let (gmax, i) = match self.next_i.take() {
            Some(p) => p,
            None => max_up(&self.vyg, &self.vup),
        };
        if gmax == f64::NEG_INFINITY || i == usize::MAX {
            return None;
        }
        let ki = self.view_kernel(k).row(i);
        let qdi = self.vqd[i];
        let (yg, low, qd) = (&self.vyg[..], &self.vlow[..], &self.vqd[..]);
        let (mut fast, mut fell_back) = (None, false);
        #[cfg(target_arch = "x86_64")]
        if SIMD {
            // SAFETY: SIMD is only set when the CPU has AVX2 (see `solve`).
            fast = unsafe { avx2::select(yg, low, qd, ki, gmax, qdi) };
        }
        let (gmax2, j) = match fast {
            Some(r) => r,
            None => {
                fell_back = SIMD;
                select_scalar(yg, low, qd, ki, gmax, qdi)
            }
        };
        self.fallbacks += usize::from(fell_back);
        if gmax + gmax2 < eps {
            return None;
        }
        j.map(|j| (i, j))
    }

    /// One SMO step on the view positions `ip`, `jp`.
    #[inline(always)]
    fn update_pair<const SIMD: bool>(&mut self, k: KernelRef<'_>, ip: usize, jp: usize) {
        let c = self.c;
        let (i, j) = (self.vmap[ip], self.vmap[jp]);
        let (yi, yj) = (self.y[i], self.y[j]);
        let (gi, gj) = (yi * self.vyg[ip], yj * self.vyg[jp]);
        // the view's kernel block, moved out of `self` while `self` changes
        let vkbuf = std::mem::take(&mut self.vk);
        let vk = if self.view_full {
            k
        } else {
            KernelRef::full(&vkbuf, self.vmap.len())
        };
        let (vki, vkj) = (vk.row(ip), vk.row(jp));
        let kij = f64::from(vki[jp]);
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
        self.set_status(ip, si);
        self.set_status(jp, sj);
        // yg_t += y_i Δα_i K_it + y_j Δα_j K_jt over the view (shrunk positions included,
        // see the module doc), and on the way the next iteration's max over I_up
        // (statuses are already updated)
        let di = yi * (ai - old_ai);
        let dj = yj * (aj - old_aj);
        let mut done = false;
        #[cfg(target_arch = "x86_64")]
        if SIMD {
            // SAFETY: SIMD is only set when the CPU has AVX2 (see `solve`).
            self.next_i = Some(unsafe { avx2::update(&mut self.vyg, &self.vup, vki, vkj, di, dj) });
            done = true;
        }
        if !done {
            self.next_i = Some(update_scalar(&mut self.vyg, &self.vup, vki, vkj, di, dj));
        }
        self.vk = vkbuf;
        for (was_upper, now, t, yv) in [(ui, si, i, yi), (uj, sj, j, yj)] {
            let now_upper = now == St::Upper;
            if was_upper != now_upper {
                let s = if was_upper { -c } else { c } * yv;
                for (gb, &kv) in self.yg_bar.iter_mut().zip(k.row(t)) {
                    *gb += s * f64::from(kv);
                }
            }
        }
    }

    /// A bounded active sample (at view position `p`) that cannot enter the next
    /// working set.
    fn be_shrunk(&self, p: usize, gmax1: f64, gmax2: f64) -> bool {
        if self.st[self.vmap[p]] == St::Free {
            return false;
        }
        if self.vup[p] == 0.0 {
            // only in I_up
            self.vyg[p] > gmax2
        } else {
            // only in I_low
            -self.vyg[p] > gmax1
        }
    }

    fn do_shrinking(&mut self, k: KernelRef<'_>, eps: f64) {
        self.next_i = None;
        let mut gmax1 = f64::NEG_INFINITY; // max { −y_t G_t | t ∈ I_up }
        let mut gmax2 = f64::NEG_INFINITY; // max { y_t G_t | t ∈ I_low }
        for p in 0..self.vmap.len() {
            // `f64::max` ignores the NaN of shrunk samples
            gmax1 = gmax1.max(self.vup[p] - self.vyg[p]);
            gmax2 = gmax2.max(self.vlow[p] + self.vyg[p]);
        }
        if !self.unshrink && gmax1 + gmax2 <= eps * 10.0 {
            self.unshrink = true;
            self.reconstruct_gradient(k);
            self.activate_all(k);
        }
        for p in 0..self.vmap.len() {
            let t = self.vmap[p];
            if self.active[t] && self.be_shrunk(p, gmax1, gmax2) {
                self.active[t] = false;
                self.n_active -= 1;
                self.vup[p] = f64::NAN;
                self.vlow[p] = f64::NAN;
            }
        }
        // compact the view once the scans have spent on shrunk positions about half of
        // what gathering the compacted kernel block reads (measured on the NCI1-sized
        // fixture: any factor from 0.1 to 1 gives about the same time; 3 is slower)
        let (n, len) = (self.n_active, self.vmap.len());
        if n < len && 2 * self.waste >= n * len {
            self.sync_out();
            self.build_view(k);
        }
    }

    fn activate_all(&mut self, k: KernelRef<'_>) {
        if self.n_active == self.m {
            return;
        }
        self.sync_out();
        self.active.iter_mut().for_each(|a| *a = true);
        self.n_active = self.m;
        self.build_view(k);
    }

    /// Recompute `y_t G_t` of the shrunk samples (in sample order; the active samples'
    /// values are in the view).
    fn reconstruct_gradient(&mut self, k: KernelRef<'_>) {
        let (m, n) = (self.m, self.n_active);
        if n == m {
            return;
        }
        // both in increasing index order: the order of libsvm's permuted layout
        let act: Vec<usize> = (0..m).filter(|&t| self.active[t]).collect();
        let shrunk: Vec<usize> = (0..m).filter(|&t| !self.active[t]).collect();
        for &j in &shrunk {
            // y_j G_j = y_j (Ḡ_j − 1)
            self.yg[j] = self.yg_bar[j] - self.y[j];
        }
        let nr_free = act.iter().filter(|&&t| self.st[t] == St::Free).count();
        if nr_free * m > 2 * n * (m - n) {
            for &i in &shrunk {
                let ki = k.row(i);
                let mut s = 0.0;
                for &j in &act {
                    if self.st[j] == St::Free {
                        s += self.alpha[j] * self.y[j] * f64::from(ki[j]);
                    }
                }
                self.yg[i] += s;
            }
        } else {
            for &i in &act {
                if self.st[i] == St::Free {
                    let ki = k.row(i);
                    let a = self.alpha[i] * self.y[i];
                    for &j in &shrunk {
                        self.yg[j] += a * f64::from(ki[j]);
                    }
                }
            }
        }
    }

    /// (after `sync_out` with every sample active)
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

    /// Multiply every α by `r > 0` and raise the box to `r·C` (the last solve's `C`),
    /// keeping the gradient exact: `y_t G_t = Σ_s y_s α_s K_st − y_t` becomes
    /// `r·(y_t G_t + y_t) − y_t`. The scaled α is feasible for the box `r·C` (`yᵀα` stays
    /// 0), so it seeds the problem for `C' = r·C` (alpha seeding; see
    /// `docs/evaluation.md`). Call [`solve`](Self::solve) next; `rho` is stale until then.
    pub fn scale_alpha(&mut self, k: KernelRef<'_>, r: f64) {
        assert!(r > 0.0 && r.is_finite(), "scale factor {r}");
        assert_eq!(k.m, self.m, "kernel size");
        self.sync_out();
        self.c *= r;
        for t in 0..self.m {
            self.alpha[t] *= r;
            self.yg[t] = r * (self.yg[t] + self.y[t]) - self.y[t];
        }
        // outside `solve` every sample is active (a solve ends by un-shrinking), so the
        // scaled gradient is exact everywhere; statuses follow the new box
        debug_assert_eq!(self.n_active, self.m);
        for t in 0..self.m {
            self.st[t] = self.status_of(self.alpha[t]);
        }
        self.next_i = None;
        self.build_view(k);
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

/// `max_{t ∈ I_up} −y_t G_t` and its (last) index; `(−∞, usize::MAX)` if none is active.
fn max_up(yg: &[f64], up: &[f64]) -> (f64, usize) {
    let mut gmax = f64::NEG_INFINITY;
    let mut idx = usize::MAX;
    for (t, (&g, &pen)) in yg.iter().zip(up).enumerate() {
        let v = pen - g;
        if v >= gmax {
            gmax = v;
            idx = t;
        }
    }
    (gmax, idx)
}

/// The scan for `j` given `i`: returns `max_{I_low} y_t G_t` and the last `t` minimising
/// `−b_t² / a_t` over `t ∈ I_low` with `b_t > 0` (`None` if there is no such `t`).
#[inline(always)]
fn select_scalar(
    yg: &[f64],
    low: &[f64],
    qd: &[f64],
    ki: &[f32],
    gmax: f64,
    qdi: f64,
) -> (f64, Option<usize>) {
    let n = yg.len();
    let (low, qd, ki) = (&low[..n], &qd[..n], &ki[..n]);
    let mut gmax2 = f64::NEG_INFINITY;
    let mut gmin_idx: Option<usize> = None;
    // the best −b²/a so far kept as the fraction best_num / best_den (compared by
    // cross-multiplication: no division in the loop); 0/1 accepts the first candidate
    let (mut best_num, mut best_den) = (0.0f64, 1.0f64);
    for j in 0..n {
        // y_j G_j over I_low (−∞ outside, NaN if shrunk); b = −y_i G_i + y_j G_j
        let viol = yg[j] + low[j];
        if viol > gmax2 {
            gmax2 = viol;
        }
        let grad_diff = gmax + viol;
        if grad_diff > 0.0 {
            let quad = qdi + qd[j] - 2.0 * f64::from(ki[j]);
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
    (gmax2, gmin_idx)
}

/// `yg_t += di·K_it + dj·K_jt` for every `t`, returning `max_{I_up} −yg` and its last index.
#[inline(always)]
fn update_scalar(
    yg: &mut [f64],
    up: &[f64],
    ki: &[f32],
    kj: &[f32],
    di: f64,
    dj: f64,
) -> (f64, usize) {
    let n = yg.len();
    let (up, ki, kj) = (&up[..n], &ki[..n], &kj[..n]);
    let mut gmax = f64::NEG_INFINITY;
    let mut gidx = usize::MAX;
    for t in 0..n {
        let v = yg[t] + (di * f64::from(ki[t]) + dj * f64::from(kj[t]));
        yg[t] = v;
        let u = up[t] - v;
        if u >= gmax {
            gmax = u;
            gidx = t;
        }
    }
    (gmax, gidx)
}

/// AVX2 versions of the two scans, exact replicas of [`update_scalar`] and
/// [`select_scalar`]: the same f64 operations in the same order for every sample (no FMA:
/// Rust never contracts `a·b + c`, so neither may these), 8 samples at a time in 8 lanes
/// (lane `l` sees the samples `t ≡ l mod 8`, in order).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::TAU;
    use std::arch::x86_64::*;

    /// Whether the CPU runs these functions.
    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("avx2")
    }

    /// Lane start indices 0..8 as two f64 vectors.
    #[inline(always)]
    unsafe fn lane_indices() -> [__m256d; 2] {
        [
            _mm256_setr_pd(0.0, 1.0, 2.0, 3.0),
            _mm256_setr_pd(4.0, 5.0, 6.0, 7.0),
        ]
    }

    #[inline(always)]
    unsafe fn to_lanes(v: [__m256d; 2]) -> [f64; 8] {
        let mut out = [0.0; 8];
        _mm256_storeu_pd(out.as_mut_ptr(), v[0]);
        _mm256_storeu_pd(out.as_mut_ptr().add(4), v[1]);
        out
    }

    /// [`super::update_scalar`]. The arg-max keeps, per lane, the last index reaching the
    /// lane's maximum (`≥`, as the scalar loop); of the lanes reaching the overall maximum
    /// the largest index wins, which is the scalar loop's last index reaching it.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn update(
        yg: &mut [f64],
        up: &[f64],
        ki: &[f32],
        kj: &[f32],
        di: f64,
        dj: f64,
    ) -> (f64, usize) {
        let m = yg.len();
        assert!(up.len() >= m && ki.len() >= m && kj.len() >= m);
        let m8 = m - m % 8;
        let (vdi, vdj) = (_mm256_set1_pd(di), _mm256_set1_pd(dj));
        let ninf = _mm256_set1_pd(f64::NEG_INFINITY);
        let step = _mm256_set1_pd(8.0);
        let mut best = [ninf; 2];
        let mut bidx = [_mm256_set1_pd(-1.0); 2];
        let mut idx = lane_indices();
        let (pg, pu, pi, pj) = (yg.as_mut_ptr(), up.as_ptr(), ki.as_ptr(), kj.as_ptr());
        let mut t = 0;
        while t < m8 {
            for h in 0..2 {
                // SAFETY (loads and stores): o + 4 ≤ m8 ≤ m and all slices hold ≥ m items
                let o = t + 4 * h;
                let k1 = _mm256_cvtps_pd(_mm_loadu_ps(pi.add(o)));
                let k2 = _mm256_cvtps_pd(_mm_loadu_ps(pj.add(o)));
                let d = _mm256_add_pd(_mm256_mul_pd(vdi, k1), _mm256_mul_pd(vdj, k2));
                let g = _mm256_add_pd(_mm256_loadu_pd(pg.add(o)), d);
                _mm256_storeu_pd(pg.add(o), g);
                let v = _mm256_sub_pd(_mm256_loadu_pd(pu.add(o)), g);
                let ge = _mm256_cmp_pd::<_CMP_GE_OQ>(v, best[h]);
                best[h] = _mm256_blendv_pd(best[h], v, ge);
                bidx[h] = _mm256_blendv_pd(bidx[h], idx[h], ge);
                idx[h] = _mm256_add_pd(idx[h], step);
            }
            t += 8;
        }
        let (bv, bi) = (to_lanes(best), to_lanes(bidx));
        let (mut gmax, mut gidx) = (f64::NEG_INFINITY, -1.0);
        for l in 0..8 {
            if bv[l] > gmax || (bv[l] == gmax && bi[l] > gidx) {
                gmax = bv[l];
                gidx = bi[l];
            }
        }
        let mut gidx = if gidx < 0.0 {
            usize::MAX
        } else {
            gidx as usize
        };
        // The remainder by the scalar scan. Continuing the scalar loop from (gmax, gidx)
        // ends where this merge does: the tail's last index reaching the tail's maximum
        // wins when that maximum is ≥ gmax, otherwise nothing changes.
        let (tmax, tidx) =
            super::update_scalar(&mut yg[m8..], &up[m8..m], &ki[m8..m], &kj[m8..m], di, dj);
        if tidx != usize::MAX && tmax >= gmax {
            gmax = tmax;
            gidx = m8 + tidx;
        }
        (gmax, gidx)
    }

    /// [`super::select_scalar`], or `None` when the vector scan cannot prove it found the
    /// same `j` (the caller then runs the scalar scan).
    ///
    /// The scalar scan keeps the best candidate as a fraction `n/d` and replaces it when
    /// `fl(n_t·d) ≥ fl(n·d_t)`; with rounding this relation is not transitive for ratios
    /// within a few ulps of each other, so lanes cannot simply be merged. Instead the
    /// lanes find `q* = max_t fl(n_t/d_t)` (`q_t = 0` for non-candidates); the scalar
    /// scan's answer provably lies in `S = {t : fl(n_t/d_t) ≥ q*·(1 − 10⁻⁶)}`: once it
    /// meets an exact maximiser it only moves to candidates at most a few ulps worse per
    /// step, never out of S, as long as the values are normal numbers (hence the range
    /// check on q*). Each lane also keeps its second-best ratio, so a one-element S is
    /// recognised and is the answer; anything else (ties, near-ties) falls back. On the
    /// NCI1-sized fixture 73 of 5.6 million selections fell back.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn select(
        yg: &[f64],
        low: &[f64],
        qd: &[f64],
        ki: &[f32],
        gmax: f64,
        qdi: f64,
    ) -> Option<(f64, Option<usize>)> {
        let m = yg.len();
        assert!(low.len() >= m && qd.len() >= m && ki.len() >= m);
        let m8 = m - m % 8;
        let vgmax = _mm256_set1_pd(gmax);
        let vqdi = _mm256_set1_pd(qdi);
        let zero = _mm256_setzero_pd();
        let two = _mm256_set1_pd(2.0);
        let tau = _mm256_set1_pd(TAU);
        let ninf = _mm256_set1_pd(f64::NEG_INFINITY);
        let step = _mm256_set1_pd(8.0);
        let mut g2 = [ninf; 2];
        let mut qbest = [ninf; 2];
        let mut qsecond = [ninf; 2];
        let mut qidx = [_mm256_set1_pd(-1.0); 2];
        let mut idx = lane_indices();
        let (pg, pl, pq, pk) = (yg.as_ptr(), low.as_ptr(), qd.as_ptr(), ki.as_ptr());
        let mut t = 0;
        while t < m8 {
            for h in 0..2 {
                // SAFETY (loads): o + 4 ≤ m8 ≤ m and all slices hold ≥ m items
                let o = t + 4 * h;
                let viol = _mm256_add_pd(_mm256_loadu_pd(pg.add(o)), _mm256_loadu_pd(pl.add(o)));
                // max_pd(a, b) = a > b ? a : b, the scalar `if viol > gmax2` (NaN: b)
                g2[h] = _mm256_max_pd(viol, g2[h]);
                // b_t where b_t > 0, else 0 (NaN included)
                let gd = _mm256_max_pd(_mm256_add_pd(vgmax, viol), zero);
                let k = _mm256_cvtps_pd(_mm_loadu_ps(pk.add(o)));
                let quad = _mm256_sub_pd(
                    _mm256_add_pd(vqdi, _mm256_loadu_pd(pq.add(o))),
                    _mm256_mul_pd(two, k),
                );
                let den = _mm256_blendv_pd(tau, quad, _mm256_cmp_pd::<_CMP_GT_OQ>(quad, zero));
                let num = _mm256_mul_pd(gd, gd);
                let q = _mm256_div_pd(num, den);
                let ge = _mm256_cmp_pd::<_CMP_GE_OQ>(q, qbest[h]);
                // the value that does not become (or stay) the lane's best
                qsecond[h] = _mm256_max_pd(_mm256_blendv_pd(q, qbest[h], ge), qsecond[h]);
                qbest[h] = _mm256_blendv_pd(qbest[h], q, ge);
                qidx[h] = _mm256_blendv_pd(qidx[h], idx[h], ge);
                idx[h] = _mm256_add_pd(idx[h], step);
            }
            t += 8;
        }
        let mut g2 = to_lanes(g2);
        let mut qb = to_lanes(qbest);
        let mut qs = to_lanes(qsecond);
        let mut qi = to_lanes(qidx);
        for t in m8..m {
            let l = t % 8;
            let viol = yg[t] + low[t];
            if viol > g2[l] {
                g2[l] = viol;
            }
            let gd = (gmax + viol).max(0.0);
            let quad = qdi + qd[t] - 2.0 * f64::from(ki[t]);
            let den = if quad > 0.0 { quad } else { TAU };
            let q = (gd * gd) / den;
            if q >= qb[l] {
                qs[l] = qs[l].max(qb[l]);
                qb[l] = q;
                qi[l] = t as f64;
            } else {
                qs[l] = qs[l].max(q);
            }
        }
        let gmax2 = g2
            .iter()
            .fold(f64::NEG_INFINITY, |a, &v| if v > a { v } else { a });
        if gmax + gmax2 <= 0.0 {
            // no b_t > 0 (any would make gmax2 > −gmax)
            return Some((gmax2, None));
        }
        let qstar = qb.iter().fold(0.0, |a: f64, &v| a.max(v));
        if !(1e-200..=1e200).contains(&qstar) {
            return None;
        }
        let thr = qstar * (1.0 - 1e-6);
        let mut found = None;
        for l in 0..8 {
            if qs[l] >= thr {
                return None;
            }
            if qb[l] >= thr {
                if found.is_some() {
                    return None;
                }
                found = Some(qi[l] as usize);
            }
        }
        found.map(|j| (gmax2, Some(j)))
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
        assert_eq!(s.alpha(), vec![0.5, 0.5]);
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

    /// Alpha seeding by scaling: the scaled gradient equals the one computed from the
    /// scaled α from scratch, and a solve from the scaled α reaches the cold optimum.
    #[test]
    fn scaled_seed_keeps_the_gradient_exact_and_reaches_the_cold_optimum() {
        let (k, y) = problem(300, 21, 1.0);
        let m = y.len();
        let kr = KernelRef::full(&k, m);
        let mut s = Smo::new(kr, &y);
        s.solve(kr, 1.0, 1e-3, true);
        s.scale_alpha(kr, 10.0);
        let alpha = s.alpha();
        assert!(alpha.iter().all(|&a| (0.0..=10.0).contains(&a)));
        assert!(alpha.contains(&10.0), "some α stay at the (new) bound");
        let dot: f64 = alpha.iter().zip(&y).map(|(a, b)| a * b).sum();
        assert!(dot.abs() < 1e-9, "{dot}");
        for t in 0..m {
            let g: f64 = (0..m)
                .map(|u| alpha[u] * y[u] * f64::from(k[t * m + u]))
                .sum::<f64>()
                - y[t];
            assert!((s.yg[t] - g).abs() < 1e-9, "t={t}: {} vs {g}", s.yg[t]);
        }
        for c in [10.0, 100.0] {
            if c > 10.0 {
                s.scale_alpha(kr, 10.0);
            }
            s.solve(kr, c, 1e-8, true);
            let mut cold = Smo::new(kr, &y);
            cold.solve(kr, c, 1e-8, true);
            let (a, b) = (s.objective(), cold.objective());
            assert!((a - b).abs() < 1e-6 * (1.0 + b.abs()), "c={c}: {a} vs {b}");
            assert!((s.rho() - cold.rho()).abs() < 1e-4, "c={c}");
        }
    }

    /// A deterministic pseudo-random problem: `m` points in 3-D (some duplicated, so
    /// that the selection scans meet exact ties), labels ±1 with a noisy rule.
    fn problem(m: usize, seed: u64, gamma: f64) -> (Vec<f32>, Vec<f64>) {
        // the first step only mixes the seed (the values start from the second)
        let mut raw = crate::lcg(seed);
        raw();
        let mut next = || ((raw() >> 11) as f64) / ((1u64 << 53) as f64);
        let mut x: Vec<[f64; 3]> = Vec::with_capacity(m);
        let mut y = Vec::with_capacity(m);
        for t in 0..m {
            let p = if t % 7 == 6 {
                x[t / 2] // a duplicate of an earlier point
            } else {
                [next() * 4.0 - 2.0, next() * 4.0 - 2.0, next() * 4.0 - 2.0]
            };
            let lab = if p[0] * p[1] + 0.3 * p[2] + 0.8 * (next() - 0.5) > 0.0 {
                1.0
            } else {
                -1.0
            };
            x.push(p);
            y.push(lab);
        }
        // both classes present
        y[0] = 1.0;
        if m > 1 {
            y[1] = -1.0;
        }
        let mut k = vec![0f32; m * m];
        for i in 0..m {
            for j in 0..m {
                let d: f64 = (0..3).map(|c| (x[i][c] - x[j][c]).powi(2)).sum();
                k[i * m + j] = (-gamma * d).exp() as f32;
            }
        }
        (k, y)
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|a| a.to_bits()).collect()
    }

    /// The mask layout (vector and scalar scans) reproduces the permuted-layout solver
    /// bit for bit: α, ρ, iteration counts, across shrinking, un-shrinking and
    /// gradient reconstruction, for sizes around the vector width.
    #[test]
    fn matches_the_permuted_reference_bit_for_bit() {
        use crate::smo_reference::RefSmo;
        let mut shrunk_runs = 0;
        let mut compactions = 0;
        for (m, seed, gamma) in [
            (2, 1, 1.0),
            (7, 2, 1.0),
            (9, 3, 0.5),
            (17, 4, 2.0),
            (64, 5, 1.0),
            (203, 6, 0.7),
            (611, 7, 3.0),
            (1500, 8, 1.5),
        ] {
            let (k, y) = problem(m, seed, gamma);
            let kr = KernelRef::full(&k, m);
            for c in [0.1, 1.0, 10.0, 1000.0] {
                for shrinking in [true, false] {
                    let mut r = RefSmo::new(kr, &y);
                    r.solve(kr, c, 1e-3, shrinking);
                    let mut v = Smo::new(kr, &y);
                    v.solve(kr, c, 1e-3, shrinking);
                    let mut s = Smo::new(kr, &y);
                    s.solve_scalar(kr, c, 1e-3, shrinking);
                    // a restarted solver (buffers and view left by a previous solve)
                    let mut w = Smo::new(kr, &y);
                    w.solve(kr, c * 3.0, 1e-3, shrinking);
                    w.restart(kr);
                    w.iterations = 0;
                    w.solve(kr, c, 1e-3, shrinking);
                    compactions += v.compactions;
                    let what = format!("m={m} c={c} shrinking={shrinking}");
                    for (name, got) in [("simd", &v), ("scalar", &s), ("restarted", &w)] {
                        assert_eq!(got.iterations, r.iterations, "{name} {what}");
                        assert_eq!(bits(&got.alpha()), bits(&r.alpha()), "{name} {what}");
                        assert_eq!(got.rho().to_bits(), r.rho().to_bits(), "{name} {what}");
                        assert_eq!(got.objective().to_bits(), r.objective().to_bits());
                    }
                    if shrinking && r.iterations > m.min(1000) {
                        shrunk_runs += 1;
                    }
                }
            }
        }
        // the comparison covered problems that ran long enough to shrink, and to compact
        // the view
        assert!(shrunk_runs >= 4, "{shrunk_runs}");
        assert!(compactions >= 4, "{compactions}");
    }

    /// Exact ties everywhere (a kernel of small integers): the vector selection must
    /// defer to the scalar scan and agree with it.
    #[test]
    fn ties_fall_back_to_the_scalar_scan() {
        let m = 45;
        let mut k = vec![0f32; m * m];
        for i in 0..m {
            for j in 0..m {
                k[i * m + j] = if i == j {
                    2.0
                } else {
                    ((i + j) % 3) as f32 * 0.5
                };
            }
        }
        let y: Vec<f64> = (0..m)
            .map(|t| if t % 3 == 0 { -1.0 } else { 1.0 })
            .collect();
        let kr = KernelRef::full(&k, m);
        let mut fallbacks = 0;
        for c in [0.5, 5.0, 50.0] {
            let mut v = Smo::new(kr, &y);
            v.solve(kr, c, 1e-6, true);
            let mut s = Smo::new(kr, &y);
            s.solve_scalar(kr, c, 1e-6, true);
            fallbacks += v.fallbacks;
            assert_eq!(v.iterations, s.iterations);
            assert_eq!(bits(&v.alpha()), bits(&s.alpha()));
            assert_eq!(v.rho().to_bits(), s.rho().to_bits());
        }
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            assert!(fallbacks > 0);
        }
    }

    /// Shrinking changes the path, not the optimum: with a tight tolerance both reach the
    /// same (unique, K positive definite) α and ρ.
    #[test]
    fn shrinking_reaches_the_unshrunk_optimum() {
        for (m, seed) in [(300, 11), (1200, 12)] {
            let (k, y) = problem(m, seed, 1.0);
            // drop the duplicates' effect on uniqueness: perturb the diagonal slightly
            let mut k = k;
            for i in 0..m {
                k[i * m + i] += 1e-3;
            }
            let kr = KernelRef::full(&k, m);
            for c in [1.0, 100.0] {
                let mut a = Smo::new(kr, &y);
                a.solve(kr, c, 1e-12, true);
                let mut b = Smo::new(kr, &y);
                b.solve(kr, c, 1e-12, false);
                let (aa, ab) = (a.alpha(), b.alpha());
                let worst = aa
                    .iter()
                    .zip(&ab)
                    .map(|(p, q)| (p - q).abs())
                    .fold(0.0, f64::max);
                assert!(worst < 1e-9 * c.max(1.0), "m={m} c={c}: {worst}");
                assert!((a.rho() - b.rho()).abs() < 1e-9, "{} {}", a.rho(), b.rho());
                assert!(a.iterations > 0 && b.iterations > 0);
            }
        }
    }
}
