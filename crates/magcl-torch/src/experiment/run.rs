//! Running one [`RunConfig`] end to end: load data, train, evaluate.
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::time::Instant;

use tch::Device;

use super::checkpoint::{self, CheckpointOptions, Checkpointer, Identity};
use super::config::{NodeParams, RunConfig, Task};
use crate::data::{self, DataConfig};
use crate::error::{Error, Result};
use crate::eval::evaluator::{Evaluator as _, GridSearchCv, HostMatrix};
use crate::eval::protocol::{KFold, Protocol, StratifiedKFold, WithValidation};
use crate::eval::{self, Evaluator};
use crate::eval_node::{node_protocol, NodeLogReg, PROBE_STEPS};
use crate::graph::GraphView;
use crate::methods::{Embeddings, Method, Selection, TrainData};
use crate::rng;
use crate::train::graph::{GraphData, TrainPlan};
use crate::train::node::{l2_normalize_rows, BestTest};
use crate::train::state::{EpochHook, Resume, StateVisitor};
use crate::train::TrainLog;

/// How to run (not part of the config: does not change the numbers).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `auto` (the default: chosen per run, [`super::device::auto_pick`]), `cpu` or
    /// `cuda` / `cuda:N`.
    pub device: super::device::DeviceSpec,
    /// Show a progress bar on stderr (only when stderr is a terminal).
    pub progress: bool,
    /// Write the evaluation embeddings here (`.npy`), with labels beside (`*.labels.npy`).
    pub save_embeddings: Option<PathBuf>,
    /// Train only (for timing): no evaluation, `accuracy` stays 0 and `evaluated` false.
    pub skip_eval: bool,
    /// The rayon pool of the graph-level evaluation (the SVMs' folds and grid); `None`:
    /// the global pool. Its size changes no result, only the time. Make it when the
    /// process starts: a pool made after training evaluated GraphCL MUTAG's embeddings
    /// 3–5 ms (10–15%) slower at its first use than one made before
    /// (benchmarks-history:benchmarks/history/thread_defaults/README.md, session 9).
    pub eval_pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// Save the training state at epoch boundaries and resume from it (docs/reliability.md,
    /// "Checkpoints"); the file is removed once the run has its outcome.
    pub checkpoint: Option<CheckpointOptions>,
}

/// What a run produced.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct RunOutcome {
    /// Whether the embeddings were evaluated (false for `train --no-eval`).
    pub evaluated: bool,
    /// Test accuracy in percent (graph level: mean over the outer folds).
    pub accuracy: f64,
    /// Sample standard deviation (ddof 1) over the outer folds (graph level).
    pub accuracy_std_folds: Option<f64>,
    pub fold_accuracies: Vec<f64>,
    /// Validation accuracy (percent) where the protocol has one.
    pub val_accuracy: Option<f64>,
    /// Clustering NMI (node level; median over the k-means restarts).
    pub nmi: Option<f64>,
    /// The epoch whose embeddings were evaluated when chosen: by validation (AD-GCL), or
    /// by test accuracy (node level with `node.best_test_every`: optimistic).
    pub selected_epoch: Option<usize>,
    /// Training epochs (more than the config's with `pretrain.match_steps`).
    pub epochs: usize,
    /// Graph level, methods that train: how many graphs the encoder trained on (all of
    /// them, or `pretrain.graphs`) and its gradient steps. Absent from the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_graphs: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_steps: Option<u64>,
    pub train_seconds: f64,
    pub eval_seconds: f64,
    /// Wall-clock seconds of each training epoch.
    pub epoch_seconds: Vec<f64>,
    /// Mean training loss of each epoch.
    pub epoch_losses: Vec<f64>,
    /// Peak resident memory of the process, in bytes.
    pub peak_rss_bytes: u64,
    /// The device that ran the training, e.g. `cpu` or `cuda:0`.
    pub device: String,
    /// Intra-op threads libtorch used.
    pub threads: usize,
    /// Things about the run a reader of its accuracy should know (see
    /// [`dominant_dimension`]); absent from the JSON when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Which copy of the dataset was read (path and sha256; see docs/datasets.md), where
    /// it was read from files. Not part of the config or its hash: two copies of the same
    /// graphs give the same run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_source: Option<data::source::DataSource>,
}

