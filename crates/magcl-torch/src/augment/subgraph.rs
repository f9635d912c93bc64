//! Subgraphs grown from a random seed node.
use rand::Rng as _;

use super::{count, induced, Augmentor};
use crate::graph::GraphView;
use crate::rng::Rng;

/// Keeps the subgraph induced by ⌊ratio·n⌋ + 1 nodes grown from a random seed node by
/// repeatedly adding a uniformly chosen node of the current frontier (a random walk over
/// the growing subgraph's neighbourhood); stops early when the component is spent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Subgraph(pub f64);

impl Augmentor for Subgraph {
    fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        subgraph(g, self.0, rng)
    }
    fn describe(&self) -> String {
        format!("subgraph {}", self.0)
    }
}

/// The reference's variant: the frontier is never updated, so the result is the seed node
/// plus up to ⌊ratio·n⌋ of its direct neighbours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Subgraph1Hop(pub f64);

impl Augmentor for Subgraph1Hop {
    fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        subgraph_1hop(g, self.0, rng)
    }
    fn describe(&self) -> String {
        format!("subgraph-1hop {}", self.0)
    }
}

/// Adjacency lists of `g`.
pub(crate) fn adjacency(g: &GraphView) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); g.num_nodes];
    for &(u, v) in &g.edges {
        adj[u as usize].push(v);
        adj[v as usize].push(u);
    }
    adj
}

pub fn subgraph(g: &GraphView, ratio: f64, rng: &mut Rng) -> GraphView {
    let n = g.num_nodes;
    if n == 0 {
        return g.clone();
    }
    let target = (count(n, ratio) + 1).min(n);
    let adj = adjacency(g);
    let mut keep = vec![false; n];
    let mut in_frontier = vec![false; n];
    let mut frontier: Vec<u32> = Vec::new();
    let start = rng.gen_range(0..n);
    let mut kept = 1;
    keep[start] = true;
    let mut grow = |v: usize, keep: &Vec<bool>, frontier: &mut Vec<u32>| {
        for &w in &adj[v] {
            if !keep[w as usize] && !in_frontier[w as usize] {
                in_frontier[w as usize] = true;
                frontier.push(w);
            }
        }
    };
    grow(start, &keep, &mut frontier);
    while kept < target && !frontier.is_empty() {
        let i = rng.gen_range(0..frontier.len());
        let v = frontier.swap_remove(i) as usize;
        keep[v] = true;
        kept += 1;
        grow(v, &keep, &mut frontier);
    }
    induced(g, &keep)
}

pub fn subgraph_1hop(g: &GraphView, ratio: f64, rng: &mut Rng) -> GraphView {
    let n = g.num_nodes;
    if n == 0 {
        return g.clone();
    }
    let sub_num = count(n, ratio);
    let adj = adjacency(g);
    let start = rng.gen_range(0..n);
    let neigh = &adj[start];
    let mut keep = vec![false; n];
    keep[start] = true;
    let mut kept = 1;
    // The reference samples with replacement from the seed's neighbours, skipping repeats,
    // for at most n draws, until it holds sub_num + 1 nodes.
    let mut draws = 0;
    while kept <= sub_num && !neigh.is_empty() {
        draws += 1;
        if draws > n {
            break;
        }
        let v = neigh[rng.gen_range(0..neigh.len())] as usize;
        if !keep[v] {
            keep[v] = true;
            kept += 1;
        }
    }
    induced(g, &keep)
}
