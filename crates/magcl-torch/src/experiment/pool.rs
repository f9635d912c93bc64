//! The worker pool of a sweep: each cell runs in its own worker process (`magcl-torch
//! train --config … --json`), `--jobs` of them at a time, placed on the CPU or over the
//! GPUs; finished rows are appended to the result file as they arrive, so a killed sweep
//! loses only the cells in flight. `magcl bench` (the CLI) parses the options and calls
//! [`run_pool`]; `magcl bench-speed` reuses [`run_worker`].
use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::device::{auto_pick, auto_pick_for, worker_device, DeviceSpec, Pick};
use super::results::{FromRecord, ResultRow, ResultsFile};
use super::sweep::Cell;
use super::{RunConfig, RunRecord, Task};
use crate::error::{Error, Result};

/// Removes the scratch folders (`magcl-bench-PID` in `root`) of earlier runs that were
/// killed before they could clean up: those whose process no longer exists. Linux only
/// (it asks `/proc`); elsewhere nothing is removed.
pub fn remove_stale_scratch(root: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("magcl-bench-"))
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// The worker program: $MAGCL_BENCH_WORKER, else this executable.
pub fn worker_program() -> Result<PathBuf> {
    match std::env::var_os("MAGCL_BENCH_WORKER") {
        Some(w) if !w.is_empty() => Ok(PathBuf::from(w)),
        _ => std::env::current_exe().map_err(|e| {
            Error::from(std::io::Error::new(
                e.kind(),
                format!("cannot find the magcl executable to run cells: {e}"),
            ))
        }),
    }
}

/// Available memory in MiB from /proc/meminfo (`MemAvailable`).
fn available_memory_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// A rough upper estimate of one cell's peak resident memory in MiB: the libtorch
/// process itself plus the dataset's share (graphs, embeddings, N×N similarity blocks).
pub fn estimate_cell_memory_mb(cfg: &RunConfig) -> u64 {
    let process = 700;
    let data = match (cfg.task, cfg.dataset.as_str()) {
        (Task::Graph, "DD" | "COLLAB" | "REDDIT-BINARY" | "REDDIT-MULTI-5K") => 2500,
        (Task::Graph, _) => 400,
        (Task::Node, "Cora" | "CiteSeer") => 1500,
        (Task::Node, "PubMed") => 4000,
        (Task::Node, _) => 8000,
    };
    process + data
}

/// Jobs that fit: at most the cores, and as many cells of the largest estimate as fit in
/// 80% of the available memory.
pub fn default_jobs(cells: &[Cell], cores: usize) -> (usize, String) {
    let per_cell = cells
        .iter()
        .map(|c| estimate_cell_memory_mb(&c.config))
        .max()
        .unwrap_or(1000);
    match available_memory_mb() {
        Some(avail) => {
            let fit = ((avail as f64 * 0.8) / per_cell as f64).floor() as usize;
            let jobs = fit.clamp(1, cores.max(1));
            (
                jobs,
                format!("{cores} cores, {avail} MiB available, ≈{per_cell} MiB per cell"),
            )
        }
        None => (cores.max(1), format!("{cores} cores")),
    }
}

/// Where each cell's worker runs (`--device`, `--gpus`).
pub struct Placement {
    spec: DeviceSpec,
    /// GPUs in use: 0 for `cpu` and `cuda:N`, and where none is visible.
    pub gpus: usize,
    data_cfg: crate::data::DataConfig,
    /// `auto`'s pick per graph-level data set and batch size (node level needs no data).
    picks: Mutex<std::collections::HashMap<(String, usize), Pick>>,
}

impl Placement {
    /// Checks `--device` and `--gpus` before anything runs: `cuda` must name an existing
    /// GPU and `--gpus` at most the visible ones. A worker program of one's own
    /// ($MAGCL_BENCH_WORKER) given `--gpus G` is trusted to have G GPUs (how the placement
    /// is tested without one).
    pub fn new(spec: DeviceSpec, gpus: Option<usize>) -> Result<Placement> {
        if gpus == Some(0) {
            return Err(Error::Config(
                "--gpus must be at least 1 (use --device cpu for no GPU)".into(),
            ));
        }
        let own_worker = std::env::var_os("MAGCL_BENCH_WORKER").is_some_and(|w| !w.is_empty());
        let visible = match gpus {
            Some(g) if own_worker => {
                if let DeviceSpec::Cuda(Some(i)) = spec {
                    if i >= g {
                        return Err(Error::Config(format!(
                            "--device {spec}: only {g} GPU(s) (--gpus {g})"
                        )));
                    }
                }
                g
            }
            _ => {
                if matches!(spec, DeviceSpec::Cuda(_)) {
                    crate::experiment::run::device_of(spec)
                        .map_err(|e| Error::Config(format!("--device {spec}: {e}")))?;
                }
                if tch::Cuda::is_available() {
                    tch::Cuda::device_count().max(0) as usize
                } else {
                    0
                }
            }
        };
        if let Some(g) = gpus {
            if g > visible {
                return Err(Error::Config(format!(
                    "--gpus {g}: only {visible} GPU(s) are visible{}",
                    if visible == 0 {
                        " (no GPU, or a CPU-only libtorch)"
                    } else {
                        ""
                    }
                )));
            }
        }
        let gpus = match spec {
            DeviceSpec::Cuda(None) | DeviceSpec::Auto => gpus.unwrap_or(visible),
            DeviceSpec::Cpu | DeviceSpec::Cuda(Some(_)) => 0,
        };
        Ok(Placement {
            spec,
            gpus,
            data_cfg: crate::data::DataConfig::from_env(),
            picks: Mutex::new(std::collections::HashMap::new()),
        })
    }

