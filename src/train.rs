//! `magcl train`: one method, one dataset, one seed — train, evaluate, print.
use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::experiment::config::{
    Constraints, GinMode, MethodName, ReadingName, RunConfig, RunSpec,
};
use crate::experiment::device::DeviceSpec;
use crate::experiment::run as runner;
use crate::experiment::{RunOptions, RunRecord};
use magcl_config::{Shorthand, ShorthandValue};

/// The arguments of `magcl train`; its help text is in the command table
/// ([`magcl_cli::commands`]).
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The method, by name: every one is shown with an example below. A method's row label
    /// runs it with the settings the label stands for (`adgcl-fixed`: AD-GCL with
    /// `adgcl.augmenter = fixed`).
    #[arg(long, short = 'm')]
    pub method: Option<String>,
    /// The methods' own flags (`--of`, `--eta`, `--augmenter`, …), from their declarations.
    #[command(flatten)]
    pub shorthands: Shorthands,
    /// Dataset name (see `magcl datasets list`), e.g. MUTAG, NCI1, Cora, synthetic.
    #[arg(long, short = 'd')]
    pub dataset: Option<String>,
    /// graph | node — only checked against the method (`base` is the node-level method).
    #[arg(long)]
    pub task: Option<String>,
    /// Run seed: weights, batches, augmentations, MA draws, folds and splits.
    #[arg(long, short = 's', default_value_t = 0)]
    pub seed: u64,
    /// Node level: `code` (the released code) or `paper` (the paper's settings).
    #[arg(long)]
    pub preset: Option<String>,
    /// Turn model augmentation on (all three tricks: asymmetric, random, shuffle).
    #[arg(long)]
    pub ma: bool,
    /// Only these MA tricks, e.g. `AR` or `A,S` (implies --ma); `-` for none of them.
    #[arg(long, alias = "ablation")]
    pub tricks: Option<String>,
    /// How GIN layers read an MA schedule: gin+filter (default) | gin-sum | filter.
    #[arg(long)]
    pub ma_mode: Option<String>,
    /// Range of propagations per layer for view 1 (K), e.g. `0,2`; the upper bound is
    /// drawn unless `ma.ranges = exclusive` (the `code` reading).
    #[arg(long, value_name = "LO,HI")]
    pub ma_view1: Option<String>,
    /// Range of propagations per layer for view 2 (K′), e.g. `0,4` (see --ma-view1).
    #[arg(long, value_name = "LO,HI")]
    pub ma_view2: Option<String>,
    /// A named reading of the paper's open choices: code (the default with --ma) | current
    /// | paper (implies --ma; docs/ma.md).
    #[arg(long)]
    pub reading: Option<ReadingName>,
    /// Enforce Algorithm 1's constraints: both (the flag alone) | sum (ΣK ≠ ΣK′) | layers
    /// (K_i ≠ K′_i) | none.
    #[arg(long, value_name = "WHICH", num_args = 0..=1, default_missing_value = "both")]
    pub constraints: Option<String>,
    /// Draw new MA schedules every `step` or every `epoch`.
    #[arg(long)]
    pub redraw: Option<String>,
    /// Propagations per layer of the evaluation encoder under MA (graph level).
    #[arg(long)]
    pub eval_k: Option<usize>,
    /// Augmentation (graph level): random2 | random3 | random4 | node-drop | edge-drop | mask | subgraph | subgraph-1hop | none.
    #[arg(long)]
    pub aug: Option<String>,
    #[arg(long)]
    pub epochs: Option<usize>,
    #[arg(long, value_parser = finite_f64)]
    pub lr: Option<f64>,
    #[arg(long)]
    pub batch_size: Option<usize>,
    #[arg(long)]
    pub hidden: Option<usize>,
    #[arg(long)]
    pub layers: Option<usize>,
    /// svc-rbf | linear-svc | logreg (graph level; node level: logreg).
    #[arg(long)]
    pub evaluator: Option<magcl_torch::eval::Evaluator>,
    /// Node features (graph level): auto | attributes-else-degree | labels | attributes |
    /// labels+attributes | constant | degree[:N] | labels+degree[:N] (docs/datasets.md). Each
    /// method's preset feeds the rule it declares (docs/methods.md).
    #[arg(long)]
    pub features: Option<magcl_torch::experiment::FeatureSetting>,
    /// Override any config field: `--set loss.temperature=0.5 --set node.edge_drop=[0.3,0.2]`.
    /// Node-level readings (docs/citeseer.md): `node.split=public-swapped`,
    /// `loss.inter_view_negatives=false` (with `loss.intra_view_negatives=true`),
    /// `node.best_test_every=100` (best test accuracy: optimistic), `node.kmeans_l2=true`.
    /// Pre-training subsets (graph level, docs/methods.md): `pretrain.graphs=256` trains on
    /// 256 graphs drawn by the seed and evaluates on all; `pretrain.match_steps=true` beside
    /// it trains for the whole-set run's number of gradient steps.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Run this complete config (JSON, `-` for stdin) instead of building one from flags.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the resolved config and exit.
    #[arg(long)]
    pub print_config: bool,
    /// auto | cpu | cuda | cuda:N. auto: where a GPU exists, the GPU for node-level runs and
    /// for graph-level runs whose training batches hold at least 6 000 nodes on average,
    /// the CPU for smaller ones (faster there: docs/performance.md, "CPU or GPU").
    #[arg(long, default_value = "auto")]
    pub device: DeviceSpec,
    /// CPU threads of libtorch and the data pipeline (and, when given, of the evaluation);
    /// default: 1 for graph-level runs (small batches: faster, and unhurt by a busy core),
    /// their step's two branches (GraphCL's views, SimGRACE's clean and perturbed passes)
    /// on two threads where two cores are usable (same numbers as one after the other) and
    /// their evaluation on all cores; all cores for node-level runs, whose evaluation runs
    /// its logistic-regression probe on one libtorch thread (at any count) beside k-means on
    /// the other cores. A given count runs the branches one after the other. At most 256
    /// (or the number of cores, where larger). The count is recorded in the run's config.
    /// Waiting threads poll briefly, then sleep (GOMP_SPINCOUNT=10000, so that a busy
    /// machine costs a share of the CPU, not minutes) unless GOMP_SPINCOUNT or
    /// OMP_WAIT_POLICY is set: see docs/performance.md.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the evaluation embeddings to FILE.npy (float32, n × d) and the labels to
    /// FILE.labels.npy, as a pair: both or neither are replaced (docs/reliability.md).
    #[arg(long, value_name = "FILE.npy")]
    pub save_embeddings: Option<PathBuf>,
    /// Train only, no evaluation (for timing; `accuracy` is then 0 and `evaluated` false).
    #[arg(long)]
    pub no_eval: bool,
    /// Print one JSON object (the run record) on stdout instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Save the training state to FILE at epoch boundaries (weights, optimiser moments,
    /// whatever the method carries from one epoch to the next), atomically; when FILE
    /// exists at the start, continue after its last saved epoch. A killed run so resumed
    /// ends with the numbers of an uninterrupted one. FILE must belong to this config (its
    /// hash) and device kind (CPU or GPU); it is removed once the run has its outcome
    /// (docs/reliability.md, "Checkpoints").
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// With --checkpoint: save after every N epochs (then only by count unless
    /// --checkpoint-every-secs is given too).
    #[arg(long, value_name = "N", requires = "checkpoint", value_parser = clap::value_parser!(u64).range(1..))]
    pub checkpoint_every_epochs: Option<u64>,
    /// With --checkpoint: save when S seconds have passed since the last save [default:
    /// 60 without --checkpoint-every-epochs].
    #[arg(long, value_name = "S", requires = "checkpoint", value_parser = non_negative_secs)]
    pub checkpoint_every_secs: Option<f64>,
    /// With --checkpoint: stop after N epochs of this call, with the state saved, and exit
    /// with status 75; the same command then continues. Splits a long run into calls of
    /// bounded length.
    #[arg(long, value_name = "N", requires = "checkpoint", value_parser = clap::value_parser!(u64).range(1..))]
    pub stop_after_epochs: Option<u64>,
}

