//! Python arrays in: embeddings, labels and outer folds, checked as `magcl eval` checks
//! its `.npy` files (the messages are the same, with the argument's name in place of the
//! file's).
//!
//! Embeddings that are C-contiguous float32 are read where they lie (no copy); float64
//! and non-contiguous arrays are converted to a row-major float32 copy, as `magcl eval`
//! converts a float64 or Fortran-order `.npy` file (the evaluators compute in float32
//! inputs with float64 accumulators). Any other dtype is refused.
use numpy::{
    dtype, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray2,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyList, PySequence};

/// `x` as a numpy array: itself if it is one, else `numpy.asarray(x)` (lists, tuples,
/// anything with `__array__`).
fn as_ndarray<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    let arr = if x.is_instance_of::<PyUntypedArray>() {
        x.clone()
    } else {
        x.py().import("numpy")?.getattr("asarray")?.call1((x,))?
    };
    Ok(arr.cast_into::<PyUntypedArray>()?)
}

fn dtype_name(arr: &Bound<'_, PyUntypedArray>) -> String {
    arr.dtype()
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Row-major float32 embeddings: borrowed from the caller's array or a converted copy.
pub(crate) enum Matrix<'py> {
    Borrowed(PyReadonlyArray2<'py, f32>),
    Owned(Vec<f32>),
}

pub(crate) struct Embeddings<'py> {
    data: Matrix<'py>,
    pub n: usize,
    pub d: usize,
}

impl Embeddings<'_> {
    pub fn as_slice(&self) -> &[f32] {
        match &self.data {
            // `Borrowed` is only made from an array whose `as_slice` succeeded.
            Matrix::Borrowed(a) => a.as_slice().unwrap_or(&[]),
            Matrix::Owned(v) => v,
        }
    }
    /// Whether the caller's memory is used as it is (no copy was made).
    pub fn is_borrowed(&self) -> bool {
        matches!(self.data, Matrix::Borrowed(_))
    }
}

/// `x` (samples × dims, float32 or float64) as row-major float32. `what` names the
/// argument in errors.
pub(crate) fn embeddings<'py>(x: &Bound<'py, PyAny>, what: &str) -> PyResult<Embeddings<'py>> {
    let arr = as_ndarray(x)?;
    if arr.ndim() != 2 {
        return Err(PyValueError::new_err(format!(
            "{what}: expected a 2-D array (samples × dims), got shape {:?}",
            arr.shape()
        )));
    }
    let (n, d) = (arr.shape()[0], arr.shape()[1]);
    let py = x.py();
    let descr = arr.dtype();
    let data = if descr.is_equiv_to(&dtype::<f32>(py)) {
        let a = arr.cast::<PyArray2<f32>>()?.readonly();
        // `as_slice` also accepts Fortran order, which would be read transposed.
        if arr.is_c_contiguous() && a.as_slice().is_ok() {
            Matrix::Borrowed(a)
        } else {
            // Non-contiguous (a slice, a transpose, Fortran order): row-major copy.
            Matrix::Owned(a.as_array().iter().copied().collect())
        }
    } else if descr.is_equiv_to(&dtype::<f64>(py)) {
        let a = arr.cast::<PyArray2<f64>>()?.readonly();
        Matrix::Owned(a.as_array().iter().map(|&v| v as f32).collect())
    } else {
        return Err(PyValueError::new_err(format!(
            "{what}: expected float32 or float64 embeddings, got dtype {} (convert with .astype(numpy.float32))",
            dtype_name(&arr)
        )));
    };
    Ok(Embeddings { data, n, d })
}

/// A 1-D array of integers (any integer or bool dtype, or floats holding whole numbers)
/// as i64. `what` names the content ("labels", "fold indices").
pub(crate) fn ints(y: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<i64>> {
    let arr = as_ndarray(y)?;
    if arr.ndim() != 1 {
        return Err(PyValueError::new_err(format!(
            "expected a 1-D array of {what}, got shape {:?}",
            arr.shape()
        )));
    }
    let kind = arr.dtype().kind();
    match kind {
        b'i' | b'u' | b'b' => {
            if kind == b'u' && arr.dtype().itemsize() == 8 {
                // uint64 values above i64::MAX would wrap in astype: refuse them.
                let max = arr.call_method0("max");
                if let Ok(m) = max.and_then(|m| m.extract::<u64>()) {
                    if m > i64::MAX as u64 {
                        return Err(PyValueError::new_err(format!(
                            "{what}: value {m} is too large; expected values below 2^63"
                        )));
                    }
                }
            }
            let a = arr.call_method1("astype", ("int64",))?;
            let a = a.cast::<PyArray1<i64>>()?.readonly();
            Ok(a.as_array().iter().copied().collect())
        }
        b'f' => {
            let a = arr.call_method1("astype", ("float64",))?;
            let a = a.cast::<PyArray1<f64>>()?.readonly();
            a.as_array()
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    if x.fract() != 0.0 || !x.is_finite() || x.abs() > 9.0e15 {
                        Err(PyValueError::new_err(format!(
                            "expected integer {what}, entry {i} is {x}"
                        )))
                    } else {
                        Ok(x as i64)
                    }
                })
                .collect()
        }
        _ => Err(PyValueError::new_err(format!(
            "expected an integer array of {what} (int32/int64), got dtype {}",
            dtype_name(&arr)
        ))),
    }
}

