//! Helpers shared by the tests that drive the `magcl` binary with careless or hostile
//! input (`bounded_input`, `atomic_outputs`, `foreign_files_unchanged`,
//! `no_silent_wrong_answers`): a command in a scratch folder, a run with a time limit, the
//! check of a clean error, and small result files.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use magcl_torch::experiment::results::{FromRecord, ResultRow};
use magcl_torch::experiment::run::RunOutcome;
use magcl_torch::experiment::{MethodName, RunConfig, RunRecord, RunSpec};

#[path = "../light_magcl/mod.rs"]
mod light_magcl;

/// The `magcl` binary (it hands the tensor commands to `magcl-torch` beside it).
pub fn bin() -> &'static str {
    light_magcl::path()
}

pub fn magcl(dir: &Path) -> Command {
    let mut c = Command::new(bin());
    c.current_dir(dir)
        .env("MAGCL_DATA_DIR", dir.join("cache"))
        // Cells that a (wrongly) started sweep would run fail at once.
        .env("MAGCL_BENCH_WORKER", "/bin/false")
        .stdin(Stdio::null());
    c
}

/// Runs `cmd`, killing it after `secs` (a hang is a failure, not a stuck test).
pub fn run_for(mut cmd: Command, secs: u64) -> Output {
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

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Failed with status 1, a message containing every one of `needles`, and no panic.
pub fn assert_clean_error(o: &Output, needles: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(1), "status {:?}: {e}", o.status);
    assert!(!e.contains("panicked"), "{e}");
    for n in needles {
        assert!(e.contains(n), "expected '{n}' in: {e}");
    }
}

pub fn sweep(dir: &Path, extra: &str) -> PathBuf {
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

/// Runs `script` with `sh -c` under a file-size limit of one block, the way a full disk
/// fails a write (EFBIG instead of ENOSPC; SIGXFSZ ignored so that the write returns).
pub fn with_small_disk(dir: &Path, script: &str) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -f 1; trap '' XFSZ; {script}"))
        .current_dir(dir)
        .env("MAGCL_DATA_DIR", dir.join("cache"))
        .env("BIN", bin())
        .stdin(Stdio::null());
    run_for(c, 120)
}

pub fn write_csv(path: &Path, rows: &[ResultRow]) {
    let mut bytes = magcl_torch::experiment::results::header_line().into_bytes();
    for r in rows {
        bytes.extend(r.to_line().unwrap());
    }
    std::fs::write(path, bytes).unwrap();
}

pub fn row(
    dataset: &str,
    ma: bool,
    seed: u64,
    overrides: serde_json::Value,
    acc: f64,
) -> ResultRow {
    let mut o = overrides.as_object().cloned().unwrap_or_default();
    if ma {
        o.insert("ma".into(), serde_json::json!({"enabled": true}));
    }
    let cfg = RunConfig::resolve(&RunSpec {
        method: Some(MethodName::parse("graphcl").unwrap()),
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

pub fn small_report_csv(dir: &Path) -> PathBuf {
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
