//! Build script: make `target/release/magcl` find libtorch without `LD_LIBRARY_PATH`
//! (an rpath to the libtorch lib dir reported by `torch-sys`) and keep `libtorch_cuda`
//! linked even though no symbol of it is referenced, so that the same binary uses CUDA
//! wherever a GPU and CUDA libtorch are present.
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    if Path::new(&dir).join("libtorch_cuda.so").exists() {
        // The linker drops libraries whose symbols are unused under --as-needed;
        // torch_cuda registers its kernels from static initialisers, so it must stay.
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed,-ltorch_cuda,--as-needed");
    }
}
