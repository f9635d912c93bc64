//! Evaluators: the classifier that scores frozen embeddings on one split.
//!
//! An [`Evaluator`] fits on a split's training part — choosing its hyper-parameters from
//! that part (and the validation part where it has one) only — and scores the validation
//! and test parts. It knows nothing of how the splits were made: that is the
//! [`crate::protocol::Protocol`]'s business. [`run_protocol`] joins the two and
//! summarises the splits into a [`CvResult`].
//!
//! The built-in evaluators are named by the [`crate::Evaluator`] enum (what a config's
//! `evaluator = "..."` says); [`GridSearchCv`] runs them (the enum implements the trait
//! too, with its default scaling). The node-level logistic-regression probe trains on a
//! libtorch device and so implements the trait in the root crate (`magcl::eval_node`).
//!
//! A new evaluator implements [`Evaluator`]: `prepare` once per evaluation (where work
//! can be shared by the splits, e.g. svc-rbf's squared distances), then its [`FitSplit`]
//! once per split; `tests/toy_evaluator.rs` does it with a nearest-centroid classifier.
use rayon::prelude::*;

use crate::cv::{Prepared, Split};
use crate::error::{Error, Result};
use crate::linalg::Features;
use crate::svc::Seed;
use crate::{check_embeddings, check_labels, mean_std, CvResult, INNER_FOLDS};

/// Embeddings as every evaluator gets them: `n × d` values, row-major, on the host.
#[derive(Clone, Copy, Debug)]
pub struct HostMatrix<'a> {
    pub x: &'a [f32],
    pub n: usize,
    pub d: usize,
}

impl<'a> HostMatrix<'a> {
    pub fn new(x: &'a [f32], n: usize, d: usize) -> Self {
        HostMatrix { x, n, d }
    }
    /// Row `i`.
    pub fn row(&self, i: usize) -> &'a [f32] {
        &self.x[i * self.d..(i + 1) * self.d]
    }
}

/// What one split gave.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitScore {
    /// Test accuracy, in percent.
    pub test_accuracy: f64,
    /// Correct test predictions.
    pub test_correct: usize,
    /// Validation accuracy in percent, where the split has a validation part.
    pub val_accuracy: Option<f64>,
    /// The C the evaluator chose, where it searches [`crate::C_GRID`].
    pub best_c: Option<f64>,
}

/// Fits one split of an evaluation prepared by [`Evaluator::prepare`].
pub trait FitSplit: Sync {
    fn fit(&self, split: &Split) -> Result<SplitScore>;
}

/// A [`FitSplit`] from a closure, for evaluators with nothing to share between splits.
pub struct PerSplit<F>(pub F);

impl<F: Fn(&Split) -> Result<SplitScore> + Sync> FitSplit for PerSplit<F> {
    fn fit(&self, split: &Split) -> Result<SplitScore> {
        (self.0)(split)
    }
}

/// A classifier that scores embeddings on one split at a time.
pub trait Evaluator: Sync {
    /// The evaluator's name, e.g. `svc-rbf`.
    fn name(&self) -> String;

    /// Checks split number `index` before anything is fitted (errors name the split and
    /// what is missing). The default asks for a non-empty training and test part.
    fn check_split(&self, _y: &[u32], split: &Split, index: usize) -> Result<()> {
        if split.train.is_empty() || split.test.is_empty() {
            return Err(Error::Input(format!(
                "outer fold {index}: empty training or test part"
            )));
        }
        Ok(())
    }

    /// Work done once for all `splits` of one evaluation of `x` (checked: finite,
    /// `n × d`) with labels `y`; the returned [`FitSplit`] fits each split.
    fn prepare<'a>(
        &'a self,
        x: HostMatrix<'a>,
        y: &'a [u32],
        splits: &[Split],
    ) -> Result<Box<dyn FitSplit + 'a>>;

    /// Whether the splits may be fitted at the same time (on rayon's threads). An
    /// evaluator that seeds a process-wide generator says no.
    fn parallel(&self) -> bool {
        true
    }
}

/// A built-in classifier (svc-rbf, linear-svc, logreg) with C chosen from
/// [`crate::C_GRID`] by an inner stratified 5-fold CV (scikit-learn's unshuffled split) of
/// the training part, refitted on the whole training part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridSearchCv {
    pub classifier: crate::Evaluator,
    /// Standardise the features on each split's training part first.
    pub standardize: bool,
    /// Where the RBF solve for each C after the first starts ([`Seed::Cold`]: libsvm's).
    pub seed: Seed,
}

