//! A file magcl writes whole is replaced entirely or not at all: a full disk or a failed
//! companion file leaves the previous file (docs/reliability.md, "Atomic outputs").
mod cli_support;

use cli_support::{assert_clean_error, magcl, run_for, small_report_csv, stderr, with_small_disk};

#[test]
fn report_plot_on_a_full_disk_keeps_the_old_plot() {
    let dir = tempfile::tempdir().unwrap();
    let csv = small_report_csv(dir.path());
    let plot = dir.path().join("plot.svg");
    let old = format!("<svg>{}</svg>", "old plot ".repeat(10));
    std::fs::write(&plot, &old).unwrap();
    let o = with_small_disk(
        dir.path(),
        &format!("\"$BIN\" report {} --plot plot.svg", csv.display()),
    );
    assert_clean_error(&o, &["plot.svg"]);
    assert_eq!(std::fs::read_to_string(&plot).unwrap(), old);
    // No temporary file is left beside it.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.ends_with(".tmp")),
        "left behind: {names:?}"
    );
    // With room, the plot is replaced.
    let o = magcl(dir.path())
        .arg("report")
        .arg(&csv)
        .arg("--plot")
        .arg(&plot)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"));
}

#[test]
fn save_embeddings_never_leaves_new_embeddings_beside_old_labels() {
    let dir = tempfile::tempdir().unwrap();
    let emb = dir.path().join("emb.npy");
    std::fs::write(&emb, b"old embeddings").unwrap();
    // The labels cannot be written (their path is a folder): the embeddings must not be
    // replaced either.
    std::fs::create_dir(dir.path().join("emb.labels.npy")).unwrap();
    let mut c = magcl(dir.path());
    c.args(["train", "--method", "graphcl", "--dataset", "synthetic"])
        .args(["--epochs", "1", "--no-eval", "--threads", "1", "--json"])
        .arg("--save-embeddings")
        .arg(&emb);
    let o = run_for(c, 120);
    assert_clean_error(&o, &["emb.labels.npy"]);
    assert_eq!(std::fs::read(&emb).unwrap(), b"old embeddings");

    // A full disk: both old files stay.
    std::fs::remove_dir(dir.path().join("emb.labels.npy")).unwrap();
    std::fs::write(dir.path().join("emb.labels.npy"), b"old labels").unwrap();
    let o = with_small_disk(
        dir.path(),
        "\"$BIN\" train --method graphcl --dataset synthetic --epochs 1 --no-eval \
         --threads 1 --save-embeddings emb.npy",
    );
    assert_clean_error(&o, &["emb"]);
    assert_eq!(std::fs::read(&emb).unwrap(), b"old embeddings");
    assert_eq!(
        std::fs::read(dir.path().join("emb.labels.npy")).unwrap(),
        b"old labels"
    );
}
