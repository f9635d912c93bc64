//! `magcl bench`: run a sweep, one child process per cell, appending one CSV row per
//! finished run.
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;

use crate::experiment::device::DeviceSpec;
use crate::experiment::pool::{
    default_jobs, remove_stale_scratch, run_pool, worker_program, CellCheckpoints, Placement,
};
use crate::experiment::results::{read_rows, ResultsFile};
use crate::experiment::sweep::{parse_shard, shard, Cell, Filter, Sweep};

/// The arguments of `magcl bench`; its help text is in the command table
/// ([`magcl_cli::commands`]).
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The sweep config (TOML; see configs/*.toml for annotated examples).
    pub config: PathBuf,
    /// Result CSV to append to [default: results/NAME/NAME.csv, or
    /// results/NAME/NAME.shard-I-of-N.csv with --shard; NAME is the sweep's name]. An existing file that is not a magcl
    /// result file is refused and left unchanged. Beside it, OUT.manifest.jsonl records
    /// each run (command, commit, machine, date); when OUT is in a folder of its own,
    /// results/EXPERIMENT/, the sweep config is also copied there under its own name,
    /// SWEEP.toml (SWEEP.2.toml, … when an earlier run's copy differs).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Cells run in parallel [default: as many as fit in available memory (a per-cell
    /// estimate from the dataset) and cores].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Threads per worker [default: max(1, cores / jobs)].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Continue a sweep: skip cells whose config hash is already in --out, repair a
    /// truncated last line left by a killed run, and continue each cell that was killed
    /// mid-training from its checkpoint (see --checkpoint-every-secs).
    #[arg(long)]
    pub resume: bool,
    /// Each cell saves its training state every S seconds to OUT.checkpoints/HASH.ckpt
    /// beside the result file (HASH: the cell's config hash; removed when its row is
    /// written), so that `--resume` continues a cell killed mid-training from its last
    /// save, with the numbers of an uninterrupted run. Without --resume old checkpoints of
    /// the cells are deleted first. CPU and GPU cells alike (docs/reliability.md,
    /// "Checkpoints").
    #[arg(long, value_name = "S", default_value_t = magcl_torch::experiment::checkpoint::DEFAULT_EVERY_SECS,
          value_parser = crate::train::non_negative_secs)]
    pub checkpoint_every_secs: f64,
    /// No checkpoints: a killed cell starts again from its first epoch.
    #[arg(long)]
    pub no_checkpoints: bool,
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
    pub device: DeviceSpec,
    /// GPUs to spread the workers over: the first G visible ones [default: all visible].
    #[arg(long, value_name = "G")]
    pub gpus: Option<usize>,
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    // Options are checked before anything is read or created.
    if args.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    crate::train::check_threads(args.threads)?;
    let placement = Placement::new(args.device, args.gpus)?;
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
    let cores = crate::runtime::usable_cores();
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
        // One folder per experiment: rows, manifest and the sweep's config side by side.
        Path::new("results").join(&sweep.name).join(name)
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

    let data_sources = resolve_datasets(&cells)?;
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
    let checkpoints = (!args.no_checkpoints).then(|| CellCheckpoints {
        dir: CellCheckpoints::dir_for(&out),
        every_secs: args.checkpoint_every_secs,
    });
    if let Some(c) = &checkpoints {
        prepare_checkpoints(c, &todo, args.resume)?;
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

    write_manifest(&out, &args, todo.len(), jobs, threads, &data_sources)?;
    remove_stale_scratch(&std::env::temp_dir());
    let tmp = std::env::temp_dir().join(format!("magcl-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    if placement.gpus > 0 {
        eprintln!(
            "workers on {} GPU(s) ({}), round-robin by worker slot",
            placement.gpus, args.device
        );
    }
    let result = run_pool(
        &todo,
        &file,
        &worker,
        &tmp,
        jobs,
        &placement,
        checkpoints.as_ref(),
    );
    if let Some(c) = &checkpoints {
        // an empty folder goes (one with the checkpoints of failed cells stays)
        let _ = std::fs::remove_dir(&c.dir);
    }
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

/// Readies the checkpoint folder for `todo`: with `resume`, reports the cells that will
/// continue from a checkpoint; without, deletes the cells' old checkpoints (a fresh run
/// uses nothing from before). The result file is locked by then, so no other bench on the
/// same file uses the folder.
fn prepare_checkpoints(c: &CellCheckpoints, todo: &[Cell], resume: bool) -> anyhow::Result<()> {
    let mut found = 0;
    for cell in todo {
        let p = c.path(cell);
        if p.exists() {
            if resume {
                found += 1;
            } else {
                std::fs::remove_file(&p)
                    .with_context(|| format!("cannot remove the old checkpoint {}", p.display()))?;
            }
        }
    }
    if found > 0 {
        eprintln!(
            "{found} cell(s) continue from their checkpoints in {}",
            c.dir.display()
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
    data_sources: &std::collections::BTreeMap<String, String>,
) -> anyhow::Result<()> {
    use sha2::Digest;
    use std::io::Write;
    let config_bytes = std::fs::read(&args.config).ok();
    let config_sha256 = config_bytes
        .as_ref()
        .map(|b| crate::data::checksums::hex(&sha2::Sha256::digest(b)))
        .unwrap_or_default();
    let copy = match &config_bytes {
        Some(bytes) => keep_sweep_config(out, &args.config, bytes)?,
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
        "git_commit": magcl_torch::GIT_COMMIT,
        "magcl_version": env!("CARGO_PKG_VERSION"),
        "machine": crate::runtime::machine(),
        "cores": crate::runtime::usable_cores(),
        "device": args.device.to_string(),
        "gpus": args.gpus,
        "jobs": jobs,
        "threads": threads,
        "cells_to_run": cells,
        "sweep_config": args.config.display().to_string(),
        "sweep_config_sha256": config_sha256,
        "env": env,
        "data_sources": data_sources,
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
fn experiment_dir(out: &Path) -> Option<PathBuf> {
    let dir = out.parent().filter(|d| !d.as_os_str().is_empty())?;
    // Resolved for the check only (`--out rows.csv` run inside results/EXP/ counts too);
    // the copy goes where the user named the folder.
    let resolved = dir.canonicalize().ok()?;
    (resolved.parent()?.file_name()? == "results").then(|| dir.to_path_buf())
}

/// Copies the sweep config into the experiment's folder under its own file name
/// (`results/EXP/SWEEP.toml`; usually SWEEP = EXP, and a folder that gathers several
/// sweeps keeps each config by its name) so the folder holds what made its rows. An
/// existing copy with the same bytes is left alone; one with other bytes is kept too
/// (earlier runs used it), and this run's config goes to the first `SWEEP.N.toml` (N = 2,
/// 3, …) that is absent or holds the same bytes, named in the returned note.
fn keep_sweep_config(
    out: &Path,
    config_path: &Path,
    config: &[u8],
) -> anyhow::Result<Option<ConfigCopy>> {
    let Some(dir) = experiment_dir(out) else {
        return Ok(None);
    };
    let name = config_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "sweep".into());
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
/// resolved then. Returns which copy of each dataset the cells will read (`PATH
/// sha256:HEX`, for the manifest), where it is read from files.
fn resolve_datasets(cells: &[Cell]) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    let mut sources = std::collections::BTreeMap::new();
    if std::env::var_os("MAGCL_BENCH_WORKER").is_some() {
        return Ok(sources);
    }
    let cfg = crate::data::DataConfig::from_env();
    let mut names: Vec<&str> = cells.iter().map(|c| c.config.dataset.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut missing = Vec::new();
    for name in names {
        let trimmed = name.trim();
        let result = if trimmed.starts_with("tu:") || trimmed.starts_with("dgcnn:") {
            crate::data::source::load_graph_dataset_traced(name, &cfg).map(|(_, s)| s)
        } else if trimmed.starts_with("npz:") {
            crate::data::load_node_dataset(name, &cfg)
                .and_then(|_| crate::data::source::node_source(name, &cfg))
        } else {
            match crate::data::registry::find(name) {
                Some(d) => crate::data::source::known_source(&d, &cfg),
                // synthetic-node:... and other generated names need no files.
                None => Ok(None),
            }
        };
        match result {
            Ok(Some(s)) => {
                sources.insert(name.to_string(), s.label());
            }
            Ok(None) => {}
            Err(e) => missing.push(format!("  {name}: {e}")),
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
    Ok(sources)
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
