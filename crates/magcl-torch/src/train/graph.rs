//! The graph-level trainer: the trait a graph-level method implements ([`GraphMethod`]:
//! one optimisation step on a batch of graph ids, embeddings of every graph), the runner
//! that makes one a [`Method`] ([`GraphRunner`]), and the training loop
//! ([`train_graph_method`]) with what it plans: the epoch's batches ([`epoch_batches`])
//! and the pre-training subset ([`Pretrain`], [`TrainPlan`]). The trait sits here beside
//! the loop that calls it (the module docs of [`crate::train`] say why).
use std::time::Instant;

use crate::error::{Error, Result};
use crate::graph::GraphView;
use crate::methods::{Embed, Embeddings, Method, Selection};
use crate::params::{bad, check_size, ParamGuard, MAX_EPOCHS};
use crate::rng::{self, streams};
use crate::train::branches;
use crate::train::state::{self, Resume, StateVisitor};
use crate::train::{check_loss, progress_bar, TrainLog, TrainParams};

/// A graph-classification dataset ready for training: one view per graph (features
/// attached) and the class labels.
pub struct GraphData {
    pub views: Vec<GraphView>,
    pub labels: Vec<u32>,
    pub dim: usize,
}

/// One graph-level contrastive method.
pub trait GraphMethod {
    /// One optimisation step on the graphs `ids` (epoch and global step given for the
    /// deterministic random streams). Returns the loss.
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, step: u64) -> Result<f64>;
    /// Embeddings of all graphs (`n × d`, row-major, on the CPU) from the evaluation encoder.
    fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)>;
    /// Called after the last step of epoch `epoch` (whose batches were `batches` and whose
    /// mean step loss was `mean_loss`) and after that epoch's `after_epoch` callback; `last`
    /// on the final epoch. JOAOv2 moves its augmentation distribution here, MVGRL keeps its
    /// lowest-loss model. Default: nothing.
    fn end_epoch(
        &mut self,
        _data: &GraphData,
        _batches: &[Vec<usize>],
        _epoch: usize,
        _mean_loss: f64,
        _last: bool,
    ) -> Result<()> {
        Ok(())
    }
    /// How the epoch whose encoder is evaluated is chosen (default: the last).
    fn selection(&self) -> Selection {
        Selection::Final
    }
    /// Whether a step runs two branches through [`branches::forward_pair`] (GraphCL,
    /// SimGRACE). Only then does the training loop move to a branch thread, where the
    /// second branch can go to the other one; a loop without branches stays on the calling
    /// thread, which it has to itself. Default: no.
    fn has_branches(&self) -> bool {
        false
    }
    /// Sets the evaluation encoder's batch-norm running estimates from `data` without
    /// training ([`calibrate_batch_norm`]); what the `untrained` baseline asks of a method.
    ///
    /// [`calibrate_batch_norm`]: crate::train::encoder::calibrate_batch_norm
    fn calibrate_batch_norm(&mut self, _data: &GraphData) -> Result<()> {
        Err(Error::Config(
            "this method cannot set its batch-norm statistics without training".into(),
        ))
    }
    /// Shows `v` everything the method carries from one epoch to the next (its variable
    /// stores, optimiser state, kept models, ...): saved for a checkpoint or loaded from
    /// one ([`state`]). Default: the method cannot be checkpointed.
    fn visit_state(&mut self, _v: &mut StateVisitor) -> Result<()> {
        Err(state::not_resumable("this method"))
    }
}

/// A [`GraphMethod`] with its data and training-loop settings: a [`Method`].
pub struct GraphRunner<'a, M: GraphMethod> {
    pub method: M,
    pub data: &'a GraphData,
    pub loop_config: LoopConfig,
}

