//! Protocols: how the samples are divided into outer splits (train / validation / test).
//!
//! A [`Protocol`] says nothing about the classifier; an [`crate::evaluator::Evaluator`]
//! fits one split, and [`crate::run_protocol`] joins the two. The protocols magcl uses:
//!
//! | protocol | used by |
//! |---|---|
//! | [`StratifiedKFold`] (10 folds, shuffled, seeded) | GraphCL / SimGRACE |
//! | [`WithValidation`] of [`KFold`] (10 folds; 20 % of each training part held out, seeded) | AD-GCL |
//! | [`GivenFolds`] | `magcl eval --folds` |
//! | [`RandomSplit`] (one random 10/10/80 split) | node level, `node.split = "random"` |
//! | [`FixedSplits`] | node level, `public` / `public-swapped`; any split list |
//!
//! A new protocol is a type implementing [`Protocol`]: it returns the splits, checked
//! (errors say what to change), with indices below `n`.
use crate::cv::Split;
use crate::error::{Error, Result};
use crate::folds::{kfold, stratified_kfold, train_val_split};
use crate::rng::{self, streams};

/// How the outer splits are made.
pub trait Protocol: Send + Sync {
    /// A short name for messages and logs, e.g. `stratified-kfold(10)`.
    fn name(&self) -> String;
    /// The outer splits for `n` samples with labels `y` (`y.len() == n`; the labels are
    /// checked by [`crate::run_protocol`] before this is called), drawn from `seed` where
    /// the protocol is random.
    fn splits(&self, y: &[u32], n: usize, seed: u64) -> Result<Vec<Split>>;
}

impl<P: Protocol + ?Sized> Protocol for Box<P> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn splits(&self, y: &[u32], n: usize, seed: u64) -> Result<Vec<Split>> {
        (**self).splits(y, n, seed)
    }
}

/// Every class must have at least `k` members (an outer fold's training part could
/// otherwise miss a class).
fn check_class_sizes(y: &[u32], k: usize) -> Result<()> {
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for &v in y {
        match counts.iter_mut().find(|(c, _)| *c == v) {
            Some(e) => e.1 += 1,
            None => counts.push((v, 1)),
        }
    }
    counts.sort_unstable();
    if let Some((c, cnt)) = counts.iter().find(|(_, cnt)| *cnt < k) {
        return Err(Error::Input(format!(
            "class {c} has {cnt} member(s), fewer than the {k} folds"
        )));
    }
    Ok(())
}

/// One split per fold of a fold assignment (fold index per sample, `0..k`): the fold is
/// the test part, the other samples (ascending) the training part.
pub fn splits_of_folds(folds: &[usize], k: usize) -> Vec<Split> {
    let n = folds.len();
    (0..k)
        .map(|fold| Split {
            train: (0..n).filter(|&i| folds[i] != fold).collect(),
            val: Vec::new(),
            test: (0..n).filter(|&i| folds[i] == fold).collect(),
        })
        .collect()
}

/// Stratified, shuffled k-fold ([`stratified_kfold`]); every class needs `k` members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StratifiedKFold {
    pub k: usize,
}

impl Protocol for StratifiedKFold {
    fn name(&self) -> String {
        format!("stratified-kfold({})", self.k)
    }
    fn splits(&self, y: &[u32], _n: usize, seed: u64) -> Result<Vec<Split>> {
        check_class_sizes(y, self.k)?;
        Ok(splits_of_folds(&stratified_kfold(y, self.k, seed)?, self.k))
    }
}

/// Shuffled, not stratified k-fold ([`kfold`], scikit-learn's `KFold(k, shuffle=True)`
/// sizes). Like [`StratifiedKFold`] it asks every class for `k` members, as AD-GCL's
/// protocol always has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KFold {
    pub k: usize,
}

impl Protocol for KFold {
    fn name(&self) -> String {
        format!("kfold({})", self.k)
    }
    fn splits(&self, y: &[u32], n: usize, seed: u64) -> Result<Vec<Split>> {
        check_class_sizes(y, self.k)?;
        Ok(splits_of_folds(&kfold(n, self.k, seed)?, self.k))
    }
}

/// Fold indices given by the user, one per sample (`0..k` without gaps); no randomness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenFolds {
    pub folds: Vec<usize>,
}

impl Protocol for GivenFolds {
    fn name(&self) -> String {
        "given-folds".into()
    }
    fn splits(&self, _y: &[u32], n: usize, _seed: u64) -> Result<Vec<Split>> {
        let k = check_folds(&self.folds, n)?;
        Ok(splits_of_folds(&self.folds, k))
    }
}

