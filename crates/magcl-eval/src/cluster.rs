//! k-means (greedy k-means++ initialisation, Lloyd iterations) and normalised mutual
//! information with arithmetic normalisation (scikit-learn's
//! `normalized_mutual_info_score` default).
use rand::distributions::{Distribution, WeightedIndex};
use rand::Rng as _;
use rayon::prelude::*;

use super::linalg::Features;
use crate::error::{Error, Result};
use crate::rng::{self, streams};

/// Lloyd iterations at most (scikit-learn's default).
const MAX_ITER: usize = 300;
/// Relative tolerance on the total squared centre shift (× mean feature variance).
const TOL: f64 = 1e-4;

fn sqdist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// Centres laid out for many point-to-centre distances: blocks of [`LANES`] centres, each
/// block stored feature by feature (feature `j` of the block's centres side by side),
/// padded with zeros. Each distance still sums its squared differences in feature order,
/// starting from zero, exactly as [`sqdist`] does, so every distance has the bits of the
/// plain loop; the layout only lets a block's sums advance together (vector lanes, and
/// independent dependency chains) instead of one long chain per centre, which made the
/// assignment step latency-bound.
struct Centres {
    k: usize,
    d: usize,
    blocks: Vec<[f64; LANES]>,
}

/// Centres per block (two 4-wide or four 2-wide vector registers of f64).
const LANES: usize = 8;

impl Centres {
    /// `rows`: `k` centres of `d` features, row after row.
    fn new(rows: &[f64], d: usize) -> Self {
        let k = rows.len() / d.max(1);
        let mut c = Centres {
            k,
            d,
            blocks: vec![[0.0; LANES]; k.div_ceil(LANES) * d],
        };
        c.set(rows);
        c
    }

    /// Replaces the centres (same `k` and `d`).
    fn set(&mut self, rows: &[f64]) {
        let d = self.d;
        for (c, row) in rows.chunks_exact(d.max(1)).take(self.k).enumerate() {
            let (b, l) = (c / LANES, c % LANES);
            for (j, &v) in row.iter().enumerate() {
                self.blocks[b * d + j][l] = v;
            }
        }
    }

    /// Squared distances from `x` to every centre, into `out` (length `k`).
    #[inline(always)]
    fn distances(&self, x: &[f64], out: &mut [f64]) {
        let d = self.d;
        for (b, chunk) in out.chunks_mut(LANES).enumerate() {
            let mut acc = [0.0f64; LANES];
            for (&xj, cj) in x.iter().zip(&self.blocks[b * d..(b + 1) * d]) {
                for (a, &c) in acc.iter_mut().zip(cj) {
                    let t = xj - c;
                    *a += t * t;
                }
            }
            chunk.copy_from_slice(&acc[..chunk.len()]);
        }
    }

    /// The nearest centre to `x` (the first of equals; 0 if no distance is below
    /// infinity), as the plain loop over centres picks it. `buf`: scratch of length `k`.
    #[inline(always)]
    fn nearest(&self, x: &[f64], buf: &mut [f64]) -> usize {
        self.distances(x, buf);
        let mut best = 0;
        let mut bd = f64::INFINITY;
        for (c, &dd) in buf.iter().enumerate() {
            if dd < bd {
                bd = dd;
                best = c;
            }
        }
        best
    }

    /// Lloyd's assignment step: each point of `x` goes to its nearest centre (first of
    /// equals) and is added to that centre's sum and count, point after point — the order
    /// of a separate pass over the labels afterwards, in one pass over the points. Returns
    /// the sums (`k × d`), the counts and whether a label changed. The same code with
    /// AVX2's wider registers where the CPU has them (no fused multiply-add: the same bits).
    fn assign(&self, x: &Features, labels: &mut [usize]) -> (Vec<f64>, Vec<usize>, bool) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: this CPU has AVX2.
            return unsafe { self.assign_avx2(x, labels) };
        }
        self.assign_with(x, labels)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn assign_avx2(
        &self,
        x: &Features,
        labels: &mut [usize],
    ) -> (Vec<f64>, Vec<usize>, bool) {
        self.assign_with(x, labels)
    }

    #[inline(always)]
    fn assign_with(&self, x: &Features, labels: &mut [usize]) -> (Vec<f64>, Vec<usize>, bool) {
        let (k, d) = (self.k, self.d);
        let (mut sums, mut counts) = (vec![0.0; k * d], vec![0usize; k]);
        let mut buf = vec![0.0; k];
        let mut changed = false;
        for (i, label) in labels.iter_mut().enumerate() {
            let xi = x.row(i);
            let best = self.nearest(xi, &mut buf);
            if *label != best {
                *label = best;
                changed = true;
            }
            counts[best] += 1;
            for (s, v) in sums[best * d..(best + 1) * d].iter_mut().zip(xi) {
                *s += v;
            }
        }
        (sums, counts, changed)
    }
}

