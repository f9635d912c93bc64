//! The pickle reader and the interpreters the Planetoid loader applies to its result
//! (numpy array, scipy CSR matrix, dict of neighbour lists).
#![no_main]
use libfuzzer_sys::fuzz_target;
use magcl_data::{pickle, planetoid};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(pk) = pickle::parse(Path::new("fuzz.pkl"), data) {
        let root = pk.root();
        if let Ok(a) = planetoid::ndarray(&pk, root) {
            assert_eq!(a.len(), a.shape.iter().product::<usize>());
        }
        if let Ok(m) = planetoid::csr_matrix(&pk, root) {
            assert_eq!(m.indptr.len(), m.rows + 1);
            let _ = m.row_normalized();
        }
        let _ = planetoid::adjacency_lists(&pk, root);
        let _ = pk.class_name(root);
    }
});
