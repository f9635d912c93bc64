//! Running one [`RunConfig`] end to end: load data, train, evaluate.
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use super::config::RunConfig;
use crate::error::{Error, Result};

/// How to run (not part of the config: does not change the numbers).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// `auto`, `cpu` or `cuda` / `cuda:N`.
    pub device: String,
    /// Show a progress bar on stderr (only when stderr is a terminal).
    pub progress: bool,
    /// Write the evaluation embeddings here (`.npy`), with labels beside (`*.labels.npy`).
    pub save_embeddings: Option<PathBuf>,
}

/// What a run produced.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct RunOutcome {
    /// Test accuracy in percent (graph level: mean over the outer folds).
    pub accuracy: f64,
    /// Standard deviation over the outer folds (graph level).
    pub accuracy_std_folds: Option<f64>,
    pub fold_accuracies: Vec<f64>,
    /// Clustering NMI (node level).
    pub nmi: Option<f64>,
    /// The epoch whose embeddings were evaluated when chosen by validation (AD-GCL).
    pub selected_epoch: Option<usize>,
    pub epochs: usize,
    pub train_seconds: f64,
    pub eval_seconds: f64,
    /// Wall-clock seconds of each training epoch.
    pub epoch_seconds: Vec<f64>,
    /// Mean training loss of each epoch.
    pub epoch_losses: Vec<f64>,
    /// Peak resident memory of the process so far, in bytes.
    pub peak_rss_bytes: u64,
    /// The device that ran the training, e.g. `cpu` or `cuda:0`.
    pub device: String,
}

/// Runs `cfg`: the single entry point used by `magcl train` and by every bench cell.
pub fn run(cfg: &RunConfig, _opts: &RunOptions) -> Result<RunOutcome> {
    Err(Error::Config(format!(
        "method {} is not implemented yet",
        cfg.method.as_str()
    )))
}
