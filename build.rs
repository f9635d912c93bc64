//! Build script:
//! - an rpath to the libtorch lib dir reported by `torch-sys`, so `target/release/magcl`
//!   runs without `LD_LIBRARY_PATH`;
//! - `libtorch_cuda` kept linked although no symbol of it is referenced, so the same
//!   binary uses CUDA wherever a GPU and CUDA libtorch are present;
//! - the git commit the binary was built from (`MAGCL_GIT_COMMIT`), written into every
//!   result row.
use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    if let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        if Path::new(&dir).join("libtorch_cuda.so").exists() {
            // The linker drops libraries whose symbols are unused under --as-needed;
            // torch_cuda registers its kernels from static initialisers, so it must stay.
            println!("cargo:rustc-link-arg=-Wl,--no-as-needed,-ltorch_cuda,--as-needed");
        }
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
