//! The cache: filling it from a mirror folder (unpacked files or a TU zip), from an
//! http(s) mirror (a server on 127.0.0.1 started here), checksum and structure checks,
//! and the promise that a failed fetch leaves nothing behind.
mod data_support;
mod light_magcl;

use data_support::{
    cache_with, cache_with_mirror, fixtures, obtain, skip, tree, Fault, TestServer,
};
use magcl_torch::data::{load_graph_dataset, load_node_dataset, DataConfig};

#[test]
fn mirror_folder_fills_the_cache() {
    let Some(mirror) = obtain("mirror_folder_fills_the_cache", &["MUTAG"]) else {
        return;
    };
    let (tmp, cfg) = cache_with(&mirror.display().to_string());
    let ds = load_graph_dataset("MUTAG", &cfg).unwrap();
    assert_eq!(ds.graphs.len(), 188);
    assert_eq!(
        tree(tmp.path()),
        [
            "tu",
            "tu/MUTAG",
            "tu/MUTAG/MUTAG_A.txt",
            "tu/MUTAG/MUTAG_edge_labels.txt",
            "tu/MUTAG/MUTAG_graph_indicator.txt",
            "tu/MUTAG/MUTAG_graph_labels.txt",
            "tu/MUTAG/MUTAG_node_labels.txt",
        ]
    );
    // Byte-identical copies.
    for f in ["MUTAG_A.txt", "MUTAG_node_labels.txt"] {
        assert_eq!(
            std::fs::read(tmp.path().join("tu/MUTAG").join(f)).unwrap(),
            std::fs::read(mirror.join("tu/MUTAG").join(f)).unwrap()
        );
    }
    // Cached now: loading works without any mirror.
    let offline = DataConfig::new(tmp.path());
    assert_eq!(
        load_graph_dataset("mutag", &offline).unwrap().graphs,
        ds.graphs
    );
}

#[test]
fn mirror_with_only_the_real_zip() {
    let test = "mirror_with_only_the_real_zip";
    let Some(mirror) = obtain(test, &["MUTAG"]) else {
        return;
    };
    if !mirror.join("tu/MUTAG/MUTAG.zip").is_file() {
        return skip(
            test,
            &format!(
                "needs tu/MUTAG/MUTAG.zip in the mirror {}",
                mirror.display()
            ),
        );
    }
    let m = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(m.path().join("tu/MUTAG")).unwrap();
    std::fs::copy(
        mirror.join("tu/MUTAG/MUTAG.zip"),
        m.path().join("tu/MUTAG/MUTAG.zip"),
    )
    .unwrap();
    let (tmp, cfg) = cache_with(&m.path().display().to_string());
    let ds = load_graph_dataset("MUTAG", &cfg).unwrap();
    assert_eq!((ds.graphs.len(), ds.num_nodes()), (188, 3371));
    let cached = tree(&tmp.path().join("tu/MUTAG"));
    assert_eq!(cached.len(), 5, "{cached:?}");
    assert!(cached
        .iter()
        .all(|f| f.starts_with("MUTAG_") && f.ends_with(".txt")));
}

#[test]
fn mirror_with_a_zip_of_made_up_data() {
    let (tmp, cfg) = cache_with(&fixtures().join("mirror_zip").display().to_string());
    let ds = load_graph_dataset("PTC_MR", &cfg).unwrap();
    assert_eq!(ds.graphs.len(), 3);
    assert_eq!(ds.graphs[0].edges, vec![(0, 1), (0, 2), (1, 2)]);
    assert!(tmp.path().join("tu/PTC_MR/PTC_MR_A.txt").is_file());
    assert!(!tmp.path().join("tu/PTC_MR/README.txt").exists());
}

