//! Input that could exhaust the machine or hang a command is refused with a clear error,
//! and a failure to write standard output ends a command cleanly: devices and FIFOs are
//! not read, sizes that cannot work are refused with their limit before anything is
//! allocated, a failed allocation is an error, not a panic (docs/reliability.md, "Bounded
//! input, no hangs, no panics"). Runs offline: training uses the synthetic dataset.
mod cli_support;

use std::path::Path;
use std::process::{Command, Stdio};

use cli_support::{assert_clean_error, magcl, run_for, small_report_csv, stderr, sweep};

/// A pipe whose reading end is already closed: every write to it fails with EPIPE.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

fn dev_full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap()
}

#[test]
fn train_json_to_a_full_stdout_keeps_the_run_record() {
    let dir = tempfile::tempdir().unwrap();
    for closed in [false, true] {
        let mut c = magcl(dir.path());
        c.args(["train", "--method", "graphcl", "--dataset", "synthetic"])
            .args(["--epochs", "1", "--no-eval", "--threads", "1", "--json"]);
        if closed {
            c.stdout(closed_pipe());
        } else {
            c.stdout(dev_full());
        }
        let o = c.stderr(Stdio::piped()).output().unwrap();
        assert_clean_error(&o, &["cannot write to standard output", "record"]);
        // The record itself is on stderr.
        let e = stderr(&o);
        let line = e
            .lines()
            .find(|l| l.starts_with('{'))
            .unwrap_or_else(|| panic!("no run record on stderr: {e}"));
        let rec: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(rec["dataset"], "synthetic");
    }
}

#[test]
fn every_command_ends_cleanly_on_stdout_errors() {
    let dir = tempfile::tempdir().unwrap();
    let csv = small_report_csv(dir.path());
    let s = sweep(dir.path(), "seeds = 2");
    let x = dir.path().join("x.npy");
    let y = dir.path().join("y.npy");
    let xs: Vec<f32> = (0..40).map(|i| ((i * 7) % 11) as f32).collect();
    magcl_torch::eval::npy::write_f32_matrix(&x, &xs, 20, 2).unwrap();
    magcl_torch::eval::npy::write_i64_vector(&y, &(0..20).map(|i| i % 2).collect::<Vec<_>>())
        .unwrap();
    let commands: Vec<Vec<String>> = vec![
        vec!["datasets".into(), "list".into()],
        vec!["report".into(), csv.display().to_string()],
        vec!["bench".into(), s.display().to_string(), "--dry-run".into()],
        vec![
            "train".into(),
            "--method".into(),
            "graphcl".into(),
            "--dataset".into(),
            "synthetic".into(),
            "--print-config".into(),
        ],
        vec![
            "eval".into(),
            "--embeddings".into(),
            x.display().to_string(),
            "--labels".into(),
            y.display().to_string(),
            "--evaluator".into(),
            "logreg".into(),
        ],
    ];
    for args in &commands {
        // A closed pipe (`magcl ... | head -1`): quiet, status 141 like a Unix tool.
        let o = magcl(dir.path())
            .args(args)
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(141), "{args:?}: {e}");
        assert!(
            !e.contains("panicked") && !e.contains("error"),
            "{args:?}: {e}"
        );
        // A full disk: a message, status 1.
        let o = magcl(dir.path())
            .args(args)
            .stdout(dev_full())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_clean_error(&o, &["cannot write to standard output"]);
    }
}

#[test]
fn devices_and_fifos_are_refused_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let s = sweep(dir.path(), "seeds = 1");
    let fifo = dir.path().join("fifo");
    let ok = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(ok.success());
    for out in [Path::new("/dev/full"), Path::new("/dev/zero"), &fifo] {
        for extra in [&[][..], &["--resume"][..], &["--resume", "--dry-run"][..]] {
            let mut c = magcl(dir.path());
            c.arg("bench").arg(&s).arg("--out").arg(out).args(extra);
            assert_clean_error(&run_for(c, 30), &["not a regular file"]);
        }
        let mut c = magcl(dir.path());
        c.arg("report").arg(out);
        assert_clean_error(&run_for(c, 30), &["not a regular file"]);
    }
    let mut c = magcl(dir.path());
    c.args(["bench", "/dev/zero"]);
    assert_clean_error(&run_for(c, 30), &["not a regular file"]);
    let mut c = magcl(dir.path());
    c.args(["train", "--config"]).arg(&fifo);
    assert_clean_error(&run_for(c, 30), &["not a regular file"]);
    let mut c = magcl(dir.path());
    c.args(["eval", "--embeddings"])
        .arg(&fifo)
        .args(["--labels", "/dev/zero"]);
    assert_clean_error(&run_for(c, 30), &["not a regular file"]);
}

#[test]
fn eval_rejects_huge_fold_indices_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.npy");
    let y = dir.path().join("y.npy");
    let n = 20;
    let xs: Vec<f32> = (0..n * 2).map(|i| (i % 5) as f32).collect();
    magcl_torch::eval::npy::write_f32_matrix(&x, &xs, n, 2).unwrap();
    magcl_torch::eval::npy::write_i64_vector(&y, &(0..n as i64).map(|i| i % 2).collect::<Vec<_>>())
        .unwrap();
    for huge in [1_000_000_000_000i64, i64::MAX] {
        let f = dir.path().join("folds.npy");
        let mut folds: Vec<i64> = (0..n as i64).map(|i| i % 2).collect();
        folds[3] = huge;
        magcl_torch::eval::npy::write_i64_vector(&f, &folds).unwrap();
        let mut c = magcl(dir.path());
        c.args(["eval", "--evaluator", "logreg", "--embeddings"])
            .arg(&x)
            .arg("--labels")
            .arg(&y)
            .arg("--folds")
            .arg(&f);
        assert_clean_error(&run_for(c, 60), &["fold", &huge.to_string()]);
    }
}

#[test]
fn impossible_train_sizes_are_refused_with_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, value, limit) in [
        ("--hidden", "100000000", "16384"),
        ("--layers", "100000", "64"),
        ("--threads", "100000", "256"),
        ("--epochs", "1000000000", "1000000"),
    ] {
        let mut c = magcl(dir.path());
        c.args(["train", "--method", "graphcl", "--dataset", "synthetic"])
            .args(["--no-eval", flag, value]);
        assert_clean_error(
            &run_for(c, 60),
            &[flag.trim_start_matches('-'), value, limit],
        );
    }
}

/// Within the limits but beyond the memory (here a 3 GB address-space limit): the tensor
/// library's failed allocation ends the run with an error, not a panic.
#[test]
fn an_allocation_failure_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(
            "ulimit -v 3000000; exec \"$BIN\" train --method graphcl --dataset synthetic \
             --hidden 16384 --layers 8 --epochs 1 --no-eval --device cpu --threads 1",
        )
        .current_dir(dir.path())
        .env("MAGCL_DATA_DIR", dir.path().join("cache"))
        .env("BIN", cli_support::bin())
        .stdin(Stdio::null());
    let o = run_for(c, 120);
    assert_clean_error(&o, &["failed inside the tensor code", "allocate"]);
}

#[test]
fn a_sweep_too_large_to_hold_is_refused_in_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    for seeds in ["seeds = 3000000", "seeds = 60000\n[grid]\nlr = [0.1, 0.01]"] {
        let s = sweep(dir.path(), seeds);
        let mut c = magcl(dir.path());
        c.arg("bench").arg(&s).arg("--dry-run");
        assert_clean_error(&run_for(c, 60), &["100000 cells"]);
    }
}
