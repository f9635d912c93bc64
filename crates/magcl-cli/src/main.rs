//! `magcl`: the command a user runs. It links the tensor-free crates only, never
//! libtorch: `datasets`, `eval` and `report` run here; the tensor commands (`train`,
//! `bench`, `bench-speed`, and `report --sweep`, whose sweep is expanded by the experiment
//! layer) replace this process by `magcl-torch` from the same folder, with the same
//! arguments.
use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use magcl_cli::{datasets, eval, exit_status, report};

/// The name of the binary that serves the tensor commands, beside `magcl`.
const TORCH_BINARY: &str = "magcl-torch";

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
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The commands as `magcl` parses them: the tensor commands' arguments are passed to
/// `magcl-torch` unread (their help and errors come from there).
#[derive(Subcommand, Debug)]
enum Command {
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
struct TensorArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    args: Vec<OsString>,
}

/// The names of the commands `magcl-torch` serves.
const TENSOR_COMMANDS: &[&str] = &["train", "bench", "bench-speed"];

fn main() {
    std::process::exit(run());
}

/// Parses the arguments; runs `datasets`, `eval` and `report` here; replaces the process
/// by `magcl-torch` with the same arguments for the tensor commands (and for `report
/// --sweep`, whose sweep file is expanded by the experiment layer). Returns the exit
/// status.
fn run() -> i32 {
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
fn torch_binary() -> std::io::Result<PathBuf> {
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
             --sweep) run in the {TORCH_BINARY} binary (the root package: `cargo build \
             --release` at the top of the workspace builds both, `cargo install --locked \
             --path .` installs it), which must be installed in the same folder as magcl \
             (docs/development.md)",
            bin.display()
        );
    } else {
        eprintln!("error: cannot start {}: {e}", bin.display());
    }
    1
}
