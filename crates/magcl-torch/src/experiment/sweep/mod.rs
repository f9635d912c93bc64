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
//!
//! | file | what |
//! |---|---|
//! | `file` | the file format (serde types that keep spans), read into sections |
//! | `ma_setting` | one entry of `ma`: `"ARS code gin-sum"` or an inline table |
//! | `expand` | sections into cells, in sweep order; identical cells merged |
//! | `shard` | `--shard I/N` and `--shard slurm`, dealt by cost |
//! | `cost` | a cell's estimated cost, from the dataset registry's sizes |
//! | `filter` | `--only key=value,…` |
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::config::{RunConfig, RunSpec, Task};
use crate::data::registry::{self, DatasetKind};
use crate::error::{Error, Result};

mod cost;
mod expand;
mod file;
mod filter;
mod ma_setting;
mod shard;

pub use cost::estimated_cost;
pub use filter::Filter;
pub use shard::{deal_by_cost, parse_shard, shard, slurm_shard};

/// A byte range of the sweep file.
type Span = Range<usize>;

/// The task of a dataset name a sweep accepts (see `magcl datasets list`; `tu:PATH`
/// folders are graph sets), `None` for an unknown name.
pub fn known_dataset(name: &str) -> Option<Task> {
    registry::dataset_kind(name).map(|k| match k {
        DatasetKind::Graph => Task::Graph,
        DatasetKind::Node => Task::Node,
    })
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
        let doc = file::SweepFile::parse(&src)?;
        let top = file::read_section(&src, &doc.top, 0..0)?;
        let mut sections = Vec::new();
        for s in &doc.sections {
            sections.push(file::read_section(&src, s.get_ref(), s.span())?);
        }
        let name = match &doc.name {
            Some(n) => {
                check_name(n.get_ref()).map_err(|msg| src.err(n.span(), msg))?;
                n.get_ref().clone()
            }
            None => path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "sweep".into()),
        };
        let (cells, duplicates) = expand::cells(&src, &top, &sections)?;
        Ok(Sweep {
            name,
            description: doc.description,
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

/// The sweep file's name and text, for turning spans into lines of errors.
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

    /// An error at the line where `span` starts.
    fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        Error::parse(self.path, self.line(span.start), msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn parse(text: &str) -> Result<Sweep> {
        Sweep::parse(text, Path::new("t.toml"))
    }

    /// The line and message of the error that parsing `text` gives.
    pub(super) fn err_line(text: &str) -> (usize, String) {
        match parse(text) {
            Err(Error::Core(magcl_core::Error::Parse { line, msg, .. })) => (line, msg),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }
}
