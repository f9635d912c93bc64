//! Process-wide settings applied once at start-up by the `magcl` binary.

use std::ffi::{c_char, CStr, CString};

/// How many times a libtorch OpenMP thread polls for work or for its team-mates at a
/// barrier before it sleeps, unless the user chose (`GOMP_SPINCOUNT` / `OMP_WAIT_POLICY`).
///
/// libgomp's default is 300 000 polls (milliseconds), and libtorch enters a parallel region
/// for nearly every operation. On a machine where another process keeps a core busy, a
/// thread that polls that long takes the CPU from the very team-mate it waits for, which
/// then finishes its share only when the scheduler next lets it run: every operation costs
/// a time slice, and a run that takes 9 s alone took more than 11 minutes
/// (`benchmarks-history:benchmarks/history/busy/README.md`). Sleeping at once (0) fixed that but made every
/// wait pay a wake-up, which on a quiet machine cost node-level training (the one default
/// that trains on several libtorch threads) up to 10–20% against libgomp's spinning. 10 000
/// polls (a fraction of a millisecond) keep the spinning's speed alone and most of the
/// sleeping's beside a busy core: Cora's epoch at the defaults on the 2-core VM 0.96×
/// libgomp's default alone (sleeping at once: 1.01) and 2.0× its quiet time beside a busy
/// core (sleeping: 1.7; libgomp's default: 2.5); on the 16-core Xeon 0.98× and 2.1×
/// (sleeping: 1.12 and 1.3; libgomp's default beside a busy core: 16×);
/// `benchmarks-history:benchmarks/history/thread_defaults/spin_counts_node/` (`vm_omp/`, `xeon_omp/`).
/// Graph-level runs at their defaults train on one libtorch thread and never wait here.
pub const OPENMP_SPIN_COUNT: &str = "10000";

/// The settings libgomp should start with, as `NAME=VALUE` entries to add to an environment
/// that lacks them (empty: nothing to change):
/// - `GOMP_SPINCOUNT=`[`OPENMP_SPIN_COUNT`] unless `OMP_WAIT_POLICY` or `GOMP_SPINCOUNT` is
///   set: waiting threads poll briefly, then sleep, so a busy machine slows a run down by
///   about the share of the CPU it lacks, not by orders of magnitude;
/// - `OMP_NUM_THREADS=N` unless set, where a cgroup CPU quota (a container's `--cpus`, a
///   Slurm or systemd limit) allows only N CPUs, fewer than the affinity mask holds:
///   libgomp counts the affinity mask only, and more threads than the quota allows spend
///   their time descheduled while the others wait for them.
///
/// `is_set(NAME)` says whether the environment has the variable.
pub fn openmp_settings(is_set: impl Fn(&str) -> bool) -> Vec<String> {
    let mut add = Vec::new();
    if !is_set("OMP_WAIT_POLICY") && !is_set("GOMP_SPINCOUNT") {
        add.push(format!("GOMP_SPINCOUNT={OPENMP_SPIN_COUNT}"));
    }
    if !is_set("OMP_NUM_THREADS") {
        if let Some(n) = quota_limited_cpus() {
            add.push(format!("OMP_NUM_THREADS={n}"));
        }
    }
    add
}

/// Starts the `magcl` binary again with [`openmp_settings`] added to its environment, when
/// there are any to add; returns only when there are none or the new start failed (the
/// process then goes on with libgomp's defaults).
///
/// libgomp reads its environment once, in its initialiser, which runs before `main`
/// (libtorch links it), and glibc's own initialiser resets the environment to the one the
/// process was started with, so a `setenv` before `main` does not reach libgomp. The
/// binary therefore calls this from its `.preinit_array`, which the dynamic loader runs
/// before any library initialiser: the new start costs the loading and relocation of the
/// libraries (about 10–30 ms), not libtorch's initialisers. The new process keeps the
/// process id, arguments, open files and the rest of the environment, and its name (see
/// `restore_process_name`); the settings are inherited by the processes it starts
/// (`magcl bench` workers), which therefore start once.
///
/// # Safety
/// `argv` and `envp` must be the NULL-terminated argument and environment arrays the
/// process was started with (the arguments the loader passes to `.preinit_array`
/// functions), and no other thread may exist.
pub unsafe fn reexec_with_openmp_settings(argv: *const *const c_char, envp: *const *const c_char) {
    if argv.is_null() || envp.is_null() {
        return;
    }
    // SAFETY: per the contract, envp is a NULL-terminated array of C strings.
    let env: Vec<*const c_char> = unsafe {
        let mut v = Vec::new();
        let mut p = envp;
        while !(*p).is_null() {
            v.push(*p);
            p = p.add(1);
        }
        v
    };
    let names: Vec<&[u8]> = env
        .iter()
        // SAFETY: each entry is a C string that lives as long as the process.
        .map(|&e| unsafe { CStr::from_ptr(e) }.to_bytes())
        .map(|e| e.split(|&b| b == b'=').next().unwrap_or(e))
        .collect();
    let add = openmp_settings(|name| names.contains(&name.as_bytes()));
    if add.is_empty() {
        #[cfg(target_os = "linux")]
        restore_process_name();
        return;
    }
    let add: Vec<CString> = add
        .into_iter()
        .filter_map(|a| CString::new(a).ok())
        .collect();
    let mut new_env = env;
    new_env.extend(add.iter().map(|a| a.as_ptr()));
    new_env.push(std::ptr::null());
    // SAFETY: a NUL-terminated path, the caller's argv and a NULL-terminated environment
    // whose strings outlive the call; execve returns only on failure.
    unsafe {
        libc::execve(c"/proc/self/exe".as_ptr(), argv, new_env.as_ptr());
    }
}

