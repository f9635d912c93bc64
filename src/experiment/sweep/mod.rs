//! Sweeps: a TOML file that names datasets × methods × MA settings × seeds × evaluators
//! (plus overrides and optional grids over any config key) expands into [`Cell`]s, each
//! one run resolved with [`RunConfig::resolve`].
//!
//! Every problem in the file is reported with the file name and the line of the offending
//! key or value, and every cell is resolved (validated) while the sweep is loaded, so a
//! sweep that loads runs no cell that could have been rejected up front.
//!
//! ```toml
//! name = "quick"
//! datasets = ["synthetic", "MUTAG"]
//! methods = ["graphcl"]
//! seeds = 3                      # 0, 1, 2; or an explicit list [0, 1, 2]
//! ma = ["none", "ARS"]           # baseline and MA with all three tricks
//!
//! [overrides]                    # applied to every cell (any RunConfig key)
//! epochs = 10
//!
//! [grid]                         # every combination is one variant of each cell
//! ma.pi = [0.1, 0.5]
//! ```
use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value as Json};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::config::{GinMode, MaParams, MethodName, Reading, RunConfig, RunSpec, Task, READINGS};
use crate::error::{Error, Result};

type Span = Range<usize>;

/// The task of a dataset magcl knows by name (see `magcl datasets list`; `tu:PATH` folders
/// are graph sets), `None` for an unknown name.
pub fn known_dataset(name: &str) -> Option<Task> {
    if name.trim().starts_with("tu:") {
        return Some(Task::Graph);
    }
    if name.trim().starts_with("npz:") {
        return Some(Task::Node);
    }
    if matches!(
        crate::data::source::synthetic_node_params(name),
        Ok(Some(_))
    ) {
        return Some(Task::Node);
    }
    crate::data::registry::find(name).map(|d| match d.kind {
        crate::data::registry::DatasetKind::Graph => Task::Graph,
        crate::data::registry::DatasetKind::Node => Task::Node,
    })
}

/// The built-in names (for error messages; any TU collection name is accepted too).
fn dataset_names() -> Vec<&'static str> {
    crate::data::registry::KNOWN
        .iter()
        .map(|d| d.name)
        .collect()
}

/// One run of a sweep.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Position in sweep order (after duplicates are merged).
    pub index: usize,
    pub spec: RunSpec,
    /// Label of the grid point (`key=value` pairs joined by spaces), empty without a grid.
    pub variant: String,
    pub config: RunConfig,
    /// [`RunConfig::hash`] of `config`: identifies the cell in result files.
    pub hash: String,
}

impl Cell {
    /// The readable label of the MA setting (`none` for the baseline).
    pub fn ma_label(&self) -> String {
        self.config.ma_label()
    }

    /// A one-line description, e.g. `MUTAG graphcl [ARS gin+filter] ma.pi=0.1 seed 0`.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} {} [{}]",
            self.config.dataset,
            self.config.method_label(),
            self.ma_label()
        );
        if !self.variant.is_empty() {
            s.push(' ');
            s.push_str(&self.variant);
        }
        s.push_str(&format!(
            " {} seed {}",
            self.config.evaluator, self.config.seed
        ));
        s
    }
}

/// An expanded, validated sweep.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub name: String,
    pub description: String,
    pub path: PathBuf,
    pub cells: Vec<Cell>,
    /// Cells that resolved to a config identical to an earlier cell's and were merged.
    pub duplicates: usize,
}

impl Sweep {
    /// Reads and expands a sweep file.
    pub fn load(path: &Path) -> Result<Sweep> {
        let text = crate::files::read_regular_text(
            path,
            crate::files::MAX_CONFIG_BYTES,
            "a sweep config",
        )?;
        Sweep::parse(&text, path)
    }

    /// Expands the sweep described by `text` (`path` is used in messages).
    pub fn parse(text: &str, path: &Path) -> Result<Sweep> {
        let src = Src { path, text };
        let doc = DeTable::parse(text).map_err(|e| {
            let line = e.span().map(|s| src.line(s.start)).unwrap_or(1);
            Error::parse(path, line, e.message().trim().to_string())
        })?;
        let root = doc.get_ref();
        let mut name = None;
        let mut description = String::new();
        let mut top = Section::default();
        let mut sections: Vec<Section> = Vec::new();
        for (key, value) in sorted_entries(root) {
            let k = key.get_ref().as_ref();
            match k {
                "name" => name = Some(src.string(value)?),
                "description" => description = src.string(value)?,
                "sweep" => {
                    let items = match value.get_ref() {
                        DeValue::Array(a) => a,
                        _ => {
                            return Err(src.err(
                                value.span(),
                                "`sweep` must be an array of tables: write [[sweep]] sections",
                            ))
                        }
                    };
                    for item in items.iter() {
                        let table = match item.get_ref() {
                            DeValue::Table(t) => t,
                            _ => {
                                return Err(
                                    src.err(item.span(), "each [[sweep]] entry must be a table")
                                )
                            }
                        };
                        let mut s = Section {
                            span: item.span(),
                            ..Section::default()
                        };
                        for (k2, v2) in sorted_entries(table) {
                            if !s.read_key(&src, k2, v2)? {
                                return Err(src.err(
                                    k2.span(),
                                    format!(
                                        "unknown key '{}' in [[sweep]]; expected one of {}",
                                        k2.get_ref(),
                                        SECTION_KEYS.join(", ")
                                    ),
                                ));
                            }
                        }
                        sections.push(s);
                    }
                }
                _ => {
                    if !top.read_key(&src, key, value)? {
                        return Err(src.err(
                            key.span(),
                            format!(
                                "unknown key '{k}'; expected name, description, sweep or one of {}",
                                SECTION_KEYS.join(", ")
                            ),
                        ));
                    }
                }
            }
        }
        if let Some(n) = &name {
            check_name(n).map_err(|msg| {
                let line = text
                    .lines()
                    .position(|l| l.trim_start().starts_with("name"))
                    .map_or(1, |i| i + 1);
                Error::parse(path, line, msg)
            })?;
        }
        let name = name.unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "sweep".into())
        });
        if sections.is_empty() {
            sections.push(Section {
                span: 0..0,
                ..Section::default()
            });
        }
        let mut cells = Vec::new();
        let mut seen = HashSet::new();
        let mut duplicates = 0;
        for s in &sections {
            let s = s.inherit(&top);
            let expanded = s.expand(&src)?;
            if cells.len() + expanded.len() > MAX_CELLS {
                return Err(Error::file(
                    path,
                    format!(
                        "the sweep has more than {MAX_CELLS} cells; split it into several sweeps"
                    ),
                ));
            }
            for cell in expanded {
                if seen.insert(cell.hash.clone()) {
                    cells.push(Cell {
                        index: cells.len(),
                        ..cell
                    });
                } else {
                    duplicates += 1;
                }
            }
        }
        if cells.is_empty() {
            return Err(Error::file(path, "the sweep has no cells"));
        }
        Ok(Sweep {
            name,
            description,
            path: path.to_path_buf(),
            cells,
            duplicates,
        })
    }
}

