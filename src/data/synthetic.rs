//! The embedded default dataset `synthetic` (alias `BA-2Motifs`): a BA-2Motifs-style
//! graph-classification set that needs no files, so magcl works offline.
//!
//! Graph `i` is a Barabási–Albert tree (preferential attachment with one edge per new
//! node, [`BASE_NODES`] nodes) with a five-node motif joined to it by one edge between a
//! random base node and the motif's first node. The motif is a *house* (a square with a
//! roof: 6 edges) for class 0 and a *5-cycle* for class 1; classes alternate (`i % 2`),
//! so the set is balanced. No node labels or attributes, so the `graphcl` preset gives
//! constant features. Everything is drawn from `rng::stream(seed, [SYNTHETIC, i])`: the
//! same seed gives the same dataset, graph by graph, on every machine.
use super::{Graph, GraphDataset};
use crate::rng::{self, streams};
use rand::Rng as _;

/// Graphs in the default `synthetic` set.
pub const DEFAULT_GRAPHS: usize = 200;
/// Seed of the default `synthetic` set.
pub const DEFAULT_SEED: u64 = 0;
/// Nodes of each Barabási–Albert base graph.
pub const BASE_NODES: usize = 20;

/// House motif on nodes 0..5: square 0-1-2-3 and roof 4 on 0 and 1.
const HOUSE: [(u32, u32); 6] = [(0, 1), (1, 2), (2, 3), (0, 3), (0, 4), (1, 4)];
/// 5-cycle on nodes 0..5.
const CYCLE: [(u32, u32); 5] = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)];

/// A Barabási–Albert graph with one edge per new node: node `t` (t >= 2) attaches to an
/// earlier node chosen with probability proportional to its degree. Starts from the edge 0-1.
pub fn barabasi_albert_tree(n: usize, rng: &mut rng::Rng) -> Vec<(u32, u32)> {
    let mut edges = Vec::with_capacity(n.saturating_sub(1));
    // Every edge end once: sampling an entry uniformly is sampling by degree.
    let mut ends: Vec<u32> = Vec::with_capacity(2 * n);
    if n >= 2 {
        edges.push((0, 1));
        ends.extend([0, 1]);
    }
    for t in 2..n as u32 {
        let target = ends[rng.gen_range(0..ends.len())];
        edges.push((target.min(t), target.max(t)));
        ends.extend([target, t]);
    }
    edges
}

/// Generates `num_graphs` graphs deterministically from `seed`.
pub fn ba_2motifs(num_graphs: usize, seed: u64) -> GraphDataset {
    let graphs = (0..num_graphs)
        .map(|i| {
            let mut rng = rng::stream(seed, &[streams::SYNTHETIC, i as u64]);
            let label = (i % 2) as u32;
            let mut edges = barabasi_albert_tree(BASE_NODES, &mut rng);
            let off = BASE_NODES as u32;
            let motif: &[(u32, u32)] = if label == 0 { &HOUSE } else { &CYCLE };
            edges.extend(motif.iter().map(|&(u, v)| (u + off, v + off)));
            let anchor = rng.gen_range(0..off);
            edges.push((anchor, off));
            edges.sort_unstable();
            edges.dedup();
            Graph {
                num_nodes: BASE_NODES + 5,
                edges,
                node_labels: None,
                node_attributes: None,
                edge_labels: None,
                edge_attributes: None,
                label,
            }
        })
        .collect();
    GraphDataset {
        name: "synthetic".into(),
        graphs,
        class_values: vec![0, 1],
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::graph::UnGraph;

    #[test]
    fn deterministic_balanced_connected() {
        let a = ba_2motifs(40, 3);
        let b = ba_2motifs(40, 3);
        let c = ba_2motifs(40, 4);
        assert_eq!(a.graphs, b.graphs);
        assert_ne!(a.graphs, c.graphs);
        assert_eq!(a.class_counts(), vec![20, 20]);
        for g in &a.graphs {
            assert_eq!(g.num_nodes, 25);
            // Tree (19 edges) + motif (6 or 5) + 1 joining edge.
            let expected = 19 + if g.label == 0 { 6 } else { 5 } + 1;
            assert_eq!(g.edges.len(), expected);
            assert!(g
                .edges
                .iter()
                .all(|&(u, v)| u < v && (v as usize) < g.num_nodes));
            assert!(g.edges.windows(2).all(|w| w[0] < w[1]));
            let pg = UnGraph::<(), ()>::from_edges(g.edges.iter().copied());
            assert_eq!(petgraph::algo::connected_components(&pg), 1);
        }
    }
}
