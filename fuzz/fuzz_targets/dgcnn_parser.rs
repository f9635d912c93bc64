//! The GIN/DGCNN text parser on arbitrary files: the input is the whole `NAME.txt`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use magcl_data::dgcnn::parse_dgcnn;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(ds) = parse_dgcnn("F", Path::new("F.txt"), data) {
        assert!(!ds.graphs.is_empty());
        for g in &ds.graphs {
            assert!(g.num_nodes > 0);
            assert!(g.edges.windows(2).all(|w| w[0] < w[1]));
            assert!(g
                .edges
                .iter()
                .all(|&(u, v)| u < v && (v as usize) < g.num_nodes));
            assert!((g.label as usize) < ds.num_classes());
            if let Some(l) = &g.node_labels {
                assert_eq!(l.len(), g.num_nodes);
                assert!(l.iter().all(|&x| (x as usize) < ds.node_label_values.len()));
            }
            if let Some(a) = &g.node_attributes {
                assert_eq!(a.len(), g.num_nodes * ds.node_attr_dim);
            }
        }
        let _ = magcl_data::graph_features(&ds, "labels+attributes");
        let _ = magcl_data::graph_features(&ds, "degree:8");
    }
});
