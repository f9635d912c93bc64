//! The two views of a graph-level step on two CPU threads.
//!
//! At GraphCL's sizes (a batch of 128 small graphs, 32 channels) libtorch's operations are
//! too small to split across threads: on the 2-core dev box a MUTAG epoch takes longer with
//! two intra-op threads than with one. The two views, though, are independent until the
//! loss and again after it. So on the CPU a step runs each view's forward pass, and later
//! each view's backward pass, as its own task on the rayon pool, with libtorch's intra-op
//! threads divided between the two.
//!
//! What keeps the result independent of thread timing:
//! - batch norm's running estimates are not updated during the concurrent forward passes:
//!   each view returns its batch statistics ([`BatchStats`]) and they are folded in
//!   afterwards, first view first;
//! - the backward passes accumulate nothing: each computes its view's parameter gradients
//!   (`torch::autograd::grad`), and the two are added in a fixed order and installed as
//!   the parameters' gradients ([`crate::kernels::set_grad`]).
//!
//! The same code runs with one thread (the tasks then run one after the other), so a run
//! gives the same numbers whatever the thread count, up to libtorch's own kernels (whose
//! intra-op thread count is the pool's half).
use std::cell::Cell;

use tch::Tensor;

use crate::nn::mlp::BatchStats;

/// A value moved to a rayon task although its type is not `Send`.
///
/// Used for closures that hold references to modules and graph tensors. libtorch tensors
/// may be read from several threads at once (parameters are only read during a pass); each
/// view's graph tensors are touched by that view's task only, and `rayon::join` returns
/// only after both tasks have finished, so no reference outlives the call.
struct AssertSend<T>(T);

// SAFETY: see the type's documentation: the wrapped closures only read shared libtorch
// tensors, write nothing shared, and do not outlive the `rayon::join` that runs them.
unsafe impl<T> Send for AssertSend<T> {}

impl<T> AssertSend<T> {
    /// Unwraps inside the task (a method call, so that the closure captures the whole
    /// wrapper rather than its non-`Send` field).
    fn into_inner(self) -> T {
        self.0
    }
}

thread_local! {
    /// The intra-op thread count this thread last gave libtorch (0 = never set).
    static INTRA_OP: Cell<i32> = const { Cell::new(0) };
}

/// Gives libtorch `n` intra-op threads for operations started on this thread.
fn intra_op_threads(n: i32) {
    INTRA_OP.with(|c| {
        if c.get() != n {
            tch::set_num_threads(n);
            c.set(n);
        }
    });
}

/// Runs `a` and `b` as two rayon tasks, each with half of the caller's intra-op threads.
///
/// # Safety
/// `a` and `b` may capture values that are not `Send`: they must only read what they
/// share with each other and the caller (libtorch tensors may be read concurrently), and
/// each must be the only user of anything else it touches until this call returns.
unsafe fn join<RA: Send, RB: Send>(a: impl FnOnce() -> RA, b: impl FnOnce() -> RB) -> (RA, RB) {
    let half = INTRA_OP.with(|c| c.get());
    let half = if half > 0 {
        half
    } else {
        (tch::get_num_threads() / 2).max(1)
    };
    let (a, b) = (AssertSend(a), AssertSend(b));
    rayon::join(
        move || {
            intra_op_threads(half);
            (a.into_inner())()
        },
        move || {
            intra_op_threads(half);
            (b.into_inner())()
        },
    )
}

/// Runs `f` on a rayon worker with half of the caller's intra-op threads.
///
/// A whole CPU step runs there, not only its two concurrent parts: operations started on
/// the calling thread would use its full intra-op thread count, and libtorch's OpenMP
/// threads keep spinning for a while after each parallel region, taking a core from the
/// rayon task that should run the second view.
pub fn on_pool<R: Send>(f: impl FnOnce() -> R) -> R {
    let half = (tch::get_num_threads() / 2).max(1);
    let f = AssertSend(f);
    // SAFETY: the caller blocks until `f` has returned, so whatever `f` borrows is used by
    // one thread at a time, exactly as if it ran on the caller's thread.
    rayon::scope(move |_| {
        intra_op_threads(half);
        (f.into_inner())()
    })
}

