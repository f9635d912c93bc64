//! The GIN/DGCNN text format: hand-written files, malformed ones with their line numbers,
//! the zip copies of the mirror (`dgcnn/NAME.zip`) against the TU files of the same sets,
//! the sets only the DGCNN copies hold (COLLAB, DD, REDDIT-BINARY) by name, and the
//! gnn-benchmark `.npz` files read out of the mirror's `npz/NAME.zip`.
mod data_support;
mod light_magcl;

use data_support::{cache_with, fixtures, obtain};
use magcl_torch::data::source::{load_graph_dataset_traced, DGCNN_COPIES};
use magcl_torch::data::{
    graph_features, load_graph_dataset, load_node_dataset, DataConfig, GraphDataset,
};
use std::io::Write;
use std::path::{Path, PathBuf};

fn load(spec: &str) -> GraphDataset {
    let cfg = DataConfig::new(std::env::temp_dir().join("magcl-unused-cache"));
    load_graph_dataset(spec, &cfg).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn load_err(spec: &str) -> String {
    let cfg = DataConfig::new(std::env::temp_dir().join("magcl-unused-cache"));
    load_graph_dataset(spec, &cfg).unwrap_err().to_string()
}

fn write_zip(path: &Path, entries: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(*name, opts).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// The graphs of `ds` without what the DGCNN format cannot carry (edge labels and
/// attributes) and, where `attributes` is false, without node attributes.
fn comparable(ds: &GraphDataset, attributes: bool) -> Vec<magcl_torch::data::Graph> {
    ds.graphs
        .iter()
        .map(|g| {
            let mut g = g.clone();
            g.edge_labels = None;
            g.edge_attributes = None;
            if !attributes {
                g.node_attributes = None;
            }
            g
        })
        .collect()
}

#[test]
fn a_hand_written_file_is_the_tu_fixture() {
    // good/TINY.txt holds the graphs of the TU fixture tu/good/TINY (tags = its node labels,
    // its two attributes after the neighbours, graph labels -1/1), plus a self-loop.
    let tu = load(&format!("tu:{}", fixtures().join("tu/good/TINY").display()));
    let file = fixtures().join("dgcnn/good/TINY.txt");
    let dg = load(&format!("dgcnn:{}", file.display()));
    assert_eq!(dg.name, "TINY");
    assert_eq!(comparable(&dg, true), comparable(&tu, true));
    assert_eq!(dg.class_values, tu.class_values);
    assert_eq!(dg.node_label_values, tu.node_label_values);
    assert_eq!(dg.node_attr_dim, 2);
    assert!(dg.edge_label_values.is_empty());
    // The same file in a folder named after it, and in a zip beside the stray entries
    // of the mirror's archives, gives the same dataset.
    let bytes = std::fs::read(&file).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("TINY");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("TINY.txt"), &bytes).unwrap();
    let in_folder = load(&format!("dgcnn:{}", dir.display()));
    assert_eq!(in_folder.graphs, dg.graphs);
    let zip = tmp.path().join("TINY.zip");
    write_zip(
        &zip,
        &[
            ("TINY/.DS_Store", b"\0\0\0\x01Bud1"),
            ("__MACOSX/TINY/._.DS_Store", b"\0\x05\x16\x07"),
            ("TINY/10fold_idx/test_idx-1.txt", b"0\n1\n"),
            ("TINY/TINY.txt", &bytes),
        ],
    );
    let zipped = load(&format!("dgcnn:{}", zip.display()));
    assert_eq!(zipped.name, "TINY");
    assert_eq!(zipped.graphs, dg.graphs);
    // A zip with two candidate text files is refused, naming both.
    let two = tmp.path().join("TWO.zip");
    write_zip(
        &two,
        &[("a/A.txt", b"1\n1 0\n0 0\n"), ("b/B.txt", b"1\n1 0\n0 0\n")],
    );
    let e = load_err(&format!("dgcnn:{}", two.display()));
    assert!(e.contains("2 candidate entries (a/A.txt, b/B.txt)"), "{e}");
}

#[test]
fn a_constant_tag_is_no_node_label() {
    let dg = load(&format!(
        "dgcnn:{}",
        fixtures().join("dgcnn/good/NOTAGS.txt").display()
    ));
    assert!(dg.node_label_values.is_empty());
    assert!(dg.graphs.iter().all(|g| g.node_labels.is_none()));
    assert_eq!(dg.graphs[0].edges, vec![(0, 1), (0, 2), (1, 2)]);
    assert_eq!(dg.graphs[1].edges, vec![(0, 1)]);
    // Without labels or attributes the default features are the constant one.
    let f = graph_features(&dg, "auto").unwrap();
    assert_eq!(f.dim, 1);
}

#[test]
fn malformed_files_name_their_line_and_what_was_expected() {
    let cases = [
        (
            "truncated",
            "truncated.txt:5: file ends here; expected graph 2 of 2",
        ),
        (
            "neighbour_out_of_range",
            "neighbour_out_of_range.txt:3: neighbour 2 out of range; expected 0..2",
        ),
        (
            "non_numeric_tag",
            "non_numeric_tag.txt:3: expected an integer (node tag), found \"C\"",
        ),
        (
            "attribute_width",
            "attribute_width.txt:4: 2 attributes after the neighbours; expected 1 (as on line 3)",
        ),
        (
            "extra_line",
            "extra_line.txt:4: extra line after the 1 graphs",
        ),
        (
            "header",
            "header.txt:1: expected one integer (the number of graphs)",
        ),
        (
            "blank_line",
            "blank_line.txt:4: blank line; expected node 1 of graph 1",
        ),
        (
            "short_neighbours",
            "short_neighbours.txt:3: line ends early; expected an integer (neighbour 2 of the 3",
        ),
    ];
    let dir = fixtures().join("dgcnn/bad");
    let mut seen: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    seen.sort();
    let mut listed: Vec<String> = cases.iter().map(|(n, _)| format!("{n}.txt")).collect();
    listed.sort();
    assert_eq!(seen, listed, "every bad fixture has its expected message");
    for (name, want) in cases {
        let path = dir.join(format!("{name}.txt"));
        let e = load_err(&format!("dgcnn:{}", path.display()));
        let want = format!("{}/{want}", dir.display());
        assert!(e.starts_with(&want), "{name}: {e}\nexpected: {want}");
    }
    let e = load_err("dgcnn:/nonexistent/X.txt");
    assert!(e.contains("expected a DGCNN NAME.txt"), "{e}");
}

/// The mirror's DGCNN copy of a set, read as `dgcnn:PATH`.
fn dgcnn_copy(mirror: &Path, stem: &str) -> GraphDataset {
    load(&format!(
        "dgcnn:{}",
        mirror.join(format!("dgcnn/{stem}.zip")).display()
    ))
}

fn has_dgcnn(test: &str, mirror: &Path, stems: &[&str]) -> bool {
    let missing: Vec<&str> = stems
        .iter()
        .copied()
        .filter(|s| !mirror.join(format!("dgcnn/{s}.zip")).is_file())
        .collect();
    if !missing.is_empty() {
        data_support::skip(
            test,
            &format!(
                "the mirror {} has no dgcnn/{{{}}}.zip",
                mirror.display(),
                missing.join(",")
            ),
        );
    }
    missing.is_empty()
}

/// NCI1, IMDB-BINARY, IMDB-MULTI and PROTEINS (without its attribute, which the DGCNN copy
/// lacks) are the same datasets from either copy: graphs, node order, edges, classes and
/// node-label indices; so their label features are identical too.
#[test]
fn tu_and_dgcnn_copies_give_the_same_dataset() {
    let test = "tu_and_dgcnn_copies_give_the_same_dataset";
    let sets = [
        ("NCI1", "NCI1"),
        ("IMDB-BINARY", "IMDBBINARY"),
        ("IMDB-MULTI", "IMDBMULTI"),
        ("PROTEINS", "PROTEINS"),
    ];
    let names: Vec<&str> = sets.iter().map(|s| s.0).collect();
    let Some(mirror) = obtain(test, &names) else {
        return;
    };
    let stems: Vec<&str> = sets.iter().map(|s| s.1).collect();
    if !has_dgcnn(test, &mirror, &stems) {
        return;
    }
    for (name, stem) in sets {
        let (_tmp, cfg) = cache_with(&mirror.display().to_string());
        let tu = load_graph_dataset(name, &cfg).unwrap();
        let dg = dgcnn_copy(&mirror, stem);
        let attributes = name != "PROTEINS";
        assert_eq!(
            comparable(&dg, attributes),
            comparable(&tu, attributes),
            "{name}"
        );
        assert_eq!(dg.num_classes(), tu.num_classes(), "{name}");
        assert_eq!(
            dg.node_label_values.len(),
            tu.node_label_values.len(),
            "{name}"
        );
        let spec = if tu.node_label_values.is_empty() {
            "auto"
        } else {
            "labels"
        };
        assert_eq!(
            graph_features(&dg, spec).unwrap(),
            graph_features(&tu, spec).unwrap(),
            "{name}"
        );
        if name == "PROTEINS" {
            assert_eq!((tu.node_attr_dim, dg.node_attr_dim), (1, 0));
        }
    }
}

/// MUTAG's DGCNN copy renames its node labels and orders its graphs differently: with the
/// renaming undone (the label counts are all distinct, so they fix it), the two copies hold
/// the same multiset of graphs.
#[test]
fn mutag_copies_agree_up_to_label_renaming_and_graph_order() {
    let test = "mutag_copies_agree_up_to_label_renaming_and_graph_order";
    let Some(mirror) = obtain(test, &["MUTAG"]) else {
        return;
    };
    if !has_dgcnn(test, &mirror, &["MUTAG"]) {
        return;
    }
    let (_tmp, cfg) = cache_with(&mirror.display().to_string());
    let tu = load_graph_dataset("MUTAG", &cfg).unwrap();
    let dg = dgcnn_copy(&mirror, "MUTAG");
    let counts = |ds: &GraphDataset| {
        let mut c = vec![0usize; ds.node_label_values.len()];
        for g in &ds.graphs {
            for &l in g.node_labels.as_ref().unwrap() {
                c[l as usize] += 1;
            }
        }
        c
    };
    let (ct, cd) = (counts(&tu), counts(&dg));
    assert_eq!(ct.len(), 7);
    let rename: Vec<u32> = ct
        .iter()
        .map(|c| {
            let hits: Vec<usize> = (0..cd.len()).filter(|&j| cd[j] == *c).collect();
            assert_eq!(hits.len(), 1, "label count {c} is not unique");
            hits[0] as u32
        })
        .collect();
    let mut a: Vec<_> = comparable(&tu, false)
        .into_iter()
        .map(|mut g| {
            g.node_labels = g
                .node_labels
                .map(|l| l.iter().map(|&x| rename[x as usize]).collect());
            format!("{g:?}")
        })
        .collect();
    let mut b: Vec<_> = comparable(&dg, false)
        .into_iter()
        .map(|g| format!("{g:?}"))
        .collect();
    assert_ne!(a, b, "the graph order differs");
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

/// COLLAB, DD and REDDIT-BINARY by name from a mirror holding only their DGCNN copies:
/// the published figures, the copy cached as it is, its path and sha256 reported; a second
/// load reads the cache without the mirror.
#[test]
fn sets_of_the_dgcnn_copies_load_by_name() {
    let test = "sets_of_the_dgcnn_copies_load_by_name";
    let Some(mirror) = obtain(test, &["COLLAB", "DD", "REDDIT-BINARY"]) else {
        return;
    };
    // (name, graphs, nodes, undirected edges without self-loops, classes, largest graph)
    let expected = [
        ("COLLAB", 5_000, 372_474, 12_286_079, 3, 492),
        ("DD", 1_178, 334_925, 843_046, 2, 5_748),
        ("REDDIT-BINARY", 2_000, 859_254, 995_508, 2, 3_782),
    ];
    for (name, graphs, nodes, edges, classes, largest) in expected {
        let (tmp, cfg) = cache_with(&mirror.display().to_string());
        let (ds, src) = load_graph_dataset_traced(name, &cfg).unwrap();
        assert_eq!(
            (
                ds.graphs.len(),
                ds.num_nodes(),
                ds.num_edges(),
                ds.num_classes()
            ),
            (graphs, nodes, edges, classes),
            "{name}"
        );
        assert_eq!(ds.graphs.iter().map(|g| g.num_nodes).max(), Some(largest));
        let stem = DGCNN_COPIES.iter().find(|c| c.0 == name).unwrap().1;
        let rel = format!("dgcnn/{stem}.zip");
        let cached: PathBuf = tmp.path().join(&rel);
        assert!(cached.is_file(), "{name}: {} not cached", cached.display());
        let src = src.unwrap();
        assert_eq!(src.path, cached.display().to_string());
        let known = magcl_torch::data::checksums::lookup(&rel).unwrap();
        assert_eq!(src.sha256, known.sha256);
        let offline = DataConfig::new(tmp.path());
        let again = load_graph_dataset(name, &offline).unwrap();
        assert_eq!(again.graphs, ds.graphs, "{name}");
    }
}

/// `magcl datasets info` for the six sets of the mirror's zips prints the published figures
/// beside its own and the copy it read.
#[test]
fn info_prints_published_figures_and_the_copy_read() {
    let test = "info_prints_published_figures_and_the_copy_read";
    let Some(mirror) = obtain(test, &["DD", "Amazon-Photo"]) else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(light_magcl::path())
        .args(["datasets", "info", "DD"])
        .env("MAGCL_DATA_DIR", cache.path())
        .env("MAGCL_DATA_MIRROR", &mirror)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("1178  (published 1178)"), "{text}");
    assert!(text.contains("284.32  (published 284.32)"), "{text}");
    assert!(text.contains("715.66  (published 715.66)"), "{text}");
    assert!(
        text.contains("read from: ") && text.contains("dgcnn/DD.zip"),
        "{text}"
    );
    let out = std::process::Command::new(light_magcl::path())
        .args(["datasets", "info", "Amazon-Photo", "--json"])
        .env("MAGCL_DATA_DIR", cache.path())
        .env("MAGCL_DATA_MIRROR", &mirror)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 7650);
    assert_eq!(
        v["published"]["figures"][0],
        serde_json::json!(["nodes", "7650"])
    );
    assert_eq!(
        v["source"]["sha256"],
        "bdb1feb8e6ff42ee44024b04479145029c563fd42fc31bff80af20887ba0439a"
    );
}