/// How many times the median dimension's standard deviation one embedding dimension may
/// reach before it is reported. In the 50 SimGRACE CPU runs of
/// `benchmarks-history:benchmarks/history/accuracy/simgrace_cpu_fused_adam.csv` the ratio stayed below 30 in
/// every run of ordinary accuracy (below 10 in most), and was 2771 and 25499 in the two
/// that lost 4–10 points; the NCI1 run that lost 5 points in `simgrace_cpu_fused_layer.csv`
/// had 69.
pub const DOMINANCE_RATIO: f64 = 50.0;

/// A warning when one dimension of the `n × d` embeddings has a standard deviation above
/// [`DOMINANCE_RATIO`] × the median dimension's: such a dimension dominates every
/// distance (an RBF SVM with `gamma = 'scale'` then sees little else), which is how
/// SimGRACE's rare exploding batch-norm channel turns a run into chance-level accuracy.
pub fn dominant_dimension(emb: &[f32], n: usize, d: usize) -> Option<String> {
    if n < 2 || d < 2 || emb.len() != n * d {
        return None;
    }
    let std = dimension_stds(emb, n, d);
    let med = crate::stats::median(&std).unwrap_or(f64::NAN);
    let (j, top) = std
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    (med > 0.0 && top > DOMINANCE_RATIO * med).then(|| {
        format!(
            "embedding dimension {j} has std {top:.1}, {:.0}x the median dimension's {med:.2}: \
             it dominates distance-based evaluation (svc-rbf's gamma = 'scale'); a batch-norm \
             channel that was almost always zero in training is the usual cause",
            top / med
        )
    })
}

/// The population standard deviation of each of the `d` dimensions of the row-major
/// `n × d` embeddings.
pub fn dimension_stds(emb: &[f32], n: usize, d: usize) -> Vec<f64> {
    let mut sum = vec![0.0f64; d];
    let mut sq = vec![0.0f64; d];
    for row in emb.chunks_exact(d) {
        for (j, &x) in row.iter().enumerate() {
            sum[j] += x as f64;
            sq[j] += x as f64 * x as f64;
        }
    }
    (0..d)
        .map(|j| {
            let mean = sum[j] / n as f64;
            (sq[j] / n as f64 - mean * mean).max(0.0).sqrt()
        })
        .collect()
}

/// The device of one run: `auto` picks per run where a GPU is present ([`auto_pick_for`]);
/// any other value is [`device_of`]'s.
///
/// [`auto_pick_for`]: super::device::auto_pick_for
pub fn resolve_device_for(
    spec: super::device::DeviceSpec,
    cfg: &RunConfig,
    data_cfg: &DataConfig,
) -> Result<Device> {
    use super::device::{auto_pick_for, DeviceSpec, Pick};
    if spec == DeviceSpec::Auto && tch::Cuda::is_available() {
        return Ok(match auto_pick_for(cfg, data_cfg)? {
            Pick::Gpu => Device::Cuda(0),
            Pick::Cpu => Device::Cpu,
        });
    }
    device_of(spec)
}

/// The device of a parsed `--device`: `auto` is CUDA where available, whatever the run
/// ([`resolve_device_for`] decides per run). `cuda` without a usable GPU is an error.
pub fn device_of(spec: super::device::DeviceSpec) -> Result<Device> {
    use super::device::DeviceSpec;
    let idx = match spec {
        DeviceSpec::Auto => return Ok(Device::cuda_if_available()),
        DeviceSpec::Cpu => return Ok(Device::Cpu),
        DeviceSpec::Cuda(i) => i.unwrap_or(0),
    };
    if !tch::Cuda::is_available() {
        return Err(Error::Config(format!(
            "device '{spec}' requested but CUDA is not available (no GPU, or a CPU-only libtorch)"
        )));
    }
    if idx >= tch::Cuda::device_count() as usize {
        return Err(Error::Config(format!(
            "device '{spec}' requested but only {} CUDA device(s) exist",
            tch::Cuda::device_count()
        )));
    }
    Ok(Device::Cuda(idx))
}