impl<'a, M: GraphMethod + 'a> GraphRunner<'a, M> {
    /// A graph-level method's build hook ([`crate::methods::BuildFn`]): `data`'s graphs (an
    /// error naming `entry` where they are a node set), the method `make` builds on them,
    /// and this loop with the run's settings.
    pub fn boxed(
        entry: &crate::methods::MethodEntry,
        p: &crate::params::Checked<crate::methods::MethodParams>,
        data: crate::methods::TrainData<'a>,
        progress: bool,
        make: impl FnOnce(&'a GraphData) -> Result<M>,
    ) -> Result<Box<dyn Method + 'a>> {
        let g = data.graphs(entry.name)?;
        Ok(Box::new(GraphRunner::new(make(g)?, g, &p.train, progress)))
    }

    pub fn new(method: M, data: &'a GraphData, p: &TrainParams, progress: bool) -> Self {
        GraphRunner {
            method,
            data,
            loop_config: LoopConfig {
                epochs: p.epochs,
                batch_size: p.batch_size,
                seed: p.seed,
                progress,
                pretrain: p.pretrain.clone(),
            },
        }
    }
}

/// A graph method and its data, borrowed: what the after-epoch hook embeds with.
struct GraphRef<'b, M: GraphMethod + ?Sized> {
    method: &'b M,
    data: &'b GraphData,
}

impl<M: GraphMethod + ?Sized> Embed for GraphRef<'_, M> {
    fn embed(&self) -> Result<Embeddings> {
        let (x, dim) = self.method.embed(self.data)?;
        Ok(Embeddings::dense(x, self.data.views.len(), dim))
    }
}

impl<M: GraphMethod> Embed for GraphRunner<'_, M> {
    fn embed(&self) -> Result<Embeddings> {
        GraphRef {
            method: &self.method,
            data: self.data,
        }
        .embed()
    }
}

impl<M: GraphMethod> Method for GraphRunner<'_, M> {
    fn train_from(
        &mut self,
        epochs: usize,
        after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
        resume: Resume<'_>,
    ) -> Result<TrainLog> {
        let mut lc = self.loop_config.clone();
        lc.epochs = epochs;
        let data = self.data;
        train_graph_method_from(&mut self.method, data, &lc, resume, |epoch, m| {
            after_epoch(epoch, &GraphRef { method: m, data })
        })
    }
    fn visit_state(&mut self, v: &mut StateVisitor) -> Result<()> {
        self.method.visit_state(v)
    }
    fn selection(&self) -> Selection {
        self.method.selection()
    }
    fn calibrate_batch_norm(&mut self) -> Result<()> {
        self.method.calibrate_batch_norm(self.data)
    }
}

/// Training-loop settings shared by the graph-level methods.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    pub epochs: usize,
    pub batch_size: usize,
    pub seed: u64,
    pub progress: bool,
    /// The pre-training subset ([`TrainPlan`]).
    pub pretrain: Pretrain,
}

impl LoopConfig {
    /// The loop's plan on `n` graphs ([`TrainPlan::new`]).
    pub fn plan(&self, n: usize) -> Result<TrainPlan> {
        TrainPlan::new(n, self.epochs, self.batch_size, self.seed, &self.pretrain)
    }
}

/// The pre-training subset of a graph-level run (the `pretrain` section; [`TrainPlan`]
/// draws the subset and counts the steps), declared where the reports read it too.
pub use magcl_config::settings::Pretrain;

/// The fewest graphs a pre-training subset may hold (declared with [`Pretrain`]).
pub use magcl_config::settings::MIN_PRETRAIN_GRAPHS;

/// The graphs a run with `pretrain.graphs = graphs` trains on, of a dataset of `n`
/// graphs, ascending: the first `graphs` of one seeded permutation of all `n` graph
/// indices (stream `(seed, PRETRAIN_SUBSET)`). It sees the count only — no label, no
/// fold — and a larger subset of the same seed contains every smaller one. Refused when
/// `graphs` is below [`MIN_PRETRAIN_GRAPHS`] or above `n`.
pub fn pretrain_subset(n: usize, graphs: usize, seed: u64) -> Result<Vec<usize>> {
    use rand::seq::SliceRandom;
    if graphs < MIN_PRETRAIN_GRAPHS || graphs > n {
        return Err(bad(
            "pretrain.graphs",
            format!(
                "expected a count from {MIN_PRETRAIN_GRAPHS} to the dataset's {n} graphs, got \
                 {graphs}; leave it unset to train on every graph"
            ),
        ));
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng::stream(seed, &[streams::PRETRAIN_SUBSET]));
    order.truncate(graphs);
    order.sort_unstable();
    Ok(order)
}

