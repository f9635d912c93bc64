//! The Jensen–Shannon mutual-information estimator between node ("local") and graph
//! ("global") representations: InfoGraph's loss (the official code's `losses.py`,
//! `local_global_loss_` with measure `JSD`, from `cortex_DIM/functions/gan_losses.py`),
//! which MVGRL applies across its two views (docs/methods.md, InfoGraph and MVGRL).
use std::f64::consts::LN_2;

use tch::Tensor;

/// InfoGraph's local–global loss with the Jensen–Shannon estimator: scores `s = l gᵀ`
/// between every node (rows of `local`) and every graph (rows of `global`); with `batch`
/// the graph of each node,
/// `E_pos = Σ_{(v, G(v))} (log 2 − softplus(−s)) / n`,
/// `E_neg = Σ_{(v, g ≠ G(v))} (softplus(−s) + s − log 2) / (n (G − 1))`,
/// loss `= E_neg − E_pos`. A batch of one graph has no negatives: `E_neg` is 0 there.
pub fn local_global_jsd(local: &Tensor, global: &Tensor, batch: &Tensor) -> Tensor {
    let n = local.size()[0] as f64;
    let graphs = global.size()[0];
    let scores = local.mm(&global.tr());
    let pos = batch.one_hot(graphs).to_kind(scores.kind());
    let neg = pos.ones_like() - &pos;
    let sp = (-&scores).softplus();
    let e_pos = (&pos * (sp.neg() + LN_2)).sum(scores.kind()) / n;
    let e_neg =
        (&neg * (sp + &scores - LN_2)).sum(scores.kind()) / (n * (graphs - 1).max(1) as f64);
    e_neg - e_pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Device, Kind};

    fn softplus(x: f64) -> f64 {
        (1.0 + x.exp()).ln()
    }

    /// The loss on three nodes in two graphs, by hand: scores s = l·g for each (node,
    /// graph), positives (0,0), (1,0), (2,1), negatives the other three.
    #[test]
    fn jsd_loss_by_hand() {
        let l = [[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]];
        let g = [[1.0, 0.5], [-0.5, 2.0]];
        let batch = [0usize, 0, 1];
        let s = |v: usize, j: usize| l[v][0] * g[j][0] + l[v][1] * g[j][1];
        let (mut pos, mut neg) = (0.0, 0.0);
        for (v, &own) in batch.iter().enumerate() {
            for j in 0..2 {
                if own == j {
                    pos += LN_2 - softplus(-s(v, j));
                } else {
                    neg += softplus(-s(v, j)) + s(v, j) - LN_2;
                }
            }
        }
        let want = neg / (3.0 * 1.0) - pos / 3.0;
        let t = |rows: &[[f64; 2]]| Tensor::from_slice(&rows.concat()).view([rows.len() as i64, 2]);
        let got =
            local_global_jsd(&t(&l), &t(&g), &Tensor::from_slice(&[0i64, 0, 1])).double_value(&[]);
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        // One graph: no negatives, the loss is −E_pos.
        let one = local_global_jsd(&t(&l[..2]), &t(&g[..1]), &Tensor::from_slice(&[0i64, 0]))
            .double_value(&[]);
        let want_one = -((LN_2 - softplus(-s(0, 0))) + (LN_2 - softplus(-s(1, 0)))) / 2.0;
        assert!((one - want_one).abs() < 1e-12, "{one} vs {want_one}");
    }

    /// The loss's gradient against central differences (double precision).
    #[test]
    fn jsd_loss_gradient_matches_finite_differences() {
        let _g = crate::rng::torch_lock();
        tch::manual_seed(3);
        let local = Tensor::randn([5, 3], (Kind::Double, Device::Cpu)).set_requires_grad(true);
        let global = Tensor::randn([2, 3], (Kind::Double, Device::Cpu));
        let batch = Tensor::from_slice(&[0i64, 0, 1, 1, 1]);
        local_global_jsd(&local, &global, &batch).backward();
        let grad = Vec::<f64>::try_from(local.grad().flatten(0, -1)).unwrap();
        let base = Vec::<f64>::try_from(local.detach().flatten(0, -1)).unwrap();
        let h = 1e-6;
        for i in 0..base.len() {
            let at = |d: f64| {
                let mut x = base.clone();
                x[i] += d;
                local_global_jsd(&Tensor::from_slice(&x).view([5, 3]), &global, &batch)
                    .double_value(&[])
            };
            let num = (at(h) - at(-h)) / (2.0 * h);
            assert!(
                (num - grad[i]).abs() < 1e-7,
                "entry {i}: {num} vs {}",
                grad[i]
            );
        }
    }

    /// Nodes that agree with their own graph score a lower loss than the same nodes set
    /// against the wrong graphs: the loss rewards what it should.
    #[test]
    fn matching_nodes_and_graphs_lower_the_loss() {
        let g = Tensor::from_slice(&[3.0f64, 0.0, 0.0, 3.0]).view([2, 2]);
        let l = Tensor::from_slice(&[1.0f64, 0.0, 1.0, 0.0, 0.0, 1.0]).view([3, 2]);
        let right = local_global_jsd(&l, &g, &Tensor::from_slice(&[0i64, 0, 1]));
        let wrong = local_global_jsd(&l, &g, &Tensor::from_slice(&[1i64, 1, 0]));
        assert!(right.double_value(&[]) < wrong.double_value(&[]));
    }
}
