//! TU datasets: the real files (statistics from the dataset notes), hand-made fixtures, and
//! one malformed fixture per kind of bad input.
mod data_support;
mod light_magcl;

use data_support::{cache_with_mirror, fixtures, obtain};
use magcl_cli::datasets::Info;
use magcl_torch::data::stats::{graph_stats, GraphStats};
use magcl_torch::data::{graph_features, load_graph_dataset, DataConfig, GraphDataset};
use std::path::PathBuf;

/// Loads a real dataset from the mirror; `None` (the test is skipped) if it cannot be had.
fn load(test: &str, name: &str) -> Option<GraphDataset> {
    let (_tmp, cfg) = cache_with_mirror(test, &[name])?;
    Some(load_graph_dataset(name, &cfg).unwrap_or_else(|e| panic!("{name}: {e}")))
}

struct Expected {
    name: &'static str,
    graphs: usize,
    nodes: usize,
    edges: usize,
    class_values: &'static [i64],
    class_counts: &'static [usize],
    avg_nodes: &'static str,
    avg_edges: &'static str,
    feature_dim: usize,
    node_label_values: usize,
    edge_label_values: usize,
    node_attr_dim: usize,
    min_max_nodes: (usize, usize),
}

/// The dataset notes' verified statistics (edges: A.txt lines / 2, or / 4 for IMDB).
const EXPECTED: &[Expected] = &[
    Expected {
        name: "MUTAG",
        graphs: 188,
        nodes: 3371,
        edges: 7442 / 2,
        class_values: &[-1, 1],
        class_counts: &[63, 125],
        avg_nodes: "17.93",
        avg_edges: "19.79",
        feature_dim: 7,
        node_label_values: 7,
        edge_label_values: 4,
        node_attr_dim: 0,
        min_max_nodes: (10, 28),
    },
    Expected {
        name: "NCI1",
        graphs: 4110,
        nodes: 122_747,
        edges: 265_506 / 2,
        class_values: &[0, 1],
        class_counts: &[2053, 2057],
        avg_nodes: "29.87",
        avg_edges: "32.30",
        feature_dim: 37,
        node_label_values: 37,
        edge_label_values: 0,
        node_attr_dim: 0,
        min_max_nodes: (3, 111),
    },
    Expected {
        name: "PROTEINS",
        graphs: 1113,
        nodes: 43_471,
        edges: 162_088 / 2,
        class_values: &[1, 2],
        class_counts: &[663, 450],
        avg_nodes: "39.06",
        avg_edges: "72.82",
        feature_dim: 3,
        node_label_values: 3,
        edge_label_values: 0,
        node_attr_dim: 1,
        min_max_nodes: (4, 620),
    },
    Expected {
        name: "IMDB-BINARY",
        graphs: 1000,
        nodes: 19_773,
        edges: 96_531,
        class_values: &[0, 1],
        class_counts: &[500, 500],
        avg_nodes: "19.77",
        avg_edges: "96.53",
        feature_dim: 1,
        node_label_values: 0,
        edge_label_values: 0,
        node_attr_dim: 0,
        min_max_nodes: (12, 136),
    },
    Expected {
        name: "IMDB-MULTI",
        graphs: 1500,
        nodes: 19_502,
        edges: 98_903,
        class_values: &[1, 2, 3],
        class_counts: &[500, 500, 500],
        avg_nodes: "13.00",
        avg_edges: "65.94",
        feature_dim: 1,
        node_label_values: 0,
        edge_label_values: 0,
        node_attr_dim: 0,
        min_max_nodes: (7, 89),
    },
];

fn check_invariants(ds: &GraphDataset) {
    for (i, g) in ds.graphs.iter().enumerate() {
        assert!(g.num_nodes > 0, "graph {i} empty");
        assert!(
            g.edges.windows(2).all(|w| w[0] < w[1]),
            "graph {i}: edges not sorted/unique"
        );
        assert!(
            g.edges
                .iter()
                .all(|&(u, v)| u < v && (v as usize) < g.num_nodes),
            "graph {i}: bad edge"
        );
        assert!((g.label as usize) < ds.num_classes());
        if let Some(l) = &g.node_labels {
            assert_eq!(l.len(), g.num_nodes);
            assert!(l.iter().all(|&x| (x as usize) < ds.node_label_values.len()));
        }
        if let Some(l) = &g.edge_labels {
            assert_eq!(l.len(), g.edges.len());
        }
        if let Some(a) = &g.node_attributes {
            assert_eq!(a.len(), g.num_nodes * ds.node_attr_dim);
        }
    }
}

