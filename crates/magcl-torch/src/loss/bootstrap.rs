//! BGRL's bootstrap loss: the online network's predictions against the target network's
//! embeddings of the other view, both directions (docs/methods.md, BGRL).
use tch::Tensor;

/// BGRL's loss: `2 − mean cos(q1, y2) − mean cos(q2, y1)` (row-wise cosines).
pub fn bootstrap_loss(q1: &Tensor, y2: &Tensor, q2: &Tensor, y1: &Tensor) -> Tensor {
    let c = |a: &Tensor, b: &Tensor| Tensor::cosine_similarity(a, b, 1, 1e-8).mean(a.kind());
    (c(q1, y2) + c(q2, y1)).neg() + 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Kind;

    fn t(rows: &[[f64; 2]]) -> Tensor {
        Tensor::from_slice(&rows.concat())
            .view([rows.len() as i64, 2])
            .to_kind(Kind::Double)
    }

    /// 2 − mean cos(q1, y2) − mean cos(q2, y1), by hand on two nodes.
    #[test]
    fn loss_by_hand() {
        let (q1, y2) = ([[1.0, 0.0], [3.0, 4.0]], [[0.0, 2.0], [3.0, 4.0]]);
        let (q2, y1) = ([[1.0, 1.0], [-1.0, 0.0]], [[1.0, 0.0], [2.0, 0.0]]);
        // cos: (0, 1) and (1/√2, −1)
        let want = 2.0 - (0.0 + 1.0) / 2.0 - (0.5f64.sqrt() - 1.0) / 2.0;
        let got = bootstrap_loss(&t(&q1), &t(&y2), &t(&q2), &t(&y1)).double_value(&[]);
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
}
