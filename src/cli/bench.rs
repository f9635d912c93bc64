//! `magcl bench`: run a sweep, one child process per cell, appending one CSV row per
//! finished run.
use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::experiment::device::{
    auto_pick, auto_pick_for, parse_device_spec, worker_device, DeviceSpec, Pick,
};
use crate::experiment::results::{read_rows, FromRecord, ResultRow, ResultsFile};
use crate::experiment::sweep::{parse_shard, shard, Cell, Filter, Sweep};
use crate::experiment::{RunConfig, RunRecord, Task};

/// Run a sweep described by a TOML config; append one CSV row per finished run.
///
/// Every cell runs in its own child process (`magcl train --config FILE.json --json`, or
/// the program named by $MAGCL_BENCH_WORKER), so a crash loses one cell and each row
/// records the true peak memory of its run. Rows are appended crash-safely: after a kill,
/// `--resume` continues where the sweep stopped without duplicating a row.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The sweep config (TOML; see benchmarks/*.toml for annotated examples).
    pub config: PathBuf,
    /// Result CSV to append to [default: results/NAME.csv, or
    /// results/NAME.shard-I-of-N.csv with --shard]. An existing file that is not a magcl
    /// result file is refused and left unchanged. Beside it, OUT.manifest.jsonl records
    /// each run (command, commit, machine, date); when OUT is in a folder of its own,
    /// results/EXPERIMENT/, the sweep config is also copied there as EXPERIMENT.toml
    /// (EXPERIMENT.2.toml, … when an earlier run's copy differs).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Cells run in parallel [default: as many as fit in available memory (a per-cell
    /// estimate from the dataset) and cores].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Threads per worker [default: max(1, cores / jobs)].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Continue a sweep: skip cells whose config hash is already in --out, and repair a
    /// truncated last line left by a killed run.
    #[arg(long)]
    pub resume: bool,
    /// Run only slice I of N (0-based). Cells are dealt to shards by estimated cost
    /// (epochs × dataset size × method, plus the evaluator) so that shards finish together;
    /// every task computes the same deal (give all of them the same --only).
    /// Shards' CSVs together hold the rows of the whole sweep. `--shard slurm` takes I and N
    /// from a Slurm job array's task (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN,
    /// SLURM_ARRAY_TASK_COUNT): --array=0-7 and --array=1-8 both give shards 0…7 of 8.
    #[arg(long, value_name = "I/N|slurm")]
    pub shard: Option<String>,
    /// List the cells (and, with --resume, which are done) without running anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Restrict the sweep, e.g. `--only dataset=MUTAG,NCI1 --only method=graphcl,seed=0,1`.
    /// Keys: dataset, method, seed, ma, variant, evaluator. Applied before --shard.
    #[arg(long, value_name = "KEY=V[,V…]")]
    pub only: Vec<String>,
    /// Device of the workers: auto, cpu, cuda or cuda:N. `cuda` places the workers
    /// round-robin over the GPUs (worker slot k on cuda:k mod G, several per GPU when --jobs
    /// exceeds G); `auto` does the same for the cells its rule sends to a GPU (node level,
    /// and graph level with batches of ≥ 6 000 nodes) and runs the others on the CPU. Each
    /// row records the device its run used (docs/performance.md, "CPU or GPU").
    #[arg(long, default_value = "auto")]
    pub device: String,
    /// GPUs to spread the workers over: the first G visible ones [default: all visible].
    #[arg(long, value_name = "G")]
    pub gpus: Option<usize>,
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    // Options are checked before anything is read or created.
    if args.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    crate::cli::train::check_threads(args.threads)?;
    let placement = Placement::new(&args)?;
    let sweep = Sweep::load(&args.config)?;
    let total_cells = sweep.cells.len();
    let mut filter = Filter::default();
    for o in &args.only {
        filter.add(o)?;
    }
    let mut cells = filter.apply(sweep.cells.clone())?;
    let after_only = cells.len();
    let shard_spec = match &args.shard {
        Some(s) => Some(parse_shard(s)?),
        None => None,
    };
    if let Some((i, n)) = shard_spec {
        cells = shard(cells, i, n);
    }
    // The thread count is part of each cell's config (it orders float sums, so it changes
    // numbers): a sweep that fixes it (`[overrides] threads = N`) gives the same rows on
    // every machine; otherwise each cell gets --threads or cores / jobs, recorded in its
    // config and hash before anything is compared with the result file.
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let (jobs, why) = match args.jobs {
        Some(j) => (j, "from --jobs".to_string()),
        None => default_jobs(&cells, cores),
    };
    let jobs = jobs.min(cells.len()).max(1);
    let threads = match args.threads {
        Some(t) => t,
        None => (cores / jobs).max(1),
    };
    // The same for the environment variables that change numbers (recorded when set).
    for c in &mut cells {
        if c.config.threads == 0 {
            c.config.threads = threads;
        }
        c.config.fill_env()?;
        c.hash = c.config.hash();
    }
    let out = args.out.clone().unwrap_or_else(|| {
        let name = match shard_spec {
            Some((i, n)) => format!("{}.shard-{i}-of-{n}.csv", sweep.name),
            None => format!("{}.csv", sweep.name),
        };
        Path::new("results").join(name)
    });
    let mut header = format!(
        "sweep '{}' ({}): {} cells",
        sweep.name,
        args.config.display(),
        total_cells
    );
    if sweep.duplicates > 0 {
        header.push_str(&format!(
            " ({} duplicate cells with identical configs merged)",
            sweep.duplicates
        ));
    }
    if !args.only.is_empty() {
        header.push_str(&format!(", {after_only} after --only"));
    }
    if let Some((i, n)) = shard_spec {
        header.push_str(&format!(", shard {i}/{n}: {}", cells.len()));
    }
    eprintln!("{header}");

    if args.dry_run {
        let done = if args.resume && out.exists() {
            read_rows(&out)?
                .into_iter()
                .map(|r| r.config_hash)
                .collect()
        } else {
            std::collections::HashSet::new()
        };
        print_cells(&cells, &done, args.resume)?;
        let n_done = cells.iter().filter(|c| done.contains(&c.hash)).count();
        eprintln!(
            "{} cells, {} done, {} to run; results would go to {}",
            cells.len(),
            n_done,
            cells.len() - n_done,
            out.display()
        );
        return Ok(());
    }

    resolve_datasets(&cells)?;
    let (file, existing) = ResultsFile::open(&out, args.resume)?;
    if existing.repaired_bytes > 0 {
        eprintln!(
            "repaired {}: cut off an incomplete last line ({} bytes) left by a killed run",
            out.display(),
            existing.repaired_bytes
        );
    }
    let todo: Vec<Cell> = cells
        .iter()
        .filter(|c| !existing.done.contains(&c.hash))
        .cloned()
        .collect();
    let skipped = cells.len() - todo.len();
    if todo.is_empty() {
        eprintln!(
            "all {} cells are done already ({})",
            cells.len(),
            out.display()
        );
        return Ok(());
    }
    let jobs = jobs.min(todo.len()).max(1);
    let worker = worker_program()?;
    eprintln!(
        "running {} cells{} with {jobs} jobs ({why}) × {threads} threads, worker {}; rows → {}",
        todo.len(),
        if skipped > 0 {
            format!(" ({skipped} done already)")
        } else {
            String::new()
        },
        worker.display(),
        out.display()
    );

    write_manifest(&out, &args, todo.len(), jobs, threads)?;
    remove_stale_scratch(&std::env::temp_dir());
    let tmp = std::env::temp_dir().join(format!("magcl-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    if placement.gpus > 0 {
        eprintln!(
            "workers on {} GPU(s) ({}), round-robin by worker slot",
            placement.gpus, args.device
        );
    }
    let result = run_pool(&todo, &file, &worker, &tmp, jobs, &placement);
    let _ = std::fs::remove_dir_all(&tmp);
    let (ok, failed) = result?;
    eprintln!(
        "finished: {ok} cells written to {}, {failed} failed{}",
        out.display(),
        if skipped > 0 {
            format!(", {skipped} skipped (done before)")
        } else {
            String::new()
        }
    );
    if failed > 0 {
        bail!(
            "{failed} of {} cells failed; fix the cause and rerun with --resume to run only those",
            todo.len()
        );
    }
    Ok(())
}

