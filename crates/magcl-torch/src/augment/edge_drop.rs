//! Edge dropping.
use rand::seq::index::sample;

use super::{count, Augmentor};
use crate::graph::GraphView;
use crate::rng::Rng;

/// Removes ⌊ratio·m⌋ undirected edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeDrop(pub f64);

impl Augmentor for EdgeDrop {
    fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        edge_drop(g, self.0, rng)
    }
    fn describe(&self) -> String {
        format!("edge-drop {}", self.0)
    }
}

pub fn edge_drop(g: &GraphView, ratio: f64, rng: &mut Rng) -> GraphView {
    let m = g.edges.len();
    let k = count(m, ratio).min(m);
    if k == 0 {
        return g.clone();
    }
    let mut keep = vec![true; m];
    for e in sample(rng, m, k) {
        keep[e] = false;
    }
    let edges = g
        .edges
        .iter()
        .zip(&keep)
        .filter(|(_, &k)| k)
        .map(|(&e, _)| e)
        .collect();
    GraphView {
        num_nodes: g.num_nodes,
        edges,
        x: g.x.clone(),
    }
}