/// The gnn-benchmark files come out of the mirror's `npz/NAME.zip`, checked against the
/// npz's sha256; a zip whose npz is another file is refused and nothing is cached.
#[test]
fn npz_files_are_read_out_of_the_mirror_zips() {
    let test = "npz_files_are_read_out_of_the_mirror_zips";
    let Some(mirror) = obtain(test, &["Amazon-Photo"]) else {
        return;
    };
    let (tmp, cfg) = cache_with(&mirror.display().to_string());
    let ds = load_node_dataset("Amazon-Photo", &cfg).unwrap();
    assert_eq!(
        (
            ds.num_nodes,
            ds.edges.len(),
            ds.features.cols,
            ds.num_classes
        ),
        (7650, 119_081, 745, 8)
    );
    let cached = tmp.path().join("npz/amazon_electronics_photo.npz");
    assert_eq!(std::fs::metadata(&cached).unwrap().len(), 17_113_960);
    // A forged zip: right name, wrong bytes.
    let forged = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(forged.path().join("npz")).unwrap();
    write_zip(
        &forged.path().join("npz/amazon_electronics_photo.zip"),
        &[("amazon_electronics_photo.npz", b"PK not the file")],
    );
    let (tmp2, cfg2) = cache_with(&forged.path().display().to_string());
    let e = load_node_dataset("Amazon-Photo", &cfg2)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("checksum mismatch for npz/amazon_electronics_photo.npz"),
        "{e}"
    );
    assert!(!tmp2
        .path()
        .join("npz/amazon_electronics_photo.npz")
        .exists());
}

