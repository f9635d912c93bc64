//! `magcl-torch`: the tensor side of the `magcl` command. `magcl` (crates/magcl-cli) hands
//! `train`, `bench`, `bench-speed` and `report --sweep` here with the same arguments; the
//! modules parse them (help text: the command table, `magcl_cli::commands`), call the
//! library and print. `datasets`, `eval` and plain `report` are `magcl`'s alone.
#[macro_use]
extern crate magcl_cli;

mod bench;
mod report_sweep;
mod speed;
mod train;

use std::ffi::OsString;

use clap::error::ErrorKind;
use clap::{FromArgMatches, Subcommand};
use magcl_cli::{commands, exit_status, report};

// The library's modules under the paths the command modules name (`crate::experiment`, …).
use magcl_torch::{data, experiment, files, runtime, stats};

#[cfg(all(target_os = "linux", target_env = "gnu"))]
use std::ffi::c_char;

/// Gives libgomp (libtorch's OpenMP) magcl's wait policy and thread count
/// ([`magcl_torch::runtime::reexec_with_openmp_settings`]). The dynamic loader runs an
/// executable's `.preinit_array` before the initialisers of the shared libraries it loaded,
/// libgomp's among them: the one point early enough, and cheap to start again from.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[link_section = ".preinit_array"]
static OPENMP_SETTINGS: extern "C" fn(i32, *const *const c_char, *const *const c_char) = {
    extern "C" fn preinit(_argc: i32, argv: *const *const c_char, envp: *const *const c_char) {
        // SAFETY: the loader passes the process's own argv and envp, and no other thread
        // exists before the library initialisers have run.
        unsafe { magcl_torch::runtime::reexec_with_openmp_settings(argv, envp) }
    }
    preinit
};

/// The commands `magcl-torch` parses (names and help: [`commands::COMMANDS`]).
#[derive(Subcommand, Debug)]
enum Command {
    Train(Box<train::TrainArgs>),
    Bench(bench::BenchArgs),
    Report(Box<report::ReportArgs>),
    BenchSpeed(speed::SpeedArgs),
}

/// Below `magcl-torch --help`'s command list.
const AFTER_HELP: &str = "This is magcl-torch: it runs the tensor commands, which the magcl \
binary beside it hands here. datasets, eval and report without --sweep run in magcl.";

/// Ends with a usage error: `magcl NAME` (`what` said after the name) runs in `magcl`.
fn not_here(cli: &mut clap::Command, name: &str, what: &str) -> ! {
    cli.error(
        ErrorKind::InvalidSubcommand,
        format!(
            "`{name}`{what} runs in the magcl binary, not in magcl-torch (which runs train, \
             bench, bench-speed and report --sweep): run `magcl {name} …`"
        ),
    )
    .exit()
}

fn main() {
    runtime::tune_allocator();
    runtime::quiet_libtorch();
    // before any libtorch work on several threads: MKL's first-call race (kernels.cpp, 9.)
    magcl_torch::kernels::resolve_vector_math();
    let argv: Vec<OsString> = std::env::args_os().collect();
    let mut cli = commands::parser::<Command>().after_help(AFTER_HELP);
    if let Some(spec) = argv
        .get(1)
        .and_then(|a| a.to_str())
        .and_then(commands::find)
        .filter(|c| !c.tensor && c.name != "report")
    {
        not_here(&mut cli, spec.name, "");
    }
    let matches = cli
        .try_get_matches_from_mut(&argv)
        .unwrap_or_else(|e| e.exit());
    let command = match Command::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let result = match command {
        Command::Train(a) => train::run(*a),
        Command::Bench(a) => bench::run(a),
        Command::Report(a) if a.sweep.is_none() => not_here(&mut cli, "report", " without --sweep"),
        Command::Report(a) => report::run(*a, Some(report_sweep::report_missing_cells)),
        Command::BenchSpeed(a) => speed::run(a),
    };
    if let Err(e) = result {
        let status = exit_status(&e);
        if status != 141 {
            eprintln!("error: {e:#}");
        }
        std::process::exit(status);
    }
}
