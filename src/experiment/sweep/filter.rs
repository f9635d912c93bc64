//! `--only`: restricting a sweep to the cells with given datasets, methods, seeds, MA
//! settings, variants or evaluators.
use std::collections::BTreeMap;

use super::Cell;
use crate::error::{Error, Result};
use crate::experiment::config::MethodName;

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
    use super::super::tests::parse;
    use super::*;

    #[test]
    fn keeps_the_cells_named_and_refuses_a_value_no_cell_has() {
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
    }
}