/// The manifest of a result file: `OUT.manifest.jsonl` beside it, one JSON line per
/// `magcl bench` run that wrote to it (a resumed sweep adds a line), with what is needed
/// to reproduce and audit its rows: the command, the commit, the machine, the date, the
/// sweep file's sha256 and every `MAGCL_*` environment variable (some change numbers, e.g.
/// `MAGCL_MKL_VENDOR_CHECK`).
pub fn manifest_path(out: &Path) -> PathBuf {
    let mut name = out
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".manifest.jsonl");
    out.with_file_name(name)
}

fn write_manifest(
    out: &Path,
    args: &BenchArgs,
    cells: usize,
    jobs: usize,
    threads: usize,
) -> anyhow::Result<()> {
    use sha2::Digest;
    use std::io::Write;
    let config_bytes = std::fs::read(&args.config).ok();
    let config_sha256 = config_bytes
        .as_ref()
        .map(|b| crate::data::checksums::hex(&sha2::Sha256::digest(b)))
        .unwrap_or_default();
    let copy = match &config_bytes {
        Some(bytes) => keep_sweep_config(out, bytes)?,
        None => None,
    };
    let env: std::collections::BTreeMap<String, String> = std::env::vars()
        .filter(|(k, _)| k.starts_with("MAGCL_"))
        .collect();
    let mut line = serde_json::json!({
        "date_utc": utc_timestamp(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        ),
        "command": std::env::args().collect::<Vec<_>>(),
        "cwd": std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default(),
        "git_commit": env!("MAGCL_GIT_COMMIT"),
        "magcl_version": env!("CARGO_PKG_VERSION"),
        "machine": crate::cli::speed::machine(),
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "device": args.device,
        "gpus": args.gpus,
        "jobs": jobs,
        "threads": threads,
        "cells_to_run": cells,
        "sweep_config": args.config.display().to_string(),
        "sweep_config_sha256": config_sha256,
        "env": env,
    });
    if let Some(copy) = copy {
        line["config_copy"] = copy.path.display().to_string().into();
        if let Some(note) = copy.note {
            eprintln!("note: {note}");
            line["config_copy_note"] = note.into();
        }
    }
    let path = manifest_path(out);
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open the manifest {}", path.display()))?;
    f.write_all(format!("{line}\n").as_bytes())
        .and_then(|()| f.sync_all())
        .with_context(|| format!("cannot write the manifest {}", path.display()))
}