impl GridSearchCv {
    /// The classifier with its own scaling: svc-rbf on raw features, the linear ones
    /// standardised (GraphCL / SimGRACE).
    pub fn new(classifier: crate::Evaluator) -> Self {
        GridSearchCv {
            classifier,
            standardize: classifier != crate::Evaluator::SvcRbf,
            seed: Seed::Cold,
        }
    }
    /// The classifier on standardised features, whichever it is (AD-GCL).
    pub fn standardized(classifier: crate::Evaluator) -> Self {
        GridSearchCv {
            standardize: true,
            ..GridSearchCv::new(classifier)
        }
    }
}

fn pct(c: usize, n: usize) -> f64 {
    100.0 * c as f64 / n.max(1) as f64
}

impl Evaluator for GridSearchCv {
    fn name(&self) -> String {
        self.classifier.name().into()
    }

    fn check_split(&self, y: &[u32], s: &Split, fold: usize) -> Result<()> {
        if s.train.len() < INNER_FOLDS {
            return Err(Error::Input(format!(
                "outer fold {fold}: {} training samples, fewer than the {INNER_FOLDS} inner folds",
                s.train.len()
            )));
        }
        let first = y[s.train[0]];
        if s.train.iter().all(|&i| y[i] == first) {
            return Err(Error::Input(format!(
                "outer fold {fold}: the training part holds only class {first}"
            )));
        }
        if s.test.is_empty() {
            return Err(Error::Input(format!("outer fold {fold}: empty test part")));
        }
        Ok(())
    }

    fn prepare<'a>(
        &'a self,
        x: HostMatrix<'a>,
        y: &'a [u32],
        _splits: &[Split],
    ) -> Result<Box<dyn FitSplit + 'a>> {
        Ok(grid_search(*self, x, y))
    }
}

/// [`GridSearchCv`]'s per-split fit: the features (and, unstandardised, svc-rbf's squared
/// distances) prepared once, shared by the splits.
fn grid_search<'a>(g: GridSearchCv, x: HostMatrix<'_>, y: &'a [u32]) -> Box<dyn FitSplit + 'a> {
    let f = Features::from_f32(x.x, x.n, x.d);
    let prepared = Prepared::new(g.classifier, f, g.standardize, g.seed);
    Box::new(PerSplit(move |split: &Split| {
        let o = prepared.fit(y, split)?;
        Ok(SplitScore {
            test_accuracy: pct(o.test_correct, split.test.len()),
            test_correct: o.test_correct,
            val_accuracy: (!split.val.is_empty()).then(|| pct(o.val_correct, split.val.len())),
            best_c: Some(o.best_c),
        })
    }))
}

/// The enum's evaluator is [`GridSearchCv::new`]: its own scaling, cold RBF starts.
impl Evaluator for crate::Evaluator {
    fn name(&self) -> String {
        crate::Evaluator::name(*self).into()
    }
    fn check_split(&self, y: &[u32], split: &Split, index: usize) -> Result<()> {
        GridSearchCv::new(*self).check_split(y, split, index)
    }
    fn prepare<'a>(
        &'a self,
        x: HostMatrix<'a>,
        y: &'a [u32],
        _splits: &[Split],
    ) -> Result<Box<dyn FitSplit + 'a>> {
        Ok(grid_search(GridSearchCv::new(*self), x, y))
    }
}

/// Evaluate `x` with labels `y`: the splits of `protocol` (drawn from `seed`), each
/// fitted and scored by `evaluator`, summarised. Errors name the bad input (shape,
/// non-finite row, too few classes or class members, a bad split).
pub fn run_protocol(
    protocol: &dyn crate::protocol::Protocol,
    evaluator: &dyn Evaluator,
    x: HostMatrix<'_>,
    y: &[u32],
    seed: u64,
) -> Result<CvResult> {
    check_embeddings(x.x, x.n, x.d)?;
    check_labels(y, x.n)?;
    let splits = protocol.splits(y, x.n, seed)?;
    run_on_splits(evaluator, x, y, &splits)
}