#[test]
fn real_datasets_match_the_dataset_notes() {
    let names: Vec<&str> = EXPECTED.iter().map(|e| e.name).collect();
    if obtain("real_datasets_match_the_dataset_notes", &names).is_none() {
        return;
    }
    for e in EXPECTED {
        let ds = load("real_datasets_match_the_dataset_notes", e.name).unwrap();
        check_invariants(&ds);
        let s: GraphStats = graph_stats(&ds).unwrap();
        assert_eq!(s.name, e.name);
        assert_eq!(s.kind, "graph");
        assert_eq!(s.graphs, e.graphs, "{}", e.name);
        assert_eq!(s.nodes, e.nodes, "{}", e.name);
        assert_eq!(s.edges, e.edges, "{}", e.name);
        assert_eq!(s.classes, e.class_values.len(), "{}", e.name);
        assert_eq!(ds.class_values, e.class_values, "{}", e.name);
        assert_eq!(s.class_counts, e.class_counts, "{}", e.name);
        assert_eq!(format!("{:.2}", s.avg_nodes), e.avg_nodes, "{}", e.name);
        assert_eq!(format!("{:.2}", s.avg_edges), e.avg_edges, "{}", e.name);
        assert_eq!(s.feature_dim, e.feature_dim, "{}", e.name);
        assert_eq!(
            ds.node_label_values.len(),
            e.node_label_values,
            "{}",
            e.name
        );
        assert_eq!(
            ds.edge_label_values.len(),
            e.edge_label_values,
            "{}",
            e.name
        );
        assert_eq!(ds.node_attr_dim, e.node_attr_dim, "{}", e.name);
        let sizes = ds.graphs.iter().map(|g| g.num_nodes);
        let (lo, hi) = (sizes.clone().min().unwrap(), sizes.max().unwrap());
        assert_eq!((lo, hi), e.min_max_nodes, "{}", e.name);
    }
}

#[test]
fn info_json_from_the_binary() {
    let Some(mirror) = obtain("info_json_from_the_binary", &["MUTAG"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(light_magcl::path())
        .args(["datasets", "info", "mutag", "--json"])
        .env("MAGCL_DATA_DIR", tmp.path())
        .env("MAGCL_DATA_MIRROR", &mirror)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let obj = v.as_object().unwrap();
    let mut keys: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "avg_edges",
            "avg_nodes",
            "class_counts",
            "classes",
            "edges",
            "feature_dim",
            "feature_rule",
            "graphs",
            "kind",
            "name",
            "nodes",
            "published",
            "source"
        ]
    );
    assert_eq!(v["name"], "MUTAG");
    assert_eq!(
        v["published"]["figures"][3],
        serde_json::json!(["avg_edges", "19.79"])
    );
    assert!(v["source"]["path"].as_str().unwrap().ends_with("tu/MUTAG"));
    assert_eq!(v["kind"], "graph");
    assert_eq!(v["graphs"], 188);
    assert_eq!(v["nodes"], 3371);
    assert_eq!(v["class_counts"], serde_json::json!([63, 125]));
    assert_eq!(v["feature_dim"], 7);
    assert_eq!(
        v["feature_rule"],
        "auto: labels (from the data: node labels)"
    );
    // The dataset is now cached: a second run works without the mirror.
    let out = std::process::Command::new(light_magcl::path())
        .args(["datasets", "info", "MUTAG"])
        .env("MAGCL_DATA_DIR", tmp.path())
        .env_remove("MAGCL_DATA_MIRROR")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("avg_nodes     17.93"), "{text}");
    assert!(text.contains("class_counts  63 / 125"), "{text}");
}

#[test]
fn info_of_the_embedded_dataset_needs_no_files() {
    let cfg = DataConfig::new("/nonexistent/cache");
    let Info::Graph(s) = Info::load(&cfg, "synthetic").unwrap() else {
        panic!("synthetic is a graph dataset")
    };
    assert_eq!((s.graphs, s.nodes, s.classes), (200, 5000, 2));
    assert_eq!(s.class_counts, vec![100, 100]);
    assert_eq!(s.feature_dim, 1);
    assert!(!std::path::Path::new("/nonexistent/cache").exists());
}