/// The most cells one sweep may have (its expanded configs are held in memory, a few KB
/// each).
pub const MAX_CELLS: usize = 100_000;

/// A sweep's `name` becomes the default result file name (`results/NAME.csv`): it must be
/// a plain file name, not a path.
fn check_name(name: &str) -> std::result::Result<(), String> {
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
        && !name.chars().any(char::is_control);
    if plain {
        Ok(())
    } else {
        Err(format!(
            "name = {name:?}: the name becomes the result file name, so it must be a plain file name (no '/', '\\', leading '.' or control characters)"
        ))
    }
}

const SECTION_KEYS: &[&str] = &[
    "datasets",
    "methods",
    "seeds",
    "ma",
    "evaluators",
    "preset",
    "grid",
    "grid_scope",
    "overrides",
    "method_overrides",
    "dataset_overrides",
];

/// The source text, for turning spans into lines.
struct Src<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Src<'_> {
    fn line(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        1 + self.text.as_bytes()[..end]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
    }
    fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        Error::parse(self.path, self.line(span.start), msg)
    }
    fn string(&self, v: &Spanned<DeValue>) -> Result<String> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            other => Err(self.err(
                v.span(),
                format!("expected a string, found {}", other.type_str()),
            )),
        }
    }
    /// A string or an array of strings, each with its span.
    fn strings(&self, v: &Spanned<DeValue>) -> Result<Vec<(String, Span)>> {
        match v.get_ref() {
            DeValue::String(s) => Ok(vec![(s.to_string(), v.span())]),
            DeValue::Array(a) => {
                let mut out = Vec::new();
                for item in a.iter() {
                    out.push((self.string(item)?, item.span()));
                }
                if out.is_empty() {
                    return Err(self.err(v.span(), "empty list"));
                }
                Ok(out)
            }
            other => Err(self.err(
                v.span(),
                format!(
                    "expected a string or a list of strings, found {}",
                    other.type_str()
                ),
            )),
        }
    }
    fn table<'b, 'i>(&self, v: &'b Spanned<DeValue<'i>>) -> Result<&'b DeTable<'i>> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            other => Err(self.err(
                v.span(),
                format!("expected a table, found {}", other.type_str()),
            )),
        }
    }
    /// A TOML value as JSON (for overrides).
    fn json(&self, v: &Spanned<DeValue>) -> Result<Json> {
        Ok(match v.get_ref() {
            DeValue::String(s) => Json::String(s.to_string()),
            DeValue::Integer(i) => {
                let n = i64::from_str_radix(i.as_str(), i.radix())
                    .map_err(|_| self.err(v.span(), "integer out of range"))?;
                Json::from(n)
            }
            DeValue::Float(f) => {
                let x: f64 = f
                    .as_str()
                    .parse()
                    .map_err(|_| self.err(v.span(), "invalid float"))?;
                serde_json::Number::from_f64(x)
                    .map(Json::Number)
                    .ok_or_else(|| self.err(v.span(), "a setting cannot be nan or infinite"))?
            }
            DeValue::Boolean(b) => Json::Bool(*b),
            DeValue::Datetime(_) => {
                return Err(self.err(v.span(), "dates are not valid settings"));
            }
            DeValue::Array(a) => {
                let mut out = Vec::new();
                for item in a.iter() {
                    out.push(self.json(item)?);
                }
                Json::Array(out)
            }
            DeValue::Table(t) => {
                let mut m = Map::new();
                for (k, item) in sorted_entries(t) {
                    m.insert(k.get_ref().to_string(), self.json(item)?);
                }
                Json::Object(m)
            }
        })
    }
    /// Flattens a table of settings into leaf assignments (`a.b.c = value`).
    fn assigns(&self, t: &DeTable, prefix: &[String], out: &mut Vec<Assign>) -> Result<()> {
        for (k, v) in sorted_entries(t) {
            let mut path = prefix.to_vec();
            path.extend(k.get_ref().split('.').map(str::to_string));
            match v.get_ref() {
                DeValue::Table(inner) => self.assigns(inner, &path, out)?,
                _ => {
                    if let Some(axis) = path
                        .first()
                        .filter(|p| ["task", "method", "dataset", "seed"].contains(&p.as_str()))
                    {
                        let hint = match axis.as_str() {
                            "seed" => "seeds = [...]",
                            "dataset" => "datasets = [...]",
                            "method" => "methods = [...]",
                            _ => "the method (the task follows from it)",
                        };
                        return Err(self.err(
                            k.span(),
                            format!("'{axis}' cannot be overridden; set it with {hint}"),
                        ));
                    }
                    out.push(Assign {
                        path,
                        value: self.json(v)?,
                        span: k.span().start..v.span().end,
                    });
                }
            }
        }
        Ok(())
    }
}

/// Table entries in source order (DeTable iterates keys alphabetically).
fn sorted_entries<'b, 'i>(
    t: &'b DeTable<'i>,
) -> Vec<(
    &'b Spanned<std::borrow::Cow<'i, str>>,
    &'b Spanned<DeValue<'i>>,
)> {
    let mut v: Vec<_> = t.iter().collect();
    v.sort_by_key(|(k, _)| k.span().start);
    v
}

/// One leaf setting: `path = value`, from the span in the file.
#[derive(Clone, Debug)]
struct Assign {
    path: Vec<String>,
    value: Json,
    span: Span,
}

impl Assign {
    fn dotted(&self) -> String {
        self.path.join(".")
    }
}

