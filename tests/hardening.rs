//! Issue 17: careless or hostile input never loses a file, exhausts the machine, panics or
//! gives a silently wrong answer. Every test drives the `magcl` binary (or the library
//! entry point the binary uses) with one such input and checks the clear error, the exit
//! status and that nothing was lost. Runs offline: training uses the synthetic dataset.
mod light_magcl;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use magcl::experiment::results::{FromRecord, ResultRow, ResultsFile};
use magcl::experiment::run::RunOutcome;
use magcl::experiment::{MethodName, RunConfig, RunRecord, RunSpec};

fn magcl(dir: &Path) -> Command {
    let mut c = Command::new(light_magcl::path());
    c.current_dir(dir)
        .env("MAGCL_DATA_DIR", dir.join("cache"))
        // Cells that a (wrongly) started sweep would run fail at once.
        .env("MAGCL_BENCH_WORKER", "/bin/false")
        .stdin(Stdio::null());
    c
}

/// Runs `cmd`, killing it after `secs` (a hang is a failure, not a stuck test).
fn run_for(mut cmd: Command, secs: u64) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start magcl");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "magcl did not finish within {secs} s (it hangs or reads without end): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Failed with status 1, a message containing every one of `needles`, and no panic.
fn assert_clean_error(o: &Output, needles: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "status {:?}: {e}", o.status);
    assert!(!e.contains("panicked"), "{e}");
    for n in needles {
        assert!(e.contains(n), "expected '{n}' in: {e}");
    }
}

fn sweep(dir: &Path, extra: &str) -> PathBuf {
    let p = dir.join("s.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"t\"\ndatasets = [\"synthetic\"]\nmethods = [\"graphcl\"]\n{extra}\n[overrides]\nepochs = 1\n"
        ),
    )
    .unwrap();
    p
}

// ---------------------------------------------------------------- data loss

#[test]
fn bench_out_refuses_a_foreign_file_without_a_trailing_newline_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let s = sweep(dir.path(), "seeds = 1");
    let t = dir.path().join("t.csv");
    std::fs::write(&t, "notes").unwrap();
    for resume in [false, true] {
        let mut c = magcl(dir.path());
        c.arg("bench").arg(&s).arg("--out").arg(&t);
        if resume {
            c.arg("--resume");
        }
        let o = run_for(c, 60);
        assert_clean_error(&o, &["not a magcl result file", "left unchanged"]);
        assert_eq!(std::fs::read(&t).unwrap(), b"notes");
    }
}

#[test]
fn bench_out_resume_refuses_a_multi_line_foreign_file_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let s = sweep(dir.path(), "seeds = 1");
    let t = dir.path().join("u.csv");
    std::fs::write(&t, "alpha\nbeta\ngamma, no newline").unwrap();
    let mut c = magcl(dir.path());
    c.arg("bench").arg(&s).arg("--out").arg(&t).arg("--resume");
    let o = run_for(c, 60);
    assert_clean_error(&o, &["not a magcl result file"]);
    assert_eq!(
        std::fs::read(&t).unwrap(),
        b"alpha\nbeta\ngamma, no newline"
    );
}

/// Runs `script` with `sh -c` under a file-size limit of one block, the way a full disk
/// fails a write (EFBIG instead of ENOSPC; SIGXFSZ ignored so that the write returns).
fn with_small_disk(dir: &Path, script: &str) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -f 1; trap '' XFSZ; {script}"))
        .current_dir(dir)
        .env("MAGCL_DATA_DIR", dir.join("cache"))
        .env("BIN", light_magcl::path())
        .stdin(Stdio::null());
    run_for(c, 120)
}

fn write_csv(path: &Path, rows: &[ResultRow]) {
    let mut bytes = magcl::experiment::results::header_line().into_bytes();
    for r in rows {
        bytes.extend(r.to_line().unwrap());
    }
    std::fs::write(path, bytes).unwrap();
}

