//! # magcl-eval — embedding evaluators and statistics, without tensors
//!
//! The protocols the graph-level papers use to score frozen
//! embeddings, re-implemented in pure Rust and checked against scikit-learn.
//!
//! | evaluator | protocol |
//! |---|---|
//! | [`Evaluator::SvcRbf`] | GraphCL / SimGRACE: stratified 10-fold CV (shuffled, seeded); per fold, C ∈ {10⁻³ … 10³} by inner stratified 5-fold CV (scikit-learn's unshuffled split) of an RBF `SVC()` with `gamma='scale'`; refit on the training part; no feature scaling |
//! | [`Evaluator::LinearSvc`] | AD-GCL: features standardised on the training part; `LinearSVC(dual=False)`; same grid and inner CV |
//! | [`Evaluator::LogReg`] | as `LinearSvc` with L2 logistic regression (`LogisticRegression(C)`) |
//!
//! [`evaluate`] runs the plain protocol (score = mean test accuracy over the outer folds);
//! [`evaluate_with_validation`] runs AD-GCL's: `KFold(10)` (shuffled, not stratified),
//! the training folds split 80/20 into train/validation, both scores reported so the
//! caller can select an epoch by validation accuracy only.
//!
//! Nothing here panics on user data: lengths, non-finite values, too few classes and too
//! small classes are reported as errors.
//!
//! [`stats`] holds the statistics of the report (summaries, intervals, paired tests,
//! power).
use std::fmt;
use std::str::FromStr;

pub use crate::error::{Error, Result};

// The paths the modules were written with (`crate::error`, `crate::rng`, `crate::files`).
pub(crate) use magcl_core::{error, files, rng};

pub mod cluster;
pub mod cv;
pub mod folds;
pub mod linalg;
pub mod linear;
pub mod newton;
pub mod npy;
pub mod rbf_exp;
pub mod smo;
/// The SMO solver's test oracle (kept out of the library, in `tests/oracle/`).
#[cfg(test)]
#[path = "../tests/oracle/smo_reference.rs"]
mod smo_reference;
pub mod stats;
pub mod svc;

pub use cluster::{kmeans_nmi, nmi};
pub use cv::{FoldOutcome, Split};
pub use folds::{kfold, sklearn_stratified_kfold, stratified_kfold};

/// The C grid every evaluator searches (GraphCL, SimGRACE and AD-GCL use the same).
pub const C_GRID: [f64; 7] = [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3];
/// Inner CV folds of the grid search (`GridSearchCV(cv=5)`).
pub const INNER_FOLDS: usize = 5;
/// Outer folds when none are given.
pub const OUTER_FOLDS: usize = 10;
/// Share of the training folds held out for validation in [`evaluate_with_validation`].
pub const VAL_FRACTION: f64 = 0.2;

/// Which classifier scores the embeddings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Evaluator {
    /// RBF-kernel SVM, no scaling (GraphCL / SimGRACE).
    #[serde(rename = "svc-rbf")]
    SvcRbf,
    /// Standardised features, linear SVM with squared hinge loss (AD-GCL).
    #[serde(rename = "linear-svc")]
    LinearSvc,
    /// Standardised features, L2 logistic regression.
    #[serde(rename = "logreg")]
    LogReg,
}

impl Evaluator {
    pub const ALL: [Evaluator; 3] = [Evaluator::SvcRbf, Evaluator::LinearSvc, Evaluator::LogReg];

    pub fn name(self) -> &'static str {
        match self {
            Evaluator::SvcRbf => "svc-rbf",
            Evaluator::LinearSvc => "linear-svc",
            Evaluator::LogReg => "logreg",
        }
    }
}

impl fmt::Display for Evaluator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Evaluator {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Evaluator::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| {
                Error::Config(format!(
                    "unknown evaluator {s:?}; expected one of svc-rbf, linear-svc, logreg"
                ))
            })
    }
}

/// Scores of one cross-validated evaluation.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CvResult {
    /// Mean test accuracy over the outer folds, in percent.
    pub accuracy: f64,
    /// Sample standard deviation (ddof = 1) of the per-fold test accuracies, in percent;
    /// 0 for a single fold.
    pub std: f64,
    /// Test accuracy of each outer fold, in percent.
    pub fold_accuracies: Vec<f64>,
    /// Validation accuracy of each outer fold (percent), for the validation protocol.
    pub fold_val_accuracies: Option<Vec<f64>>,
    /// Mean validation accuracy (percent), for the validation protocol.
    pub val_accuracy: Option<f64>,
    /// The C chosen by the inner grid search in each outer fold.
    pub best_c: Vec<f64>,
    /// Correct test predictions and test-fold sizes (for exact comparisons).
    pub fold_correct: Vec<usize>,
    pub fold_sizes: Vec<usize>,
}

