//! The two branches of a graph-level step at the same time.
//!
//! A GraphCL step has two views, a SimGRACE step a clean and a perturbed branch. At the
//! presets' sizes (a batch of 128 small graphs, 32 channels) libtorch's operations are too
//! small to split across threads, so graph-level runs train on one libtorch thread; but the
//! two branches are independent until the loss, and GraphCL's again after it. On the CPU,
//! with [`set_concurrent`] on (the default policy of `magcl train` on a machine with two or
//! more usable cores), they run as two tasks of a two-thread pool, each on one libtorch
//! thread. Otherwise — on CUDA, under [`crate::kernels::with_reference_ops`], or with the
//! setting off — the same closures run one after the other on the calling thread.
//!
//! Either way the numbers are the same, bit for bit:
//! - batch norm's running estimates are not updated during concurrent forward passes over
//!   shared batch norms: each branch's statistics are held back
//!   ([`crate::kernels::deferring_norm_updates`]) and folded in afterwards, first branch
//!   first — what running them one after the other does;
//! - each parameter gets exactly one gradient from each of GraphCL's two branches, and a
//!   sum of two floats does not depend on their order, so the two backward passes may
//!   accumulate in either order ([`backward_pair`]).
//!
//! The step itself is the same code on every device; only the scheduling differs.
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use tch::{Device, Kind, Tensor};

use crate::kernels::{deferring_norm_updates, reference_ops, Partner};

/// The process-wide setting ([`set_concurrent`]).
static CONCURRENT: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// A per-thread override of [`CONCURRENT`] (tests: [`with_concurrency`]).
    static OVERRIDE: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Turns concurrent branches on or off for this process (off unless set). `magcl train`
/// turns them on for graph-level runs under its default thread policy when at least two
/// cores are usable; a thread count chosen by the user or a sweep leaves them off, so a
/// sweep's one-thread workers stay on one core each.
pub fn set_concurrent(on: bool) {
    CONCURRENT.store(on, Ordering::Relaxed);
}

/// Runs `f` with concurrent branches `on` for steps started on this thread (the
/// process-wide setting is left alone; restored afterwards, also on a panic).
pub fn with_concurrency<R>(on: bool, f: impl FnOnce() -> R) -> R {
    crate::kernels::with_local(&OVERRIDE, Some(on), f)
}

/// Whether a step on `device` started on this thread runs its branches concurrently.
pub fn concurrent(device: Device) -> bool {
    let on = OVERRIDE
        .with(|c| c.get())
        .unwrap_or_else(|| CONCURRENT.load(Ordering::Relaxed));
    on && device == Device::Cpu && !reference_ops()
}

/// The two threads the branches run on (made at first use). Each starts by giving
/// libtorch (and through it OpenMP and MKL) one intra-op thread for the operations it
/// runs: a new thread would otherwise start from OpenMP's default of every core, and a
/// matrix product split over threads sums in another order.
fn pool() -> &'static rayon::ThreadPool {
    static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .thread_name(|i| format!("magcl-branch-{i}"))
            .start_handler(|_| tch::set_num_threads(1))
            .build()
            .expect("the branch threads could not be started")
    })
}

/// A value moved to another thread although its type is not `Send` (the closures of
/// [`forward_pair`], which borrow modules and tensors).
struct AssertSend<T>(T);

// SAFETY: see `forward_pair`'s contract: the wrapped closures only read what they share
// (libtorch tensors may be read from several threads at once), own everything else they
// touch, and do not outlive the `join` that runs them.
unsafe impl<T> Send for AssertSend<T> {}

impl<T> AssertSend<T> {
    /// Unwraps inside the task (a method call, so that the closure captures the whole
    /// wrapper rather than its non-`Send` field).
    fn into_inner(self) -> T {
        self.0
    }
}

/// Runs `f` (a training loop) on one of the branch threads when concurrent branches are on
/// for the CPU, else on this thread; blocks until it returns. Inside, each step's
/// [`forward_pair`] and [`backward_pair`] start their second branch as a task the other
/// branch thread may take, and run it themselves if that thread has not woken up by the
/// time the first is done: no step waits for a thread to be woken, which on a virtual
/// machine took 0.5–1.5 ms a step when every step was handed over from the main thread.
/// This thread's [`with_concurrency`] setting goes along.
///
/// # Safety
/// `f` may borrow values that are not `Send`: the caller is blocked until `f` returns, so
/// they are used by one thread at a time, as if `f` ran here — but `f` must not rely on
/// this thread's thread-local state other than the concurrency setting (libtorch's grad
/// mode, [`crate::kernels::with_reference_ops`]: with the latter on, `f` runs here).
pub unsafe fn on_pool<R>(f: impl FnOnce() -> R) -> R {
    if !concurrent(Device::Cpu) || pool().current_thread_index().is_some() {
        return f();
    }
    let setting = OVERRIDE.with(|c| c.get());
    let f = AssertSend(f);
    pool()
        .install(move || {
            let f = f.into_inner();
            AssertSend(match setting {
                Some(on) => with_concurrency(on, f),
                None => f(),
            })
        })
        .into_inner()
}