/// The exit status of `magcl train --stop-after-epochs` that stopped before the run's end.
pub const EXIT_STOPPED: i32 = 75;

/// A number of seconds: finite and not negative.
pub fn non_negative_secs(s: &str) -> Result<f64, String> {
    let v = finite_f64(s)?;
    if v < 0.0 {
        return Err(format!("must be 0 or more seconds, got '{s}'"));
    }
    Ok(v)
}

/// The checkpoint options the flags ask for.
fn checkpoint_options(
    a: &TrainArgs,
) -> Option<magcl_torch::experiment::checkpoint::CheckpointOptions> {
    use magcl_torch::experiment::checkpoint::{CheckpointOptions, DEFAULT_EVERY_SECS};
    let path = a.checkpoint.clone()?;
    let every_epochs = a.checkpoint_every_epochs.unwrap_or(0) as usize;
    let every_secs = match (a.checkpoint_every_secs, every_epochs) {
        (Some(s), _) => s,
        (None, 0) => DEFAULT_EVERY_SECS,
        (None, _) => 0.0,
    };
    Some(CheckpointOptions {
        path,
        every_epochs,
        every_secs,
        stop_after: a.stop_after_epochs.map(|n| n as usize),
    })
}

/// The flags the methods declare (`magcl_config::Shorthand`: `--eta` is SimGRACE's,
/// `--augmenter` AD-GCL's, `--of` the untrained encoder's), each with the value given: the
/// command line adds one flag per declaration, so a method's flags live in its own file.
#[derive(Clone, Debug, Default)]
pub struct Shorthands(pub Vec<(&'static Shorthand, serde_json::Value)>);

impl clap::FromArgMatches for Shorthands {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for s in magcl_config::registry::shorthands() {
            let value = match s.value {
                ShorthandValue::Number => m.get_one::<f64>(s.flag).map(|v| (*v).into()),
                ShorthandValue::Word => m.get_one::<String>(s.flag).map(|v| v.clone().into()),
            };
            if let Some(v) = value {
                given.push((s, v));
            }
        }
        Ok(Shorthands(given))
    }
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for Shorthands {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        magcl_config::registry::shorthands()
            .into_iter()
            .fold(cmd, |cmd, s| {
                let arg = clap::Arg::new(s.flag).long(s.flag).help(s.help);
                cmd.arg(match s.value {
                    ShorthandValue::Number => arg.value_name("X").value_parser(finite_f64),
                    ShorthandValue::Word => arg.value_name("WORD"),
                })
            })
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// A finite number (`inf` and `NaN` are refused: no config can hold them).
pub fn finite_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("must be a finite number, got '{s}'"))
    }
}

