//! Node-classification datasets: Planetoid (real files against reference values computed
//! once with numpy/scipy the way PyG assembles them; a hand-made tiny set), gnn-benchmark
//! npz archives (hand-made, stored and deflated), and malformed pickles/npz files.
mod data_support;

use data_support::{cache_with, cache_with_mirror, fixtures, tree};
use magcl_cli::datasets::Info;
use magcl_torch::data::planetoid::load_planetoid_dir;
use magcl_torch::data::{load_node_dataset, npz, NodeDataset};
use std::path::Path;

fn reference() -> serde_json::Value {
    let text = std::fs::read_to_string(fixtures().join("planetoid_reference.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn as_usizes(v: &serde_json::Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

fn check_planetoid(ds: &NodeDataset, r: &serde_json::Value) {
    let n = ds.num_nodes;
    assert_eq!(n, r["nodes"].as_u64().unwrap() as usize);
    assert_eq!(ds.edges.len(), r["edges"].as_u64().unwrap() as usize);
    assert!(ds.edges.windows(2).all(|w| w[0] < w[1]));
    assert!(ds.edges.iter().all(|&(u, v)| u < v && (v as usize) < n));
    let digest: u64 = ds
        .edges
        .iter()
        .map(|&(u, v)| u as u64 * n as u64 + v as u64)
        .sum();
    assert_eq!(digest, r["edge_digest"].as_u64().unwrap());
    assert_eq!(ds.features.rows, n);
    assert_eq!(ds.features.cols, r["features"].as_u64().unwrap() as usize);
    assert_eq!(ds.features.nnz(), r["nnz"].as_u64().unwrap() as usize);
    assert_eq!(ds.num_classes, r["classes"].as_u64().unwrap() as usize);
    let mut counts = vec![0usize; ds.num_classes];
    for &l in &ds.labels {
        counts[l as usize] += 1;
    }
    assert_eq!(counts, as_usizes(&r["label_counts"]));
    let probe = as_usizes(&r["probe_nodes"]);
    let labels = as_usizes(&r["probe_labels"]);
    let sums = r["probe_row_sums"].as_array().unwrap();
    let cols = r["probe_columns"].as_array().unwrap();
    for (k, &node) in probe.iter().enumerate() {
        assert_eq!(ds.labels[node] as usize, labels[k], "label of node {node}");
        let (c, v) = ds.features.row(node);
        let sum: f64 = v.iter().map(|&x| f64::from(x)).sum();
        assert_eq!(sum, sums[k].as_f64().unwrap(), "row sum of node {node}");
        assert_eq!(
            c.iter().map(|&x| x as usize).collect::<Vec<_>>(),
            as_usizes(&cols[k]),
            "columns of node {node}"
        );
    }
    let split = ds.public_split.as_ref().unwrap();
    let train = r["train"].as_u64().unwrap() as u32;
    assert_eq!(split.train, (0..train).collect::<Vec<_>>());
    assert_eq!(split.val, (train..train + 500).collect::<Vec<_>>());
    assert_eq!(split.test.len(), 1000);
    assert!(split.test.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(split.test[0] as u64, r["test_min"].as_u64().unwrap());
    assert_eq!(
        *split.test.last().unwrap() as u64,
        r["test_max"].as_u64().unwrap()
    );
    for &m in &as_usizes(&r["missing_test_ids"]) {
        assert!(!split.test.contains(&(m as u32)));
        assert_eq!(ds.labels[m], 0);
        assert_eq!(ds.features.row(m).0.len(), 0);
    }
    // Row normalisation: every non-empty row sums to 1.
    let norm = ds.features.row_normalized();
    for r in 0..n {
        let (_, v) = norm.row(r);
        if !v.is_empty() {
            let s: f32 = v.iter().sum();
            assert!((s - 1.0).abs() < 1e-5, "row {r} sums to {s}");
        }
    }
}

#[test]
fn cora_matches_reference() {
    let Some((tmp, cfg)) = cache_with_mirror("cora_matches_reference", &["Cora"]) else {
        return;
    };
    let ds = load_node_dataset("cora", &cfg).unwrap();
    assert_eq!(ds.name, "Cora");
    check_planetoid(&ds, &reference()["cora"]);
    assert!(tmp.path().join("planetoid/cora/ind.cora.graph").is_file());
}

#[test]
fn citeseer_matches_reference() {
    let Some((_tmp, cfg)) = cache_with_mirror("citeseer_matches_reference", &["CiteSeer"]) else {
        return;
    };
    let ds = load_node_dataset("CITESEER", &cfg).unwrap();
    assert_eq!(ds.name, "CiteSeer");
    let r = reference();
    assert_eq!(
        r["citeseer"]["missing_test_ids"].as_array().unwrap().len(),
        15
    );
    check_planetoid(&ds, &r["citeseer"]);
}

#[test]
fn node_info_statistics() {
    let Some((_tmp, cfg)) = cache_with_mirror("node_info_statistics", &["Cora", "CiteSeer"]) else {
        return;
    };
    let Info::Node(s) = Info::load(&cfg, "Cora").unwrap() else {
        panic!("Cora is a node dataset")
    };
    assert_eq!(
        (s.nodes, s.edges, s.features, s.classes),
        (2708, 5278, 1433, 7)
    );
    assert_eq!((s.train, s.val, s.test), (Some(140), Some(500), Some(1000)));
    let Info::Node(s) = Info::load(&cfg, "CiteSeer").unwrap() else {
        panic!("CiteSeer is a node dataset")
    };
    assert_eq!(
        (s.nodes, s.edges, s.features, s.classes),
        (3327, 4552, 3703, 6)
    );
    assert_eq!((s.train, s.val, s.test), (Some(120), Some(500), Some(1000)));
    let v: serde_json::Value = serde_json::from_str(&Info::Node(s).to_json().unwrap()).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "classes", "edges", "features", "kind", "name", "nodes", "source", "test", "train",
            "val"
        ]
    );
    assert_eq!(v["kind"], "node");
    // the cached Planetoid folder read, with the digest of its files
    assert!(v["source"]["path"]
        .as_str()
        .unwrap()
        .ends_with("planetoid/citeseer"));
    assert_eq!(v["source"]["sha256"].as_str().unwrap().len(), 64);
}

// ---------------------------------------------------------------------------------------
// Tiny Planetoid fixture

fn tiny_dir() -> std::path::PathBuf {
    fixtures().join("planetoid/tiny")
}

#[test]
fn tiny_planetoid_by_hand() {
    let ds = load_planetoid_dir(&tiny_dir(), "tiny", "tiny").unwrap();
    assert_eq!(ds.num_nodes, 506);
    assert_eq!(ds.num_classes, 3);
    assert_eq!(ds.features.cols, 4);
    assert_eq!(ds.edges, vec![(0, 1), (1, 504), (2, 505)]);
    let row = |n: usize| {
        let (c, v) = ds.features.row(n);
        (c.to_vec(), v.to_vec())
    };
    assert_eq!(row(0), (vec![0, 2], vec![1.0, 1.0]));
    assert_eq!(row(1), (vec![1], vec![2.0]));
    assert_eq!(row(5), (vec![3], vec![3.0]));
    assert_eq!(row(502), (vec![0], vec![5.0])); // tx row 1
    assert_eq!(row(503), (vec![], vec![])); // not listed: zero row
    assert_eq!(row(504), (vec![2, 3], vec![1.0, 1.0])); // tx row 0
    assert_eq!(row(505), (vec![], vec![])); // tx row 2 is all zero
    assert_eq!(&ds.labels[..6], &[0, 1, 2, 0, 1, 2]);
    assert_eq!(&ds.labels[502..], &[1, 0, 2, 0]);
    let split = ds.public_split.unwrap();
    assert_eq!(split.train, vec![0, 1]);
    assert_eq!(split.val, (2..502).collect::<Vec<u32>>());
    assert_eq!(split.test, vec![502, 504, 505]);
    let dense = ds.features.row_normalized().to_dense();
    assert_eq!(&dense[..4], &[0.5, 0.0, 0.5, 0.0]);
    assert_eq!(&dense[504 * 4..505 * 4], &[0.0, 0.0, 0.5, 0.5]);
}

/// The tiny set with one file replaced by a malformed fixture.
fn bad_planetoid(suffix: &str, fixture: &str) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(tiny_dir()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
    }
    let target = tmp.path().join(format!("ind.tiny.{suffix}"));
    std::fs::copy(fixtures().join("planetoid/bad").join(fixture), &target).unwrap();
    let e = load_planetoid_dir(tmp.path(), "tiny", "tiny")
        .expect_err(fixture)
        .to_string();
    (e, target.display().to_string())
}

#[test]
fn bad_truncated_pickle() {
    let (e, path) = bad_planetoid("x", "truncated.x");
    assert!(
        e.starts_with(&format!("{path}: corrupt pickle at byte ")),
        "{e}"
    );
    assert!(
        e.contains("unexpected end of data (truncated file?)"),
        "{e}"
    );
}

#[test]
fn bad_corrupt_pickle() {
    let (e, path) = bad_planetoid("y", "unknown_opcode.y");
    assert_eq!(
        e,
        format!("{path}: corrupt pickle at byte 2: unsupported opcode 0xff")
    );
}

#[test]
fn bad_graph_not_a_dict() {
    let (e, path) = bad_planetoid("graph", "not_a_dict.graph");
    assert_eq!(e, format!("{path}: expected a dict of neighbour lists"));
}

#[test]
fn bad_label_rows() {
    let (e, path) = bad_planetoid("ally", "wrong_rows.ally");
    assert_eq!(
        e,
        format!("{path}: has 501 rows (labels); expected 502, as many as allx")
    );
}

#[test]
fn bad_test_index_non_numeric() {
    let (e, path) = bad_planetoid("test.index", "non_numeric.test.index");
    assert_eq!(
        e,
        format!("{path}:2: expected an integer (test node id), found \"abc\"")
    );
}

#[test]
fn bad_test_index_duplicate() {
    let (e, path) = bad_planetoid("test.index", "duplicate.test.index");
    assert_eq!(
        e,
        format!("{path}:3: test node id 504 is listed twice; expected distinct ids")
    );
}

#[test]
fn bad_missing_planetoid_file() {
    let tmp = tempfile::tempdir().unwrap();
    let e = load_planetoid_dir(tmp.path(), "tiny", "tiny")
        .unwrap_err()
        .to_string();
    let path = tmp.path().join("ind.tiny.x");
    assert!(
        e.starts_with(&format!("{}: missing", path.display())),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// npz

fn npz_fixture(name: &str) -> magcl_torch::data::Result<NodeDataset> {
    let path = fixtures().join("npz").join(name);
    let bytes = std::fs::read(&path).unwrap();
    npz::parse_gnn_benchmark("tiny", &path, &bytes)
}

#[test]
fn npz_stored_deflated_and_dense() {
    let expected_dense: Vec<f32> = vec![
        1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 4.0,
    ];
    for name in ["tiny.npz", "tiny_compressed.npz", "tiny_dense.npz"] {
        let ds = npz_fixture(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ds.num_nodes, 5, "{name}");
        assert_eq!(ds.edges, vec![(0, 1), (1, 2), (3, 4)], "{name}");
        assert_eq!(ds.labels, vec![0, 1, 1, 2, 0], "{name}");
        assert_eq!(ds.num_classes, 3, "{name}");
        assert_eq!((ds.features.rows, ds.features.cols), (5, 3), "{name}");
        assert_eq!(ds.features.to_dense(), expected_dense, "{name}");
        assert!(ds.public_split.is_none());
    }
}

fn npz_error(name: &str) -> String {
    let e = npz_fixture(name).expect_err(name).to_string();
    let path = fixtures().join("npz").join(name);
    assert!(e.starts_with(&format!("{}: ", path.display())), "{e}");
    e
}

#[test]
fn bad_npz_truncated() {
    let e = npz_error("bad_truncated.npz");
    assert!(e.contains("not a readable .npz (zip) archive"), "{e}");
}

#[test]
fn bad_npz_corrupt() {
    let e = npz_error("bad_corrupt.npz");
    assert!(e.contains("truncated or corrupt archive"), "{e}");
}

#[test]
fn bad_npz_not_a_zip() {
    let e = npz_error("bad_not_zip.npz");
    assert!(e.contains("not a readable .npz (zip) archive"), "{e}");
}

#[test]
fn bad_npz_missing_array() {
    let e = npz_error("bad_missing_labels.npz");
    assert!(e.contains("missing array labels"), "{e}");
}

#[test]
fn bad_npz_indptr() {
    let e = npz_error("bad_indptr.npz");
    assert!(
        e.contains("adj matrix: indptr is not non-decreasing"),
        "{e}"
    );
}

#[test]
fn bad_npz_not_square() {
    let e = npz_error("bad_not_square.npz");
    assert!(
        e.contains("adj matrix is 5x6; expected a square adjacency matrix"),
        "{e}"
    );
}

#[test]
fn npz_checksum_mismatch_caches_nothing() {
    // A mirror whose Amazon-Photo file is not the known one.
    let mirror = tempfile::tempdir().unwrap();
    std::fs::create_dir(mirror.path().join("npz")).unwrap();
    std::fs::copy(
        fixtures().join("npz/tiny.npz"),
        mirror.path().join("npz/amazon_electronics_photo.npz"),
    )
    .unwrap();
    let (cache, cfg) = cache_with(&mirror.path().display().to_string());
    let e = load_node_dataset("Amazon-Photo", &cfg)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("checksum mismatch for npz/amazon_electronics_photo.npz"),
        "{e}"
    );
    assert!(e.contains("nothing was cached"), "{e}");
    assert_eq!(
        tree(cache.path()),
        Vec::<String>::new(),
        "a failed fetch leaves no folder behind"
    );
    assert!(!Path::new(&cache.path().join("npz/amazon_electronics_photo.npz")).exists());
}
