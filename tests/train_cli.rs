//! `magcl train` options that change what is written: `--no-eval --save-embeddings` still
//! writes the final encoder's embeddings (every method, graph and node level).
//! The embedded `synthetic` set and a generated node graph: no dataset files needed.
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_magcl-torch");

#[test]
fn no_eval_still_saves_the_embeddings() {
    let dir = tempfile::tempdir().unwrap();
    for (method, dataset, rows) in [
        ("graphcl", "synthetic", 200),
        ("adgcl", "synthetic", 200),
        ("base", "synthetic-node:400:1600:32:4", 400),
    ] {
        let file = dir.path().join(format!("{method}.npy"));
        let out = Command::new(BIN)
            .args(["train", "--method", method, "--dataset", dataset])
            .args(["--epochs", "1", "--no-eval", "--device", "cpu", "--json"])
            .arg("--save-embeddings")
            .arg(&file)
            .env_remove("MAGCL_DATA_MIRROR")
            .env("MAGCL_DATA_DIR", dir.path().join("cache"))
            .output()
            .expect("run magcl train");
        assert!(
            out.status.success(),
            "{method}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rec["evaluated"], false, "{method}");
        let (x, n, d) = magcl_torch::eval::npy::read_embeddings(&file).unwrap();
        assert_eq!(n, rows, "{method}");
        assert!(d > 0 && x.len() == n * d && x.iter().all(|v| v.is_finite()));
    }
}

/// The resolved config `magcl train ARGS --print-config` prints.
fn print_config(args: &[&str]) -> Result<serde_json::Value, String> {
    let out = Command::new(BIN)
        .args(["train"])
        .args(args)
        .arg("--print-config")
        .output()
        .expect("run magcl train");
    if out.status.success() {
        Ok(serde_json::from_slice(&out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The MA reading and AD-GCL augmenter flags reach the resolved config.
#[test]
fn reading_and_augmenter_flags_reach_the_config() {
    let c = print_config(&["-m", "graphcl", "-d", "MUTAG", "--reading", "code"]).unwrap();
    let ma = &c["ma"];
    assert_eq!(ma["enabled"], true, "--reading implies --ma");
    assert_eq!(ma["reading"], "code");
    assert_eq!(ma["zero_k"], "plain");
    assert_eq!(ma["ranges"], "exclusive");
    assert_eq!(ma["k_branch"], "anchor");
    assert_eq!(ma["redraw"], "epoch");
    assert_eq!(ma["constraints"], "none");
    assert_eq!(ma["eval_k"], 2);
    let c = print_config(&[
        "-m",
        "simgrace",
        "-d",
        "MUTAG",
        "--reading",
        "code",
        "--constraints",
        "--eval-k",
        "1",
        "--set",
        "ma.k_branch=negatives",
    ])
    .unwrap();
    assert_eq!(c["ma"]["constraints"], "both", "the flag alone is both");
    assert_eq!(c["ma"]["eval_k"], 1);
    assert_eq!(c["ma"]["k_branch"], "negatives");
    assert_eq!(c["ma"]["redraw"], "epoch");
    let c = print_config(&[
        "-m",
        "graphcl",
        "-d",
        "MUTAG",
        "--ma",
        "--constraints",
        "sum",
    ])
    .unwrap();
    assert_eq!(c["ma"]["constraints"], "sum");
    // --ma alone takes the released code's reading; a switch beside it still wins
    assert_eq!(c["ma"]["reading"], "code");
    assert_eq!(c["ma"]["zero_k"], "plain");
    let c = print_config(&["-m", "graphcl", "-d", "MUTAG", "--reading", "current"]).unwrap();
    assert_eq!(c["ma"]["reading"], "current");
    assert_eq!(c["ma"]["zero_k"], "mlp");
    // node level: the presets decide, no graph-level reading is set
    let c = print_config(&["-m", "base", "-d", "Cora", "--ma"]).unwrap();
    assert_eq!(c["ma"]["reading"], "current");
    let c = print_config(&["-m", "adgcl-fixed", "-d", "MUTAG"]).unwrap();
    assert_eq!(c["method"], "adgcl");
    assert_eq!(c["adgcl"]["augmenter"], "fixed");
    assert_eq!(c["ma"]["enabled"], false);
    let c = print_config(&["-m", "adgcl", "-d", "MUTAG"]).unwrap();
    assert_eq!(c["adgcl"]["augmenter"], "learned");
    let e = print_config(&[
        "-m",
        "adgcl",
        "-d",
        "MUTAG",
        "--ma",
        "--augmenter",
        "learned",
    ])
    .unwrap_err();
    assert!(e.contains("adgcl.augmenter"), "{e}");
    let e = print_config(&["-m", "graphcl", "-d", "MUTAG", "--reading", "codes"]).unwrap_err();
    // A usage error naming the field and the readings.
    assert!(
        e.contains("ma.reading") && e.contains("current, code, paper, got 'codes'"),
        "{e}"
    );
    let e = print_config(&[
        "-m",
        "graphcl",
        "-d",
        "MUTAG",
        "--ma",
        "--constraints",
        "all",
    ])
    .unwrap_err();
    assert!(e.contains("unknown constraints 'all'"), "{e}");
}

/// `magcl train --json ARGS` on a generated node graph (no files needed): the record.
fn train_json(args: &[&str], cache: &std::path::Path) -> Result<serde_json::Value, String> {
    train_json_on("synthetic-node:300:1200:32:3", args, cache)
}

/// [`train_json`] on another generated node graph.
fn train_json_on(
    dataset: &str,
    args: &[&str],
    cache: &std::path::Path,
) -> Result<serde_json::Value, String> {
    let out = Command::new(BIN)
        .args(["train", "--method", "base", "--dataset", dataset])
        .args(["--device", "cpu", "--threads", "1", "--json"])
        .args(["--set", "node.kmeans_restarts=3"])
        .args(args)
        .env_remove("MAGCL_DATA_MIRROR")
        .env("MAGCL_DATA_DIR", cache)
        .output()
        .expect("run magcl train");
    if out.status.success() {
        Ok(serde_json::from_slice(&out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The CiteSeer readings (docs/citeseer.md) end to end. `node.best_test_every = 2` over 6
/// epochs reports the best of the evaluations after 2, 4 and 6 epochs, which are exactly
/// what runs of 2, 4 and 6 epochs report (training is not disturbed by the evaluations);
/// `node.kmeans_l2` changes the clustering only; intra-view negatives change training;
/// `public-swapped` needs a public split.
#[test]
fn citeseer_readings_run_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path();
    let plain: Vec<serde_json::Value> = ["2", "4", "6"]
        .iter()
        .map(|e| train_json(&["--ma", "--epochs", e], cache).unwrap())
        .collect();
    let acc = |r: &serde_json::Value| r["accuracy"].as_f64().unwrap();
    let best = train_json(
        &["--ma", "--epochs", "6", "--set", "node.best_test_every=2"],
        cache,
    )
    .unwrap();
    assert_eq!(best["config"]["node"]["best_test_every"], 2);
    assert_eq!(best["epoch_losses"], plain[2]["epoch_losses"]);
    // the highest test accuracy, the earliest of equals
    let mut want = (0usize, f64::NEG_INFINITY);
    for (i, r) in plain.iter().enumerate() {
        if acc(r) > want.1 {
            want = (i, acc(r));
        }
    }
    assert_eq!(acc(&best), want.1);
    assert_eq!(best["selected_epoch"], 2 * (want.0 + 1));
    assert_eq!(
        best["nmi"], plain[want.0]["nmi"],
        "NMI of the selected encoder"
    );
    assert_eq!(best["val_accuracy"], plain[want.0]["val_accuracy"]);
    assert!(plain[2].get("selected_epoch").is_none_or(|v| v.is_null()));

    // on a harder graph (NMI well below 1) unit rows move the clustering, not the classifier
    let hard = "synthetic-node:300:400:300:6";
    let raw = train_json_on(hard, &["--ma", "--epochs", "6"], cache).unwrap();
    let l2 = train_json_on(
        hard,
        &["--ma", "--epochs", "6", "--set", "node.kmeans_l2=true"],
        cache,
    )
    .unwrap();
    assert_eq!(l2["config"]["node"]["kmeans_l2"], true);
    assert_eq!(acc(&l2), acc(&raw), "the classifier is unaffected");
    assert_eq!(l2["epoch_losses"], raw["epoch_losses"]);
    let (n_raw, n_l2) = (raw["nmi"].as_f64().unwrap(), l2["nmi"].as_f64().unwrap());
    assert!(
        n_raw < 0.95 && n_l2.is_finite() && n_l2 != n_raw,
        "{n_raw} {n_l2}"
    );

    let intra = train_json(
        &[
            "--ma",
            "--epochs",
            "6",
            "--set",
            "loss.inter_view_negatives=false",
            "--set",
            "loss.intra_view_negatives=true",
        ],
        cache,
    )
    .unwrap();
    assert_eq!(intra["config"]["loss"]["inter_view_negatives"], false);
    assert_ne!(intra["epoch_losses"], plain[2]["epoch_losses"]);

    let e = train_json(
        &["--epochs", "1", "--set", "node.split=public-swapped"],
        cache,
    )
    .unwrap_err();
    assert!(e.contains("no public split"), "{e}");
    let e = train_json(
        &["--epochs", "1", "--set", "loss.inter_view_negatives=false"],
        cache,
    )
    .unwrap_err();
    assert!(e.contains("loss.inter_view_negatives"), "{e}");
}

/// `magcl train --json` of GraphCL on the embedded `synthetic` set (200 graphs, no files
/// needed), 2 epochs on one thread, with `ARGS` and the embeddings saved to `emb`.
fn graphcl_synthetic(args: &[&str], emb: &std::path::Path) -> Result<serde_json::Value, String> {
    let out = Command::new(BIN)
        .args(["train", "--method", "graphcl", "--dataset", "synthetic"])
        .args([
            "--epochs",
            "2",
            "--device",
            "cpu",
            "--threads",
            "1",
            "--json",
        ])
        .arg("--save-embeddings")
        .arg(emb)
        .args(args)
        .env_remove("MAGCL_DATA_MIRROR")
        .env("MAGCL_DATA_DIR", emb.with_extension("cache"))
        .output()
        .expect("run magcl train");
    if out.status.success() {
        Ok(serde_json::from_slice(&out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `pretrain.graphs` (docs/methods.md, "Pre-training subsets") end to end: the encoder
/// trains on that many graphs and every graph is embedded and evaluated; the row records
/// the setting and has its own hash; the whole set given as a subset trains and scores
/// exactly as the run without it; matched steps make the whole set's step count; sizes
/// out of range are refused with a message.
#[test]
fn a_pretraining_subset_trains_on_its_graphs_and_evaluates_on_all() {
    let dir = tempfile::tempdir().unwrap();
    let emb = dir.path().join("e.npy");
    let rows = || magcl_torch::eval::npy::read_embeddings(&emb).unwrap().1;
    let whole = graphcl_synthetic(&[], &emb).unwrap();
    assert_eq!(rows(), 200);
    // 200 graphs in batches of 128: 2 steps an epoch
    assert_eq!(whole["train_graphs"], 200);
    assert_eq!(whole["train_steps"], 4);
    assert!(whole["config"].get("pretrain").is_none());

    let sub = graphcl_synthetic(&["--set", "pretrain.graphs=32"], &emb).unwrap();
    assert_eq!(sub["config"]["pretrain"], serde_json::json!({"graphs": 32}));
    assert_ne!(sub["config_hash"], whole["config_hash"]);
    assert_eq!(sub["train_graphs"], 32);
    assert_eq!(sub["train_steps"], 2, "32 graphs: one batch an epoch");
    assert_eq!(sub["epochs"], 2);
    assert_eq!(rows(), 200, "every graph is embedded");
    assert_eq!(sub["evaluated"], true);
    assert_eq!(sub["fold_accuracies"].as_array().unwrap().len(), 10);
    assert_ne!(sub["epoch_losses"], whole["epoch_losses"]);

    let matched = graphcl_synthetic(
        &[
            "--set",
            "pretrain.graphs=32",
            "--set",
            "pretrain.match_steps=true",
        ],
        &emb,
    )
    .unwrap();
    assert_eq!(
        matched["config"]["pretrain"],
        serde_json::json!({"graphs": 32, "match_steps": true})
    );
    assert_eq!(matched["train_steps"], whole["train_steps"]);
    assert_eq!(matched["epochs"], 4);
    assert_eq!(matched["epoch_losses"].as_array().unwrap().len(), 4);

    // the whole set as a subset: the same batches, the same folds, the same numbers
    let all = graphcl_synthetic(&["--set", "pretrain.graphs=200"], &emb).unwrap();
    for key in ["accuracy", "fold_accuracies", "epoch_losses", "train_steps"] {
        assert_eq!(all[key], whole[key], "{key}");
    }
    assert_ne!(all["config_hash"], whole["config_hash"]);

    for (size, says) in [("0", "got 0"), ("201", "the dataset's 200 graphs")] {
        let e =
            graphcl_synthetic(&["--set", &format!("pretrain.graphs={size}")], &emb).unwrap_err();
        assert!(e.contains("pretrain.graphs") && e.contains(says), "{e}");
        assert!(!e.contains("panicked"), "{e}");
    }
}