    /// The device for `cell` in worker slot `slot`.
    pub fn device_for(&self, slot: usize, cell: &Cell) -> Result<String, String> {
        let mut failed = None;
        let device = worker_device(self.spec, slot, self.gpus, || {
            match self.pick(&cell.config) {
                Ok(p) => p,
                Err(e) => {
                    failed = Some(e);
                    Pick::Cpu
                }
            }
        });
        match failed {
            Some(e) => Err(format!("--device auto: {e}")),
            None => Ok(device),
        }
    }

    pub fn pick(&self, cfg: &RunConfig) -> Result<Pick, String> {
        if cfg.task == Task::Node {
            return Ok(auto_pick(Task::Node, 0.0));
        }
        let key = (cfg.dataset.clone(), cfg.batch_size);
        if let Some(p) = self.picks.lock().ok().and_then(|m| m.get(&key).copied()) {
            return Ok(p);
        }
        let p = auto_pick_for(cfg, &self.data_cfg).map_err(|e| e.to_string())?;
        if let Ok(mut m) = self.picks.lock() {
            m.insert(key, p);
        }
        Ok(p)
    }
}

pub enum Outcome {
    Done(Box<ResultRow>, f64),
    Failed(String),
}

/// Where a sweep's workers keep their training checkpoints: one file per cell,
/// `DIR/HASH.ckpt` (the cell's config hash), saved every `every_secs` seconds
/// (docs/reliability.md, "Checkpoints").
#[derive(Clone, Debug)]
pub struct CellCheckpoints {
    pub dir: PathBuf,
    pub every_secs: f64,
}

impl CellCheckpoints {
    /// The checkpoint folder of the result file `out`: `OUT` with `.checkpoints` in place
    /// of its extension, beside it.
    pub fn dir_for(out: &Path) -> PathBuf {
        out.with_extension("checkpoints")
    }
    /// The checkpoint file of `cell`.
    pub fn path(&self, cell: &Cell) -> PathBuf {
        self.dir.join(format!("{}.ckpt", cell.hash))
    }
    /// The worker's options for `cell`.
    fn args(&self, cell: &Cell) -> Vec<String> {
        vec![
            "--checkpoint".into(),
            self.path(cell).to_string_lossy().into_owned(),
            "--checkpoint-every-secs".into(),
            self.every_secs.to_string(),
        ]
    }
}