/// Keys `--set` cannot change: they are chosen by their own flags, which pick the preset
/// the rest of the config comes from.
const SET_FORBIDDEN: &[(&str, &str)] = &[
    ("method", "--method"),
    ("task", "--method (the task follows from it)"),
    ("dataset", "--dataset"),
    ("seed", "--seed"),
];

/// `a.b.c=value` → nested JSON; the value is parsed as JSON where it can be, else a string.
pub fn parse_set(s: &str) -> anyhow::Result<(Vec<String>, serde_json::Value)> {
    let (k, v) = s
        .split_once('=')
        .with_context(|| format!("--set expects KEY=VALUE, got '{s}'"))?;
    let path: Vec<String> = k.trim().split('.').map(str::to_string).collect();
    if path.iter().any(|p| p.is_empty()) {
        anyhow::bail!("--set: empty key in '{s}'");
    }
    if let Some((key, flag)) = SET_FORBIDDEN.iter().find(|(key, _)| path[0] == *key) {
        anyhow::bail!(
            "--set {key}=…: the {key} is chosen by {flag}, not by --set (it selects the preset the other settings come from)"
        );
    }
    let v = v.trim();
    if v.parse::<f64>().is_ok_and(|x| !x.is_finite()) {
        anyhow::bail!("--set {k}={v}: a setting must be a finite number, not '{v}'");
    }
    let value =
        serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string()));
    Ok((path, value))
}

fn insert(
    map: &mut serde_json::Map<String, serde_json::Value>,
    path: &[String],
    value: serde_json::Value,
) {
    if path.len() == 1 {
        map.insert(path[0].clone(), value);
        return;
    }
    let entry = map
        .entry(path[0].clone())
        .or_insert_with(|| serde_json::Value::Object(Default::default()));
    if !entry.is_object() {
        *entry = serde_json::Value::Object(Default::default());
    }
    if let Some(m) = entry.as_object_mut() {
        insert(m, &path[1..], value);
    }
}