/// Validate user-given fold indices; returns the number of folds.
fn check_folds(folds: &[usize], n: usize) -> Result<usize> {
    if folds.len() != n {
        return Err(Error::Input(format!(
            "{} fold indices for {n} samples",
            folds.len()
        )));
    }
    // Checked before the per-fold counts are allocated: without gaps, every fold index
    // is below the number of samples.
    if let Some((i, f)) = folds.iter().enumerate().find(|(_, &f)| f >= n) {
        return Err(Error::Input(format!(
            "fold index {f} of sample {i} is not below the number of samples ({n}); fold indices must be 0..k without gaps"
        )));
    }
    let k = folds.iter().copied().max().map_or(0, |m| m + 1);
    if k < 2 {
        return Err(Error::Config(format!("need at least 2 folds, got {k}")));
    }
    let mut sizes = vec![0usize; k];
    for &f in folds {
        sizes[f] += 1;
    }
    if let Some(f) = sizes.iter().position(|&s| s == 0) {
        return Err(Error::Input(format!(
            "fold {f} is empty (fold indices must be 0..{k} without gaps)"
        )));
    }
    Ok(k)
}

/// The splits of `outer`, each training part divided at random (seeded per split,
/// [`train_val_split`]) into train and validation, `fraction` of it validation — AD-GCL's
/// protocol with `outer` = [`KFold`] of 10 and `fraction` = [`crate::VAL_FRACTION`]. The
/// outer splits must have no validation part of their own.
#[derive(Clone, Debug, PartialEq)]
pub struct WithValidation<P> {
    pub outer: P,
    pub fraction: f64,
}

impl<P: Protocol> Protocol for WithValidation<P> {
    fn name(&self) -> String {
        format!("{}+validation({})", self.outer.name(), self.fraction)
    }
    fn splits(&self, y: &[u32], n: usize, seed: u64) -> Result<Vec<Split>> {
        if !(self.fraction > 0.0 && self.fraction < 1.0) {
            return Err(Error::Config(format!(
                "the validation fraction must lie strictly between 0 and 1, got {}",
                self.fraction
            )));
        }
        self.outer
            .splits(y, n, seed)?
            .into_iter()
            .enumerate()
            .map(|(fold, s)| {
                if !s.val.is_empty() {
                    return Err(Error::Input(format!(
                        "{}: outer split {fold} already has a validation part",
                        self.outer.name()
                    )));
                }
                let (train, val) = train_val_split(&s.train, self.fraction, seed, fold as u64);
                Ok(Split {
                    train,
                    val,
                    test: s.test,
                })
            })
            .collect()
    }
}

/// Splits fixed in advance (e.g. a dataset's public split); the seed plays no part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedSplits {
    pub name: String,
    pub splits: Vec<Split>,
}

impl Protocol for FixedSplits {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn splits(&self, _y: &[u32], n: usize, _seed: u64) -> Result<Vec<Split>> {
        if self.splits.is_empty() {
            return Err(Error::Input(format!("{}: no splits given", self.name)));
        }
        check_indices(&self.splits, n, |k| format!("{} split {k}", self.name))?;
        Ok(self.splits.clone())
    }
}

/// Every index of every split is below `n`; the error names the split as `name(k)` does.
pub(crate) fn check_indices(
    splits: &[Split],
    n: usize,
    name: impl Fn(usize) -> String,
) -> Result<()> {
    for (k, s) in splits.iter().enumerate() {
        if let Some(&i) = s
            .train
            .iter()
            .chain(&s.val)
            .chain(&s.test)
            .find(|&&i| i >= n)
        {
            return Err(Error::Input(format!(
                "{}: sample index {i} out of range (n = {n})",
                name(k)
            )));
        }
    }
    Ok(())
}

/// One random split of the `n` samples into train ⌊n/10⌋, validation ⌊n/10⌋ and test
/// (the rest), drawn from `seed` — the node-level `random` split.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RandomSplit;

impl Protocol for RandomSplit {
    fn name(&self) -> String {
        "random-10/10/80".into()
    }
    fn splits(&self, _y: &[u32], n: usize, seed: u64) -> Result<Vec<Split>> {
        Ok(vec![random_split(n, seed)])
    }
}

