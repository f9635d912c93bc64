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
