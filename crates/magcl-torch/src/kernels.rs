//! Operation-level kernels (`crates/magcl-torch/csrc/kernels.cpp`, compiled by `build.rs` against libtorch's
//! headers) behind safe wrappers: the sparse product (CSR on the CPU, libtorch's sparse
//! tensors on any device), training-mode batch norm and the GraphCL-style GIN layer's
//! MLP + batch norm. Each is a libtorch autograd function with its forward and backward
//! side by side; each wrapper chooses the kernel by device and kind, and otherwise (other
//! devices or kinds, or on request: [`with_reference_ops`]) runs the same operation as
//! plain libtorch operators. The model is written once, in `crate::nn`, in terms of these
//! operations. Also here: an asynchronous read-back of a scalar, and MKL's vendor check
//! (`crates/magcl-torch/csrc/kernels.cpp`, 4.; checked by this module's tests).
use std::cell::Cell;
use std::os::raw::c_char;

use tch::{Device, Kind, Tensor};
use torch_sys::C_tensor;

/// Opaque handle of a value being copied back (`crates/magcl-torch/csrc/kernels.cpp`).
#[repr(C)]
struct PendingScalarRaw {
    _private: [u8; 0],
}

/// Opaque handle of a backward pass's partner (`crates/magcl-torch/csrc/kernels.cpp`, 6.).
#[repr(C)]
struct PartnerRaw {
    _private: [u8; 0],
}

