//! The trainers: the framework that drives a method, apart from the methods themselves
//! ([`crate::methods`]).
//!
//! - [`graph`]: the graph-level trainer. A graph-level method implements
//!   [`graph::GraphMethod`] (one optimisation step on a batch of graph ids, and `embed`);
//!   [`graph::GraphRunner`] makes it a [`Method`] with the training loop
//!   ([`graph::train_graph_method`]), the epoch's batches and the pre-training subset
//!   ([`graph::TrainPlan`], [`graph::Pretrain`]).
//! - [`node`]: the node-level trainer: the `node` settings every node-level method reads
//!   ([`node::NodeParams`]), the two augmented views of an epoch ([`node::NodeViews`]), the
//!   epoch loop over anything that implements [`node::EpochStep`]
//!   ([`node::train_epochs`]), the runner of the base model in a method's variant
//!   ([`node::NodeRunner`]) and the best-test evaluation schedule.
//! - [`encoder`]: what methods do with an encoder besides training it, at both levels:
//!   embedding every item in chunks, setting batch-norm estimates without training, and
//!   the GIN tower GraphCL and SimGRACE share.
//! - [`optim`]: Adam, the one optimiser of every method; [`state`]: the training state a
//!   checkpoint saves, listed once per method; [`branches`]: a graph-level step's two
//!   branches run at the same time.
//! - here: what both trainers share: the optimisation settings ([`TrainParams`]), the
//!   per-epoch record ([`TrainLog`]), the progress bar, the loss check, and the runner of
//!   a floor with nothing to train ([`FixedEmbeddings`]).
//!
//! Each trainer keeps beside it the trait it drives ([`graph::GraphMethod`],
//! [`node::EpochStep`]): the trait is the trainer's half of the seam (what the loop calls,
//! when, with which ids and epochs), so reading one file shows both; a method file imports
//! the trait and the runner from the trainer of its level and implements it. What every
//! built method is to the runner, whatever its level — [`Method`], [`Embed`],
//! [`Selection`] — stays in [`crate::methods`] with the registry, because the registry's
//! constructor ([`crate::methods::BuildFn`]) returns it.
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::error::{Error, Result};
use crate::methods::{Embed, Embeddings, Method, Selection};
use crate::params::{check_size, ParamGuard, SettingError, MAX_BATCH_SIZE, MAX_EPOCHS};
use crate::train::state::{Resume, StateVisitor};
use graph::Pretrain;

pub mod branches;
pub mod encoder;
pub mod graph;
pub mod node;
pub mod optim;
pub mod state;

/// The optimisation settings every method shares.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainParams {
    pub seed: u64,
    pub epochs: usize,
    pub lr: f64,
    pub weight_decay: f64,
    pub batch_size: usize,
    /// The pre-training subset (graph level).
    pub pretrain: Pretrain,
}

impl ParamGuard for TrainParams {
    /// `epochs = 0` passes here: [`MethodParams`](crate::methods::MethodParams) allows it
    /// for the baselines only.
    fn check_ref(&self) -> Result<(), SettingError> {
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return Err(SettingError::new(
                "lr",
                format!("must be positive, got {}", self.lr),
            ));
        }
        if self.weight_decay.is_nan() || self.weight_decay < 0.0 {
            return Err(SettingError::new(
                "weight_decay",
                format!("must be ≥ 0, got {}", self.weight_decay),
            ));
        }
        if self.batch_size == 0 {
            return Err(SettingError::new(
                "batch_size/hidden/layers",
                "must be at least 1",
            ));
        }
        check_size("epochs", self.epochs, MAX_EPOCHS)?;
        check_size("batch_size", self.batch_size, MAX_BATCH_SIZE)?;
        self.pretrain.check_ref()
    }
}

/// Per-epoch record of a training run.
#[derive(Clone, Debug, Default)]
pub struct TrainLog {
    pub epoch_seconds: Vec<f64>,
    pub epoch_losses: Vec<f64>,
}

/// A progress bar on stderr (drawn only when stderr is a terminal and `show`).
pub fn progress_bar(total: u64, show: bool, what: &str) -> ProgressBar {
    let pb = if show {
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template(
        "{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed} elapsed, ETA {eta})",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_prefix(what.to_string());
    pb
}

/// Checks a loss value; NaN or infinity stops the run with the position.
pub fn check_loss(loss: f64, epoch: usize, step_in_epoch: usize) -> Result<f64> {
    if loss.is_finite() {
        Ok(loss)
    } else {
        Err(Error::Diverged {
            loss,
            epoch: epoch + 1,
            step: step_in_epoch + 1,
        })
    }
}

/// A baseline whose embeddings are fixed when it is built (raw features, graph-kernel
/// counts): nothing to train, no batch norm, the final (only) encoder is evaluated.
pub struct FixedEmbeddings(pub Embeddings);

impl Embed for FixedEmbeddings {
    fn embed(&self) -> Result<Embeddings> {
        Ok(self.0.clone())
    }
}

impl Method for FixedEmbeddings {
    fn train_from(
        &mut self,
        _epochs: usize,
        _after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
        _resume: Resume<'_>,
    ) -> Result<TrainLog> {
        Ok(TrainLog::default())
    }
    /// Nothing trains: no state.
    fn visit_state(&mut self, _v: &mut StateVisitor) -> Result<()> {
        Ok(())
    }
    fn selection(&self) -> Selection {
        Selection::Final
    }
    fn calibrate_batch_norm(&mut self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_losses_stop_the_run() {
        let e = check_loss(f64::NAN, 2, 4).unwrap_err().to_string();
        assert!(e.contains("epoch 3 step 5"), "{e}");
    }
}
