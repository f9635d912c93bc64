//! Accuracy regression tests: run committed sweep configs with the real binary and check
//! each group's mean accuracy against a floor.
//!
//! - `offline` (part of `make test`, needs no dataset files):
//!   `configs/regression/offline.toml`, every method ± MA on the embedded `synthetic`
//!   set and the node-level model on a generated planted-partition graph.
//! - `ci` (part of `make test`): `configs/regression/ci.toml`, a few minutes on 2 cores;
//!   skipped (loudly) where MUTAG and Cora cannot be obtained.
//! - `full` (ignored; `make test-full`): `configs/regression/full.toml`, floors set
//!   just below the published accuracies of each method, 5 seeds.
//!
//! The `ci` floors sit about three standard deviations (over seeds) below the measured
//! means quoted next to them (committed results under `results/`, and dev-box runs of the
//! same configs); the `full` floors are what a faithful reimplementation must reach: a little below each
//! method's published accuracy.
mod data_support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use magcl_torch::experiment::results::read_rows;

const BIN: &str = env!("CARGO_BIN_EXE_magcl-torch");

/// Runs the sweep (with the dataset mirror `mirror`, or none) and returns the mean accuracy
/// of each (dataset, method, MA label, preset).
fn run_sweep(
    config: &str,
    cache: &Path,
    mirror: Option<&Path>,
) -> BTreeMap<(String, String, String), (f64, usize)> {
    let out = cache.join("rows.csv");
    let mut cmd = Command::new(BIN);
    match mirror {
        Some(m) => cmd.env("MAGCL_DATA_MIRROR", m),
        None => cmd.env_remove("MAGCL_DATA_MIRROR"),
    };
    let status = cmd
        .args([
            "bench",
            config,
            "--jobs",
            "1",
            "--threads",
            "2",
            "--device",
            "cpu",
            "--out",
        ])
        .arg(&out)
        .env("MAGCL_DATA_DIR", cache.join("data"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run magcl bench");
    assert!(status.success(), "magcl bench {config} failed");
    let mut groups: BTreeMap<(String, String, String), Vec<f64>> = BTreeMap::new();
    for row in read_rows(&out).expect("read the result rows") {
        let preset = serde_json::from_str::<serde_json::Value>(&row.config)
            .ok()
            .and_then(|c| c["node"]["preset"].as_str().map(|p| format!(" {p}")))
            .unwrap_or_default();
        groups
            .entry((
                row.dataset.clone(),
                format!("{}{preset}", row.method),
                row.ma.clone(),
            ))
            .or_default()
            .push(row.accuracy);
    }
    groups
        .into_iter()
        .map(|(k, v)| {
            let n = v.len();
            (k, (v.iter().sum::<f64>() / n as f64, n))
        })
        .collect()
}

fn check(
    groups: &BTreeMap<(String, String, String), (f64, usize)>,
    floors: &[(&str, &str, &str, f64)],
) {
    let mut failures = Vec::new();
    for &(dataset, method, ma, floor) in floors {
        let key = (dataset.to_string(), method.to_string(), ma.to_string());
        match groups.get(&key) {
            None => failures.push(format!("{dataset} {method} [{ma}]: no result rows")),
            Some(&(mean, n)) => {
                eprintln!("{dataset:<12} {method:<14} [{ma:<15}] mean {mean:6.2} over {n} seed(s), floor {floor:6.2}");
                if mean < floor {
                    failures.push(format!("{dataset} {method} [{ma}]: mean {mean:.2} over {n} seed(s) is below the floor {floor:.2}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "accuracy regressions:\n{}",
        failures.join("\n")
    );
}

/// Runs everywhere: no dataset files needed. Measured with this config (2-core machine,
/// seed 0): GraphCL 99.0 / +MA 99.5, SimGRACE 97.0 / +MA 93.5, InfoGraph 99.0 / +MA 99.5, JOAOv2 99.5 / +MA 99.5, MVGRL (10 epochs) 100 / +MA 100, AD-GCL (5 epochs) 95.0 /
/// +MA 98.5, the node-level model on the planted-partition graph 99.2 / +MA 99.4, GRACE
/// 98.75 / +MA 99.17, GCA 99.17 / +MA 98.54 and BGRL 99.58 / +MA 99.58 there (30 epochs
/// each); the
/// same cells with more seeds and epochs gave 83.0–100. AD-GCL + MA runs as
/// `adgcl-fixed` (MA replaces the learned augmenter). Chance is 50% for the graph set and
/// 25% for the node set.
#[test]
fn offline_tier_meets_its_floors() {
    let dir = tempfile::tempdir().unwrap();
    let groups = run_sweep("configs/regression/offline.toml", dir.path(), None);
    let node = "synthetic-node:600:2400:64:4:1";
    check(
        &groups,
        &[
            ("synthetic", "graphcl", "none", 90.0),
            ("synthetic", "graphcl", "ARS gin+filter", 90.0),
            ("synthetic", "simgrace", "none", 85.0),
            ("synthetic", "simgrace", "ARS gin+filter", 75.0),
            ("synthetic", "infograph", "none", 90.0),
            ("synthetic", "infograph", "ARS gin+filter", 90.0),
            ("synthetic", "joaov2", "none", 90.0),
            ("synthetic", "joaov2", "ARS gin+filter", 90.0),
            ("synthetic", "mvgrl", "none", 90.0),
            ("synthetic", "mvgrl", "ARS gin+filter", 90.0),
            ("synthetic", "adgcl", "none", 85.0),
            ("synthetic", "adgcl-fixed", "ARS gin+filter", 85.0),
            (node, "base code", "none", 90.0),
            (node, "base code", "ARS", 90.0),
            (node, "grace code", "none", 90.0),
            (node, "grace code", "ARS", 90.0),
            (node, "gca code", "none", 90.0),
            (node, "gca code", "ARS", 90.0),
            (node, "bgrl code", "none", 90.0),
            (node, "bgrl code", "ARS", 90.0),
        ],
    );
}

#[test]
fn ci_tier_meets_its_floors() {
    let Some(mirror) = data_support::obtain("ci_tier_meets_its_floors", &["MUTAG", "Cora"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let groups = run_sweep("configs/regression/ci.toml", dir.path(), Some(&mirror));
    check(
        &groups,
        &[
            // Measured (results/graph_ma/graph_ma.md, 5 seeds): GraphCL 88.4 ± 1.7,
            // GraphCL+MA 88.0 ± 0.4, SimGRACE 87.0 ± 3.1; on this 2-core CPU, seeds 0–4:
            // GraphCL 86.8 ± 2.4, SimGRACE 87.5 ± 1.5 (GraphCL 86.8 ± 1.7 with today's CPU
            // step, 3c546d7: benchmarks-history:benchmarks/history/accuracy/graphcl_mutag_devbox.md; SimGRACE
            // with GIN ε = 1, 7186ceb: 86.1 ± 1.7, seed 0 84.6, over 120 seeds 86.9 ± 1.8:
            // results/simgrace_seeds/simgrace_seeds.csv).
            // Cora, code preset + MA, 100 epochs: 84.7 (seed 0).
            ("MUTAG", "graphcl", "none", 82.0),
            ("MUTAG", "graphcl", "ARS gin+filter", 81.0),
            ("MUTAG", "simgrace", "none", 80.5),
            // InfoGraph: 86.39 ± 1.13 over seeds 0-9 at one thread on this 2-core CPU
            // (results/side_by_side_infograph/), 86.79 ± 1.66 over 20 seeds
            // (results/graph_methods/); seeds 0 and 1 of this tier at 2 threads: 85.64,
            // 86.11. The floor sits three standard deviations below the 20-seed mean.
            ("MUTAG", "infograph", "none", 81.0),
            // MVGRL: 88.42 ± 0.76 over seeds 0-9 on the GPU (results/side_by_side_mvgrl/);
            // seed 0 on this 2-core CPU at 2 threads: 89.36. Three standard deviations
            // below the 10-seed mean.
            ("MUTAG", "mvgrl", "none", 86.0),
            ("Cora", "base code", "ARS", 81.5),
        ],
    );
}

#[test]
#[ignore = "hours on 2 cores: run with `make test-full`"]
fn full_tier_meets_the_reproduction_floors() {
    let names = [
        "MUTAG",
        "PROTEINS",
        "NCI1",
        "IMDB-BINARY",
        "IMDB-MULTI",
        "Cora",
        "CiteSeer",
    ];
    let Some(mirror) = data_support::obtain("full_tier_meets_the_reproduction_floors", &names)
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let groups = run_sweep("configs/regression/full.toml", dir.path(), Some(&mirror));
    check(
        &groups,
        &[
            ("MUTAG", "graphcl", "none", 85.5),
            ("PROTEINS", "graphcl", "none", 73.5),
            ("NCI1", "graphcl", "none", 76.5),
            ("IMDB-BINARY", "graphcl", "none", 70.0),
            ("IMDB-MULTI", "graphcl", "none", 47.5),
            ("MUTAG", "simgrace", "none", 87.5),
            ("PROTEINS", "simgrace", "none", 74.3),
            ("NCI1", "simgrace", "none", 77.0),
            ("IMDB-BINARY", "simgrace", "none", 70.3),
            ("MUTAG", "adgcl", "none", 87.5),
            ("PROTEINS", "adgcl", "none", 72.5),
            ("IMDB-BINARY", "adgcl", "none", 70.5),
            ("IMDB-MULTI", "adgcl", "none", 48.0),
            ("Cora", "base code", "ARS", 83.8),
            ("CiteSeer", "base code", "ARS", 72.3),
            ("Cora", "base paper", "ARS", 82.3),
            ("CiteSeer", "base paper", "ARS", 72.6),
            ("Cora", "base paper", "none", 80.1),
            ("CiteSeer", "base paper", "none", 70.4),
        ],
    );
}
