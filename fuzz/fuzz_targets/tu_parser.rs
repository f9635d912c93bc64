//! The TU parser on arbitrary files. The input is split at 0xFF bytes into up to seven
//! parts: A, graph_indicator, graph_labels, then the optional node_labels,
//! node_attributes, edge_labels, edge_attributes (an empty optional part = file absent).
#![no_main]
use libfuzzer_sys::fuzz_target;
use magcl_data::tu::{parse_tu, TuFile, TuSources};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let parts: Vec<&[u8]> = data.splitn(7, |&b| b == 0xFF).collect();
    let names = [
        "F_A.txt",
        "F_graph_indicator.txt",
        "F_graph_labels.txt",
        "F_node_labels.txt",
        "F_node_attributes.txt",
        "F_edge_labels.txt",
        "F_edge_attributes.txt",
    ];
    let file = |i: usize| TuFile {
        path: Path::new(names[i]),
        bytes: parts.get(i).copied().unwrap_or(b""),
    };
    let optional = |i: usize| parts.get(i).filter(|p| !p.is_empty()).map(|_| file(i));
    let src = TuSources {
        a: file(0),
        graph_indicator: file(1),
        graph_labels: file(2),
        node_labels: optional(3),
        node_attributes: optional(4),
        edge_labels: optional(5),
        edge_attributes: optional(6),
    };
    if let Ok(ds) = parse_tu("F", &src) {
        for g in &ds.graphs {
            assert!(g.num_nodes > 0);
            assert!(g.edges.windows(2).all(|w| w[0] < w[1]));
            assert!(g
                .edges
                .iter()
                .all(|&(u, v)| u < v && (v as usize) < g.num_nodes));
        }
        let _ = magcl_data::graph_features(&ds, "labels+attributes");
        let _ = magcl_data::graph_features(&ds, "degree:8");
    }
});