pub fn run_pool(
    todo: &[Cell],
    file: &ResultsFile,
    worker: &Path,
    tmp: &Path,
    jobs: usize,
    placement: &Placement,
    checkpoints: Option<&CellCheckpoints>,
) -> Result<(usize, usize)> {
    let queue: Mutex<VecDeque<&Cell>> = Mutex::new(todo.iter().collect());
    let (tx, rx) = mpsc::channel::<(&Cell, Outcome)>();
    let bar = progress_bar(todo.len() as u64);
    let start = Instant::now();
    let mut ok = 0usize;
    let mut failed = 0usize;
    let mut write_error: Option<Error> = None;
    std::thread::scope(|scope| {
        for slot in 0..jobs {
            let tx = tx.clone();
            let queue = &queue;
            scope.spawn(move || loop {
                let cell = match queue.lock() {
                    Ok(mut q) => q.pop_front(),
                    Err(_) => None,
                };
                let Some(cell) = cell else { break };
                let outcome = match placement.device_for(slot, cell) {
                    Ok(device) => run_cell(cell, worker, tmp, &device, checkpoints),
                    Err(e) => Outcome::Failed(e),
                };
                if tx.send((cell, outcome)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (k, (cell, outcome)) in rx.iter().enumerate() {
            let finished = k + 1;
            let msg = match outcome {
                Outcome::Done(row, secs) => match file.append(&row) {
                    Ok(()) => {
                        ok += 1;
                        let mut m = format!("{} acc {:.2}", cell.describe(), row.accuracy);
                        if let Some(s) = row.accuracy_std_folds {
                            m.push_str(&format!(" (±{s:.2} folds)"));
                        }
                        if let Some(n) = row.nmi {
                            m.push_str(&format!(" nmi {n:.3}"));
                        }
                        m.push_str(&format!(" {secs:.1}s {:.0} MB", row.peak_memory_mb));
                        m
                    }
                    Err(e) => {
                        // The file is unusable: stop handing out cells.
                        if let Ok(mut q) = queue.lock() {
                            q.clear();
                        }
                        failed += 1;
                        let m = format!("{}: cannot write the row: {e}", cell.describe());
                        write_error = Some(e.into());
                        m
                    }
                },
                Outcome::Failed(why) => {
                    failed += 1;
                    format!("FAILED {}: {why}", cell.describe())
                }
            };
            let elapsed = start.elapsed().as_secs_f64();
            let remaining = todo.len() - finished;
            let eta = elapsed / finished as f64 * remaining as f64;
            let line = format!(
                "[{finished}/{}] {msg} | elapsed {}, ETA {}",
                todo.len(),
                fmt_secs(elapsed),
                fmt_secs(eta)
            );
            if bar.is_hidden() {
                eprintln!("{line}");
            } else {
                bar.println(line);
            }
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    Ok((ok, failed))
}

fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:40} {pos}/{len} cells, elapsed {elapsed_precise}, ETA {eta_precise}",
    ) {
        bar.set_style(style);
    }
    bar
}

pub fn fmt_secs(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// Runs `magcl train --config CFG --json --quiet [--threads T] --device D [extra]` (no
/// `--threads` when T is 0: the worker's default) with the
/// given worker in a child process (killed if this process dies) and parses the run record
/// it prints as its last stdout line. Errors carry the worker's last stderr lines.
pub fn run_worker(
    cfg: &RunConfig,
    worker: &Path,
    tmp: &Path,
    threads: usize,
    device: &str,
    extra: &[&str],
) -> Result<(RunRecord, f64), String> {
    let cfg_path = tmp.join(format!("cell-{}.json", cfg.hash()));
    let json = serde_json::to_string_pretty(cfg)
        .map_err(|e| format!("cannot serialise the config: {e}"))?;
    std::fs::write(&cfg_path, json)
        .map_err(|e| format!("cannot write {}: {e}", cfg_path.display()))?;
    let start = Instant::now();
    let mut cmd = Command::new(worker);
    cmd.arg("train")
        .arg("--config")
        .arg(&cfg_path)
        .arg("--json")
        .arg("--quiet")
        // 0: the worker's own default (`magcl train` without --threads)
        .args(
            (threads > 0)
                .then(|| ["--threads".to_string(), threads.to_string()])
                .into_iter()
                .flatten(),
        )
        .arg("--device")
        .arg(device)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    die_with_parent(&mut cmd);
    let output = cmd.output();
    let _ = std::fs::remove_file(&cfg_path);
    let output = output.map_err(|e| format!("cannot start {}: {e}", worker.display()))?;
    let secs = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let tail = last_lines(&stderr, 5);
        return Err(format!(
            "worker exited with {}{}",
            output.status,
            if tail.is_empty() {
                String::new()
            } else {
                format!(": {tail}")
            }
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .ok_or_else(|| "worker printed no result line on stdout".to_string())?;
    let record: RunRecord = serde_json::from_str(last.trim()).map_err(|e| {
        format!(
            "the worker's last stdout line is not a run record ({e}): {}",
            truncate(last, 200)
        )
    })?;
    Ok((record, secs))
}

/// Runs one cell in a child process and turns its run record into a row.
/// Runs one cell with its own thread count (`cell.config.threads`), checkpointing its
/// training where `checkpoints` says, on any device (the worker resumes from the cell's
/// checkpoint when one is there, and removes it when the run has its outcome).
pub fn run_cell(
    cell: &Cell,
    worker: &Path,
    tmp: &Path,
    device: &str,
    checkpoints: Option<&CellCheckpoints>,
) -> Outcome {
    let threads = cell.config.threads.max(1);
    let extra = checkpoints.map(|c| c.args(cell)).unwrap_or_default();
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let (record, secs) = match run_worker(&cell.config, worker, tmp, threads, device, &extra) {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(e),
    };
    let mut row = match ResultRow::from_record(&record, &cell.variant, threads) {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    if record.config_hash != cell.hash {
        eprintln!(
            "warning: {}: the worker reports config hash {} for a cell with hash {}; the row keeps the cell's",
            cell.describe(),
            record.config_hash,
            cell.hash
        );
    }
    for w in &record.outcome.warnings {
        eprintln!("warning: {}: {w}", cell.describe());
    }
    // The sweep's identity of the cell, so that --resume recognises it.
    row.config_hash = cell.hash.clone();
    row.dataset = cell.config.dataset.clone();
    row.method = cell.config.method_label();
    row.ma = cell.ma_label();
    row.seed = cell.config.seed;
    row.evaluator = cell.config.evaluator.to_string();
    Outcome::Done(Box::new(row), secs)
}

/// Asks the kernel to kill the child when the bench process dies (even by `kill -9`), so
/// no orphaned worker keeps computing a cell nobody will record.
fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the forked child before exec and only calls
        // prctl(2), which is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

fn last_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(n);
    truncate(&lines[start..].join(" | "), 600)
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}
