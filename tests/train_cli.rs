//! `magcl train` options that change what is written: `--no-eval --save-embeddings` still
//! writes the final encoder's embeddings (every method, graph and node level).
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_magcl");

fn mirror() -> PathBuf {
    std::env::var_os("MAGCL_DATA_MIRROR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"))
}

#[test]
fn no_eval_still_saves_the_embeddings() {
    let dir = tempfile::tempdir().unwrap();
    for (method, dataset, rows) in [
        ("graphcl", "MUTAG", 188),
        ("adgcl", "MUTAG", 188),
        ("base", "Cora", 2708),
    ] {
        let file = dir.path().join(format!("{method}.npy"));
        let out = Command::new(BIN)
            .args(["train", "--method", method, "--dataset", dataset])
            .args(["--epochs", "1", "--no-eval", "--device", "cpu", "--json"])
            .arg("--save-embeddings")
            .arg(&file)
            .env("MAGCL_DATA_MIRROR", mirror())
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
