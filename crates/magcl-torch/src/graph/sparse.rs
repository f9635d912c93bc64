//! Sparse operators (adjacency, Â, the filter F, the graph pooling matrix) and their
//! products with dense node features.
//!
//! On the CPU a product goes through `crates/magcl-torch/csrc/kernels.cpp`: a row loop over CSR arrays with the
//! transpose built once per matrix, so the backward pass (Aᵀ·g) costs as much as the
//! forward. libtorch's own CPU sparse matmul re-transposes and re-sorts the matrix on
//! every backward call, which made aggregation the largest part of a small-graph step.
//! On CUDA (and for non-f32 features) libtorch's sparse CSR tensor is used.
use tch::{Device, Kind, Tensor};

use crate::kernels::{
    csr_matmul, csr_matmul_plus_self, csr_matmul_rounded, reference_ops, sparse_mm, CsrArrays,
};

/// CSR arrays: row pointers, column indices (both i64) and f32 values.
struct Csr {
    rowptr: Tensor,
    col: Tensor,
    val: Tensor,
}

impl Csr {
    /// CSR of the `n_rows × n_cols` matrix with entries `(rows[e], cols[e]) = vals[e]`.
    fn build(rows: &Tensor, cols: &Tensor, vals: &Tensor, n_rows: i64, n_cols: i64) -> Csr {
        let order = (rows * n_cols + cols).argsort(0, false);
        let rows = rows.index_select(0, &order);
        let dev = rows.device();
        // rowptr[r] = the first sorted position whose row is ≥ r (a binary search per row;
        // unlike bincount it never reads a value back, so a CUDA build does not synchronise)
        let rowptr = Tensor::arange(n_rows + 1, (Kind::Int64, dev)).searchsorted(
            &rows,
            false,
            false,
            "left",
            None::<Tensor>,
        );
        Csr {
            rowptr,
            col: cols.index_select(0, &order),
            val: vals.index_select(0, &order).to_kind(Kind::Float),
        }
    }

    /// The same on the CPU by a counting sort over rows (entries of a row keep their
    /// input order, which the row-loop kernel does not care about): a handful of passes
    /// over Rust slices instead of a dozen libtorch calls.
    fn build_cpu(rows: &[i64], cols: &[i64], vals: &[f32], n_rows: usize) -> Csr {
        let mut rowptr = vec![0i64; n_rows + 1];
        for &r in rows {
            rowptr[r as usize + 1] += 1;
        }
        for i in 0..n_rows {
            rowptr[i + 1] += rowptr[i];
        }
        let mut next: Vec<i64> = rowptr[..n_rows].to_vec();
        let mut col = vec![0i64; rows.len()];
        let mut val = vec![0f32; rows.len()];
        for ((&r, &c), &v) in rows.iter().zip(cols).zip(vals) {
            let slot = &mut next[r as usize];
            col[*slot as usize] = c;
            val[*slot as usize] = v;
            *slot += 1;
        }
        Csr {
            rowptr: Tensor::from_slice(&rowptr),
            col: Tensor::from_slice(&col),
            val: Tensor::from_slice(&val),
        }
    }

    fn arrays(&self) -> CsrArrays<'_> {
        CsrArrays {
            rowptr: &self.rowptr,
            col: &self.col,
            val: &self.val,
        }
    }
}

enum Repr {
    /// A and Aᵀ as libtorch sparse CSR tensors (CUDA).
    Torch { a: Tensor, at: Tensor },
    /// A and Aᵀ as CSR arrays (CPU).
    Cpu { a: Csr, at: Csr },
}

/// A sparse matrix ready for products with dense node features (`n_rows × n_cols`; the
/// features have `n_cols` rows).
pub struct SparseMatrix {
    n_rows: i64,
    n_cols: i64,
    repr: Repr,
    /// CPU products round each product before adding it ([`crate::kernels::csr_matmul_rounded`]).
    rounded: bool,
}