/// Greedy k-means++: each new centre is the best (lowest potential) of `2 + ⌊ln k⌋`
/// candidates drawn with probability ∝ D².
fn init_plus_plus(x: &Features, k: usize, r: &mut rng::Rng) -> Vec<f64> {
    let (n, d) = (x.n, x.d);
    let trials = 2 + (k as f64).ln().floor() as usize;
    let mut centers = Vec::with_capacity(k * d);
    let first = r.gen_range(0..n);
    centers.extend_from_slice(x.row(first));
    let mut closest: Vec<f64> = (0..n).map(|i| sqdist(x.row(i), x.row(first))).collect();
    for _ in 1..k {
        let total: f64 = closest.iter().sum();
        let cand: Vec<usize> = if total > 0.0 {
            match WeightedIndex::new(&closest) {
                Ok(w) => (0..trials).map(|_| w.sample(r)).collect(),
                Err(_) => (0..trials).map(|_| r.gen_range(0..n)).collect(),
            }
        } else {
            (0..trials).map(|_| r.gen_range(0..n)).collect()
        };
        // every candidate's distances in one pass over the points
        let rows: Vec<f64> = cand.iter().flat_map(|&c| x.row(c)).copied().collect();
        let at = Centres::new(&rows, d);
        let mut upd = vec![vec![0.0; n]; cand.len()];
        let mut buf = vec![0.0; cand.len()];
        for i in 0..n {
            at.distances(x.row(i), &mut buf);
            for (u, &dist) in upd.iter_mut().zip(&buf) {
                u[i] = closest[i].min(dist);
            }
        }
        let mut best: Option<(f64, usize, Vec<f64>)> = None;
        for (&c, upd) in cand.iter().zip(upd) {
            let pot: f64 = upd.iter().sum();
            if best.as_ref().is_none_or(|b| pot < b.0) {
                best = Some((pot, c, upd));
            }
        }
        if let Some((_, c, upd)) = best {
            centers.extend_from_slice(x.row(c));
            closest = upd;
        }
    }
    centers
}

/// One k-means run: labels per sample.
fn kmeans_once(x: &Features, k: usize, tol: f64, r: &mut rng::Rng) -> Vec<usize> {
    let (n, d) = (x.n, x.d);
    let mut centers = init_plus_plus(x, k, r);
    let mut labels = vec![usize::MAX; n];
    let mut at = Centres::new(&centers, d);
    for _ in 0..MAX_ITER {
        at.set(&centers);
        let (mut sums, mut counts, mut changed) = at.assign(x, &mut labels);
        // an empty cluster takes the point farthest from its centre
        for c in 0..k {
            if counts[c] == 0 {
                let far = (0..n)
                    .map(|i| {
                        (
                            sqdist(x.row(i), &centers[labels[i] * d..(labels[i] + 1) * d]),
                            i,
                        )
                    })
                    .fold((f64::NEG_INFINITY, 0), |a, b| if b.0 > a.0 { b } else { a })
                    .1;
                let old = labels[far];
                counts[old] -= 1;
                for j in 0..d {
                    sums[old * d + j] -= x.row(far)[j];
                }
                labels[far] = c;
                counts[c] = 1;
                sums[c * d..(c + 1) * d].copy_from_slice(x.row(far));
                changed = true;
            }
        }
        let mut shift = 0.0;
        for c in 0..k {
            if counts[c] == 0 {
                continue;
            }
            for j in 0..d {
                let v = sums[c * d + j] / counts[c] as f64;
                shift += (v - centers[c * d + j]).powi(2);
                centers[c * d + j] = v;
            }
        }
        if !changed || shift <= tol {
            break;
        }
    }
    labels
}