#[test]
fn nci1_load_time() {
    // Reported, not asserted (no timed assertions in tests): run with --nocapture.
    let Some((_tmp, cfg)) = cache_with_mirror("nci1_load_time", &["NCI1"]) else {
        return;
    };
    load_graph_dataset("NCI1", &cfg).unwrap();
    let t = std::time::Instant::now();
    let ds = load_graph_dataset("NCI1", &cfg).unwrap();
    eprintln!(
        "NCI1 from cache: {:.3} s ({} graphs)",
        t.elapsed().as_secs_f64(),
        ds.graphs.len()
    );
}

#[test]
fn real_features() {
    let test = "real_features";
    if obtain(test, &["MUTAG", "PROTEINS", "IMDB-BINARY"]).is_none() {
        return;
    }
    let ds = load(test, "MUTAG").unwrap();
    let f = graph_features(&ds, "auto").unwrap();
    assert_eq!(f.dim, 7);
    assert_eq!(f.x.len(), 188);
    for (g, x) in ds.graphs.iter().zip(&f.x) {
        assert_eq!(x.len(), g.num_nodes * 7);
        for row in x.chunks(7) {
            assert_eq!(row.iter().sum::<f32>(), 1.0);
        }
    }
    assert_eq!(graph_features(&ds, "constant").unwrap().dim, 1);
    let p = load(test, "PROTEINS").unwrap();
    let f = graph_features(&p, "labels+attributes").unwrap();
    assert_eq!(f.dim, 4);
    let imdb = load(test, "IMDB-BINARY").unwrap();
    let e = graph_features(&imdb, "labels").unwrap_err().to_string();
    assert!(e.contains("IMDB-BINARY has no node labels"), "{e}");
    assert!(e.contains("constant"), "{e}");
    let e = graph_features(&imdb, "attributes").unwrap_err().to_string();
    assert!(e.contains("no node attributes"), "{e}");
    let f = graph_features(&imdb, "degree:200").unwrap();
    // Every node of IMDB-BINARY has degree >= 1 (no isolated actors) and < 200.
    for (g, x) in imdb.graphs.iter().zip(&f.x) {
        let deg = g.degrees();
        for (i, row) in x.chunks(201).enumerate() {
            assert_eq!(row[deg[i] as usize], 1.0);
        }
    }
}