/// The number of batches [`epoch_batches`] makes of `n` graphs: those of at least two
/// graphs (the full ones, unless a batch is one graph, and a last one of two or more).
pub fn batches_per_epoch(n: usize, batch_size: usize) -> usize {
    let b = batch_size.max(1);
    let full = if b > 1 { n / b } else { 0 };
    full + usize::from(n % b > 1)
}

/// What the graph-level training loop runs on a dataset of `n` graphs: the training graphs
/// (`pretrain.graphs`), the number of epochs over them and of gradient steps.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainPlan {
    /// The graphs trained on, ascending; `None`: every graph, batched as a run without
    /// the `pretrain` section always was.
    pub ids: Option<Vec<usize>>,
    /// How many graphs are trained on.
    pub graphs: usize,
    /// Epochs over the training graphs.
    pub epochs: usize,
    /// Gradient steps in all: `epochs` × the batches of an epoch, or, with
    /// `pretrain.match_steps`, the whole-set run's count, the last epoch cut short where
    /// needed.
    pub steps: u64,
    batches_per_epoch: usize,
    /// With `pretrain.match_steps`: the whole set's batches per epoch.
    whole_batches_per_epoch: Option<usize>,
}

impl TrainPlan {
    /// The plan of `epochs` epochs in batches of `batch_size` on `n` graphs with the
    /// pre-training settings `pretrain`; an error where `pretrain.graphs` exceeds `n`.
    pub fn new(
        n: usize,
        epochs: usize,
        batch_size: usize,
        seed: u64,
        pretrain: &Pretrain,
    ) -> Result<TrainPlan> {
        pretrain.check_ref()?;
        let whole = batches_per_epoch(n, batch_size);
        let Some(graphs) = pretrain.graphs else {
            return Ok(TrainPlan {
                ids: None,
                graphs: n,
                epochs,
                steps: (epochs * whole) as u64,
                batches_per_epoch: whole,
                whole_batches_per_epoch: None,
            });
        };
        let ids = pretrain_subset(n, graphs, seed)?;
        let per_epoch = batches_per_epoch(graphs, batch_size);
        let (epochs, steps) = if pretrain.match_steps {
            let steps = epochs * whole;
            (steps.div_ceil(per_epoch), steps)
        } else {
            (epochs, epochs * per_epoch)
        };
        check_size("epochs (pretrain.match_steps)", epochs, MAX_EPOCHS)?;
        Ok(TrainPlan {
            ids: Some(ids),
            graphs,
            epochs,
            steps: steps as u64,
            batches_per_epoch: per_epoch,
            whole_batches_per_epoch: pretrain.match_steps.then_some(whole),
        })
    }

    /// Whether a run that checks its encoder every `every` epochs (AD-GCL's validation,
    /// [`Selection::Validation`]) checks after epoch `epoch` (from 0): after every
    /// `every`-th epoch and the last; with `pretrain.match_steps`, where the steps pass a
    /// multiple of `every` whole-set epochs, so that the run checks as often, and after
    /// the same steps, as the whole-set run.
    pub fn checks_after(&self, epoch: usize, every: usize) -> bool {
        let every = every.max(1);
        if epoch + 1 == self.epochs {
            return true;
        }
        match self.whole_batches_per_epoch {
            None => (epoch + 1).is_multiple_of(every),
            Some(whole) => {
                let period = (every * whole).max(1) as u64;
                let before = (epoch * self.batches_per_epoch) as u64;
                let after = (before + self.batches_per_epoch as u64).min(self.steps);
                after / period > before / period
            }
        }
    }

