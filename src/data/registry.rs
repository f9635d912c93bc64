//! The datasets magcl knows by name: their kind and where their files come from.
//!
//! Names are matched case-insensitively, aliases included. Besides these names,
//! [`super::load_graph_dataset`] accepts `tu:PATH` (any folder of TU-format files named
//! after the folder) and `synthetic:GRAPHS[:SEED]`.
use crate::error::{Error, Result};
use serde::Serialize;

/// Graph classification (many graphs) or node classification (one graph).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DatasetKind {
    Graph,
    Node,
}

impl std::fmt::Display for DatasetKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DatasetKind::Graph => "graph",
            DatasetKind::Node => "node",
        })
    }
}

/// Where a dataset's files come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// TU collection: `tu/NAME/NAME_*.txt` in a mirror, `NAME.zip` from the TU site.
    Tu,
    /// Planetoid: `planetoid/ind.PREFIX.*`.
    Planetoid { prefix: &'static str },
    /// gnn-benchmark: `npz/FILE`.
    GnnBenchmark { file: &'static str },
    /// Generated in memory, no files.
    Synthetic,
}

/// A dataset known by name.
#[derive(Clone, Copy, Debug)]
pub struct KnownDataset {
    /// Canonical name (as printed; also the TU file prefix).
    pub name: &'static str,
    pub kind: DatasetKind,
    pub origin: Origin,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
}

const fn tu(name: &'static str, aliases: &'static [&'static str]) -> KnownDataset {
    KnownDataset {
        name,
        kind: DatasetKind::Graph,
        origin: Origin::Tu,
        aliases,
    }
}

/// Every known dataset, graph sets first.
pub const KNOWN: &[KnownDataset] = &[
    tu("MUTAG", &[]),
    tu("NCI1", &[]),
    tu("NCI109", &[]),
    tu("PROTEINS", &[]),
    tu("DD", &[]),
    tu("PTC_MR", &[]),
    tu("IMDB-BINARY", &["IMDB-B"]),
    tu("IMDB-MULTI", &["IMDB-M"]),
    tu("COLLAB", &[]),
    tu("REDDIT-BINARY", &["RDT-B"]),
    tu("REDDIT-MULTI-5K", &["RDT-M5K"]),
    KnownDataset {
        name: "synthetic",
        kind: DatasetKind::Graph,
        origin: Origin::Synthetic,
        aliases: &["BA-2Motifs"],
    },
    KnownDataset {
        name: "Cora",
        kind: DatasetKind::Node,
        origin: Origin::Planetoid { prefix: "cora" },
        aliases: &[],
    },
    KnownDataset {
        name: "CiteSeer",
        kind: DatasetKind::Node,
        origin: Origin::Planetoid { prefix: "citeseer" },
        aliases: &[],
    },
    KnownDataset {
        name: "PubMed",
        kind: DatasetKind::Node,
        origin: Origin::Planetoid { prefix: "pubmed" },
        aliases: &[],
    },
    KnownDataset {
        name: "Amazon-Computers",
        kind: DatasetKind::Node,
        origin: Origin::GnnBenchmark {
            file: "amazon_electronics_computers.npz",
        },
        aliases: &["Computers", "Amazon-C"],
    },
    KnownDataset {
        name: "Amazon-Photo",
        kind: DatasetKind::Node,
        origin: Origin::GnnBenchmark {
            file: "amazon_electronics_photo.npz",
        },
        aliases: &["Photo", "Amazon-P"],
    },
    KnownDataset {
        name: "Coauthor-CS",
        kind: DatasetKind::Node,
        origin: Origin::GnnBenchmark {
            file: "ms_academic_cs.npz",
        },
        aliases: &["CS"],
    },
];

/// The known datasets.
pub fn known_datasets() -> &'static [KnownDataset] {
    KNOWN
}

/// Finds a known dataset by name or alias, ignoring case.
pub fn find(name: &str) -> Option<&'static KnownDataset> {
    let n = name.trim();
    KNOWN.iter().find(|d| {
        d.name.eq_ignore_ascii_case(n) || d.aliases.iter().any(|a| a.eq_ignore_ascii_case(n))
    })
}

/// Like [`find`], but an unknown name is an error that lists the known names.
pub fn lookup(name: &str) -> Result<&'static KnownDataset> {
    find(name).ok_or_else(|| {
        let names: Vec<&str> = KNOWN.iter().map(|d| d.name).collect();
        Error::Data(format!(
            "unknown dataset {name:?}; known datasets: {} (or tu:PATH for a folder of TU-format files)",
            names.join(", ")
        ))
    })
}

/// Whether `name` is a known node-classification dataset.
pub fn is_node_dataset(name: &str) -> bool {
    find(name).is_some_and(|d| d.kind == DatasetKind::Node)
        || matches!(super::source::synthetic_node_params(name), Ok(Some(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases() {
        assert_eq!(find("mutag").map(|d| d.name), Some("MUTAG"));
        assert_eq!(find("imdb-b").map(|d| d.name), Some("IMDB-BINARY"));
        assert_eq!(find("ba-2motifs").map(|d| d.name), Some("synthetic"));
        assert!(is_node_dataset("cora"));
        assert!(is_node_dataset("Coauthor-CS"));
        assert!(!is_node_dataset("MUTAG"));
        assert!(!is_node_dataset("nope"));
        let e = lookup("nope").unwrap_err().to_string();
        assert!(
            e.contains("MUTAG") && e.contains("Cora") && e.contains("synthetic"),
            "{e}"
        );
        // Names and aliases are unique.
        let mut all: Vec<String> = KNOWN
            .iter()
            .flat_map(|d| std::iter::once(d.name).chain(d.aliases.iter().copied()))
            .map(|s| s.to_ascii_lowercase())
            .collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
