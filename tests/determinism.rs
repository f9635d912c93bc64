//! Same seed → identical loss sequence, embeddings and accuracy on CPU, run after run, at
//! one, two and three threads (each thread count compared with itself: float sums may be
//! ordered differently across thread counts, so the count is part of the run's config and
//! its hash). Augmentations themselves do not depend on
//! the thread count (unit test `augment::views_are_deterministic_whatever_the_thread_count`).
//!
//! The runs use the embedded `synthetic` graph set and a generated `synthetic-node` graph,
//! so these tests need no dataset files and run on any machine.
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_magcl-torch");

/// A planted-partition node graph small enough for a few quick epochs.
const NODE_SET: &str = "synthetic-node:600:2400:64:4:7";

/// (epoch losses, accuracy, fold accuracies) of one run.
fn run(args: &[&str], threads: usize, cache: &Path) -> (Vec<f64>, f64, Vec<f64>) {
    let (numbers, _) = run_with_hash(args, threads, cache);
    numbers
}

/// The JSON record of one CPU run at `threads` (`None`: the default policy).
fn record(args: &[&str], threads: Option<usize>, cache: &Path) -> serde_json::Value {
    let mut cmd = Command::new(BIN);
    cmd.arg("train")
        .args(args)
        .args(["--json", "--device", "cpu"])
        .env_remove("MAGCL_DATA_MIRROR")
        .env("MAGCL_DATA_DIR", cache);
    if let Some(n) = threads {
        cmd.args(["--threads", &n.to_string()]);
    }
    let out = cmd.output().expect("run magcl train");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON record")
}

/// The numbers of one run and the config hash its record carries.
fn run_with_hash(
    args: &[&str],
    threads: usize,
    cache: &Path,
) -> ((Vec<f64>, f64, Vec<f64>), String) {
    let rec = record(args, Some(threads), cache);
    let floats = |v: &serde_json::Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    assert_eq!(
        rec["config"]["threads"], threads,
        "the thread count is in the config"
    );
    (
        (
            floats(&rec["epoch_losses"]),
            rec["accuracy"].as_f64().unwrap(),
            floats(&rec["fold_accuracies"]),
        ),
        rec["config_hash"].as_str().unwrap().to_string(),
    )
}

#[test]
fn graph_methods_repeat_exactly_at_one_two_and_three_threads() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        "--method graphcl --dataset synthetic --epochs 3 --seed 3",
        "--method graphcl --dataset synthetic --epochs 3 --seed 3 --ma",
        "--method simgrace --dataset synthetic --epochs 2 --seed 1 --ma",
        "--method adgcl --dataset synthetic --epochs 2 --seed 2",
    ] {
        // each case is one command line, its words separated by blanks
        let args: Vec<&str> = args.split(' ').collect();
        let args = &args[..];
        // At 1, 2 and 3 threads: each count repeats exactly, and each count is its own
        // configuration (float sums are ordered by it), so the same config gives the same
        // numbers on any machine and a report never averages different counts.
        let mut hashes = Vec::new();
        for threads in [1, 2, 3] {
            let (a, hash) = run_with_hash(args, threads, dir.path());
            let (b, again) = run_with_hash(args, threads, dir.path());
            assert_eq!(a, b, "{args:?} at {threads} thread(s)");
            assert_eq!(hash, again);
            assert_eq!(a.0.len(), args[5].parse::<usize>().unwrap());
            hashes.push(hash);
        }
        hashes.dedup();
        assert_eq!(hashes.len(), 3, "{args:?}: one config per thread count");
    }
}

/// Without `--threads` a graph-level run trains on one libtorch thread and, where two
/// cores are usable, runs its step's two branches (GraphCL's views, SimGRACE's clean and
/// perturbed passes) on two threads: the numbers — and the config, hash included — are
/// those of `--threads 1`.
#[test]
fn concurrent_branches_give_the_one_thread_numbers() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        "--method graphcl --dataset synthetic --epochs 3 --seed 4",
        "--method graphcl --dataset synthetic --epochs 2 --seed 4 --ma",
        "--method simgrace --dataset synthetic --epochs 2 --seed 5 --ma",
        // the other graph-level methods train on a branch thread too
        "--method adgcl --dataset synthetic --epochs 2 --seed 6",
        "--method joaov2 --dataset synthetic --epochs 2 --seed 7",
    ] {
        // each case is one command line, its words separated by blanks
        let args: Vec<&str> = args.split(' ').collect();
        let args = &args[..];
        let (one, hash) = run_with_hash(args, 1, dir.path());
        let rec = record(args, None, dir.path());
        assert_eq!(rec["config_hash"].as_str().unwrap(), hash, "{args:?}");
        let losses: Vec<f64> = rec["epoch_losses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(losses, one.0, "{args:?}: losses");
        assert_eq!(
            rec["accuracy"].as_f64().unwrap(),
            one.1,
            "{args:?}: accuracy"
        );
    }
}

#[test]
fn node_model_repeats_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--method",
        "base",
        "--dataset",
        NODE_SET,
        "--epochs",
        "5",
        "--ma",
        "--set",
        "node.kmeans_restarts=2",
    ];
    for threads in [1, 2, 3] {
        assert_eq!(
            run(&args, threads, dir.path()),
            run(&args, threads, dir.path()),
            "{threads} thread(s)"
        );
    }
}
