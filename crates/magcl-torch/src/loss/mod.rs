//! The NT-Xent / InfoNCE family with explicit switches (docs/methods.md, "The engine").
//!
//! For anchors `a_i` and candidates `c_j` (rows L2-normalised) with `s_ij = a_i·c_j / τ`,
//! the one-way loss is `mean_i [ log Σ_{j∈D_i} e^{s_ij} (+ Σ_{j≠i} e^{a_i·a_j/τ}) − s_ii ]`
//! where `D_i` holds every candidate (positive in the denominator) or every candidate but
//! `i` (positive excluded); the second sum is present with intra-view negatives. Without
//! inter-view negatives `D_i` keeps only the positive `i` (or nothing, positive excluded),
//! so the negatives are the intra-view ones alone: the paper's "only intra-view modeling"
//! read literally. The symmetric form averages both directions.
//!
//! [`InfoNce::loss`] computes the N×N similarities in row blocks and forms the gradient
//! analytically (softmax weights), so memory is O(block · N) instead of O(N²) and no
//! autograd graph is kept for the similarity matrix. The returned scalar carries the exact
//! loss value and the exact gradient with respect to both embeddings (a surrogate whose
//! gradient is the analytic one). [`dense_loss`] is the plain autograd form, kept as the
//! reference the blocked form is tested against.
//!
//! The other losses sit beside it, one file each: [`jsd`] (InfoGraph's and MVGRL's
//! local–global Jensen–Shannon bound) and [`bootstrap`] (BGRL's).
use tch::{Kind, Tensor};

use crate::params::Checked;

pub mod bootstrap;
pub mod jsd;
pub mod params;
pub use bootstrap::bootstrap_loss;
pub use jsd::local_global_jsd;
pub use params::InfoNceParams;

/// The loss with its switches and row-block size.
#[derive(Clone, Debug)]
pub struct InfoNce {
    pub cfg: InfoNceParams,
    /// Rows per block (0 = all rows at once).
    pub block_rows: usize,
}

/// Row-normalises `z` (L2), as cosine similarity does.
pub fn normalize(z: &Tensor) -> Tensor {
    let norm = z.norm_scalaropt_dim(2.0, [1], true).clamp_min(1e-12);
    z / norm
}

/// Loss value and gradients (w.r.t. the normalised anchors and candidates) of one direction.
struct Direction {
    /// A 0-d f64 tensor on the embeddings' device (read back only by the caller, so a
    /// CUDA step is never synchronised inside the loss).
    loss_sum: Tensor,
    grad_a: Tensor,
    grad_c: Tensor,
}

