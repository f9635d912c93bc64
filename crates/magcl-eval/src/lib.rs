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
//! Two seams keep the classifier apart from the way the samples are split: a
//! [`protocol::Protocol`] makes the outer splits (train / validation / test indices), an
//! [`evaluator::Evaluator`] fits and scores one split, and [`run_protocol`] runs one with
//! the other and summarises ([`CvResult`]). The table's classifiers are
//! [`GridSearchCv`]; the node-level logistic-regression probe (which trains on a libtorch
//! device) implements the same trait in the root crate.
//!
//! [`evaluate`] runs the plain protocol (score = mean test accuracy over the outer folds);
//! [`evaluate_with_validation`] runs AD-GCL's: `KFold(10)` (shuffled, not stratified),
//! the training folds split 80/20 into train/validation, both scores reported so the
//! caller can select an epoch by validation accuracy only. Both are [`run_protocol`] with
//! the protocol and evaluator named in their documentation.
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
pub mod evaluator;
pub mod folds;
pub mod linalg;
pub mod linear;
pub mod newton;
pub mod npy;
pub mod protocol;
pub mod rbf_exp;
pub mod smo;
/// The SMO solver's test oracle (kept out of the library, in `tests/oracle/`).
#[cfg(test)]
#[path = "../tests/oracle/smo_reference.rs"]
mod smo_reference;
pub mod sparse;
pub mod stats;
pub mod svc;

pub use cluster::{kmeans_nmi, nmi};
pub use cv::{FoldOutcome, Split};
pub use evaluator::{
    run_on_splits, run_protocol, run_protocol_sparse, GridSearchCv, HostMatrix, SplitScore,
};
pub use folds::{kfold, sklearn_stratified_kfold, stratified_kfold};
pub use protocol::Protocol;
pub use sparse::SparseRows;

/// The C grid every evaluator searches (GraphCL, SimGRACE and AD-GCL use the same).
pub const C_GRID: [f64; 7] = [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3];
/// Inner CV folds of the grid search (`GridSearchCV(cv=5)`).
pub const INNER_FOLDS: usize = 5;
/// Outer folds when none are given.
pub const OUTER_FOLDS: usize = 10;
/// Share of the training folds held out for validation in [`evaluate_with_validation`].
pub const VAL_FRACTION: f64 = 0.2;