/// Run k-means `restarts` times (each seeded from `seed` and its restart index, run in
/// parallel) and return each run's NMI against `y`. Callers report the median.
pub fn kmeans_nmi(
    x: &[f32],
    n: usize,
    d: usize,
    y: &[u32],
    k: usize,
    restarts: usize,
    seed: u64,
) -> Result<Vec<f64>> {
    super::check_embeddings(x, n, d)?;
    if y.len() != n {
        return Err(Error::Input(format!(
            "{} labels for {n} embeddings",
            y.len()
        )));
    }
    if k == 0 || k > n {
        return Err(Error::Config(format!(
            "k-means needs 1 ≤ k ≤ n, got k = {k}, n = {n}"
        )));
    }
    let f = Features::from_f32(x, n, d);
    // scikit-learn scales the tolerance by the mean per-feature variance
    let mut var_sum = 0.0;
    for j in 0..d {
        let mean = (0..n).map(|i| f.data[i * d + j]).sum::<f64>() / n as f64;
        var_sum += (0..n)
            .map(|i| (f.data[i * d + j] - mean).powi(2))
            .sum::<f64>()
            / n as f64;
    }
    let tol = TOL * var_sum / d.max(1) as f64;
    let out = (0..restarts)
        .into_par_iter()
        .map(|r| {
            let mut g = rng::stream(seed, &[streams::EVAL, 0x6b6d_6561_6e73, r as u64]);
            let labels = kmeans_once(&f, k, tol, &mut g);
            let pred: Vec<u32> = labels.iter().map(|&l| l as u32).collect();
            nmi(y, &pred)
        })
        .collect();
    Ok(out)
}

fn encode(v: &[u32]) -> (Vec<usize>, usize) {
    let mut u: Vec<u32> = v.to_vec();
    u.sort_unstable();
    u.dedup();
    let enc = v.iter().map(|x| u.binary_search(x).unwrap_or(0)).collect();
    (enc, u.len())
}

fn entropy(counts: &[usize], total: f64) -> f64 {
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / total;
            -p * p.ln()
        })
        .sum()
}

