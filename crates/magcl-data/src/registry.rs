//! The datasets magcl knows by name: their kind and where their files come from.
//!
//! Names are matched case-insensitively, aliases included; an exact match wins over a
//! case-insensitive one (so `SYNTHETIC` is the TU collection's set and `synthetic` the
//! embedded one). Besides the built-in names ([`KNOWN`]), every dataset of the TU
//! collection ([`TU_COLLECTION`]) is accepted and fetched from the collection's URL like
//! the built-in TU sets. [`super::load_graph_dataset`] also accepts `tu:PATH` (any folder
//! of TU-format files named after the folder) and `synthetic:GRAPHS[:SEED]`.
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

/// Every dataset of the TU collection (graphlearning.io, as listed on the collection's
/// dataset page), by its file prefix. The eleven built-in TU names of [`KNOWN`] are among
/// them; the others are accepted by [`find`] as TU datasets without a known checksum.
#[rustfmt::skip]
pub const TU_COLLECTION: &[&str] = &[
    // small molecules
    "AIDS", "alchemy_full", "BZR", "BZR_MD", "COX2", "COX2_MD", "DHFR", "DHFR_MD", "ER_MD",
    "FRANKENSTEIN", "MCF-7", "MCF-7H", "MOLT-4", "MOLT-4H", "Mutagenicity", "MUTAG", "NCI1",
    "NCI109", "NCI-H23", "NCI-H23H", "OVCAR-8", "OVCAR-8H", "P388", "P388H", "PC-3", "PC-3H",
    "PTC_FM", "PTC_FR", "PTC_MM", "PTC_MR", "QM9", "SF-295", "SF-295H", "SN12C", "SN12CH",
    "SW-620", "SW-620H", "Tox21_AhR_training", "Tox21_AhR_testing", "Tox21_AhR_evaluation",
    "Tox21_AR_training", "Tox21_AR_testing", "Tox21_AR_evaluation", "Tox21_AR-LBD_training",
    "Tox21_AR-LBD_testing", "Tox21_AR-LBD_evaluation", "Tox21_ARE_training",
    "Tox21_ARE_testing", "Tox21_ARE_evaluation", "Tox21_aromatase_training",
    "Tox21_aromatase_testing", "Tox21_aromatase_evaluation", "Tox21_ATAD5_training",
    "Tox21_ATAD5_testing", "Tox21_ATAD5_evaluation", "Tox21_ER_training", "Tox21_ER_testing",
    "Tox21_ER_evaluation", "Tox21_ER-LBD_training", "Tox21_ER-LBD_testing",
    "Tox21_ER-LBD_evaluation", "Tox21_HSE_training", "Tox21_HSE_testing",
    "Tox21_HSE_evaluation", "Tox21_MMP_training", "Tox21_MMP_testing", "Tox21_MMP_evaluation",
    "Tox21_p53_training", "Tox21_p53_testing", "Tox21_p53_evaluation",
    "Tox21_PPAR-gamma_training", "Tox21_PPAR-gamma_testing", "Tox21_PPAR-gamma_evaluation",
    "UACC257", "UACC257H", "Yeast", "YeastH", "ZINC_full", "ZINC_test", "ZINC_train",
    "ZINC_val",
    // bioinformatics
    "DD", "ENZYMES", "KKI", "OHSU", "Peking_1", "PROTEINS", "PROTEINS_full",
    // computer vision
    "COIL-DEL", "COIL-RAG", "Cuneiform", "Fingerprint", "FIRSTMM_DB", "Letter-high",
    "Letter-low", "Letter-med", "MSRC_9", "MSRC_21", "MSRC_21C",
    // social networks
    "COLLAB", "dblp_ct1", "dblp_ct2", "DBLP_v1", "deezer_ego_nets", "facebook_ct1",
    "facebook_ct2", "github_stargazers", "highschool_ct1", "highschool_ct2", "IMDB-BINARY",
    "IMDB-MULTI", "infectious_ct1", "infectious_ct2", "mit_ct1", "mit_ct2", "REDDIT-BINARY",
    "REDDIT-MULTI-5K", "REDDIT-MULTI-12K", "reddit_threads", "tumblr_ct1", "tumblr_ct2",
    "twitch_egos", "TWITTER-Real-Graph-Partial",
    // synthetic
    "COLORS-3", "SYNTHETIC", "SYNTHETICnew", "Synthie", "TRIANGLES",
];

/// The built-in datasets (the TU collection's other names are accepted too: [`find`]).
pub fn known_datasets() -> &'static [KnownDataset] {
    KNOWN
}

