//! Build script of the tensor library (the root package's build script links the
//! `magcl-torch` binary and the integration tests the same way):
//! - an rpath to the libtorch lib dir reported by `torch-sys` for the library's unit tests,
//!   so they run without `LD_LIBRARY_PATH`; `libtorch_cuda` is not kept linked there, so
//!   they run on the CPU (docs/development.md);
//! - the git commit the binary was built from (`MAGCL_GIT_COMMIT`), written into every
//!   result row;
//! - `crates/magcl-torch/csrc/kernels.cpp` (autograd kernels: sparse products, batch norm; an asynchronous
//!   scalar read-back) compiled against libtorch's headers, with OpenMP on when libtorch
//!   ships its libgomp (so that `at::parallel_for` in the kernels splits work over
//!   libtorch's threads, as it does inside libtorch), only when the source or the flags
//!   changed (this script also reruns on every commit for the stamp above).
use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Compiles `crates/magcl-torch/csrc/kernels.cpp` into a static library in OUT_DIR unless the library there was
/// built from the same source text, and links it. (The source is compared, not its
/// modification time: two checkouts sharing a target folder share this OUT_DIR, and an
/// older checkout's library can be newer than this checkout's source.)
fn build_kernels(libtorch_lib: &Path) {
    let src = Path::new("csrc/kernels.cpp");
    println!("cargo:rerun-if-changed={}", src.display());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let lib = out.join("libmagcl_kernels.a");
    let stamp = out.join("kernels.cpp.built");
    // libtorch's `at::parallel_for` is a header template that splits its loop only where
    // the including file is compiled with OpenMP (`_OPENMP`); without it the kernels' loops
    // run on the calling thread whatever libtorch's thread count. The kernels therefore
    // use the libgomp libtorch itself loads (one OpenMP runtime in the process), linked by
    // its file name, and stay serial where libtorch ships none (another OpenMP runtime).
    let gomp = libtorch_lib.join("libgomp.so.1");
    let openmp = gomp.exists();
    let mut source = std::fs::read(src).expect("csrc/kernels.cpp");
    source.extend_from_slice(format!("\n// built with OpenMP: {openmp}\n").as_bytes());
    let link = || {
        println!("cargo:rustc-link-search=native={}", out.display());
        println!("cargo:rustc-link-lib=static=magcl_kernels");
        println!("cargo:rustc-link-lib=stdc++");
        if openmp {
            println!("cargo:rustc-link-search=native={}", libtorch_lib.display());
            println!("cargo:rustc-link-lib=dylib:+verbatim=libgomp.so.1");
            println!("cargo:rustc-cfg=magcl_kernels_openmp");
        }
    };
    let fresh = lib.exists() && std::fs::read(&stamp).is_ok_and(|s| s == source);
    if fresh {
        link();
        return;
    }
    let include = libtorch_lib
        .parent()
        .expect("libtorch lib dir has a parent")
        .join("include");
    let abi = std::env::var("LIBTORCH_CXX11_ABI").unwrap_or_else(|_| "1".into());
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file(src)
        .include(&include)
        .include(include.join("torch/csrc/api/include"))
        .flag("-std=c++17")
        .flag(format!("-D_GLIBCXX_USE_CXX11_ABI={abi}"))
        .flag("-DGLOG_USE_GLOG_EXPORT")
        .flag_if_supported("-Wno-unused-parameter")
        .opt_level(3)
        .warnings(false)
        .cargo_metadata(false);
    if openmp {
        build.flag_if_supported("-fopenmp");
    }
    build.compile("magcl_kernels");
    link();
    std::fs::write(&stamp, &source).expect("writing the kernels' build stamp");
}

fn main() {
    println!("cargo:rustc-check-cfg=cfg(magcl_kernels_openmp)");
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    if let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        build_kernels(Path::new(&dir));
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        // crates/magcl-torch/csrc/kernels.cpp's answer to MKL's vendor check must be visible to libtorch_cpu
        // (GNU ld exports it anyway, libtorch_cpu referring to the name; this says so).
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol=mkl_serv_intel_cpu_true");
    }

    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .map(|s| !s.is_empty())
        .unwrap_or(false);
    let commit = if dirty {
        format!("{commit}-dirty")
    } else {
        commit
    };
    println!("cargo:rustc-env=MAGCL_GIT_COMMIT={commit}");
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        for f in ["HEAD", "logs/HEAD", "index"] {
            let p = Path::new(&dir).join(f);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