pub fn device_name(d: Device) -> String {
    match d {
        Device::Cpu => "cpu".into(),
        Device::Cuda(i) => format!("cuda:{i}"),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// Peak resident set size of this process, in bytes; 0 where unknown.
pub use crate::files::peak_rss_bytes;

/// [`run`], with a panic on the way (the tensor library panics where an operation fails,
/// e.g. an allocation larger than the memory) turned into an error that names it.
pub fn run_catching_panics(cfg: &RunConfig, opts: &RunOptions) -> Result<RunOutcome> {
    use std::sync::{Arc, Mutex};
    let place: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&place);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut p) = seen.lock() {
            if p.is_none() {
                *p = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
            }
        }
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cfg, opts)));
    std::panic::set_hook(previous);
    result.unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown failure".into());
        // The first line, also of an error quoted with escaped newlines (libtorch's
        // messages carry a C++ backtrace after the first line).
        let first = msg
            .split("\\n")
            .next()
            .and_then(|l| l.lines().next())
            .unwrap_or("")
            .trim()
            .to_string();
        let at = place
            .lock()
            .ok()
            .and_then(|p| p.clone())
            .map(|l| format!(" (at {l})"))
            .unwrap_or_default();
        let hint = if msg.contains("memory") || msg.contains("alloc") {
            "; the model or batch does not fit in memory: try a smaller hidden, layers or batch_size"
        } else {
            ""
        };
        Err(Error::Numeric(format!(
            "the run failed inside the tensor code: {first}{at}{hint}"
        )))
    })
}

/// Runs `cfg`: the single entry point used by `magcl train` and by every bench cell.
pub fn run(cfg: &RunConfig, opts: &RunOptions) -> Result<RunOutcome> {
    cfg.validate()?;
    let data_cfg = DataConfig::from_env();
    let device = resolve_device_for(opts.device, cfg, &data_cfg)?;
    rng::seed_torch(cfg.seed);
    let mut out = match cfg.task {
        Task::Graph => run_graph(cfg, opts, device, &data_cfg)?,
        Task::Node => run_node(cfg, opts, device, &data_cfg)?,
    };
    if let Some(c) = &opts.checkpoint {
        checkpoint::remove(&c.path)?;
    }
    out.device = device_name(device);
    out.threads = tch::get_num_threads().max(1) as usize;
    out.peak_rss_bytes = peak_rss_bytes();
    Ok(out)
}

/// The dataset's graphs with the configured node features attached.
pub fn graph_data(cfg: &RunConfig, data_cfg: &DataConfig) -> Result<GraphData> {
    graph_data_traced(cfg, data_cfg, false).map(|(d, _)| d)
}

/// [`graph_data`], with the copy read where `trace` asks for it.
fn graph_data_traced(
    cfg: &RunConfig,
    data_cfg: &DataConfig,
    trace: bool,
) -> Result<(GraphData, Option<data::source::DataSource>)> {
    let (ds, src) = match trace {
        true => data::source::load_graph_dataset_traced(&cfg.dataset, data_cfg)?,
        false => (data::load_graph_dataset(&cfg.dataset, data_cfg)?, None),
    };
    // A method's config word (`graphcl`) stands for the rule it declares (`auto`).
    let feats = data::features::spec_features(&ds, cfg.features.spec())?;
    let labels = ds.labels();
    let views = ds
        .graphs
        .into_iter()
        .zip(feats.x)
        .map(|(g, x)| GraphView {
            num_nodes: g.num_nodes,
            edges: g.edges,
            x,
        })
        .collect();
    Ok((
        GraphData {
            views,
            labels,
            dim: feats.dim,
        },
        src,
    ))
}

fn evaluator(cfg: &RunConfig) -> Result<Evaluator> {
    Ok(cfg.evaluator)
}

/// The graph-level protocol and evaluator: with validation-chosen epochs (AD-GCL),
/// `KFold(10)` with 20 % of each training part for validation and standardised features;
/// otherwise stratified 10-fold with the classifier's own scaling (GraphCL, SimGRACE).
fn graph_evaluation(
    cfg: &RunConfig,
    by_validation: bool,
) -> Result<(Box<dyn Protocol>, GridSearchCv)> {
    let ev = evaluator(cfg)?;
    Ok(if by_validation {
        (
            Box::new(WithValidation {
                outer: KFold {
                    k: eval::OUTER_FOLDS,
                },
                fraction: eval::VAL_FRACTION,
            }),
            GridSearchCv::standardized(ev),
        )
    } else {
        (
            Box::new(StratifiedKFold {
                k: eval::OUTER_FOLDS,
            }),
            GridSearchCv::new(ev),
        )
    })
}

fn save_embeddings(
    path: &std::path::Path,
    x: &[f32],
    n: usize,
    d: usize,
    labels: &[u32],
) -> Result<()> {
    // Written as a pair: new embeddings never sit beside old labels.
    let emb = eval::npy::f32_matrix_bytes(x, n, d)?;
    let lp = labels_path(path);
    let y: Vec<i64> = labels.iter().map(|&l| l as i64).collect();
    crate::files::write_pair_atomic((path, &emb), (&lp, &eval::npy::i64_vector_bytes(&y)))?;
    Ok(())
}