/// Normalised mutual information, arithmetic mean of the two entropies as normaliser
/// (natural log). Two single-cluster labelings give 1; zero mutual information gives 0.
/// Labelings of different lengths give 0 for the shorter overlap (callers check lengths).
pub fn nmi(truth: &[u32], pred: &[u32]) -> f64 {
    let n = truth.len().min(pred.len());
    let (a, ka) = encode(&truth[..n]);
    let (b, kb) = encode(&pred[..n]);
    if (ka == 1 && kb == 1) || n == 0 {
        return 1.0;
    }
    let mut cont = vec![0usize; ka * kb];
    let mut ca = vec![0usize; ka];
    let mut cb = vec![0usize; kb];
    for i in 0..n {
        cont[a[i] * kb + b[i]] += 1;
        ca[a[i]] += 1;
        cb[b[i]] += 1;
    }
    let total = n as f64;
    let mut mi = 0.0;
    for i in 0..ka {
        for j in 0..kb {
            let nij = cont[i * kb + j];
            if nij > 0 {
                let nij = nij as f64;
                mi += nij / total * (total * nij / (ca[i] as f64 * cb[j] as f64)).ln();
            }
        }
    }
    let mi = mi.max(0.0);
    if mi == 0.0 {
        return 0.0;
    }
    let norm = 0.5 * (entropy(&ca, total) + entropy(&cb, total));
    mi / norm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nmi_hand_computed() {
        // identical up to renaming
        assert!((nmi(&[0, 0, 1, 1], &[5, 5, 2, 2]) - 1.0).abs() < 1e-12);
        // independent: every cell of the 2×2 table has count 1
        assert_eq!(nmi(&[0, 0, 1, 1], &[0, 1, 0, 1]), 0.0);
        // single cluster both sides
        assert_eq!(nmi(&[3, 3, 3], &[1, 1, 1]), 1.0);
        // truth {0,0,1,1}, pred {0,0,0,1}: H(U) = ln 2, H(V) = −¾ln¾ − ¼ln¼,
        // MI = ½ln(4/3)·... computed cell by cell:
        // n00 = 2: 2/4·ln(4·2/(2·3)); n10 = 1: 1/4·ln(4·1/(2·3)); n11 = 1: 1/4·ln(4·1/(2·1))
        let mi = 0.5 * (8.0f64 / 6.0).ln() + 0.25 * (4.0f64 / 6.0).ln() + 0.25 * 2.0f64.ln();
        let hu = 2.0f64.ln();
        let hv = -0.75 * 0.75f64.ln() - 0.25 * 0.25f64.ln();
        let want = mi / (0.5 * (hu + hv));
        assert!((nmi(&[0, 0, 1, 1], &[0, 0, 0, 1]) - want).abs() < 1e-12);
    }

    /// The plain loop the blocked layout replaces: the nearest centre, first of equals.
    fn nearest_plain(x: &[f64], centers: &[f64], d: usize) -> usize {
        let mut best = 0;
        let mut bd = f64::INFINITY;
        for (c, center) in centers.chunks_exact(d).enumerate() {
            let dd = sqdist(x, center);
            if dd < bd {
                bd = dd;
                best = c;
            }
        }
        best
    }

    #[test]
    fn blocked_distances_have_the_bits_of_the_plain_loop() {
        let mut r = rng::stream(11, &[1]);
        // k across block boundaries (1, 7, 8, 9, 17), d from 1 to a Cora-sized 128
        for &(k, d) in &[(1, 1), (7, 128), (8, 3), (9, 33), (17, 5), (3, 64)] {
            let mut centers: Vec<f64> = (0..k * d).map(|_| r.gen_range(-3.0..3.0)).collect();
            if k > 2 {
                // an exact tie: the first of two equal centres wins, as in the plain loop
                let (a, b) = centers.split_at_mut(d);
                b[d..2 * d].copy_from_slice(a);
            }
            let mut at = Centres::new(&centers, d);
            let mut buf = vec![0.0; k];
            let mut out = vec![0.0; k];
            for round in 0..2 {
                if round == 1 {
                    // refilled in place, as each Lloyd iteration does
                    centers.iter_mut().for_each(|v| *v *= 0.5);
                    at.set(&centers);
                }
                for _ in 0..50 {
                    let x: Vec<f64> = (0..d).map(|_| r.gen_range(-3.0..3.0)).collect();
                    at.distances(&x, &mut out);
                    for (c, &got) in out.iter().enumerate() {
                        let want = sqdist(&x, &centers[c * d..(c + 1) * d]);
                        assert_eq!(got.to_bits(), want.to_bits(), "k {k} d {d} centre {c}");
                    }
                    assert_eq!(at.nearest(&x, &mut buf), nearest_plain(&x, &centers, d));
                    if k > 2 {
                        // a point on the duplicated centre: centre 0 (not 2) is nearest
                        assert_eq!(at.nearest(&centers[..d], &mut buf), 0);
                    }
                }
            }
        }
    }

    #[test]
    fn fused_assignment_matches_the_two_plain_passes() {
        let mut r = rng::stream(12, &[2]);
        for &(n, k, d) in &[(300, 7, 128), (50, 9, 3), (10, 1, 5)] {
            let data: Vec<f64> = (0..n * d).map(|_| r.gen_range(-1.0..1.0)).collect();
            let x = Features { n, d, data };
            let centers: Vec<f64> = (0..k * d).map(|_| r.gen_range(-1.0..1.0)).collect();
            // the plain passes: nearest centre per point, then sums and counts
            let mut want = vec![usize::MAX; n];
            want[0] = nearest_plain(x.row(0), &centers, d); // one label already right
            let mut want_changed = false;
            for (i, l) in want.iter_mut().enumerate() {
                let best = nearest_plain(x.row(i), &centers, d);
                want_changed |= *l != best;
                *l = best;
            }
            let (mut want_sums, mut want_counts) = (vec![0.0; k * d], vec![0usize; k]);
            for i in 0..n {
                want_counts[want[i]] += 1;
                for (s, v) in want_sums[want[i] * d..(want[i] + 1) * d]
                    .iter_mut()
                    .zip(x.row(i))
                {
                    *s += v;
                }
            }
            let at = Centres::new(&centers, d);
            // through the dispatch (AVX2 where the CPU has it) and the portable body
            for avx in [true, false] {
                let mut labels = vec![usize::MAX; n];
                labels[0] = want[0];
                let (sums, counts, changed) = if avx {
                    at.assign(&x, &mut labels)
                } else {
                    at.assign_with(&x, &mut labels)
                };
                assert_eq!(changed, want_changed);
                assert_eq!(labels, want);
                assert_eq!(counts, want_counts);
                let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&sums), bits(&want_sums), "n {n} k {k} d {d}");
            }
        }
    }

    #[test]
    fn kmeans_finds_well_separated_blobs() {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for c in 0..3u32 {
            for i in 0..30 {
                let t = i as f32 * 0.01;
                x.extend_from_slice(&[c as f32 * 10.0 + t, -(c as f32) * 5.0 - t]);
                y.push(c);
            }
        }
        let a = kmeans_nmi(&x, 90, 2, &y, 3, 5, 7).unwrap();
        let b = kmeans_nmi(&x, 90, 2, &y, 3, 5, 7).unwrap();
        assert_eq!(a, b);
        assert!(a.iter().all(|&v| (v - 1.0).abs() < 1e-12), "{a:?}");
        assert!(kmeans_nmi(&x, 90, 2, &y, 0, 5, 7).is_err());
    }
}
