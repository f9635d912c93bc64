//! A run stopped mid-training and continued from its checkpoint ends with the numbers of
//! an uninterrupted run, bit for bit: losses of every epoch, accuracies, the chosen epoch
//! and the saved embeddings (docs/reliability.md, "Checkpoints"). Every method that trains
//! is covered, at both levels, on the embedded `synthetic` graph set and a generated
//! `synthetic-node` graph (no dataset files needed). The stop is `--stop-after-epochs`,
//! which saves and exits as a kill after that epoch's save would leave things; a real kill
//! of a sweep's worker is in `bench_resume_continues_a_killed_cell_from_its_checkpoint`.
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_magcl-torch");

const NODE_SET: &str = "synthetic-node:300:1200:32:3:2";

fn train(args: &[&str], extra: &[&str], cache: &Path) -> Output {
    Command::new(BIN)
        .arg("train")
        .args(args)
        .args(["--json", "--device", "cpu", "--threads", "1"])
        .args(extra)
        .env_remove("MAGCL_DATA_MIRROR")
        .env("MAGCL_DATA_DIR", cache)
        .output()
        .expect("run magcl train")
}

fn record(out: &Output, what: &str) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON record")
}

/// The fields of a record that a resumed run must reproduce exactly (all but timings,
/// memory and the build).
const SAME: &[&str] = &[
    "config_hash",
    "evaluated",
    "accuracy",
    "accuracy_std_folds",
    "fold_accuracies",
    "val_accuracy",
    "nmi",
    "selected_epoch",
    "epochs",
    "epoch_losses",
    "method",
    "ma",
];

/// Runs `args` uninterrupted, then stopped after `stop` epochs and continued; asserts
/// the same record fields and the same embedding bytes.
fn assert_resume_is_exact(args: &[&str], stop: usize, dir: &Path) {
    let cache = dir.join("cache");
    let emb = |name: &str| dir.join(format!("{name}.npy"));
    let ckpt = dir.join("run.ckpt");
    let whole = record(
        &train(
            args,
            &["--save-embeddings", emb("whole").to_str().unwrap()],
            &cache,
        ),
        "uninterrupted",
    );
    let stop_s = stop.to_string();
    let ck = ckpt.to_str().unwrap();
    let first = train(
        args,
        &[
            "--checkpoint",
            ck,
            "--checkpoint-every-epochs",
            "1",
            "--stop-after-epochs",
            &stop_s,
        ],
        &cache,
    );
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(75), "{args:?}: {stderr}");
    assert!(
        stderr.contains(&format!("stopped after epoch {stop} of")),
        "{stderr}"
    );
    assert!(first.stdout.is_empty(), "a stopped run prints no record");
    assert!(ckpt.exists(), "{args:?}: the checkpoint is written");
    let resumed = record(
        &train(
            args,
            &[
                "--checkpoint",
                ck,
                "--checkpoint-every-epochs",
                "2",
                "--save-embeddings",
                emb("resumed").to_str().unwrap(),
            ],
            &cache,
        ),
        "resumed",
    );
    assert!(
        !ckpt.exists(),
        "{args:?}: the checkpoint is removed at the end"
    );
    for key in SAME {
        assert_eq!(whole[key], resumed[key], "{args:?}: {key}");
    }
    let epochs = whole["epochs"].as_u64().unwrap() as usize;
    assert_eq!(resumed["epoch_seconds"].as_array().unwrap().len(), epochs);
    assert_eq!(
        std::fs::read(emb("whole")).unwrap(),
        std::fs::read(emb("resumed")).unwrap(),
        "{args:?}: embeddings"
    );
}

#[test]
fn graph_level_runs_resume_to_the_numbers_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let g = |method: &'static str, more: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec!["--method", method, "--dataset", "synthetic", "--seed", "3"];
        v.extend_from_slice(more);
        v
    };
    for (args, stop) in [
        // GraphCL with MA (schedules redrawn every step) and without
        (g("graphcl", &["--epochs", "4", "--ma"]), 2),
        (g("graphcl", &["--epochs", "3", "--no-eval"]), 1),
        // SimGRACE: its perturbed tower keeps batch-norm estimates of its own
        (g("simgrace", &["--epochs", "3", "--ma", "--no-eval"]), 1),
        // AD-GCL: learned augmenter with its own optimiser; the epoch chosen by
        // validation (evaluated every epoch) is carried across the stop
        (
            g(
                "adgcl",
                &["--epochs", "4", "--set", "adgcl.eval_interval=1"],
            ),
            2,
        ),
        (g("adgcl-fixed", &["--epochs", "3", "--ma", "--no-eval"]), 2),
        (g("infograph", &["--epochs", "3", "--no-eval"]), 1),
        // JOAOv2 moves its augmentation distribution at every epoch's end
        (g("joaov2", &["--epochs", "3", "--no-eval"]), 1),
        // MVGRL keeps its lowest-loss epoch's model
        (g("mvgrl", &["--epochs", "4", "--no-eval"]), 2),
    ] {
        assert_resume_is_exact(&args, stop, dir.path());
    }
}

