//! Node dropping.
use rand::seq::index::sample;

use super::{count, induced, Augmentor};
use crate::graph::GraphView;
use crate::rng::Rng;

/// Removes ⌊ratio·n⌋ nodes (at most n − 1) and their edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeDrop(pub f64);

impl Augmentor for NodeDrop {
    fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        node_drop(g, self.0, rng)
    }
    fn describe(&self) -> String {
        format!("node-drop {}", self.0)
    }
}

pub fn node_drop(g: &GraphView, ratio: f64, rng: &mut Rng) -> GraphView {
    let n = g.num_nodes;
    let k = count(n, ratio).min(n.saturating_sub(1));
    if k == 0 {
        return g.clone();
    }
    let mut keep = vec![true; n];
    for v in sample(rng, n, k) {
        keep[v] = false;
    }
    induced(g, &keep)
}