extern "C" {
    fn magcl_read_later(
        t: *const C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> *mut PendingScalarRaw;
    fn magcl_read_value(p: *mut PendingScalarRaw) -> f64;
    fn magcl_pending_free(p: *mut PendingScalarRaw);
    fn magcl_resolve_vector_math(err: *mut c_char, err_len: usize) -> i32;

    #[allow(clippy::too_many_arguments)]
    fn magcl_csr_matmul(
        x: *const C_tensor,
        rowptr: *const C_tensor,
        col: *const C_tensor,
        val: *const C_tensor,
        t_rowptr: *const C_tensor,
        t_col: *const C_tensor,
        t_val: *const C_tensor,
        rounded: i32,
        has_self: i32,
        self_weight: f64,
        err: *mut c_char,
        err_len: usize,
    ) -> *mut C_tensor;

    fn magcl_sparse_mm(
        x: *const C_tensor,
        a: *const C_tensor,
        at: *const C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> *mut C_tensor;

    #[allow(clippy::too_many_arguments)]
    fn magcl_gin_mlp_bn(
        x: *const C_tensor,
        w1: *const C_tensor,
        b1: *const C_tensor,
        w2: *const C_tensor,
        b2: *const C_tensor,
        gamma: *const C_tensor,
        beta: *const C_tensor,
        running_mean: *const C_tensor,
        running_var: *const C_tensor,
        momentum: f64,
        eps: f64,
        deferred: *const C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> *mut C_tensor;

    fn magcl_fold_deferred(
        running_mean: *const C_tensor,
        running_var: *const C_tensor,
        deferred: *const C_tensor,
        momentum: f64,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;

    fn magcl_set_grad(
        param: *const C_tensor,
        grad: *const C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;

    #[allow(clippy::too_many_arguments)]
    fn magcl_adam_step(
        param: *const C_tensor,
        exp_avg: *const C_tensor,
        exp_avg_sq: *const C_tensor,
        step: i64,
        lr: f64,
        beta1: f64,
        beta2: f64,
        eps: f64,
        weight_decay: f64,
        decoupled: i32,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;

    fn magcl_partner_new(strict: i32) -> *mut PartnerRaw;
    fn magcl_partner_free(p: *mut PartnerRaw);
    fn magcl_partner_attach(p: *mut PartnerRaw);
    fn magcl_partner_serve(p: *mut PartnerRaw);
    fn magcl_partner_stop(p: *mut PartnerRaw);
    fn magcl_partner_claimed(p: *const PartnerRaw) -> i64;

    #[allow(clippy::too_many_arguments)]
    fn magcl_batch_norm_train(
        x: *const C_tensor,
        weight: *const C_tensor,
        bias: *const C_tensor,
        running_mean: *const C_tensor,
        running_var: *const C_tensor,
        momentum: f64,
        eps: f64,
        deferred: *const C_tensor,
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
/// computes `Aᵀ · g` from `at`, the CSR arrays of Aᵀ. Each output element is a chain of
/// fused multiply-adds over the row's entries in order.
pub fn csr_matmul(x: &Tensor, a: &CsrArrays<'_>, at: &CsrArrays<'_>) -> Tensor {
    csr_matmul_with(x, a, at, false, None)
}

/// `(A + s·I) · x` for a square A, as [`csr_matmul`] (or [`csr_matmul_rounded`] when
/// `rounded`) followed by `+ x * s`, in one operation with the bits of those two: each
/// output row is A's row product, then `s · x_i` rounded and added (`csrc`, 1c). The
/// backward pass computes `Aᵀ g + s · g` the same way.
pub fn csr_matmul_plus_self(
    x: &Tensor,
    a: &CsrArrays<'_>,
    at: &CsrArrays<'_>,
    rounded: bool,
    s: f64,
) -> Tensor {
    csr_matmul_with(x, a, at, rounded, Some(s))
}

/// [`csr_matmul`] with every product rounded before it is added, over the row's entries
/// in order: the bits of the gather · weight → `index_add` form of a weighted message sum
/// (the backward pass likewise matches `index_select`'s backward).
pub fn csr_matmul_rounded(x: &Tensor, a: &CsrArrays<'_>, at: &CsrArrays<'_>) -> Tensor {
    csr_matmul_with(x, a, at, true, None)
}

fn csr_matmul_with(
    x: &Tensor,
    a: &CsrArrays<'_>,
    at: &CsrArrays<'_>,
    rounded: bool,
    self_weight: Option<f64>,
) -> Tensor {
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
            i32::from(rounded),
            i32::from(self_weight.is_some()),
            self_weight.unwrap_or(0.0),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    take(out, &err, "sparse product")
}

/// `A · x` for libtorch sparse matrices `a` (= A) and `at` (= Aᵀ) on any device; the
/// backward pass computes `Aᵀ · g` from `at` instead of transposing A each time.
pub fn sparse_mm(x: &Tensor, a: &Tensor, at: &Tensor) -> Tensor {
    let mut err = [0 as c_char; 512];
    // SAFETY: as for `csr_matmul`.
    let out = unsafe {
        magcl_sparse_mm(
            x.as_ptr(),
            a.as_ptr(),
            at.as_ptr(),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    take(out, &err, "sparse product")
}

thread_local! {
    /// Whether this thread runs every operation as plain libtorch operators.
    static REFERENCE_OPS: Cell<bool> = const { Cell::new(false) };
}

/// Whether operations started on this thread run as plain libtorch operators (the
/// reference form) instead of their kernels: see [`with_reference_ops`].
pub fn reference_ops() -> bool {
    REFERENCE_OPS.with(|c| c.get())
}

/// Runs `f` with every operation of this module, the sparse products
/// (`graph::SparseMatrix::mm`), the contrastive loss (`loss::InfoNce`)
/// and the optimiser (`train::optim::Adam`, when built inside `f`) in their
/// reference form: plain libtorch operators and libtorch's autograd, on every device. The
/// model code is the same either way; what changes is how each operation computes. The
/// differential tests train every method both ways and compare. The setting is per
/// thread (tests run in parallel) and restored afterwards, also on a panic.
pub fn with_reference_ops<R>(f: impl FnOnce() -> R) -> R {
    with_local(&REFERENCE_OPS, true, f)
}

/// Runs `f` with the thread-local `key` set to `value`, and puts the value it had back
/// afterwards, also on a panic: the one form of this crate's per-thread switches
/// ([`with_reference_ops`], `train::optim::with_tensor_adam`,
/// `train::branches::with_concurrency`).
pub(crate) fn with_local<T: Copy + 'static, R>(
    key: &'static std::thread::LocalKey<std::cell::Cell<T>>,
    value: T,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore<T: Copy + 'static> {
        key: &'static std::thread::LocalKey<std::cell::Cell<T>>,
        old: T,
    }
    impl<T: Copy + 'static> Drop for Restore<T> {
        fn drop(&mut self) {
            self.key.with(|c| c.set(self.old));
        }
    }
    let _restore = Restore {
        key,
        old: key.with(|c| c.replace(value)),
    };
    f()
}

/// Batch statistics of training-mode batch norms run under [`deferring_norm_updates`],
/// whose running estimates were left as they were; [`DeferredNorms::fold`] folds them in.
#[derive(Default)]
pub struct DeferredNorms(Vec<Deferred>);

/// One batch norm's statistics: its running buffers, the batch's means, sums of squared
/// deviations and row count (`2 C + 1` doubles), and its momentum.
struct Deferred {
    running_mean: Tensor,
    running_var: Tensor,
    stats: Tensor,
    momentum: f64,
}

thread_local! {
    /// Statistics held back on this thread, when [`deferring_norm_updates`] is running.
    static DEFERRED: std::cell::RefCell<Option<Vec<Deferred>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with the running-estimate updates of every training-mode batch norm it calls
/// on this thread held back: `f` sees the running estimates as they were, and what each
/// batch norm would have folded in comes back, in call order. Folding those afterwards
/// ([`DeferredNorms::fold`]) gives the estimates, bit for bit, that running `f` plainly
/// would have; this lets two branches of a step run concurrently over shared batch norms
/// and fold their statistics in a fixed order. Only the CPU kernels can hold back: a batch
/// norm that would take the libtorch form inside `f` panics (callers check
/// [`reference_ops`] and the device first).
pub fn deferring_norm_updates<R>(f: impl FnOnce() -> R) -> (R, DeferredNorms) {
    struct Restore(Option<Vec<Deferred>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEFERRED.with(|d| *d.borrow_mut() = self.0.take());
        }
    }
    let restore = Restore(DEFERRED.with(|d| d.borrow_mut().replace(Vec::new())));
    let out = f();
    let held = DEFERRED.with(|d| d.borrow_mut().take()).unwrap_or_default();
    drop(restore);
    (out, DeferredNorms(held))
}

impl DeferredNorms {
    /// Folds the held-back statistics into their running estimates, in call order.
    pub fn fold(self) {
        for d in self.0 {
            let mut err = [0 as c_char; 512];
            // SAFETY: live tensors for the duration of the call; the running buffers are
            // updated in place through their storage, as the in-place update does.
            let rc = unsafe {
                magcl_fold_deferred(
                    d.running_mean.as_ptr(),
                    d.running_var.as_ptr(),
                    d.stats.as_ptr(),
                    d.momentum,
                    err.as_mut_ptr(),
                    err.len(),
                )
            };
            if rc != 0 {
                // SAFETY: on failure the C++ side wrote a NUL-terminated message.
                let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
                panic!("folding batch statistics failed: {}", msg.to_string_lossy());
            }
        }
    }
}

/// The tensor a batch norm kernel writes its statistics to instead of updating the
/// running estimates, when this thread holds them back (an undefined tensor otherwise).
fn deferred_stats(running_mean: &Tensor, running_var: &Tensor, momentum: f64) -> Tensor {
    DEFERRED.with(|d| match d.borrow_mut().as_mut() {
        None => Tensor::new(),
        Some(held) => {
            let c = running_mean.numel() as i64;
            let stats = Tensor::zeros([2 * c + 1], (Kind::Double, Device::Cpu));
            held.push(Deferred {
                running_mean: running_mean.shallow_clone(),
                running_var: running_var.shallow_clone(),
                stats: stats.shallow_clone(),
                momentum,
            });
            stats
        }
    })
}

/// Whether this thread holds batch-norm updates back ([`deferring_norm_updates`]).
fn deferring() -> bool {
    DEFERRED.with(|d| d.borrow().is_some())
}

/// Whether `x` is what the CPU kernels of this module take: a CPU f32 `N × C` matrix with
/// at least two rows (training-mode batch norm needs two), and kernels are not turned off.
fn cpu_kernel_applies(x: &Tensor) -> bool {
    !reference_ops()
        && x.device() == Device::Cpu
        && x.kind() == Kind::Float
        && x.dim() == 2
        && x.size()[0] > 1
}

/// Training-mode batch normalisation of the rows of an `N × C` matrix with PyTorch's
/// semantics (biased variance to normalise; the running statistics, updated in place with
/// `momentum`, use the unbiased one). On the CPU (f32, affine) one kernel (`csrc`, 2.);
/// otherwise libtorch's batch norm.
pub fn batch_norm_train(
    x: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: &Tensor,
    running_var: &Tensor,
    momentum: f64,
    eps: f64,
) -> Tensor {
    let (weight, bias) = match (weight, bias) {
        (Some(w), Some(b)) if cpu_kernel_applies(x) => (w, b),
        _ => {
            assert!(
                !deferring(),
                "batch norm: running estimates can be held back only in the CPU kernel"
            );
            return batch_norm_libtorch(x, weight, bias, running_mean, running_var, momentum, eps);
        }
    };
    let deferred = deferred_stats(running_mean, running_var, momentum);
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
            deferred.as_ptr(),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    take(out, &err, "batch norm")
}

/// [`batch_norm_train`]'s reference form: libtorch's batch norm in training mode.
fn batch_norm_libtorch(
    x: &Tensor,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    running_mean: &Tensor,
    running_var: &Tensor,
    momentum: f64,
    eps: f64,
) -> Tensor {
    Tensor::batch_norm(
        x,
        weight,
        bias,
        Some(running_mean),
        Some(running_var),
        true,
        momentum,
        eps,
        true,
    )
}

/// The parameters of a [`gin_mlp_bn`] layer (its MLP's two linear layers, weights
/// `out × in`, and its batch norm's scale and shift), and the buffers its batch norm's
/// running estimates go to.
pub struct GinMlpBnParams<'a> {
    pub w1: &'a Tensor,
    pub b1: Option<&'a Tensor>,
    pub w2: &'a Tensor,
    pub b2: Option<&'a Tensor>,
    pub gamma: Option<&'a Tensor>,
    pub beta: Option<&'a Tensor>,
    pub running_mean: &'a Tensor,
    pub running_var: &'a Tensor,
}

/// `BN(ReLU(ReLU(x·W1ᵀ + b1)·W2ᵀ + b2))` in training mode, a GraphCL-style GIN layer
/// after its propagation (batch norm with [`batch_norm_train`]'s semantics, running
/// estimates updated in place with `momentum`). On the CPU (f32, biases and an affine
/// batch norm) one autograd node (`csrc`, 2b); otherwise the same as libtorch operators.
pub fn gin_mlp_bn(x: &Tensor, p: &GinMlpBnParams<'_>, momentum: f64, eps: f64) -> Tensor {
    let (Some(b1), Some(b2), Some(gamma), Some(beta), true) =
        (p.b1, p.b2, p.gamma, p.beta, cpu_kernel_applies(x))
    else {
        let h = x.linear(p.w1, p.b1).relu().linear(p.w2, p.b2).relu();
        return batch_norm_train(
            &h,
            p.gamma,
            p.beta,
            p.running_mean,
            p.running_var,
            momentum,
            eps,
        );
    };
    let deferred = deferred_stats(p.running_mean, p.running_var, momentum);
    let mut err = [0 as c_char; 512];
    // SAFETY: as for `batch_norm_train`.
    let out = unsafe {
        magcl_gin_mlp_bn(
            x.as_ptr(),
            p.w1.as_ptr(),
            b1.as_ptr(),
            p.w2.as_ptr(),
            b2.as_ptr(),
            gamma.as_ptr(),
            beta.as_ptr(),
            p.running_mean.as_ptr(),
            p.running_var.as_ptr(),
            momentum,
            eps,
            deferred.as_ptr(),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    take(out, &err, "GIN layer")
}

/// A second thread for one thread's backward pass (`crates/magcl-torch/csrc/kernels.cpp`, 6.): while the
/// thread that [`Partner::attach`]es it runs kernels, the thread in [`Partner::serve`]
/// may run the products that leave the gradient chain — [`gin_mlp_bn`]'s weight
/// gradients — while the first goes on along the chain. A task the partner has not
/// claimed yet when its result is needed is run by the attached thread itself, so nothing
/// waits for a thread to wake up; each product is computed whole, by the same call, on
/// one thread or the other, so the numbers do not depend on who ran what.
/// [`crate::train::branches::with_partner`] sets one up around a backward pass.
pub struct Partner {
    raw: *mut PartnerRaw,
}

// SAFETY: the C++ side is made for two threads: the attached one posts and takes back
// tasks, the serving one claims and runs them, through atomics.
unsafe impl Send for Partner {}
unsafe impl Sync for Partner {}

impl Partner {
    /// A partner; `strict` (tests): every task posted while it serves waits until the
    /// partner has claimed it, so that tasks are certain to run on the serving thread.
    pub fn new(strict: bool) -> Partner {
        // SAFETY: allocates a fresh partner, freed in `drop`.
        Partner {
            raw: unsafe { magcl_partner_new(i32::from(strict)) },
        }
    }

    /// Runs `f` with this partner attached to this thread (its kernels may hand tasks to
    /// the serving thread), then tells the serving thread to stop, also on a panic.
    pub fn attach<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Detach<'a>(&'a Partner);
        impl Drop for Detach<'_> {
            fn drop(&mut self) {
                // SAFETY: the partner is alive (borrowed); detaching touches this thread's
                // pointer only, and stopping is an atomic store.
                unsafe {
                    magcl_partner_attach(std::ptr::null_mut());
                    magcl_partner_stop(self.0.raw);
                }
            }
        }
        // SAFETY: the partner outlives the attachment, which `Detach` ends.
        unsafe { magcl_partner_attach(self.raw) };
        let _detach = Detach(self);
        f()
    }

    /// Serves the attached thread until it is done (returns at once if it already is).
    pub fn serve(&self) {
        // SAFETY: the partner is alive for the call (borrowed); tasks are run with
        // libtorch's gradient recording off.
        unsafe { magcl_partner_serve(self.raw) }
    }

    /// How many tasks the serving thread has run.
    pub fn claimed(&self) -> i64 {
        // SAFETY: an atomic read of a live partner.
        unsafe { magcl_partner_claimed(self.raw) }
    }
}

impl Drop for Partner {
    fn drop(&mut self) {
        // SAFETY: neither `serve` nor `attach` can still be running: both borrow `self`.
        unsafe { magcl_partner_free(self.raw) }
    }
}

/// The elements of a contiguous f32 CPU tensor, or `None` for any other tensor.
pub fn cpu_f32(t: &Tensor) -> Option<&[f32]> {
    if t.device() != Device::Cpu || t.kind() != Kind::Float || !t.is_contiguous() {
        return None;
    }
    let n = t.numel();
    // SAFETY: a contiguous f32 CPU tensor holds `n` f32 values at its data pointer, alive as
    // long as the borrowed tensor (callers do not resize it meanwhile).
    Some(unsafe { std::slice::from_raw_parts(t.data_ptr() as *const f32, n) })
}

/// [`cpu_f32`] for writing. The caller must be the only user of the storage while the
/// slice lives (libtorch tensors share storage through handles the borrow checker does
/// not see).
#[allow(clippy::mut_from_ref)]
pub fn cpu_f32_mut(t: &Tensor) -> Option<&mut [f32]> {
    if t.device() != Device::Cpu || t.kind() != Kind::Float || !t.is_contiguous() {
        return None;
    }
    let n = t.numel();
    // SAFETY: as for `cpu_f32`; exclusive use is the caller's obligation (documented).
    Some(unsafe { std::slice::from_raw_parts_mut(t.data_ptr() as *mut f32, n) })
}

/// Makes `grad` the gradient of the leaf `param` (what an optimiser step reads next),
/// replacing whatever was there; an undefined `grad` (`Tensor::new()`) removes it, so an
/// optimiser step skips the parameter. Panics on a shape mismatch.
pub fn set_grad(param: &Tensor, grad: &Tensor) {
    let mut err = [0 as c_char; 512];
    // SAFETY: both pointers are live tensors for the call; the C++ side stores its own
    // reference-counted handle to `grad`.
    let rc = unsafe { magcl_set_grad(param.as_ptr(), grad.as_ptr(), err.as_mut_ptr(), err.len()) };
    if rc != 0 {
        // SAFETY: on failure the C++ side wrote a NUL-terminated message into `err`.
        let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
        panic!("set_grad failed: {}", msg.to_string_lossy());
    }
}

/// Settles, once per process, which kernel each of MKL's vector-math functions runs
/// (`crates/magcl-torch/csrc/kernels.cpp`, 9.): libtorch's CPU exp, log, sqrt, tanh, ... call
/// them from every thread of a parallel region, and MKL picks a function's kernel at its
/// first call, which two threads making at once may leave one of them running a
/// low-accuracy kernel for that call (pytorch/pytorch#188792): a run's numbers then
/// changed, rarely, from one run to the next at two or more threads. The `magcl-torch`
/// binary calls this at start-up, before any work; call it before any libtorch work that
/// runs on several threads (the unit tests' `rng::torch_lock` does). Idempotent.
pub fn resolve_vector_math() {
    let mut err = [0 as c_char; 512];
    // SAFETY: `err` outlives the call, which writes at most `err.len()` bytes into it.
    if unsafe { magcl_resolve_vector_math(err.as_mut_ptr(), err.len()) } != 0 {
        // SAFETY: on failure the C++ side wrote a NUL-terminated message into `err`.
        let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
        panic!("resolve_vector_math failed: {}", msg.to_string_lossy());
    }
}

/// Adam's settings for [`adam_step`].
#[derive(Clone, Copy, Debug)]
pub struct AdamStep {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    /// AdamW's decoupled decay (`p ← p·(1 − lr·wd)` first) instead of L2 (`g + wd·p`).
    pub decoupled: bool,
}

/// One step of libtorch's Adam (or AdamW) on `param`, which has a gradient, with its
/// moments `exp_avg` and `exp_avg_sq` (updated in place) and `step` its step count
/// including this one: libtorch's operators in libtorch's order (`crates/magcl-torch/csrc/kernels.cpp`, 8.),
/// on the parameter's device.
pub fn adam_step(param: &Tensor, exp_avg: &Tensor, exp_avg_sq: &Tensor, step: i64, s: AdamStep) {
    let mut err = [0 as c_char; 512];
    // SAFETY: the three tensors are live for the call; the C++ side keeps no handle.
    let rc = unsafe {
        magcl_adam_step(
            param.as_ptr(),
            exp_avg.as_ptr(),
            exp_avg_sq.as_ptr(),
            step,
            s.lr,
            s.beta1,
            s.beta2,
            s.eps,
            s.weight_decay,
            s.decoupled as i32,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if rc != 0 {
        // SAFETY: on failure the C++ side wrote a NUL-terminated message into `err`.
        let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
        panic!("adam_step failed: {}", msg.to_string_lossy());
    }
}

/// A one-element tensor's value on its way to the host: the copy is queued behind the work
/// that computes it, and [`PendingScalar::value`] waits for that copy only (not for work
/// queued later, as a plain read would on CUDA). On the CPU the value is ready at once.
pub struct PendingScalar(*mut PendingScalarRaw);

impl PendingScalar {
    /// Queues the copy of `t` (one element, any device and float kind).
    pub fn new(t: &Tensor) -> PendingScalar {
        let mut err = [0 as c_char; 512];
        // SAFETY: `t` is a live tensor for the call; the C++ side keeps its own handle.
        let p = unsafe { magcl_read_later(t.as_ptr(), err.as_mut_ptr(), err.len()) };
        if p.is_null() {
            // SAFETY: on failure the C++ side wrote a NUL-terminated message into `err`.
            let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
            panic!("read_later failed: {}", msg.to_string_lossy());
        }
        PendingScalar(p)
    }

    /// Waits for the copy and returns the value.
    pub fn value(self) -> f64 {
        // SAFETY: the handle is live until `drop` below.
        unsafe { magcl_read_value(self.0) }
    }
}

impl Drop for PendingScalar {
    fn drop(&mut self) {
        // SAFETY: the handle came from `magcl_read_later` and is freed once.
        unsafe { magcl_pending_free(self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    extern "C" {
        /// Defined in `crates/magcl-torch/csrc/kernels.cpp` (4.) and exported by every executable (`build.rs`).
        fn mkl_serv_intel_cpu_true() -> std::os::raw::c_int;
        /// `crates/magcl-torch/csrc/kernels.cpp`: how many threads an `at::parallel_for` there ran on.
        fn magcl_parallel_for_threads(n: i64) -> i64;
    }

    /// The kernels' row loops (`at::parallel_for`) split over libtorch's threads as
    /// libtorch's own operations do: `build.rs` compiles them with OpenMP against the
    /// libgomp libtorch ships (without it they ran on one thread at any thread count).
    #[test]
    fn kernel_loops_split_over_libtorchs_threads() {
        let _g = crate::rng::torch_lock();
        let mut used = Vec::new();
        for t in [1, 2, 3] {
            let _t = crate::runtime::TorchThreads::set(t);
            // SAFETY: takes and returns integers; runs a loop over libtorch's threads.
            used.push(unsafe { magcl_parallel_for_threads(64) });
        }
        let want = if cfg!(magcl_kernels_openmp) {
            vec![1, 2, 3]
        } else {
            vec![1, 1, 1]
        };
        assert_eq!(used, want);
    }

    /// Once MKL's vector-math kernels are settled (`torch_lock` does it), libtorch's float
    /// unary operators give the same bits at one, two and three threads: each element is
    /// computed alone, by the same kernel whichever thread's chunk holds it. (The race that
    /// `resolve_vector_math` prevents shows in a few fresh processes in a thousand, so a
    /// test inside one process cannot provoke it; this checks what the settled state
    /// promises.)
    #[test]
    fn unary_operators_give_the_same_bits_at_any_thread_count() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(21);
        for kind in [Kind::Float, Kind::Double] {
            // 3 × 8192 elements: split over threads at two and three (libtorch's grain
            // for these operators is 2048 elements); in (0, 1), valid for every operator
            let x = Tensor::rand([3, 8192], (kind, Device::Cpu)) * 0.98 + 0.01;
            type UnaryOp = fn(&Tensor) -> Tensor;
            let ops: [(&str, UnaryOp); 12] = [
                ("exp", |x| x.exp()),
                ("log", |x| x.log()),
                ("log1p", |x| x.log1p()),
                ("expm1", |x| x.expm1()),
                ("sqrt", |x| x.sqrt()),
                ("tanh", |x| x.tanh()),
                ("erf", |x| x.erf()),
                ("erfinv", |x| x.erfinv()),
                ("sin", |x| x.sin()),
                ("cos", |x| x.cos()),
                ("asin", |x| x.asin()),
                ("log2", |x| x.log2()),
            ];
            for (name, op) in ops {
                let at = |t: i32| {
                    let _t = crate::runtime::TorchThreads::set(t);
                    op(&x)
                };
                let one = at(1);
                for t in [2, 3] {
                    assert!(one.equal(&at(t)), "{name} ({kind:?}) at {t} threads");
                }
            }
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn mkl_asks_magcl_for_the_cpu_vendor() {
        // The global symbol lookup (what libtorch_cpu's call goes through) must find the
        // executable's exported definition, not MKL's own, and it must say "Intel" unless
        // MAGCL_MKL_VENDOR_CHECK=1 hands the question back to MKL.
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol
        // up; `mkl_serv_intel_cpu_true` takes no arguments and reads the environment once.
        let (found, answer) = unsafe {
            (
                libc::dlsym(libc::RTLD_DEFAULT, c"mkl_serv_intel_cpu_true".as_ptr()),
                mkl_serv_intel_cpu_true(),
            )
        };
        let ours = mkl_serv_intel_cpu_true as *const libc::c_void;
        assert!(std::ptr::eq(found as *const libc::c_void, ours));
        if std::env::var_os("MAGCL_MKL_VENDOR_CHECK").is_none() {
            assert_eq!(answer, 1);
        }
    }

    /// A random CSR matrix (rows × cols, up to `per_row` entries a row, some rows empty).
    fn random_csr(
        rows: usize,
        cols: usize,
        per_row: usize,
        seed: u64,
    ) -> (Vec<i64>, Vec<i64>, Vec<f32>) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let (mut rowptr, mut col, mut val) = (vec![0i64], Vec::new(), Vec::new());
        for _ in 0..rows {
            for _ in 0..rng.gen_range(0..=per_row) {
                col.push(rng.gen_range(0..cols) as i64);
                val.push(rng.gen_range(-1.0f32..1.0));
            }
            rowptr.push(col.len() as i64);
        }
        (rowptr, col, val)
    }

    #[test]
    fn csr_product_is_the_in_order_fused_multiply_add_sum() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // Each output element is fma(val[k], x[col[k]][j], acc) over the row's entries in
        // order, from 0 — the same bits whichever width the kernel processes columns in
        // (widths 1–96 cover the 32-, 8- and 1-column parts). Without FMA in the CPU the
        // kernel rounds each product separately, so the check needs it.
        #[cfg(target_arch = "x86_64")]
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            return;
        }
        // square, so that the matrix passes as its own transpose (only the forward is checked)
        let (rows, cols) = (23, 23);
        let (rowptr, col, val) = random_csr(rows, cols, 6, 7);
        let rp = Tensor::from_slice(&rowptr);
        let ci = Tensor::from_slice(&col);
        let vv = Tensor::from_slice(&val);
        let arrays = CsrArrays {
            rowptr: &rp,
            col: &ci,
            val: &vv,
        };
        for d in [1usize, 7, 8, 9, 31, 32, 33, 40, 64, 96] {
            let x = Tensor::randn([cols as i64, d as i64], (Kind::Float, Device::Cpu));
            let xs = Vec::<f32>::try_from(x.flatten(0, -1)).unwrap();
            let got =
                Vec::<f32>::try_from(csr_matmul(&x, &arrays, &arrays).flatten(0, -1)).unwrap();
            for i in 0..rows {
                for j in 0..d {
                    let mut acc = 0.0f32;
                    for k in rowptr[i] as usize..rowptr[i + 1] as usize {
                        acc = val[k].mul_add(xs[col[k] as usize * d + j], acc);
                    }
                    assert_eq!(
                        got[i * d + j].to_bits(),
                        acc.to_bits(),
                        "d {d}, entry ({i}, {j})"
                    );
                }
            }
        }
    }

    #[test]
    fn pending_scalar_reads_the_value_it_was_given() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let t = Tensor::from_slice(&[1.25f32]).view([]);
        let p = PendingScalar::new(&t);
        // later changes to the tensor do not reach the copy
        let mut t = t;
        let _ = t.fill_(7.0);
        assert_eq!(p.value(), 1.25);
        let d = Tensor::full([1, 1], -3.5, (Kind::Double, Device::Cpu));
        assert_eq!(PendingScalar::new(&d).value(), -3.5);
    }

    #[test]
    fn set_grad_installs_the_gradient_an_optimiser_reads() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let p = Tensor::zeros([2], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        assert!(!p.grad().defined());
        set_grad(&p, &Tensor::from_slice(&[1.0f32, -2.0]));
        assert_eq!(Vec::<f32>::try_from(p.grad()).unwrap(), vec![1.0, -2.0]);
        // replaced, not accumulated
        set_grad(&p, &Tensor::from_slice(&[0.5f32, 0.25]));
        assert_eq!(Vec::<f32>::try_from(p.grad()).unwrap(), vec![0.5, 0.25]);
        set_grad(&p, &Tensor::new());
        assert!(!p.grad().defined());
    }

    #[test]
    #[should_panic(expected = "gradient of shape")]
    fn set_grad_rejects_a_wrong_shape() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let p = Tensor::zeros([2], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        set_grad(&p, &Tensor::zeros([3], (Kind::Float, Device::Cpu)));
    }

    #[test]
    #[should_panic(expected = "expected one value")]
    fn pending_scalar_rejects_more_than_one_value() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let _ = PendingScalar::new(&Tensor::zeros([2], (Kind::Float, Device::Cpu)));
    }
}
