//! Users' own data: any TU collection name (served here by a local http mirror of small
//! generated TU folders, no real file involved), `tu:PATH` copies of real datasets, magcl's
//! own node-level `npz:PATH` format (written by the test, loaded, trained, evaluated), and
//! sweeps that cannot obtain a dataset failing once, before any cell starts.
mod data_support;
mod light_magcl;

use data_support::{obtain, tree, TestServer};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

fn magcl(args: &[&str], cache: &Path, mirror: Option<&str>) -> Output {
    let mut cmd = Command::new(light_magcl::path());
    cmd.args(args).env("MAGCL_DATA_DIR", cache);
    match mirror {
        Some(m) => cmd.env("MAGCL_DATA_MIRROR", m),
        None => cmd.env_remove("MAGCL_DATA_MIRROR"),
    };
    cmd.output().expect("run magcl")
}

fn ok(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

// ---------------------------------------------------------------------------------------
// Any TU name

/// What a generated TU dataset holds.
#[derive(Clone, Copy)]
struct Shape {
    graphs: usize,
    classes: usize,
    node_labels: usize,
    attr_dim: usize,
}

/// Writes `dir/NAME/NAME_*.txt`: `graphs` rings of 3 + (g mod 4) nodes, class `g mod
/// classes` (written as 1-based labels), node labels and attributes as asked.
fn write_tu(dir: &Path, name: &str, s: Shape) {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let (mut a, mut ind, mut gl, mut nl, mut na) = (
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    );
    let mut next = 1usize;
    for g in 0..s.graphs {
        let n = 3 + g % 4;
        for i in 0..n {
            let (u, v) = (next + i, next + (i + 1) % n);
            a.push_str(&format!("{u}, {v}\n{v}, {u}\n"));
            ind.push_str(&format!("{}\n", g + 1));
            if s.node_labels > 0 {
                nl.push_str(&format!("{}\n", (g + i) % s.node_labels));
            }
            if s.attr_dim > 0 {
                let row: Vec<String> = (0..s.attr_dim)
                    .map(|k| format!("{:.2}", (g * 7 + i * 3 + k) as f64 / 10.0))
                    .collect();
                na.push_str(&format!("{}\n", row.join(", ")));
            }
        }
        next += n;
        gl.push_str(&format!("{}\n", g % s.classes + 1));
    }
    let file = |suffix: &str, text: &str| {
        std::fs::write(d.join(format!("{name}_{suffix}.txt")), text).unwrap();
    };
    file("A", &a);
    file("graph_indicator", &ind);
    file("graph_labels", &gl);
    if s.node_labels > 0 {
        file("node_labels", &nl);
    }
    if s.attr_dim > 0 {
        file("node_attributes", &na);
    }
}

#[test]
fn any_tu_collection_name_works_like_a_builtin_one() {
    // Ten names of the TU collection outside the built-in list, with the kinds of node
    // information their real files have (labels, attributes, both, neither) and what the
    // default features take from them: the labels where there are any.
    let cases: [(&str, Shape, &str, usize); 10] = [
        (
            "ENZYMES",
            Shape {
                graphs: 12,
                classes: 6,
                node_labels: 3,
                attr_dim: 18,
            },
            "labels",
            3,
        ),
        (
            "DHFR",
            Shape {
                graphs: 10,
                classes: 2,
                node_labels: 5,
                attr_dim: 3,
            },
            "labels",
            5,
        ),
        (
            "COX2",
            Shape {
                graphs: 8,
                classes: 2,
                node_labels: 4,
                attr_dim: 3,
            },
            "labels",
            4,
        ),
        (
            "KKI",
            Shape {
                graphs: 9,
                classes: 2,
                node_labels: 6,
                attr_dim: 0,
            },
            "labels",
            6,
        ),
        (
            "OHSU",
            Shape {
                graphs: 7,
                classes: 2,
                node_labels: 4,
                attr_dim: 0,
            },
            "labels",
            4,
        ),
        (
            "Peking_1",
            Shape {
                graphs: 6,
                classes: 2,
                node_labels: 2,
                attr_dim: 0,
            },
            "labels",
            2,
        ),
        (
            "MSRC_9",
            Shape {
                graphs: 16,
                classes: 8,
                node_labels: 5,
                attr_dim: 0,
            },
            "labels",
            5,
        ),
        (
            "Letter-low",
            Shape {
                graphs: 15,
                classes: 15,
                node_labels: 0,
                attr_dim: 2,
            },
            "attributes",
            2,
        ),
        (
            "Synthie",
            Shape {
                graphs: 8,
                classes: 4,
                node_labels: 0,
                attr_dim: 15,
            },
            "attributes",
            15,
        ),
        (
            "deezer_ego_nets",
            Shape {
                graphs: 10,
                classes: 2,
                node_labels: 0,
                attr_dim: 0,
            },
            "constant",
            1,
        ),
    ];
    let served = tempfile::tempdir().unwrap();
    for (name, shape, _, _) in &cases {
        write_tu(&served.path().join("tu"), name, *shape);
    }
    let server = TestServer::start(served.path().to_path_buf(), vec![]);
    let cache = tempfile::tempdir().unwrap();
    for (name, shape, rule, dim) in &cases {
        // Names are case-insensitive, like the built-in ones.
        let asked = name.to_ascii_lowercase();
        let v = ok(&magcl(
            &["datasets", "info", &asked, "--json"],
            cache.path(),
            Some(&server.base_url),
        ));
        assert_eq!(v["name"], *name);
        assert_eq!(v["graphs"], shape.graphs, "{name}");
        assert_eq!(v["classes"], shape.classes, "{name}");
        assert_eq!(v["feature_dim"], *dim, "{name}");
        assert_eq!(
            v["feature_rule"].as_str().unwrap(),
            format!(
                "auto: {rule} (from the data: {})",
                match (shape.node_labels > 0, shape.attr_dim > 0) {
                    (true, true) => "node labels and attributes; labels+attributes takes both",
                    (true, false) => "node labels",
                    (false, true) => "node attributes",
                    (false, false) => "neither node labels nor attributes",
                }
            ),
            "{name}"
        );
        let sha = v["source_sha256"].as_str().unwrap();
        assert_eq!(
            sha,
            magcl_torch::data::source::tu_digest(&served.path().join("tu").join(name), name)
                .unwrap()
        );
        assert_eq!(sha.len(), 64);
    }
    // The human table shows the recorded sha256 too.
    let out = magcl(&["datasets", "info", "ENZYMES"], cache.path(), None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("source_sha256"));

    // A later fetch of other bytes is reported.
    std::fs::remove_dir_all(cache.path().join("tu/KKI")).unwrap();
    let labels = served.path().join("tu/KKI/KKI_graph_labels.txt");
    let text = std::fs::read_to_string(&labels).unwrap();
    std::fs::write(&labels, text.replacen('1', "2", 1)).unwrap();
    let out = magcl(
        &["datasets", "info", "KKI"],
        cache.path(),
        Some(&server.base_url),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("KKI: the files fetched now from")
            && stderr(&out).contains("differ from those fetched earlier"),
        "{}",
        stderr(&out)
    );

    // A name outside the collection: one clear error, nothing asked of any server.
    let before = server.requested().len();
    let out = magcl(
        &["datasets", "info", "ENZYMEZ"],
        cache.path(),
        Some(&server.base_url),
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("unknown dataset \"ENZYMEZ\"")
            && stderr(&out).contains("TU collection"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.requested().len(), before);

    // `datasets list` says any TU name is accepted.
    let out = magcl(&["datasets", "list"], cache.path(), None);
    assert!(String::from_utf8_lossy(&out.stdout).contains("any dataset of the TU collection"));
}

#[test]
fn offline_info_names_the_mirror_variable_and_leaves_no_folder() {
    let cache = tempfile::tempdir().unwrap();
    let root = cache.path().join("fresh");
    let out = magcl(
        &["datasets", "info", "ENZYMES"],
        &root,
        Some("/nonexistent/mirror"),
    );
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("MAGCL_DATA_MIRROR"), "{e}");
    assert!(
        e.contains("/nonexistent/mirror/tu/ENZYMES: no such folder"),
        "{e}"
    );
    assert!(!root.exists(), "left behind: {:?}", tree(&root));
}

#[test]
fn tu_path_copies_match_their_names() {
    let Some(mirror) = obtain("tu_path_copies_match_their_names", &["MUTAG", "PROTEINS"]) else {
        return;
    };
    let m = mirror.display().to_string();
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    for name in ["MUTAG", "PROTEINS"] {
        let by_name = ok(&magcl(
            &["datasets", "info", name, "--json"],
            &cache,
            Some(&m),
        ));
        // The same files under the same name, and under a name of the user's own.
        for (folder, prefix) in [(name, name), ("MYSET", "MYSET")] {
            let dir = work.path().join("copies").join(folder);
            std::fs::create_dir_all(&dir).unwrap();
            for e in std::fs::read_dir(cache.join("tu").join(name)).unwrap() {
                let p = e.unwrap().path();
                let f = p
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .replacen(name, prefix, 1);
                std::fs::copy(&p, dir.join(f)).unwrap();
            }
            let spec = format!("tu:{}", dir.display());
            let v = ok(&magcl(&["datasets", "info", &spec, "--json"], &cache, None));
            for key in [
                "graphs",
                "nodes",
                "edges",
                "classes",
                "avg_nodes",
                "avg_edges",
                "class_counts",
            ] {
                assert_eq!(v[key], by_name[key], "{name} as {folder}: {key}");
            }
            // The features come from the files, not the name: PROTEINS (node labels and
            // an attribute) gets its 3 labels under any name.
            for key in ["feature_dim", "feature_rule"] {
                assert_eq!(v[key], by_name[key], "{name} as {folder}: {key}");
            }
        }
        std::fs::remove_dir_all(work.path().join("copies")).unwrap();
    }
    // GraphCL trains on a copy of MUTAG under another name exactly as on MUTAG.
    let dir = work.path().join("copies/MYSET");
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(cache.join("tu/MUTAG")).unwrap() {
        let p = e.unwrap().path();
        let f = p
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .replacen("MUTAG", "MYSET", 1);
        std::fs::copy(&p, dir.join(f)).unwrap();
    }
    let train = |dataset: &str| {
        ok(&magcl(
            &[
                "train",
                "--method",
                "graphcl",
                "--dataset",
                dataset,
                "--epochs",
                "2",
                "--seed",
                "1",
                "--device",
                "cpu",
                "--json",
            ],
            &cache,
            None,
        ))
    };
    let a = train("MUTAG");
    let b = train(&format!("tu:{}", dir.display()));
    assert_eq!(a["epoch_losses"], b["epoch_losses"]);
    assert_eq!(a["accuracy"], b["accuracy"]);
}

// ---------------------------------------------------------------------------------------
// Node-level npz

/// One `.npy` array: little-endian dtype `descr`, `shape`, raw bytes.
fn npy(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(data);
    out
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i64s(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An `.npz`: one `NAME.npy` entry per array, deflated.
fn write_npz(path: &Path, arrays: &[(&str, Vec<u8>)]) {
    let entries: Vec<(String, Vec<u8>)> = arrays
        .iter()
        .map(|(name, bytes)| (format!("{name}.npy"), bytes.clone()))
        .collect();
    write_zip(path, &entries);
}

/// A planted graph: `n` nodes in 3 classes, ring edges inside each class plus a few across,
/// 6 features of which two mark the class.
fn planted(n: usize) -> (Vec<f32>, Vec<i64>, Vec<i64>) {
    let mut x = vec![0f32; n * 6];
    let y: Vec<i64> = (0..n as i64).map(|i| i % 3).collect();
    for i in 0..n {
        x[i * 6 + (i % 3)] = 1.0;
        x[i * 6 + 3 + (i * 7 % 3)] = 0.5;
    }
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for i in 0..n {
        src.push(i as i64);
        dst.push(((i + 3) % n) as i64);
        if i % 10 == 0 {
            src.push(i as i64);
            dst.push(((i + 1) % n) as i64);
        }
    }
    let mut edge_index = src;
    edge_index.extend(dst);
    (x, y, edge_index)
}

#[test]
fn npz_node_graph_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let n = 150;
    let (x, y, edge_index) = planted(n);
    let m = edge_index.len() / 2;
    let path = dir.path().join("mygraph.npz");
    write_npz(
        &path,
        &[
            ("x", npy("<f4", &[n, 6], &f32s(&x))),
            ("edge_index", npy("<i8", &[2, m], &i64s(&edge_index))),
            ("y", npy("<i8", &[n], &i64s(&y))),
        ],
    );
    let spec = format!("npz:{}", path.display());
    let v = ok(&magcl(&["datasets", "info", &spec, "--json"], &cache, None));
    assert_eq!(v["name"], "mygraph");
    assert_eq!(v["kind"], "node");
    assert_eq!(
        (
            v["nodes"].as_u64(),
            v["features"].as_u64(),
            v["classes"].as_u64()
        ),
        (Some(n as u64), Some(6), Some(3))
    );
    assert_eq!(v["edges"], m as u64);
    assert!(v["train"].is_null());
    // Trained for a few epochs and evaluated on the code preset's random split.
    let rec = ok(&magcl(
        &[
            "train",
            "--method",
            "base",
            "--dataset",
            &spec,
            "--epochs",
            "3",
            "--device",
            "cpu",
            "--json",
            "--set",
            "node.kmeans_restarts=1",
        ],
        &cache,
        None,
    ));
    assert_eq!(rec["epoch_losses"].as_array().unwrap().len(), 3);
    let acc = rec["accuracy"].as_f64().unwrap();
    assert!(acc.is_finite() && (0.0..=100.0).contains(&acc), "{acc}");

    // With masks: a fixed split, used by the paper preset's public-split protocol.
    let mask = |r: std::ops::Range<usize>| -> Vec<u8> {
        (0..n).map(|i| u8::from(r.contains(&i))).collect()
    };
    let with_masks = dir.path().join("masked.npz");
    write_npz(
        &with_masks,
        &[
            ("x", npy("<f4", &[n, 6], &f32s(&x))),
            (
                "edges",
                npy(
                    "<i8",
                    &[m, 2],
                    &i64s(
                        &(0..m)
                            .flat_map(|j| [edge_index[j], edge_index[m + j]])
                            .collect::<Vec<_>>(),
                    ),
                ),
            ),
            ("y", npy("<i8", &[n], &i64s(&y))),
            ("train_mask", npy("|b1", &[n], &mask(0..30))),
            ("val_mask", npy("|b1", &[n], &mask(30..60))),
            ("test_mask", npy("|b1", &[n], &mask(60..150))),
        ],
    );
    let spec = format!("npz:{}", with_masks.display());
    let v = ok(&magcl(&["datasets", "info", &spec, "--json"], &cache, None));
    assert_eq!(
        (v["train"].as_u64(), v["val"].as_u64(), v["test"].as_u64()),
        (Some(30), Some(30), Some(90))
    );
    assert_eq!(v["edges"], m as u64);
}

/// Named `.npy` arrays of one archive.
type Arrays = Vec<(String, Vec<u8>)>;

#[test]
fn npz_node_graph_errors() {
    let dir = tempfile::tempdir().unwrap();
    let n = 20;
    let (x, y, edge_index) = planted(n);
    let m = edge_index.len() / 2;
    let good = |name: &str| -> (String, Vec<u8>) {
        match name {
            "x" => (name.into(), npy("<f4", &[n, 6], &f32s(&x))),
            "edge_index" => (name.into(), npy("<i8", &[2, m], &i64s(&edge_index))),
            "y" => (name.into(), npy("<i8", &[n], &i64s(&y))),
            _ => unreachable!(),
        }
    };
    let mut nan_x = x.clone();
    nan_x[4 * 6 + 2] = f32::NAN;
    let mut far = edge_index.clone();
    far[5] = 99;
    let flags = |r: std::ops::Range<usize>| -> Vec<u8> {
        (0..n).map(|i| u8::from(r.contains(&i))).collect()
    };
    let cases: Vec<(&str, Arrays, &str)> = vec![
        (
            "no_y",
            vec![good("x"), good("edge_index")],
            "missing array y",
        ),
        (
            "short_x",
            vec![
                (
                    "x".into(),
                    npy("<f4", &[n - 1, 6], &f32s(&x[..(n - 1) * 6])),
                ),
                good("edge_index"),
                good("y"),
            ],
            "the features have 19 rows; expected one per node (20",
        ),
        (
            "nan",
            vec![
                ("x".into(), npy("<f4", &[n, 6], &f32s(&nan_x))),
                good("edge_index"),
                good("y"),
            ],
            "the features of node 4 contain a non-finite value",
        ),
        (
            "far",
            vec![
                good("x"),
                ("edge_index".into(), npy("<i8", &[2, m], &i64s(&far))),
                good("y"),
            ],
            "names node 99; nodes are 0..19",
        ),
        (
            "edge_shape",
            vec![
                good("x"),
                ("edge_index".into(), npy("<i8", &[m, 2], &i64s(&edge_index))),
                good("y"),
            ],
            "array edge_index: expected shape (2, edges)",
        ),
        (
            "overlap",
            vec![
                good("x"),
                good("edge_index"),
                good("y"),
                ("train_mask".into(), npy("|b1", &[n], &flags(0..8))),
                ("val_mask".into(), npy("|b1", &[n], &flags(5..10))),
                ("test_mask".into(), npy("|b1", &[n], &flags(10..20))),
            ],
            "masks overlap: node 5 is in both train_mask and val_mask",
        ),
        (
            "one_mask",
            vec![
                good("x"),
                good("edge_index"),
                good("y"),
                ("train_mask".into(), npy("|b1", &[n], &flags(0..8))),
            ],
            "give all three of train_mask, val_mask, test_mask or none",
        ),
    ];
    for (label, arrays, expected) in cases {
        let path = dir.path().join(format!("{label}.npz"));
        let named: Vec<(&str, Vec<u8>)> = arrays
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        write_npz(&path, &named);
        let out = magcl(
            &["datasets", "info", &format!("npz:{}", path.display())],
            dir.path(),
            None,
        );
        assert!(!out.status.success(), "{label}");
        let e = stderr(&out);
        assert!(
            e.contains(&path.display().to_string()),
            "{label}: the message names the file: {e}"
        );
        assert!(e.contains(expected), "{label}: {e}");
    }
}

// ---------------------------------------------------------------------------------------
// Sweeps

#[test]
fn offline_sweep_fails_once_before_any_cell() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sweep.toml");
    std::fs::write(
        &config,
        "name = \"offline\"\ndatasets = [\"synthetic\", \"ENZYMES\", \"DHFR\"]\nmethods = [\"graphcl\"]\nseeds = 2\n[overrides]\nepochs = 1\n",
    )
    .unwrap();
    let out_csv = dir.path().join("rows.csv");
    let out = magcl(
        &[
            "bench",
            config.to_str().unwrap(),
            "--out",
            out_csv.to_str().unwrap(),
            "--device",
            "cpu",
        ],
        &dir.path().join("cache"),
        Some("/nonexistent/mirror"),
    );
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains("2 dataset(s) of this sweep cannot be obtained, so no cell was started"),
        "{e}"
    );
    assert!(e.contains("  DHFR: ") && e.contains("  ENZYMES: "), "{e}");
    assert!(e.contains("MAGCL_DATA_MIRROR"), "{e}");
    assert!(!e.contains("[1/"), "no cell ran: {e}");
    assert!(!out_csv.exists());
}