/// Output and held-back batch statistics of one view's forward pass.
pub type ViewForward = (Tensor, Vec<BatchStats>);

/// Runs the forward passes of two views concurrently. Each closure must build its own
/// inputs (graph tensors) and read only shared parameters; batch-norm running estimates
/// must be deferred (e.g. [`crate::nn::GinEncoder::forward_deferred`]).
pub fn forward_pair(
    first: impl FnOnce() -> ViewForward,
    second: impl FnOnce() -> ViewForward,
) -> (ViewForward, ViewForward) {
    // SAFETY: per this function's contract, the closures only read the shared modules and
    // build everything else themselves.
    unsafe { join(first, second) }
}

/// Runs two closures of a step's two views concurrently, as [`forward_pair`] does (each
/// with half of the intra-op threads), for the plain-code views of
/// [`super::Tower::view_forward`] and their backward passes. The same contract: each
/// closure only reads what it shares with the other (parameters, tapes of its own view).
pub fn view_pair<RA: Send, RB: Send>(
    first: impl FnOnce() -> RA,
    second: impl FnOnce() -> RB,
) -> (RA, RB) {
    // SAFETY: per this function's contract, the closures only read shared tensors and
    // build or own everything else.
    unsafe { join(first, second) }
}

/// The gradient of `s1 + s2` with respect to `params`, computing the two scalars'
/// gradients concurrently (each an independent `torch::autograd::grad` call that writes
/// no `.grad`) and adding them in a fixed order. A parameter neither reaches gets an
/// undefined tensor.
pub fn gradient_pair(s1: &Tensor, s2: &Tensor, params: &[Tensor]) -> Vec<Tensor> {
    let grads = |s: &Tensor| Tensor::run_backward(&[s], params, false, false);
    // SAFETY: the two backward passes share only parameters and graph nodes, which
    // libtorch's autograd engine supports running concurrently (it locks shared nodes);
    // with explicit inputs nothing is accumulated into `.grad`.
    let (g1, g2) = unsafe { join(|| grads(s1), || grads(s2)) };
    g1.into_iter()
        .zip(g2)
        .map(|(a, b)| match (a.defined(), b.defined()) {
            (true, true) => a + b,
            (true, false) => a,
            (false, _) => b,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    #[test]
    fn gradient_pair_is_the_gradient_of_the_sum() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(5);
        let w = Tensor::randn([4, 3], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let unused = Tensor::randn([2], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let x1 = Tensor::randn([6, 4], (Kind::Float, Device::Cpu));
        let x2 = Tensor::randn([5, 4], (Kind::Float, Device::Cpu));
        let f = |x: &Tensor| x.matmul(&w).tanh().square().sum(Kind::Float);
        let (s1, s2) = (f(&x1), f(&x2));
        let g = gradient_pair(&s1, &s2, &[w.shallow_clone(), unused.shallow_clone()]);
        assert!(!g[1].defined(), "an unused parameter gets no gradient");
        assert!(!w.grad().defined(), "nothing is accumulated into .grad");
        (f(&x1) + f(&x2)).backward();
        assert!(g[0].allclose(&w.grad(), 1e-5, 1e-6, false));
    }

    #[test]
    fn forward_pair_returns_each_views_output() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let a = Tensor::from_slice(&[1.0f32, 2.0]);
        let ((y1, s1), (y2, _)) =
            forward_pair(|| (&a * 2.0, Vec::new()), || (&a + 1.0, Vec::new()));
        assert_eq!(Vec::<f32>::try_from(y1).unwrap(), vec![2.0, 4.0]);
        assert_eq!(Vec::<f32>::try_from(y2).unwrap(), vec![2.0, 3.0]);
        assert!(s1.is_empty());
    }
}