    /// The batches of epoch `epoch` (graph indices of the dataset): [`epoch_batches`] over
    /// the training graphs, the last epoch cut at the plan's step count.
    pub fn batches(&self, batch_size: usize, seed: u64, epoch: usize) -> Vec<Vec<usize>> {
        let mut batches = match &self.ids {
            None => epoch_batches(self.graphs, batch_size, seed, epoch),
            Some(ids) => epoch_batches(ids.len(), batch_size, seed, epoch)
                .into_iter()
                .map(|b| b.into_iter().map(|i| ids[i]).collect())
                .collect(),
        };
        let before = (epoch * self.batches_per_epoch) as u64;
        batches.truncate(self.steps.saturating_sub(before) as usize);
        batches
    }
}

/// The graphs of each batch of an epoch: a seeded permutation cut into `batch_size`
/// pieces. A final batch of a single graph is dropped (a contrastive batch needs negatives).
pub fn epoch_batches(n: usize, batch_size: usize, seed: u64, epoch: usize) -> Vec<Vec<usize>> {
    use rand::seq::SliceRandom;
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng::stream(seed, &[streams::SHUFFLE, epoch as u64]));
    order
        .chunks(batch_size.max(1))
        .filter(|c| c.len() > 1)
        .map(|c| c.to_vec())
        .collect()
}

/// Runs `method` on `data` as `cfg` plans it ([`LoopConfig::plan`]: `cfg.epochs` epochs
/// over every graph, or over the pre-training subset), calling `after_epoch(epoch, method)`
/// after each epoch.
pub fn train_graph_method<M: GraphMethod + ?Sized>(
    method: &mut M,
    data: &GraphData,
    cfg: &LoopConfig,
    after_epoch: impl FnMut(usize, &M) -> Result<()>,
) -> Result<TrainLog> {
    train_graph_method_from(method, data, cfg, Resume::none(), after_epoch)
}

/// [`train_graph_method`] from epoch `resume.start`, with `resume.hook` run when each
/// epoch has ended (after the method's [`GraphMethod::end_epoch`]).
pub fn train_graph_method_from<M: GraphMethod + ?Sized>(
    method: &mut M,
    data: &GraphData,
    cfg: &LoopConfig,
    mut resume: Resume<'_>,
    mut after_epoch: impl FnMut(usize, &M) -> Result<()>,
) -> Result<TrainLog> {
    if !method.has_branches() {
        return train_loop(method, data, cfg, &mut resume, &mut after_epoch);
    }
    // SAFETY: the loop runs on one thread at a time (this one blocks meanwhile) and reads
    // no thread-local state but the concurrency setting, which `on_pool` carries over.
    unsafe { branches::on_pool(|| train_loop(method, data, cfg, &mut resume, &mut after_epoch)) }
}