/// [`run_protocol`] for features given as sparse rows (the graph-kernel baselines): the
/// splits of `protocol`, each scored by `evaluator`'s grid search, which must be the
/// RBF SVM on unscaled features (`svc-rbf` as GraphCL and SimGRACE use it); its squared
/// distances come from the rows' dot products. The numbers are those of the dense
/// matrix up to rounding.
pub fn run_protocol_sparse(
    protocol: &dyn crate::protocol::Protocol,
    evaluator: &GridSearchCv,
    x: &crate::sparse::SparseRows,
    y: &[u32],
    seed: u64,
) -> Result<CvResult> {
    if evaluator.classifier != crate::Evaluator::SvcRbf || evaluator.standardize {
        return Err(Error::Config(format!(
            "sparse count features are evaluated with svc-rbf on unscaled features only, \
             not {}{}",
            evaluator.classifier.name(),
            if evaluator.standardize {
                " on standardised features"
            } else {
                ""
            }
        )));
    }
    if x.n == 0 || x.d == 0 {
        return Err(Error::Input(format!(
            "the features are empty ({} × {})",
            x.n, x.d
        )));
    }
    check_labels(y, x.n)?;
    let splits = protocol.splits(y, x.n, seed)?;
    for (k, s) in splits.iter().enumerate() {
        crate::protocol::check_indices(std::slice::from_ref(s), x.n, |_| {
            format!("outer fold {k}")
        })?;
        evaluator.check_split(y, s, k)?;
    }
    let d2 = x.squared_distances();
    let d2 = crate::svc::SqDist::new(x.n, &d2);
    let scores = splits
        .par_iter()
        .map(|split| {
            let rows = crate::cv::Rows::Sparse(x);
            let o = crate::cv::run_split(
                evaluator.classifier,
                evaluator.seed,
                rows,
                Some(&d2),
                y,
                split,
            )?;
            Ok(SplitScore {
                test_accuracy: pct(o.test_correct, split.test.len()),
                test_correct: o.test_correct,
                val_accuracy: (!split.val.is_empty()).then(|| pct(o.val_correct, split.val.len())),
                best_c: Some(o.best_c),
            })
        })
        .collect::<Result<Vec<SplitScore>>>()?;
    Ok(summarize(&scores, &splits))
}

/// Evaluate `x` with labels `y` on the given `splits` (see [`run_protocol`]).
pub fn run_on_splits(
    evaluator: &dyn Evaluator,
    x: HostMatrix<'_>,
    y: &[u32],
    splits: &[Split],
) -> Result<CvResult> {
    let n = x.n;
    check_embeddings(x.x, n, x.d)?;
    check_labels(y, n)?;
    if splits.is_empty() {
        return Err(Error::Input("no outer splits given".into()));
    }
    for (k, s) in splits.iter().enumerate() {
        crate::protocol::check_indices(std::slice::from_ref(s), n, |_| format!("outer fold {k}"))?;
        evaluator.check_split(y, s, k)?;
    }
    let fitter = evaluator.prepare(x, y, splits)?;
    let scores = if evaluator.parallel() {
        splits
            .par_iter()
            .map(|s| fitter.fit(s))
            .collect::<Result<Vec<SplitScore>>>()?
    } else {
        splits
            .iter()
            .map(|s| fitter.fit(s))
            .collect::<Result<Vec<SplitScore>>>()?
    };
    Ok(summarize(&scores, splits))
}

/// The summary of the splits' scores: mean and sample standard deviation of the test
/// accuracies; validation accuracies where any split has them (0 for a split without a
/// validation part among ones with); C per split (NaN where the evaluator chose none).
pub fn summarize(scores: &[SplitScore], splits: &[Split]) -> CvResult {
    let fold_accuracies: Vec<f64> = scores.iter().map(|s| s.test_accuracy).collect();
    let (accuracy, std) = mean_std(&fold_accuracies);
    let (fold_val_accuracies, val_accuracy) = if scores.iter().any(|s| s.val_accuracy.is_some()) {
        let v: Vec<f64> = scores
            .iter()
            .map(|s| s.val_accuracy.unwrap_or(0.0))
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
        best_c: scores
            .iter()
            .map(|s| s.best_c.unwrap_or(f64::NAN))
            .collect(),
        fold_correct: scores.iter().map(|s| s.test_correct).collect(),
        fold_sizes: splits.iter().map(|s| s.test.len()).collect(),
    }
}
