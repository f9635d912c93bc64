//! A cell's estimated cost, to deal shards evenly: the data's size (from the dataset
//! registry) through the method's cost hint (its registry entry's), plus the evaluation's.
use crate::data::registry::{self, DatasetSize};
use crate::eval::Evaluator;
use crate::experiment::config::RunConfig;
use crate::methods::DataSize;

/// The dataset whose size stands in for one of unknown size (the TU collection's other
/// sets, `tu:PATH`, `npz:PATH`, `synthetic-node`): a mid-sized graph set.
const STAND_IN: &str = "PROTEINS";

/// The registry's size of a dataset, or [`STAND_IN`]'s where it has none.
fn dataset_size(name: &str) -> DatasetSize {
    let size = |n: &str| registry::find(n).and_then(|d| d.size);
    size(name).or_else(|| size(STAND_IN)).unwrap_or_default()
}

/// A cell's estimated cost in CPU-seconds of one thread: training (epochs × the data's
/// nodes + edges × the method's cost per element; the node-level loss is quadratic in the
/// nodes) plus evaluation (the RBF SVM's grid search grows with the square of the number
/// of graphs, the linear ones with the number). The factors were fitted to the timings of
/// `results/graph_ma/graph_ma.csv`; only the ratios between cells matter, to deal shards evenly.
pub fn estimated_cost(cfg: &RunConfig) -> f64 {
    let size = dataset_size(&cfg.dataset);
    let graphs = size.graphs as f64;
    let nodes = size.nodes as f64;
    // The factors were fitted with each undirected edge counted in both directions.
    let edges = 2.0 * size.edges as f64;
    // The method's own hint ([`crate::methods::MethodEntry::cost`]).
    let data = DataSize {
        graphs,
        nodes,
        edges,
    };
    let train = match cfg.method.entry() {
        Ok(entry) => (entry.cost)(&cfg.settings(), &data),
        Err(_) => 5.0e-6 * cfg.epochs.max(1) as f64 * (nodes + edges),
    };
    // A pre-training subset trains on its share of the graphs per epoch (with
    // `pretrain.match_steps`, as many steps as the whole set: the whole cost).
    let train = match cfg.pretrain.graphs {
        Some(g) if !cfg.pretrain.match_steps && graphs > 0.0 => {
            train * (g as f64 / graphs).min(1.0)
        }
        _ => train,
    };
    let eval = match cfg.evaluator {
        Evaluator::SvcRbf => 3.0e-6 * graphs * graphs,
        Evaluator::LogReg => 1e-3 * nodes.max(graphs),
        Evaluator::LinearSvc => 3.0e-3 * graphs,
    };
    1.0 + train + eval
}

#[cfg(test)]
mod tests {
    use super::super::tests::parse;
    use super::*;

    #[test]
    fn costs_order_the_work_as_measured() {
        let s = parse(
            "datasets = [\"MUTAG\", \"NCI1\", \"PROTEINS\"]\nmethods = [\"graphcl\", \"adgcl\"]\nseeds = 1\n",
        )
        .unwrap();
        let cost = |d: &str, m: &str| {
            let c = s
                .cells
                .iter()
                .find(|c| c.config.dataset == d && c.config.method_label() == m)
                .unwrap();
            estimated_cost(&c.config)
        };
        // An AD-GCL NCI1 run costs more than a GraphCL MUTAG run, and the RBF SVM on NCI1
        // more than on MUTAG.
        assert!(cost("NCI1", "adgcl") > 10.0 * cost("MUTAG", "graphcl"));
        assert!(cost("NCI1", "graphcl") > cost("PROTEINS", "graphcl"));
    }

    #[test]
    fn sizes_come_from_the_registry() {
        let proteins = dataset_size("PROTEINS");
        assert_ne!(proteins, DatasetSize::default());
        // Aliases and case find their dataset; a set without a known size costs as much
        // as the stand-in.
        assert_eq!(dataset_size("imdb-b"), dataset_size("IMDB-BINARY"));
        assert_ne!(dataset_size("IMDB-BINARY"), proteins);
        assert_eq!(dataset_size("ENZYMES"), proteins);
        assert_eq!(dataset_size("tu:some/folder/X"), proteins);
    }
}
