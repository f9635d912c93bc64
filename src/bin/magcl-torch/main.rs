//! `magcl-torch`: the tensor side of the `magcl` command (train, bench, bench-speed; it
//! accepts every command). `magcl` (crates/magcl-cli) hands the tensor commands here: the
//! modules parse arguments, call the library and print.
#[macro_use]
extern crate magcl_cli;

mod bench;
mod report_sweep;
mod speed;
mod train;

use clap::{Parser, Subcommand};
use magcl_cli::{datasets, eval, exit_status, report};

// The library's modules under the paths the command modules name (`crate::experiment`, …).
use magcl::{data, experiment, files, runtime, stats};

#[cfg(all(target_os = "linux", target_env = "gnu"))]
use std::ffi::c_char;

/// Gives libgomp (libtorch's OpenMP) magcl's wait policy and thread count
/// ([`magcl::runtime::reexec_with_openmp_settings`]). The dynamic loader runs an
/// executable's `.preinit_array` before the initialisers of the shared libraries it loaded,
/// libgomp's among them: the one point early enough, and cheap to start again from.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[link_section = ".preinit_array"]
static OPENMP_SETTINGS: extern "C" fn(i32, *const *const c_char, *const *const c_char) = {
    extern "C" fn preinit(_argc: i32, argv: *const *const c_char, envp: *const *const c_char) {
        // SAFETY: the loader passes the process's own argv and envp, and no other thread
        // exists before the library initialisers have run.
        unsafe { magcl::runtime::reexec_with_openmp_settings(argv, envp) }
    }
    preinit
};

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
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
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

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Datasets(a) => datasets::run(a),
        Command::Train(a) => train::run(*a),
        Command::Eval(a) => eval::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Report(a) => report::run(a, Some(report_sweep::report_missing_cells)),
        Command::BenchSpeed(a) => speed::run(a),
    }
}

fn main() {
    runtime::tune_allocator();
    runtime::quiet_libtorch();
    let cli = Cli::parse();
    if let Err(e) = dispatch(cli) {
        let status = exit_status(&e);
        if status != 141 {
            eprintln!("error: {e:#}");
        }
        std::process::exit(status);
    }
}
