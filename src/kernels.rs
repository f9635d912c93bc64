//! Safe wrappers around `csrc/kernels.cpp` (compiled by `build.rs` against libtorch's
//! headers): the CPU autograd kernels (sparse product, batch norm, a fused GIN layer) and
//! a sparse product for any device, which take and return ordinary tch tensors and take
//! part in autograd like built-in operations; GraphCL's CPU step in plain code without
//! autograd ([`view_forward`] / [`ViewTape::backward`] for a view, [`info_nce`] for the
//! loss); and an asynchronous read-back of a scalar. The same library answers MKL's
//! vendor check (`csrc/kernels.cpp`, 4.; checked by this module's tests).
use std::os::raw::c_char;

use tch::{Device, Kind, Tensor};
use torch_sys::C_tensor;

use crate::loss::InfoNceParams;

/// Opaque handle of a value being copied back (`csrc/kernels.cpp`).
#[repr(C)]
struct PendingScalarRaw {
    _private: [u8; 0],
}

/// Opaque handle of a view's forward state (`csrc/kernels.cpp`, 5.).
#[repr(C)]
struct ViewTapeRaw {
    _private: [u8; 0],
}

extern "C" {
    #[allow(clippy::too_many_arguments)]
    fn magcl_view_forward(
        t: *const *const C_tensor,
        layers: i64,
        steps: *const i64,
        steps_len: i64,
        self_scale: f64,
        bn_eps: f64,
        z: *mut *mut C_tensor,
        stats: *mut *mut C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> *mut ViewTapeRaw;
    fn magcl_view_backward(
        v: *const ViewTapeRaw,
        dz: *const C_tensor,
        grads: *mut *mut C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;
    fn magcl_view_free(v: *mut ViewTapeRaw);

    #[allow(clippy::too_many_arguments)]
    fn magcl_info_nce(
        z1: *const C_tensor,
        z2: *const C_tensor,
        temperature: f64,
        positive_in_denominator: i32,
        symmetric: i32,
        intra: i32,
        value: *mut f64,
        g1: *mut *mut C_tensor,
        g2: *mut *mut C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;

    fn magcl_read_later(
        t: *const C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> *mut PendingScalarRaw;
    fn magcl_read_value(p: *mut PendingScalarRaw) -> f64;
    fn magcl_pending_free(p: *mut PendingScalarRaw);

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
        err: *mut c_char,
        err_len: usize,
    ) -> *mut C_tensor;

    fn magcl_set_grad(
        param: *const C_tensor,
        grad: *const C_tensor,
        err: *mut c_char,
        err_len: usize,
    ) -> i32;

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
/// computes `Aᵀ · g` from `at`, the CSR arrays of Aᵀ. Each output element is a chain of
/// fused multiply-adds over the row's entries in order.
pub fn csr_matmul(x: &Tensor, a: &CsrArrays<'_>, at: &CsrArrays<'_>) -> Tensor {
    csr_matmul_with(x, a, at, false)
}

/// [`csr_matmul`] with every product rounded before it is added, over the row's entries
/// in order: the bits of the gather · weight → `index_add` form of a weighted message sum
/// (the backward pass likewise matches `index_select`'s backward).
pub fn csr_matmul_rounded(x: &Tensor, a: &CsrArrays<'_>, at: &CsrArrays<'_>) -> Tensor {
    csr_matmul_with(x, a, at, true)
}

fn csr_matmul_with(x: &Tensor, a: &CsrArrays<'_>, at: &CsrArrays<'_>, rounded: bool) -> Tensor {
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

/// The parameters of a [`gin_mlp_bn`] layer, and the buffers its batch norm's running
/// estimates go to.
pub struct GinMlpBnParams<'a> {
    pub layer: LayerParams<'a>,
    pub running_mean: &'a Tensor,
    pub running_var: &'a Tensor,
}

/// `BN(ReLU(ReLU(x·W1ᵀ + b1)·W2ᵀ + b2))` in training mode for a CPU f32 `N × C` matrix,
/// as one autograd node (a GraphCL-style GIN layer after its propagation; batch norm with
/// [`batch_norm_train`]'s semantics, running estimates updated in place with `momentum`).
pub fn gin_mlp_bn(x: &Tensor, p: &GinMlpBnParams<'_>, momentum: f64, eps: f64) -> Tensor {
    let mut err = [0 as c_char; 512];
    // SAFETY: as for `batch_norm_train`.
    let out = unsafe {
        magcl_gin_mlp_bn(
            x.as_ptr(),
            p.layer.w1.as_ptr(),
            p.layer.b1.as_ptr(),
            p.layer.w2.as_ptr(),
            p.layer.b2.as_ptr(),
            p.layer.gamma.as_ptr(),
            p.layer.beta.as_ptr(),
            p.running_mean.as_ptr(),
            p.running_var.as_ptr(),
            momentum,
            eps,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    take(out, &err, "GIN layer")
}

/// One step of a layer's propagation in a [`view_forward`] pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropStep {
    /// z ← F·z.
    Filter,
    /// z ← A·z + (1 + ε)·z.
    Aggregate,
}

/// The parameters of one GraphCL-style GIN layer: its MLP's two linear layers (weights
/// `out × in`, biases) and its batch norm's scale and shift.
pub struct LayerParams<'a> {
    pub w1: &'a Tensor,
    pub b1: &'a Tensor,
    pub w2: &'a Tensor,
    pub b2: &'a Tensor,
    pub gamma: &'a Tensor,
    pub beta: &'a Tensor,
}

/// Everything one view of a GraphCL step reads: node features, the sparse matrices as CSR
/// arrays with their transposes (A, F when a step filters, and the pooling matrix P), the
/// layers with their propagation steps, and the head (`[W1, b1, W2, b2]`).
pub struct ViewInputs<'a> {
    pub x: &'a Tensor,
    pub adjacency: (CsrArrays<'a>, CsrArrays<'a>),
    pub filter: Option<(CsrArrays<'a>, CsrArrays<'a>)>,
    pub pooling: (CsrArrays<'a>, CsrArrays<'a>),
    pub layers: Vec<(LayerParams<'a>, Vec<PropStep>)>,
    pub head: [&'a Tensor; 4],
    /// 1 + ε of the GIN aggregation.
    pub self_scale: f64,
    pub bn_eps: f64,
}

/// A view's forward state, kept for [`ViewTape::backward`] (and its layer count).
pub struct ViewTape(*mut ViewTapeRaw, usize);

/// What [`view_forward`] returns: the head's output (no autograd history), each layer's
/// batch mean and unbiased variance (for the running estimates), and the tape.
pub type ViewOutput = (Tensor, Vec<(Tensor, Tensor)>, ViewTape);

/// A GraphCL view's forward pass (GIN layers in training mode with their batch statistics
/// held back, per-layer sum pooling, concatenation, head) in `csrc/kernels.cpp` (5.),
/// without autograd; [`ViewTape::backward`] then gives the parameter gradients. Numbers
/// are the same bits as the same model through libtorch's autograd (tested in
/// `methods::graphcl`). Panics on inconsistent shapes.
pub fn view_forward(v: &ViewInputs<'_>) -> ViewOutput {
    let csr = |t: &mut Vec<*const C_tensor>, c: Option<&CsrArrays<'_>>| match c {
        Some(c) => t.extend([c.rowptr.as_ptr(), c.col.as_ptr(), c.val.as_ptr()]),
        None => t.extend([std::ptr::null(); 3]),
    };
    let mut t: Vec<*const C_tensor> = vec![v.x.as_ptr()];
    csr(&mut t, Some(&v.adjacency.0));
    csr(&mut t, Some(&v.adjacency.1));
    csr(&mut t, v.filter.as_ref().map(|f| &f.0));
    csr(&mut t, v.filter.as_ref().map(|f| &f.1));
    csr(&mut t, Some(&v.pooling.0));
    csr(&mut t, Some(&v.pooling.1));
    let mut steps = Vec::new();
    for (p, s) in &v.layers {
        t.extend([p.w1, p.b1, p.w2, p.b2, p.gamma, p.beta].map(|w| w.as_ptr()));
        steps.push(s.len() as i64);
        steps.extend(s.iter().map(|&s| i64::from(s == PropStep::Aggregate)));
    }
    t.extend(v.head.map(|w| w.as_ptr()));
    let layers = v.layers.len();
    let mut z: *mut C_tensor = std::ptr::null_mut();
    let mut stats: Vec<*mut C_tensor> = vec![std::ptr::null_mut(); 2 * layers];
    let mut err = [0 as c_char; 512];
    // SAFETY: every pointer in `t` is a live tensor (or null where the C++ side expects an
    // absent matrix) borrowed for the call; `steps` and `stats` have the lengths passed.
    // The C++ side keeps reference-counted handles, never the pointers.
    let tape = unsafe {
        magcl_view_forward(
            t.as_ptr(),
            layers as i64,
            steps.as_ptr(),
            steps.len() as i64,
            v.self_scale,
            v.bn_eps,
            &mut z,
            stats.as_mut_ptr(),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if tape.is_null() {
        // SAFETY: on failure the C++ side wrote a NUL-terminated message into `err`.
        let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
        panic!("view forward failed: {}", msg.to_string_lossy());
    }
    // SAFETY: on success `z` and every entry of `stats` are fresh heap tensors we own.
    let (z, stats) = unsafe {
        let s: Vec<Tensor> = stats.into_iter().map(|p| Tensor::from_ptr(p)).collect();
        let mut it = s.into_iter();
        let pairs = (0..layers)
            .map(|_| (it.next().expect("mean"), it.next().expect("variance")))
            .collect();
        (Tensor::from_ptr(z), pairs)
    };
    (z, stats, ViewTape(tape, layers))
}

// SAFETY: the tape owns reference-counted libtorch tensors, which may move between
// threads; nothing in it is tied to the thread that made it. (`backward` only reads it.)
unsafe impl Send for ViewTape {}

impl ViewTape {
    /// The parameter gradients for the gradient `dz` of the head's output: per layer W1,
    /// b1, W2, b2, γ, β, then the head's W1, b1, W2, b2.
    pub fn backward(&self, dz: &Tensor) -> Vec<Tensor> {
        let mut grads: Vec<*mut C_tensor> = vec![std::ptr::null_mut(); 6 * self.1 + 4];
        let mut err = [0 as c_char; 512];
        // SAFETY: the tape is live; `grads` has room for every gradient the C++ side writes
        // (6 per layer of the tape plus 4).
        let rc = unsafe {
            magcl_view_backward(
                self.0,
                dz.as_ptr(),
                grads.as_mut_ptr(),
                err.as_mut_ptr(),
                err.len(),
            )
        };
        if rc != 0 {
            // SAFETY: on failure the C++ side wrote a NUL-terminated message into `err`.
            let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
            panic!("view backward failed: {}", msg.to_string_lossy());
        }
        // SAFETY: on success every entry is a fresh heap tensor we own.
        grads
            .into_iter()
            .map(|p| unsafe { Tensor::from_ptr(p) })
            .collect()
    }
}

impl Drop for ViewTape {
    fn drop(&mut self) {
        // SAFETY: the handle came from `magcl_view_forward` and is freed once.
        unsafe { magcl_view_free(self.0) }
    }
}

/// The contrastive loss of CPU f32 projections `z1`, `z2` (`n × d`, rows paired) under
/// `cfg`, and its gradients with respect to both, in plain code (`csrc/kernels.cpp`, 6.):
/// [`crate::loss::InfoNce`]'s formulas without libtorch's per-operation cost. Panics on
/// other shapes or devices, and without inter-view negatives (which it always includes;
/// its callers take the libtorch path then).
pub fn info_nce(z1: &Tensor, z2: &Tensor, cfg: &InfoNceParams) -> (f64, Tensor, Tensor) {
    assert!(
        cfg.inter_view_negatives,
        "the plain-code contrastive loss always includes inter-view negatives"
    );
    let mut value = 0.0f64;
    let (mut g1, mut g2): (*mut C_tensor, *mut C_tensor) =
        (std::ptr::null_mut(), std::ptr::null_mut());
    let mut err = [0 as c_char; 512];
    // SAFETY: both tensors are live for the call; the outputs are written on success only.
    let rc = unsafe {
        magcl_info_nce(
            z1.as_ptr(),
            z2.as_ptr(),
            cfg.temperature,
            i32::from(cfg.positive_in_denominator),
            i32::from(cfg.symmetric),
            i32::from(cfg.intra_view_negatives),
            &mut value,
            &mut g1,
            &mut g2,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if rc != 0 {
        // SAFETY: on failure the C++ side wrote a NUL-terminated message into `err`.
        let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
        panic!("contrastive loss failed: {}", msg.to_string_lossy());
    }
    // SAFETY: on success both are fresh heap tensors we own.
    unsafe { (value, Tensor::from_ptr(g1), Tensor::from_ptr(g2)) }
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
        /// Defined in `csrc/kernels.cpp` (4.) and exported by every executable (`build.rs`).
        fn mkl_serv_intel_cpu_true() -> std::os::raw::c_int;
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