/// Finds a dataset by name or alias: a built-in one, or any dataset of the TU collection.
/// An exact match wins; otherwise case is ignored.
pub fn find(name: &str) -> Option<KnownDataset> {
    let n = name.trim();
    let names = |d: &&KnownDataset| std::iter::once(d.name).chain(d.aliases.iter().copied());
    if let Some(d) = KNOWN.iter().find(|d| names(d).any(|a| a == n)) {
        return Some(*d);
    }
    if let Some(t) = TU_COLLECTION.iter().find(|t| **t == n) {
        return Some(tu(t, &[]));
    }
    if let Some(d) = KNOWN
        .iter()
        .find(|d| names(d).any(|a| a.eq_ignore_ascii_case(n)))
    {
        return Some(*d);
    }
    TU_COLLECTION
        .iter()
        .find(|t| t.eq_ignore_ascii_case(n))
        .map(|t| tu(t, &[]))
}

/// Whether `name` is one of the built-in datasets (which have known checksums), as opposed
/// to another name of the TU collection.
pub fn is_builtin(name: &str) -> bool {
    KNOWN.iter().any(|d| d.name == name)
}

/// Like [`find`], but an unknown name is an error that lists the built-in names.
pub fn lookup(name: &str) -> Result<KnownDataset> {
    find(name).ok_or_else(|| {
        let names: Vec<&str> = KNOWN.iter().map(|d| d.name).collect();
        Error::Data(format!(
            "unknown dataset {name:?}: neither a built-in name ({}) nor a dataset of the TU collection (any name listed on the collection's dataset page, e.g. ENZYMES, DHFR, COX2, is accepted); for your own data use tu:PATH/NAME (a folder of TU-format files) or, for one node-level graph, npz:PATH",
            names.join(", ")
        ))
    })
}

/// Whether `name` is a known node-classification dataset.
pub fn is_node_dataset(name: &str) -> bool {
    name.trim().starts_with("npz:")
        || find(name).is_some_and(|d| d.kind == DatasetKind::Node)
        || matches!(synthetic_node_params(name), Ok(Some(_)))
}

/// (nodes, undirected edges, features, classes, seed) of a `synthetic-node` set.
pub type SyntheticNodeSize = (usize, usize, usize, usize, u64);

/// `synthetic-node[:NODES[:EDGES[:FEATURES[:CLASSES[:SEED]]]]]`: the planted-partition
/// node set (default: the size of Coauthor-CS).
pub fn synthetic_node_params(name: &str) -> Result<Option<SyntheticNodeSize>> {
    let name = name.trim();
    let lower = name.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix("synthetic-node") else {
        return Ok(None);
    };
    let (dn, de, df, dc) = super::synthetic::NODE_DEFAULT;
    let mut v: Vec<u64> = vec![dn as u64, de as u64, df as u64, dc as u64, 0];
    if !rest.is_empty() {
        let parts: Vec<&str> = rest.trim_start_matches(':').split(':').collect();
        if !rest.starts_with(':') || parts.len() > 5 {
            return Err(Error::Data(format!(
                "dataset {name:?}: expected synthetic-node[:NODES[:EDGES[:FEATURES[:CLASSES[:SEED]]]]]"
            )));
        }
        for (i, p) in parts.iter().enumerate() {
            v[i] = p.parse().map_err(|_| {
                Error::Data(format!("dataset {name:?}: '{p}' is not a whole number"))
            })?;
        }
    }
    if v[0] < 2 || v[2] == 0 || v[3] == 0 {
        return Err(Error::Data(format!(
            "dataset {name:?}: needs at least 2 nodes, 1 feature and 1 class"
        )));
    }
    Ok(Some((
        v[0] as usize,
        v[1] as usize,
        v[2] as usize,
        v[3] as usize,
        v[4],
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases() {
        assert_eq!(find("mutag").map(|d| d.name), Some("MUTAG"));
        assert_eq!(find("imdb-b").map(|d| d.name), Some("IMDB-BINARY"));
        assert_eq!(find("ba-2motifs").map(|d| d.name), Some("synthetic"));
        // The TU collection beyond the built-in names; an exact match wins over case.
        assert_eq!(find("enzymes").map(|d| d.name), Some("ENZYMES"));
        assert_eq!(
            find("ENZYMES").map(|d| (d.kind, d.origin)),
            Some((DatasetKind::Graph, Origin::Tu))
        );
        assert_eq!(
            find("Tox21_AR-LBD_testing").map(|d| d.name),
            Some("Tox21_AR-LBD_testing")
        );
        assert_eq!(find("SYNTHETIC").map(|d| d.origin), Some(Origin::Tu));
        assert_eq!(find("synthetic").map(|d| d.origin), Some(Origin::Synthetic));
        assert_eq!(find("Synthetic").map(|d| d.origin), Some(Origin::Synthetic));
        assert!(is_builtin("MUTAG") && !is_builtin("ENZYMES"));
        assert!(find("ENZYMESS").is_none());
        // Every built-in TU set is in the collection; the collection's names are unique.
        for d in KNOWN.iter().filter(|d| d.origin == Origin::Tu) {
            assert!(TU_COLLECTION.contains(&d.name), "{}", d.name);
        }
        let mut t = TU_COLLECTION.to_vec();
        t.sort_unstable();
        t.dedup();
        assert_eq!(t.len(), TU_COLLECTION.len());
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
