//! The `magcl` command: parse arguments, call the library, print.
use clap::Parser;

fn main() {
    let cli = magcl::cli::Cli::parse();
    if let Err(e) = magcl::cli::dispatch(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
