//! Randomly mutated real files fed to every parser: each call returns `Ok` or `Err`, never
//! panics (a panic fails the property). TU and Planetoid files come from the mirror (MUTAG,
//! Cora) where it has them, else from the small committed fixtures (TINY, tiny), so the
//! properties run on every machine; the npz parser gets the hand-made fixtures.
mod data_support;

use data_support::{available, fixtures};
use magcl_torch::data::planetoid::{parse_planetoid, PlanetoidFiles, SUFFIXES};
use magcl_torch::data::tu::{parse_tu, TuFile, TuSources};
use magcl_torch::data::{npz, pickle};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One edit of a byte string; positions are taken modulo the length.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Set(usize, u8),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    /// Copy a slice elsewhere (duplicates lines, records, opcodes).
    Splice(usize, usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let interesting = prop::sample::select(vec![
        b'\n', b'\r', b',', b' ', b'-', b'0', b'9', 0x00, 0xff, b'(', b'.', b'q', b'h', b'}',
    ]);
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(p, x)| Edit::Flip(p, x)),
        (any::<usize>(), interesting).prop_map(|(p, b)| Edit::Set(p, b)),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(p, v)| Edit::Insert(p, v)),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Edit::Delete(p, n)),
        (any::<usize>(), 1usize..64, any::<usize>()).prop_map(|(a, n, b)| Edit::Splice(a, n, b)),
    ]
}

fn apply(mut data: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = data.len().max(1);
        match e {
            Edit::Flip(p, x) => {
                if !data.is_empty() {
                    data[p % len] ^= x;
                }
            }
            Edit::Set(p, b) => {
                if !data.is_empty() {
                    data[p % len] = *b;
                }
            }
            Edit::Truncate(p) => data.truncate(p % len),
            Edit::Insert(p, v) => {
                let at = p % (data.len() + 1);
                data.splice(at..at, v.iter().copied());
            }
            Edit::Delete(p, n) => {
                let at = p % len;
                let end = (at + n).min(data.len());
                if at < end {
                    data.drain(at..end);
                }
            }
            Edit::Splice(a, n, b) => {
                if !data.is_empty() {
                    let at = a % len;
                    let end = (at + n).min(data.len());
                    let piece = data[at..end].to_vec();
                    let to = b % (data.len() + 1);
                    data.splice(to..to, piece);
                }
            }
        }
    }
    data
}

type Files = Vec<(PathBuf, Vec<u8>)>;

fn read_all(dir: &Path, names: &[String]) -> Files {
    names
        .iter()
        .map(|n| {
            let p = dir.join(n);
            let b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, b)
        })
        .collect()
}

fn mutag() -> &'static Files {
    static F: OnceLock<Files> = OnceLock::new();
    F.get_or_init(|| {
        let (dir, prefix) = match available(&["MUTAG"]) {
            Ok(m) => (m.join("tu/MUTAG"), "MUTAG"),
            Err(_) => (fixtures().join("tu/good/TINY"), "TINY"),
        };
        let names: Vec<String> = [
            "A",
            "graph_indicator",
            "graph_labels",
            "node_labels",
            "edge_labels",
        ]
        .iter()
        .map(|s| format!("{prefix}_{s}.txt"))
        .collect();
        read_all(&dir, &names)
    })
}

fn cora() -> &'static Files {
    static F: OnceLock<Files> = OnceLock::new();
    F.get_or_init(|| {
        let (dir, prefix) = match available(&["Cora"]) {
            Ok(m) => (m.join("planetoid"), "cora"),
            Err(_) => (fixtures().join("planetoid/tiny"), "tiny"),
        };
        let names: Vec<String> = SUFFIXES
            .iter()
            .map(|s| format!("ind.{prefix}.{s}"))
            .collect();
        read_all(&dir, &names)
    })
}

fn npz_files() -> &'static Files {
    static F: OnceLock<Files> = OnceLock::new();
    F.get_or_init(|| {
        let names: Vec<String> = ["tiny.npz", "tiny_compressed.npz", "tiny_dense.npz"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        read_all(&fixtures().join("npz"), &names)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn tu_parser_never_panics(which in 0usize..5, edits in prop::collection::vec(edit(), 1..6)) {
        let files = mutag();
        let mutated = apply(files[which].1.clone(), &edits);
        let bytes: Vec<&[u8]> = (0..5).map(|i| if i == which { &mutated[..] } else { &files[i].1[..] }).collect();
        let f = |i: usize| TuFile { path: &files[i].0, bytes: bytes[i] };
        let src = TuSources {
            a: f(0),
            graph_indicator: f(1),
            graph_labels: f(2),
            node_labels: Some(f(3)),
            node_attributes: None,
            edge_labels: Some(f(4)),
            edge_attributes: None,
        };
        if let Ok(ds) = parse_tu("MUTAG", &src) {
            for g in &ds.graphs {
                prop_assert!(g.edges.iter().all(|&(u, v)| u < v && (v as usize) < g.num_nodes));
            }
        }
    }

    #[test]
    fn planetoid_reader_never_panics(which in 0usize..8, edits in prop::collection::vec(edit(), 1..6)) {
        let files = cora();
        let mutated = apply(files[which].1.clone(), &edits);
        let get = |i: usize| -> (&Path, &[u8]) {
            (&files[i].0, if i == which { &mutated[..] } else { &files[i].1[..] })
        };
        let pf = PlanetoidFiles { files: [get(0), get(1), get(2), get(3), get(4), get(5), get(6), get(7)] };
        if let Ok(ds) = parse_planetoid("Cora", &pf) {
            prop_assert_eq!(ds.labels.len(), ds.num_nodes);
            prop_assert!(ds.edges.iter().all(|&(u, v)| u < v && (v as usize) < ds.num_nodes));
        }
        // The pickle reader alone, on the mutated file.
        let _ = pickle::parse(&files[which].0, &mutated);
    }

    #[test]
    fn npz_reader_never_panics(which in 0usize..3, edits in prop::collection::vec(edit(), 1..6)) {
        let files = npz_files();
        let mutated = apply(files[which].1.clone(), &edits);
        if let Ok(ds) = npz::parse_gnn_benchmark("tiny", &files[which].0, &mutated) {
            prop_assert_eq!(ds.labels.len(), ds.num_nodes);
            prop_assert_eq!(ds.features.rows, ds.num_nodes);
        }
    }
}