/// Runs the forward passes of a step's two branches and returns both results: at the same
/// time when [`concurrent`] on `device`, with batch norm's running estimates held back in
/// each and folded in afterwards, `first`'s first; else `first`, then `second`, on this
/// thread. The numbers are the same either way.
///
/// # Safety
/// `first` and `second` may borrow values that are not `Send` or `Sync` (modules, graph
/// tensors). They must only *read* what they share with each other and with the caller
/// (parameters; libtorch supports concurrent reads and concurrent recording of autograd
/// graphs over shared leaves), and each must be the only user of anything else it touches
/// until this call returns — in particular each must build its own graph tensors (their
/// sparse matrices are made lazily, on first use).
pub unsafe fn forward_pair<A: Send, B: Send>(
    device: Device,
    first: impl FnOnce() -> A,
    second: impl FnOnce() -> B,
) -> (A, B) {
    if !concurrent(device) {
        let a = first();
        return (a, second());
    }
    let (first, second) = (AssertSend(first), AssertSend(second));
    let ((a, held_a), (b, held_b)) = pool().join(
        move || deferring_norm_updates(first.into_inner()),
        move || deferring_norm_updates(second.into_inner()),
    );
    held_a.fold();
    held_b.fold();
    (a, b)
}

/// Backpropagates each pair's gradient from its output (`a` and `b` are (output, gradient)
/// pairs of the same shapes: the two branches' outputs and the loss's gradient with
/// respect to each),
/// accumulating into the parameters' gradients: both at the same time when [`concurrent`]
/// on `device`, else `a`'s then `b`'s. Every parameter must be reached by at most one
/// gradient from each side (as in a step over two branches of one model), so that its
/// accumulated gradient, a sum of at most two terms, is the same in either order.
pub fn backward_pair(device: Device, a: (Tensor, Tensor), b: (Tensor, Tensor)) {
    let backward = |(out, grad): (Tensor, Tensor)| (out * grad).sum(Kind::Float).backward();
    if concurrent(device) {
        pool().join(move || backward(a), move || backward(b));
    } else {
        backward(a);
        backward(b);
    }
}

/// Runs `f` (a backward pass through one branch only: SimGRACE's clean branch, while the
/// perturbed one needs none) with the other branch thread as its partner
/// ([`crate::kernels::Partner`]) when [`concurrent`] on `device`: that thread computes
/// weight gradients while this one follows the gradient chain. Else `f` runs alone. The
/// numbers are the same either way.
pub fn with_partner<R: Send>(device: Device, f: impl FnOnce() -> R) -> R {
    if !concurrent(device) {
        return f();
    }
    let partner = Partner::new(false);
    let f = AssertSend(f);
    // The partner's loop is the join's second task: if the other thread does not take it
    // before `f` is done, this thread finds the partner stopped and returns at once.
    let (out, ()) = pool().join(|| partner.attach(f.into_inner()), || partner.serve());
    out
}

/// `z` cut from its graph as a new leaf that collects its own gradient: the loss is
/// differentiated with respect to the branches' outputs first, then each branch's
/// gradient goes back through that branch ([`backward_pair`]).
pub fn leaf(z: &Tensor) -> Tensor {
    z.detach().set_requires_grad(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::with_reference_ops;

    #[test]
    fn concurrency_needs_the_cpu_and_the_kernels() {
        with_concurrency(true, || {
            assert!(concurrent(Device::Cpu));
            assert!(!concurrent(Device::Cuda(0)));
            with_reference_ops(|| assert!(!concurrent(Device::Cpu)));
        });
        with_concurrency(false, || assert!(!concurrent(Device::Cpu)));
    }

    #[test]
    fn backward_pair_accumulates_both_gradients() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(5);
        let w = Tensor::randn([4, 3], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let x1 = Tensor::randn([6, 4], (Kind::Float, Device::Cpu));
        let x2 = Tensor::randn([5, 4], (Kind::Float, Device::Cpu));
        let f = |x: &Tensor| x.matmul(&w).tanh();
        let expected = {
            (f(&x1).square().sum(Kind::Float) + f(&x2).sum(Kind::Float)).backward();
            let g = w.grad().copy();
            crate::kernels::set_grad(&w, &Tensor::new());
            g
        };
        for on in [false, true] {
            with_concurrency(on, || {
                let (z1, z2) = (f(&x1), f(&x2));
                let g1 = z1.detach() * 2.0;
                let g2 = z2.ones_like();
                backward_pair(Device::Cpu, (z1, g1), (z2, g2));
            });
            assert!(
                w.grad().allclose(&expected, 1e-6, 1e-6, false),
                "concurrent: {on}"
            );
            crate::kernels::set_grad(&w, &Tensor::new());
        }
    }
}
