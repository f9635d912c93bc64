//! `magcl bench` end to end with a fake worker: kill -9 and --resume, truncated-line
//! repair, shards, failures, config errors.
//!
//! The fake worker is a shell script: it reads the cell's config hash from the name of
//! the config file bench hands it (`cell-<hash>.json`), sleeps briefly and prints a
//! RunRecord the test precomputed for that config with the library.
mod light_magcl;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use magcl_torch::experiment::results::{read_rows, ResultRow};
use magcl_torch::experiment::sweep::Sweep;
use magcl_torch::experiment::{RunOutcome, RunRecord};

const SWEEP: &str = r#"
datasets = ["MUTAG", "synthetic"]
methods = ["graphcl"]
seeds = 3
ma = ["none", "ARS", "ARS gin-sum"]
[overrides]
epochs = 2
threads = 1                  # fixed, so the cells' hashes do not depend on this machine
"#;

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(sweep: &str, sleep: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("sweep.toml"), sweep).unwrap();
        std::fs::create_dir_all(root.join("records")).unwrap();
        std::fs::create_dir_all(root.join("fail")).unwrap();
        let s = Sweep::load(&root.join("sweep.toml")).unwrap();
        for (k, cell) in s.cells.iter().enumerate() {
            let rec = RunRecord::new(
                &cell.config,
                RunOutcome {
                    accuracy: 70.0 + k as f64 * 0.5,
                    accuracy_std_folds: Some(2.5),
                    epochs: cell.config.epochs,
                    train_seconds: 1.25,
                    eval_seconds: 0.5,
                    peak_rss_bytes: 300 << 20,
                    device: "cpu".into(),
                    ..Default::default()
                },
            );
            let line = serde_json::to_string(&rec).unwrap();
            std::fs::write(
                root.join("records").join(format!("{}.json", cell.hash)),
                line,
            )
            .unwrap();
        }
        let script = format!(
            "#!/bin/sh\n\
             h=$(basename \"$3\" .json); h=${{h#cell-}}\n\
             sleep {sleep}\n\
             if [ -e '{root}/fail/'\"$h\" ]; then echo \"simulated failure of $h\" >&2; exit 3; fi\n\
             echo 'training log line'\n\
             cat '{root}/records/'\"$h\".json\n\
             echo\n",
            root = root.display()
        );
        let worker = root.join("worker.sh");
        std::fs::write(&worker, script).unwrap();
        let mut perm = std::fs::metadata(&worker).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&worker, perm).unwrap();
        Fixture { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn hashes(&self) -> Vec<String> {
        Sweep::load(&self.path("sweep.toml"))
            .unwrap()
            .cells
            .into_iter()
            .map(|c| c.hash)
            .collect()
    }

    fn bench(&self, extra: &[&str]) -> Command {
        let mut cmd = Command::new(light_magcl::path());
        cmd.arg("bench")
            .arg(self.path("sweep.toml"))
            .args(extra)
            .env("MAGCL_BENCH_WORKER", self.path("worker.sh"))
            .current_dir(self.dir.path());
        cmd
    }

    fn run(&self, extra: &[&str]) -> Output {
        self.bench(extra).output().unwrap()
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn rows(path: &Path) -> Vec<ResultRow> {
    read_rows(path).unwrap()
}

fn count_by_hash(rows: &[ResultRow]) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for r in rows {
        *m.entry(r.config_hash.clone()).or_insert(0) += 1;
    }
    m
}

fn data_lines(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.matches('\n').count().saturating_sub(1)
}

#[test]
fn kill_and_resume_loses_nothing_and_duplicates_nothing() {
    let fx = Fixture::new(SWEEP, "0.3");
    let out = fx.path("r.csv");
    let out_s = out.to_str().unwrap();
    let hashes = fx.hashes();
    assert_eq!(hashes.len(), 18);

    let mut child = fx
        .bench(&["--out", out_s, "--jobs", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait (bounded) until a few rows are written, then kill -9 mid-sweep.
    let deadline = Instant::now() + Duration::from_secs(60);
    while data_lines(&out) < 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // the killed run could not remove its scratch folder; the next run does
    let scratch = std::env::temp_dir().join(format!("magcl-bench-{}", child.id()));
    assert!(scratch.exists(), "no scratch folder {}", scratch.display());
    let before = rows(&out);
    assert!(
        before.len() >= 4,
        "only {} rows before the kill",
        before.len()
    );
    assert!(
        before.len() < hashes.len(),
        "the sweep finished before the kill"
    );
    assert!(count_by_hash(&before).values().all(|n| *n == 1));

    // A writer killed in the middle of a row leaves half a line: simulate it.
    let mut raw = std::fs::read(&out).unwrap();
    let partial = b"MUTAG,graphcl,none,,2,svc-rbf,0123456789abcdef,71.5,2.5";
    raw.extend_from_slice(partial);
    std::fs::write(&out, &raw).unwrap();

    // Without --resume the file is left alone.
    let o = fx.run(&["--out", out_s]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));

    let o = fx.run(&["--out", out_s, "--resume", "--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!scratch.exists(), "{} left behind", scratch.display());
    let err = stderr(&o);
    assert!(err.contains("repaired"), "{err}");
    assert!(
        err.contains(&format!("{} done already", before.len())),
        "{err}"
    );

    let after = rows(&out);
    let counts = count_by_hash(&after);
    assert_eq!(after.len(), hashes.len());
    for h in &hashes {
        assert_eq!(counts.get(h), Some(&1), "cell {h}");
    }
    // Every line is a complete row: the repaired partial line is gone.
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.ends_with('\n'));
    assert!(!text.contains("0123456789abcdef"));
    assert_eq!(text.lines().count(), hashes.len() + 1);
    // The rows that survived the kill are untouched and first.
    assert_eq!(&after[..before.len()], &before[..]);

    // Resuming a finished sweep runs nothing and changes nothing.
    let o = fx.run(&["--out", out_s, "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
}

#[test]
fn shards_concatenate_to_the_full_sweep() {
    let fx = Fixture::new(SWEEP, "0");
    let full = fx.path("full.csv");
    let o = fx.run(&["--out", full.to_str().unwrap(), "--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut sharded = Vec::new();
    for i in 0..4 {
        let o = fx.run(&["--shard", &format!("{i}/4"), "--jobs", "1"]);
        assert!(o.status.success(), "{}", stderr(&o));
        // Default output name of a shard.
        let p = fx.path(&format!("results/sweep/sweep.shard-{i}-of-4.csv"));
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text.matches("dataset,method,ma,").count(),
            1,
            "one header per file"
        );
        let r = rows(&p);
        assert!(!r.is_empty());
        sharded.extend(r);
    }
    let key = |r: &ResultRow| {
        let mut r = r.clone();
        r.threads = 0; // threads differ with --jobs; everything else must be equal
        serde_json::to_string(&r).unwrap()
    };
    let mut a: Vec<String> = rows(&full).iter().map(key).collect();
    let mut b: Vec<String> = sharded.iter().map(key).collect();
    a.sort();
    b.sort();
    assert_eq!(a.len(), 18);
    assert_eq!(a, b);

    // `report` reads several files: the shards together give the full sweep's numbers.
    let shard_files: Vec<String> = (0..4)
        .map(|i| {
            fx.path(&format!("results/sweep/sweep.shard-{i}-of-4.csv"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut cmd = Command::new(light_magcl::path());
    cmd.arg("report")
        .args(&shard_files)
        .args(["--format", "csv"]);
    let from_shards = cmd.output().unwrap();
    assert!(from_shards.status.success(), "{}", stderr(&from_shards));
    let from_full = Command::new(light_magcl::path())
        .args(["report", full.to_str().unwrap(), "--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(from_shards.stdout, from_full.stdout);

    // With the sweep, report says which cells no file covers: all shards, none; three of
    // four, exactly the cells of the fourth.
    let sweep = fx.path("sweep.toml");
    let o = Command::new(light_magcl::path())
        .arg("report")
        .args(&shard_files)
        .arg("--sweep")
        .arg(&sweep)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("all 18 cells have rows"),
        "{}",
        stderr(&o)
    );
    let o = Command::new(light_magcl::path())
        .arg("report")
        .args(&shard_files[..3])
        .arg("--sweep")
        .arg(&sweep)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let fourth = rows(&fx.path("results/sweep/sweep.shard-3-of-4.csv"));
    assert!(
        err.contains(&format!(
            "{} of 18 cells have no row in these files",
            fourth.len()
        )),
        "{err}"
    );
    for r in &fourth {
        assert!(
            err.lines()
                .any(|l| l.contains(&r.dataset) && l.contains(&format!("seed {}", r.seed))),
            "{err}"
        );
    }
}

/// `--shard slurm` in a faked job array `--array=1-4`: task ids 1…4 become shards 0…3 of
/// 4, the same cells and file names as `--shard 0/4` … `3/4`; outside an array it fails
/// and says which variable is missing.
#[test]
fn slurm_array_tasks_are_shards() {
    // The embedded synthetic set only, so that no dataset file is needed.
    let fx = Fixture::new(
        &SWEEP.replace(r#"["MUTAG", "synthetic"]"#, r#"["synthetic"]"#),
        "0",
    );
    let mut hashes = Vec::new();
    for task in 1..=4 {
        let o = fx
            .bench(&["--shard", "slurm", "--jobs", "1"])
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_MAX", "4")
            .env("SLURM_ARRAY_TASK_COUNT", "4")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let slurm = rows(&fx.path(&format!("results/sweep/sweep.shard-{}-of-4.csv", task - 1)));
        let o = fx.run(&[
            "--shard",
            &format!("{}/4", task - 1),
            "--jobs",
            "1",
            "--out",
            "plain.csv",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let plain = rows(&fx.path("plain.csv"));
        std::fs::remove_file(fx.path("plain.csv")).unwrap();
        let h = |r: &[ResultRow]| r.iter().map(|r| r.config_hash.clone()).collect::<Vec<_>>();
        assert_eq!(h(&slurm), h(&plain), "task {task}");
        hashes.extend(h(&slurm));
    }
    assert_eq!(hashes.len(), 9, "the four tasks run nine cells");
    hashes.sort();
    hashes.dedup();
    assert_eq!(hashes.len(), 9, "the four tasks cover the sweep once");

    let mut cmd = fx.bench(&["--shard", "slurm"]);
    for v in ["ID", "MIN", "MAX", "COUNT"] {
        cmd.env_remove(format!("SLURM_ARRAY_TASK_{v}"));
    }
    let o = cmd.output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("SLURM_ARRAY_TASK_ID"), "{}", stderr(&o));
}

#[test]
fn failed_cells_are_counted_and_rerun_on_resume() {
    let fx = Fixture::new(SWEEP, "0");
    let hashes = fx.hashes();
    std::fs::write(fx.path("fail").join(&hashes[4]), "").unwrap();
    std::fs::write(fx.path("fail").join(&hashes[9]), "").unwrap();
    let out = fx.path("r.csv");
    let o = fx.run(&["--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("FAILED"), "{err}");
    assert!(err.contains("simulated failure"), "{err}");
    assert!(err.contains("2 of 18 cells failed"), "{err}");
    let r = rows(&out);
    assert_eq!(r.len(), 16);
    assert!(!r.iter().any(|r| r.config_hash == hashes[4]));

    std::fs::remove_dir_all(fx.path("fail")).unwrap();
    let o = fx.run(&["--out", out.to_str().unwrap(), "--resume"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("running 2 cells"), "{}", stderr(&o));
    assert_eq!(count_by_hash(&rows(&out)).len(), 18);
}

#[test]
fn rows_carry_the_required_columns() {
    let fx = Fixture::new(
        "datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = [7]\nma = [\"none\", \"AR\"]\n[overrides]\nthreads = 3\n[grid]\nma.pi = [0.2, 0.4]\n",
        "0",
    );
    let out = fx.path("r.csv");
    let o = fx.run(&["--out", out.to_str().unwrap(), "--threads", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The manifest beside the rows: one line per bench run, with what reproduces them.
    let manifest = std::fs::read_to_string(fx.path("r.csv.manifest.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = manifest
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{manifest}");
    let m = &lines[0];
    for key in [
        "date_utc",
        "command",
        "git_commit",
        "machine",
        "cores",
        "sweep_config_sha256",
        "env",
    ] {
        assert!(!m[key].is_null(), "manifest lacks {key}: {m}");
    }
    assert_eq!(m["threads"], 3);
    assert_eq!(m["cells_to_run"], 4);
    assert!(m["env"]["MAGCL_BENCH_WORKER"].is_string(), "{m}");
    assert_eq!(m["sweep_config_sha256"].as_str().unwrap().len(), 64);
    let text = std::fs::read_to_string(&out).unwrap();
    let header = text.lines().next().unwrap();
    for col in [
        "dataset",
        "method",
        "ma",
        "variant",
        "seed",
        "config_hash",
        "accuracy",
        "accuracy_std_folds",
        "nmi",
        "selected_epoch",
        "epochs",
        "train_seconds",
        "eval_seconds",
        "peak_memory_mb",
        "device",
        "threads",
        "git_commit",
        "magcl_version",
        "config",
    ] {
        assert!(header.split(',').any(|h| h == col), "missing column {col}");
    }
    let r = rows(&out);
    let mut got: BTreeMap<(String, String), f64> = BTreeMap::new();
    for row in &r {
        assert_eq!(row.seed, 7);
        assert_eq!(row.threads, 3);
        assert_eq!(row.peak_memory_mb, 300.0);
        let cfg: magcl_torch::experiment::RunConfig = serde_json::from_str(&row.config).unwrap();
        assert_eq!(cfg.hash(), row.config_hash);
        got.insert((row.ma.clone(), row.variant.clone()), cfg.ma.pi);
    }
    let want: BTreeMap<(String, String), f64> = [
        (("AR gin+filter".to_string(), "ma.pi=0.2".to_string()), 0.2),
        (("AR gin+filter".to_string(), "ma.pi=0.4".to_string()), 0.4),
        (("none".to_string(), "ma.pi=0.2".to_string()), 0.2),
        (("none".to_string(), "ma.pi=0.4".to_string()), 0.4),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, want);
}

#[test]
fn a_results_folder_keeps_its_sweep_config() {
    let fx = Fixture::new(SWEEP, "0");
    let dir = fx.path("results/exp");
    let manifest_of = |csv: &str| last_manifest_line(&dir.join(format!("{csv}.manifest.jsonl")));
    let tomls = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        v.sort();
        v
    };
    let first = SWEEP.as_bytes();

    // Inside results/EXPERIMENT/: the config is copied under its own name (sweep.toml).
    let o = fx.run(&["--out", "results/exp/rows.csv", "--only", "seed=0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("sweep.toml")).unwrap(), first);
    let m = manifest_of("rows.csv");
    assert_eq!(m["config_copy"], "results/exp/sweep.toml", "{m}");
    assert!(m["config_copy_note"].is_null(), "{m}");

    // The same config again: nothing new.
    let o = fx.run(&["--out", "results/exp/rows2.csv", "--only", "seed=0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tomls(), ["sweep.toml"]);

    // A different config: the first copy stays, this one is kept beside it and the
    // manifest says so.
    let changed = format!("{SWEEP}# edited after the first run\n");
    std::fs::write(fx.path("sweep.toml"), &changed).unwrap();
    let o = fx.run(&["--out", "results/exp/rows3.csv", "--only", "seed=0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("sweep.toml")).unwrap(), first);
    assert_eq!(tomls(), ["sweep.2.toml", "sweep.toml"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("sweep.2.toml")).unwrap(),
        changed
    );
    let m = manifest_of("rows3.csv");
    assert_eq!(m["config_copy"], "results/exp/sweep.2.toml", "{m}");
    let note = m["config_copy_note"].as_str().unwrap();
    assert!(
        note.contains("sweep.toml") && note.contains("differs"),
        "{note}"
    );
    assert!(stderr(&o).contains(note), "{}", stderr(&o));

    // The second config again reuses its copy; a third goes to sweep.3.toml.
    let o = fx.run(&["--out", "results/exp/rows4.csv", "--only", "seed=0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        manifest_of("rows4.csv")["config_copy"],
        "results/exp/sweep.2.toml"
    );
    std::fs::write(fx.path("sweep.toml"), format!("{changed}# and again\n")).unwrap();
    let o = fx.run(&["--out", "results/exp/rows5.csv", "--only", "seed=0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tomls(), ["sweep.2.toml", "sweep.3.toml", "sweep.toml"]);
    assert_eq!(
        manifest_of("rows5.csv")["config_copy"],
        "results/exp/sweep.3.toml"
    );

    // Not in a folder of its own under results/: no copy.
    let o = fx.run(&["--out", "results/flat.csv", "--only", "seed=0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let flat: Vec<_> = std::fs::read_dir(fx.path("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    assert!(flat.is_empty(), "{flat:?}");
    let m = last_manifest_line(&fx.path("results/flat.csv.manifest.jsonl"));
    assert!(m["config_copy"].is_null(), "{m}");
}

fn last_manifest_line(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn config_errors_name_the_toml_line_before_anything_runs() {
    let cases: &[(&str, usize, &str)] = &[
        ("datasets = [\"MUTAG\", \"NOPE\"]\nmethods = [\"graphcl\"]\nseeds = 2\n", 1, "unknown dataset 'NOPE'"),
        ("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\",\n  \"grafcl\"]\nseeds = 2\n", 3, "unknown method"),
        ("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = []\n", 3, "at least one seed"),
        ("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 2\n\n[grid]\nma.view1 = []\n", 6, "lists no value"),
        ("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 2\nma = [\"none\",\n  { tricks = \"ARS\", view1 = [4, 2] }]\n", 5, "ma.view1"),
        ("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 2\n[overrides]\naugment.mask = 1.5\n", 5, "[0, 1]"),
        ("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 2\n[overrides]\nlearning_rate = 0.1\n", 5, "learning_rate"),
        ("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseed = 2\n", 3, "unknown key 'seed'"),
    ];
    for (text, line, what) in cases {
        let fx = Fixture::new(SWEEP, "0");
        std::fs::write(fx.path("sweep.toml"), text).unwrap();
        let o = fx.run(&["--out", "r.csv"]);
        assert!(!o.status.success());
        let err = stderr(&o);
        assert!(
            err.contains(&format!("sweep.toml:{line}:")),
            "expected line {line}: {err}"
        );
        assert!(err.contains(what), "expected '{what}': {err}");
        assert!(!fx.path("r.csv").exists(), "nothing may run or be written");
    }
}

#[test]
fn dry_run_lists_cells_and_done_state() {
    let fx = Fixture::new(SWEEP, "0");
    let out = fx.path("r.csv");
    let o = fx.run(&[
        "--out",
        out.to_str().unwrap(),
        "--only",
        "dataset=MUTAG,seed=0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&out).len(), 3);
    let o = fx.run(&["--out", out.to_str().unwrap(), "--resume", "--dry-run"]);
    assert!(o.status.success());
    let listing = String::from_utf8_lossy(&o.stdout);
    assert_eq!(listing.lines().filter(|l| l.contains(" done ")).count(), 3);
    assert_eq!(listing.lines().filter(|l| l.contains(" todo ")).count(), 15);
    assert_eq!(rows(&out).len(), 3, "a dry run writes nothing");
}