/// Where [`keep_sweep_config`] put the sweep config, and why not at the usual name.
struct ConfigCopy {
    path: PathBuf,
    note: Option<String>,
}

/// The folder of an experiment's results: `results/EXPERIMENT/` when `out` lies directly
/// in a folder whose parent is named `results`; `None` otherwise (e.g. `results/NAME.csv`).
fn experiment_dir(out: &Path) -> Option<(PathBuf, String)> {
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty())?;
    // Resolved for the check only (`--out rows.csv` run inside results/EXP/ counts too);
    // the copy is named as the user named the folder.
    let resolved = dir.canonicalize().ok()?;
    let name = resolved.file_name()?.to_str()?.to_string();
    (resolved.parent()?.file_name()? == "results").then(|| (dir.to_path_buf(), name))
}

/// Copies the sweep config into the experiment's folder (`results/EXP/EXP.toml`) so the
/// folder holds what made its rows. An existing copy with the same bytes is left alone;
/// one with other bytes is kept too (earlier runs used it), and this run's config goes
/// to the first `EXP.N.toml` (N = 2, 3, …) that is absent or holds the same bytes, named
/// in the returned note.
fn keep_sweep_config(out: &Path, config: &[u8]) -> anyhow::Result<Option<ConfigCopy>> {
    let Some((dir, name)) = experiment_dir(out) else {
        return Ok(None);
    };
    let usual = dir.join(format!("{name}.toml"));
    let write_if_absent = |path: &Path| -> anyhow::Result<bool> {
        match std::fs::read(path) {
            Ok(existing) => Ok(existing == config),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::write(path, config).with_context(|| {
                    format!("cannot copy the sweep config to {}", path.display())
                })?;
                Ok(true)
            }
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    };
    if write_if_absent(&usual)? {
        return Ok(Some(ConfigCopy {
            path: usual,
            note: None,
        }));
    }
    let mut n = 2;
    let other = loop {
        let candidate = dir.join(format!("{name}.{n}.toml"));
        if write_if_absent(&candidate)? {
            break candidate;
        }
        n += 1;
    };
    let note = format!(
        "{} differs from this run's sweep config (earlier runs into this folder used it); \
         this run's config is kept as {}",
        usual.display(),
        other.display()
    );
    Ok(Some(ConfigCopy {
        path: other,
        note: Some(note),
    }))
}

