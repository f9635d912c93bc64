//! Cross-validation fold assignments.
//!
//! Every function returns one fold index per sample (`0..k`). Three flavours:
//!
//! * [`stratified_kfold`]: stratified and shuffled, seeded through [`crate::rng`] — the
//!   outer folds of the GraphCL/SimGRACE protocol.
//! * [`kfold`]: shuffled, not stratified — AD-GCL's outer folds.
//! * [`sklearn_stratified_kfold`]: an exact replica of scikit-learn's *unshuffled*
//!   `StratifiedKFold(n_splits)`, which is what `GridSearchCV(cv=5)` uses for the inner
//!   cross-validation of a classifier. Agreement is checked against scikit-learn in
//!   `tests/eval_agreement.rs`.
use rand::seq::SliceRandom;

use crate::error::{Error, Result};
use crate::rng::{self, streams};

/// Classes in order of first appearance and each sample's class in that encoding.
fn encode_by_appearance(y: &[u32]) -> (Vec<u32>, Vec<usize>) {
    let mut classes: Vec<u32> = Vec::new();
    let mut enc = Vec::with_capacity(y.len());
    for &v in y {
        let c = match classes.iter().position(|&c| c == v) {
            Some(c) => c,
            None => {
                classes.push(v);
                classes.len() - 1
            }
        };
        enc.push(c);
    }
    (classes, enc)
}

/// How many samples of each class go into each test fold: scikit-learn's round robin over
/// the sorted (appearance-encoded) labels, `allocation[fold][class]`.
fn allocation(enc: &[usize], n_classes: usize, k: usize) -> Vec<Vec<usize>> {
    let mut counts = vec![0usize; n_classes];
    for &c in enc {
        counts[c] += 1;
    }
    let mut alloc = vec![vec![0usize; n_classes]; k];
    // position p of the sorted label vector goes to fold p % k
    let mut p = 0usize;
    for (c, &cnt) in counts.iter().enumerate() {
        for _ in 0..cnt {
            alloc[p % k][c] += 1;
            p += 1;
        }
    }
    alloc
}

fn check_k(n: usize, k: usize) -> Result<()> {
    if k < 2 {
        return Err(Error::Config(format!("need at least 2 folds, got {k}")));
    }
    if n < k {
        return Err(Error::Input(format!(
            "cannot split {n} samples into {k} folds"
        )));
    }
    Ok(())
}

/// Stratified fold assignment; `shuffle = None` is scikit-learn's unshuffled order.
fn stratified(y: &[u32], k: usize, shuffle: Option<u64>) -> Result<Vec<usize>> {
    check_k(y.len(), k)?;
    let (classes, enc) = encode_by_appearance(y);
    let alloc = allocation(&enc, classes.len(), k);
    if alloc.iter().all(|row| row.iter().all(|&a| a == 0)) {
        return Err(Error::Input("no samples to split".into()));
    }
    let mut folds = vec![0usize; y.len()];
    for c in 0..classes.len() {
        let mut for_class: Vec<usize> = Vec::new();
        for (f, row) in alloc.iter().enumerate() {
            for _ in 0..row[c] {
                for_class.push(f);
            }
        }
        if let Some(seed) = shuffle {
            let mut r = rng::stream(seed, &[streams::FOLDS, c as u64]);
            for_class.shuffle(&mut r);
        }
        let mut it = for_class.into_iter();
        for (i, &e) in enc.iter().enumerate() {
            if e == c {
                folds[i] = it.next().unwrap_or(0);
            }
        }
    }
    Ok(folds)
}

/// Stratified, shuffled k-fold assignment (fold index per sample), seeded.
///
/// Fold sizes and per-class counts follow scikit-learn's `StratifiedKFold` (classes in
/// order of first appearance, round-robin allocation over the sorted labels); the order of
/// the fold indices within each class is shuffled with a stream derived from `seed`.
pub fn stratified_kfold(y: &[u32], k: usize, seed: u64) -> Result<Vec<usize>> {
    stratified(y, k, Some(seed))
}