/// One short GraphCL run of IMDB-BINARY read from its TU files and one read from its DGCNN
/// copy (a mirror holding only `dgcnn/IMDBBINARY.zip`): the same config hash, losses and
/// accuracies, bit for bit; only the recorded copy differs.
#[test]
fn tu_and_dgcnn_copies_give_identical_runs() {
    let test = "tu_and_dgcnn_copies_give_identical_runs";
    let Some(mirror) = obtain(test, &["IMDB-BINARY"]) else {
        return;
    };
    if !has_dgcnn(test, &mirror, &["IMDBBINARY"]) {
        return;
    }
    if !mirror.join("tu/IMDB-BINARY").is_dir() {
        data_support::skip(test, "the mirror has no tu/IMDB-BINARY/ to compare with");
        return;
    }
    let only_dgcnn = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(only_dgcnn.path().join("dgcnn")).unwrap();
    std::fs::copy(
        mirror.join("dgcnn/IMDBBINARY.zip"),
        only_dgcnn.path().join("dgcnn/IMDBBINARY.zip"),
    )
    .unwrap();
    let run = |mirror: &Path| -> serde_json::Value {
        let cache = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_magcl-torch"))
            .args(["train", "--method", "graphcl", "--dataset", "IMDB-BINARY"])
            .args(["--epochs", "1", "--seed", "0", "--json", "--device", "cpu"])
            .args(["--threads", "1"])
            .env("MAGCL_DATA_DIR", cache.path())
            .env("MAGCL_DATA_MIRROR", mirror)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let a = run(&mirror);
    let b = run(only_dgcnn.path());
    for key in [
        "config_hash",
        "epoch_losses",
        "accuracy",
        "fold_accuracies",
        "config",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    let (sa, sb) = (&a["data_source"], &b["data_source"]);
    assert!(
        sa["path"].as_str().unwrap().ends_with("tu/IMDB-BINARY"),
        "{sa}"
    );
    assert!(
        sb["path"]
            .as_str()
            .unwrap()
            .ends_with("dgcnn/IMDBBINARY.zip"),
        "{sb}"
    );
    assert_eq!(
        sb["sha256"],
        magcl_torch::data::checksums::lookup("dgcnn/IMDBBINARY.zip")
            .unwrap()
            .sha256
    );
}