/// The embeddings as a dense matrix to save; sparse count rows are formed into one up
/// to [`MAX_SAVED_VALUES`] values (WL features of a large set are far wider).
fn dense_for_saving(e: &Embeddings) -> Result<Vec<f32>> {
    if e.sparse.is_some() && e.rows.saturating_mul(e.dim) > MAX_SAVED_VALUES {
        return Err(Error::Config(format!(
            "--save-embeddings: these count features are {} × {}, too wide to save as a dense \
             matrix (at most {MAX_SAVED_VALUES} values); lower wl.iterations",
            e.rows, e.dim
        )));
    }
    Ok(e.to_dense())
}

/// The largest dense matrix `dense_for_saving` forms from sparse rows (1 GB of f32).
pub const MAX_SAVED_VALUES: usize = 250_000_000;

/// `X.npy` → `X.labels.npy`.
pub fn labels_path(path: &std::path::Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    path.with_file_name(format!("{stem}.labels.npy"))
}

fn run_graph(
    cfg: &RunConfig,
    opts: &RunOptions,
    device: Device,
    data_cfg: &DataConfig,
) -> Result<RunOutcome> {
    let (data, data_source) = graph_data_traced(cfg, data_cfg, true)?;
    let params = cfg.method_params()?;
    let entry = cfg.method.entry()?;
    let n = data.views.len();
    // What the training loop will run (the pre-training subset, refused here, before
    // anything is built, where it is larger than the dataset); the evaluation below sees
    // every graph whatever the subset.
    let plan = TrainPlan::new(n, cfg.epochs, cfg.batch_size, cfg.seed, &cfg.pretrain)?;
    let epochs = plan.epochs;
    let t0 = Instant::now();
    let mut m = (entry.build)(&params, TrainData::Graphs(&data), device, opts.progress)?;
    let eval_seconds = Cell::new(0.0);
    // Selection::Validation (AD-GCL): evaluate every `every` epochs (and after the last)
    // with the validation protocol ([`TrainPlan::checks_after`]); keep the epoch with the
    // best mean validation accuracy (first on ties).
    let every = match m.selection() {
        Selection::Validation { every } if !opts.skip_eval => every.max(1),
        _ => 0,
    };
    let (protocol, classifier) = graph_evaluation(cfg, every > 0)?;
    let score_on = |e: &Embeddings| -> Result<eval::CvResult> {
        Ok(match &e.sparse {
            // the graph-kernel baselines' count vectors
            Some(s) => eval::run_protocol_sparse(&protocol, &classifier, s, &data.labels, cfg.seed)
                .map_err(|err| Error::Config(format!("{}: {err}", cfg.method.as_str())))?,
            None => eval::run_protocol(
                &protocol,
                &classifier,
                HostMatrix::new(&e.x, n, e.dim),
                &data.labels,
                cfg.seed,
            )?,
        })
    };
    let score = |e: &Embeddings| -> Result<eval::CvResult> {
        match &opts.eval_pool {
            Some(pool) => pool.install(|| score_on(e)),
            None => score_on(e),
        }
    };
    let best: RefCell<Option<(f64, usize, Embeddings, eval::CvResult)>> = RefCell::new(None);
    // what the run carries across epochs besides the method: the validation-chosen epoch
    let mut run_state = |v: &mut StateVisitor| -> Result<()> {
        visit_scored(v, &mut best.borrow_mut())?;
        visit_cell(v, "run/eval_seconds", &eval_seconds)
    };
    let (resume, mut hook, seconds_before) =
        start_training(cfg, opts, device, &mut *m, t0, &mut run_state)?;
    let log = train_resumable(
        &mut *m,
        cfg.epochs,
        resume,
        &mut hook,
        &mut |epoch, model| {
            if every == 0 || !plan.checks_after(epoch, every) {
                return Ok(());
            }
            let te = Instant::now();
            let e = model.embed()?;
            let r = score(&e)?;
            eval_seconds.set(eval_seconds.get() + te.elapsed().as_secs_f64());
            let val = r.val_accuracy.unwrap_or(f64::NEG_INFINITY);
            let mut best = best.borrow_mut();
            if best.as_ref().is_none_or(|b| val > b.0) {
                *best = Some((val, epoch + 1, e, r));
            }
            Ok(())
        },
    )?;
    drop(hook);
    let best = best.into_inner();
    let mut eval_seconds = eval_seconds.get();
    let trained = (!cfg.method.is_baseline()).then_some((plan.graphs, plan.steps));
    if opts.skip_eval {
        // no epoch selection without evaluation: the final encoder
        let out = RunOutcome {
            epochs,
            train_graphs: trained.map(|t| t.0),
            train_steps: trained.map(|t| t.1),
            data_source: data_source.clone(),
            ..train_only(cfg, log, t0, seconds_before)
        };
        if let Some(p) = &opts.save_embeddings {
            let e = m.embed()?;
            save_embeddings(p, &dense_for_saving(&e)?, n, e.dim, &data.labels)?;
        }
        return Ok(out);
    }
    let (emb, result, selected) = if let Some((_, epoch, e, r)) = best {
        (e, r, Some(epoch))
    } else {
        // the final encoder: every method without validation-chosen epochs, and one
        // trained for no epoch (the untrained baseline) under the validation protocol
        let e = m.embed()?;
        let te = Instant::now();
        let r = score(&e)?;
        eval_seconds += te.elapsed().as_secs_f64();
        (e, r, None)
    };
    let train_seconds = seconds_before + t0.elapsed().as_secs_f64() - eval_seconds;
    let d = emb.dim;
    if let Some(p) = &opts.save_embeddings {
        save_embeddings(p, &dense_for_saving(&emb)?, n, d, &data.labels)?;
    }
    Ok(RunOutcome {
        warnings: dominant_dimension(&emb.x, n, d).into_iter().collect(),
        evaluated: true,
        accuracy: result.accuracy,
        accuracy_std_folds: Some(result.std),
        fold_accuracies: result.fold_accuracies,
        val_accuracy: result.val_accuracy,
        nmi: None,
        selected_epoch: selected,
        epochs,
        train_graphs: trained.map(|t| t.0),
        train_steps: trained.map(|t| t.1),
        train_seconds,
        eval_seconds,
        epoch_seconds: log.epoch_seconds,
        epoch_losses: log.epoch_losses,
        data_source,
        ..Default::default()
    })
}

