//! The `magcl` command built from the tensor-free crates alone, for working on
//! `datasets`, `eval` and `report` without compiling libtorch:
//! `cargo run --release -p magcl-cli --example magcl -- report FILE.csv …`.
//! The tensor commands still need `magcl-torch` beside it.
fn main() {
    std::process::exit(magcl_cli::main());
}