fn range(s: &str, flag: &str) -> anyhow::Result<serde_json::Value> {
    let parts: Vec<&str> = s.split([',', '-', ':']).map(str::trim).collect();
    if parts.len() != 2 {
        anyhow::bail!("{flag} expects LO,HI, got '{s}'");
    }
    let lo: usize = parts[0]
        .parse()
        .with_context(|| format!("{flag}: '{}' is not a count", parts[0]))?;
    let hi: usize = parts[1]
        .parse()
        .with_context(|| format!("{flag}: '{}' is not a count", parts[1]))?;
    Ok(serde_json::json!([lo, hi]))
}

/// The resolved config the flags describe.
pub fn build_config(a: &TrainArgs) -> anyhow::Result<RunConfig> {
    if let Some(path) = &a.config {
        let limit = crate::files::MAX_CONFIG_BYTES;
        let text = if path.as_os_str() == "-" {
            let mut s = String::new();
            std::io::stdin()
                .take(limit + 1)
                .read_to_string(&mut s)
                .context("reading the run config from standard input")?;
            if s.len() as u64 > limit {
                anyhow::bail!("the run config on standard input is more than {limit} bytes");
            }
            s
        } else {
            crate::files::read_regular_text(path, limit, "a run config")?
        };
        let mut cfg: RunConfig = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a valid run config", path.display()))?;
        cfg.normalise();
        cfg.validate()?;
        return Ok(cfg);
    }
    // A method's row label (`adgcl-fixed`) runs the method with the settings the label
    // stands for, as its declaration says.
    let label = a
        .method
        .as_deref()
        .and_then(magcl_config::registry::find_label);
    let method = match (&a.method, label) {
        (Some(_), Some((decl, _))) => MethodName::parse(decl.name)?,
        (Some(m), None) => MethodName::parse(m)?,
        (None, _) => {
            let all = magcl_torch::methods::registry::all();
            let names = |baseline: bool| -> Vec<&str> {
                all.iter()
                    .filter(|e| e.baseline == baseline)
                    .map(|e| e.name)
                    .collect()
            };
            anyhow::bail!(
                "--method is required ({}; baselines {}); see --help",
                names(false).join(", "),
                names(true).join(", ")
            )
        }
    };
    let dataset = a
        .dataset
        .clone()
        .context("--dataset is required; see `magcl datasets list`")?;
    if let Some(t) = &a.task {
        let want = match t.as_str() {
            "graph" => crate::experiment::Task::Graph,
            "node" => crate::experiment::Task::Node,
            _ => anyhow::bail!("--task expects graph or node, got '{t}'"),
        };
        if !method.supports(want) {
            anyhow::bail!(
                "--task {t} does not match method {} (use --method base for node-level runs)",
                method.as_str()
            );
        }
    }
    let mut o = serde_json::Map::new();
    let mut put = |path: &str, v: serde_json::Value| {
        let p: Vec<String> = path.split('.').map(str::to_string).collect();
        insert(&mut o, &p, v);
    };
    if a.ma || a.tricks.is_some() || a.ma_mode.is_some() || a.reading.is_some() {
        put("ma.enabled", true.into());
    }
    match &a.reading {
        Some(r) => put("ma.reading", r.word().into()),
        // The released code's reading is the primary one (docs/ma.md); node-level presets
        // follow the code or the paper by themselves.
        None if (a.ma || a.tricks.is_some() || a.ma_mode.is_some())
            && method.supports(crate::experiment::Task::Graph)
            && !crate::experiment::sweep::known_dataset(&dataset)
                .is_some_and(|t| t == crate::experiment::Task::Node) =>
        {
            put("ma.reading", ReadingName::Code.word().into())
        }
        None => {}
    }
    if let Some(t) = &a.tricks {
        let t = t.to_ascii_uppercase();
        if let Some(bad) = t.chars().find(|c| !"ARS,- ".contains(*c)) {
            anyhow::bail!("--tricks: '{bad}' is not a trick; use letters A (asymmetric), R (random), S (shuffle)");
        }
        put("ma.asymmetric", t.contains('A').into());
        put("ma.random", t.contains('R').into());
        put("ma.shuffle", t.contains('S').into());
    }
    if let Some(m) = &a.ma_mode {
        put("ma.gin_mode", GinMode::parse(m)?.as_str().into());
    }
    if let Some(r) = &a.ma_view1 {
        put("ma.view1", range(r, "--ma-view1")?);
    }
    if let Some(r) = &a.ma_view2 {
        put("ma.view2", range(r, "--ma-view2")?);
    }
    if let Some(c) = &a.constraints {
        put("ma.constraints", Constraints::parse(c)?.as_str().into());
    }
    if let Some(r) = &a.redraw {
        put("ma.redraw", r.clone().into());
    }
    if let Some(k) = a.eval_k {
        put("ma.eval_k", k.into());
    }
    for (key, value) in label.map_or(&[][..], |(_, l)| l.sets) {
        put(key, (*value).into());
    }
    // A method's own flags, after its label's settings: the flag wins. A flag of a method
    // this run does not use is refused with the settings (unknown setting `simgrace.eta`).
    for (s, value) in &a.shorthands.0 {
        put(s.setting, value.clone());
    }
    if let Some(v) = &a.aug {
        put("augment.name", v.clone().into());
    }
    if let Some(v) = a.epochs {
        put("epochs", v.into());
    }
    if let Some(v) = a.lr {
        put("lr", v.into());
    }
    if let Some(v) = a.batch_size {
        put("batch_size", v.into());
    }
    if let Some(v) = a.hidden {
        put("hidden", v.into());
    }
    if let Some(v) = a.layers {
        put("layers", v.into());
    }
    if let Some(v) = &a.evaluator {
        put("evaluator", v.name().into());
    }
    if let Some(v) = &a.features {
        put("features", v.to_string().into());
    }
    for s in &a.set {
        let (path, v) = parse_set(s)?;
        insert(&mut o, &path, v);
    }
    let spec = RunSpec {
        method: Some(method),
        dataset,
        seed: a.seed,
        preset: a.preset.clone(),
        overrides: o,
    };
    Ok(RunConfig::resolve(&spec)?)
}

