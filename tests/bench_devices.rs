//! `magcl bench --device cuda|auto` places its workers on the GPUs round-robin; checked
//! without a GPU, with a fake worker and a fake GPU count (`--gpus`).
//!
//! The fake worker prints, for the config bench hands it, a RunRecord whose `device` is
//! the `--device` argument it was given, so each row shows where bench placed that cell.
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use magcl_torch::experiment::results::read_rows;
use magcl_torch::experiment::sweep::Sweep;
use magcl_torch::experiment::{RunOutcome, RunRecord};

const BIN: &str = env!("CARGO_BIN_EXE_magcl-torch");

/// Writes the sweep, one record per cell (device "DEVICE", replaced by the worker) and the
/// worker script.
fn fixture(root: &Path, sweep: &str) {
    std::fs::write(root.join("sweep.toml"), sweep).unwrap();
    std::fs::create_dir_all(root.join("records")).unwrap();
    for cell in Sweep::load(&root.join("sweep.toml")).unwrap().cells {
        let rec = RunRecord::new(
            &cell.config,
            RunOutcome {
                accuracy: 70.0,
                epochs: cell.config.epochs,
                device: "DEVICE".into(),
                ..Default::default()
            },
        );
        std::fs::write(
            root.join("records").join(format!("{}.json", cell.hash)),
            serde_json::to_string(&rec).unwrap(),
        )
        .unwrap();
    }
    // argv: train --config FILE --json --quiet --threads T --device D
    let script = format!(
        "#!/bin/sh\n\
         [ \"$8\" = --device ] || {{ echo \"unexpected arguments: $*\" >&2; exit 2; }}\n\
         h=$(basename \"$3\" .json); h=${{h#cell-}}\n\
         sleep 0.5\n\
         sed \"s/\\\"DEVICE\\\"/\\\"$9\\\"/\" '{root}/records/'\"$h\".json\n\
         echo\n",
        root = root.display()
    );
    let worker = root.join("worker.sh");
    std::fs::write(&worker, script).unwrap();
    let mut perm = std::fs::metadata(&worker).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&worker, perm).unwrap();
}

fn bench(root: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("bench")
        .arg(root.join("sweep.toml"))
        .arg("--out")
        .arg(root.join("r.csv"))
        .args(args)
        .env("MAGCL_BENCH_WORKER", root.join("worker.sh"))
        .current_dir(root)
        .output()
        .unwrap()
}

/// Rows per device, and per (dataset, device).
fn devices(root: &Path) -> (BTreeMap<String, usize>, BTreeMap<(String, String), usize>) {
    let mut by_dev = BTreeMap::new();
    let mut by_ds = BTreeMap::new();
    for r in read_rows(&root.join("r.csv")).unwrap() {
        *by_dev.entry(r.device.clone()).or_insert(0) += 1;
        *by_ds.entry((r.dataset.clone(), r.device)).or_insert(0) += 1;
    }
    (by_dev, by_ds)
}

const GRAPH_SWEEP: &str = r#"
datasets = ["synthetic"]
methods = ["graphcl"]
seeds = 6
ma = ["none"]
[overrides]
epochs = 1
threads = 1
"#;

#[test]
fn cuda_spreads_workers_round_robin_over_the_gpus() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path(), GRAPH_SWEEP);
    // 6 cells, 6 workers, 3 (fake) GPUs: two workers per GPU, one cell each
    let o = bench(
        dir.path(),
        &["--jobs", "6", "--device", "cuda", "--gpus", "3"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (by_dev, _) = devices(dir.path());
    let want: BTreeMap<String, usize> = [("cuda:0", 2), ("cuda:1", 2), ("cuda:2", 2)]
        .into_iter()
        .map(|(d, n)| (d.to_string(), n))
        .collect();
    assert_eq!(by_dev, want);
    let manifest = std::fs::read_to_string(dir.path().join("r.csv.manifest.jsonl")).unwrap();
    assert!(manifest.contains("\"gpus\":3"), "{manifest}");

    // a named GPU takes every worker; the CPU likewise
    for (device, want) in [("cuda:1", "cuda:1"), ("cpu", "cpu")] {
        let dir = tempfile::tempdir().unwrap();
        fixture(dir.path(), GRAPH_SWEEP);
        let o = bench(
            dir.path(),
            &["--jobs", "3", "--device", device, "--gpus", "2"],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (by_dev, _) = devices(dir.path());
        assert_eq!(by_dev.keys().collect::<Vec<_>>(), [want], "{device}");
    }
}

#[test]
fn auto_sends_node_level_to_the_gpus_and_small_graphs_to_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = r#"
seeds = 4
ma = ["none"]
[overrides]
epochs = 1
threads = 1
[[sweep]]
datasets = ["synthetic"]
methods = ["graphcl"]
[[sweep]]
datasets = ["synthetic-node:60:240:8:3:1"]
methods = ["base"]
"#;
    fixture(dir.path(), sweep);
    let o = bench(
        dir.path(),
        &["--jobs", "8", "--device", "auto", "--gpus", "2"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, by_ds) = devices(dir.path());
    let node = "synthetic-node:60:240:8:3:1".to_string();
    // the embedded synthetic graphs are far below the rule's threshold: all on the CPU
    assert_eq!(by_ds.get(&("synthetic".into(), "cpu".into())), Some(&4));
    // node level: on the GPUs only
    let on_gpus: usize = by_ds
        .iter()
        .filter(|((ds, dev), _)| *ds == node && dev.starts_with("cuda:"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(on_gpus, 4, "{by_ds:?}");
    assert!(by_ds
        .keys()
        .all(|(_, dev)| ["cpu", "cuda:0", "cuda:1"].contains(&dev.as_str())));

    // no GPU at all: auto is the CPU for everything
    if !tch::Cuda::is_available() {
        let dir = tempfile::tempdir().unwrap();
        fixture(dir.path(), sweep);
        let o = bench(dir.path(), &["--jobs", "4", "--device", "auto"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (by_dev, _) = devices(dir.path());
        assert_eq!(by_dev.keys().collect::<Vec<_>>(), ["cpu"]);
    }
}

#[test]
fn bad_device_options_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path(), GRAPH_SWEEP);
    for (args, needle) in [
        (&["--device", "cuda:x"][..], "cuda:N"),
        (
            &["--device", "cuda", "--gpus", "0"][..],
            "--gpus must be at least 1",
        ),
        (&["--device", "cuda:2", "--gpus", "2"][..], "only 2 GPU(s)"),
    ] {
        let o = bench(dir.path(), args);
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!dir.path().join("r.csv").exists(), "{args:?}");
    }
    // without --gpus a worker of one's own gets the real GPUs: none here
    if !tch::Cuda::is_available() {
        let o = bench(dir.path(), &["--device", "cuda"]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("CUDA is not available"), "{err}");
    }
    // with magcl itself as the worker, more GPUs than are visible is an error
    if !tch::Cuda::is_available() {
        let o = Command::new(BIN)
            .arg("bench")
            .arg(dir.path().join("sweep.toml"))
            .args(["--out", "r.csv", "--device", "auto", "--gpus", "2"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--gpus 2: only 0 GPU(s) are visible"), "{err}");
    }
}