/// [`RandomSplit`]'s split: the nodes shuffled by the seed's split stream, the first
/// ⌊n/10⌋ train, the next ⌊n/10⌋ validation, the rest test.
pub fn random_split(n: usize, seed: u64) -> Split {
    use rand::seq::SliceRandom;
    // drawn over u32 node ids, as the node level always has
    let mut perm: Vec<u32> = (0..n as u32).collect();
    perm.shuffle(&mut rng::stream(seed, &[streams::SPLIT]));
    let t = n / 10;
    let us = |v: &[u32]| v.iter().map(|&i| i as usize).collect::<Vec<usize>>();
    Split {
        train: us(&perm[..t]),
        val: us(&perm[t..2 * t]),
        test: us(&perm[2 * t..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index 0..n in exactly one part of every split; no split empty of test.
    fn assert_partition(splits: &[Split], n: usize) {
        for (k, s) in splits.iter().enumerate() {
            let mut all: Vec<usize> = [s.train.clone(), s.val.clone(), s.test.clone()].concat();
            all.sort_unstable();
            assert_eq!(all, (0..n).collect::<Vec<_>>(), "split {k}");
            assert!(!s.test.is_empty(), "split {k}");
        }
    }

    /// Every sample is tested exactly once over the splits.
    fn assert_tested_once(splits: &[Split], n: usize) {
        let mut tested = vec![0usize; n];
        for s in splits {
            for &i in &s.test {
                tested[i] += 1;
            }
        }
        assert!(tested.iter().all(|&t| t == 1), "{tested:?}");
    }

    fn labels() -> Vec<u32> {
        // 3 classes of 40, 25 and 35 samples, interleaved
        (0..100u32)
            .map(|i| match i % 4 {
                0 | 1 if i < 80 => 0,
                2 => 1,
                _ => 2,
            })
            .collect()
    }

    #[test]
    fn stratified_kfold_partitions_stratifies_and_is_seeded() {
        let y = labels();
        let p = StratifiedKFold { k: 10 };
        let a = p.splits(&y, 100, 7).unwrap();
        assert_eq!(a.len(), 10);
        assert_partition(&a, 100);
        assert_tested_once(&a, 100);
        // each class's members spread over the test folds as evenly as they can
        let classes = [0u32, 1, 2];
        for c in classes {
            let total = y.iter().filter(|&&v| v == c).count();
            for s in &a {
                let in_fold = s.test.iter().filter(|&&i| y[i] == c).count();
                assert!(
                    in_fold == total / 10 || in_fold == total.div_ceil(10),
                    "class {c}: {in_fold} of {total} in one fold"
                );
            }
        }
        assert_eq!(a, p.splits(&y, 100, 7).unwrap());
        assert_ne!(a, p.splits(&y, 100, 8).unwrap());
        // the training parts are ascending (what WithValidation's seeded split relies on)
        assert!(a.iter().all(|s| s.train.windows(2).all(|w| w[0] < w[1])));
    }

    #[test]
    fn kfold_with_validation_partitions_and_is_seeded() {
        let y = labels();
        let p = WithValidation {
            outer: KFold { k: 10 },
            fraction: 0.2,
        };
        let a = p.splits(&y, 100, 3).unwrap();
        assert_partition(&a, 100);
        assert_tested_once(&a, 100);
        for s in &a {
            // 90 training samples: ceil(0.2 · 90) = 18 validate, 72 train
            assert_eq!((s.train.len(), s.val.len(), s.test.len()), (72, 18, 10));
        }
        assert_eq!(a, p.splits(&y, 100, 3).unwrap());
        assert_ne!(a, p.splits(&y, 100, 4).unwrap());
        // the outer folds are KFold's, the validation part is drawn inside each
        let outer = KFold { k: 10 }.splits(&y, 100, 3).unwrap();
        for (s, o) in a.iter().zip(&outer) {
            assert_eq!(s.test, o.test);
        }
        assert!(p.name().contains("kfold(10)"));
    }

    #[test]
    fn given_folds_by_hand() {
        let p = GivenFolds {
            folds: vec![1, 0, 1, 2, 0, 2],
        };
        let s = p.splits(&[0, 1, 0, 1, 0, 1], 6, 99).unwrap();
        assert_eq!(
            s,
            vec![
                Split {
                    train: vec![0, 2, 3, 5],
                    val: vec![],
                    test: vec![1, 4]
                },
                Split {
                    train: vec![1, 3, 4, 5],
                    val: vec![],
                    test: vec![0, 2]
                },
                Split {
                    train: vec![0, 1, 2, 4],
                    val: vec![],
                    test: vec![3, 5]
                },
            ]
        );
        let gap = GivenFolds {
            folds: vec![0, 0, 2, 2],
        };
        let e = gap.splits(&[0, 1, 0, 1], 4, 0).unwrap_err().to_string();
        assert!(e.contains("fold 1 is empty"), "{e}");
    }

    #[test]
    fn too_small_a_class_is_refused_by_name() {
        let y: Vec<u32> = (0..30).map(|i| u32::from(i < 4)).collect();
        for p in [
            &StratifiedKFold { k: 5 } as &dyn Protocol,
            &KFold { k: 5 } as &dyn Protocol,
        ] {
            let e = p.splits(&y, 30, 0).unwrap_err().to_string();
            assert!(e.contains("class 1 has 4 member(s)"), "{}: {e}", p.name());
        }
    }

    #[test]
    fn random_split_sizes_partition_and_seed() {
        let s = RandomSplit.splits(&[], 2708, 4).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].train.len(), s[0].val.len(), s[0].test.len()),
            (270, 270, 2168)
        );
        assert_partition(&s, 2708);
        assert_eq!(s[0], random_split(2708, 4));
        assert_ne!(s[0], random_split(2708, 5));
    }

    #[test]
    fn fixed_splits_are_returned_as_given_and_checked() {
        let split = Split {
            train: vec![0, 1],
            val: vec![2],
            test: vec![3, 4],
        };
        let p = FixedSplits {
            name: "public".into(),
            splits: vec![split.clone()],
        };
        assert_eq!(p.splits(&[], 5, 1).unwrap(), vec![split.clone()]);
        assert_eq!(p.splits(&[], 5, 2).unwrap(), vec![split]);
        let e = p.splits(&[], 4, 0).unwrap_err().to_string();
        assert!(e.contains("index 4 out of range"), "{e}");
    }
}
