//! The `magcl` command: parse arguments, call the library, print.
use clap::Parser;

fn main() {
    magcl::runtime::tune_allocator();
    magcl::runtime::quiet_libtorch();
    let cli = magcl::cli::Cli::parse();
    if let Err(e) = magcl::cli::dispatch(cli) {
        let status = magcl::cli::exit_status(&e);
        if status != 141 {
            eprintln!("error: {e:#}");
        }
        std::process::exit(status);
    }
}
