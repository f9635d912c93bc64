//! `record`: one result row for a method run outside magcl, appended to a magcl result
//! file the way `magcl bench` appends its rows, so that `magcl report` sets it beside
//! the built-in methods.
use std::path::PathBuf;
use std::time::Instant;

use magcl_report::results::{check_values, one_line, read_rows, ResultRow, ResultsFile};
use magcl_report::{Metric, Report};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

use crate::evaluate::{evaluator_of, run_evaluation, seed_of};
use crate::{json_to_py, to_py_err};

/// Keys of a row's config that `record` writes itself from its arguments.
const OWN_KEYS: [&str; 6] = ["method", "dataset", "seed", "evaluator", "ma", "evaluation"];

/// A Python value (dict, list, tuple, str, int, float, bool, None, numpy scalar) as JSON;
/// `at` names the place in errors (`config.lr`).
fn py_to_json(v: &Bound<'_, PyAny>, at: &str) -> PyResult<Value> {
    if v.is_none() {
        return Ok(Value::Null);
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Value::from(i));
        }
        return v
            .extract::<u64>()
            .map(Value::from)
            .map_err(|_| PyValueError::new_err(format!("{at}: integer out of the 64-bit range")));
    }
    if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        return serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| {
                PyValueError::new_err(format!("{at} is {f}; expected a finite number"))
            });
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Value::String(v.extract()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, x) in d.iter() {
            let Ok(k) = k.extract::<String>() else {
                return Err(PyValueError::new_err(format!(
                    "{at}: keys must be strings, got {}",
                    k.repr().map(|r| r.to_string()).unwrap_or_default()
                )));
            };
            let inner = py_to_json(&x, &format!("{at}.{k}"))?;
            m.insert(k, inner);
        }
        return Ok(Value::Object(m));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, x) in v.try_iter()?.enumerate() {
            out.push(py_to_json(&x?, &format!("{at}[{i}]"))?);
        }
        return Ok(Value::Array(out));
    }
    // numpy scalars and 0-d arrays: their Python value.
    let is_numpy_scalar = v
        .getattr("ndim")
        .and_then(|d| d.extract::<usize>())
        .is_ok_and(|d| d == 0);
    if is_numpy_scalar {
        return py_to_json(&v.call_method0("item")?, at);
    }
    Err(PyValueError::new_err(format!(
        "{at}: expected str, number, bool, None, list or dict, got {}",
        v.get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    )))
}

/// FNV-1a 64 of `text` as 16 hex digits: the hash magcl writes into `config_hash`
/// (`RunConfig::hash` hashes the config's JSON the same way).
fn fnv1a_hex(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Peak resident set size of this process in MB; 0 where unknown.
fn peak_memory_mb() -> f64 {
    magcl_core::files::peak_rss_bytes() as f64 / (1024.0 * 1024.0)
}

fn name_arg(value: &str, what: &str) -> PyResult<String> {
    let v = one_line(value.trim());
    if v.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{what}: expected a non-empty name"
        )));
    }
    Ok(v)
}