/// The most threads `--threads` accepts: 256, or the machine's cores where it has more.
/// Far more threads than cores only slows a run down (every parallel step wakes them all).
pub fn max_threads() -> usize {
    magcl_torch::runtime::usable_cores().max(256)
}

/// Checks a `--threads` value: at least 1, at most [`max_threads`].
pub fn check_threads(threads: Option<usize>) -> anyhow::Result<()> {
    match threads {
        Some(0) => anyhow::bail!("--threads must be at least 1"),
        Some(n) if n > max_threads() => anyhow::bail!(
            "--threads {n} is more than the limit of {} (256, or the number of cores where there are more)",
            max_threads()
        ),
        _ => Ok(()),
    }
}

/// The libtorch thread count of a run when neither `--threads` nor its config sets one:
/// one thread for graph-level runs, all cores for node-level ones.
///
/// Graph-level batches are small (tens to a few thousand nodes): a second libtorch thread
/// gains little per operation and pays a wake-up at every one, and on a machine where
/// another process keeps a core busy every operation waits for the thread that shares it.
/// At one thread GraphCL, SimGRACE and AD-GCL epochs on MUTAG, PROTEINS and NCI1 were
/// within 1.10 of both cores spinning on the 2-core machine, and at most 1.2× slower
/// beside a busy core;
/// node-level runs (Cora: N × N similarities) are 1.9–4.9× faster on every core
/// (docs/performance.md, "Threads by default"). The graph-level evaluation runs on a rayon
/// pool of every core (its results do not depend on the pool's size).
pub fn default_threads(task: magcl_torch::params::Task) -> usize {
    match task {
        magcl_torch::params::Task::Graph => 1,
        magcl_torch::params::Task::Node => tch::get_num_threads().max(1) as usize,
    }
}

/// The thread count a run uses and records in its config: `--threads`, else the config's
/// own (a sweep's `threads` override, or a saved config), else [`default_threads`].
pub fn resolve_threads(
    flag: Option<usize>,
    in_config: usize,
    task: magcl_torch::params::Task,
) -> anyhow::Result<usize> {
    let n = match (flag, in_config) {
        (Some(n), _) => n,
        (None, 0) => default_threads(task),
        (None, n) => n,
    };
    check_threads(Some(n)).map_err(|e| anyhow::anyhow!("threads = {n} in the run config: {e}"))?;
    Ok(n)
}

