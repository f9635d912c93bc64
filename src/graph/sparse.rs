//! Sparse `N × N` operators (adjacency, Â, the filter F) and their products with dense
//! node features.
//!
//! On the CPU a product goes through `csrc/spmm.cpp`: a row loop over CSR arrays with the
//! transpose built once per matrix, so the backward pass (Aᵀ·g) costs as much as the
//! forward. libtorch's own CPU sparse matmul re-transposes and re-sorts the matrix on
//! every backward call, which made aggregation the largest part of a small-graph step.
//! On CUDA (and for non-f32 features) libtorch's sparse CSR tensor is used.
use tch::{Device, Kind, Tensor};
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
        err: *mut std::os::raw::c_char,
        err_len: usize,
    ) -> *mut C_tensor;
}

/// CSR arrays: row pointers, column indices (both i64) and f32 values.
struct Csr {
    rowptr: Tensor,
    col: Tensor,
    val: Tensor,
}

impl Csr {
    /// CSR of the `n × n` matrix with entries `(rows[e], cols[e]) = vals[e]`.
    fn build(rows: &Tensor, cols: &Tensor, vals: &Tensor, n: i64) -> Csr {
        let order = (rows * n + cols).argsort(0, false);
        let rows = rows.index_select(0, &order);
        let dev = rows.device();
        let counts = rows.bincount(None::<Tensor>, n);
        let rowptr = Tensor::cat(
            &[
                Tensor::zeros([1], (Kind::Int64, dev)),
                counts.cumsum(0, Kind::Int64),
            ],
            0,
        );
        Csr {
            rowptr,
            col: cols.index_select(0, &order),
            val: vals.index_select(0, &order).to_kind(Kind::Float),
        }
    }
}

enum Repr {
    /// libtorch's sparse CSR tensor (CUDA).
    Torch(Tensor),
    /// A and Aᵀ as CSR arrays (CPU).
    Cpu { a: Csr, at: Csr },
}

/// A sparse square matrix ready for products with dense `N × d` features.
pub struct SparseMatrix {
    n: i64,
    repr: Repr,
}

impl SparseMatrix {
    /// The `n × n` matrix with entries `(rows[e], cols[e]) = vals[e]` (no duplicates),
    /// on the device of `rows`.
    pub fn from_triplets(rows: &Tensor, cols: &Tensor, vals: &Tensor, n: i64) -> SparseMatrix {
        let vals = vals.detach();
        let repr = if rows.device() == Device::Cpu {
            Repr::Cpu {
                a: Csr::build(rows, cols, &vals, n),
                at: Csr::build(cols, rows, &vals, n),
            }
        } else {
            let a = Csr::build(rows, cols, &vals, n);
            Repr::Torch(Tensor::sparse_csr_tensor_crow_col_value_size(
                &a.rowptr,
                &a.col,
                &a.val,
                [n, n],
                (Kind::Float, rows.device()),
            ))
        };
        SparseMatrix { n, repr }
    }