/// Check that `x` holds `n × d` finite values; the error names the first bad row.
pub fn check_embeddings(x: &[f32], n: usize, d: usize) -> Result<()> {
    if n.checked_mul(d) != Some(x.len()) {
        return Err(Error::Config(format!(
            "embeddings hold {} values, expected n × d = {n} × {d}",
            x.len()
        )));
    }
    if n == 0 || d == 0 {
        return Err(Error::Config(format!("embeddings are empty ({n} × {d})")));
    }
    for (i, row) in x.chunks_exact(d).enumerate() {
        if let Some(j) = row.iter().position(|v| !v.is_finite()) {
            return Err(Error::Numeric(format!(
                "embedding row {i} has a non-finite value ({}) in column {j}",
                row[j]
            )));
        }
    }
    Ok(())
}

fn check_labels(y: &[u32], n: usize) -> Result<Vec<(u32, usize)>> {
    if y.len() != n {
        return Err(Error::Config(format!(
            "{} labels for {n} embeddings",
            y.len()
        )));
    }
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for &v in y {
        match counts.iter_mut().find(|(c, _)| *c == v) {
            Some(e) => e.1 += 1,
            None => counts.push((v, 1)),
        }
    }
    counts.sort_unstable();
    if counts.len() < 2 {
        return Err(Error::Config(format!(
            "need at least 2 classes, the labels hold {}",
            counts.len()
        )));
    }
    Ok(counts)
}

fn check_class_sizes(counts: &[(u32, usize)], k: usize) -> Result<()> {
    if let Some((c, cnt)) = counts.iter().find(|(_, cnt)| *cnt < k) {
        return Err(Error::Config(format!(
            "class {c} has {cnt} member(s), fewer than the {k} folds"
        )));
    }
    Ok(())
}