/// Seconds since 1970-01-01 UTC as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_timestamp(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Makes sure every dataset of the sweep is available (cached, or fetched now from the
/// mirror or the network) before the first cell starts, so an offline sweep fails once,
/// naming what is missing, instead of launching every cell into the same failure.
/// A worker program other than magcl ($MAGCL_BENCH_WORKER) brings its own data: nothing is
/// resolved then.
fn resolve_datasets(cells: &[Cell]) -> anyhow::Result<()> {
    if std::env::var_os("MAGCL_BENCH_WORKER").is_some() {
        return Ok(());
    }
    let cfg = crate::data::DataConfig::from_env();
    let mut names: Vec<&str> = cells.iter().map(|c| c.config.dataset.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut missing = Vec::new();
    for name in names {
        let result = if name.trim().starts_with("tu:") {
            crate::data::load_graph_dataset(name, &cfg).map(|_| ())
        } else if name.trim().starts_with("npz:") {
            crate::data::load_node_dataset(name, &cfg).map(|_| ())
        } else {
            match crate::data::registry::find(name) {
                Some(d) => crate::data::source::fetch(&d, &cfg).map(|_| ()),
                // synthetic-node:... and other generated names need no files.
                None => Ok(()),
            }
        };
        if let Err(e) = result {
            missing.push(format!("  {name}: {e}"));
        }
    }
    if !missing.is_empty() {
        bail!(
            "{} dataset(s) of this sweep cannot be obtained, so no cell was started:\n{}\nProvide them through {} (a local folder or http(s) URL laid out like the dataset mirror), the network, or the cache ({}), or leave them out with --only dataset=...",
            missing.len(),
            missing.join("\n"),
            crate::data::source::ENV_MIRROR,
            cfg.cache_dir.display()
        );
    }
    Ok(())
}

fn print_cells(
    cells: &[Cell],
    done: &std::collections::HashSet<String>,
    resume: bool,
) -> anyhow::Result<()> {
    outln!(
        "{:>5}  {:<6}  {:<14} {:<11} {:<18} {:<22} {:<10} {:>4}  hash",
        "#",
        "status",
        "dataset",
        "method",
        "ma",
        "variant",
        "evaluator",
        "seed"
    );
    for c in cells {
        let status = if !resume {
            "todo"
        } else if done.contains(&c.hash) {
            "done"
        } else {
            "todo"
        };
        outln!(
            "{:>5}  {:<6}  {:<14} {:<11} {:<18} {:<22} {:<10} {:>4}  {}",
            c.index,
            status,
            c.config.dataset,
            c.config.method_label(),
            c.ma_label(),
            c.variant,
            c.config.evaluator,
            c.config.seed,
            c.hash
        );
    }
    Ok(())
}

/// Removes the scratch folders (`magcl-bench-PID` in `root`) of earlier runs that were
/// killed before they could clean up: those whose process no longer exists. Linux only
/// (it asks `/proc`); elsewhere nothing is removed.
fn remove_stale_scratch(root: &Path) {
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
pub fn worker_program() -> anyhow::Result<PathBuf> {
    match std::env::var_os("MAGCL_BENCH_WORKER") {
        Some(w) if !w.is_empty() => Ok(PathBuf::from(w)),
        _ => std::env::current_exe().context("cannot find the magcl executable to run cells"),
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
fn default_jobs(cells: &[Cell], cores: usize) -> (usize, String) {
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
struct Placement {
    spec: DeviceSpec,
    /// GPUs in use: 0 for `cpu` and `cuda:N`, and where none is visible.
    gpus: usize,
    data_cfg: crate::data::DataConfig,
    /// `auto`'s pick per graph-level data set and batch size (node level needs no data).
    picks: Mutex<std::collections::HashMap<(String, usize), Pick>>,
}

impl Placement {
    /// Checks `--device` and `--gpus` before anything runs: `cuda` must name an existing
    /// GPU and `--gpus` at most the visible ones. A worker program of one's own
    /// ($MAGCL_BENCH_WORKER) given `--gpus G` is trusted to have G GPUs (how the placement
    /// is tested without one).
    fn new(args: &BenchArgs) -> anyhow::Result<Placement> {
        let spec = parse_device_spec(&args.device)?;
        if args.gpus == Some(0) {
            bail!("--gpus must be at least 1 (use --device cpu for no GPU)");
        }
        let own_worker = std::env::var_os("MAGCL_BENCH_WORKER").is_some_and(|w| !w.is_empty());
        let visible = match args.gpus {
            Some(g) if own_worker => {
                if let DeviceSpec::Cuda(Some(i)) = spec {
                    if i >= g {
                        bail!("--device {}: only {g} GPU(s) (--gpus {g})", args.device);
                    }
                }
                g
            }
            _ => {
                if matches!(spec, DeviceSpec::Cuda(_)) {
                    crate::experiment::run::resolve_device(&args.device)
                        .with_context(|| format!("--device {}", args.device))?;
                }
                if tch::Cuda::is_available() {
                    tch::Cuda::device_count().max(0) as usize
                } else {
                    0
                }
            }
        };
        if let Some(g) = args.gpus {
            if g > visible {
                bail!(
                    "--gpus {g}: only {visible} GPU(s) are visible{}",
                    if visible == 0 {
                        " (no GPU, or a CPU-only libtorch)"
                    } else {
                        ""
                    }
                );
            }
        }
        let gpus = match spec {
            DeviceSpec::Cuda(None) | DeviceSpec::Auto => args.gpus.unwrap_or(visible),
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
    fn device_for(&self, slot: usize, cell: &Cell) -> Result<String, String> {
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

    fn pick(&self, cfg: &RunConfig) -> Result<Pick, String> {
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

enum Outcome {
    Done(Box<ResultRow>, f64),
    Failed(String),
}

fn run_pool(
    todo: &[Cell],
    file: &ResultsFile,
    worker: &Path,
    tmp: &Path,
    jobs: usize,
    placement: &Placement,
) -> anyhow::Result<(usize, usize)> {
    let queue: Mutex<VecDeque<&Cell>> = Mutex::new(todo.iter().collect());
    let (tx, rx) = mpsc::channel::<(&Cell, Outcome)>();
    let bar = progress_bar(todo.len() as u64);
    let start = Instant::now();
    let mut ok = 0usize;
    let mut failed = 0usize;
    let mut write_error: Option<anyhow::Error> = None;
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
                    Ok(device) => run_cell(cell, worker, tmp, &device),
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
                        write_error = Some(anyhow::anyhow!("{e}"));
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

fn fmt_secs(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// Runs `magcl train --config CFG --json --quiet --threads T --device D [extra]` with the
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
        .arg("--threads")
        .arg(threads.to_string())
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
/// Runs one cell with its own thread count (`cell.config.threads`).
fn run_cell(cell: &Cell, worker: &Path, tmp: &Path, device: &str) -> Outcome {
    let threads = cell.config.threads.max(1);
    let (record, secs) = match run_worker(&cell.config, worker, tmp, threads, device, &[]) {
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
    row.evaluator = cell.config.evaluator.clone();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_timestamps_by_hand() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(1_795_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(utc_timestamp(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    #[test]
    fn the_manifest_sits_beside_the_result_file() {
        assert_eq!(
            manifest_path(Path::new("results/x/rows.csv")),
            Path::new("results/x/rows.csv.manifest.jsonl")
        );
    }
}
