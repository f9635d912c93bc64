//! Process-wide settings applied once at start-up by the `magcl` binary.

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
