//! `report`: magcl-report's report of result files, as data and as markdown.
use std::path::PathBuf;

use magcl_eval::stats;
use magcl_report::claims::ClaimsFile;
use magcl_report::{render, Group, HolmScope, Metric};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use serde_json::Value;

use crate::{json_to_py, to_py_err};

/// The report of magcl result files (what `magcl report` prints), as data and text.
///
/// Attributes: `markdown` (the report `magcl report` prints, plus the table against
/// `baseline` when one was named), `csv` (`magcl report --format csv`), `data` (the whole
/// report as a dict: `magcl report --format json`), `groups` (one entry per dataset ×
/// method × evaluator × MA × variant: n, mean, std, ci95, min, max, by_seed),
/// `comparisons` (each +MA group against its baseline, paired by seed) and
/// `vs_baseline` (each method against the `baseline` method, paired by seed). The three
/// tables are pandas DataFrames when pandas is installed (or `as_frame=True`), else lists
/// of dicts.
#[pyclass(module = "magcl", frozen)]
pub struct Report {
    #[pyo3(get)]
    markdown: String,
    #[pyo3(get)]
    csv: String,
    #[pyo3(get)]
    data: Py<PyAny>,
    #[pyo3(get)]
    groups: Py<PyAny>,
    #[pyo3(get)]
    comparisons: Py<PyAny>,
    #[pyo3(get)]
    vs_baseline: Py<PyAny>,
}

#[pymethods]
impl Report {
    fn __str__(&self) -> String {
        self.markdown.clone()
    }
    fn __repr__(&self) -> String {
        let first = self.markdown.lines().next().unwrap_or("");
        format!("<magcl.Report: {first}>")
    }
    /// Jupyter shows the markdown.
    fn _repr_markdown_(&self) -> String {
        self.markdown.clone()
    }
}

/// `paths`: one path (str or os.PathLike) or an iterable of them.
fn paths_of(paths: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if paths.is_instance_of::<PyString>() || paths.hasattr("__fspath__")? {
        return Ok(vec![paths.extract::<PathBuf>()?]);
    }
    let mut out = Vec::new();
    for p in paths.try_iter()? {
        out.push(p?.extract::<PathBuf>()?);
    }
    if out.is_empty() {
        return Err(PyValueError::new_err("no result file given"));
    }
    Ok(out)
}

/// One method against another on the same dataset, evaluator and split, paired by seed.
fn versus(g: &Group, base: &Group) -> Option<Value> {
    let (seeds, b, t) = magcl_report::paired_by_seed(g, base);
    let test = stats::paired_comparison(&b, &t)?;
    let mut v = serde_json::json!({
        "dataset": g.key.dataset,
        "method": g.key.method,
        "evaluator": g.key.evaluator,
        "ma": g.key.ma,
        "variant": g.key.variant,
        "baseline": base.key.method,
        "seeds": seeds,
        "baseline_mean": stats::mean(&b),
        "mean": stats::mean(&t),
        "few_seeds": seeds.len() < magcl_report::MIN_SEEDS,
    });
    if let (Some(o), Ok(Value::Object(t))) = (v.as_object_mut(), serde_json::to_value(&test)) {
        o.extend(t);
    }
    Some(v)
}

/// Every group whose method is not `baseline` against the baseline group (`baseline`,
/// MA none, no variant) of the same dataset, evaluator and split, paired by seed; Holm's
/// correction over the datasets of each (method, evaluator, MA, variant).
fn vs_baseline(groups: &[Group], baseline: &str) -> Vec<Value> {
    let mut out: Vec<Value> = groups
        .iter()
        .filter(|g| g.key.method != baseline)
        .filter_map(|g| {
            let base = groups.iter().find(|b| {
                b.key.method == baseline
                    && b.key.ma == "none"
                    && b.key.variant.is_empty()
                    && b.key.dataset == g.key.dataset
                    && b.key.evaluator == g.key.evaluator
                    && b.key.split == g.key.split
            })?;
            versus(g, base)
        })
        .collect();
    let family = |v: &Value| {
        ["method", "evaluator", "ma", "variant"].map(|k| v[k].as_str().unwrap_or("").to_string())
    };
    let mut fams: Vec<[String; 4]> = out.iter().map(family).collect();
    fams.sort();
    fams.dedup();
    for f in fams {
        let idx: Vec<usize> = (0..out.len()).filter(|&i| family(&out[i]) == f).collect();
        let ps: Vec<Option<f64>> = idx
            .iter()
            .map(|&i| out[i]["t_test"]["p"].as_f64())
            .collect();
        for (j, p) in stats::holm(&ps).into_iter().enumerate() {
            if let Some(o) = out[idx[j]].as_object_mut() {
                o.insert("p_t_holm".into(), serde_json::json!(p));
            }
        }
    }
    out
}

fn fmt(x: Option<f64>, d: usize) -> String {
    x.map_or("–".into(), |v| format!("{v:.d$}"))
}

