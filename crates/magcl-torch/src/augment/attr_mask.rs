//! Attribute masking.
use rand::seq::index::sample;
use rand_distr::{Distribution, Normal};

use super::{count, Augmentor};
use crate::graph::GraphView;
use crate::rng::Rng;

/// Replaces the features of ⌊ratio·n⌋ nodes by Gaussian noise N(0.5, 0.5²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttrMask(pub f64);

impl Augmentor for AttrMask {
    fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        attr_mask(g, self.0, rng)
    }
    fn describe(&self) -> String {
        format!("mask {}", self.0)
    }
}

pub fn attr_mask(g: &GraphView, ratio: f64, rng: &mut Rng) -> GraphView {
    let n = g.num_nodes;
    let dim = g.dim();
    let k = count(n, ratio).min(n);
    let mut out = g.clone();
    if k == 0 || dim == 0 {
        return out;
    }
    // Constant parameters: Normal::new only fails for a negative or NaN std.
    let normal = Normal::new(0.5f32, 0.5f32).unwrap_or_else(|_| unreachable!());
    for v in sample(rng, n, k) {
        for x in &mut out.x[v * dim..(v + 1) * dim] {
            *x = normal.sample(rng);
        }
    }
    out
}
