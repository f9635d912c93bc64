//! A careless input gives an error that names it, never a plausible wrong answer: the
//! report refuses to average different configurations and shows a cell run by two commits
//! twice, impossible values and options are errors, a sweep cannot write outside
//! `results/` (docs/reliability.md, "No silent wrong answers").
mod cli_support;

use std::path::Path;
use std::process::Output;

use magcl_torch::experiment::results::ResultRow;

use cli_support::{assert_clean_error, magcl, row, run_for, stderr, sweep, write_csv};

fn report_err(dir: &Path, files: &[&Path]) -> Output {
    let mut c = magcl(dir);
    c.arg("report").args(files);
    run_for(c, 60)
}

#[test]
fn report_never_averages_different_configurations() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    let rows = |lr: f64| -> Vec<ResultRow> {
        (0..3)
            .map(|s| row("MUTAG", false, s, serde_json::json!({ "lr": lr }), 80.0))
            .collect()
    };
    write_csv(&a, &rows(0.01));
    write_csv(&b, &rows(0.001));
    // Same dataset/method/MA/seed, different config: refused, naming the key.
    let o = report_err(dir.path(), &[&a, &b]);
    assert_clean_error(
        &o,
        &["different configurations", "lr (0.01 vs 0.001)", "seed 0"],
    );
    // Different seeds of different configs in one group are refused as well.
    let mut mixed = rows(0.01);
    mixed[2] = row("MUTAG", false, 2, serde_json::json!({ "epochs": 7 }), 80.0);
    write_csv(&a, &mixed);
    let o = report_err(dir.path(), &[&a]);
    assert_clean_error(&o, &["epochs (20 vs 7)"]);
}

#[test]
fn report_shows_both_commits_of_a_repeated_cell() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    let mut ra: Vec<ResultRow> = (0..3)
        .map(|s| row("MUTAG", false, s, serde_json::json!({}), 80.0 + s as f64))
        .collect();
    for r in &mut ra {
        r.git_commit = "aaaaaaa".into();
    }
    let mut rb = ra.clone();
    for r in &mut rb {
        r.git_commit = "bbbbbbb".into();
        r.accuracy += 5.0;
    }
    write_csv(&a, &ra);
    write_csv(&b, &rb);
    let o = magcl(dir.path())
        .arg("report")
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    let line = md
        .lines()
        .find(|l| l.contains("aaaaaaa") && l.contains("bbbbbbb") && l.contains("| 1 |"))
        .unwrap_or_else(|| panic!("no line with both commits for seed 1:\n{md}"));
    assert!(line.contains("81.00") && line.contains("86.00"), "{line}");
    let json = magcl(dir.path())
        .arg("report")
        .arg(&a)
        .arg(&b)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["cross_commit_duplicates"].as_array().unwrap().len(), 3);
    // The group keeps one row per seed: the first file's.
    assert!((v["groups"][0]["mean"].as_f64().unwrap() - 81.0).abs() < 1e-9);
}

#[test]
fn impossible_values_in_a_result_csv_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    for (acc, nmi) in [
        (101.0, None),
        (-0.5, None),
        (f64::NAN, None),
        (f64::INFINITY, None),
        (50.0, Some(f64::NAN)),
        (50.0, Some(1.5)),
    ] {
        let mut rows: Vec<ResultRow> = (0..3)
            .map(|s| row("MUTAG", false, s, serde_json::json!({}), 80.0))
            .collect();
        rows[1].accuracy = acc;
        rows[1].nmi = nmi;
        write_csv(&a, &rows);
        let o = report_err(dir.path(), &[&a]);
        assert_clean_error(&o, &["a.csv:3"]);
    }
}

#[test]
fn set_cannot_relabel_the_method() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = magcl(dir.path());
    c.args(["train", "--method", "graphcl", "--dataset", "synthetic"])
        .args(["--set", "method=simgrace", "--print-config"]);
    assert_clean_error(&run_for(c, 60), &["--set method", "--method"]);
}

#[test]
fn a_sweep_name_cannot_leave_the_results_folder() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.toml");
    for name in ["../escaped", "/tmp/abs", "a/b", ".."] {
        std::fs::write(
            &p,
            format!("name = \"{name}\"\ndatasets = [\"synthetic\"]\nmethods = [\"graphcl\"]\nseeds = 1\n"),
        )
        .unwrap();
        let mut c = magcl(dir.path());
        c.arg("bench").arg(&p);
        assert_clean_error(&run_for(c, 60), &["plain file name"]);
    }
    assert!(!dir.path().join("escaped.csv").exists());
    assert!(!dir.path().join("results").exists());
}

#[test]
fn non_finite_floats_name_the_option() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, value) in [("--lr", "inf"), ("--eta", "NaN"), ("--lr", "-inf")] {
        let mut c = magcl(dir.path());
        c.args(["train", "--method", "simgrace", "--dataset", "synthetic"])
            .arg(format!("{flag}={value}"))
            .arg("--print-config");
        let o = run_for(c, 60);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains(flag) && e.contains("finite"), "{e}");
        assert!(!e.contains("null"), "{e}");
    }
    for set in ["lr=inf", "simgrace.eta=NaN"] {
        let mut c = magcl(dir.path());
        c.args(["train", "--method", "simgrace", "--dataset", "synthetic"])
            .args(["--set", set, "--print-config"]);
        assert_clean_error(&run_for(c, 60), &[set, "finite"]);
    }
}

#[test]
fn bad_bench_options_are_refused_before_any_file_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let s = sweep(dir.path(), "seeds = 1");
    let out = dir.path().join("new/out.csv");
    let mut cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--jobs", "0"], "--jobs"),
        (vec!["--threads", "0"], "--threads"),
    ];
    if !tch::Cuda::is_available() {
        cases.push((vec!["--device", "cuda"], "CUDA is not available"));
    }
    for (args, msg) in cases {
        let mut c = magcl(dir.path());
        c.arg("bench").arg(&s).arg("--out").arg(&out).args(&args);
        assert_clean_error(&run_for(c, 60), &[msg]);
        assert!(!dir.path().join("new").exists(), "{args:?} created files");
    }
    // a device that is no device is a usage error of the command line (status 2, as for
    // any bad option value), naming what is accepted
    for bad in ["tpu", "cuda:x"] {
        let mut c = magcl(dir.path());
        c.arg("bench")
            .arg(&s)
            .arg("--out")
            .arg(&out)
            .args(["--device", bad]);
        let o = run_for(c, 60);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{bad}: {e}");
        assert!(e.contains(&format!("bad device '{bad}'")), "{e}");
        assert!(e.contains("expected auto, cpu, cuda or cuda:N"), "{e}");
        assert!(
            !dir.path().join("new").exists(),
            "--device {bad} created files"
        );
    }
}
