//! Sparse feature rows (CSR): what the graph-kernel baselines produce. A Weisfeiler–Lehman
//! feature vector counts tens of thousands of distinct subtree patterns on NCI1, too wide
//! for a dense matrix; the RBF SVM only needs the samples' squared distances and the
//! variance of the fit's entries (scikit-learn's `gamma = 'scale'`), and both come from
//! the rows' dot products without ever forming the dense matrix.
use rayon::prelude::*;

use crate::error::{Error, Result};

/// `n × d` features, row-major CSR: row `i` holds the columns
/// `indices[indptr[i]..indptr[i + 1]]` (strictly increasing) with their values.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseRows {
    pub n: usize,
    pub d: usize,
    pub indptr: Vec<usize>,
    pub indices: Vec<u32>,
    pub values: Vec<f64>,
}

impl SparseRows {
    /// Rows given as `(column, value)` pairs in any order; a column named twice in one row
    /// has its values added. Errors name the row of a column out of range (`≥ d`) or of a
    /// non-finite value.
    pub fn from_rows(rows: Vec<Vec<(u32, f64)>>, d: usize) -> Result<SparseRows> {
        let n = rows.len();
        let mut indptr = Vec::with_capacity(n + 1);
        let mut indices = Vec::new();
        let mut values = Vec::new();
        indptr.push(0);
        for (i, mut row) in rows.into_iter().enumerate() {
            row.sort_by_key(|&(c, _)| c);
            for (c, v) in row {
                if c as usize >= d {
                    return Err(Error::Input(format!(
                        "sparse row {i}: column {c} is out of range (the rows have {d} columns)"
                    )));
                }
                if !v.is_finite() {
                    return Err(Error::Numeric(format!(
                        "sparse row {i} has a non-finite value ({v}) in column {c}"
                    )));
                }
                if indices.len() > indptr[i] && indices.last() == Some(&c) {
                    if let Some(last) = values.last_mut() {
                        *last += v;
                    }
                } else {
                    indices.push(c);
                    values.push(v);
                }
            }
            indptr.push(indices.len());
        }
        Ok(SparseRows {
            n,
            d,
            indptr,
            indices,
            values,
        })
    }

