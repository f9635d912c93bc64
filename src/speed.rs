//! `magcl bench-speed`: seconds per training epoch, one full evaluation and peak memory
//! per method × dataset, each case in its own process, appended to a CSV.
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use serde::Serialize;

use super::train::parse_set;
use crate::experiment::config::{MethodName, RunConfig, RunSpec};
use crate::experiment::device::DeviceSpec;
use crate::experiment::pool::{run_worker, worker_program};

/// The arguments of `magcl bench-speed`; its help text is in the command table
/// ([`magcl_cli::commands`]).
#[derive(Args, Debug)]
pub struct SpeedArgs {
    /// METHOD:DATASET pairs.
    #[arg(required = true, value_name = "CASE")]
    pub cases: Vec<String>,
    /// Epochs timed after the warm-up.
    #[arg(long, default_value_t = 5)]
    pub epochs: usize,
    /// Warm-up epochs (not timed).
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Also time one full evaluation (graph: the nested-CV SVM; node: logreg + k-means).
    #[arg(long)]
    pub eval: bool,
    /// Turn model augmentation on (all three tricks).
    #[arg(long)]
    pub ma: bool,
    /// Node level: code | paper.
    #[arg(long)]
    pub preset: Option<String>,
    /// Any config override, as in `magcl train --set`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// auto | cpu | cuda | cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: DeviceSpec,
    /// CPU threads per case [default: what `magcl train` picks: 1 for graph-level cases
    /// (their two branches on two threads where two cores are usable), all cores for
    /// node-level ones].
    #[arg(long)]
    pub threads: Option<usize>,
    /// CSV to append to (speed rows are measurements of the code, not experiment results:
    /// they live under benchmarks/, see benchmarks/speed/README.md).
    #[arg(long, default_value = "benchmarks/speed/speed.csv")]
    pub out: PathBuf,
}

/// One measured case.
#[derive(Serialize, Debug)]
pub struct SpeedRow {
    pub method: String,
    pub dataset: String,
    pub ma: String,
    pub device: String,
    pub threads: usize,
    pub epochs_timed: usize,
    pub sec_per_epoch_median: f64,
    pub sec_per_epoch_min: f64,
    pub sec_per_epoch_max: f64,
    /// One full evaluation, seconds (empty without --eval).
    pub eval_seconds: Option<f64>,
    pub peak_rss_mb: f64,
    pub accuracy: Option<f64>,
    pub machine: String,
    pub cores: usize,
    pub git_commit: String,
    pub timestamp: u64,
}

/// The machine of a row: the CPU model, and for a CUDA run also the GPU's name as
/// `nvidia-smi` reports it (so that rows from different GPU models are told apart).
fn machine_for(device: &str) -> String {
    let cpu = crate::runtime::machine();
    let Some(index) = device.strip_prefix("cuda") else {
        return cpu;
    };
    let index = index.trim_start_matches(':');
    let index = if index.is_empty() { "0" } else { index };
    let gpu = std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=name", "--format=csv,noheader", "-i", index])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty());
    match gpu {
        Some(g) => format!("{cpu} + {g}"),
        None => format!("{cpu} + unknown GPU"),
    }
}

fn config_for(case: &str, a: &SpeedArgs) -> anyhow::Result<RunConfig> {
    let (m, d) = case
        .split_once(':')
        .with_context(|| format!("case '{case}': expected METHOD:DATASET, e.g. graphcl:MUTAG"))?;
    let mut o = serde_json::Map::new();
    o.insert("epochs".into(), (a.warmup + a.epochs).into());
    if a.ma {
        o.insert("ma".into(), serde_json::json!({"enabled": true}));
    }
    for s in &a.set {
        let (path, v) = parse_set(s)?;
        let mut map = &mut o;
        for k in &path[..path.len() - 1] {
            let e = map
                .entry(k.clone())
                .or_insert_with(|| serde_json::Value::Object(Default::default()));
            map = e
                .as_object_mut()
                .with_context(|| format!("--set {s}: {k} is not a table"))?;
        }
        map.insert(path[path.len() - 1].clone(), v);
    }
    let spec = RunSpec {
        method: Some(MethodName::parse(m)?),
        dataset: d.to_string(),
        seed: 0,
        preset: a.preset.clone(),
        overrides: o,
    };
    Ok(RunConfig::resolve(&spec)?)
}

pub fn run(a: SpeedArgs) -> anyhow::Result<()> {
    if a.epochs == 0 {
        anyhow::bail!("--epochs must be at least 1");
    }
    let configs: Vec<(String, RunConfig)> = a
        .cases
        .iter()
        .map(|c| config_for(c, &a).map(|cfg| (c.clone(), cfg)))
        .collect::<anyhow::Result<_>>()?;
    let worker = worker_program()?;
    let tmp = tempfile::tempdir().context("cannot create a temporary folder")?;
    let cores = crate::runtime::usable_cores();
    crate::train::check_threads(a.threads)?;
    // without --threads each case runs as `magcl train` would: its default thread count
    // (0 passes none to the worker)
    let threads = a.threads.unwrap_or(0);
    if let Some(dir) = a.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let new_file = !a.out.exists();
    let file = crate::files::open_regular(
        &a.out,
        std::fs::OpenOptions::new().create(true).append(true),
        "a speed CSV",
    )?;
    let mut w = csv::WriterBuilder::new()
        .has_headers(new_file)
        .from_writer(file);
    let extra: Vec<&str> = if a.eval { vec![] } else { vec!["--no-eval"] };
    outln!(
        "{:<10} {:<16} {:<8} {:>8} {:>12} {:>10} {:>10} {:>9}",
        "method",
        "dataset",
        "device",
        "threads",
        "s/epoch",
        "min",
        "eval s",
        "peak MB"
    );
    for (case, cfg) in &configs {
        let (rec, _) = run_worker(
            cfg,
            &worker,
            tmp.path(),
            threads,
            &a.device.to_string(),
            &extra,
        )
        .map_err(|e| anyhow::anyhow!("{case}: {e}"))?;
        let o = &rec.outcome;
        let timed: Vec<f64> = o.epoch_seconds.iter().skip(a.warmup).copied().collect();
        let min = timed.iter().copied().fold(f64::INFINITY, f64::min);
        let max = timed.iter().copied().fold(0.0, f64::max);
        let row = SpeedRow {
            method: rec.method.clone(),
            dataset: rec.dataset.clone(),
            ma: rec.ma.clone(),
            device: o.device.clone(),
            threads: o.threads,
            epochs_timed: timed.len(),
            sec_per_epoch_median: crate::stats::median(&timed).unwrap_or(f64::NAN),
            sec_per_epoch_min: min,
            sec_per_epoch_max: max,
            eval_seconds: a.eval.then_some(o.eval_seconds),
            peak_rss_mb: o.peak_rss_bytes as f64 / 1e6,
            accuracy: o.evaluated.then_some(o.accuracy),
            machine: machine_for(&o.device),
            cores,
            git_commit: rec.git_commit.clone(),
            timestamp: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        };
        outln!(
            "{:<10} {:<16} {:<8} {:>8} {:>12.4} {:>10.4} {:>10} {:>9.0}",
            row.method,
            row.dataset,
            row.device,
            row.threads,
            row.sec_per_epoch_median,
            row.sec_per_epoch_min,
            row.eval_seconds
                .map(|s| format!("{s:.2}"))
                .unwrap_or_else(|| "-".into()),
            row.peak_rss_mb
        );
        w.serialize(&row)?;
        w.flush()?;
    }
    outln!("rows appended to {}", a.out.display());
    let _ = std::io::stdout().flush();
    Ok(())
}