/// [`train_graph_method`]'s loop.
fn train_loop<M: GraphMethod + ?Sized>(
    method: &mut M,
    data: &GraphData,
    cfg: &LoopConfig,
    resume: &mut Resume<'_>,
    after_epoch: &mut impl FnMut(usize, &M) -> Result<()>,
) -> Result<TrainLog> {
    let plan = cfg.plan(data.views.len())?;
    let pb = progress_bar(plan.steps, cfg.progress, "train");
    pb.set_position(resume.step);
    let mut log = std::mem::take(&mut resume.log);
    let mut step = resume.step;
    for epoch in resume.start..plan.epochs {
        let t0 = Instant::now();
        let mut total = 0.0;
        let batches = plan.batches(cfg.batch_size, cfg.seed, epoch);
        for (i, ids) in batches.iter().enumerate() {
            let loss = check_loss(method.step(data, ids, epoch, step)?, epoch, i)?;
            total += loss;
            step += 1;
            pb.inc(1);
        }
        let mean = total / batches.len().max(1) as f64;
        log.epoch_seconds.push(t0.elapsed().as_secs_f64());
        log.epoch_losses.push(mean);
        pb.set_message(format!("epoch {} loss {mean:.4}", epoch + 1));
        after_epoch(epoch, method)?;
        method.end_epoch(data, &batches, epoch, mean, epoch + 1 == plan.epochs)?;
        state::epoch_ended(&mut resume.hook, epoch, &log, step, &mut |v| {
            method.visit_state(v)
        })?;
    }
    pb.finish_and_clear();
    Ok(log)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::methods::tests::TestConfig;
    use crate::methods::MethodParams;
    use crate::params::Checked;

    /// One short training run of a graph-level method on `toy_data(40)`: one thread,
    /// torch seeded with `cfg.seed` before `build` makes the method, `cfg`'s epochs and
    /// batch size. Returns the method, the epoch losses and the embeddings (40 × width).
    /// The caller holds [`crate::rng::torch_lock`].
    pub fn train_toy<M: GraphMethod>(
        cfg: &TestConfig,
        build: impl FnOnce(&Checked<MethodParams>) -> M,
    ) -> (M, Vec<f64>, Vec<f32>) {
        tch::set_num_threads(1);
        tch::manual_seed(cfg.seed as i64);
        let data = toy_data(40);
        let mut m = build(&cfg.method_params().unwrap());
        let lc = LoopConfig {
            epochs: cfg.preset.epochs,
            batch_size: cfg.preset.batch_size,
            seed: cfg.seed,
            progress: false,
            pretrain: cfg.preset.pretrain.clone(),
        };
        let log = train_graph_method(&mut m, &data, &lc, |_, _| Ok(())).unwrap();
        let (emb, d) = m.embed(&data).unwrap();
        assert_eq!(emb.len(), 40 * d);
        (m, log.epoch_losses, emb)
    }

    /// Trains `cfg` ([`train_toy`]) with a step's branches run one after the other and at
    /// the same time ([`super::branches`]) and asserts the same losses, embeddings and
    /// running estimates of the batch norms `bns` picks, bit for bit. The caller holds
    /// [`crate::rng::torch_lock`].
    pub fn assert_branch_concurrency_changes_nothing<M: GraphMethod>(
        cfg: &TestConfig,
        build: impl Fn(&Checked<MethodParams>) -> M,
        bns: impl Fn(&M) -> &[tch::nn::BatchNorm],
        what: &str,
    ) {
        let run_with = |on| {
            super::branches::with_concurrency(on, || {
                let (m, losses, emb) = train_toy(cfg, &build);
                let estimates: Vec<Vec<f32>> = bns(&m)
                    .iter()
                    .flat_map(|b| [&b.running_mean, &b.running_var])
                    .map(|t| Vec::<f32>::try_from(t).unwrap())
                    .collect();
                (losses, emb, estimates)
            })
        };
        let (serial, concurrent) = (run_with(false), run_with(true));
        assert_eq!(serial.0, concurrent.0, "losses, {what}");
        assert!(serial.1 == concurrent.1, "embeddings, {what}");
        assert!(serial.2 == concurrent.2, "batch-norm estimates, {what}");
    }

    /// A small two-class set: cycles vs paths with constant features.
    pub fn toy_data(n: usize) -> GraphData {
        let mut views = Vec::new();
        let mut labels = Vec::new();
        for i in 0..n {
            let len = 5 + i % 7;
            let mut edges: Vec<(u32, u32)> = (0..len as u32 - 1).map(|v| (v, v + 1)).collect();
            let label = (i % 2) as u32;
            if label == 1 {
                edges.push((0, len as u32 - 1));
            }
            views.push(GraphView {
                num_nodes: len,
                edges,
                x: vec![1.0; len],
            });
            labels.push(label);
        }
        GraphData {
            views,
            labels,
            dim: 1,
        }
    }

    #[test]
    fn epoch_batches_cover_every_graph_once() {
        let b = epoch_batches(300, 128, 1, 0);
        let mut all: Vec<usize> = b.concat();
        all.sort_unstable();
        assert_eq!(all, (0..300).collect::<Vec<_>>());
        assert_eq!(
            b.iter().map(|c| c.len()).collect::<Vec<_>>(),
            vec![128, 128, 44]
        );
        assert_ne!(b, epoch_batches(300, 128, 1, 1));
        assert_eq!(
            epoch_batches(129, 128, 1, 0).len(),
            1,
            "a last batch of one is dropped"
        );
    }

    #[test]
    fn pretrain_subsets_are_seeded_nested_and_refused_out_of_range() {
        let n = 500;
        let sizes = [2, 3, 64, 128, 256, 499, 500];
        for seed in [0, 1, 7] {
            let mut previous: Vec<usize> = Vec::new();
            for &size in &sizes {
                let s = pretrain_subset(n, size, seed).unwrap();
                assert_eq!(s, pretrain_subset(n, size, seed).unwrap(), "deterministic");
                assert_eq!(s.len(), size);
                assert!(s.windows(2).all(|w| w[0] < w[1]), "ascending, distinct");
                assert!(s.iter().all(|&i| i < n));
                assert!(
                    previous.iter().all(|i| s.binary_search(i).is_ok()),
                    "seed {seed}: the subset of {size} holds the smaller one"
                );
                previous = s;
            }
            assert_eq!(previous, (0..n).collect::<Vec<_>>(), "the whole set");
        }
        // another seed, another subset
        assert_ne!(
            pretrain_subset(n, 64, 0).unwrap(),
            pretrain_subset(n, 64, 1).unwrap()
        );
        // not simply the first graphs of the file
        assert_ne!(
            pretrain_subset(n, 64, 0).unwrap(),
            (0..64).collect::<Vec<_>>()
        );
        for (size, says) in [(0, "got 0"), (1, "got 1"), (501, "got 501")] {
            let e = pretrain_subset(n, size, 0).unwrap_err().to_string();
            assert!(
                e.contains("pretrain.graphs") && e.contains(says) && e.contains("500 graphs"),
                "{e}"
            );
        }
        let e = Pretrain {
            graphs: Some(0),
            match_steps: false,
        }
        .check_ref()
        .unwrap_err()
        .to_string();
        assert!(e.contains("pretrain.graphs") && e.contains("got 0"), "{e}");
        let e = Pretrain {
            graphs: None,
            match_steps: true,
        }
        .check_ref()
        .unwrap_err()
        .to_string();
        assert!(e.contains("pretrain.match_steps"), "{e}");
    }

    /// The subset is drawn without the folds: it takes a share of every outer fold's test
    /// graphs near its share of the set (here 200 of 400: 20 of each fold's 40, ± 10),
    /// for every seed, so no fold is left out of (or made of) the training graphs.
    #[test]
    fn pretrain_subsets_cut_across_the_evaluation_folds() {
        use crate::eval::protocol::{Protocol, StratifiedKFold};
        let labels: Vec<u32> = (0..400).map(|i| u32::from(i % 5 == 0)).collect();
        for seed in 0..5 {
            let subset = pretrain_subset(400, 200, seed).unwrap();
            let folds = StratifiedKFold { k: 10 }
                .splits(&labels, 400, seed)
                .unwrap();
            for f in &folds {
                let inside = f
                    .test
                    .iter()
                    .filter(|i| subset.binary_search(i).is_ok())
                    .count();
                assert!(
                    (10..=30).contains(&inside),
                    "seed {seed}: {inside} of {} test graphs",
                    f.test.len()
                );
            }
        }
    }

    #[test]
    fn batches_per_epoch_counts_what_epoch_batches_makes() {
        for n in 0..300 {
            for b in [1, 2, 3, 7, 128] {
                assert_eq!(
                    batches_per_epoch(n, b),
                    epoch_batches(n, b, 0, 0).len(),
                    "n {n} batch {b}"
                );
            }
        }
    }

    fn plan(n: usize, epochs: usize, batch: usize, graphs: Option<usize>, m: bool) -> TrainPlan {
        let p = Pretrain {
            graphs,
            match_steps: m,
        };
        TrainPlan::new(n, epochs, batch, 3, &p).unwrap()
    }

    #[test]
    fn a_plan_without_subset_batches_as_before_and_the_whole_set_as_a_subset_too() {
        let whole = plan(300, 4, 128, None, false);
        let explicit = plan(300, 4, 128, Some(300), false);
        assert_eq!((whole.epochs, whole.steps, whole.graphs), (4, 12, 300));
        for e in 0..4 {
            assert_eq!(whole.batches(128, 3, e), epoch_batches(300, 128, 3, e));
            assert_eq!(explicit.batches(128, 3, e), epoch_batches(300, 128, 3, e));
        }
        // match_steps on the whole set changes nothing either
        assert_eq!(
            plan(300, 4, 128, Some(300), true).batches(128, 3, 3),
            whole.batches(128, 3, 3)
        );
    }

    #[test]
    fn a_plan_trains_on_its_subset_and_a_small_one_as_one_batch() {
        let p = plan(300, 5, 32, Some(100), false);
        let subset = pretrain_subset(300, 100, 3).unwrap();
        assert_eq!((p.epochs, p.steps, p.graphs), (5, 20, 100));
        for e in 0..5 {
            let b = p.batches(32, 3, e);
            assert_eq!(b.iter().map(Vec::len).collect::<Vec<_>>(), [32, 32, 32, 4]);
            let mut all = b.concat();
            all.sort_unstable();
            assert_eq!(all, subset, "epoch {e}: every subset graph once");
        }
        assert_ne!(p.batches(32, 3, 0), p.batches(32, 3, 1), "reshuffled");
        // smaller than a batch: one batch of all of it
        let p = plan(300, 5, 128, Some(64), false);
        assert_eq!(p.steps, 5);
        for e in 0..5 {
            let b = p.batches(128, 3, e);
            assert_eq!(b.len(), 1);
            let mut one = b[0].clone();
            one.sort_unstable();
            assert_eq!(one, pretrain_subset(300, 64, 3).unwrap());
        }
        let e = TrainPlan::new(
            300,
            5,
            128,
            3,
            &Pretrain {
                graphs: Some(301),
                match_steps: false,
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("pretrain.graphs") && e.contains("300 graphs"),
            "{e}"
        );
    }

    /// `pretrain.match_steps`: the whole-set run's steps (20 epochs × 10 batches of 128 of
    /// 1,250 graphs, the last of 98) over a subset of 300 (3 batches: 128, 128, 44): 67
    /// epochs, the last one cut to 200 − 66 × 3 = 2 batches.
    #[test]
    fn matching_steps_makes_the_whole_sets_count() {
        let whole = plan(1250, 20, 128, None, false);
        assert_eq!(whole.steps, 200);
        let p = plan(1250, 20, 128, Some(300), true);
        assert_eq!((p.epochs, p.steps), (67, 200));
        let steps: usize = (0..p.epochs).map(|e| p.batches(128, 3, e).len()).sum();
        assert_eq!(steps, 200);
        assert_eq!(p.batches(128, 3, 65).len(), 3);
        assert_eq!(p.batches(128, 3, 66).len(), 2);
        let subset = pretrain_subset(1250, 300, 3).unwrap();
        let full: Vec<Vec<usize>> = epoch_batches(300, 128, 3, 66)
            .into_iter()
            .map(|b| b.into_iter().map(|i| subset[i]).collect())
            .collect();
        assert_eq!(
            p.batches(128, 3, 66),
            full[..2],
            "the cut epoch is the start of the epoch it would be"
        );
        // validation every 5 epochs: the whole-set run checks after steps 50, 100, 150
        // and 200; the subset run after the epochs that pass them (17 × 3 = 51, 34 × 3 =
        // 102, 50 × 3 = 150) and its last
        let checks = |p: &TrainPlan| -> Vec<usize> {
            (0..p.epochs)
                .filter(|&e| p.checks_after(e, 5))
                .map(|e| e + 1)
                .collect()
        };
        assert_eq!(checks(&whole), [5, 10, 15, 20]);
        assert_eq!(checks(&p), [17, 34, 50, 67]);
        assert_eq!(
            checks(&plan(1250, 20, 128, Some(300), false)),
            [5, 10, 15, 20]
        );
        // a subset of one batch: one step an epoch, as many epochs as steps
        let p = plan(1250, 20, 128, Some(64), true);
        assert_eq!((p.epochs, p.steps), (200, 200));
        assert_eq!(checks(&p), [50, 100, 150, 200]);
        // without it, the preset's epochs
        let p = plan(1250, 20, 128, Some(64), false);
        assert_eq!((p.epochs, p.steps), (20, 20));
    }

    /// A method that records what the loop gives it.
    #[derive(Default)]
    struct Recorder {
        steps: Vec<(usize, Vec<usize>)>,
        ends: Vec<(usize, usize, bool)>,
    }

    impl GraphMethod for Recorder {
        fn step(&mut self, _: &GraphData, ids: &[usize], epoch: usize, _: u64) -> Result<f64> {
            self.steps.push((epoch, ids.to_vec()));
            Ok(1.0)
        }
        fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
            Ok((vec![0.0; data.views.len()], 1))
        }
        fn end_epoch(
            &mut self,
            _: &GraphData,
            batches: &[Vec<usize>],
            epoch: usize,
            _: f64,
            last: bool,
        ) -> Result<()> {
            self.ends.push((epoch, batches.len(), last));
            Ok(())
        }
    }

    fn record(data: &GraphData, epochs: usize, pretrain: Pretrain) -> Recorder {
        let mut m = Recorder::default();
        let lc = LoopConfig {
            epochs,
            batch_size: 4,
            seed: 9,
            progress: false,
            pretrain,
        };
        let log = train_graph_method(&mut m, data, &lc, |_, _| Ok(())).unwrap();
        assert_eq!(log.epoch_losses.len(), m.ends.len());
        m
    }

    /// The loop steps on the subset's graphs only, each once an epoch, whatever the labels
    /// say; with matched steps it makes the whole set's count and ends on a `last` epoch.
    #[test]
    fn the_loop_trains_on_the_subset_only_whatever_the_labels() {
        let data = toy_data(40);
        let subset = pretrain_subset(40, 10, 9).unwrap();
        let sub = Pretrain {
            graphs: Some(10),
            match_steps: false,
        };
        let m = record(&data, 3, sub.clone());
        assert_eq!(m.steps.len(), 3 * 3, "10 graphs in batches of 4: 4, 4, 2");
        for e in 0..3 {
            let mut seen: Vec<usize> = m
                .steps
                .iter()
                .filter(|s| s.0 == e)
                .flat_map(|s| s.1.clone())
                .collect();
            seen.sort_unstable();
            assert_eq!(seen, subset, "epoch {e}");
        }
        assert_eq!(m.ends.last(), Some(&(2, 3, true)));
        // the labels reversed (and all one class): the same steps
        let mut relabelled = toy_data(40);
        relabelled.labels.reverse();
        assert_eq!(record(&relabelled, 3, sub.clone()).steps, m.steps);
        relabelled.labels = vec![0; 40];
        assert_eq!(record(&relabelled, 3, sub).steps, m.steps);
        // matched steps: 3 epochs × 10 batches of the whole set = 30 steps in 10 epochs
        let m = record(
            &data,
            3,
            Pretrain {
                graphs: Some(10),
                match_steps: true,
            },
        );
        assert_eq!(m.steps.len(), 30);
        assert_eq!(m.ends.len(), 10);
        assert_eq!(m.ends.last(), Some(&(9, 3, true)));
        assert!(m
            .steps
            .iter()
            .all(|s| s.1.iter().all(|i| subset.contains(i))));
        // no subset: every graph
        let m = record(&data, 1, Pretrain::default());
        assert_eq!(m.steps.len(), 10);
        assert_eq!(m.steps.iter().map(|s| s.1.len()).sum::<usize>(), 40);
    }
}
