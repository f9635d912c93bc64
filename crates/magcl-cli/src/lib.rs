//! # magcl-cli — the `magcl` command without tensors
//!
//! The `magcl` binary links this crate and the tensor-free crates only, never libtorch:
//! it serves `datasets`, `eval` and `report` itself and hands the tensor commands
//! (`train`, `bench`, `bench-speed`) to the `magcl-torch` binary installed beside it
//! ([`main`]). The argument structs of the three commands here are also those of
//! `magcl-torch`, which accepts every command.
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

/// `println!` for the commands: a write error on stdout (a full disk, a closed pipe)
/// returns a [`StdoutError`] from the enclosing function instead of panicking.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::write_stdout(format_args!("\n"))?
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// `print!` for the commands, as [`outln!`].
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))?
    };
}

pub mod datasets;
pub mod eval;
pub mod report;

/// The name of the binary that serves the tensor commands, beside `magcl`.
pub const TORCH_BINARY: &str = "magcl-torch";

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

/// The commands as `magcl` parses them: the tensor commands' arguments are passed to
/// `magcl-torch` unread (their help and errors come from there).
#[derive(Subcommand, Debug)]
pub enum Command {
    /// List, fetch and describe datasets.
    Datasets(datasets::DatasetsArgs),
    /// Train one method on one dataset with one seed, then evaluate the embeddings.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Train(TensorArgs),
    /// Evaluate embeddings made anywhere with the papers' protocols.
    Eval(eval::EvalArgs),
    /// Run a sweep described by a TOML config; append one CSV row per finished run.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Bench(TensorArgs),
    /// Summarise result CSVs: mean ± std, intervals, paired tests, tables and plots.
    Report(report::ReportArgs),
    /// Time training epochs, one evaluation and peak memory per method × dataset.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    BenchSpeed(TensorArgs),
}

/// The arguments of a tensor command, passed on as they are.
#[derive(Args, Debug)]
pub struct TensorArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<OsString>,
}

/// The names of the commands `magcl-torch` serves.
pub const TENSOR_COMMANDS: &[&str] = &["train", "bench", "bench-speed"];

/// `magcl`'s `main`: parses the arguments; runs `datasets`, `eval` and `report` here;
/// replaces the process by `magcl-torch` with the same arguments for the tensor commands
/// (and for `report --sweep`, whose sweep file is expanded by the experiment layer).
/// Returns the exit status.
pub fn main() -> i32 {
    let argv: Vec<OsString> = std::env::args_os().collect();
    // `magcl help train` shows train's help, which lives in magcl-torch.
    if argv.get(1).is_some_and(|a| a == "help")
        && argv
            .get(2)
            .is_some_and(|c| TENSOR_COMMANDS.iter().any(|t| c == *t))
    {
        return exec_torch(&argv);
    }
    let matches = Cli::command().get_matches_from(&argv);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Train(_) | Command::Bench(_) | Command::BenchSpeed(_) => return exec_torch(&argv),
        Command::Report(a) if a.sweep.is_some() => return exec_torch(&argv),
        Command::Datasets(a) => datasets::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Report(a) => report::run(a, None),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            let status = exit_status(&e);
            if status != 141 {
                eprintln!("error: {e:#}");
            }
            status
        }
    }
}

/// Where `magcl-torch` is: beside the running `magcl` (`$MAGCL_TORCH_BINARY` overrides).
pub fn torch_binary() -> std::io::Result<PathBuf> {
    if let Some(p) = std::env::var_os("MAGCL_TORCH_BINARY") {
        return Ok(PathBuf::from(p));
    }
    Ok(std::env::current_exe()?.with_file_name(TORCH_BINARY))
}

/// Replaces this process by `magcl-torch` with the arguments of this one; returns (an
/// exit status) only when that fails, after saying why.
fn exec_torch(argv: &[OsString]) -> i32 {
    let bin = match torch_binary() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot find the magcl executable's own path: {e}");
            return 1;
        }
    };
    let mut cmd = std::process::Command::new(&bin);
    cmd.args(&argv[1..]);
    #[cfg(unix)]
    let e = {
        use std::os::unix::process::CommandExt;
        cmd.arg0("magcl").exec()
    };
    #[cfg(not(unix))]
    let e = match cmd.status() {
        Ok(s) => return s.code().unwrap_or(1),
        Err(e) => e,
    };
    if e.kind() == std::io::ErrorKind::NotFound {
        eprintln!(
            "error: {} not found: the tensor commands (train, bench, bench-speed, report \
             --sweep) run in the {TORCH_BINARY} binary, which is built with magcl (`cargo \
             build --release` builds both) and must be installed in the same folder as \
             magcl (docs/development.md)",
            bin.display()
        );
    } else {
        eprintln!("error: cannot start {}: {e}", bin.display());
    }
    1
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
