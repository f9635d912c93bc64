//! # magcl-py — magcl from Python
//!
//! The Python module `magcl` (built with maturin as an abi3 wheel for CPython ≥ 3.9):
//! magcl-eval's evaluators and magcl-report's result files and reports, called from a
//! training script. Nothing here re-implements a protocol or a statistic; every function
//! converts its Python arguments, calls the same library function the `magcl` binary
//! calls, and converts the answer back.
//!
//! | Python | Rust | the CLI's twin |
//! |---|---|---|
//! | `evaluate_embedding(X, y, ...)` | [`magcl_eval::evaluate`], [`magcl_eval::evaluate_with_validation`] | `magcl eval --json` |
//! | `kmeans_nmi(X, y, ...)`, `nmi_score(a, b)` | [`magcl_eval::kmeans_nmi`], [`magcl_eval::nmi`] | `magcl eval --nmi` |
//! | `record(path, ...)` | [`magcl_report::results::ResultsFile`] | a row of `magcl bench` |
//! | `report(paths, ...)` | [`magcl_report::Report`], [`magcl_report::render`] | `magcl report` |
//!
//! Errors: bad input (shapes, dtypes, values, lengths) raises `ValueError` with the
//! message the library gives the CLI; file-system problems raise `OSError`.
//! Nothing panics on user input. Everything is tested from Python (`python/tests/`).
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

mod arrays;
mod evaluate;
mod record;
mod report;

/// A magcl error as the Python exception that fits it: `OSError` for the file system,
/// `ValueError` for everything the caller gave.
pub(crate) fn to_py_err(e: magcl_core::Error) -> PyErr {
    match e {
        magcl_core::Error::Io(_) | magcl_core::Error::File { .. } => {
            PyOSError::new_err(e.to_string())
        }
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A JSON value as the Python value it spells (dicts keep the JSON's key order).
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(json_to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// magcl from Python: the evaluation protocols of the graph contrastive learning papers
/// (nested-CV SVC, linear SVC, logistic regression; k-means NMI) and magcl's result
/// files and reports. See docs/python.md.
#[pymodule]
#[pyo3(name = "magcl")]
fn magcl_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "EVALUATORS",
        magcl_eval::Evaluator::ALL
            .iter()
            .map(|e| e.name())
            .collect::<Vec<_>>(),
    )?;
    m.add("C_GRID", magcl_eval::C_GRID.to_vec())?;
    m.add("OUTER_FOLDS", magcl_eval::OUTER_FOLDS)?;
    m.add("INNER_FOLDS", magcl_eval::INNER_FOLDS)?;
    m.add("COLUMNS", magcl_report::results::COLUMNS.to_vec())?;
    m.add_function(wrap_pyfunction!(evaluate::evaluate_embedding, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::kmeans_nmi, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::nmi_score, m)?)?;
    m.add_function(wrap_pyfunction!(record::record, m)?)?;
    m.add_function(wrap_pyfunction!(report::report, m)?)?;
    m.add_class::<report::Report>()?;
    Ok(())
}