// ---------------------------------------------------------------------------------------
// Careless and hostile data sources

fn small_enzymes(dir: &Path) {
    write_tu(
        &dir.join("tu"),
        "ENZYMES",
        Shape {
            graphs: 12,
            classes: 6,
            node_labels: 3,
            attr_dim: 2,
        },
    );
}

/// A zip of `entries` (name, bytes), deflated.
fn write_zip<S: AsRef<str>>(path: &Path, entries: &[(S, Vec<u8>)]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        zip.start_file(name.as_ref(), opts).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

#[test]
fn zips_unpack_only_what_the_format_needs_within_bounds() {
    let dir = tempfile::tempdir().unwrap();
    // A valid ENZYMES zip with an entry the format does not use: it is not unpacked.
    let files = dir.path().join("files");
    small_enzymes(&files);
    let mut entries: Vec<(String, Vec<u8>)> = std::fs::read_dir(files.join("tu/ENZYMES"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                format!("ENZYMES/{}", p.file_name().unwrap().to_str().unwrap()),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    entries.push(("ENZYMES/ENZYMES_bomb.txt".into(), vec![b'0'; 1 << 20]));
    let mirror = dir.path().join("mirror");
    write_zip(&mirror.join("tu/ENZYMES/ENZYMES.zip"), &entries);
    let cache = dir.path().join("cache");
    let out = magcl(
        &["datasets", "info", "ENZYMES", "--json"],
        &cache,
        Some(mirror.to_str().unwrap()),
    );
    assert_eq!(ok(&out)["graphs"], 12);
    let cached = tree(&cache.join("tu/ENZYMES"));
    assert!(!cached.iter().any(|f| f.contains("bomb")), "{cached:?}");
    assert_eq!(cached.len(), 5, "{cached:?}");

    // A bomb: 96 MiB of one byte in a small archive, refused before it is all unpacked.
    let bomb = dir.path().join("bomb");
    write_zip(
        &bomb.join("tu/DHFR/DHFR.zip"),
        &[("DHFR_A.txt", vec![b'1'; 96 << 20])],
    );
    let packed = std::fs::metadata(bomb.join("tu/DHFR/DHFR.zip"))
        .unwrap()
        .len();
    assert!(packed < 1 << 20, "{packed}");
    let out = magcl(
        &["datasets", "info", "DHFR"],
        &cache,
        Some(bomb.to_str().unwrap()),
    );
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("DHFR.zip:DHFR_A.txt: larger than"), "{e}");
    assert!(e.contains("may total at most 100×"), "{e}");
    assert!(!cache.join("tu/DHFR").exists());

    // A file with a known size that grows inside a zip: reading stops at the known size.
    let m = dir.path().join("mutag");
    write_zip(
        &m.join("tu/MUTAG/MUTAG.zip"),
        &[("MUTAG_A.txt", vec![b'1'; 8 << 20])],
    );
    let out = magcl(
        &["datasets", "info", "MUTAG"],
        &cache,
        Some(m.to_str().unwrap()),
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out)
            .contains("more than the known 76940 bytes of tu/MUTAG/MUTAG_A.txt; stopped reading"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_http_mirror_is_read_no_further_than_the_known_size() {
    let served = tempfile::tempdir().unwrap();
    let d = served.path().join("tu/MUTAG");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("MUTAG_A.txt"), vec![b'1'; 4 << 20]).unwrap();
    let server = TestServer::start(served.path().to_path_buf(), vec![]);
    let cache = tempfile::tempdir().unwrap();
    let out = magcl(
        &["datasets", "info", "MUTAG"],
        cache.path(),
        Some(&server.base_url),
    );
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains("/tu/MUTAG/MUTAG_A.txt: more than the known 76940 bytes"),
        "{e}"
    );
    assert!(!e.contains("connection dropped"), "{e}");
}

#[test]
fn parse_errors_name_the_mirror_file_and_local_reads_are_not_connections() {
    let dir = tempfile::tempdir().unwrap();
    let mirror = dir.path().join("mirror");
    small_enzymes(&mirror);
    let a = mirror.join("tu/ENZYMES/ENZYMES_A.txt");
    let text = std::fs::read_to_string(&a).unwrap();
    std::fs::write(&a, text.replacen("1, 2", "1, x", 1)).unwrap();
    let cache = dir.path().join("cache");
    let out = magcl(
        &["datasets", "info", "ENZYMES"],
        &cache,
        Some(mirror.to_str().unwrap()),
    );
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains(&a.display().to_string()),
        "names the mirror file: {e}"
    );
    assert!(
        !e.contains(".partial-"),
        "no temporary folder in the message: {e}"
    );

    // A local file that cannot be read (a folder where a file should be).
    let m2 = dir.path().join("m2");
    small_enzymes(&m2);
    let labels = m2.join("tu/ENZYMES/ENZYMES_graph_labels.txt");
    std::fs::remove_file(&labels).unwrap();
    std::fs::create_dir(&labels).unwrap();
    let out = magcl(
        &["datasets", "info", "ENZYMES"],
        &cache,
        Some(m2.to_str().unwrap()),
    );
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("could not be read to its end"), "{e}");
    assert!(!e.contains("connection dropped"), "{e}");
}

