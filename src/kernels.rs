//! Safe wrappers around the CPU autograd kernels of `csrc/kernels.cpp` (compiled by
//! `build.rs` against libtorch's headers). Both take and return ordinary tch tensors and
//! take part in autograd like built-in operations.
use std::os::raw::c_char;

use tch::Tensor;
use torch_sys::C_tensor;

extern "C" {
    #[allow(clippy::too_many_arguments)]
    fn magcl_csr_matmul(
        x: *const C_tensor,
        rowptr: *const C_tensor,
        col: *const C_tensor,
        val: *const C_tensor,
        t_rowptr: *const C_tensor,
        t_col: *const C_tensor,
        t_val: *const C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> *mut C_tensor;

    #[allow(clippy::too_many_arguments)]
    fn magcl_batch_norm_train(
        x: *const C_tensor,
        weight: *const C_tensor,
        bias: *const C_tensor,
        running_mean: *const C_tensor,
        running_var: *const C_tensor,
        momentum: f64,
        eps: f64,
        err: *mut c_char,
        err_len: usize,
    ) -> *mut C_tensor;
}

/// Takes ownership of a tensor returned by a kernel, or panics with its error message
/// (the kernels only fail on programming errors: wrong shapes, kinds or devices).
fn take(out: *mut C_tensor, err: &[c_char], what: &str) -> Tensor {
    if out.is_null() {
        // SAFETY: on failure the C++ side wrote a NUL-terminated message into `err`.
        let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
        panic!("{what} failed: {}", msg.to_string_lossy());
    }
    // SAFETY: a non-null result is a fresh heap tensor whose ownership passes to us.
    unsafe { Tensor::from_ptr(out) }
}

/// CSR arrays of a sparse matrix: row pointers and column indices (i64), values (f32),
/// all contiguous on the CPU.
pub struct CsrArrays<'a> {
    pub rowptr: &'a Tensor,
    pub col: &'a Tensor,
    pub val: &'a Tensor,
}

/// `A · x` for a CPU f32 `x` whose rows are indexed by A's columns; the backward pass
/// computes `Aᵀ · g` from `at`, the CSR arrays of Aᵀ.
pub fn csr_matmul(x: &Tensor, a: &CsrArrays<'_>, at: &CsrArrays<'_>) -> Tensor {
    let mut err = [0 as c_char; 512];
    // SAFETY: every pointer is a live tensor borrowed for the duration of the call; the
    // C++ side keeps reference-counted handles, never the pointers themselves.
    let out = unsafe {
        magcl_csr_matmul(
            x.as_ptr(),
            a.rowptr.as_ptr(),
            a.col.as_ptr(),
            a.val.as_ptr(),
            at.rowptr.as_ptr(),
            at.col.as_ptr(),
            at.val.as_ptr(),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    take(out, &err, "sparse product")
}

/// Training-mode batch normalisation of the rows of a CPU f32 `N × C` matrix with
/// PyTorch's semantics (biased variance to normalise; the running statistics, updated in
/// place, use the unbiased one).
pub fn batch_norm_train(
    x: &Tensor,
    weight: &Tensor,
    bias: &Tensor,
    running_mean: &Tensor,
    running_var: &Tensor,
    momentum: f64,
    eps: f64,
) -> Tensor {
    let mut err = [0 as c_char; 512];
    // SAFETY: as for `csr_matmul`; the running buffers are updated in place through
    // their (shared) storage, which is what PyTorch's batch norm does too.
    let out = unsafe {
        magcl_batch_norm_train(
            x.as_ptr(),
            weight.as_ptr(),
            bias.as_ptr(),
            running_mean.as_ptr(),
            running_var.as_ptr(),
            momentum,
            eps,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    take(out, &err, "batch norm")
}
