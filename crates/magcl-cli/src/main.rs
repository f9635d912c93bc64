//! `magcl`: the command a user runs. It links the tensor-free crates only, never
//! libtorch: `datasets`, `eval` and `report` run here; the tensor commands (`train`,
//! `bench`, `bench-speed`, and `report --sweep`, whose sweep is expanded by the experiment
//! layer) replace this process by `magcl-torch` from the same folder, with the same
//! arguments.
use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, FromArgMatches, Subcommand};
use magcl_cli::{commands, datasets, eval, exit_status, report};

/// The binary that serves the tensor commands, beside `magcl`.
const TORCH_BINARY: &str = "magcl-torch";

/// The commands as `magcl` parses them (names and help: [`commands::COMMANDS`]). A tensor
/// command's arguments go to `magcl-torch` unread: its help and errors come from there.
#[derive(Subcommand, Debug)]
enum Command {
    Datasets(datasets::DatasetsArgs),
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Train(TensorArgs),
    Eval(eval::EvalArgs),
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Bench(TensorArgs),
    Report(Box<report::ReportArgs>),
    #[command(disable_help_flag = true, disable_version_flag = true)]
    BenchSpeed(TensorArgs),
}

/// The arguments of a tensor command, passed on as they are.
#[derive(Args, Debug)]
struct TensorArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    args: Vec<OsString>,
}

fn main() {
    std::process::exit(run());
}

/// Parses the arguments and runs the command here or in `magcl-torch`; returns the exit
/// status.
fn run() -> i32 {
    let argv: Vec<OsString> = std::env::args_os().collect();
    // `magcl help train` shows train's help, which lives in magcl-torch.
    if argv.get(1).is_some_and(|a| a == "help")
        && argv
            .get(2)
            .is_some_and(|c| commands::tensor_commands().any(|t| c == t))
    {
        return exec_torch(&argv);
    }
    let matches = commands::parser::<Command>().get_matches_from(&argv);
    let command = match Command::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let result = match command {
        Command::Train(_) | Command::Bench(_) | Command::BenchSpeed(_) => return exec_torch(&argv),
        Command::Report(a) if a.sweep.is_some() => return exec_torch(&argv),
        Command::Datasets(a) => datasets::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Report(a) => report::run(*a, None),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magcl_parses_every_command_of_the_table_in_its_order() {
        let cli = commands::parser::<Command>();
        cli.clone().debug_assert();
        let mut subs: Vec<&clap::Command> = cli.get_subcommands().collect();
        subs.sort_by_key(|s| s.get_display_order());
        let names: Vec<&str> = subs.iter().map(|s| s.get_name()).collect();
        let table: Vec<&str> = commands::COMMANDS.iter().map(|c| c.name).collect();
        assert_eq!(names, table);
    }

    #[test]
    fn a_tensor_command_takes_any_arguments_unread() {
        let m = commands::parser::<Command>()
            .try_get_matches_from(["magcl", "train", "--help", "--no-such-flag", "x"])
            .unwrap();
        let Command::Train(a) = Command::from_arg_matches(&m).unwrap() else {
            panic!("not train");
        };
        assert_eq!(a.args, ["--help", "--no-such-flag", "x"]);
    }
}