fn run_node(
    cfg: &RunConfig,
    opts: &RunOptions,
    device: Device,
    data_cfg: &DataConfig,
) -> Result<RunOutcome> {
    let ds = data::load_node_dataset(&cfg.dataset, data_cfg)?;
    let data_source = data::source::node_source(&cfg.dataset, data_cfg)?;
    let node = cfg.sections.require::<NodeParams>(cfg.method.as_str())?;
    // one split, drawn once for every evaluation of the run
    let splits = node_protocol(node.split, &ds)?.splits(&ds.labels, ds.num_nodes, cfg.seed)?;
    let probe = NodeLogReg {
        num_classes: ds.num_classes,
        steps: PROBE_STEPS,
        seed: cfg.seed,
        device,
    };
    // (test accuracy, validation accuracy), percent
    let classify = |e: &Embeddings| -> Result<(f64, f64)> {
        let r = eval::run_on_splits(
            &probe,
            HostMatrix::new(&e.x, e.rows, e.dim),
            &ds.labels,
            &splits,
        )?;
        let val = r.val_accuracy.ok_or_else(|| {
            Error::Numeric(format!("{} gave no validation accuracy", probe.name()))
        })?;
        Ok((r.accuracy, val))
    };
    let t0 = Instant::now();
    let entry = cfg.method.entry()?;
    let mut model = (entry.build)(
        &cfg.method_params()?,
        TrainData::Nodes(&ds),
        device,
        opts.progress,
    )?;
    // Selection::BestTest (node.best_test_every = N): evaluate after every N epochs and
    // keep the best test accuracy (with the final encoder's evaluation below).
    let every = match model.selection() {
        Selection::BestTest { every } if !opts.skip_eval => every,
        _ => 0,
    };
    let best: RefCell<BestTest<Embeddings>> = RefCell::new(BestTest::default());
    let eval_seconds = Cell::new(0.0);
    // what the run carries across epochs besides the model: the best test evaluation
    let mut run_state = |v: &mut StateVisitor| -> Result<()> {
        visit_best_test(v, &mut best.borrow_mut())?;
        visit_cell(v, "run/eval_seconds", &eval_seconds)
    };
    let (resume, mut hook, seconds_before) =
        start_training(cfg, opts, device, &mut *model, t0, &mut run_state)?;
    let log = train_resumable(
        &mut *model,
        cfg.epochs,
        resume,
        &mut hook,
        &mut |epoch, m| {
            if every == 0 || (epoch + 1) % every != 0 || epoch + 1 == cfg.epochs {
                return Ok(());
            }
            let te = Instant::now();
            let e = m.embed()?;
            let (test, val) = classify(&e)?;
            best.borrow_mut().offer(epoch + 1, test, val, e);
            eval_seconds.set(eval_seconds.get() + te.elapsed().as_secs_f64());
            Ok(())
        },
    )?;
    drop(hook);
    let mut best = best.into_inner();
    let eval_seconds = eval_seconds.get();
    let z = model.embed()?;
    if opts.skip_eval {
        let out = RunOutcome {
            data_source: data_source.clone(),
            ..train_only(cfg, log, t0, seconds_before)
        };
        if let Some(p) = &opts.save_embeddings {
            save_embeddings(p, &z.x, z.rows, z.dim, &ds.labels)?;
        }
        return Ok(out);
    }
    let train_seconds = seconds_before + t0.elapsed().as_secs_f64() - eval_seconds;
    let te = Instant::now();
    // clustering NMI of each k-means restart (node.kmeans_l2: on unit-length rows; the
    // saved embeddings stay as they are)
    let cluster = |x: &[f32], n: usize, d: usize| -> Result<Vec<f64>> {
        let unit_rows;
        let x = if node.kmeans_l2 {
            let mut xc = x.to_vec();
            l2_normalize_rows(&mut xc, d);
            unit_rows = xc;
            &unit_rows[..]
        } else {
            x
        };
        Ok(eval::cluster::kmeans_nmi(
            x,
            n,
            d,
            &ds.labels,
            ds.num_classes,
            node.kmeans_restarts.max(1),
            cfg.seed,
        )?)
    };
    // Without epoch selection the final embeddings are the ones both the probe and k-means
    // read: they run as two tasks of the rayon pool, so that k-means' restarts fill the
    // cores the probe (one libtorch thread on the CPU) leaves idle. With one thread in the
    // pool (a sweep's worker) they run one after the other; the numbers are the same.
    let (classified, early_nmis) = if every == 0 {
        let (c, k) = rayon::join(|| classify(&z), || cluster(&z.x, z.rows, z.dim));
        (c?, Some(k?))
    } else {
        (classify(&z)?, None)
    };
    let (accuracy, val) = classified;
    let selected_epoch = if every > 0 {
        best.offer(cfg.epochs, accuracy, val, z.clone());
        best.best.as_ref().map(|b| b.0)
    } else {
        None
    };
    let (accuracy, val, z) = match best.best {
        Some((_, test, val, z)) => (test, val, z),
        None => (accuracy, val, z),
    };
    let (x, n, d) = (z.x, z.rows, z.dim);
    let nmis = match early_nmis {
        Some(nmis) => nmis,
        None => cluster(&x, n, d)?,
    };
    let nmi = crate::stats::median(&nmis).unwrap_or(f64::NAN);
    let eval_seconds = eval_seconds + te.elapsed().as_secs_f64();
    if let Some(p) = &opts.save_embeddings {
        save_embeddings(p, &x, n, d, &ds.labels)?;
    }
    Ok(RunOutcome {
        evaluated: true,
        accuracy,
        val_accuracy: Some(val),
        nmi: Some(nmi),
        selected_epoch,
        epochs: cfg.epochs,
        train_seconds,
        eval_seconds,
        epoch_seconds: log.epoch_seconds,
        epoch_losses: log.epoch_losses,
        data_source,
        ..Default::default()
    })
}

