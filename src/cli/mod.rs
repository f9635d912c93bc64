//! Command-line interface: one module per subcommand, each an argument struct and a `run`.
use std::io::Write;

use clap::{Parser, Subcommand};

/// `println!` for the commands: a write error on stdout (a full disk, a closed pipe)
/// returns a [`StdoutError`] from the enclosing function instead of panicking.
macro_rules! outln {
    () => {
        $crate::cli::write_stdout(format_args!("\n"))?
    };
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// `print!` for the commands, as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*))?
    };
}

pub mod bench;
pub mod datasets;
pub mod eval;
pub mod report;
pub mod speed;
pub mod train;

/// magcl — graph contrastive learning with and without model augmentation (MA).
///
/// Train GraphCL, SimGRACE, AD-GCL (graph classification) and the MA-GCL base model (node
/// classification), each with and without MA; evaluate embeddings exactly as the papers
/// do; run sweeps over seeds and report mean ± std, confidence intervals and paired tests.
///
/// Data: datasets are cached in $MAGCL_DATA_DIR (default ./tudatasets) and fetched on
/// demand from $MAGCL_DATA_MIRROR (a folder or http(s) base URL) or the canonical URLs.
#[derive(Parser, Debug)]
#[command(name = "magcl", version, about, long_about, propagate_version = true)]
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
        Command::Report(a) => report::run(a),
        Command::BenchSpeed(a) => speed::run(a),
    }
}

/// Writing to standard output failed. `magcl` ends with this message and status 1, or
/// quietly with status 141 (like a Unix tool killed by SIGPIPE) when the reader of a pipe
/// went away (`magcl datasets list | head -1`).
#[derive(Debug)]
pub struct StdoutError(pub std::io::Error);

impl std::fmt::Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}

impl StdoutError {
    /// The reader of the pipe went away: end quietly.
    pub fn is_broken_pipe(&self) -> bool {
        self.0.kind() == std::io::ErrorKind::BrokenPipe
    }
}

/// Writes to standard output and flushes, returning errors instead of panicking.
pub fn write_stdout(args: std::fmt::Arguments) -> Result<(), StdoutError> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|_| out.flush())
        .map_err(StdoutError)
}

/// The exit status for an error that ended a command: 141 and no message for a closed
/// pipe on stdout, else 1 (and the caller prints the message).
pub fn exit_status(e: &anyhow::Error) -> i32 {
    let closed = e.chain().any(|c| {
        c.downcast_ref::<StdoutError>()
            .is_some_and(|s| s.is_broken_pipe())
    });
    if closed {
        141
    } else {
        1
    }
}