#[test]
fn an_incomplete_cache_folder_is_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let mirror = dir.path().join("mirror");
    small_enzymes(&mirror);
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(cache.join("tu/ENZYMES")).unwrap();
    std::fs::copy(
        mirror.join("tu/ENZYMES/ENZYMES_A.txt"),
        cache.join("tu/ENZYMES/ENZYMES_A.txt"),
    )
    .unwrap();
    let out = magcl(
        &["datasets", "info", "ENZYMES", "--json"],
        &cache,
        Some(mirror.to_str().unwrap()),
    );
    assert_eq!(ok(&out)["graphs"], 12);
    assert!(stderr(&out).contains("was incomplete"), "{}", stderr(&out));
    assert_eq!(tree(&cache.join("tu/ENZYMES")).len(), 5);
    assert!(!tree(&cache.join("tu"))
        .iter()
        .any(|f| f.contains("incomplete") || f.contains("partial")));
}

#[test]
fn mirror_schemes_are_understood_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mirror = dir.path().join("mirror");
    small_enzymes(&mirror);
    let file_url = format!("file://{}", mirror.display());
    let out = magcl(
        &["datasets", "info", "ENZYMES", "--json"],
        &dir.path().join("c1"),
        Some(&file_url),
    );
    assert_eq!(ok(&out)["graphs"], 12);

    let server = TestServer::start(mirror.clone(), vec![]);
    let upper = server.base_url.replacen("http://", "HTTP://", 1);
    let out = magcl(
        &["datasets", "info", "ENZYMES", "--json"],
        &dir.path().join("c2"),
        Some(&upper),
    );
    assert_eq!(ok(&out)["graphs"], 12);

    for bad in ["ftp://example.org/mirror", "file://relative/path"] {
        let out = magcl(
            &["datasets", "info", "ENZYMES"],
            &dir.path().join("c3"),
            Some(bad),
        );
        assert!(!out.status.success());
        let e = stderr(&out);
        assert!(e.contains(&format!("MAGCL_DATA_MIRROR={bad}")), "{e}");
        assert!(!dir.path().join("c3").exists());
    }
}
