//! # magcl-torch — the tensor side of magcl as a library
//!
//! Graph contrastive learning with and without model augmentation on libtorch (tch). The
//! crate follows the data, one folder per step:
//!
//! | step | module | what it holds |
//! |---|---|---|
//! | dataset | [`data`] | TU text format, Planetoid pickles, npz, synthetic sets, cache/mirror/download, node features |
//! | batch | [`graph`] | block-diagonal collation of many graphs, node splits |
//! | views | [`augment`] | graph- and node-level augmentations (pure functions of a graph and an RNG) |
//! | encoder schedules | [`nn`] | propagation (`g`) and transformation (`h`) operators, GIN/GCN encoders, projector |
//! | model augmentation | [`ma`] | the MA plugin: schedule samplers with the A/R/S switches |
//! | declarations | `magcl_config` | each method's name, display name, level, floor and features, and the config schema (a method's settings `Preset`, the checked-parameters pattern, the method sections), read by the reports too |
//! | methods | [`methods`] | one file per method (GraphCL, SimGRACE, AD-GCL, InfoGraph, JOAOv2, MVGRL, the node-level base model / MA-GCL, GRACE, GCA, BGRL, the floors), the registry and its entry type |
//! | training | [`train`] | the trainers that drive the methods: the graph-level loop over batches of graphs, the node-level epoch loop and runner, the encoder helpers both share |
//! | loss | [`loss`] | the NT-Xent / InfoNCE family with explicit switches |
//! | evaluator | [`eval`] | SVM (RBF, linear), logistic regression, k-fold CV + grid search, k-means + NMI; the `Evaluator` and `Protocol` seams |
//! | node-level evaluation | [`eval_node`] | the node split protocols and the logistic-regression probe (an `Evaluator` on a libtorch device) |
//! | statistics | [`stats`] | summaries, confidence intervals, paired tests |
//! | parameters | [`params`] | the checked-parameters pattern every stage follows, the task, size limits (declared in `magcl_config`, re-exported) |
//! | experiments | [`experiment`] | resolved run configs, presets, the runner, sweeps, resume, shards |
//! | reports | [`report`] | CSV rows, markdown tables, plots |
//!
//! The commands live in the binaries, which only parse arguments and print: `magcl`
//! (crates/magcl-cli, no libtorch) and `magcl-torch` (the root package's `src/`, the tensor
//! commands, a thin binary over this crate); everything here is library code that returns
//! [`error::Result`]; clap and anyhow stay in the binaries.
//!
//! The tensor-free layers are crates of the workspace (`crates/`), re-exported here under
//! their old paths: [`data`] is `magcl_data`, [`eval`] is `magcl_eval` (with [`stats`]),
//! [`report`] is `magcl_report`, [`files`] comes from `magcl_core`. Nothing in them depends
//! on tch (docs/development.md).
pub mod augment;
pub mod error;
pub mod eval_node;
pub mod experiment;
pub mod graph;
pub mod kernels;
pub mod loss;
pub mod ma;
pub mod methods;
pub mod nn;
pub mod params;
pub mod rng;
pub mod runtime;
pub mod train;

pub use magcl_core::files;
pub use magcl_data as data;
pub use magcl_eval as eval;
pub use magcl_eval::stats;
pub use magcl_report as report;

pub use error::{Error, Result};

/// The git commit this library was built from (`-dirty` when the tree had changes), as
/// every result row records it.
pub const GIT_COMMIT: &str = env!("MAGCL_GIT_COMMIT");
