//! The `magcl` command: parse arguments, call the library, print.
use clap::Parser;

fn main() {
    magcl::runtime::tune_allocator();
    magcl::runtime::quiet_libtorch();
    let cli = magcl::cli::Cli::parse();
    if let Err(e) = magcl::cli::dispatch(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