fn row(dataset: &str, ma: bool, seed: u64, overrides: serde_json::Value, acc: f64) -> ResultRow {
    let mut o = overrides.as_object().cloned().unwrap_or_default();
    if ma {
        o.insert("ma".into(), serde_json::json!({"enabled": true}));
    }
    let cfg = RunConfig::resolve(&RunSpec {
        method: Some(MethodName::Graphcl),
        dataset: dataset.into(),
        seed,
        overrides: o,
        ..Default::default()
    })
    .unwrap();
    let rec = RunRecord::new(
        &cfg,
        RunOutcome {
            accuracy: acc,
            evaluated: true,
            device: "cpu".into(),
            ..Default::default()
        },
    );
    ResultRow::from_record(&rec, "", 1).unwrap()
}

fn small_report_csv(dir: &Path) -> PathBuf {
    let p = dir.join("r.csv");
    let mut rows = Vec::new();
    for seed in 0..5 {
        rows.push(row(
            "MUTAG",
            false,
            seed,
            serde_json::json!({}),
            80.0 + seed as f64,
        ));
        rows.push(row(
            "MUTAG",
            true,
            seed,
            serde_json::json!({}),
            82.0 + seed as f64,
        ));
    }
    write_csv(&p, &rows);
    p
}

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
    magcl::eval::npy::write_f32_matrix(&x, &xs, 20, 2).unwrap();
    magcl::eval::npy::write_i64_vector(&y, &(0..20).map(|i| i % 2).collect::<Vec<_>>()).unwrap();
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

// ---------------------------------------------------------------- exhaustion

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
    magcl::eval::npy::write_f32_matrix(&x, &xs, n, 2).unwrap();
    magcl::eval::npy::write_i64_vector(&y, &(0..n as i64).map(|i| i % 2).collect::<Vec<_>>())
        .unwrap();
    for huge in [1_000_000_000_000i64, i64::MAX] {
        let f = dir.path().join("folds.npy");
        let mut folds: Vec<i64> = (0..n as i64).map(|i| i % 2).collect();
        folds[3] = huge;
        magcl::eval::npy::write_i64_vector(&f, &folds).unwrap();
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
        .env("BIN", light_magcl::path())
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

// ---------------------------------------------------------------- silent wrong answers

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

// ---------------------------------------------------------------- messages

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
        (vec!["--device", "tpu"], "bad device 'tpu'"),
        (vec!["--device", "cuda:x"], "bad device"),
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
}

/// `ResultsFile::open` itself: a foreign file is an error and unchanged, whatever its
/// shape; a file of ours with a cut-off last line is repaired only with resume.
#[test]
fn results_file_open_changes_only_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.csv");
    for foreign in [
        &b"notes"[..],
        b"a\nb\nc",
        b"a,b\n1,2\n",
        b"\n",
        b"dataset,method\nMUTAG,graphcl\npartial",
    ] {
        for resume in [false, true] {
            std::fs::write(&p, foreign).unwrap();
            assert!(ResultsFile::open(&p, resume).is_err(), "{foreign:?}");
            assert_eq!(std::fs::read(&p).unwrap(), foreign);
        }
    }
    // As short as a header cut off by a kill: rewritten only with resume.
    std::fs::write(&p, b"dataset,meth").unwrap();
    assert!(ResultsFile::open(&p, false).is_err());
    assert_eq!(std::fs::read(&p).unwrap(), b"dataset,meth");
    drop(ResultsFile::open(&p, true).unwrap());
    assert_eq!(
        std::fs::read(&p).unwrap(),
        magcl::experiment::results::header_line().as_bytes()
    );
    // Ours, killed mid-row.
    let mut ours = magcl::experiment::results::header_line().into_bytes();
    ours.extend(
        row("MUTAG", false, 0, serde_json::json!({}), 80.0)
            .to_line()
            .unwrap(),
    );
    let complete = ours.len();
    ours.extend_from_slice(b"MUTAG,graphcl,no");
    std::fs::write(&p, &ours).unwrap();
    assert!(ResultsFile::open(&p, false).is_err());
    assert_eq!(std::fs::read(&p).unwrap(), ours);
    let (f, ex) = ResultsFile::open(&p, true).unwrap();
    drop(f);
    assert_eq!(ex.rows, 1);
    assert_eq!(std::fs::read(&p).unwrap(), &ours[..complete]);
}