#[test]
fn node_level_runs_resume_to_the_numbers_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let n = |method: &'static str, more: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec!["--method", method, "--dataset", NODE_SET, "--seed", "2"];
        v.extend_from_slice(more);
        v
    };
    for (args, stop) in [
        // the base model with MA, its best test evaluation carried across the stop
        (
            n(
                "base",
                &["--epochs", "6", "--set", "node.best_test_every=2"],
            ),
            3,
        ),
        (
            n("base", &["--preset", "paper", "--epochs", "4", "--no-eval"]),
            2,
        ),
        (n("grace", &["--epochs", "4", "--no-eval"]), 2),
        (n("gca", &["--epochs", "4", "--no-eval"]), 1),
        // BGRL: the target network (moving average) and the schedules' position
        (n("bgrl", &["--epochs", "5", "--no-eval"]), 2),
    ] {
        assert_resume_is_exact(&args, stop, dir.path());
    }
}

#[test]
fn a_checkpoint_of_another_config_is_refused_and_left_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let ckpt = dir.path().join("other.ckpt");
    let ck = ckpt.to_str().unwrap();
    let base = [
        "--method",
        "graphcl",
        "--dataset",
        "synthetic",
        "--epochs",
        "3",
        "--no-eval",
    ];
    let stop = [
        "--checkpoint",
        ck,
        "--checkpoint-every-epochs",
        "1",
        "--stop-after-epochs",
        "1",
    ];
    assert_eq!(train(&base, &stop, &cache).status.code(), Some(75));
    let mut other = base.to_vec();
    other.extend(["--seed", "9"]);
    let out = train(&other, &["--checkpoint", ck], &cache);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("belongs to the config with hash") && stderr.contains("other.ckpt"),
        "{stderr}"
    );
    assert!(ckpt.exists(), "a refused checkpoint is not deleted");
    // a damaged one is refused with the file named
    let mut bytes = std::fs::read(&ckpt).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 0x40;
    std::fs::write(&ckpt, &bytes).unwrap();
    let out = train(&base, &["--checkpoint", ck], &cache);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("checksum") && stderr.contains("other.ckpt"),
        "{stderr}"
    );
}

#[test]
fn bench_resume_continues_a_killed_cell_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("sweep.toml"),
        "datasets = [\"synthetic\"]\nmethods = [\"graphcl\"]\nseeds = 1\nma = [\"ARS\"]\n\
         [overrides]\nepochs = 4\nthreads = 1\n",
    )
    .unwrap();
    // A worker that stops its cell after two epochs, leaving what a kill after the
    // second epoch's save leaves: the checkpoint, and no row.
    let worker = root.join("worker.sh");
    std::fs::write(
        &worker,
        format!("#!/bin/sh\nexec '{BIN}' \"$@\" --stop-after-epochs 2\n"),
    )
    .unwrap();
    let mut perm = std::fs::metadata(&worker).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&worker, perm).unwrap();
    let bench = |out: &str, extra: &[&str], worker: Option<&Path>| -> Output {
        let mut cmd = Command::new(BIN);
        cmd.arg("bench")
            .arg(root.join("sweep.toml"))
            .args(["--out", out, "--device", "cpu", "--jobs", "1"])
            .args(extra)
            .env_remove("MAGCL_DATA_MIRROR")
            .env("MAGCL_DATA_DIR", root.join("cache"))
            .current_dir(root);
        match worker {
            Some(w) => cmd.env("MAGCL_BENCH_WORKER", w),
            None => cmd.env_remove("MAGCL_BENCH_WORKER"),
        };
        cmd.output().unwrap()
    };
    let rows = |name: &str| magcl_torch::experiment::results::read_rows(&root.join(name)).unwrap();

    let first = bench("a.csv", &["--checkpoint-every-secs", "0"], Some(&worker));
    assert!(!first.status.success());
    assert!(rows("a.csv").is_empty());
    let ckpts: Vec<_> = std::fs::read_dir(root.join("a.checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(ckpts.len(), 1, "one checkpoint for the stopped cell");

    let resumed = bench("a.csv", &["--resume"], None);
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert!(
        err.contains("1 cell(s) continue from their checkpoints"),
        "{err}"
    );
    assert!(!ckpts[0].exists(), "removed once the row is written");
    assert!(
        !root.join("a.checkpoints").exists(),
        "the empty folder goes"
    );

    let whole = bench("b.csv", &[], None);
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );
    let (a, b) = (rows("a.csv"), rows("b.csv"));
    assert_eq!((a.len(), b.len()), (1, 1));
    assert_eq!(a[0].config_hash, b[0].config_hash);
    assert_eq!(a[0].accuracy.to_bits(), b[0].accuracy.to_bits());
    assert_eq!(a[0].accuracy_std_folds, b[0].accuracy_std_folds);
    assert_eq!(a[0].epochs, 4);
    // The rows say which copy of the data they read: none for the generated set, and
    // the manifest lists no file.
    assert_eq!(
        (a[0].data_source.as_str(), b[0].data_source.as_str()),
        ("generated", "generated")
    );
    let manifest = std::fs::read_to_string(root.join("b.csv.manifest.jsonl")).unwrap();
    let m: serde_json::Value = serde_json::from_str(manifest.lines().next().unwrap()).unwrap();
    assert_eq!(m["data_sources"], serde_json::json!({}), "{m}");
}