/// Labels of any integer values (or floats holding whole numbers) as `0..k`, in
/// increasing order of value, as `magcl eval` maps them; `n` is the number of embeddings.
pub(crate) fn labels(y: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<u32>> {
    let raw = ints(y, "labels")?;
    if raw.len() != n {
        return Err(PyValueError::new_err(format!(
            "y: {} labels, but X has {n} embeddings",
            raw.len()
        )));
    }
    Ok(magcl_eval::dense_labels(&raw))
}

/// Outer folds as a fold index per sample. `folds` is either such an array (what
/// `magcl eval --folds` reads) or an iterable of `(train, test)` index pairs, e.g.
/// scikit-learn's `StratifiedKFold(...).split(X, y)`: split `k`'s test part becomes fold
/// `k`. The test parts must cover every sample exactly once and each training part must
/// be the other samples (the protocol trains on all samples outside the test fold).
pub(crate) fn folds(folds: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<usize>> {
    // A numpy array, or a sequence whose first item is a number: indices per sample.
    let raw = if folds.is_instance_of::<PyUntypedArray>() {
        ints(folds, "fold indices")?
    } else {
        // Materialised once: a generator (scikit-learn's `split`) can be read only once.
        let items = folds.py().get_type::<PyList>().call1((folds,))?;
        let first = items.cast::<PyList>()?.get_item(0).ok();
        let is_number = first.as_ref().is_some_and(|f| {
            f.hasattr("__index__").unwrap_or(false) || f.is_instance_of::<PyFloat>()
        });
        if !is_number {
            return folds_from_splits(&items, n);
        }
        ints(&items, "fold indices")?
    };
    if raw.len() != n {
        return Err(PyValueError::new_err(format!(
            "folds: {} fold indices, but X has {n} embeddings",
            raw.len()
        )));
    }
    raw.into_iter()
        .enumerate()
        .map(|(i, v)| {
            usize::try_from(v)
                .map_err(|_| PyValueError::new_err(format!("fold index {i} is {v}; expected ≥ 0")))
        })
        .collect()
}

fn folds_from_splits(items: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<usize>> {
    let items = items.cast::<PyList>()?;
    if items.is_empty() {
        return Err(PyValueError::new_err(
            "folds is empty; expected a fold index per sample or (train, test) index pairs",
        ));
    }
    let mut fold: Vec<Option<usize>> = vec![None; n];
    let mut trains: Vec<Vec<i64>> = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let pair = item
            .cast::<PySequence>()
            .ok()
            .filter(|s| s.len().ok() == Some(2));
        let Some(pair) = pair else {
            return Err(PyValueError::new_err(format!(
                "folds[{k}]: expected a (train, test) pair of index arrays"
            )));
        };
        let train = ints(
            &pair.get_item(0)?,
            &format!("training indices of split {k}"),
        )?;
        let test = ints(&pair.get_item(1)?, &format!("test indices of split {k}"))?;
        for &i in &test {
            let Some(slot) = usize::try_from(i).ok().and_then(|i| fold.get_mut(i)) else {
                return Err(PyValueError::new_err(format!(
                    "split {k}: test index {i} is not a sample (X has {n} embeddings)"
                )));
            };
            if let Some(j) = *slot {
                return Err(PyValueError::new_err(format!(
                    "sample {i} is in the test parts of splits {j} and {k}; the test parts must cover every sample once"
                )));
            }
            *slot = Some(k);
        }
        trains.push(train);
    }
    let fold: Vec<usize> = fold
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            f.ok_or_else(|| {
                PyValueError::new_err(format!(
                    "sample {i} is in no test part; the test parts must cover every sample once (as StratifiedKFold's do)"
                ))
            })
        })
        .collect::<PyResult<_>>()?;
    for (k, mut train) in trains.into_iter().enumerate() {
        train.sort_unstable();
        let others = (0..n).filter(|&i| fold[i] != k).map(|i| i as i64);
        if !train.iter().copied().eq(others) {
            return Err(PyValueError::new_err(format!(
                "split {k}: the training part is not all the other samples; the protocol trains on every sample outside the test fold"
            )));
        }
    }
    Ok(fold)
}