    /// The product `self · x` for `x` of shape `N × d` (differentiable in `x`).
    pub fn mm(&self, x: &Tensor) -> Tensor {
        match &self.repr {
            Repr::Torch(t) => t.mm(x),
            Repr::Cpu { a, at } if x.kind() == Kind::Float && x.device() == Device::Cpu => {
                let mut err = [0 as std::os::raw::c_char; 512];
                // SAFETY: every pointer comes from a live tensor borrowed for the call; the
                // C++ side copies what it keeps (tensor handles are reference counted) and
                // returns a new heap tensor that `from_ptr` takes ownership of, or null.
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
                if out.is_null() {
                    // SAFETY: the C++ side wrote a NUL-terminated message into `err`.
                    let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) };
                    panic!("sparse product failed: {}", msg.to_string_lossy());
                }
                // SAFETY: a non-null result is a fresh tensor we now own.
                unsafe { Tensor::from_ptr(out) }
            }
            Repr::Cpu { a, .. } => {
                let t = Tensor::sparse_csr_tensor_crow_col_value_size(
                    &a.rowptr,
                    &a.col,
                    &a.val.to_kind(x.kind()),
                    [self.n, self.n],
                    (x.kind(), x.device()),
                );
                t.mm(x)
            }
        }
    }

    /// The matrix as a dense tensor (tests and debugging).
    pub fn to_dense(&self) -> Tensor {
        let eye = Tensor::eye(
            self.n,
            (
                Kind::Float,
                match &self.repr {
                    Repr::Torch(t) => t.device(),
                    Repr::Cpu { .. } => Device::Cpu,
                },
            ),
        );
        tch::no_grad(|| self.mm(&eye))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rand_matrix(n: i64, e: i64, seed: i64) -> (Tensor, Tensor, Tensor) {
        tch::manual_seed(seed);
        // distinct (row, col) pairs: sample without replacement from all n² cells
        let cells = Tensor::randperm(n * n, (Kind::Int64, Device::Cpu)).narrow(0, 0, e);
        let rows = cells.divide_scalar_mode(n, "floor");
        let cols = cells.remainder(n);
        let vals = Tensor::randn([e], (Kind::Float, Device::Cpu));
        (rows, cols, vals)
    }

    fn dense_of(rows: &Tensor, cols: &Tensor, vals: &Tensor, n: i64) -> Tensor {
        Tensor::zeros([n, n], (Kind::Float, Device::Cpu)).index_put(
            &[Some(rows.shallow_clone()), Some(cols.shallow_clone())],
            vals,
            false,
        )
    }

    #[test]
    fn product_and_gradient_match_the_dense_matrix() {
        let n = 37;
        let (rows, cols, vals) = rand_matrix(n, 150, 3);
        let dense = dense_of(&rows, &cols, &vals, n);
        let m = SparseMatrix::from_triplets(&rows, &cols, &vals, n);
        assert!(m.to_dense().allclose(&dense, 1e-6, 1e-6, false));

        let x = Tensor::randn([n, 5], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let w = Tensor::randn([n, 5], (Kind::Float, Device::Cpu));
        let y = m.mm(&x);
        assert!(y.allclose(&dense.mm(&x), 1e-5, 1e-5, false));
        (&y * &w).sum(Kind::Float).backward();
        // d/dx Σ w ⊙ (A x) = Aᵀ w
        let expected = dense.tr().mm(&w);
        assert!(x.grad().allclose(&expected, 1e-5, 1e-5, false));
    }

    #[test]
    fn empty_rows_and_empty_matrix() {
        let n = 4;
        let rows = Tensor::from_slice(&[2i64]);
        let cols = Tensor::from_slice(&[0i64]);
        let vals = Tensor::from_slice(&[2.5f32]);
        let m = SparseMatrix::from_triplets(&rows, &cols, &vals, n);
        let x = Tensor::arange(8, (Kind::Float, Device::Cpu)).view([4, 2]);
        let y: Vec<f32> = Vec::try_from(m.mm(&x).flatten(0, -1)).unwrap();
        assert_eq!(y, vec![0.0, 0.0, 0.0, 0.0, 0.0, 2.5, 0.0, 0.0]);
        let none = Tensor::zeros([0], (Kind::Int64, Device::Cpu));
        let m = SparseMatrix::from_triplets(&none, &none, &none.to_kind(Kind::Float), n);
        assert_eq!(m.mm(&x).abs().sum(Kind::Float).double_value(&[]), 0.0);
    }

    #[test]
    fn second_order_use_keeps_gradients_flowing_through_chains() {
        // F(F(x)) with the custom op twice: gradient = (F²)ᵀ 1
        let n = 12;
        let (rows, cols, vals) = rand_matrix(n, 40, 5);
        let dense = dense_of(&rows, &cols, &vals, n);
        let m = SparseMatrix::from_triplets(&rows, &cols, &vals, n);
        let x = Tensor::randn([n, 3], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        m.mm(&m.mm(&x)).sum(Kind::Float).backward();
        let ones = Tensor::ones([n, 3], (Kind::Float, Device::Cpu));
        let expected = dense.tr().mm(&dense.tr().mm(&ones));
        assert!(x.grad().allclose(&expected, 1e-4, 1e-4, false));
    }
}
