//! `--only`: restricting a sweep to the cells with given datasets, methods, seeds, MA
//! settings, variants or evaluators.
use magcl_core::only::Only;

use super::Cell;
use crate::error::Result;
use crate::experiment::config::MethodName;

/// A `--only` filter over a sweep's cells (parsed and matched by
/// [`magcl_core::only::Only`], which `magcl report` applies to rows): `key=v1,v2,key2=v3`,
/// keys `dataset`, `method`, `seed`, `ma`, `variant`, `evaluator`. A method may be named
/// by a registry alias.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub only: Only,
}

impl Filter {
    /// Adds one `--only` argument.
    pub fn add(&mut self, arg: &str) -> Result<()> {
        Ok(self.only.add(arg)?)
    }

    fn value(cell: &Cell, key: &str) -> String {
        match key {
            "dataset" => cell.config.dataset.clone(),
            "method" => cell.config.method_label(),
            "seed" => cell.config.seed.to_string(),
            "ma" => cell.ma_label(),
            "variant" => cell.variant.clone(),
            _ => cell.config.evaluator.to_string(),
        }
    }

    /// `adgcl-fixed` is AD-GCL with the fixed augmenter (`RunConfig::method_label`); a
    /// registry alias names its method.
    fn alias(wanted: &str, actual: &str) -> bool {
        MethodName::parse(wanted)
            .map(|m| m.as_str() == actual)
            .unwrap_or(false)
    }

    /// The cells that pass; an error if a listed value matches no cell at all (a typo).
    pub fn apply(&self, cells: Vec<Cell>) -> Result<Vec<Cell>> {
        Ok(self.only.apply(cells, "cell", Self::value, &Self::alias)?)
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
