//! The nested cross-validation protocol shared by all evaluators: for each outer split,
//! grid-search C by scikit-learn-exact unshuffled stratified 5-fold CV on the training
//! part, refit on the whole training part with the best C, score validation and test.
use rayon::prelude::*;

use super::folds::sklearn_stratified_kfold;
use super::linalg::{is_symmetric, squared_distances, Features};
use super::linear::{linear_path, LinearKind};
use super::sparse::SparseRows;
use super::svc::{gamma_scale, RbfPath, Seed, SqDist};
use super::{Evaluator, C_GRID, INNER_FOLDS};
use crate::error::{Error, Result};

/// One outer split: the samples to fit on (in this order), to validate on, to test on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    pub train: Vec<usize>,
    pub val: Vec<usize>,
    pub test: Vec<usize>,
}

/// What one outer split produced.
#[derive(Clone, Debug)]
pub struct FoldOutcome {
    pub best_c: f64,
    /// mean inner-CV accuracy (fraction) per C of the grid
    pub inner_mean: Vec<f64>,
    pub val_correct: usize,
    pub test_correct: usize,
}

/// What the splits of one evaluation share besides the features: for the RBF SVM the
/// squared distances.
enum Shared {
    Rbf { d2: Vec<f64>, symmetric: bool },
    Linear,
}

/// The samples' features as a fit reads them: dense (every evaluator), or sparse rows (the
/// RBF SVM only, which needs no more than the distances and the fit's variance).
#[derive(Clone, Copy)]
pub(crate) enum Rows<'a> {
    Dense(&'a Features),
    Sparse(&'a SparseRows),
}

impl Rows<'_> {
    /// scikit-learn's `gamma = 'scale'` on the rows `fit`.
    fn gamma_scale(&self, fit: &[usize]) -> f64 {
        match self {
            Rows::Dense(f) => gamma_scale(f.variance_of_rows(fit), f.d),
            Rows::Sparse(s) => gamma_scale(s.variance_of_rows(fit), s.d),
        }
    }
}

fn kind_of(ev: Evaluator) -> Option<LinearKind> {
    match ev {
        Evaluator::SvcRbf => None,
        Evaluator::LinearSvc => Some(LinearKind::SquaredHinge),
        Evaluator::LogReg => Some(LinearKind::Logistic),
    }
}

/// Fit on `fit` for each C in `cs` and predict `evals`; `None` if `fit` has one class.
/// `kbuf` is scratch space for the RBF kernel, reused across the calls of one split; `seed`
/// says where each C after the first starts (RBF only).
#[allow(clippy::too_many_arguments)]
fn path(
    ev: Evaluator,
    seed: Seed,
    f: Rows<'_>,
    d2: Option<&SqDist<'_>>,
    y: &[u32],
    fit: &[usize],
    evals: &[usize],
    cs: &[f64],
    kbuf: &mut Vec<f32>,
) -> Option<Vec<Vec<u32>>> {
    match (kind_of(ev), d2, f) {
        (Some(kind), _, Rows::Dense(f)) => linear_path(kind, f, y, fit, evals, cs),
        // sparse rows reach only the RBF SVM (run_protocol_sparse refuses the others)
        (Some(_), _, Rows::Sparse(_)) => None,
        (None, Some(d2), f) => {
            let gamma = f.gamma_scale(fit);
            let mut p = RbfPath::new_in(d2, y, fit, gamma, std::mem::take(kbuf))?;
            let kt = p.test_kernel(d2, evals);
            let preds = cs
                .iter()
                .map(|&c| {
                    p.solve_seeded(c, seed);
                    p.predict(&kt)
                })
                .collect();
            *kbuf = p.into_kernel_buffer();
            Some(preds)
        }
        (None, None, _) => None,
    }
}

fn count_correct(pred: &[u32], y: &[u32], idx: &[usize]) -> usize {
    pred.iter().zip(idx).filter(|(p, &i)| **p == y[i]).count()
}

