//! Command-line interface: one module per subcommand, each an argument struct and a `run`.
use clap::{Parser, Subcommand};

// `outln!` / `out!` come from magcl_cli (`#[macro_use]` in lib.rs); they write through
// `magcl_cli::write_stdout`.
pub mod bench;
pub mod report_sweep;
pub mod speed;
pub mod train;

// The tensor-free commands and the output helpers live in magcl_cli.
pub use magcl_cli::{datasets, eval, exit_status, report, write_stdout, StdoutError};

/// magcl — graph contrastive learning with and without model augmentation (MA).
///
/// Train GraphCL, SimGRACE, AD-GCL (graph classification) and the MA-GCL base model (node
/// classification), each with and without MA; evaluate embeddings exactly as the papers
/// do; run sweeps over seeds and report mean ± std, confidence intervals and paired tests.
///
/// Data: datasets are cached in $MAGCL_DATA_DIR (default ./tudatasets) and fetched on
/// demand from $MAGCL_DATA_MIRROR (a folder or http(s) base URL) or the canonical URLs.
///
/// (This is `magcl-torch`, which serves every command; the `magcl` binary beside it serves
/// `datasets`, `eval` and `report` without loading libtorch and hands the others here.)
#[derive(Parser, Debug)]
#[command(
    name = "magcl",
    bin_name = "magcl",
    version,
    about,
    long_about,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List, fetch and describe datasets.
    Datasets(datasets::DatasetsArgs),
    /// Train one method on one dataset with one seed, then evaluate the embeddings.
    Train(Box<train::TrainArgs>),
    /// Evaluate embeddings made anywhere with the papers' protocols.
    Eval(eval::EvalArgs),
    /// Run a sweep described by a TOML config; append one CSV row per finished run.
    Bench(bench::BenchArgs),
    /// Summarise result CSVs: mean ± std, intervals, paired tests, tables and plots.
    Report(report::ReportArgs),
    /// Time training epochs, one evaluation and peak memory per method × dataset.
    BenchSpeed(speed::SpeedArgs),
}

pub fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Datasets(a) => datasets::run(a),
        Command::Train(a) => train::run(*a),
        Command::Eval(a) => eval::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Report(a) => report::run(a, Some(report_sweep::report_missing_cells)),
        Command::BenchSpeed(a) => speed::run(a),
    }
}
