//! The npz reader: zip archive, .npy headers and data, and the gnn-benchmark layout.
#![no_main]
use libfuzzer_sys::fuzz_target;
use magcl_data::npz;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    // A bare .npy array as well as an archive.
    let _ = npz::parse_npy(data);
    if let Ok(ds) = npz::parse_gnn_benchmark("fuzz", Path::new("fuzz.npz"), data) {
        assert_eq!(ds.labels.len(), ds.num_nodes);
        assert_eq!(ds.features.rows, ds.num_nodes);
        assert!(ds
            .edges
            .iter()
            .all(|&(u, v)| u < v && (v as usize) < ds.num_nodes));
    }
});
