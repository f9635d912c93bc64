//! The `magcl` command. It links the tensor-free crates only, never libtorch: `datasets`,
//! `eval` and `report` run here; the tensor commands run in `magcl-torch` beside it
//! ([`magcl_cli::main`]).
fn main() {
    std::process::exit(magcl_cli::main());
}
