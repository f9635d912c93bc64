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

/// Default size of the node-level synthetic set `synthetic-node`: a graph the size of
/// Coauthor-CS (nodes, undirected edges, features, classes), for speed and memory tests.
pub const NODE_DEFAULT: (usize, usize, usize, usize) = (18_333, 163_788, 6_805, 15);

/// A planted-partition node-classification graph: node `i` has class `i mod classes`;
/// each edge joins two nodes of the same class with probability 0.8, else two random
/// nodes; each node has 9 binary features, 6 of them from a band of columns that belongs
/// to its class. Deterministic by `seed`.
pub fn planted_partition(
    nodes: usize,
    edges: usize,
    features: usize,
    classes: usize,
    seed: u64,
) -> super::NodeDataset {
    use std::collections::HashSet;
    let classes = classes.max(1).min(nodes.max(1));
    let mut rng = rng::stream(seed, &[streams::SYNTHETIC, u64::MAX]);
    let per_class = nodes.div_ceil(classes).max(1);
    let mut set: HashSet<(u32, u32)> = HashSet::with_capacity(edges);
    let max_edges = nodes * nodes.saturating_sub(1) / 2;
    let target = edges.min(max_edges);
    while set.len() < target {
        let u = rng.gen_range(0..nodes);
        let v = if rng.gen::<f64>() < 0.8 {
            // a node of the same class: u mod classes + classes * k
            let k = rng.gen_range(0..per_class);
            (u % classes + classes * k).min(nodes - 1)
        } else {
            rng.gen_range(0..nodes)
        };
        if u != v {
            set.insert((u.min(v) as u32, u.max(v) as u32));
        }
    }
    let mut edge_list: Vec<(u32, u32)> = set.into_iter().collect();
    edge_list.sort_unstable();
    let band = (features / classes).max(1);
    let (mut indptr, mut indices, mut data) = (vec![0usize], Vec::new(), Vec::new());
    for i in 0..nodes {
        let c = i % classes;
        let mut cols: Vec<u32> = (0..9)
            .map(|j| {
                if j < 6 {
                    ((c * band + rng.gen_range(0..band)) % features.max(1)) as u32
                } else {
                    rng.gen_range(0..features.max(1)) as u32
                }
            })
            .collect();
        cols.sort_unstable();
        cols.dedup();
        data.extend(std::iter::repeat_n(1.0f32, cols.len()));
        indices.extend(cols);
        indptr.push(indices.len());
    }
    super::NodeDataset {
        name: format!("synthetic-node:{nodes}:{edges}:{features}:{classes}:{seed}"),
        num_nodes: nodes,
        edges: edge_list,
        features: super::CsrMatrix {
            rows: nodes,
            cols: features,
            indptr,
            indices,
            data,
        },
        labels: (0..nodes).map(|i| (i % classes) as u32).collect(),
        num_classes: classes,
        public_split: None,
    }
}

#[cfg(test)]
mod node_tests {
    use super::*;

    #[test]
    fn planted_partition_has_the_asked_size_and_is_deterministic() {
        let a = planted_partition(500, 2000, 100, 5, 1);
        assert_eq!(a.num_nodes, 500);
        assert_eq!(a.edges.len(), 2000);
        assert!(a.edges.iter().all(|&(u, v)| u < v && (v as usize) < 500));
        assert_eq!(a.features.rows, 500);
        assert_eq!(a.features.indptr.len(), 501);
        let same = a.edges.iter().filter(|&&(u, v)| u % 5 == v % 5).count();
        assert!(same > 1500, "mostly intra-class edges: {same}");
        let b = planted_partition(500, 2000, 100, 5, 1);
        assert_eq!(a.edges, b.edges);
        assert_eq!(a.features, b.features);
    }
}