#[test]
fn truncated_zip_caches_nothing() {
    let m = fixtures().join("mirror_bad_zip");
    let (tmp, cfg) = cache_with(&m.display().to_string());
    let e = load_graph_dataset("PTC_MR", &cfg).unwrap_err().to_string();
    let zip = m.join("tu/PTC_MR/PTC_MR.zip");
    assert!(
        e.starts_with(&format!("{}: not a readable zip archive", zip.display())),
        "{e}"
    );
    assert_eq!(
        tree(tmp.path()),
        Vec::<String>::new(),
        "a failed fetch leaves no folder behind"
    );
}

#[test]
fn checksum_mismatch_in_a_mirror_folder_caches_nothing() {
    let (tmp, cfg) = cache_with(&fixtures().join("mirror_checksum").display().to_string());
    let e = load_graph_dataset("MUTAG", &cfg).unwrap_err().to_string();
    assert!(
        e.contains("checksum mismatch for tu/MUTAG/MUTAG_A.txt"),
        "{e}"
    );
    assert!(
        e.contains("expected 76940 bytes with sha256 d9656ca7"),
        "{e}"
    );
    assert_eq!(
        tree(tmp.path()),
        Vec::<String>::new(),
        "a failed fetch leaves no folder behind"
    );
}

#[test]
fn parallel_fetches_of_one_dataset_agree() {
    let Some((tmp, cfg)) =
        cache_with_mirror("parallel_fetches_of_one_dataset_agree", &["PROTEINS"])
    else {
        return;
    };
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let cfg = cfg.clone();
            std::thread::spawn(move || load_graph_dataset("PROTEINS", &cfg).map(|d| d.graphs.len()))
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().unwrap(), 1113);
    }
    let t = tree(tmp.path());
    assert_eq!(t.len(), 2 + 5, "{t:?}"); // tu, tu/PROTEINS, 5 files; no leftovers
}

// ---------------------------------------------------------------------------------------
// http(s) mirror

#[test]
fn http_mirror_download() {
    let Some(mirror) = obtain("http_mirror_download", &["MUTAG", "Cora"]) else {
        return;
    };
    let server = TestServer::start(mirror, vec![]);
    let (tmp, cfg) = cache_with(&format!("{}/", server.base_url));
    let ds = load_graph_dataset("MUTAG", &cfg).unwrap();
    assert_eq!(
        (ds.graphs.len(), ds.num_nodes(), ds.num_edges()),
        (188, 3371, 3721)
    );
    let asked = server.requested();
    assert!(
        asked.contains(&"/tu/MUTAG/MUTAG_A.txt".to_string()),
        "{asked:?}"
    );
    // Optional files MUTAG lacks were asked for and answered 404: no empty files cached.
    assert!(asked.contains(&"/tu/MUTAG/MUTAG_node_attributes.txt".to_string()));
    assert!(!tmp
        .path()
        .join("tu/MUTAG/MUTAG_node_attributes.txt")
        .exists());
    assert_eq!(tree(&tmp.path().join("tu/MUTAG")).len(), 5);
    // Cached: a second load asks the server nothing.
    let before = server.requested().len();
    load_graph_dataset("MUTAG", &cfg).unwrap();
    assert_eq!(server.requested().len(), before);

    let cora = load_node_dataset("Cora", &cfg).unwrap();
    assert_eq!((cora.num_nodes, cora.edges.len()), (2708, 5278));
    assert!(server
        .requested()
        .contains(&"/planetoid/ind.cora.test.index".to_string()));
}

#[test]
fn http_corrupted_file_caches_nothing() {
    let Some(mirror) = obtain("http_corrupted_file_caches_nothing", &["MUTAG"]) else {
        return;
    };
    let server = TestServer::start(
        mirror,
        vec![("/tu/MUTAG/MUTAG_graph_indicator.txt", Fault::Corrupt)],
    );
    let (tmp, cfg) = cache_with(&server.base_url);
    let e = load_graph_dataset("MUTAG", &cfg).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}/tu/MUTAG/MUTAG_graph_indicator.txt: checksum mismatch",
            server.base_url
        )),
        "{e}"
    );
    assert!(e.contains("nothing was cached"), "{e}");
    assert_eq!(
        tree(tmp.path()),
        Vec::<String>::new(),
        "a failed fetch leaves no folder behind"
    );
}

