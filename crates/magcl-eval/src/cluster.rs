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
        let mut best: Option<(f64, usize, Vec<f64>)> = None;
        for &c in &cand {
            let upd: Vec<f64> = (0..n)
                .map(|i| closest[i].min(sqdist(x.row(i), x.row(c))))
                .collect();
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
    for _ in 0..MAX_ITER {
        let mut changed = false;
        for (i, label) in labels.iter_mut().enumerate() {
            let xi = x.row(i);
            let mut best = 0;
            let mut bd = f64::INFINITY;
            for (c, center) in centers.chunks_exact(d).enumerate() {
                let dd = sqdist(xi, center);
                if dd < bd {
                    bd = dd;
                    best = c;
                }
            }
            if *label != best {
                *label = best;
                changed = true;
            }
        }
        let mut sums = vec![0.0; k * d];
        let mut counts = vec![0usize; k];
        for i in 0..n {
            counts[labels[i]] += 1;
            for (s, v) in sums[labels[i] * d..(labels[i] + 1) * d]
                .iter_mut()
                .zip(x.row(i))
            {
                *s += v;
            }
        }
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
        return Err(Error::Config(format!(
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