fn one_direction(a: &Tensor, c: &Tensor, cfg: &InfoNceParams, block: usize) -> Direction {
    let n = a.size()[0];
    let inv_t = 1.0 / cfg.temperature;
    let block = if block == 0 {
        n
    } else {
        (block as i64).min(n).max(1)
    };
    let mut grad_a = a.zeros_like();
    let mut grad_c = c.zeros_like();
    let mut loss = Tensor::zeros([], (Kind::Double, a.device()));
    let ct = c.transpose(0, 1);
    let at = a.transpose(0, 1);
    let mut start = 0i64;
    while start < n {
        let len = block.min(n - start);
        let rows = a.narrow(0, start, len);
        // 1/τ folded into the (small) anchor block instead of the N-wide similarities
        let rows_t = &rows * inv_t;
        // the positive of row r of the block sits in column start + r
        let diag = Tensor::arange_start(start, start + len, (Kind::Int64, a.device())).unsqueeze(1);
        let mut s = rows_t.matmul(&ct);
        if !cfg.inter_view_negatives {
            // of the inter-view similarities only each row's positive remains
            let pos = s.gather(1, &diag, false);
            s = s.full_like(f64::NEG_INFINITY).scatter(1, &diag, &pos);
        }
        if !cfg.positive_in_denominator {
            let _ = s.scatter_value_(1, &diag, f64::NEG_INFINITY);
        }
        let t = cfg.intra_view_negatives.then(|| {
            let mut t = rows_t.matmul(&at);
            let _ = t.scatter_value_(1, &diag, f64::NEG_INFINITY);
            t
        });
        // Softmax weights in place. The rows are unit vectors, so every similarity lies in
        // [−1/τ, 1/τ] and 1/τ serves as the shift that keeps exp from overflowing (no
        // row-max pass over the N-wide block): e = exp(s − 1/τ), lse = 1/τ + log Σe.
        let _ = s.g_sub_scalar_(inv_t).exp_();
        let mut total = s.sum_dim_intlist(&[1i64][..], true, s.kind());
        let t = t.map(|mut t| {
            let _ = t.g_sub_scalar_(inv_t).exp_();
            total += t.sum_dim_intlist(&[1i64][..], true, t.kind());
            t
        });
        let lse = total.log() + inv_t;
        let pos = (&rows_t * c.narrow(0, start, len)).sum_dim_intlist(&[1i64][..], true, a.kind());
        loss += (&lse - &pos).sum(Kind::Double);
        // P = e / Σe without a pass over the block: the row scaling goes onto the (block × d)
        // products instead, P·c = (e·c) / Σe and Pᵀ·rows = eᵀ·(rows / Σe).
        let inv_total = total.reciprocal();
        let _ = grad_a
            .narrow(0, start, len)
            .g_add_(&(s.matmul(c) * &inv_total));
        let scaled_rows = &rows * &inv_total;
        let _ = grad_c.g_add_(&s.transpose(0, 1).matmul(&scaled_rows));
        if let Some(q) = t {
            let _ = grad_a
                .narrow(0, start, len)
                .g_add_(&(q.matmul(a) * &inv_total));
            let _ = grad_a.g_add_(&q.transpose(0, 1).matmul(&scaled_rows));
        }
        start += len;
    }
    let _ = grad_a.g_sub_(c);
    let _ = grad_c.g_sub_(a);
    let scale = inv_t / n as f64;
    Direction {
        loss_sum: loss,
        grad_a: grad_a * scale,
        grad_c: grad_c * scale,
    }
}

impl InfoNce {
    /// The loss of `cfg`, its similarity computed in blocks of `block_rows` rows (0: the
    /// whole matrix at once).
    pub fn new(cfg: Checked<InfoNceParams>, block_rows: usize) -> Self {
        InfoNce {
            cfg: cfg.into_inner(),
            block_rows,
        }
    }

    /// The loss of embeddings `z1` (anchors) and `z2` (candidates), rows paired by index.
    /// Differentiable: backpropagating it gives the exact gradient. One operation with its
    /// backward beside it: the value and the gradients with respect to both inputs are
    /// computed here in row blocks (no autograd graph over the similarities), and the
    /// returned scalar is a surrogate whose gradient is that analytic one. Under
    /// [`crate::kernels::with_reference_ops`] it is [`dense_loss`] instead: the same
    /// formula as plain libtorch operators, differentiated by libtorch's autograd.
    pub fn loss(&self, z1: &Tensor, z2: &Tensor) -> Tensor {
        if crate::kernels::reference_ops() {
            return dense_loss(z1, z2, &self.cfg);
        }
        let u = normalize(z1);
        let v = normalize(z2);
        let (ud, vd) = (u.detach(), v.detach());
        let n = ud.size()[0].max(1) as f64;
        let (value, gu, gv) = tch::no_grad(|| {
            let f = one_direction(&ud, &vd, &self.cfg, self.block_rows);
            if self.cfg.symmetric {
                let b = one_direction(&vd, &ud, &self.cfg, self.block_rows);
                (
                    (f.loss_sum + b.loss_sum) * 0.5 / n,
                    (f.grad_a + b.grad_c) * 0.5,
                    (f.grad_c + b.grad_a) * 0.5,
                )
            } else {
                (f.loss_sum / n, f.grad_a, f.grad_c)
            }
        });
        let surrogate = (&u * gu).sum(u.kind()) + (&v * gv).sum(v.kind());
        &surrogate - surrogate.detach() + value.to_kind(z1.kind())
    }
}

