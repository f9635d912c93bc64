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

/// One finished run as `magcl train --json` prints it and as a bench row stores it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RunRecord {
    pub dataset: String,
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
            method: cfg.method.as_str().into(),
            ma: cfg.ma_label(),
            seed: cfg.seed,
            config_hash: cfg.hash(),
            evaluator: cfg.evaluator.clone(),
            outcome,
            git_commit: env!("MAGCL_GIT_COMMIT").into(),
            magcl_version: env!("CARGO_PKG_VERSION").into(),
            config: cfg.clone(),
        }
    }
}