/// Which built-in classifier scores the embeddings (what a config's `evaluator = "..."`
/// names). Each runs as [`GridSearchCv`]; the enum implements the
/// [`evaluator::Evaluator`] trait itself with its default scaling ([`GridSearchCv::new`]).
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
        f.pad(self.name())
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
        return Err(Error::Input(format!(
            "embeddings hold {} values, expected n × d = {n} × {d}",
            x.len()
        )));
    }
    if n == 0 || d == 0 {
        return Err(Error::Input(format!("embeddings are empty ({n} × {d})")));
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

/// Labels of any integer values as classes `0..k`, in increasing order of value (what
/// `magcl eval` and the Python module do with the labels they are given).
pub fn dense_labels(raw: &[i64]) -> Vec<u32> {
    let mut uniq = raw.to_vec();
    uniq.sort_unstable();
    uniq.dedup();
    raw.iter()
        .map(|v| uniq.binary_search(v).unwrap_or(0) as u32)
        .collect()
}

/// Check that `y` holds `n` labels of at least two classes.
pub(crate) fn check_labels(y: &[u32], n: usize) -> Result<()> {
    if y.len() != n {
        return Err(Error::Input(format!(
            "{} labels for {n} embeddings",
            y.len()
        )));
    }
    let mut classes: Vec<u32> = Vec::new();
    for &v in y {
        if !classes.contains(&v) {
            classes.push(v);
        }
    }
    if classes.len() < 2 {
        return Err(Error::Input(format!(
            "need at least 2 classes, the labels hold {}",
            classes.len()
        )));
    }
    Ok(())
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

/// Run the nested protocol on explicit splits: [`GridSearchCv`] of `ev` (with
/// `standardize`: a standard scaler fitted on each split's training part first, what
/// `evaluate` does for the linear evaluators and `evaluate_with_validation` for all) on
/// `splits`. Validation accuracies are reported when any split has a validation part.
pub fn evaluate_splits(
    ev: Evaluator,
    x: &[f32],
    n: usize,
    d: usize,
    y: &[u32],
    splits: &[Split],
    standardize: bool,
) -> Result<CvResult> {
    let g = GridSearchCv {
        standardize,
        ..GridSearchCv::new(ev)
    };
    run_on_splits(&g, HostMatrix::new(x, n, d), y, splits)
}

/// Evaluate embeddings `x` (`n × d`, row-major) with labels `y` by the plain protocol:
/// outer folds `folds` (fold index per sample) or, if `None`, stratified 10-fold CV
/// shuffled with `seed`; per fold grid-search C by inner stratified 5-fold CV on the
/// training part, refit, score the held-out fold. `svc-rbf` uses raw features; the
/// linear evaluators standardise on each training part.
///
/// The same as [`run_protocol`] with [`protocol::StratifiedKFold`] (or
/// [`protocol::GivenFolds`]) and [`GridSearchCv::new`].
pub fn evaluate(
    ev: Evaluator,
    x: &[f32],
    n: usize,
    d: usize,
    y: &[u32],
    folds: Option<&[usize]>,
    seed: u64,
) -> Result<CvResult> {
    let protocol: Box<dyn Protocol> = match folds {
        Some(f) => Box::new(protocol::GivenFolds { folds: f.to_vec() }),
        None => Box::new(protocol::StratifiedKFold { k: OUTER_FOLDS }),
    };
    run_protocol(
        &protocol,
        &GridSearchCv::new(ev),
        HostMatrix::new(x, n, d),
        y,
        seed,
    )
}

/// AD-GCL's protocol: outer folds `folds` or, if `None`, `KFold(10)` shuffled with `seed`
/// (not stratified); in each fold the training folds are split at random (seeded, 80/20)
/// into train and validation; features standardised on the train part; grid search and
/// fit on the train part; validation and test accuracy reported. Select epochs by
/// [`CvResult::val_accuracy`], never by the test accuracy.
///
/// The same as [`run_protocol`] with [`protocol::WithValidation`] of
/// [`protocol::KFold`] (or [`protocol::GivenFolds`]) and [`GridSearchCv::standardized`].
pub fn evaluate_with_validation(
    ev: Evaluator,
    x: &[f32],
    n: usize,
    d: usize,
    y: &[u32],
    folds: Option<&[usize]>,
    seed: u64,
) -> Result<CvResult> {
    let outer: Box<dyn Protocol> = match folds {
        Some(f) => Box::new(protocol::GivenFolds { folds: f.to_vec() }),
        None => Box::new(protocol::KFold { k: OUTER_FOLDS }),
    };
    let protocol = protocol::WithValidation {
        outer,
        fraction: VAL_FRACTION,
    };
    run_protocol(
        &protocol,
        &GridSearchCv::standardized(ev),
        HostMatrix::new(x, n, d),
        y,
        seed,
    )
}

/// The tests' pseudo-random source: a 64-bit linear congruential generator (Knuth's MMIX
/// constants) whose every call advances `state` and returns it.
#[cfg(test)]
pub(crate) fn lcg(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state
    }
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
        // inputs that do not fit together are input errors, a bad setting a config one
        assert!(matches!(e, Error::Input(_)));
        let e = evaluate(Evaluator::LogReg, &x, 20, 2, &y[..19], None, 0).unwrap_err();
        assert!(matches!(e, Error::Input(_)));
        let e = "svm".parse::<Evaluator>().unwrap_err();
        assert!(matches!(e, Error::Config(_)));
    }

    #[test]
    fn mean_std_is_sample_std() {
        let (m, s) = mean_std(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(m, 2.5);
        assert!((s - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }

    /// `magcl train` runs the graph-level evaluation on a pool of every core and the
    /// training on one thread: the evaluation's numbers must not depend on the pool's
    /// size. Every classifier, with and without the validation split, on 1 and 3 threads.
    #[test]
    fn results_do_not_depend_on_the_pool_size() {
        let (n, d) = (90, 5);
        let mut raw = lcg(11);
        let mut next = || ((raw() >> 40) as f32) / (1u64 << 24) as f32;
        let y: Vec<u32> = (0..n).map(|i| (i % 3) as u32).collect();
        let x: Vec<f32> = (0..n * d)
            .map(|k| next() + if k % d == y[k / d] as usize { 0.6 } else { 0.0 })
            .collect();
        let on = |threads: usize, f: &(dyn Fn() -> CvResult + Sync)| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(f)
        };
        for ev in Evaluator::ALL {
            let plain = || evaluate(ev, &x, n, d, &y, None, 5).unwrap();
            let val = || evaluate_with_validation(ev, &x, n, d, &y, None, 5).unwrap();
            assert_eq!(on(1, &plain), on(3, &plain), "{}", ev.name());
            assert_eq!(on(1, &val), on(3, &val), "{} with validation", ev.name());
        }
    }
}