/// The straightforward autograd form (N×N matrices at once): [`InfoNce::loss`]'s
/// reference form, which the blocked form is tested against.
pub fn dense_loss(z1: &Tensor, z2: &Tensor, cfg: &InfoNceParams) -> Tensor {
    let dir = |a: &Tensor, c: &Tensor| {
        let n = a.size()[0];
        let inv_t = 1.0 / cfg.temperature;
        let eye = Tensor::eye(n, (Kind::Bool, a.device()));
        let mut s = a.matmul(&c.transpose(0, 1)) * inv_t;
        let pos = s.diagonal(0, 0, 1);
        if !cfg.inter_view_negatives {
            s = s.masked_fill(&eye.logical_not(), f64::NEG_INFINITY);
        }
        if !cfg.positive_in_denominator {
            s = s.masked_fill(&eye, f64::NEG_INFINITY);
        }
        let all = if cfg.intra_view_negatives {
            let t = (a.matmul(&a.transpose(0, 1)) * inv_t).masked_fill(&eye, f64::NEG_INFINITY);
            Tensor::cat(&[s, t], 1)
        } else {
            s
        };
        (all.logsumexp([1], false) - pos).mean(a.kind())
    };
    let (u, v) = (normalize(z1), normalize(z2));
    if cfg.symmetric {
        (dir(&u, &v) + dir(&v, &u)) * 0.5
    } else {
        dir(&u, &v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamGuard;
    use tch::Device;

    /// Every switch combination with negatives.
    fn all_configs() -> Vec<InfoNceParams> {
        let mut v = Vec::new();
        for positive_in_denominator in [false, true] {
            for symmetric in [false, true] {
                for intra_view_negatives in [false, true] {
                    for inter_view_negatives in [true, false] {
                        let cfg = InfoNceParams {
                            temperature: 0.3,
                            positive_in_denominator,
                            symmetric,
                            intra_view_negatives,
                            inter_view_negatives,
                            projector: false,
                        };
                        if cfg.missing_negatives().is_none() {
                            v.push(cfg);
                        }
                    }
                }
            }
        }
        v
    }

    fn grads(
        f: impl Fn(&Tensor, &Tensor) -> Tensor,
        z1: &Tensor,
        z2: &Tensor,
    ) -> (f64, Tensor, Tensor) {
        let a = z1.detach().set_requires_grad(true);
        let b = z2.detach().set_requires_grad(true);
        let l = f(&a, &b);
        let g = Tensor::run_backward(&[&l], &[&a, &b], false, false);
        (
            l.double_value(&[]),
            g[0].shallow_clone(),
            g[1].shallow_clone(),
        )
    }

    #[test]
    fn blocked_equals_dense_in_value_and_gradient() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        tch::manual_seed(3);
        let z1 = Tensor::randn([37, 8], (Kind::Double, Device::Cpu));
        let z2 = Tensor::randn([37, 8], (Kind::Double, Device::Cpu));
        for cfg in all_configs() {
            let (ld, g1d, g2d) = grads(|a, b| dense_loss(a, b, &cfg), &z1, &z2);
            for block in [0, 1, 5, 37, 100] {
                let nce = InfoNce::new(cfg.clone().check().unwrap(), block);
                let (lb, g1b, g2b) = grads(|a, b| nce.loss(a, b), &z1, &z2);
                assert!(
                    (ld - lb).abs() < 1e-9,
                    "{cfg:?} block {block}: {ld} vs {lb}"
                );
                let e1 = (g1d.shallow_clone() - g1b).abs().max().double_value(&[]);
                let e2 = (g2d.shallow_clone() - g2b).abs().max().double_value(&[]);
                assert!(e1 < 1e-9 && e2 < 1e-9, "{cfg:?} block {block}: {e1} {e2}");
            }
        }
    }

    #[test]
    fn hand_computed_two_by_two() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
                                           // z1 = [e1, e2], z2 = [e1, e2]: s = I/τ. GraphCL's form (positive excluded):
                                           // loss_i = log(e^0) − 1/τ = −1/τ. Positive included: log(e^{1/τ} + 1) − 1/τ.
        let e = Tensor::from_slice(&[1.0f64, 0.0, 0.0, 1.0]).view([2, 2]);
        let mut cfg = InfoNceParams {
            temperature: 0.5,
            positive_in_denominator: false,
            symmetric: false,
            intra_view_negatives: false,
            inter_view_negatives: true,
            projector: true,
        };
        let l = InfoNce::new(cfg.clone().check().unwrap(), 0)
            .loss(&e, &e)
            .double_value(&[]);
        assert!((l - (-2.0)).abs() < 1e-9, "{l}");
        cfg.positive_in_denominator = true;
        let l = InfoNce::new(cfg.clone().check().unwrap(), 0)
            .loss(&e, &e)
            .double_value(&[]);
        assert!((l - ((2f64.exp() + 1.0).ln() - 2.0)).abs() < 1e-9, "{l}");
        // intra-view negatives add e^{a_1·a_2/τ} = e^0 = 1 to each denominator
        cfg.intra_view_negatives = true;
        let l = InfoNce::new(cfg.clone().check().unwrap(), 0)
            .loss(&e, &e)
            .double_value(&[]);
        assert!((l - ((2f64.exp() + 2.0).ln() - 2.0)).abs() < 1e-9, "{l}");
    }

    #[test]
    fn intra_view_only_negatives_by_hand() {
        // anchors a = [e1, e2], candidates c = [e1, (e1 + e2)/√2], τ = 0.5. The inter-view
        // pair (a_1, c_2) has similarity 1/√2, the intra-view pair (a_1, a_2) 0; so the
        // negatives differ between the readings and each denominator is checked.
        let r = std::f64::consts::FRAC_1_SQRT_2;
        let a = Tensor::from_slice(&[1.0f64, 0.0, 0.0, 1.0]).view([2, 2]);
        let c = Tensor::from_slice(&[1.0f64, 0.0, r, r]).view([2, 2]);
        let cfg = InfoNceParams {
            temperature: 0.5,
            positive_in_denominator: true,
            symmetric: false,
            intra_view_negatives: true,
            inter_view_negatives: false,
            projector: false,
        };
        // s = a·cᵀ/τ = [[2, √2], [0, √2]]; positives s_11 = 2, s_22 = √2; intra a_1·a_2 = 0
        let s2 = 2f64.sqrt();
        let row1 = (2f64.exp() + 1.0).ln() - 2.0;
        let row2 = (s2.exp() + 1.0).ln() - s2;
        let want = 0.5 * (row1 + row2);
        for block in [0, 1] {
            let l = InfoNce::new(cfg.clone().check().unwrap(), block)
                .loss(&a, &c)
                .double_value(&[]);
            assert!((l - want).abs() < 1e-12, "block {block}: {l} vs {want}");
        }
        // the code's inter-view reading: row 1 sees c_2 (e^{√2}), row 2 sees c_1 (e^0)
        let inter = InfoNceParams {
            intra_view_negatives: false,
            inter_view_negatives: true,
            ..cfg.clone()
        };
        let want = 0.5 * ((2f64.exp() + s2.exp()).ln() - 2.0 + (1.0 + s2.exp()).ln() - s2);
        let l = InfoNce::new(inter.check().unwrap(), 0)
            .loss(&a, &c)
            .double_value(&[]);
        assert!((l - want).abs() < 1e-12, "{l} vs {want}");
        // no negatives of either kind: refused by name
        let none = InfoNceParams {
            intra_view_negatives: false,
            ..cfg
        };
        assert!(none.missing_negatives().is_some());
    }

    #[test]
    fn dense_loss_passes_a_numerical_gradient_check() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        tch::manual_seed(4);
        let z2 = Tensor::randn([5, 3], (Kind::Double, Device::Cpu));
        let x = Tensor::randn([5, 3], (Kind::Double, Device::Cpu));
        for cfg in all_configs() {
            crate::nn::ops::tests::gradcheck(|z| dense_loss(z, &z2, &cfg), &x);
        }
    }

    #[test]
    fn scale_invariance() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // cosine similarity: scaling the embeddings leaves the loss unchanged
        tch::manual_seed(5);
        let z1 = Tensor::randn([9, 4], (Kind::Double, Device::Cpu));
        let z2 = Tensor::randn([9, 4], (Kind::Double, Device::Cpu));
        let nce = InfoNce::new(all_configs()[0].clone().check().unwrap(), 4);
        let a = nce.loss(&z1, &z2).double_value(&[]);
        let b = nce.loss(&(&z1 * 3.0), &(&z2 * 0.5)).double_value(&[]);
        assert!((a - b).abs() < 1e-9);
    }
}