/// GPU runs train with magcl's tensor-form Adam (`Adam::Tensor`) (libtorch's Adam step, moments kept where a
/// checkpoint reads them). There is no GPU here, so the runs are forced onto that
/// optimiser on the CPU (`with_tensor_adam`, in process): stopped and resumed, they end
/// with the numbers of an uninterrupted run with the same optimiser, at both levels
/// (RReLU's generator included: the node-level `paper` preset draws its slopes). The
/// switch demonstrably took effect: the losses differ from the fused CPU Adam's.
#[test]
fn runs_with_the_gpus_optimiser_resume_to_the_numbers_of_an_uninterrupted_run() {
    use magcl_torch::experiment::checkpoint::CheckpointOptions;
    use magcl_torch::experiment::{run, MethodName, RunConfig, RunOptions, RunOutcome, RunSpec};
    use magcl_torch::train::optim::with_tensor_adam;
    tch::set_num_threads(1);
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("tensor-adam.ckpt");
    let cases = [
        (
            "graphcl",
            "synthetic",
            None,
            serde_json::json!({"epochs": 4, "ma": {"enabled": true}}),
            2,
            false,
        ),
        (
            "base",
            NODE_SET,
            Some("paper"),
            serde_json::json!({"epochs": 4}),
            2,
            false,
        ),
        (
            "bgrl",
            NODE_SET,
            None,
            serde_json::json!({"epochs": 5}),
            3,
            true,
        ),
    ];
    for (method, dataset, preset, overrides, stop, skip_eval) in cases {
        let cfg = RunConfig::resolve(&RunSpec {
            method: Some(MethodName::parse(method).unwrap()),
            dataset: dataset.into(),
            seed: 2,
            preset: preset.map(String::from),
            overrides: serde_json::from_value(overrides).unwrap(),
        })
        .unwrap();
        let opts = |checkpoint: Option<CheckpointOptions>| RunOptions {
            device: magcl_torch::experiment::device::DeviceSpec::Cpu,
            skip_eval,
            checkpoint,
            ..Default::default()
        };
        let tensor_run = |o: RunOptions| with_tensor_adam(|| run(&cfg, &o));
        let whole = tensor_run(opts(None)).unwrap();
        let first = tensor_run(opts(Some(CheckpointOptions {
            every_epochs: 1,
            every_secs: 0.0,
            stop_after: Some(stop),
            ..CheckpointOptions::new(ckpt.clone())
        })));
        match first {
            Err(magcl_torch::Error::Stopped { epochs, .. }) => assert_eq!(epochs, stop, "{method}"),
            other => panic!("{method}: expected a stop after {stop} epochs, got {other:?}"),
        }
        assert!(ckpt.exists(), "{method}: the checkpoint is written");
        let resumed = tensor_run(opts(Some(CheckpointOptions {
            every_epochs: 2,
            every_secs: 0.0,
            ..CheckpointOptions::new(ckpt.clone())
        })))
        .unwrap();
        assert!(!ckpt.exists(), "{method}: removed at the end");
        let numbers = |o: &RunOutcome| {
            (
                o.epoch_losses
                    .iter()
                    .map(|l| l.to_bits())
                    .collect::<Vec<_>>(),
                o.accuracy.to_bits(),
                o.fold_accuracies.clone(),
                o.val_accuracy,
                o.nmi,
                o.selected_epoch,
            )
        };
        assert_eq!(numbers(&whole), numbers(&resumed), "{method}");
        assert_eq!(whole.epoch_losses.len(), cfg.epochs, "{method}");
        if !skip_eval {
            assert!(whole.evaluated && whole.accuracy > 0.0, "{method}");
        }
        // the forced optimiser is another one than the CPU's own
        let fused = run(&cfg, &opts(None)).unwrap();
        assert_ne!(
            numbers(&fused).0,
            numbers(&whole).0,
            "{method}: the losses of the tensor-form and the fused Adam differ at rounding level"
        );
    }
}

/// The methods the two tests above resume; a method added to the registry must join them.
const COVERED: &[&str] = &[
    "graphcl",
    "simgrace",
    "adgcl",
    "infograph",
    "joaov2",
    "mvgrl",
    "base",
    "grace",
    "gca",
    "bgrl",
];

#[test]
fn every_method_that_trains_is_covered_by_the_resume_tests() {
    for e in magcl_torch::methods::registry::all() {
        assert!(
            e.baseline || COVERED.contains(&e.name),
            "{}: add it to the resume tests of tests/checkpoint.rs",
            e.name
        );
    }
}
