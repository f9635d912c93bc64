//! Every sweep config shipped in configs/ parses, validates every cell, and has the
//! number of cells its comments promise.
use std::path::Path;
use std::process::Command;

use magcl_torch::experiment::sweep::Sweep;

const DIR: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn shipped_configs_load_with_the_expected_cell_counts() {
    let expected = [
        ("quick.toml", 30),
        ("graph_ma.toml", 240),
        ("graph_ma_adgcl_nci1.toml", 10),
        ("node_table1.toml", 60),
        ("node_table2.toml", 30),
        ("node_ablation.toml", 270),
        ("node_clustering.toml", 60),
        ("ma_ranges.toml", 90),
        ("filter_pi.toml", 48),
        ("citeseer_split.toml", 20),
        ("citeseer_readings.toml", 10),
        ("simgrace_seeds.toml", 300),
        ("graphcl_seeds.toml", 240),
        ("ma_verdict.toml", 1200),
        ("ma_verdict_kneg.toml", 200),
        ("floor_graph.toml", 800),
        ("floor_node.toml", 160),
        ("training_curves.toml", 1200),
        ("node_methods.toml", 800),
        ("graph_methods.toml", 1200),
        ("pretrain_size.toml", 560),
        ("pretrain_size_large.toml", 180),
        ("pretrain_size_collab.toml", 160),
        ("pretrain_size_large_simgrace.toml", 180),
        ("pretrain_size_large_steps.toml", 320),
        ("node_large.toml", 300),
        ("node_large_methods.toml", 270),
        ("graph_large.toml", 200),
        ("graph_large_methods.toml", 180),
        ("graph_large_mvgrl.toml", 90),
        ("positive_control_photo.toml", 20),
    ];
    for (file, n) in expected {
        let path = Path::new(DIR).join("configs").join(file);
        let s = Sweep::load(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(s.cells.len(), n, "{file}");
        assert_eq!(s.duplicates, 0, "{file}");
    }
    let mut seen = std::fs::read_dir(Path::new(DIR).join("configs"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
        .count();
    seen -= expected.len();
    assert_eq!(seen, 0, "a config in configs/ is not covered by this test");
}

#[test]
fn quick_config_dry_run_lists_every_cell() {
    let o = Command::new(env!("CARGO_BIN_EXE_magcl-torch"))
        .args(["bench", "configs/quick.toml", "--dry-run"])
        .current_dir(DIR)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().filter(|l| l.contains(" todo ")).count(), 30);
    // the main job's MA cells use the released code's reading (docs/ma.md): GraphCL's
    // and its untrained encoder's, 2 datasets × 3 seeds each
    assert_eq!(out.lines().filter(|l| l.contains("ARS code")).count(), 12);
    // and its floor: GraphCL's encoder untrained (± MA) and WL, on both sets
    assert_eq!(
        out.lines()
            .filter(|l| l.contains(" untrained-graphcl "))
            .count(),
        12
    );
    assert_eq!(out.lines().filter(|l| l.contains(" wl ")).count(), 6);
}

#[test]
fn graph_ma_has_each_gin_mode_for_graphcl_only() {
    let s = Sweep::load(&Path::new(DIR).join("configs/graph_ma.toml")).unwrap();
    let mut labels: Vec<(String, String)> = s
        .cells
        .iter()
        .map(|c| (c.config.method.as_str().to_string(), c.ma_label()))
        .collect();
    labels.sort();
    labels.dedup();
    let want: Vec<(String, String)> = [
        ("adgcl", "ARS gin+filter"),
        ("adgcl", "none"),
        ("graphcl", "ARS filter"),
        ("graphcl", "ARS gin+filter"),
        ("graphcl", "ARS gin-sum"),
        ("graphcl", "none"),
        ("simgrace", "ARS gin+filter"),
        ("simgrace", "none"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(labels, want);
    assert!(s
        .cells
        .iter()
        .any(|c| c.config.evaluator.name() == "linear-svc"));
}