#[test]
fn http_dropped_connection_caches_nothing() {
    let Some(mirror) = obtain("http_dropped_connection_caches_nothing", &["Cora"]) else {
        return;
    };
    let server = TestServer::start(mirror, vec![("/planetoid/ind.cora.allx", Fault::Truncate)]);
    let (tmp, cfg) = cache_with(&server.base_url);
    let e = load_node_dataset("Cora", &cfg).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}/planetoid/ind.cora.allx: ", server.base_url)),
        "{e}"
    );
    assert!(e.contains("nothing was cached"), "{e}");
    assert_eq!(
        tree(tmp.path()),
        Vec::<String>::new(),
        "a failed fetch leaves no folder behind"
    );
}

#[test]
fn http_server_error_caches_nothing() {
    let Some(mirror) = obtain("http_server_error_caches_nothing", &["IMDB-MULTI"]) else {
        return;
    };
    let server = TestServer::start(
        mirror,
        vec![(
            "/tu/IMDB-MULTI/IMDB-MULTI_graph_labels.txt",
            Fault::Status(500),
        )],
    );
    let (tmp, cfg) = cache_with(&server.base_url);
    let e = load_graph_dataset("IMDB-MULTI", &cfg)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("IMDB-MULTI_graph_labels.txt: download failed: HTTP 500"),
        "{e}"
    );
    assert_eq!(
        tree(tmp.path()),
        Vec::<String>::new(),
        "a failed fetch leaves no folder behind"
    );
}

#[test]
fn http_mirror_missing_a_required_file() {
    let Some(mirror) = obtain("http_mirror_missing_a_required_file", &["NCI1"]) else {
        return;
    };
    let server = TestServer::start(
        mirror,
        vec![("/tu/NCI1/NCI1_graph_labels.txt", Fault::Status(404))],
    );
    let (tmp, cfg) = cache_with(&server.base_url);
    let e = load_graph_dataset("NCI1", &cfg).unwrap_err().to_string();
    assert!(e.contains("mirror is incomplete"), "{e}");
    assert!(
        e.contains("NCI1_graph_labels.txt: not found (HTTP 404)"),
        "{e}"
    );
    assert_eq!(
        tree(tmp.path()),
        Vec::<String>::new(),
        "a failed fetch leaves no folder behind"
    );
}

// ---------------------------------------------------------------------------------------
// Commands

#[test]
fn list_and_fetch_commands() {
    let Some(mirror) = obtain("list_and_fetch_commands", &["MUTAG", "Cora"]) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(light_magcl::path())
            .args(args)
            .env("MAGCL_DATA_DIR", tmp.path())
            .env("MAGCL_DATA_MIRROR", &mirror)
            .output()
            .unwrap()
    };
    let out = run(&["datasets", "fetch", "mutag", "synthetic", "Cora"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("MUTAG: fetched into"), "{text}");
    assert!(text.contains("synthetic: embedded"), "{text}");
    let out = run(&["datasets", "fetch", "MUTAG", "nope"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("MUTAG: already cached"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown dataset \"nope\""));

    let out = run(&["datasets", "list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} line in\n{text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(line("MUTAG")[..3], ["MUTAG", "graph", "yes"]);
    assert_eq!(line("MUTAG")[3..], ["107.9", "KiB"]);
    assert_eq!(line("NCI1"), ["NCI1", "graph", "no", "-"]);
    assert_eq!(line("Cora")[..3], ["Cora", "node", "yes"]);
    assert_eq!(line("synthetic"), ["synthetic", "graph", "embedded", "-"]);
    assert_eq!(line("Coauthor-CS"), ["Coauthor-CS", "node", "no", "-"]);

    let out = run(&["datasets", "list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mutag = v
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "MUTAG")
        .unwrap();
    assert_eq!(mutag["cached"], true);
    assert_eq!(mutag["bytes"], 76940 + 14884 + 11532 + 439 + 6742);
}