    /// The columns and values of row `i`.
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.indices[r.clone()], &self.values[r])
    }

    /// The stored entries.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// The dense `n × d` matrix, row-major (f32, as embeddings are stored).
    pub fn to_dense_f32(&self) -> Vec<f32> {
        let mut out = vec![0f32; self.n * self.d];
        for i in 0..self.n {
            let (cols, vals) = self.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                out[i * self.d + c as usize] = v as f32;
            }
        }
        out
    }

    /// All dot products between rows (`n × n`, row-major, symmetric by construction):
    /// each row accumulates its products column by column through the columns' lists of
    /// rows, so the cost is the sum over columns of (rows holding the column)², not n²·d.
    pub fn gram(&self) -> Vec<f64> {
        let n = self.n;
        // the rows holding each column, in row order
        let mut col_start = vec![0usize; self.d + 1];
        for &c in &self.indices {
            col_start[c as usize + 1] += 1;
        }
        for c in 0..self.d {
            col_start[c + 1] += col_start[c];
        }
        let mut fill = col_start.clone();
        let mut col_rows = vec![0u32; self.nnz()];
        let mut col_vals = vec![0f64; self.nnz()];
        for i in 0..n {
            let (cols, vals) = self.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                let at = &mut fill[c as usize];
                col_rows[*at] = i as u32;
                col_vals[*at] = v;
                *at += 1;
            }
        }
        let mut g = vec![0f64; n * n];
        g.par_chunks_mut(n.max(1)).enumerate().for_each(|(i, out)| {
            let (cols, vals) = self.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                let r = col_start[c as usize]..col_start[c as usize + 1];
                for (&j, &w) in col_rows[r.clone()].iter().zip(&col_vals[r]) {
                    out[j as usize] += v * w;
                }
            }
        });
        // the sums above ran in column order for every entry, so (i, j) and (j, i) hold
        // the same terms in the same order: the matrix is exactly symmetric
        g
    }

    /// All pairwise squared Euclidean distances (`n × n`, row-major), by the formula the
    /// dense path uses (`|a|² + |b|² − 2 a·b`, clamped at 0, exact zeros on the diagonal).
    pub fn squared_distances(&self) -> Vec<f64> {
        let n = self.n;
        let mut g = self.gram();
        let norms: Vec<f64> = (0..n).map(|i| g[i * n + i]).collect();
        g.par_chunks_mut(n.max(1)).enumerate().for_each(|(i, row)| {
            for (j, v) in row.iter_mut().enumerate() {
                *v = if i == j {
                    0.0
                } else {
                    (norms[i] + norms[j] - 2.0 * *v).max(0.0)
                };
            }
        });
        g
    }

    /// Population variance of all `|idx| × d` entries of the rows `idx`, zeros included
    /// (numpy's `X[idx].var()` on the dense matrix).
    pub fn variance_of_rows(&self, idx: &[usize]) -> f64 {
        let cnt = (idx.len() * self.d) as f64;
        if cnt == 0.0 {
            return 0.0;
        }
        let (mut s1, mut s2) = (0.0, 0.0);
        for &i in idx {
            let (_, vals) = self.row(i);
            s1 += vals.iter().sum::<f64>();
            s2 += vals.iter().map(|v| v * v).sum::<f64>();
        }
        let mean = s1 / cnt;
        (s2 / cnt - mean * mean).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::{squared_distances, Features};

    fn example() -> SparseRows {
        SparseRows::from_rows(
            vec![
                vec![(2, 1.0), (0, 2.0), (2, 1.0)],
                vec![],
                vec![(1, 3.0), (3, 0.5)],
                vec![(0, 1.0), (1, 1.0), (2, 1.0), (3, 1.0)],
            ],
            4,
        )
        .unwrap()
    }

    #[test]
    fn rows_are_sorted_and_repeated_columns_add() {
        let s = example();
        assert_eq!(s.row(0), (&[0u32, 2][..], &[2.0, 2.0][..]));
        assert_eq!(s.row(1), (&[][..], &[][..]));
        assert_eq!(s.nnz(), 8);
        assert_eq!(
            s.to_dense_f32(),
            vec![2., 0., 2., 0., 0., 0., 0., 0., 0., 3., 0., 0.5, 1., 1., 1., 1.]
        );
    }

    #[test]
    fn bad_rows_are_refused_with_their_row() {
        let e = SparseRows::from_rows(vec![vec![], vec![(4, 1.0)]], 4).unwrap_err();
        assert!(e.to_string().contains("row 1: column 4"), "{e}");
        let e = SparseRows::from_rows(vec![vec![(0, f64::NAN)]], 4).unwrap_err();
        assert!(e.to_string().contains("row 0"), "{e}");
    }

    #[test]
    fn distances_and_variance_match_the_dense_computation() {
        let s = example();
        // hand-computed: rows (2,0,2,0), (0,0,0,0), (0,3,0,.5), (1,1,1,1)
        let g = s.gram();
        assert_eq!(g[0], 8.0);
        assert_eq!(g[2 * 4 + 3], 3.5);
        assert_eq!(g[3 * 4 + 2], 3.5);
        assert_eq!(g[4 + 2], 0.0);
        let dense = Features::from_f32(&s.to_dense_f32(), 4, 4);
        let want = squared_distances(&dense);
        let got = s.squared_distances();
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-12, "{got:?} vs {want:?}");
        }
        // |(2,0,2,0) − (0,3,0,.5)|² = 4 + 9 + 4 + .25
        assert_eq!(got[2], 17.25);
        for idx in [vec![0, 1, 2, 3], vec![2, 3], vec![1]] {
            let (a, b) = (s.variance_of_rows(&idx), dense.variance_of_rows(&idx));
            assert!((a - b).abs() < 1e-12, "{idx:?}: {a} vs {b}");
        }
        assert_eq!(s.variance_of_rows(&[]), 0.0);
    }

    #[test]
    fn the_sparse_protocol_gives_the_dense_numbers() {
        use crate::protocol::StratifiedKFold;
        use crate::{run_protocol, run_protocol_sparse, Evaluator, GridSearchCv, HostMatrix};
        // 60 samples of small integer counts (every sum is exact), two classes that
        // differ in which columns they tend to fill
        let (n, d) = (60, 12);
        let mut raw = crate::lcg(7);
        let mut next = || (raw() >> 33) as u32;
        let y: Vec<u32> = (0..n).map(|i| (i % 2) as u32).collect();
        let rows: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|i| {
                (0..4)
                    .map(|_| {
                        let c = next() % 8 + if y[i] == 1 { 4 } else { 0 };
                        (c, (next() % 3 + 1) as f64)
                    })
                    .collect()
            })
            .collect();
        let s = SparseRows::from_rows(rows, d).unwrap();
        let dense = s.to_dense_f32();
        let p = StratifiedKFold { k: 5 };
        let g = GridSearchCv::new(Evaluator::SvcRbf);
        let a = run_protocol_sparse(&p, &g, &s, &y, 3).unwrap();
        let b = run_protocol(&p, &g, HostMatrix::new(&dense, n, d), &y, 3).unwrap();
        assert_eq!(a.fold_correct, b.fold_correct);
        assert_eq!(a.best_c, b.best_c);
        assert!(
            a.accuracy > 60.0,
            "the classes are separable: {}",
            a.accuracy
        );
        // the other classifiers need dense features
        let e = run_protocol_sparse(&p, &GridSearchCv::new(Evaluator::LinearSvc), &s, &y, 3)
            .unwrap_err();
        assert!(e.to_string().contains("svc-rbf"), "{e}");
    }
}
