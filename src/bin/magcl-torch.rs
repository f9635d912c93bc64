//! `magcl-torch`: the tensor side of the `magcl` command (train, bench, bench-speed; it
//! accepts every command). `magcl` hands the tensor commands here: parse arguments, call
//! the library, print.
use clap::Parser;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
use std::ffi::c_char;

/// Gives libgomp (libtorch's OpenMP) magcl's wait policy and thread count
/// ([`magcl::runtime::reexec_with_openmp_settings`]). The dynamic loader runs an
/// executable's `.preinit_array` before the initialisers of the shared libraries it loaded,
/// libgomp's among them: the one point early enough, and cheap to start again from.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[link_section = ".preinit_array"]
static OPENMP_SETTINGS: extern "C" fn(i32, *const *const c_char, *const *const c_char) = {
    extern "C" fn preinit(_argc: i32, argv: *const *const c_char, envp: *const *const c_char) {
        // SAFETY: the loader passes the process's own argv and envp, and no other thread
        // exists before the library initialisers have run.
        unsafe { magcl::runtime::reexec_with_openmp_settings(argv, envp) }
    }
    preinit
};

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