/// The outcome of a run that was trained but not evaluated (`seconds_before`: spent
/// before a resume).
fn train_only(cfg: &RunConfig, log: TrainLog, t0: Instant, seconds_before: f64) -> RunOutcome {
    RunOutcome {
        epochs: cfg.epochs,
        train_seconds: seconds_before + t0.elapsed().as_secs_f64(),
        epoch_seconds: log.epoch_seconds,
        epoch_losses: log.epoch_losses,
        ..Default::default()
    }
}

/// Where training starts: from the first epoch, or, where `opts` has a checkpoint file
/// that exists, from the epoch after its last saved one, with the method's state (`m`)
/// and the run's own carried values (`run_state`) loaded. Returns the start, the hook that
/// saves further checkpoints (none without `opts.checkpoint`, and for a run of no epochs)
/// and the seconds the run spent before.
fn start_training<'r>(
    cfg: &RunConfig,
    opts: &RunOptions,
    device: Device,
    m: &mut dyn Method,
    t0: Instant,
    run_state: &'r mut dyn FnMut(&mut StateVisitor) -> Result<()>,
) -> Result<(Resume<'static>, Option<Checkpointer<'r>>, f64)> {
    let Some(copts) = opts.checkpoint.clone().filter(|_| cfg.epochs > 0) else {
        return Ok((Resume::none(), None, 0.0));
    };
    let id = Identity {
        config_hash: cfg.hash(),
        device,
    };
    let mut resume = Resume::none();
    let mut seconds_before = 0.0;
    // a method whose state cannot be saved, or a device whose random generator cannot be
    // read, is refused before it trains, not at its first save
    m.visit_state(&mut StateVisitor::Save(&mut Default::default()))?;
    rng::torch_device_state(device)?;
    if let Some(saved) = checkpoint::load(&copts.path, &id)? {
        if saved.epochs_done > cfg.epochs {
            return Err(Error::Checkpoint(format!(
                "{}: the checkpoint is after epoch {} of a run of {}",
                copts.path.display(),
                saved.epochs_done,
                cfg.epochs
            )));
        }
        let mut v = StateVisitor::load(&saved.state);
        m.visit_state(&mut v)?;
        let (log, secs) = checkpoint::load_run_state(&mut v, device, run_state)?;
        v.finish()?;
        if log.epoch_losses.len() != saved.epochs_done {
            return Err(Error::Checkpoint(format!(
                "{}: the checkpoint's log has {} epochs, its header {}",
                copts.path.display(),
                log.epoch_losses.len(),
                saved.epochs_done
            )));
        }
        if opts.progress {
            eprintln!(
                "resuming from {} after epoch {} of {}",
                copts.path.display(),
                saved.epochs_done,
                cfg.epochs
            );
        }
        resume = Resume {
            start: saved.epochs_done,
            log,
            step: saved.step,
            hook: None,
        };
        seconds_before = secs;
    }
    let hook = Checkpointer::new(
        copts,
        id,
        cfg.epochs,
        resume.start,
        seconds_before,
        t0,
        run_state,
    );
    Ok((resume, Some(hook), seconds_before))
}

