//! `evaluate_embedding`, `kmeans_nmi`, `nmi_score`: magcl-eval's functions, as
//! `magcl eval` calls them.
use std::time::Instant;

use magcl_eval::{CvResult, Evaluator};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::arrays;
use crate::{json_to_py, to_py_err};

/// A seed as `u64`; the error says what a seed must be.
pub(crate) fn seed_of(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    seed.extract::<u64>().map_err(|_| {
        PyValueError::new_err(format!(
            "seed: expected an integer in 0..2^64, got {}",
            seed.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

pub(crate) fn evaluator_of(name: &str) -> PyResult<Evaluator> {
    name.parse::<Evaluator>().map_err(to_py_err)
}

/// What one evaluation gives back, with the numbers `magcl eval --json` prints.
pub(crate) struct Evaluation {
    pub result: CvResult,
    pub n: usize,
    pub d: usize,
    pub classes: usize,
    pub seconds: f64,
    pub nmi_median: Option<f64>,
    /// The embeddings were read in place (C-contiguous float32), not copied.
    pub zero_copy: bool,
}

/// Evaluate like `magcl eval`: the plain protocol ([`magcl_eval::evaluate`]) or, with
/// `validation`, AD-GCL's ([`magcl_eval::evaluate_with_validation`]); the GIL is released
/// while the classifiers run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_evaluation(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    evaluator: Evaluator,
    seed: u64,
    folds: Option<&Bound<'_, PyAny>>,
    validation: bool,
    nmi: bool,
) -> PyResult<Evaluation> {
    let emb = arrays::embeddings(x, "X")?;
    let (n, d) = (emb.n, emb.d);
    let y = arrays::labels(y, n)?;
    let folds = folds.map(|f| arrays::folds(f, n)).transpose()?;
    let classes = y.iter().copied().max().map_or(0, |m| m as usize + 1);
    let xs = emb.as_slice();
    let out = py.detach(|| -> magcl_core::Result<(CvResult, f64, Option<f64>)> {
        let t0 = Instant::now();
        let res = if validation {
            magcl_eval::evaluate_with_validation(evaluator, xs, n, d, &y, folds.as_deref(), seed)
        } else {
            magcl_eval::evaluate(evaluator, xs, n, d, &y, folds.as_deref(), seed)
        }?;
        let seconds = t0.elapsed().as_secs_f64();
        let nmi_median = if nmi {
            let v = magcl_eval::kmeans_nmi(xs, n, d, &y, classes, 20, seed)?;
            Some(
                magcl_eval::stats::median(&v)
                    .ok_or_else(|| magcl_core::Error::Numeric("k-means gave no NMI".into()))?,
            )
        } else {
            None
        };
        Ok((res, seconds, nmi_median))
    });
    let (result, seconds, nmi_median) = out.map_err(to_py_err)?;
    Ok(Evaluation {
        result,
        n,
        d,
        classes,
        seconds,
        nmi_median,
        zero_copy: emb.is_borrowed(),
    })
}

/// Score embeddings with the cross-validated classifiers of the graph-level GCL papers:
/// the same protocol, folds and numbers as `magcl eval --json`.
///
/// X: samples × dims, float32 (read in place when C-contiguous) or float64 (converted to
/// float32, as `magcl eval` converts a float64 `.npy`); lists and other array-likes go
/// through `numpy.asarray`. y: one integer label per sample, any values (classes are
/// ordered by value). evaluator: "svc-rbf" (GraphCL, SimGRACE), "linear-svc" (AD-GCL) or
/// "logreg". seed: draws the outer folds (stratified, shuffled; see docs/python.md for how
/// they relate to scikit-learn's `StratifiedKFold(random_state=seed)`). folds: outer folds
/// given instead, as a fold index per sample or as (train, test) index pairs such as
/// `StratifiedKFold(10, shuffle=True, random_state=seed).split(X, y)`. validation:
/// AD-GCL's protocol (KFold(10), 80/20 train/validation). nmi: also the median NMI of 20
/// k-means runs.
///
/// Returns a dict with the keys of `magcl eval --json`: accuracy (mean over folds, %),
/// accuracy_std_folds (sample std, ddof 1), fold_accuracies, fold_correct, fold_sizes,
/// best_c (C chosen per fold), val_accuracy / fold_val_accuracies (validation protocol),
/// nmi_median, evaluator, protocol, n, d, classes, folds, seed, std_ddof, seconds; and
/// zero_copy (whether X was read without a copy).
#[pyfunction]
#[pyo3(signature = (x, y, evaluator = "svc-rbf", seed = None, folds = None, validation = false, nmi = false))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate_embedding<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    evaluator: &str,
    seed: Option<&Bound<'py, PyAny>>,
    folds: Option<&Bound<'py, PyAny>>,
    validation: bool,
    nmi: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let ev = evaluator_of(evaluator)?;
    let seed = seed.map(seed_of).transpose()?.unwrap_or(0);
    let e = run_evaluation(py, x, y, ev, seed, folds, validation, nmi)?;
    let res = &e.result;
    let protocol = if validation {
        "adgcl-validation"
    } else {
        "nested-cv"
    };
    let obj = serde_json::json!({
        "evaluator": ev.name(),
        "protocol": protocol,
        "n": e.n,
        "d": e.d,
        "classes": e.classes,
        "folds": res.fold_accuracies.len(),
        "seed": seed,
        "accuracy": res.accuracy,
        "accuracy_std_folds": res.std,
        "std_ddof": 1,
        "fold_accuracies": res.fold_accuracies,
        "fold_correct": res.fold_correct,
        "fold_sizes": res.fold_sizes,
        "best_c": res.best_c,
        "val_accuracy": res.val_accuracy,
        "fold_val_accuracies": res.fold_val_accuracies,
        "nmi_median": e.nmi_median,
        "seconds": e.seconds,
        "zero_copy": e.zero_copy,
    });
    json_to_py(py, &obj)
}

/// k-means (k = number of classes, k-means++ starts, `restarts` runs seeded from `seed`)
/// on X, each run's NMI against y (arithmetic normalisation, scikit-learn's
/// `normalized_mutual_info_score`). Returns {"nmi_median", "nmi" (one per run), "k",
/// "restarts", "seed"}; `magcl eval --nmi` prints the median of 20 runs.
#[pyfunction]
#[pyo3(signature = (x, y, seed = None, restarts = 20))]
pub fn kmeans_nmi<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    seed: Option<&Bound<'py, PyAny>>,
    restarts: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let seed = seed.map(seed_of).transpose()?.unwrap_or(0);
    if restarts == 0 {
        return Err(PyValueError::new_err(
            "restarts: expected at least 1, got 0",
        ));
    }
    let emb = arrays::embeddings(x, "X")?;
    let (n, d) = (emb.n, emb.d);
    let y = arrays::labels(y, n)?;
    let k = y.iter().copied().max().map_or(0, |m| m as usize + 1);
    let xs = emb.as_slice();
    let values = py
        .detach(|| magcl_eval::kmeans_nmi(xs, n, d, &y, k, restarts, seed))
        .map_err(to_py_err)?;
    let median = magcl_eval::stats::median(&values);
    json_to_py(
        py,
        &serde_json::json!({
            "nmi_median": median,
            "nmi": values,
            "k": k,
            "restarts": restarts,
            "seed": seed,
        }),
    )
}

/// Normalised mutual information of two labelings (arithmetic normalisation, natural
/// log; scikit-learn's `normalized_mutual_info_score`). Labels are any integers.
#[pyfunction]
pub fn nmi_score(labels_true: &Bound<'_, PyAny>, labels_pred: &Bound<'_, PyAny>) -> PyResult<f64> {
    let a = arrays::ints(labels_true, "labels")?;
    let b = arrays::ints(labels_pred, "labels")?;
    if a.len() != b.len() {
        return Err(PyValueError::new_err(format!(
            "labels_true has {} entries but labels_pred has {}; expected one label each per sample",
            a.len(),
            b.len()
        )));
    }
    if a.is_empty() {
        return Err(PyValueError::new_err("the labelings are empty"));
    }
    Ok(magcl_eval::nmi(
        &magcl_eval::dense_labels(&a),
        &magcl_eval::dense_labels(&b),
    ))
}