/// The markdown table of [`vs_baseline`].
fn vs_baseline_markdown(rows: &[Value], baseline: &str, metric: Metric) -> String {
    let d = metric.decimals();
    let mut s = format!(
        "\n## Against {baseline}, paired by seed\n\n\
         Δ = method − {baseline} over the seeds both have; 95% t-interval of Δ; paired t-test, \
         Holm-corrected over the datasets of each method, evaluator, MA setting and variant; \
         MDE = minimum detectable effect at 80% power.\n\n\
         | dataset | method | MA | variant | evaluator | pairs | {baseline} | method | Δ [95% CI] | MDE | p (t) | p (Holm) |\n\
         |---|---|---|---|---|--:|--:|--:|---|--:|--:|--:|\n"
    );
    for r in rows {
        let ci = match (r["ci95_diff"][0].as_f64(), r["ci95_diff"][1].as_f64()) {
            (Some(a), Some(b)) => format!(" [{a:+.d$}, {b:+.d$}]"),
            _ => String::new(),
        };
        let few = if r["few_seeds"].as_bool() == Some(true) {
            " (few seeds)"
        } else {
            ""
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {}{few} | {} | {} | {:+.d$}{ci} | {} | {} | {} |\n",
            r["dataset"].as_str().unwrap_or(""),
            r["method"].as_str().unwrap_or(""),
            r["ma"].as_str().unwrap_or(""),
            r["variant"].as_str().unwrap_or(""),
            r["evaluator"].as_str().unwrap_or(""),
            r["seeds"].as_array().map_or(0, Vec::len),
            fmt(r["baseline_mean"].as_f64(), d),
            fmt(r["mean"].as_f64(), d),
            r["mean_diff"].as_f64().unwrap_or(f64::NAN),
            fmt(r["mde"].as_f64(), d),
            fmt(r["t_test"]["p"].as_f64(), 4),
            fmt(r["p_t_holm"].as_f64(), 4),
        ));
    }
    if rows.is_empty() {
        s.push_str(&format!(
            "\n(no method shares a dataset, evaluator and seeds with {baseline})\n"
        ));
    }
    s
}

/// A table (a list of dicts) as a pandas DataFrame (when `as_frame` says so, or pandas is
/// importable and `as_frame` is None) or as it is.
fn table<'py>(
    py: Python<'py>,
    list: Bound<'py, PyAny>,
    as_frame: Option<bool>,
) -> PyResult<Py<PyAny>> {
    let pandas = match as_frame {
        Some(false) => None,
        Some(true) => Some(py.import("pandas")?),
        None => py.import("pandas").ok(),
    };
    Ok(match pandas {
        Some(pd) => pd.getattr("DataFrame")?.call1((list,))?.unbind(),
        None => list.unbind(),
    })
}

/// The report of magcl result files, as `magcl report` makes it: groups (dataset ×
/// method × evaluator × MA × variant; rows with the same config hash count once, and
/// the rows of a group must share their configuration, seed aside), each +MA group
/// against its baseline paired by seed, and with `baseline="graphcl"` (say) every method
/// against that method, paired by seed (your method beside the built-in ones).
///
/// paths: one result CSV or a list of them. metric: "accuracy" or "nmi". holm:
/// "family" or "table" (`magcl report --holm`). claims: a claims file
/// (`magcl report --claims`). as_frame: tables as pandas DataFrames (True), lists of
/// dicts (False) or DataFrames when pandas is installed (None). Returns a `magcl.Report`.
#[pyfunction]
#[pyo3(signature = (paths, metric = "accuracy", holm = "family", claims = None, baseline = None, as_frame = None))]
pub fn report<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    metric: &str,
    holm: &str,
    claims: Option<PathBuf>,
    baseline: Option<&str>,
    as_frame: Option<bool>,
) -> PyResult<Report> {
    let files = paths_of(paths)?;
    let metric = Metric::parse(metric).map_err(to_py_err)?;
    let scope = HolmScope::parse(holm).map_err(to_py_err)?;
    let mut r = magcl_report::Report::from_files(&files, metric).map_err(to_py_err)?;
    r.set_holm_scope(scope);
    if let Some(c) = &claims {
        let cf = ClaimsFile::read(c).map_err(to_py_err)?;
        r.add_claims(c, &cf);
    }
    let mut markdown = render::markdown(&r);
    let csv = render::csv(&r).map_err(to_py_err)?;
    let json = render::json(&r).map_err(to_py_err)?;
    // Python's json reads the numbers back exactly as written (the same floats as
    // `magcl report --format json` gives to any JSON reader).
    let data = py.import("json")?.call_method1("loads", (json,))?;
    let versus_rows = match baseline {
        Some(b) => {
            if !r.groups.iter().any(|g| g.key.method == b) {
                let mut m: Vec<&str> = r.groups.iter().map(|g| g.key.method.as_str()).collect();
                m.sort();
                m.dedup();
                return Err(PyValueError::new_err(format!(
                    "baseline: no rows of method '{b}' in the files; methods present: {}",
                    m.join(", ")
                )));
            }
            let rows = vs_baseline(&r.groups, b);
            markdown.push_str(&vs_baseline_markdown(&rows, b, metric));
            rows
        }
        None => Vec::new(),
    };
    let versus = PyList::empty(py);
    for v in &versus_rows {
        versus.append(json_to_py(py, v)?)?;
    }
    Ok(Report {
        markdown,
        csv,
        groups: table(py, data.get_item("groups")?, as_frame)?,
        comparisons: table(py, data.get_item("comparisons")?, as_frame)?,
        vs_baseline: table(py, versus.into_any(), as_frame)?,
        data: data.unbind(),
    })
}