/// Grid search + refit for one outer split on prepared features.
pub(crate) fn run_split(
    ev: Evaluator,
    seed: Seed,
    f: Rows<'_>,
    d2: Option<&SqDist<'_>>,
    y: &[u32],
    split: &Split,
) -> Result<FoldOutcome> {
    let ytr: Vec<u32> = split.train.iter().map(|&i| y[i]).collect();
    let inner = sklearn_stratified_kfold(&ytr, INNER_FOLDS)?;
    // The inner fits are independent: they run as parallel tasks of their own (rayon
    // steals them across outer splits, so the threads stay busy until the last split
    // ends); each is deterministic, so the result does not depend on the schedule.
    let per_fold: Vec<Vec<f64>> = (0..INNER_FOLDS)
        .into_par_iter()
        .map(|fold| {
            let fit: Vec<usize> = split
                .train
                .iter()
                .zip(&inner)
                .filter(|(_, &g)| g != fold)
                .map(|(&i, _)| i)
                .collect();
            let held: Vec<usize> = split
                .train
                .iter()
                .zip(&inner)
                .filter(|(_, &g)| g == fold)
                .map(|(&i, _)| i)
                .collect();
            // a fit on one class fails in scikit-learn too: its scores stay NaN
            let mut kbuf = Vec::new();
            match path(ev, seed, f, d2, y, &fit, &held, &C_GRID, &mut kbuf) {
                Some(preds) => preds
                    .iter()
                    .map(|p| count_correct(p, y, &held) as f64 / held.len().max(1) as f64)
                    .collect(),
                None => vec![f64::NAN; C_GRID.len()],
            }
        })
        .collect();
    let acc: Vec<Vec<f64>> = (0..C_GRID.len())
        .map(|ci| per_fold.iter().map(|a| a[ci]).collect())
        .collect();
    let mut kbuf = Vec::new();
    // GridSearchCV: mean over splits (summed in order), best = first maximum; NaN ranks last
    let inner_mean: Vec<f64> = acc
        .iter()
        .map(|a| a.iter().fold(0.0, |s, v| s + v) / INNER_FOLDS as f64)
        .collect();
    let mut best = 0;
    for (ci, &m) in inner_mean.iter().enumerate() {
        let cur = inner_mean[best];
        if !m.is_nan() && (cur.is_nan() || m > cur) {
            best = ci;
        }
    }
    let best_c = C_GRID[best];
    let evals: Vec<usize> = split.val.iter().chain(&split.test).copied().collect();
    let pred = path(
        ev,
        seed,
        f,
        d2,
        y,
        &split.train,
        &evals,
        &[best_c],
        &mut kbuf,
    )
    .and_then(|mut v| v.pop())
    .ok_or_else(|| {
        Error::Input("an outer training part holds a single class; cannot fit".into())
    })?;
    let (pv, pt) = pred.split_at(split.val.len());
    Ok(FoldOutcome {
        best_c,
        inner_mean,
        val_correct: count_correct(pv, y, &split.val),
        test_correct: count_correct(pt, y, &split.test),
    })
}

/// Run the nested protocol on explicit splits (in parallel over splits). With
/// `standardize`, features are standardised with the mean and standard deviation of each
/// split's training part (applied to all samples) before anything else.
pub fn run_splits(
    ev: Evaluator,
    x: &Features,
    y: &[u32],
    splits: &[Split],
    standardize: bool,
) -> Result<Vec<FoldOutcome>> {
    run_splits_seeded(ev, x, y, splits, standardize, Seed::Cold)
}

/// [`run_splits`] with the RBF grid's solves for each C after the first started as `seed`
/// says ([`Seed::Cold`] is libsvm's and scikit-learn's path; the others are for
/// measurements, see `docs/evaluation.md`).
pub fn run_splits_seeded(
    ev: Evaluator,
    x: &Features,
    y: &[u32],
    splits: &[Split],
    standardize: bool,
    seed: Seed,
) -> Result<Vec<FoldOutcome>> {
    let prepared = Prepared::new(ev, x.clone(), standardize, seed);
    splits
        .par_iter()
        .map(|split| prepared.fit(y, split))
        .collect()
}

/// One evaluation's features, prepared once for all its splits: without standardisation
/// the features are shared as they are, and for the RBF SVM their squared distances too
/// (computed once); with it, each split standardises (and computes distances) itself.
pub(crate) struct Prepared {
    ev: Evaluator,
    seed: Seed,
    f: Features,
    shared: Option<Shared>,
}

impl Prepared {
    pub(crate) fn new(ev: Evaluator, f: Features, standardize: bool, seed: Seed) -> Self {
        let shared = if standardize {
            None
        } else if ev == Evaluator::SvcRbf {
            let d2 = squared_distances(&f);
            let symmetric = is_symmetric(&d2, f.n);
            Some(Shared::Rbf { d2, symmetric })
        } else {
            Some(Shared::Linear)
        };
        Prepared {
            ev,
            seed,
            f,
            shared,
        }
    }

    /// Grid search, refit and scores of one split.
    pub(crate) fn fit(&self, y: &[u32], split: &Split) -> Result<FoldOutcome> {
        let (ev, seed) = (self.ev, self.seed);
        match &self.shared {
            Some(Shared::Rbf { d2, symmetric }) => {
                let d2 = SqDist {
                    n: self.f.n,
                    data: d2,
                    symmetric: *symmetric,
                };
                run_split(ev, seed, Rows::Dense(&self.f), Some(&d2), y, split)
            }
            Some(Shared::Linear) => run_split(ev, seed, Rows::Dense(&self.f), None, y, split),
            None => {
                let f = self.f.standardized(&split.train);
                if ev == Evaluator::SvcRbf {
                    let data = squared_distances(&f);
                    let d2 = SqDist::new(f.n, &data);
                    run_split(ev, seed, Rows::Dense(&f), Some(&d2), y, split)
                } else {
                    run_split(ev, seed, Rows::Dense(&f), None, y, split)
                }
            }
        }
    }
}