/// [`Method::train_from`] with `resume` and, where there is one, the checkpoint hook.
fn train_resumable(
    m: &mut dyn Method,
    epochs: usize,
    resume: Resume<'static>,
    hook: &mut Option<Checkpointer<'_>>,
    after_epoch: &mut dyn FnMut(usize, &dyn crate::methods::Embed) -> Result<()>,
) -> Result<TrainLog> {
    let resume = Resume {
        start: resume.start,
        log: resume.log,
        step: resume.step,
        hook: hook.as_mut().map(|h| h as &mut dyn EpochHook),
    };
    m.train_from(epochs, after_epoch, resume)
}

/// A number kept in a [`Cell`] as a state entry.
fn visit_cell(v: &mut StateVisitor, name: &str, c: &Cell<f64>) -> Result<()> {
    let mut x = c.get();
    v.f64(name, &mut x)?;
    c.set(x);
    Ok(())
}

/// Dense embeddings as state entries.
fn visit_embeddings(v: &mut StateVisitor, name: &str, e: &mut Embeddings) -> Result<()> {
    if e.sparse.is_some() {
        return Err(Error::Config(
            "internal: sparse embeddings are never kept across epochs".into(),
        ));
    }
    v.values(&format!("{name}/x"), &mut e.x)?;
    let mut shape = vec![e.rows, e.dim];
    v.usizes(&format!("{name}/shape"), &mut shape)?;
    match shape[..] {
        [rows, dim] if rows * dim == e.x.len() => {
            (e.rows, e.dim) = (rows, dim);
            Ok(())
        }
        _ => Err(Error::Checkpoint(format!(
            "the checkpoint's '{name}' does not hold a matrix"
        ))),
    }
}

