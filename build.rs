//! Build script of the `magcl-torch` binary and the integration tests (the library's own
//! build script, crates/magcl-torch/build.rs, compiles the kernels and stamps the commit):
//! - an rpath to the libtorch lib dir reported by `torch-sys`, so `target/release/magcl-torch`
//!   runs without `LD_LIBRARY_PATH` (an rpath loads nothing by itself: the `magcl` binary,
//!   which must not load libtorch, gets it too but needs no library from there);
//! - the kernels' answer to MKL's vendor check exported to libtorch_cpu;
//! - `libtorch_cuda` kept linked although no symbol of it is referenced, so the same
//!   binary uses CUDA wherever a GPU and CUDA libtorch are present: in `magcl-torch` and the
//!   integration tests, never in the `magcl` binary (docs/development.md).
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    println!("cargo:rerun-if-changed=build.rs");
    let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    // crates/magcl-torch/csrc/kernels.cpp's answer to MKL's vendor check must be visible
    // to libtorch_cpu (GNU ld exports it anyway, libtorch_cpu referring to the name; this
    // says so).
    println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol=mkl_serv_intel_cpu_true");
    if Path::new(&dir).join("libtorch_cuda.so").exists() {
        // The linker drops libraries whose symbols are unused under --as-needed;
        // torch_cuda registers its kernels from static initialisers, so it must stay.
        let arg = "-Wl,--no-as-needed,-ltorch_cuda,--as-needed";
        println!("cargo:rustc-link-arg-bin=magcl-torch={arg}");
        println!("cargo:rustc-link-arg-tests={arg}");
    }
}