/// Names the process after its executable again when the start through `/proc/self/exe`
/// left it named `exe`: the kernel names a process after the last part of the path given
/// to execve(2), and `ps`, `top` and `pkill -x magcl-torch` go by that name. A bench's own
/// process went unmatched that way while its workers (started by their path) were killed,
/// and it went on to start new cells. The kernel keeps at most 15 bytes of a name.
#[cfg(target_os = "linux")]
fn restore_process_name() {
    use std::os::unix::ffi::OsStrExt;
    let mut now = [0u8; 16];
    // SAFETY: PR_GET_NAME writes at most 16 bytes, the last a NUL, into the buffer.
    if unsafe { libc::prctl(libc::PR_GET_NAME, now.as_mut_ptr() as libc::c_ulong) } != 0 {
        return;
    }
    if CStr::from_bytes_until_nul(&now).map(CStr::to_bytes) != Ok(b"exe".as_slice()) {
        return;
    }
    let Ok(path) = std::fs::read_link("/proc/self/exe") else {
        return;
    };
    let Some(file) = path.file_name() else {
        return;
    };
    let file = file.as_bytes();
    let file = file.strip_suffix(b" (deleted)").unwrap_or(file);
    let mut name = [0u8; 16];
    let n = file.len().min(15);
    name[..n].copy_from_slice(&file[..n]);
    // SAFETY: a NUL-terminated buffer of 16 bytes, which PR_SET_NAME reads at most.
    unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr() as libc::c_ulong) };
}

/// The cores this process may use (Rust's count: affinity mask and cgroup quota; 1 when
/// unknown).
pub fn usable_cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The CPUs this process may use (Rust's count: affinity mask and cgroup quota) when that
/// is fewer than the affinity mask alone (libgomp's default thread count); `None` when the
/// two agree or either is unknown.
fn quota_limited_cpus() -> Option<usize> {
    let usable = std::thread::available_parallelism().ok()?.get();
    let affinity = affinity_cpus()?;
    (usable < affinity).then_some(usable)
}

/// The number of CPUs in this process's affinity mask.
fn affinity_cpus() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity writes at most
        // size_of::<cpu_set_t>() bytes into it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
                let n = libc::CPU_COUNT(&set);
                return (n > 0).then_some(n as usize);
            }
        }
        None
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Keeps freed tensor memory in the process instead of returning it to the kernel.
///
/// glibc serves large allocations (a 2708 × 512 activation is 5.5 MB) with fresh `mmap`s
/// by default, so every tensor op pays page faults and page zeroing: on the node-level
/// model this made the optimiser step 10× and the backward pass 3–4× slower. Raising the
/// mmap and trim thresholds lets freed blocks be reused.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tuning parameters; called before any threads
    // allocate concurrently.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

/// Makes libtorch print its one-time "sparse CSR support is in beta" notice now, into
/// /dev/null, so that it does not interleave with magcl's own output. (libtorch reads its
/// log level before `main`, so the notice cannot be configured away from here.)
pub fn quiet_libtorch() {
    use tch::{Device, Kind, Tensor};
    #[cfg(unix)]
    // SAFETY: plain file-descriptor juggling on fd 2, restored before returning; no other
    // thread writes to stderr this early.
    unsafe {
        let saved = libc::dup(2);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
        if saved >= 0 && null >= 0 {
            libc::dup2(null, 2);
        }
        let _ = Tensor::f_sparse_csr_tensor_crow_col_value_size(
            &Tensor::from_slice(&[0i64, 1]),
            &Tensor::from_slice(&[0i64]),
            &Tensor::from_slice(&[1.0f32]),
            [1, 1],
            (Kind::Float, Device::Cpu),
        );
        if saved >= 0 {
            libc::dup2(saved, 2);
            libc::close(saved);
        }
        if null >= 0 {
            libc::close(null);
        }
    }
}

/// The CPU model from /proc/cpuinfo.
pub fn machine() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Sets libtorch's intra-op thread count on this thread to `n` until dropped, then puts
/// back the count it found (also when a panic unwinds through it).
pub(crate) struct TorchThreads(i32);

impl TorchThreads {
    pub(crate) fn set(n: i32) -> Self {
        let before = tch::get_num_threads();
        tch::set_num_threads(n);
        TorchThreads(before)
    }
}

impl Drop for TorchThreads {
    fn drop(&mut self) {
        tch::set_num_threads(self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openmp_settings_leave_the_users_choice_alone() {
        let spin = format!("GOMP_SPINCOUNT={OPENMP_SPIN_COUNT}");
        let none = openmp_settings(|_| false);
        assert!(none.contains(&spin), "{none:?}");
        for name in ["OMP_WAIT_POLICY", "GOMP_SPINCOUNT"] {
            let set = openmp_settings(|n| n == name);
            assert!(
                !set.iter().any(|s| s.starts_with("GOMP_SPINCOUNT=")),
                "{name}: {set:?}"
            );
        }
        // With every variable set there is nothing to add, so the binary starts only once.
        assert!(openmp_settings(|_| true).is_empty());
        // A thread count is added only under a quota smaller than the affinity mask, and
        // then names a number of CPUs the process may use.
        for s in none.iter().filter(|s| s.starts_with("OMP_NUM_THREADS=")) {
            let n: usize = s["OMP_NUM_THREADS=".len()..].parse().unwrap();
            assert!(n >= 1 && n < affinity_cpus().unwrap(), "{s}");
        }
    }
}