/// The validation-chosen epoch so far (AD-GCL): its score, epoch, embeddings and result.
fn visit_scored(
    v: &mut StateVisitor,
    best: &mut Option<(f64, usize, Embeddings, eval::CvResult)>,
) -> Result<()> {
    if !v.present("run/best", best.is_some())? {
        *best = None;
        return Ok(());
    }
    let (mut val, epoch, mut e, mut r) = best.take().unwrap_or_else(|| {
        (
            0.0,
            0,
            Embeddings::dense(Vec::new(), 0, 0),
            eval::CvResult {
                accuracy: 0.0,
                std: 0.0,
                fold_accuracies: Vec::new(),
                fold_val_accuracies: None,
                val_accuracy: None,
                best_c: Vec::new(),
                fold_correct: Vec::new(),
                fold_sizes: Vec::new(),
            },
        )
    });
    v.f64("run/best/val", &mut val)?;
    let mut ep = vec![epoch];
    v.usizes("run/best/epoch", &mut ep)?;
    visit_embeddings(v, "run/best/embeddings", &mut e)?;
    v.f64("run/best/cv/accuracy", &mut r.accuracy)?;
    v.f64("run/best/cv/std", &mut r.std)?;
    v.values("run/best/cv/fold_accuracies", &mut r.fold_accuracies)?;
    if v.present("run/best/cv/fold_val", r.fold_val_accuracies.is_some())? {
        let mut f = r.fold_val_accuracies.take().unwrap_or_default();
        v.values("run/best/cv/fold_val", &mut f)?;
        r.fold_val_accuracies = Some(f);
    }
    if v.present("run/best/cv/val", r.val_accuracy.is_some())? {
        let mut x = r.val_accuracy.unwrap_or_default();
        v.f64("run/best/cv/val", &mut x)?;
        r.val_accuracy = Some(x);
    }
    v.values("run/best/cv/best_c", &mut r.best_c)?;
    v.usizes("run/best/cv/fold_correct", &mut r.fold_correct)?;
    v.usizes("run/best/cv/fold_sizes", &mut r.fold_sizes)?;
    *best = Some((val, ep.first().copied().unwrap_or(0), e, r));
    Ok(())
}

/// The best test evaluation so far (`node.best_test_every`).
fn visit_best_test(v: &mut StateVisitor, best: &mut BestTest<Embeddings>) -> Result<()> {
    if !v.present("run/best", best.best.is_some())? {
        best.best = None;
        return Ok(());
    }
    let (epoch, mut test, mut val, mut e) = best
        .best
        .take()
        .unwrap_or_else(|| (0, 0.0, 0.0, Embeddings::dense(Vec::new(), 0, 0)));
    let mut ep = vec![epoch];
    v.usizes("run/best/epoch", &mut ep)?;
    v.f64("run/best/test", &mut test)?;
    v.f64("run/best/val", &mut val)?;
    visit_embeddings(v, "run/best/embeddings", &mut e)?;
    best.best = Some((ep.first().copied().unwrap_or(0), test, val, e));
    Ok(())
}

/// One finished run as `magcl train --json` prints it and as a bench row stores it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RunRecord {
    pub dataset: String,
    /// The method's name (`adgcl-fixed` for AD-GCL with the fixed augmenter).
    pub method: String,
    /// The MA setting's label (`none` for the baseline).
    pub ma: String,
    pub seed: u64,
    pub config_hash: String,
    pub evaluator: String,
    #[serde(flatten)]
    pub outcome: RunOutcome,
    /// The commit the binary was built from (`-dirty` if the tree had changes).
    pub git_commit: String,
    pub magcl_version: String,
    /// The full resolved configuration.
    pub config: RunConfig,
}

impl RunRecord {
    pub fn new(cfg: &RunConfig, outcome: RunOutcome) -> Self {
        RunRecord {
            dataset: cfg.dataset.clone(),
            method: cfg.method_label(),
            ma: cfg.ma_label(),
            seed: cfg.seed,
            config_hash: cfg.hash(),
            evaluator: cfg.evaluator.to_string(),
            outcome,
            git_commit: env!("MAGCL_GIT_COMMIT").into(),
            magcl_version: env!("CARGO_PKG_VERSION").into(),
            config: cfg.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dominant_dimension_is_reported_and_ordinary_spread_is_not() {
        let (n, d) = (50, 8);
        // column j spreads with std ≈ 1 + j / 4 (largest / median ≈ 1.8)
        let mut emb: Vec<f32> = (0..n * d)
            .map(|k| {
                let (i, j) = (k / d, k % d);
                let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
                sign * (1.0 + j as f32 / 4.0)
            })
            .collect();
        assert_eq!(dominant_dimension(&emb, n, d), None);
        // dimension 5 of two rows explodes
        emb[3 * d + 5] = 4000.0;
        emb[7 * d + 5] = -3500.0;
        let w = dominant_dimension(&emb, n, d).expect("a warning");
        assert!(w.starts_with("embedding dimension 5 has std"), "{w}");
        // degenerate inputs: nothing to compare
        assert_eq!(dominant_dimension(&[1.0, 2.0], 1, 2), None);
        assert_eq!(dominant_dimension(&[0.0; 20], 10, 2), None);
    }
}