/// Validate user-given fold indices; returns the number of folds.
fn check_folds(folds: &[usize], n: usize) -> Result<usize> {
    if folds.len() != n {
        return Err(Error::Config(format!(
            "{} fold indices for {n} samples",
            folds.len()
        )));
    }
    // Checked before the per-fold counts are allocated: without gaps, every fold index
    // is below the number of samples.
    if let Some((i, f)) = folds.iter().enumerate().find(|(_, &f)| f >= n) {
        return Err(Error::Config(format!(
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
        return Err(Error::Config(format!(
            "fold {f} is empty (fold indices must be 0..{k} without gaps)"
        )));
    }
    Ok(k)
}

fn check_split(y: &[u32], s: &Split, fold: usize) -> Result<()> {
    if s.train.len() < INNER_FOLDS {
        return Err(Error::Config(format!(
            "outer fold {fold}: {} training samples, fewer than the {INNER_FOLDS} inner folds",
            s.train.len()
        )));
    }
    let first = y[s.train[0]];
    if s.train.iter().all(|&i| y[i] == first) {
        return Err(Error::Config(format!(
            "outer fold {fold}: the training part holds only class {first}"
        )));
    }
    if s.test.is_empty() {
        return Err(Error::Config(format!("outer fold {fold}: empty test part")));
    }
    Ok(())
}

fn summarize(outcomes: &[FoldOutcome], splits: &[Split], with_val: bool) -> CvResult {
    let pct = |c: usize, n: usize| 100.0 * c as f64 / n.max(1) as f64;
    let fold_accuracies: Vec<f64> = outcomes
        .iter()
        .zip(splits)
        .map(|(o, s)| pct(o.test_correct, s.test.len()))
        .collect();
    let (accuracy, std) = mean_std(&fold_accuracies);
    let (fold_val_accuracies, val_accuracy) = if with_val {
        let v: Vec<f64> = outcomes
            .iter()
            .zip(splits)
            .map(|(o, s)| pct(o.val_correct, s.val.len()))
            .collect();
        let m = mean_std(&v).0;
        (Some(v), Some(m))
    } else {
        (None, None)
    };
    CvResult {
        accuracy,
        std,
        fold_accuracies,
        fold_val_accuracies,
        val_accuracy,
        best_c: outcomes.iter().map(|o| o.best_c).collect(),
        fold_correct: outcomes.iter().map(|o| o.test_correct).collect(),
        fold_sizes: splits.iter().map(|s| s.test.len()).collect(),
    }
}

/// Mean and sample standard deviation (ddof = 1; 0 for fewer than two values).
pub fn mean_std(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    if v.len() < 2 {
        return (m, 0.0);
    }
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64;
    (m, var.sqrt())
}

/// Run the nested protocol on explicit splits. `standardize`: fit a standard scaler on
/// each split's training part first (what `evaluate` does for the linear evaluators and
/// `evaluate_with_validation` for all). Validation accuracies are reported when any split
/// has a validation part.
pub fn evaluate_splits(
    ev: Evaluator,
    x: &[f32],
    n: usize,
    d: usize,
    y: &[u32],
    splits: &[Split],
    standardize: bool,
) -> Result<CvResult> {
    check_embeddings(x, n, d)?;
    check_labels(y, n)?;
    if splits.is_empty() {
        return Err(Error::Config("no outer splits given".into()));
    }
    for (k, s) in splits.iter().enumerate() {
        if let Some(&i) = s
            .train
            .iter()
            .chain(&s.val)
            .chain(&s.test)
            .find(|&&i| i >= n)
        {
            return Err(Error::Config(format!(
                "outer fold {k}: sample index {i} out of range (n = {n})"
            )));
        }
        check_split(y, s, k)?;
    }
    let f = linalg::Features::from_f32(x, n, d);
    let outcomes = cv::run_splits(ev, &f, y, splits, standardize)?;
    let with_val = splits.iter().any(|s| !s.val.is_empty());
    Ok(summarize(&outcomes, splits, with_val))
}

/// Evaluate embeddings `x` (`n × d`, row-major) with labels `y` by the plain protocol:
/// outer folds `folds` (fold index per sample) or, if `None`, stratified 10-fold CV
/// shuffled with `seed`; per fold grid-search C by inner stratified 5-fold CV on the
/// training part, refit, score the held-out fold. `svc-rbf` uses raw features; the
/// linear evaluators standardise on each training part.
pub fn evaluate(
    ev: Evaluator,
    x: &[f32],
    n: usize,
    d: usize,
    y: &[u32],
    folds: Option<&[usize]>,
    seed: u64,
) -> Result<CvResult> {
    check_embeddings(x, n, d)?;
    let counts = check_labels(y, n)?;
    let (folds, k) = match folds {
        Some(f) => {
            let k = check_folds(f, n)?;
            (f.to_vec(), k)
        }
        None => {
            check_class_sizes(&counts, OUTER_FOLDS)?;
            (stratified_kfold(y, OUTER_FOLDS, seed)?, OUTER_FOLDS)
        }
    };
    let splits: Vec<Split> = (0..k)
        .map(|fold| Split {
            train: (0..n).filter(|&i| folds[i] != fold).collect(),
            val: Vec::new(),
            test: (0..n).filter(|&i| folds[i] == fold).collect(),
        })
        .collect();
    evaluate_splits(ev, x, n, d, y, &splits, ev != Evaluator::SvcRbf)
}

/// AD-GCL's protocol: outer folds `folds` or, if `None`, `KFold(10)` shuffled with `seed`
/// (not stratified); in each fold the training folds are split at random (seeded, 80/20)
/// into train and validation; features standardised on the train part; grid search and
/// fit on the train part; validation and test accuracy reported. Select epochs by
/// [`CvResult::val_accuracy`], never by the test accuracy.
pub fn evaluate_with_validation(
    ev: Evaluator,
    x: &[f32],
    n: usize,
    d: usize,
    y: &[u32],
    folds: Option<&[usize]>,
    seed: u64,
) -> Result<CvResult> {
    check_embeddings(x, n, d)?;
    let counts = check_labels(y, n)?;
    let (folds, k) = match folds {
        Some(f) => {
            let k = check_folds(f, n)?;
            (f.to_vec(), k)
        }
        None => {
            check_class_sizes(&counts, OUTER_FOLDS)?;
            (kfold(n, OUTER_FOLDS, seed)?, OUTER_FOLDS)
        }
    };
    let splits: Vec<Split> = (0..k)
        .map(|fold| {
            let rest: Vec<usize> = (0..n).filter(|&i| folds[i] != fold).collect();
            let (train, val) = folds::train_val_split(&rest, VAL_FRACTION, seed, fold as u64);
            Split {
                train,
                val,
                test: (0..n).filter(|&i| folds[i] == fold).collect(),
            }
        })
        .collect();
    evaluate_splits(ev, x, n, d, y, &splits, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_names() {
        for e in Evaluator::ALL {
            assert_eq!(e.name().parse::<Evaluator>().unwrap(), e);
        }
        assert!("svm".parse::<Evaluator>().is_err());
    }

    #[test]
    fn errors_name_the_problem() {
        let x = vec![0.0f32; 20 * 2];
        let y: Vec<u32> = (0..20).map(|i| u32::from(i < 15)).collect();
        let e = evaluate(Evaluator::SvcRbf, &x, 20, 2, &y, None, 0).unwrap_err();
        assert!(e.to_string().contains("class 0 has 5 member(s)"), "{e}");
        let e = evaluate(Evaluator::SvcRbf, &x, 21, 2, &y, None, 0).unwrap_err();
        assert!(e.to_string().contains("expected n × d"), "{e}");
        let mut bad = x.clone();
        bad[7] = f32::NAN;
        let e = evaluate(Evaluator::SvcRbf, &bad, 20, 2, &y, None, 0).unwrap_err();
        assert!(e.to_string().contains("row 3"), "{e}");
        let one = vec![1u32; 20];
        let e = evaluate(Evaluator::LogReg, &x, 20, 2, &one, None, 0).unwrap_err();
        assert!(e.to_string().contains("at least 2 classes"), "{e}");
        let e = evaluate(Evaluator::LogReg, &x, 20, 2, &y[..19], None, 0).unwrap_err();
        assert!(e.to_string().contains("19 labels"), "{e}");
        let folds: Vec<usize> = (0..20).map(|i| if i < 10 { 0 } else { 2 }).collect();
        let e = evaluate(Evaluator::LogReg, &x, 20, 2, &y, Some(&folds), 0).unwrap_err();
        assert!(e.to_string().contains("fold 1 is empty"), "{e}");
    }

    #[test]
    fn mean_std_is_sample_std() {
        let (m, s) = mean_std(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(m, 2.5);
        assert!((s - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }
}