/// Sets libtorch's intra-op thread count and the global rayon pool (augmentation, data
/// preparation, and the evaluation unless it has its own pool) to `n` (once per process).
/// The rayon pool's size changes no result (its work is split into pieces whose results
/// do not depend on it).
pub fn set_threads(n: usize) {
    if n > 0 {
        tch::set_num_threads(n as i32);
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
}

pub fn run(a: TrainArgs) -> anyhow::Result<()> {
    let mut cfg = build_config(&a)?;
    check_threads(a.threads)?;
    // a count the user or the sweep chose holds for the rayon pool too (a sweep's workers
    // share the cores); the default leaves the pool every core
    let chosen = a.threads.is_some() || cfg.threads != 0;
    cfg.threads = resolve_threads(a.threads, cfg.threads, cfg.task)?;
    cfg.fill_env()?;
    if a.print_config {
        outln!("{}", serde_json::to_string_pretty(&cfg)?);
        return Ok(());
    }
    // a graph-level run under the default thread policy (no count chosen)
    let graph_defaults = !chosen && cfg.task == magcl_torch::params::Task::Graph;
    // its evaluation on a pool of every core, made before anything else runs: one made
    // after training was slower at its first use (RunOptions::eval_pool); an unevaluated
    // run starts none
    let eval_pool = (graph_defaults && !a.no_eval)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(magcl_torch::runtime::usable_cores())
                .build()
                .ok()
        })
        .flatten()
        .map(std::sync::Arc::new);
    // training's data pipeline on a pool as large as libtorch's (a second rayon thread
    // slowed one-thread graph-level epochs by 6–38%; benchmarks-history:benchmarks/history/thread_defaults/)
    set_threads(cfg.threads);
    // under the default policy a graph-level step runs its two branches (GraphCL's views,
    // SimGRACE's clean and perturbed passes) on two threads where two cores are usable;
    // the numbers are the same either way (magcl_torch::train::branches)
    magcl_torch::train::branches::set_concurrent(
        graph_defaults && magcl_torch::runtime::usable_cores() >= 2,
    );
    let opts = RunOptions {
        device: a.device,
        progress: !a.quiet && !a.json,
        save_embeddings: a.save_embeddings.clone(),
        skip_eval: a.no_eval,
        eval_pool,
        checkpoint: checkpoint_options(&a),
    };
    let outcome = match runner::run_catching_panics(&cfg, &opts) {
        Err(e @ magcl_torch::error::Error::Stopped { .. }) => {
            eprintln!("{e}");
            std::process::exit(EXIT_STOPPED);
        }
        r => r?,
    };
    let record = RunRecord::new(&cfg, outcome);
    if a.json {
        let line = serde_json::to_string(&record)?;
        if let Err(e) = magcl_cli::write_stdout(format_args!("{line}\n")) {
            // The run is done: never lose its record silently.
            eprintln!("{line}");
            anyhow::bail!(
                "{e}; the run record is printed on standard error above instead (accuracy {:.2})",
                record.outcome.accuracy
            );
        }
        return Ok(());
    }
    let o = &record.outcome;
    let per_epoch = if o.epoch_seconds.is_empty() {
        0.0
    } else {
        o.epoch_seconds.iter().sum::<f64>() / o.epoch_seconds.len() as f64
    };
    outln!(
        "{} · {} · MA {} · seed {} · {} · {}",
        cfg.dataset,
        record.method,
        record.ma,
        cfg.seed,
        cfg.evaluator,
        o.device
    );
    if !o.evaluated {
        outln!("accuracy   (not evaluated: --no-eval)");
    } else {
        match o.accuracy_std_folds {
            Some(sd) => outln!(
                "accuracy   {:.2} % (± {:.2} over {} folds)",
                o.accuracy,
                sd,
                o.fold_accuracies.len()
            ),
            None => outln!("accuracy   {:.2} %", o.accuracy),
        }
    }
    if let Some(v) = o.val_accuracy {
        outln!("validation {v:.2} %");
    }
    if let Some(e) = o.selected_epoch {
        outln!("epoch      {e} (chosen by validation accuracy)");
    }
    if let Some(nmi) = o.nmi {
        outln!("NMI        {nmi:.4} (k-means, median of the restarts)");
    }
    outln!(
        "time       train {:.2} s ({:.4} s/epoch over {} epochs), eval {:.2} s",
        o.train_seconds,
        per_epoch,
        o.epochs,
        o.eval_seconds
    );
    outln!(
        "memory     peak RSS {:.0} MB",
        o.peak_rss_bytes as f64 / 1e6
    );
    for w in &o.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(p) = &a.save_embeddings {
        outln!(
            "embeddings {} (labels: {})",
            p.display(),
            runner::labels_path(p).display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_cannot_change_the_method_and_floats_must_be_finite() {
        let e = parse_set("method=simgrace").unwrap_err().to_string();
        assert!(e.contains("--method"), "{e}");
        assert!(parse_set("dataset=NCI1").is_err());
        assert!(parse_set("simgrace.eta=0.5").is_ok());
        for bad in ["lr=inf", "simgrace.eta=NaN", "lr=1e999", "lr=-infinity"] {
            let e = parse_set(bad).unwrap_err().to_string();
            assert!(e.contains("finite"), "{bad}: {e}");
        }
        assert!(finite_f64("inf").unwrap_err().contains("finite"));
        assert!(finite_f64("NaN").unwrap_err().contains("finite"));
        assert_eq!(finite_f64("0.01"), Ok(0.01));
        assert!(check_threads(Some(100_000)).is_err());
        assert!(check_threads(Some(0)).is_err());
        assert!(check_threads(Some(2)).is_ok());
    }

    /// `magcl train` has one flag per declared shorthand, which sets the declared setting
    /// (after a row label's settings) and is refused for a method without that setting.
    #[test]
    fn method_flags_come_from_the_declarations() {
        use clap::FromArgMatches;
        let cmd = TrainArgs::augment_args(clap::Command::new("train"));
        cmd.clone().debug_assert();
        for s in magcl_config::registry::shorthands() {
            let arg = cmd.get_arguments().find(|a| a.get_long() == Some(s.flag));
            assert!(arg.is_some_and(|a| a.get_help().is_some()), "--{}", s.flag);
        }
        let parse = |argv: &[&str]| {
            let m = cmd
                .clone()
                .try_get_matches_from(std::iter::once("train").chain(argv.iter().copied()))?;
            TrainArgs::from_arg_matches(&m)
        };
        let config = |argv: &[&str]| {
            build_config(&parse(argv).unwrap()).map(|c| serde_json::to_value(&c).unwrap())
        };
        let c = config(&["-m", "simgrace", "-d", "MUTAG", "--eta", "0.5"]).unwrap();
        assert_eq!(c["simgrace"]["eta"], 0.5);
        assert!(parse(&["--eta", "inf"]).is_err());
        let c = config(&["-m", "adgcl-fixed", "-d", "MUTAG", "--augmenter", "learned"]).unwrap();
        assert_eq!(c["adgcl"]["augmenter"], "learned");
        let c = config(&["-m", "untrained", "--of", "simgrace", "-d", "MUTAG"]).unwrap();
        assert_eq!(
            (c["untrained"]["of"].as_str(), c["layers"].as_u64()),
            (Some("simgrace"), Some(5))
        );
        let e = config(&["-m", "graphcl", "-d", "MUTAG", "--eta", "0.5"]).unwrap_err();
        assert!(e.to_string().contains("simgrace"), "{e}");
    }

    /// The flag wins, then the config's count; without either graph-level runs get one
    /// libtorch thread and node-level runs libtorch's default for the machine.
    #[test]
    fn thread_count_precedence_and_defaults() {
        use magcl_torch::params::Task;
        assert_eq!(resolve_threads(Some(3), 2, Task::Graph).unwrap(), 3);
        assert_eq!(resolve_threads(None, 2, Task::Graph).unwrap(), 2);
        assert_eq!(resolve_threads(None, 0, Task::Graph).unwrap(), 1);
        assert_eq!(
            resolve_threads(None, 0, Task::Node).unwrap(),
            tch::get_num_threads().max(1) as usize
        );
        assert!(resolve_threads(None, 100_000, Task::Node).is_err());
    }

    #[test]
    fn set_parses_json_values_and_nested_keys() {
        let (p, v) = parse_set("node.edge_drop=[0.3,0.2]").unwrap();
        assert_eq!(p, vec!["node", "edge_drop"]);
        assert_eq!(v, serde_json::json!([0.3, 0.2]));
        let (_, v) = parse_set("augment.name=random3").unwrap();
        assert_eq!(v, serde_json::json!("random3"));
        assert!(parse_set("novalue").is_err());
        assert!(parse_set("a..b=1").is_err());
    }
}