impl SparseMatrix {
    /// The `n_rows × n_cols` matrix with entries `(rows[e], cols[e]) = vals[e]` (no
    /// duplicates), on the device of `rows`.
    pub fn from_triplets(
        rows: &Tensor,
        cols: &Tensor,
        vals: &Tensor,
        n_rows: i64,
        n_cols: i64,
    ) -> SparseMatrix {
        Self::build(
            rows,
            cols,
            vals,
            n_rows,
            n_cols,
            rows.device() != Device::Cpu,
        )
    }

    /// As [`Self::from_triplets`], on the CPU with products that round each multiplication
    /// before adding it, over each row's entries in their input order: the same bits as
    /// the gather · weight → `index_add` form of a weighted message sum (on other devices
    /// the same as [`Self::from_triplets`]).
    pub fn from_triplets_rounded(
        rows: &Tensor,
        cols: &Tensor,
        vals: &Tensor,
        n_rows: i64,
        n_cols: i64,
    ) -> SparseMatrix {
        let mut m = Self::from_triplets(rows, cols, vals, n_rows, n_cols);
        m.rounded = true;
        m
    }

    /// As [`Self::from_triplets`], with libtorch's sparse tensors (the CUDA form) or the
    /// CSR arrays of the CPU kernel.
    fn build(
        rows: &Tensor,
        cols: &Tensor,
        vals: &Tensor,
        n_rows: i64,
        n_cols: i64,
        libtorch: bool,
    ) -> SparseMatrix {
        let vals = vals.detach();
        let repr = if !libtorch {
            let r = Vec::<i64>::try_from(rows.to_kind(Kind::Int64)).expect("row indices");
            let c = Vec::<i64>::try_from(cols.to_kind(Kind::Int64)).expect("column indices");
            let v = Vec::<f32>::try_from(vals.to_kind(Kind::Float)).expect("values");
            assert!(
                r.iter().all(|&i| (0..n_rows).contains(&i))
                    && c.iter().all(|&j| (0..n_cols).contains(&j)),
                "sparse matrix index out of range ({n_rows} × {n_cols})"
            );
            Repr::Cpu {
                a: Csr::build_cpu(&r, &c, &v, n_rows as usize),
                at: Csr::build_cpu(&c, &r, &v, n_cols as usize),
            }
        } else {
            let tensor = |m: Csr, shape: [i64; 2]| {
                // the arrays are valid by construction; the unchecked constructor reads
                // nothing back from the device
                Tensor::internal_sparse_csr_tensor_unsafe(
                    &m.rowptr,
                    &m.col,
                    &m.val,
                    shape,
                    (Kind::Float, rows.device()),
                )
            };
            Repr::Torch {
                a: tensor(
                    Csr::build(rows, cols, &vals, n_rows, n_cols),
                    [n_rows, n_cols],
                ),
                at: tensor(
                    Csr::build(cols, rows, &vals, n_cols, n_rows),
                    [n_cols, n_rows],
                ),
            }
        };
        SparseMatrix {
            n_rows,
            n_cols,
            repr,
            rounded: false,
        }
    }

    /// The number of rows.
    pub fn n_rows(&self) -> i64 {
        self.n_rows
    }

    /// The product `self · x` for `x` of shape `N × d` (differentiable in `x`): for f32
    /// features one of `crates/magcl-torch/csrc/kernels.cpp`'s autograd functions (the CSR row loop on the
    /// CPU, libtorch's sparse product with a prepared transpose elsewhere); for other kinds,
    /// and under [`crate::kernels::with_reference_ops`], libtorch's own sparse product.
    pub fn mm(&self, x: &Tensor) -> Tensor {
        let kernel = x.kind() == Kind::Float && !reference_ops();
        match &self.repr {
            Repr::Torch { a, at } if kernel => sparse_mm(x, a, at),
            Repr::Torch { a, .. } => a.to_kind(x.kind()).mm(x),
            Repr::Cpu { a, at } if kernel && x.device() == Device::Cpu => {
                if self.rounded {
                    csr_matmul_rounded(x, &a.arrays(), &at.arrays())
                } else {
                    csr_matmul(x, &a.arrays(), &at.arrays())
                }
            }
            Repr::Cpu { a, .. } => {
                let t = Tensor::sparse_csr_tensor_crow_col_value_size(
                    &a.rowptr,
                    &a.col,
                    &a.val.to_kind(x.kind()),
                    [self.n_rows, self.n_cols],
                    (x.kind(), x.device()),
                );
                t.mm(x)
            }
        }
    }

