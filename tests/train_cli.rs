//! `magcl train` options that change what is written: `--no-eval --save-embeddings` still
//! writes the final encoder's embeddings (every method, graph and node level).
//! The embedded `synthetic` set and a generated node graph: no dataset files needed.
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_magcl");

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
        let (x, n, d) = magcl::eval::npy::read_embeddings(&file).unwrap();
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
    assert!(e.contains("unknown MA reading 'codes'"), "{e}");
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
