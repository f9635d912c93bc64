//! Sections into cells: the product of a section's axes and grid, in sweep order, each
//! cell resolved (validated) with [`RunConfig::resolve`]; a cell whose config equals an
//! earlier cell's is merged into it.
use std::collections::HashSet;

use serde_json::{Map, Value as Json};

use super::ma_setting::MaSetting;
use super::{known_dataset, Cell, Span, Src, MAX_CELLS};
use crate::error::{Error, Result};
use crate::experiment::config::{MethodName, RunConfig, RunSpec, Task};

/// One leaf setting: `path = value`, from the span in the file.
#[derive(Clone, Debug)]
pub(super) struct Assign {
    pub path: Vec<String>,
    pub value: Json,
    pub span: Span,
}

impl Assign {
    fn dotted(&self) -> String {
        self.path.join(".")
    }
}

/// Which cells a grid applies to: all, or only those with MA enabled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum GridScope {
    All,
    Ma,
}

/// One key of `[grid]` and its values.
#[derive(Clone, Debug)]
pub(super) struct GridAxis {
    pub path: Vec<String>,
    pub values: Vec<(Json, Span)>,
}

/// A section as read from the file: the top level or one `[[sweep]]` entry.
#[derive(Clone, Debug, Default)]
pub(super) struct Section {
    pub span: Span,
    pub datasets: Option<Vec<(String, Span)>>,
    pub methods: Option<Vec<(MethodName, Span)>>,
    pub seeds: Option<Vec<(u64, Span)>>,
    pub ma: Option<Vec<MaSetting>>,
    pub evaluators: Option<Vec<(String, Span)>>,
    pub preset: Option<(String, Span)>,
    pub grid: Option<Vec<GridAxis>>,
    pub grid_scope: Option<GridScope>,
    pub overrides: Vec<Assign>,
    pub method_overrides: Vec<(MethodName, Vec<Assign>)>,
    pub dataset_overrides: Vec<(String, Span, Vec<Assign>)>,
}

/// The cells of a sweep in order: each `[[sweep]]` section (the top level alone when there
/// is none) with the top level's values where it sets none. A cell whose config equals an
/// earlier cell's is merged into it; returns the cells and the number merged.
pub(super) fn cells(src: &Src, top: &Section, sections: &[Section]) -> Result<(Vec<Cell>, usize)> {
    let lone = [Section {
        span: 0..0,
        ..Section::default()
    }];
    let sections = if sections.is_empty() {
        &lone[..]
    } else {
        sections
    };
    let mut cells = Vec::new();
    let mut seen = HashSet::new();
    let mut duplicates = 0;
    for s in sections {
        let expanded = s.inherit(top).expand(src)?;
        if cells.len() + expanded.len() > MAX_CELLS {
            return Err(Error::file(
                src.path,
                format!("the sweep has more than {MAX_CELLS} cells; split it into several sweeps"),
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
        return Err(Error::file(src.path, "the sweep has no cells"));
    }
    Ok((cells, duplicates))
}

impl Section {
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
        let default_ma = vec![MaSetting::baseline(self.span.clone())];
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
                            spec.method.map_or("the default method", |m| m.as_str()),
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

#[cfg(test)]
mod tests {
    use super::super::tests::parse;

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

    #[test]
    fn identical_cells_are_merged_in_sweep_order() {
        // "off" is the baseline again: the second section adds only its ARS cells.
        let s = parse(
            "datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 2\n[[sweep]]\nma = [\"none\"]\n[[sweep]]\nma = [\"off\", \"ARS\"]\n",
        )
        .unwrap();
        let got: Vec<(usize, u64, String)> = s
            .cells
            .iter()
            .map(|c| (c.index, c.config.seed, c.ma_label()))
            .collect();
        let want = [
            (0, 0, "none"),
            (1, 1, "none"),
            (2, 0, "ARS gin+filter"),
            (3, 1, "ARS gin+filter"),
        ];
        let want: Vec<(usize, u64, String)> = want
            .iter()
            .map(|(i, s, m)| (*i, *s, m.to_string()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(s.duplicates, 2);
    }
}