    /// `self · x + x * s` for a square matrix: on the CPU kernel one operation with the
    /// bits of the two ([`crate::kernels::csr_matmul_plus_self`]), otherwise those two
    /// operations (`x` itself when `s` is 1). A GIN aggregation.
    pub fn mm_plus_self(&self, x: &Tensor, s: f64) -> Tensor {
        assert_eq!(
            self.n_rows, self.n_cols,
            "a self term needs a square matrix"
        );
        match &self.repr {
            Repr::Cpu { a, at }
                if x.kind() == Kind::Float && x.device() == Device::Cpu && !reference_ops() =>
            {
                csr_matmul_plus_self(x, &a.arrays(), &at.arrays(), self.rounded, s)
            }
            _ if s == 1.0 => self.mm(x) + x,
            _ => self.mm(x) + x * s,
        }
    }

    /// The matrix as a dense tensor (tests and debugging).
    pub fn to_dense(&self) -> Tensor {
        let eye = Tensor::eye(
            self.n_cols,
            (
                Kind::Float,
                match &self.repr {
                    Repr::Torch { a, .. } => a.device(),
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

    /// A random n × n matrix with `e` entries, as fused (`false`) and rounded (`true`)
    /// products.
    fn rand_square_both_kinds(n: i64, e: i64, seed: i64) -> Vec<(bool, SparseMatrix)> {
        let (rows, cols, vals) = rand_matrix(n, e, seed);
        [false, true]
            .into_iter()
            .map(|rounded| {
                let m = if rounded {
                    SparseMatrix::from_triplets_rounded(&rows, &cols, &vals, n, n)
                } else {
                    SparseMatrix::from_triplets(&rows, &cols, &vals, n, n)
                };
                (rounded, m)
            })
            .collect()
    }

    fn bits(t: &Tensor) -> Vec<f32> {
        Vec::<f32>::try_from(t.flatten(0, -1)).unwrap()
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
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        let n = 37;
        let (rows, cols, vals) = rand_matrix(n, 150, 3);
        let dense = dense_of(&rows, &cols, &vals, n);
        let m = SparseMatrix::from_triplets(&rows, &cols, &vals, n, n);
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

    /// `(A + s·I)·x` in one operation ([`SparseMatrix::mm_plus_self`]) has the bits of
    /// `A·x + x * s` as two libtorch operations, forward and backward, for fused and
    /// rounded products, weights whose product is exact (1, 2) or not (1.3), and every
    /// column width the kernel splits.
    #[test]
    fn self_term_has_the_bits_of_the_separate_operations() {
        let _g = crate::rng::torch_lock();
        let n = 29;
        for (rounded, m) in rand_square_both_kinds(n, 120, 8) {
            for s in [1.0, 2.0, 1.3] {
                for d in [1i64, 7, 8, 9, 32, 33, 40, 64] {
                    let x = Tensor::randn([n, d], (Kind::Float, Device::Cpu));
                    let up = Tensor::randn([n, d], (Kind::Float, Device::Cpu));
                    let x1 = x.copy().set_requires_grad(true);
                    let x2 = x.copy().set_requires_grad(true);
                    let fused = m.mm_plus_self(&x1, s);
                    let plain = m.mm(&x2) + &x2 * s;
                    let what = format!("rounded {rounded}, s {s}, d {d}");
                    assert!(bits(&fused) == bits(&plain), "forward, {what}");
                    (&fused * &up).sum(Kind::Float).backward();
                    (&plain * &up).sum(Kind::Float).backward();
                    assert!(bits(&x1.grad()) == bits(&x2.grad()), "backward, {what}");
                    // and it is not the plain product alone
                    assert!(bits(&fused) != bits(&m.mm(&x)), "{what}");
                }
            }
        }
    }

    /// Split over 1, 2 or 3 libtorch threads (`csrc` 1), the product and its gradient keep
    /// every bit: each output row is computed whole by one thread.
    #[test]
    fn the_product_splits_over_threads_without_changing_a_bit() {
        let _g = crate::rng::torch_lock();
        let n = 700;
        for (rounded, m) in rand_square_both_kinds(n, 6000, 11) {
            for d in [7i64, 64] {
                let x = Tensor::randn([n, d], (Kind::Float, Device::Cpu));
                let up = Tensor::randn([n, d], (Kind::Float, Device::Cpu));
                let run = |threads: i32, s: Option<f64>| {
                    let _t = crate::runtime::TorchThreads::set(threads);
                    let x = x.copy().set_requires_grad(true);
                    let y = match s {
                        Some(s) => m.mm_plus_self(&x, s),
                        None => m.mm(&x),
                    };
                    (&y * &up).sum(Kind::Float).backward();
                    (bits(&y), bits(&x.grad()))
                };
                for s in [None, Some(1.3)] {
                    let one = run(1, s);
                    for threads in [2, 3] {
                        assert!(
                            run(threads, s) == one,
                            "rounded {rounded}, d {d}, self {s:?}, {threads} threads"
                        );
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "rows but the matrix has")]
    fn a_shape_mismatch_is_an_error_not_a_wild_read() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let (rows, cols, vals) = rand_matrix(6, 10, 1);
        let m = SparseMatrix::from_triplets(&rows, &cols, &vals, 6, 6);
        let _ = m.mm(&Tensor::ones([5, 3], (Kind::Float, Device::Cpu)));
    }

    #[test]
    fn empty_rows_and_empty_matrix() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let n = 4;
        let rows = Tensor::from_slice(&[2i64]);
        let cols = Tensor::from_slice(&[0i64]);
        let vals = Tensor::from_slice(&[2.5f32]);
        let m = SparseMatrix::from_triplets(&rows, &cols, &vals, n, n);
        let x = Tensor::arange(8, (Kind::Float, Device::Cpu)).view([4, 2]);
        let y: Vec<f32> = Vec::try_from(m.mm(&x).flatten(0, -1)).unwrap();
        assert_eq!(y, vec![0.0, 0.0, 0.0, 0.0, 0.0, 2.5, 0.0, 0.0]);
        let none = Tensor::zeros([0], (Kind::Int64, Device::Cpu));
        let m = SparseMatrix::from_triplets(&none, &none, &none.to_kind(Kind::Float), n, n);
        assert_eq!(m.mm(&x).abs().sum(Kind::Float).double_value(&[]), 0.0);
    }

    #[test]
    fn rectangular_pooling_matrix() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
                                           // 2 graphs × 5 nodes: nodes 0–2 in graph 0, 3–4 in graph 1
        let batch = Tensor::from_slice(&[0i64, 0, 0, 1, 1]);
        let nodes = Tensor::arange(5, (Kind::Int64, Device::Cpu));
        let ones = Tensor::ones([5], (Kind::Float, Device::Cpu));
        let p = SparseMatrix::from_triplets(&batch, &nodes, &ones, 2, 5);
        let x = Tensor::arange(10, (Kind::Float, Device::Cpu))
            .view([5, 2])
            .set_requires_grad(true);
        let y = p.mm(&x);
        let v: Vec<f32> = Vec::try_from(y.flatten(0, -1)).unwrap();
        assert_eq!(v, vec![6.0, 9.0, 14.0, 16.0]);
        (&y * Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).view([2, 2]))
            .sum(Kind::Float)
            .backward();
        let g: Vec<f32> = Vec::try_from(x.grad().flatten(0, -1)).unwrap();
        assert_eq!(g, vec![1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]);
    }

    #[test]
    fn second_order_use_keeps_gradients_flowing_through_chains() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // F(F(x)) with the custom op twice: gradient = (F²)ᵀ 1
        let n = 12;
        let (rows, cols, vals) = rand_matrix(n, 40, 5);
        let dense = dense_of(&rows, &cols, &vals, n);
        let m = SparseMatrix::from_triplets(&rows, &cols, &vals, n, n);
        let x = Tensor::randn([n, 3], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        m.mm(&m.mm(&x)).sum(Kind::Float).backward();
        let ones = Tensor::ones([n, 3], (Kind::Float, Device::Cpu));
        let expected = dense.tr().mm(&dense.tr().mm(&ones));
        assert!(x.grad().allclose(&expected, 1e-4, 1e-4, false));
    }

    #[test]
    fn the_device_build_gives_the_same_csr_as_the_counting_sort() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // (the libtorch build serves CUDA; run it on CPU tensors here, empty rows included)
        let (rows, cols, vals) = rand_matrix(9, 30, 7);
        let rows = rows.remainder(7); // rows 7 and 8 empty
        let dev = Csr::build(&rows, &cols, &vals, 9, 9);
        let r = Vec::<i64>::try_from(&rows).unwrap();
        let c = Vec::<i64>::try_from(&cols).unwrap();
        let v = Vec::<f32>::try_from(&vals).unwrap();
        let cpu = Csr::build_cpu(&r, &c, &v, 9);
        assert_eq!(
            Vec::<i64>::try_from(&dev.rowptr).unwrap(),
            Vec::<i64>::try_from(&cpu.rowptr).unwrap()
        );
        // same entries per row (the counting sort keeps input order within a row)
        let rp = Vec::<i64>::try_from(&cpu.rowptr).unwrap();
        let entries = |m: &Csr| {
            let (c, v) = (
                Vec::<i64>::try_from(&m.col).unwrap(),
                Vec::<f32>::try_from(&m.val).unwrap(),
            );
            (0..9)
                .map(|i| {
                    let mut e: Vec<(i64, u32)> = (rp[i] as usize..rp[i + 1] as usize)
                        .map(|k| (c[k], v[k].to_bits()))
                        .collect();
                    e.sort_unstable();
                    e
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(entries(&dev), entries(&cpu));
    }

    #[test]
    fn the_libtorch_form_matches_the_dense_matrix_in_product_and_gradient() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // the form CUDA uses (A and Aᵀ as libtorch sparse tensors), exercised on the CPU
        let n = 23;
        let (rows, cols, vals) = rand_matrix(n, 90, 11);
        let dense = dense_of(&rows, &cols, &vals, n);
        let m = SparseMatrix::build(&rows, &cols, &vals, n, n, true);
        assert!(matches!(m.repr, Repr::Torch { .. }));
        let x = Tensor::randn([n, 4], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let w = Tensor::randn([n, 4], (Kind::Float, Device::Cpu));
        let y = m.mm(&x);
        assert!(y.allclose(&dense.mm(&x), 1e-5, 1e-5, false));
        (&y * &w).sum(Kind::Float).backward();
        assert!(x.grad().allclose(&dense.tr().mm(&w), 1e-5, 1e-5, false));
        // rectangular (5 × 23), as the pooling and feature matrices are
        let r = rows.remainder(5);
        let keep = (&rows * n + &cols).argsort(0, false); // any order works
        let rect = SparseMatrix::build(
            &r.index_select(0, &keep),
            &cols.index_select(0, &keep),
            &vals.index_select(0, &keep),
            5,
            n,
            true,
        );
        let dense_rect = Tensor::zeros([5, n], (Kind::Float, Device::Cpu)).index_put(
            &[Some(r.shallow_clone()), Some(cols.shallow_clone())],
            &vals,
            true,
        );
        let x = Tensor::randn([n, 3], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        let y = rect.mm(&x);
        assert!(y.allclose(&dense_rect.mm(&x), 1e-5, 1e-5, false));
        y.sum(Kind::Float).backward();
        let ones = Tensor::ones([5, 3], (Kind::Float, Device::Cpu));
        assert!(x
            .grad()
            .allclose(&dense_rect.tr().mm(&ones), 1e-5, 1e-5, false));
    }
}