/// One MA setting of the `ma` list.
#[derive(Clone, Debug)]
struct MaSetting {
    enabled: bool,
    /// Assignments under `ma.` (paths without the `ma` prefix).
    assigns: Vec<Assign>,
    /// Whether the setting names a GIN mode (graph level only).
    gin_mode: bool,
    span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum GridScope {
    All,
    Ma,
}

#[derive(Clone, Debug)]
struct GridAxis {
    path: Vec<String>,
    values: Vec<(Json, Span)>,
}

#[derive(Clone, Debug, Default)]
struct Section {
    span: Span,
    datasets: Option<Vec<(String, Span)>>,
    methods: Option<Vec<(MethodName, Span)>>,
    seeds: Option<Vec<(u64, Span)>>,
    ma: Option<Vec<MaSetting>>,
    evaluators: Option<Vec<(String, Span)>>,
    preset: Option<(String, Span)>,
    grid: Option<Vec<GridAxis>>,
    grid_scope: Option<GridScope>,
    overrides: Vec<Assign>,
    method_overrides: Vec<(MethodName, Vec<Assign>)>,
    dataset_overrides: Vec<(String, Span, Vec<Assign>)>,
}

impl Section {
    /// Reads one key; `false` if the key is not a section key.
    fn read_key(
        &mut self,
        src: &Src,
        key: &Spanned<std::borrow::Cow<str>>,
        v: &Spanned<DeValue>,
    ) -> Result<bool> {
        match key.get_ref().as_ref() {
            "datasets" => {
                let list = src.strings(v)?;
                for (name, span) in &list {
                    if known_dataset(name).is_none() {
                        let hint = dataset_names()
                            .into_iter()
                            .find(|k| k.eq_ignore_ascii_case(name))
                            .map(|k| format!(" (did you mean '{k}'?)"))
                            .unwrap_or_else(|| {
                                format!(
                                    "; built-in datasets: {} (any name of the TU collection, tu:PATH/NAME and npz:PATH work too)",
                                    dataset_names().join(", ")
                                )
                            });
                        return Err(
                            src.err(span.clone(), format!("unknown dataset '{name}'{hint}"))
                        );
                    }
                }
                self.datasets = Some(list);
            }
            "methods" => {
                let mut out = Vec::new();
                for (name, span) in src.strings(v)? {
                    let m = MethodName::parse(&name)
                        .map_err(|e| src.err(span.clone(), e.to_string()))?;
                    out.push((m, span));
                }
                self.methods = Some(out);
            }
            "seeds" => self.seeds = Some(read_seeds(src, v)?),
            "ma" => {
                let items: Vec<&Spanned<DeValue>> = match v.get_ref() {
                    DeValue::Array(a) => a.iter().collect(),
                    _ => vec![v],
                };
                if items.is_empty() {
                    return Err(src.err(
                        v.span(),
                        "`ma` lists no setting; write e.g. [\"none\", \"ARS\"]",
                    ));
                }
                let mut out = Vec::new();
                for item in items {
                    out.push(read_ma(src, item)?);
                }
                self.ma = Some(out);
            }
            "evaluators" => self.evaluators = Some(src.strings(v)?),
            "preset" => {
                let p = src.string(v)?;
                if p != "code" && p != "paper" {
                    return Err(src.err(
                        v.span(),
                        format!("unknown preset '{p}': expected code or paper"),
                    ));
                }
                self.preset = Some((p, v.span()));
            }
            "grid" => {
                let t = src.table(v)?;
                let mut axes = Vec::new();
                read_grid(src, t, &[], &mut axes)?;
                if axes.is_empty() {
                    return Err(src.err(v.span(), "[grid] lists no key"));
                }
                self.grid = Some(axes);
            }
            "grid_scope" => {
                self.grid_scope = Some(match src.string(v)?.as_str() {
                    "all" => GridScope::All,
                    "ma" => GridScope::Ma,
                    other => {
                        return Err(src.err(
                            v.span(),
                            format!("grid_scope must be \"all\" or \"ma\", got '{other}'"),
                        ))
                    }
                })
            }
            "overrides" => src.assigns(src.table(v)?, &[], &mut self.overrides)?,
            "method_overrides" => {
                for (k, inner) in sorted_entries(src.table(v)?) {
                    let m = MethodName::parse(k.get_ref())
                        .map_err(|e| src.err(k.span(), e.to_string()))?;
                    let mut a = Vec::new();
                    src.assigns(src.table(inner)?, &[], &mut a)?;
                    self.method_overrides.push((m, a));
                }
            }
            "dataset_overrides" => {
                for (k, inner) in sorted_entries(src.table(v)?) {
                    let name = k.get_ref().to_string();
                    if known_dataset(&name).is_none() {
                        return Err(src.err(
                            k.span(),
                            format!("unknown dataset '{name}' in [dataset_overrides]"),
                        ));
                    }
                    let mut a = Vec::new();
                    src.assigns(src.table(inner)?, &[], &mut a)?;
                    self.dataset_overrides.push((name, k.span(), a));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// This section with the top level's values where it sets none; overrides of both
    /// apply, the top level's first.
    fn inherit(&self, top: &Section) -> Section {
        let mut overrides = top.overrides.clone();
        overrides.extend(self.overrides.iter().cloned());
        let mut method_overrides = top.method_overrides.clone();
        method_overrides.extend(self.method_overrides.iter().cloned());
        let mut dataset_overrides = top.dataset_overrides.clone();
        dataset_overrides.extend(self.dataset_overrides.iter().cloned());
        Section {
            span: self.span.clone(),
            datasets: self.datasets.clone().or_else(|| top.datasets.clone()),
            methods: self.methods.clone().or_else(|| top.methods.clone()),
            seeds: self.seeds.clone().or_else(|| top.seeds.clone()),
            ma: self.ma.clone().or_else(|| top.ma.clone()),
            evaluators: self.evaluators.clone().or_else(|| top.evaluators.clone()),
            preset: self.preset.clone().or_else(|| top.preset.clone()),
            grid: self.grid.clone().or_else(|| top.grid.clone()),
            grid_scope: self.grid_scope.or(top.grid_scope),
            overrides,
            method_overrides,
            dataset_overrides,
        }
    }

    /// All cells of this section in sweep order: seed → dataset → method → evaluator →
    /// MA setting → grid point (so that an interrupted sweep has complete seeds first).
    fn expand(&self, src: &Src) -> Result<Vec<Cell>> {
        let where_ = |what: &str| src.err(self.span.clone(), format!("the sweep names no {what}"));
        let datasets = self
            .datasets
            .as_ref()
            .ok_or_else(|| where_("datasets (datasets = [...])"))?;
        let methods = self
            .methods
            .as_ref()
            .ok_or_else(|| where_("methods (methods = [...])"))?;
        let seeds = self
            .seeds
            .as_ref()
            .ok_or_else(|| where_("seeds (seeds = N or [...])"))?;
        let default_ma = vec![MaSetting {
            enabled: false,
            assigns: Vec::new(),
            gin_mode: false,
            span: self.span.clone(),
        }];
        let ma = self.ma.as_ref().unwrap_or(&default_ma);
        let evaluators: Vec<Option<&(String, Span)>> = match &self.evaluators {
            Some(e) => e.iter().map(Some).collect(),
            None => vec![None],
        };
        // Every dataset must meet a method of its task, and every method a dataset.
        for (d, span) in datasets {
            let task = known_dataset(d);
            if !methods
                .iter()
                .any(|(m, _)| task.is_some_and(|t| m.supports(t)))
            {
                return Err(src.err(
                    span.clone(),
                    format!(
                        "dataset '{d}' is {}-level but no listed method is",
                        task_str(task)
                    ),
                ));
            }
        }
        for (m, span) in methods {
            if !datasets
                .iter()
                .any(|(d, _)| known_dataset(d).is_some_and(|t| m.supports(t)))
            {
                return Err(src.err(
                    span.clone(),
                    format!(
                        "method '{}' is {}-level but no listed dataset is",
                        m.as_str(),
                        task_str(m.tasks().first().copied())
                    ),
                ));
            }
        }
        // The number of cells is known before any is built: refuse a sweep that could not
        // be held in memory (e.g. `seeds = 3000000`) before expanding it.
        let axes = self.grid.as_deref().unwrap_or(&[]);
        let count = [
            seeds.len(),
            datasets.len(),
            methods.len(),
            ma.len(),
            evaluators.len(),
        ]
        .into_iter()
        .chain(axes.iter().map(|a| a.values.len()))
        .try_fold(1usize, |acc, n| acc.checked_mul(n))
        .filter(|&n| n <= MAX_CELLS);
        if count.is_none() {
            return Err(src.err(
                self.span.clone(),
                format!(
                    "this sweep has more than {MAX_CELLS} cells (seeds × datasets × methods × MA settings × evaluators × grid points); split it into several sweeps"
                ),
            ));
        }
        let points = grid_points(axes);
        let mut cells = Vec::new();
        for (seed, seed_span) in seeds {
            for (dataset, dataset_span) in datasets {
                for (method, method_span) in methods {
                    if !known_dataset(dataset).is_some_and(|t| method.supports(t)) {
                        continue;
                    }
                    for evaluator in &evaluators {
                        for setting in ma {
                            if setting.gin_mode && !method.supports(Task::Graph) {
                                return Err(src.err(
                                    setting.span.clone(),
                                    format!(
                                        "a GIN mode applies to graph-level methods only, not to '{}'",
                                        method.as_str()
                                    ),
                                ));
                            }
                            let with_grid =
                                setting.enabled || self.grid_scope != Some(GridScope::Ma);
                            let no_point = vec![Vec::new()];
                            let pts = if with_grid { &points } else { &no_point };
                            for point in pts {
                                let mut assigns: Vec<Assign> = self.overrides.clone();
                                for (m, a) in &self.method_overrides {
                                    if m == method {
                                        assigns.extend(a.iter().cloned());
                                    }
                                }
                                for (d, _, a) in &self.dataset_overrides {
                                    if d == dataset {
                                        assigns.extend(a.iter().cloned());
                                    }
                                }
                                if let Some((e, span)) = evaluator {
                                    assigns.push(Assign {
                                        path: vec!["evaluator".into()],
                                        value: Json::String(e.clone()),
                                        span: span.clone(),
                                    });
                                }
                                assigns.push(Assign {
                                    path: vec!["ma".into(), "enabled".into()],
                                    value: Json::Bool(setting.enabled),
                                    span: setting.span.clone(),
                                });
                                for a in &setting.assigns {
                                    let mut path = vec!["ma".to_string()];
                                    path.extend(a.path.iter().cloned());
                                    assigns.push(Assign { path, ..a.clone() });
                                }
                                let mut variant = Vec::new();
                                for (axis, (value, span)) in point {
                                    assigns.push(Assign {
                                        path: axis.path.clone(),
                                        value: value.clone(),
                                        span: span.clone(),
                                    });
                                    variant.push(format!("{}={}", axis.path.join("."), value));
                                }
                                let spec = RunSpec {
                                    method: Some(*method),
                                    dataset: dataset.clone(),
                                    seed: *seed,
                                    preset: self.preset.as_ref().map(|(p, _)| p.clone()),
                                    overrides: Map::new(),
                                };
                                let origin = [dataset_span, method_span, seed_span];
                                let (spec, config) = resolve_cell(
                                    src,
                                    spec,
                                    &assigns,
                                    &origin,
                                    self.preset.as_ref(),
                                )?;
                                let hash = config.hash();
                                cells.push(Cell {
                                    index: 0,
                                    spec,
                                    variant: variant.join(" "),
                                    config,
                                    hash,
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(cells)
    }
}

fn task_str(t: Option<Task>) -> &'static str {
    match t {
        Some(Task::Graph) => "graph",
        Some(Task::Node) => "node",
        None => "unknown",
    }
}

/// Builds the JSON overrides of `assigns` (later ones win) and resolves the cell; on error,
/// blames the first assignment whose addition makes resolution fail.
fn resolve_cell(
    src: &Src,
    mut spec: RunSpec,
    assigns: &[Assign],
    origin: &[&Span],
    preset: Option<&(String, Span)>,
) -> Result<(RunSpec, RunConfig)> {
    spec.overrides = build_overrides(assigns);
    match RunConfig::resolve(&spec) {
        Ok(cfg) => Ok((spec, cfg)),
        Err(full) => {
            let mut probe = spec.clone();
            probe.overrides = Map::new();
            if let Err(e) = RunConfig::resolve(&probe) {
                let span = match preset {
                    Some((_, s)) if e.to_string().contains("preset") => s.clone(),
                    _ => origin.first().map(|s| (*s).clone()).unwrap_or(0..0),
                };
                return Err(src.err(span, e.to_string()));
            }
            for k in 1..=assigns.len() {
                probe.overrides = build_overrides(&assigns[..k]);
                if let Err(e) = RunConfig::resolve(&probe) {
                    let a = &assigns[k - 1];
                    return Err(src.err(
                        a.span.clone(),
                        format!(
                            "{} (setting '{}', {} {} seed {})",
                            e,
                            a.dotted(),
                            spec.dataset,
                            spec.method.map(|m| m.as_str()).unwrap_or("graphcl"),
                            spec.seed
                        ),
                    ));
                }
            }
            Err(src.err(
                origin.first().map(|s| (*s).clone()).unwrap_or(0..0),
                full.to_string(),
            ))
        }
    }
}

fn build_overrides(assigns: &[Assign]) -> Map<String, Json> {
    let mut root = Map::new();
    for a in assigns {
        let mut cur = &mut root;
        let (last, parents) = match a.path.split_last() {
            Some(x) => x,
            None => continue,
        };
        for p in parents {
            let slot = cur
                .entry(p.clone())
                .or_insert_with(|| Json::Object(Map::new()));
            if !slot.is_object() {
                *slot = Json::Object(Map::new());
            }
            cur = match slot {
                Json::Object(m) => m,
                _ => unreachable!("slot was just made an object"),
            };
        }
        cur.insert(last.clone(), a.value.clone());
    }
    root
}

fn read_seeds(src: &Src, v: &Spanned<DeValue>) -> Result<Vec<(u64, Span)>> {
    let int = |item: &Spanned<DeValue>| -> Result<i64> {
        match item.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .map_err(|_| src.err(item.span(), "integer out of range")),
            other => Err(src.err(
                item.span(),
                format!("a seed must be an integer, found {}", other.type_str()),
            )),
        }
    };
    let out: Vec<(u64, Span)> = match v.get_ref() {
        DeValue::Integer(_) => {
            let n = int(v)?;
            if n <= 0 {
                return Err(src.err(
                    v.span(),
                    format!(
                        "seeds = {n}: at least one seed is needed (seeds = N runs seeds 0..N-1)"
                    ),
                ));
            }
            if n as u64 > MAX_CELLS as u64 {
                return Err(src.err(
                    v.span(),
                    format!("seeds = {n}: more than the {MAX_CELLS} cells a sweep may have"),
                ));
            }
            (0..n as u64).map(|s| (s, v.span())).collect()
        }
        DeValue::Array(a) => {
            let mut out = Vec::new();
            let mut seen = HashSet::new();
            for item in a.iter() {
                let s = int(item)?;
                if s < 0 {
                    return Err(src.err(item.span(), "a seed must be non-negative"));
                }
                if !seen.insert(s) {
                    return Err(src.err(item.span(), format!("seed {s} is listed twice")));
                }
                out.push((s as u64, item.span()));
            }
            if out.is_empty() {
                return Err(src.err(v.span(), "seeds = []: at least one seed is needed"));
            }
            out
        }
        other => {
            return Err(src.err(
                v.span(),
                format!(
                    "seeds must be a count (seeds = 5) or a list (seeds = [0, 1]), found {}",
                    other.type_str()
                ),
            ))
        }
    };
    Ok(out)
}

/// One entry of `ma`: a string (`"none"`, `"ARS"`, `"AR gin-sum"`, `"ARS code"`, `"on"`,
/// `"-"`: the tricks, then optionally a reading and a GIN mode) or an inline table of MA
/// keys (`{ tricks = "ARS", gin_mode = "filter", view2 = [0, 8] }`,
/// `{ tricks = "ARS", reading = "code", k_branch = "negatives" }`).
fn read_ma(src: &Src, v: &Spanned<DeValue>) -> Result<MaSetting> {
    let span = v.span();
    let mut assigns = Vec::new();
    let mut gin_mode = false;
    let tricks = |s: &str, assigns: &mut Vec<Assign>| -> Result<()> {
        if s != "-" && (s.is_empty() || !s.chars().all(|c| "ARSars".contains(c))) {
            return Err(src.err(
                span.clone(),
                format!("'{s}' is not a set of MA tricks: use letters of ARS (asymmetric, random, shuffle) or '-' for none"),
            ));
        }
        let up = s.to_ascii_uppercase();
        for (c, key) in [('A', "asymmetric"), ('R', "random"), ('S', "shuffle")] {
            assigns.push(Assign {
                path: vec![key.into()],
                value: Json::Bool(up.contains(c)),
                span: span.clone(),
            });
        }
        Ok(())
    };
    match v.get_ref() {
        DeValue::String(s) => {
            let words: Vec<&str> = s.split_whitespace().collect();
            match words.as_slice() {
                [w] if ["none", "off", "baseline"].contains(&w.to_ascii_lowercase().as_str()) => {
                    return Ok(MaSetting {
                        enabled: false,
                        assigns,
                        gin_mode,
                        span,
                    });
                }
                [] => return Err(src.err(span, "empty MA setting; use \"none\" for the baseline")),
                [first, rest @ ..] => {
                    if !["on", "ma"].contains(&first.to_ascii_lowercase().as_str()) {
                        tricks(first, &mut assigns)?;
                    }
                    // each further word is a reading (docs/ma.md) or a GIN mode, once each
                    let (mut reading, mut mode) = (false, false);
                    for word in rest {
                        let (path, value, seen) = if let Ok(r) = Reading::find(word) {
                            ("reading", r.name.to_string(), &mut reading)
                        } else if let Ok(m) = GinMode::parse(word) {
                            gin_mode = true;
                            ("gin_mode", m.as_str().to_string(), &mut mode)
                        } else {
                            return Err(src.err(
                                span,
                                format!("cannot read MA setting '{s}': '{word}' is neither a reading ({}) nor a GIN mode (gin+filter, gin-sum, filter); expected TRICKS [READING] [GIN-MODE], e.g. \"ARS code\" or \"ARS gin-sum\"", READINGS.iter().map(|r| r.name).collect::<Vec<_>>().join(", ")),
                            ));
                        };
                        if std::mem::replace(seen, true) {
                            return Err(
                                src.err(span, format!("MA setting '{s}' names two {path} values"))
                            );
                        }
                        assigns.push(Assign {
                            path: vec![path.into()],
                            value: Json::String(value),
                            span: span.clone(),
                        });
                    }
                }
            }
            Ok(MaSetting {
                enabled: true,
                assigns,
                gin_mode,
                span,
            })
        }
        DeValue::Table(t) => {
            let mut enabled = true;
            let known: Vec<String> = serde_json::to_value(MaParams::default())
                .ok()
                .and_then(|v| v.as_object().map(|m| m.keys().cloned().collect()))
                .unwrap_or_default();
            for (k, item) in sorted_entries(t) {
                let key = k.get_ref().as_ref();
                match key {
                    "tricks" => tricks(&src.string(item)?, &mut assigns)?,
                    "enabled" => match item.get_ref() {
                        DeValue::Boolean(b) => enabled = *b,
                        _ => return Err(src.err(item.span(), "enabled must be true or false")),
                    },
                    _ if known.iter().any(|n| n == key) => {
                        if key == "gin_mode" {
                            gin_mode = true;
                        }
                        assigns.push(Assign {
                            path: vec![key.to_string()],
                            value: src.json(item)?,
                            span: k.span().start..item.span().end,
                        });
                    }
                    _ => {
                        return Err(src.err(
                            k.span(),
                            format!(
                                "unknown MA key '{key}'; expected tricks, enabled or one of {}",
                                known.join(", ")
                            ),
                        ))
                    }
                }
            }
            Ok(MaSetting {
                enabled,
                assigns,
                gin_mode,
                span,
            })
        }
        other => Err(src.err(
            span,
            format!(
                "an MA setting is a string like \"ARS\" or an inline table, found {}",
                other.type_str()
            ),
        )),
    }
}

fn read_grid(src: &Src, t: &DeTable, prefix: &[String], out: &mut Vec<GridAxis>) -> Result<()> {
    for (k, v) in sorted_entries(t) {
        let mut path = prefix.to_vec();
        path.extend(k.get_ref().split('.').map(str::to_string));
        match v.get_ref() {
            DeValue::Table(inner) => read_grid(src, inner, &path, out)?,
            DeValue::Array(a) => {
                if a.is_empty() {
                    return Err(src.err(
                        v.span(),
                        format!("grid axis '{}' lists no value", path.join(".")),
                    ));
                }
                if let Some(first) = path.first() {
                    if ["task", "method", "dataset", "seed"].contains(&first.as_str()) {
                        return Err(src.err(k.span(), format!("'{first}' is an axis of the sweep already; it cannot be a grid key")));
                    }
                }
                let mut values = Vec::new();
                for item in a.iter() {
                    values.push((src.json(item)?, item.span()));
                }
                out.push(GridAxis { path, values });
            }
            other => {
                return Err(src.err(
                    v.span(),
                    format!(
                        "grid values must be a list, e.g. {} = [0.1, 0.5]; found {}",
                        path.join("."),
                        other.type_str()
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// The Cartesian product of the grid axes (one empty point without a grid).
fn grid_points(axes: &[GridAxis]) -> Vec<Vec<(&GridAxis, (Json, Span))>> {
    let mut points: Vec<Vec<(&GridAxis, (Json, Span))>> = vec![Vec::new()];
    for axis in axes {
        let mut next = Vec::new();
        for p in &points {
            for v in &axis.values {
                let mut q = p.clone();
                q.push((axis, v.clone()));
                next.push(q);
            }
        }
        points = next;
    }
    points
}

/// Parses `--shard I/N` (0-based I < N), or `--shard slurm`: the shard of this task of a
/// Slurm job array ([`slurm_shard`] with the process environment).
pub fn parse_shard(s: &str) -> Result<(usize, usize)> {
    if s.trim().eq_ignore_ascii_case("slurm") {
        return slurm_shard(|name| std::env::var(name).ok());
    }
    let bad = || {
        Error::Config(format!(
            "--shard {s}: expected I/N with 0 ≤ I < N, e.g. 0/4"
        ))
    };
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let i: usize = i.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The shard `(I, N)` of a Slurm job-array task, from `SLURM_ARRAY_TASK_ID`,
/// `SLURM_ARRAY_TASK_MIN` and `SLURM_ARRAY_TASK_COUNT` (read through `var`): I = ID − MIN,
/// N = COUNT, so `--array=0-7` and `--array=1-8` both make shards 0…7 of 8. Arrays with a
/// step or a list of ids (`--array=0-15:2`, `--array=1,4,9`) are refused, since their ids
/// do not number the shards 0…N−1.
pub fn slurm_shard(var: impl Fn(&str) -> Option<String>) -> Result<(usize, usize)> {
    let get = |name: &str| -> Result<usize> {
        let v = var(name).ok_or_else(|| {
            Error::Config(format!(
                "--shard slurm: {name} is not set (run inside a Slurm job array, \
                 e.g. sbatch --array=0-7, or give --shard I/N)"
            ))
        })?;
        v.trim().parse().map_err(|_| {
            Error::Config(format!("--shard slurm: {name}={v:?} is not a whole number"))
        })
    };
    let (id, min, count) = (
        get("SLURM_ARRAY_TASK_ID")?,
        get("SLURM_ARRAY_TASK_MIN")?,
        get("SLURM_ARRAY_TASK_COUNT")?,
    );
    let max = var("SLURM_ARRAY_TASK_MAX").and_then(|v| v.trim().parse::<usize>().ok());
    if count == 0
        || id < min
        || id - min >= count
        || max.is_some_and(|m| m < min || m - min + 1 != count)
    {
        return Err(Error::Config(format!(
            "--shard slurm: task {id} of an array from {min} with {count} tasks{} does not \
             number its shards 0…N−1 (use a contiguous array such as --array=0-{}, or --shard I/N)",
            max.map(|m| format!(" up to {m}")).unwrap_or_default(),
            count.max(1) - 1
        )));
    }
    Ok((id - min, count))
}

/// Cells of shard `i` of `n`, dealt by estimated cost ([`estimated_cost`]) so that the
/// shards take about the same time: cells in decreasing order of cost (sweep order among
/// equals) each go to the shard with the least total cost so far (the lowest-numbered
/// among equals). The deal depends only on the cells' configs, so every task of a job
/// array, on any machine, computes the same partition. Each shard keeps sweep order.
pub fn shard(cells: Vec<Cell>, i: usize, n: usize) -> Vec<Cell> {
    let owner = deal_by_cost(
        &cells
            .iter()
            .map(|c| estimated_cost(&c.config))
            .collect::<Vec<_>>(),
        n,
    );
    cells
        .into_iter()
        .zip(owner)
        .filter(|(_, o)| *o == i)
        .map(|(c, _)| c)
        .collect()
}

/// The shard of each item when items of the given costs are dealt greedily to `n` shards,
/// largest first, each to the least-loaded shard (longest-processing-time-first: the
/// largest shard is at most 4/3 of the best possible).
pub fn deal_by_cost(costs: &[f64], n: usize) -> Vec<usize> {
    let n = n.max(1);
    let mut order: Vec<usize> = (0..costs.len()).collect();
    // Stable sort: equal costs keep sweep order.
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]));
    let mut load = vec![0.0f64; n];
    let mut owner = vec![0usize; costs.len()];
    for k in order {
        let mut best = 0;
        for s in 1..n {
            if load[s] < load[best] {
                best = s;
            }
        }
        owner[k] = best;
        load[best] += costs[k];
    }
    owner
}

/// Rough sizes of the datasets magcl knows by name: (graphs, total nodes, total directed
/// edges), from the datasets' published statistics. Unknown sets count as PROTEINS.
fn dataset_size(name: &str) -> (f64, f64, f64) {
    match name {
        "MUTAG" => (188.0, 3_371.0, 7_442.0),
        "NCI1" => (4_110.0, 122_747.0, 265_506.0),
        "NCI109" => (4_127.0, 122_494.0, 265_208.0),
        "PTC_MR" => (344.0, 4_915.0, 10_108.0),
        "DD" => (1_178.0, 334_925.0, 1_686_092.0),
        "IMDB-BINARY" => (1_000.0, 19_773.0, 193_062.0),
        "IMDB-MULTI" => (1_500.0, 19_502.0, 197_806.0),
        "COLLAB" => (5_000.0, 372_474.0, 24_574_420.0),
        "REDDIT-BINARY" => (2_000.0, 859_254.0, 1_991_016.0),
        "REDDIT-MULTI-5K" => (4_999.0, 2_542_713.0, 4_970_318.0),
        "synthetic" => (200.0, 5_000.0, 20_000.0),
        "Cora" => (1.0, 2_708.0, 10_556.0),
        "CiteSeer" => (1.0, 3_327.0, 9_104.0),
        "PubMed" => (1.0, 19_717.0, 88_648.0),
        "Amazon-Computers" => (1.0, 13_752.0, 491_722.0),
        "Amazon-Photo" => (1.0, 7_650.0, 238_162.0),
        "Coauthor-CS" => (1.0, 18_333.0, 163_788.0),
        _ => (1_113.0, 43_471.0, 162_088.0),
    }
}

/// A cell's estimated cost in CPU-seconds of one thread: training (epochs × the data's
/// nodes + edges × the method's cost per element; the node-level loss is quadratic in the
/// nodes) plus evaluation (the RBF SVM's grid search grows with the square of the number
/// of graphs, the linear ones with the number). The factors were fitted to the timings of
/// `results/graph_ma/graph_ma.csv`; only the ratios between cells matter, to deal shards evenly.
pub fn estimated_cost(cfg: &RunConfig) -> f64 {
    let (graphs, nodes, edges) = dataset_size(cfg.dataset.as_str());
    let epochs = cfg.epochs.max(1) as f64;
    let train = match cfg.method {
        MethodName::Graphcl => 2.5e-6 * epochs * (nodes + edges),
        MethodName::Simgrace => 6.0e-6 * epochs * (nodes + edges),
        MethodName::Adgcl => 5.0e-6 * epochs * (nodes + edges),
        MethodName::Base => 2.0e-9 * epochs * nodes * nodes + 1e-6 * epochs * edges,
        _ => 5.0e-6 * epochs * (nodes + edges),
    };
    let eval = match cfg.evaluator.as_str() {
        "svc-rbf" => 3.0e-6 * graphs * graphs,
        "logreg" => 1e-3 * nodes.max(graphs),
        _ => 3.0e-3 * graphs,
    };
    1.0 + train + eval
}

/// A `--only` filter: `key=v1,v2,key2=v3` (a bare value continues the previous key), keys
/// `dataset`, `method`, `seed`, `ma`, `variant`, `evaluator`. A cell passes when, for
/// every key named, its value is one of those listed.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub keys: BTreeMap<String, Vec<String>>,
}

const FILTER_KEYS: &[&str] = &["dataset", "method", "seed", "ma", "variant", "evaluator"];

impl Filter {
    /// Adds one `--only` argument.
    pub fn add(&mut self, arg: &str) -> Result<()> {
        let mut current: Option<String> = None;
        for token in arg.split(',') {
            let token = token.trim();
            if token.is_empty() {
                continue;
            }
            let value = if let Some((k, v)) = token.split_once('=') {
                let k = k.trim().to_ascii_lowercase();
                let k = k
                    .strip_suffix('s')
                    .filter(|k| FILTER_KEYS.contains(k))
                    .map(str::to_string)
                    .unwrap_or(k);
                if !FILTER_KEYS.contains(&k.as_str()) {
                    return Err(Error::Config(format!(
                        "--only {arg}: unknown key '{k}'; expected {}",
                        FILTER_KEYS.join(", ")
                    )));
                }
                current = Some(k);
                v.trim()
            } else {
                token
            };
            let key = current.clone().ok_or_else(|| {
                Error::Config(format!(
                    "--only {arg}: expected key=value, e.g. dataset=MUTAG"
                ))
            })?;
            self.keys.entry(key).or_default().push(value.to_string());
        }
        Ok(())
    }

    fn value(cell: &Cell, key: &str) -> String {
        match key {
            "dataset" => cell.config.dataset.clone(),
            "method" => cell.config.method_label(),
            "seed" => cell.config.seed.to_string(),
            "ma" => cell.ma_label(),
            "variant" => cell.variant.clone(),
            _ => cell.config.evaluator.clone(),
        }
    }

    fn matches_value(key: &str, wanted: &str, actual: &str) -> bool {
        match key {
            // `adgcl-fixed` is AD-GCL with the fixed augmenter (`RunConfig::method_label`)
            "method" => {
                wanted.eq_ignore_ascii_case(actual)
                    || MethodName::parse(wanted)
                        .map(|m| m.as_str() == actual)
                        .unwrap_or(false)
            }
            "dataset" => wanted.eq_ignore_ascii_case(actual),
            // `ma=ARS` also matches `ARS gin+filter` (the tricks without the GIN mode).
            "ma" => {
                wanted.eq_ignore_ascii_case(actual)
                    || actual
                        .split_whitespace()
                        .next()
                        .is_some_and(|t| t.eq_ignore_ascii_case(wanted))
            }
            _ => wanted == actual,
        }
    }

    /// The cells that pass; an error if a listed value matches no cell at all (a typo).
    pub fn apply(&self, cells: Vec<Cell>) -> Result<Vec<Cell>> {
        for (key, wanted) in &self.keys {
            let present: Vec<String> = {
                let mut v: Vec<String> = cells.iter().map(|c| Self::value(c, key)).collect();
                v.sort();
                v.dedup();
                v
            };
            for w in wanted {
                if !present.iter().any(|p| Self::matches_value(key, w, p)) {
                    return Err(Error::Config(format!(
                        "--only {key}={w}: no cell has this {key}; the sweep has {}",
                        present
                            .iter()
                            .map(|p| format!("'{p}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
        }
        Ok(cells
            .into_iter()
            .filter(|c| {
                self.keys.iter().all(|(key, wanted)| {
                    let actual = Self::value(c, key);
                    wanted.iter().any(|w| Self::matches_value(key, w, &actual))
                })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Sweep> {
        Sweep::parse(text, Path::new("t.toml"))
    }

    #[test]
    fn expands_the_product_in_order() {
        let s = parse(
            r#"
datasets = ["MUTAG", "PROTEINS"]
methods = ["graphcl"]
seeds = 2
ma = ["none", "ARS", "AR gin-sum"]
[overrides]
epochs = 3
"#,
        )
        .unwrap();
        assert_eq!(s.cells.len(), 2 * 2 * 3);
        let c = &s.cells[0];
        assert_eq!((c.config.seed, c.config.dataset.as_str()), (0, "MUTAG"));
        assert_eq!(c.ma_label(), "none");
        assert_eq!(c.config.epochs, 3);
        assert_eq!(s.cells[2].ma_label(), "AR gin-sum");
        assert_eq!(s.cells[6].config.seed, 1);
        assert_eq!(s.name, "t");
    }

    #[test]
    fn grid_and_scope() {
        let s = parse(
            r#"
datasets = "MUTAG"
methods = "graphcl"
seeds = [3]
ma = ["none", "ARS"]
grid_scope = "ma"
[grid]
ma.pi = [0.1, 0.9]
"#,
        )
        .unwrap();
        let v: Vec<(String, String)> = s
            .cells
            .iter()
            .map(|c| (c.ma_label(), c.variant.clone()))
            .collect();
        assert_eq!(
            v,
            vec![
                ("none".into(), "".into()),
                ("ARS gin+filter".into(), "ma.pi=0.1".into()),
                ("ARS gin+filter".into(), "ma.pi=0.9".into())
            ]
        );
        assert_eq!(s.cells[2].config.ma.pi, 0.9);
    }

    fn err_line(text: &str) -> (usize, String) {
        match parse(text) {
            Err(Error::Parse { line, msg, .. }) => (line, msg),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn errors_name_the_line() {
        let base = "methods = [\"graphcl\"]\nseeds = 2\n";
        let (l, m) = err_line(&format!("{base}datasets = [\"MUTAG\",\n  \"MUTAGG\"]\n"));
        assert_eq!(l, 4, "{m}");
        assert!(m.contains("MUTAGG"), "{m}");
        let (l, m) = err_line(&format!(
            "{base}datasets = [\"MUTAG\"]\n[overrides]\nepochs = 2\nepoch = 3\n"
        ));
        assert_eq!(l, 6, "{m}");
        assert!(m.contains("epoch"), "{m}");
        let (l, m) = err_line(&format!("{base}datasets = [\"MUTAG\"]\nma = [\"none\",\n {{ tricks = \"ARS\", view1 = [3, 1] }}]\n"));
        assert_eq!(l, 5, "{m}");
        assert!(m.contains("ma.view1"), "{m}");
        let (l, _) = err_line("methods = [\"graphcl\"]\nseeds = 0\ndatasets = [\"MUTAG\"]\n");
        assert_eq!(l, 2);
        let (l, m) = err_line("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\n[overrides]\naugment.edge_drop = 1.5\n");
        assert_eq!(l, 5, "{m}");
        let (l, m) =
            err_line("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\nbogus = 1\n");
        assert_eq!(l, 4, "{m}");
        let (l, m) = err_line(
            "datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\n[grid]\nma.pi = []\n",
        );
        assert_eq!(l, 5, "{m}");
    }

    #[test]
    fn readings_and_the_adgcl_control() {
        let s = parse(
            r#"
datasets = ["MUTAG"]
seeds = 1
[[sweep]]
methods = ["graphcl", "simgrace"]
ma = ["none", "ARS current", "ARS code", "ARS paper gin-sum",
      { tricks = "ARS", reading = "code", k_branch = "negatives" }]
[[sweep]]
methods = ["adgcl"]
ma = ["none"]
[[sweep]]
methods = ["adgcl"]
ma = ["none", "ARS code"]
[sweep.overrides]
adgcl.augmenter = "fixed"
"#,
        )
        .unwrap();
        let got: Vec<(String, String)> = s
            .cells
            .iter()
            .map(|c| (c.config.method_label(), c.ma_label()))
            .collect();
        let want = [
            ("graphcl", "none"),
            ("graphcl", "ARS gin+filter"),
            ("graphcl", "ARS code"),
            ("graphcl", "ARS paper gin-sum"),
            ("graphcl", "ARS code k_branch=negatives"),
            ("simgrace", "none"),
            ("simgrace", "ARS gin+filter"),
            ("simgrace", "ARS code"),
            ("simgrace", "ARS paper gin-sum"),
            ("simgrace", "ARS code k_branch=negatives"),
            ("adgcl", "none"),
            ("adgcl-fixed", "none"),
            ("adgcl-fixed", "ARS code"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(
            s.cells[2].config.ma.redraw,
            crate::experiment::config::Redraw::Epoch
        );
        let f = |text: &str| {
            err_line(&format!(
                "datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\nma = [{text}]\n"
            ))
        };
        let (l, m) = f("\"ARS codes\"");
        assert_eq!(l, 4);
        assert!(m.contains("'codes' is neither a reading"), "{m}");
        let (_, m) = f("\"ARS code paper\"");
        assert!(m.contains("two reading values"), "{m}");
        let (_, m) = f("{ tricks = \"ARS\", reading = \"nope\" }");
        assert!(m.contains("unknown MA reading 'nope'"), "{m}");
    }

    #[test]
    fn filter_and_shards() {
        let s = parse("datasets = [\"MUTAG\", \"NCI1\"]\nmethods = \"graphcl\"\nseeds = 3\nma = [\"none\", \"ARS\"]\n").unwrap();
        let mut f = Filter::default();
        f.add("dataset=MUTAG,seed=0,1").unwrap();
        let cells = f.apply(s.cells.clone()).unwrap();
        assert_eq!(cells.len(), 4);
        f.add("ma=ARS").unwrap();
        let cells = f.apply(s.cells.clone()).unwrap();
        assert_eq!(cells.len(), 2);
        assert!(cells.iter().all(|c| c.ma_label() == "ARS gin+filter"));
        let mut f = Filter::default();
        f.add("dataset=Cora").unwrap();
        assert!(f.apply(s.cells.clone()).is_err());
        // Every cell in exactly one shard, each shard in sweep order.
        let mut seen = Vec::new();
        for i in 0..5 {
            let part = shard(s.cells.clone(), i, 5);
            assert!(part.windows(2).all(|w| w[0].index < w[1].index));
            seen.extend(part.iter().map(|c| c.index));
        }
        seen.sort();
        assert_eq!(seen, (0..s.cells.len()).collect::<Vec<_>>());
        assert_eq!(parse_shard("1/3").unwrap(), (1, 3));
        assert!(parse_shard("3/3").is_err());
    }

    #[test]
    fn shards_are_dealt_by_cost() {
        // Hand-dealt: 5→A, 4→B, 3→B (7), 3→A (8), 2→B (9), 1→A (9).
        assert_eq!(
            deal_by_cost(&[5.0, 4.0, 3.0, 3.0, 2.0, 1.0], 2),
            vec![0, 1, 1, 0, 1, 0]
        );
        // Equal costs: round-robin in sweep order.
        assert_eq!(deal_by_cost(&[1.0; 5], 2), vec![0, 1, 0, 1, 0]);
        assert_eq!(deal_by_cost(&[1.0, 2.0], 4), vec![1, 0]);
        // A sweep of cheap and expensive cells: dealing by cost balances the shards far
        // better than taking every n-th cell, and both tasks compute the same deal.
        let s = parse(
            "datasets = [\"MUTAG\", \"NCI1\", \"PROTEINS\"]\nmethods = [\"graphcl\", \"adgcl\"]\nseeds = 4\nma = [\"none\", \"ARS\"]\n",
        )
        .unwrap();
        let load = |cells: &[Cell]| cells.iter().map(|c| estimated_cost(&c.config)).sum::<f64>();
        let n = 4;
        let dealt: Vec<f64> = (0..n)
            .map(|i| load(&shard(s.cells.clone(), i, n)))
            .collect();
        let modulo: Vec<f64> = (0..n)
            .map(|i| {
                let part: Vec<Cell> = s
                    .cells
                    .iter()
                    .filter(|c| c.index % n == i)
                    .cloned()
                    .collect();
                load(&part)
            })
            .collect();
        let spread = |v: &[f64]| {
            v.iter().cloned().fold(f64::MIN, f64::max) / v.iter().cloned().fold(f64::MAX, f64::min)
        };
        assert!(spread(&dealt) < 1.1, "{dealt:?}");
        assert!(spread(&dealt) < spread(&modulo), "{dealt:?} vs {modulo:?}");
        // Costs order the work as measured: an AD-GCL NCI1 run costs more than a GraphCL
        // MUTAG run, and the RBF SVM on NCI1 more than on MUTAG.
        let cost = |d: &str, m: &str| {
            let c = s
                .cells
                .iter()
                .find(|c| c.config.dataset == d && c.config.method_label() == m)
                .unwrap();
            estimated_cost(&c.config)
        };
        assert!(cost("NCI1", "adgcl") > 10.0 * cost("MUTAG", "graphcl"));
        assert!(cost("NCI1", "graphcl") > cost("PROTEINS", "graphcl"));
    }

    /// A faked Slurm environment: `(name, value)` pairs.
    fn slurm(vars: &[(&str, &str)]) -> Result<(usize, usize)> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        slurm_shard(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn slurm_job_arrays_number_shards_from_zero() {
        let task = |id: &str, min: &str, max: &str, count: &str| {
            slurm(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_MAX", max),
                ("SLURM_ARRAY_TASK_COUNT", count),
            ])
        };
        // --array=0-7 and --array=1-8 give the same shards.
        assert_eq!(task("0", "0", "7", "8").unwrap(), (0, 8));
        assert_eq!(task("7", "0", "7", "8").unwrap(), (7, 8));
        assert_eq!(task("1", "1", "8", "8").unwrap(), (0, 8));
        assert_eq!(task("8", "1", "8", "8").unwrap(), (7, 8));
        // A step (--array=0-14:2: ids 0,2,…,14, 8 tasks) or a list leaves gaps: refused.
        assert!(task("2", "0", "14", "8").is_err());
        assert!(task("9", "1", "9", "3").is_err());
        // Outside a job array, or with a broken value: a clear error naming the variable.
        let e = slurm(&[]).unwrap_err().to_string();
        assert!(e.contains("SLURM_ARRAY_TASK_ID"), "{e}");
        let e = task("x", "0", "7", "8").unwrap_err().to_string();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID") && e.contains("whole number"),
            "{e}"
        );
    }
}