/// The features of a published set do not depend on its name: a copy of its files in a
/// `tu:` folder of its own name or of another name gets, under every feature spec the
/// methods use, byte for byte the features (and `datasets info`'s feature_dim) of the set
/// by name, and trains to the same embeddings. The sets by name keep the published
/// setting the committed results were made with: GraphCL's and SimGRACE's one-hot node
/// labels on MUTAG and PROTEINS (its attribute left out), the constant on IMDB-BINARY;
/// AD-GCL's constant everywhere.
#[test]
fn copies_of_a_set_under_any_name_get_its_features() {
    use magcl_torch::data::features::{resolve, FeatureKind};
    let test = "copies_of_a_set_under_any_name_get_its_features";
    let sets = [
        ("MUTAG", FeatureKind::Labels, 7),
        ("PROTEINS", FeatureKind::Labels, 3),
        ("IMDB-BINARY", FeatureKind::Constant, 1),
    ];
    let names: Vec<&str> = sets.iter().map(|s| s.0).collect();
    let Some((cache, cfg)) = cache_with_mirror(test, &names) else {
        return;
    };
    let copies = tempfile::tempdir().unwrap();
    for (name, graphcl_kind, graphcl_dim) in sets {
        let named = load_graph_dataset(name, &cfg).unwrap();
        assert_eq!(
            resolve(&named, magcl_config::registry::feature_spec("graphcl")).unwrap(),
            graphcl_kind,
            "{name}"
        );
        assert_eq!(resolve(&named, "auto").unwrap(), graphcl_kind, "{name}");
        assert_eq!(
            resolve(&named, magcl_config::registry::feature_spec("adgcl")).unwrap(),
            FeatureKind::Constant,
            "{name}"
        );
        assert_eq!(
            graph_stats(&named).unwrap().feature_dim,
            graphcl_dim,
            "{name}"
        );
        // The set's files as fetched, copied under its own name and under another one.
        let files = cache.path().join("tu").join(name);
        for (parent, copy) in [("same", name.to_string()), ("other", format!("MY{name}"))] {
            let dir = copies.path().join(parent).join(&copy);
            std::fs::create_dir_all(&dir).unwrap();
            let mut copied = 0;
            for e in std::fs::read_dir(&files).unwrap() {
                let file = e.unwrap().file_name().to_string_lossy().into_owned();
                if let Some(part) = file.strip_prefix(&format!("{name}_")) {
                    std::fs::copy(files.join(&file), dir.join(format!("{copy}_{part}"))).unwrap();
                    copied += 1;
                }
            }
            assert!(
                copied >= 3,
                "{name}: only {copied} files in {}",
                files.display()
            );
            let spec = format!("tu:{}", dir.display());
            let user = load_graph_dataset(&spec, &cfg).unwrap();
            assert_eq!(user.name, copy);
            for features in ["constant", "auto", "labels+attributes", "degree"] {
                if features == "labels+attributes" && name != "PROTEINS" {
                    continue;
                }
                let a = graph_features(&named, features).unwrap();
                let b = graph_features(&user, features).unwrap();
                assert_eq!(a.dim, b.dim, "{name} as {copy}, {features}");
                let bits = |f: &magcl_torch::data::NodeFeatures| -> Vec<Vec<u32>> {
                    f.x.iter()
                        .map(|g| g.iter().map(|v| v.to_bits()).collect())
                        .collect()
                };
                assert!(bits(&a) == bits(&b), "{name} as {copy}, {features}");
            }
            assert_eq!(
                graph_stats(&user).unwrap().feature_dim,
                graphcl_dim,
                "{name} as {copy}"
            );
            // Trained the same: one GraphCL epoch gives the same embeddings, bit for bit.
            let train = |dataset: &str, out: &std::path::Path| {
                let o = std::process::Command::new(env!("CARGO_BIN_EXE_magcl-torch"))
                    .args(["train", "--method", "graphcl", "--dataset", dataset])
                    .args([
                        "--epochs",
                        "1",
                        "--no-eval",
                        "--threads",
                        "1",
                        "--device",
                        "cpu",
                    ])
                    .arg("--save-embeddings")
                    .arg(out)
                    .env("MAGCL_DATA_DIR", cache.path())
                    .env_remove("MAGCL_DATA_MIRROR")
                    .output()
                    .unwrap();
                assert!(
                    o.status.success(),
                    "{dataset}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                std::fs::read(out).unwrap()
            };
            if parent == "other" {
                let by_name = train(name, &copies.path().join("named.npy"));
                let by_copy = train(&spec, &copies.path().join("copy.npy"));
                assert!(by_name == by_copy, "{name} as {copy}: other embeddings");
            }
        }
        // labels+attributes is there when asked for: PROTEINS' 3 labels and 1 attribute.
        if name == "PROTEINS" {
            assert_eq!(graph_features(&named, "labels+attributes").unwrap().dim, 4);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Fixtures

fn tiny(folder: &str) -> magcl_torch::data::Result<GraphDataset> {
    let dir = fixtures().join("tu").join(folder).join("TINY");
    load_graph_dataset(&format!("tu:{}", dir.display()), &DataConfig::new("unused"))
}

#[test]
fn tiny_fixture_by_hand() {
    let ds = tiny("good").unwrap();
    assert_eq!(ds.name, "TINY");
    assert_eq!(ds.class_values, vec![-1, 1]);
    assert_eq!(ds.labels(), vec![0, 1, 1]);
    assert_eq!(ds.node_label_values, vec![2, 5]);
    assert_eq!(ds.edge_label_values, vec![0, 1, 2]);
    let g = &ds.graphs;
    assert_eq!(
        g.iter().map(|g| g.num_nodes).collect::<Vec<_>>(),
        vec![3, 2, 2]
    );
    assert_eq!(g[0].edges, vec![(0, 1), (0, 2), (1, 2)]);
    assert_eq!(g[1].edges, vec![(0, 1)]);
    assert_eq!(g[2].edges, vec![(0, 1)]);
    assert_eq!(g[0].node_labels, Some(vec![0, 1, 0]));
    assert_eq!(g[0].edge_labels, Some(vec![1, 1, 0]));
    assert_eq!(g[1].edge_labels, Some(vec![2]));
    assert_eq!(g[2].edge_labels, Some(vec![0]));
    assert_eq!(ds.node_attr_dim, 2);
    assert_eq!(
        g[0].node_attributes,
        Some(vec![0.5, 1.0, 1.5, 2.0, -1.0, 0.0])
    );
    assert_eq!(g[2].node_attributes, Some(vec![0.1, 3.0, 4.0, 4.0]));
}

#[test]
fn crlf_line_endings_are_accepted() {
    assert_eq!(tiny("crlf").unwrap().graphs, tiny("good").unwrap().graphs);
}

#[test]
fn utf8_bom_is_accepted() {
    assert_eq!(tiny("bom").unwrap().graphs, tiny("good").unwrap().graphs);
}

/// Loads a malformed fixture; asserts the error starts with `FILE:LINE:` and contains `what`.
fn bad(case: &str, file: &str, line: Option<usize>, what: &str) {
    let dir = fixtures().join("tu/bad").join(case).join("TINY");
    let e = load_graph_dataset(&format!("tu:{}", dir.display()), &DataConfig::new("unused"))
        .expect_err(case)
        .to_string();
    let path: PathBuf = dir.join(format!("TINY_{file}"));
    let prefix = match line {
        Some(l) => format!("{}:{l}: ", path.display()),
        None => format!("{}: ", path.display()),
    };
    assert!(
        e.starts_with(&prefix),
        "{case}: {e}\n  expected prefix {prefix}"
    );
    assert!(
        e.contains(what),
        "{case}: {e}\n  expected to contain {what:?}"
    );
}

#[test]
fn bad_missing_file() {
    bad(
        "missing_file",
        "A.txt",
        None,
        "missing: every TU dataset needs NAME_A.txt",
    );
}

#[test]
fn bad_empty_file() {
    bad(
        "empty_file",
        "graph_labels.txt",
        Some(1),
        "file is empty; expected one integer class label per graph",
    );
}

#[test]
fn bad_non_numeric_field() {
    bad(
        "non_numeric",
        "A.txt",
        Some(3),
        "expected an integer in column 2 of 2 (source, target node ids), found \"x\"",
    );
}

#[test]
fn bad_non_numeric_graph_label() {
    bad(
        "non_numeric_label",
        "graph_labels.txt",
        Some(2),
        "expected an integer (graph class label), found \"one\"",
    );
}

#[test]
fn bad_wrong_column_count() {
    bad(
        "wrong_columns",
        "A.txt",
        Some(2),
        "expected 2 comma-separated values (source, target node ids), found 3",
    );
}

#[test]
fn bad_node_id_out_of_range() {
    bad(
        "node_out_of_range",
        "A.txt",
        Some(5),
        "node id 9 out of range: expected 1..=7",
    );
}

#[test]
fn bad_edge_between_two_graphs() {
    bad(
        "cross_graph_edge",
        "A.txt",
        Some(7),
        "edge 3 -- 4 joins graph 1 and graph 2",
    );
}

#[test]
fn bad_node_labels_count() {
    bad(
        "labels_count",
        "node_labels.txt",
        Some(7),
        "file ends after 6 lines; expected 7 (one per node)",
    );
}

#[test]
fn bad_node_attributes_count() {
    bad(
        "attributes_count",
        "node_attributes.txt",
        Some(8),
        "extra line; expected 7 lines (one per node)",
    );
}

#[test]
fn bad_indicator_shorter_than_labels() {
    bad(
        "indicator_count",
        "node_labels.txt",
        Some(7),
        "extra line; expected 6 lines (one per node)",
    );
}

#[test]
fn bad_edge_labels_count() {
    bad(
        "edge_labels_count",
        "edge_labels.txt",
        Some(12),
        "file ends after 11 lines; expected 12 (one per line of A.txt)",
    );
}

#[test]
fn bad_graph_without_nodes() {
    bad(
        "empty_graph",
        "graph_labels.txt",
        Some(4),
        "graph 4 has no nodes",
    );
}

#[test]
fn bad_graph_id_out_of_range() {
    bad(
        "graph_id_out_of_range",
        "graph_indicator.txt",
        Some(7),
        "graph id 4 out of range: expected 1..=3",
    );
}

#[test]
fn bad_attribute_width() {
    bad(
        "attribute_width",
        "node_attributes.txt",
        Some(4),
        "expected 2 comma-separated values (as on line 1), found 3",
    );
}

#[test]
fn bad_blank_line() {
    bad(
        "blank_line",
        "graph_indicator.txt",
        Some(3),
        "blank line in the middle of the file",
    );
}

#[test]
fn tu_path_errors() {
    let e = load_graph_dataset("tu:/no/such/DIR", &DataConfig::new("unused"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/no/such/DIR: no such folder"), "{e}");
    let e = load_graph_dataset("NOPE", &DataConfig::new("unused"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown dataset \"NOPE\"") && e.contains("IMDB-BINARY"),
        "{e}"
    );
    let e = load_graph_dataset("Cora", &DataConfig::new("unused"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("node-classification"), "{e}");
}