/// Append one result row for a run of your own method to the magcl result file `path`
/// (created with its header if missing), as `magcl bench` appends its rows: the file must
/// be a magcl result file (anything else is left untouched), is locked while the row is
/// added, a killed writer's incomplete last line is repaired, and the row is written
/// with one `write` and synced, so a crash never leaves half a row.
///
/// Give either `accuracy` (percent, 0-100, computed by you) or `embeddings` and `labels`
/// (evaluated here with `evaluator`, outer folds drawn from `seed` or given by `folds`,
/// exactly as `evaluate_embedding`). The row's config is your `config` dict plus method,
/// dataset, seed, evaluator, ma and evaluation ("magcl" or "caller"); its hash identifies
/// the cell. Refused with ValueError: a cell already in the file, a row whose
/// configuration (seed aside) differs from the other rows of its group (dataset, method,
/// evaluator, ma, variant; `magcl report` would refuse to average them), values no run
/// can give (accuracy outside [0, 100] or given as a fraction, NMI outside [0, 1],
/// non-finite numbers, a `data_source` other than `PATH sha256:HEX`, `generated` or
/// empty: the copy of the data your run read, empty where you do not say). Returns the
/// row as a dict.
#[pyfunction]
#[pyo3(signature = (
    path, *, method, dataset, seed, config = None, accuracy = None, embeddings = None,
    labels = None, evaluator = "svc-rbf", folds = None, ma = "none", variant = "",
    nmi = None, accuracy_std_folds = None, selected_epoch = None, epochs = 0,
    train_seconds = 0.0, device = "cpu", git_commit = "unknown", warnings = "",
    data_source = ""
))]
#[allow(clippy::too_many_arguments)]
pub fn record<'py>(
    py: Python<'py>,
    path: PathBuf,
    method: &str,
    dataset: &str,
    seed: &Bound<'py, PyAny>,
    config: Option<&Bound<'py, PyAny>>,
    accuracy: Option<f64>,
    embeddings: Option<&Bound<'py, PyAny>>,
    labels: Option<&Bound<'py, PyAny>>,
    evaluator: &str,
    folds: Option<&Bound<'py, PyAny>>,
    ma: &str,
    variant: &str,
    nmi: Option<f64>,
    accuracy_std_folds: Option<f64>,
    selected_epoch: Option<usize>,
    epochs: usize,
    train_seconds: f64,
    device: &str,
    git_commit: &str,
    warnings: &str,
    data_source: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let method = name_arg(method, "method")?;
    let dataset = name_arg(dataset, "dataset")?;
    let ma = name_arg(ma, "ma")?;
    let seed = seed_of(seed)?;
    let ev = evaluator_of(evaluator)?;

    // The accuracy: given, or evaluated here.
    let (accuracy, std_folds, eval_seconds, evaluation) = match (accuracy, embeddings, labels) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(PyValueError::new_err(
                "give accuracy, or embeddings and labels to evaluate, not both",
            ))
        }
        (Some(a), None, None) => {
            if a > 0.0 && a <= 1.0 {
                return Err(PyValueError::new_err(format!(
                    "accuracy is in percent (0-100), got {a}; did you mean {}?",
                    a * 100.0
                )));
            }
            if folds.is_some() {
                return Err(PyValueError::new_err(
                    "folds apply to embeddings evaluated here; with a given accuracy leave them out",
                ));
            }
            (a, accuracy_std_folds, 0.0, "caller")
        }
        (None, Some(x), Some(y)) => {
            if accuracy_std_folds.is_some() {
                return Err(PyValueError::new_err(
                    "accuracy_std_folds comes from the evaluation of the embeddings; leave it out",
                ));
            }
            let t0 = Instant::now();
            let e = run_evaluation(py, x, y, ev, seed, folds, false, false)?;
            (
                e.result.accuracy,
                Some(e.result.std),
                t0.elapsed().as_secs_f64(),
                "magcl",
            )
        }
        (None, Some(_), None) | (None, None, Some(_)) => {
            return Err(PyValueError::new_err(
                "embeddings and labels go together: give both, or an accuracy",
            ))
        }
        (None, None, None) => {
            return Err(PyValueError::new_err(
                "nothing to record: give accuracy, or embeddings and labels to evaluate",
            ))
        }
    };

    // The config: the caller's dict and the row's identity.
    let mut cfg = match config {
        None => Map::new(),
        Some(c) => match py_to_json(c, "config")? {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                return Err(PyValueError::new_err(format!(
                    "config: expected a dict, got {}",
                    match other {
                        Value::Array(_) => "a list",
                        Value::String(_) => "a string",
                        _ => "a scalar",
                    }
                )))
            }
        },
    };
    let own = [
        ("method", Value::from(method.clone())),
        ("dataset", Value::from(dataset.clone())),
        ("seed", Value::from(seed)),
        ("evaluator", Value::from(ev.name())),
        ("ma", Value::from(ma.clone())),
        ("evaluation", Value::from(evaluation)),
    ];
    debug_assert_eq!(own.len(), OWN_KEYS.len());
    for (k, v) in own {
        match cfg.get(k) {
            Some(existing) if *existing != v => {
                return Err(PyValueError::new_err(format!(
                    "config.{k} is {existing} but the row's {k} is {v}; leave {k} out of config (record writes it)"
                )))
            }
            _ => {
                cfg.insert(k.to_string(), v);
            }
        }
    }
    let config_json = serde_json::to_string(&Value::Object(cfg))
        .map_err(|e| PyValueError::new_err(format!("config: {e}")))?;

    let row = ResultRow {
        dataset,
        method,
        ma,
        variant: one_line(variant.trim()),
        seed,
        evaluator: ev.name().to_string(),
        config_hash: fnv1a_hex(&config_json),
        accuracy,
        accuracy_std_folds: std_folds,
        nmi,
        selected_epoch,
        epochs,
        train_seconds,
        eval_seconds,
        peak_memory_mb: peak_memory_mb(),
        device: one_line(device),
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        git_commit: one_line(git_commit),
        magcl_version: env!("CARGO_PKG_VERSION").to_string(),
        config: config_json,
        warnings: one_line(warnings),
        data_source: one_line(data_source.trim()),
    };
    check_values(&row).map_err(PyValueError::new_err)?;

    // Append as bench does: open (checked, locked, repaired), refuse a repeated cell and
    // a row the report could not group, then one write + fsync.
    let (file, existing) = ResultsFile::open(&path, true).map_err(to_py_err)?;
    if existing.done.contains(&row.config_hash) {
        return Err(PyValueError::new_err(format!(
            "{}: already holds this cell ({} · {} · seed {}, config hash {}); a cell is recorded once",
            path.display(),
            row.dataset,
            row.method,
            row.seed,
            row.config_hash
        )));
    }
    let mut rows = read_rows(&path).map_err(to_py_err)?;
    rows.push(row.clone());
    Report::build(rows, Metric::Accuracy).map_err(to_py_err)?;
    file.append(&row).map_err(to_py_err)?;
    drop(file);
    let v = serde_json::to_value(&row).map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_to_py(py, &v)
}