/// Exact replica of scikit-learn's unshuffled `StratifiedKFold(n_splits=k)` test-fold
/// assignment: within each class, samples in index order get the folds `0,0,..,1,1,..`
/// in the amounts given by the round-robin allocation.
pub fn sklearn_stratified_kfold(y: &[u32], k: usize) -> Result<Vec<usize>> {
    stratified(y, k, None)
}

/// Shuffled, non-stratified k-fold assignment (scikit-learn `KFold(k, shuffle=True)`
/// fold sizes: the first `n % k` folds have one sample more).
pub fn kfold(n: usize, k: usize, seed: u64) -> Result<Vec<usize>> {
    check_k(n, k)?;
    let mut perm: Vec<usize> = (0..n).collect();
    perm.shuffle(&mut rng::stream(seed, &[streams::FOLDS, u64::MAX]));
    let mut folds = vec![0usize; n];
    let (base, extra) = (n / k, n % k);
    let mut pos = 0;
    for f in 0..k {
        let size = base + usize::from(f < extra);
        for &i in &perm[pos..pos + size] {
            folds[i] = f;
        }
        pos += size;
    }
    Ok(folds)
}

/// Split `idx` at random into (train, validation) with `ceil(frac · len)` validation
/// samples, as scikit-learn's `train_test_split(test_size=frac)` sizes it. Both parts are
/// returned in ascending index order.
pub fn train_val_split(idx: &[usize], frac: f64, seed: u64, key: u64) -> (Vec<usize>, Vec<usize>) {
    let mut perm = idx.to_vec();
    perm.shuffle(&mut rng::stream(seed, &[streams::SPLIT, key]));
    let n_val = ((frac * idx.len() as f64).ceil() as usize).min(idx.len());
    let mut val = perm[..n_val].to_vec();
    let mut train = perm[n_val..].to_vec();
    val.sort_unstable();
    train.sort_unstable();
    (train, val)
}

/// Indices per fold: `out[f]` lists the samples with `folds[i] == f`, ascending.
pub fn members(folds: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); k];
    for (i, &f) in folds.iter().enumerate() {
        if f < k {
            out[f].push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unshuffled_matches_hand_computed_case() {
        // classes by appearance: 5 -> 0 (4 samples), 2 -> 1 (2 samples)
        // sorted encoded labels 0 0 0 0 1 1; round robin over 2 folds:
        // fold 0 gets positions 0,2,4 -> two of class 0, one of class 1; same for fold 1
        let y = [5, 5, 2, 5, 2, 5];
        let f = sklearn_stratified_kfold(&y, 2).unwrap();
        assert_eq!(f, vec![0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn stratified_is_balanced_seeded_and_shuffled() {
        let y: Vec<u32> = (0..100).map(|i| u32::from(i % 3 == 0)).collect();
        let a = stratified_kfold(&y, 10, 1).unwrap();
        let b = stratified_kfold(&y, 10, 1).unwrap();
        let c = stratified_kfold(&y, 10, 2).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        for f in 0..10 {
            let size = a.iter().filter(|&&x| x == f).count();
            assert_eq!(size, 10);
            let pos = (0..100).filter(|&i| a[i] == f && y[i] == 1).count();
            assert!((3..=4).contains(&pos), "fold {f}: {pos}");
        }
    }

    #[test]
    fn kfold_sizes() {
        let f = kfold(23, 5, 0).unwrap();
        let sizes: Vec<usize> = (0..5)
            .map(|k| f.iter().filter(|&&x| x == k).count())
            .collect();
        assert_eq!(sizes, vec![5, 5, 5, 4, 4]);
        assert!(kfold(3, 5, 0).is_err());
    }

    #[test]
    fn split_sizes() {
        let idx: Vec<usize> = (0..11).collect();
        let (t, v) = train_val_split(&idx, 0.2, 3, 0);
        assert_eq!(v.len(), 3);
        assert_eq!(t.len(), 8);
        let mut all = [t, v].concat();
        all.sort_unstable();
        assert_eq!(all, idx);
    }
}
