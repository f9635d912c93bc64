//! Weisfeiler–Lehman subtree features and degree histograms: the classical graph-kernel
//! floors beside the contrastive methods (Shervashidze et al., JMLR 2011).
//!
//! Every node starts with a colour; one iteration gives each node the new colour of its
//! pair (own colour, sorted multiset of its neighbours' colours). A graph's features are
//! the counts of each colour of iterations 0..=h, so two graphs' dot product is the WL
//! subtree kernel of depth h. Colours are numbered in order of first appearance (graphs in
//! dataset order, nodes in index order), separately per iteration and then laid side by
//! side, so the same data always gives the same columns.
use std::collections::HashMap;

/// One graph as WL reads it: undirected edges (each once, either direction) and a colour
/// per node (any `u64`; equal values are equal colours across graphs).
#[derive(Clone, Copy, Debug)]
pub struct WlGraph<'a> {
    pub num_nodes: usize,
    pub edges: &'a [(u32, u32)],
    pub colours: &'a [u64],
}

/// Count features of a set of graphs: one sparse row (`(column, count)`, columns
/// increasing) per graph.
#[derive(Clone, Debug, PartialEq)]
pub struct CountFeatures {
    /// Total columns.
    pub columns: usize,
    /// Columns added by each block (WL: iteration 0, 1, …, h; degrees: labels, degrees).
    pub block_sizes: Vec<usize>,
    pub rows: Vec<Vec<(u32, f64)>>,
}

impl CountFeatures {
    fn new(n: usize) -> Self {
        CountFeatures {
            columns: 0,
            block_sizes: Vec::new(),
            rows: vec![Vec::new(); n],
        }
    }

    /// Appends a block: each graph's per-node colour ids (dense, `0..size`) counted.
    fn push_block(&mut self, ids: &[Vec<u32>], size: usize) {
        let offset = self.columns as u32;
        for (row, g) in self.rows.iter_mut().zip(ids) {
            let mut counts: Vec<(u32, f64)> = Vec::new();
            let mut sorted = g.clone();
            sorted.sort_unstable();
            for c in sorted {
                match counts.last_mut() {
                    Some((last, n)) if *last == offset + c => *n += 1.0,
                    _ => counts.push((offset + c, 1.0)),
                }
            }
            row.extend(counts);
        }
        self.columns += size;
        self.block_sizes.push(size);
    }
}

/// Numbers keys in order of first appearance.
struct Dictionary<K> {
    ids: HashMap<K, u32>,
}

impl<K: std::hash::Hash + Eq> Dictionary<K> {
    fn new() -> Self {
        Dictionary {
            ids: HashMap::new(),
        }
    }
    fn id(&mut self, key: K) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(key).or_insert(next)
    }
    fn len(&self) -> usize {
        self.ids.len()
    }
}

/// The neighbours of every node.
fn adjacency(g: &WlGraph<'_>) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); g.num_nodes];
    for &(u, v) in g.edges {
        if u != v && (u as usize) < g.num_nodes && (v as usize) < g.num_nodes {
            adj[u as usize].push(v);
            adj[v as usize].push(u);
        }
    }
    adj
}

/// The initial colours numbered `0..k` in order of first appearance.
fn initial_ids(graphs: &[WlGraph<'_>]) -> (Vec<Vec<u32>>, usize) {
    let mut dict = Dictionary::new();
    let ids = graphs
        .iter()
        .map(|g| g.colours.iter().map(|&c| dict.id(c)).collect())
        .collect();
    (ids, dict.len())
}

/// WL subtree features of depth `iterations` (h): the colour counts of iterations 0..=h.
pub fn wl_subtree(graphs: &[WlGraph<'_>], iterations: usize) -> CountFeatures {
    let adj: Vec<Vec<Vec<u32>>> = graphs.iter().map(adjacency).collect();
    let mut out = CountFeatures::new(graphs.len());
    let (mut ids, size) = initial_ids(graphs);
    out.push_block(&ids, size);
    for _ in 0..iterations {
        let mut dict: Dictionary<(u32, Vec<u32>)> = Dictionary::new();
        let next: Vec<Vec<u32>> = ids
            .iter()
            .zip(&adj)
            .map(|(colours, adj)| {
                (0..colours.len())
                    .map(|v| {
                        let mut around: Vec<u32> =
                            adj[v].iter().map(|&u| colours[u as usize]).collect();
                        around.sort_unstable();
                        dict.id((colours[v], around))
                    })
                    .collect()
            })
            .collect();
        out.push_block(&next, dict.len());
        ids = next;
    }
    out
}

/// The trivial floor: counts of the initial colours (omitted when every node has the
/// same colour, i.e. the set has no node labels) followed by counts of node degrees.
pub fn degree_histogram(graphs: &[WlGraph<'_>]) -> CountFeatures {
    let mut out = CountFeatures::new(graphs.len());
    let (ids, size) = initial_ids(graphs);
    if size > 1 {
        out.push_block(&ids, size);
    }
    let degrees: Vec<Vec<u32>> = graphs
        .iter()
        .map(|g| adjacency(g).iter().map(|a| a.len() as u32).collect())
        .collect();
    let max = degrees.iter().flatten().copied().max().unwrap_or(0) as usize;
    out.push_block(&degrees, max + 1);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // A path a–b–c with colours (1, 1, 2), and a triangle with colours (1, 1, 1).
    const PATH: [(u32, u32); 2] = [(0, 1), (1, 2)];
    const TRIANGLE: [(u32, u32); 3] = [(0, 1), (1, 2), (2, 0)];

    fn example() -> Vec<WlGraph<'static>> {
        vec![
            WlGraph {
                num_nodes: 3,
                edges: &PATH,
                colours: &[1, 1, 2],
            },
            WlGraph {
                num_nodes: 3,
                edges: &TRIANGLE,
                colours: &[1, 1, 1],
            },
        ]
    }

    #[test]
    fn wl_relabels_and_counts_by_hand() {
        let f = wl_subtree(&example(), 2);
        // iteration 0: colour 1 → 0, colour 2 → 1
        // iteration 1 (own, sorted neighbours), numbered in order of appearance:
        //   path: a (0,[0]) → 0, b (0,[0,1]) → 1, c (1,[0]) → 2; triangle: (0,[0,0]) → 3 ×3
        // iteration 2 over those:
        //   path: a (0,[1]) → 0, b (1,[0,2]) → 1, c (2,[1]) → 2; triangle: (3,[3,3]) → 3 ×3
        assert_eq!(f.block_sizes, vec![2, 4, 4]);
        assert_eq!(f.columns, 10);
        assert_eq!(
            f.rows[0],
            vec![
                (0, 2.0),
                (1, 1.0),
                (2, 1.0),
                (3, 1.0),
                (4, 1.0),
                (6, 1.0),
                (7, 1.0),
                (8, 1.0)
            ]
        );
        assert_eq!(f.rows[1], vec![(0, 3.0), (5, 3.0), (9, 3.0)]);
        // the kernel of depth 0 is the label histograms' dot product: 2·3
        let k0: f64 = f.rows[0]
            .iter()
            .filter(|(c, _)| *c < 2)
            .map(|(c, v)| v * f.rows[1].iter().find(|(d, _)| d == c).map_or(0.0, |x| x.1))
            .sum();
        assert_eq!(k0, 6.0);
    }

    #[test]
    fn wl_is_invariant_to_node_order() {
        // the path with its nodes listed in another order: same counts per block
        let edges = [(2u32, 0u32), (0, 1)];
        let permuted = [WlGraph {
            num_nodes: 3,
            edges: &edges,
            colours: &[1, 2, 1],
        }];
        let a = wl_subtree(&example()[..1], 3);
        let b = wl_subtree(&permuted, 3);
        let multiset = |f: &CountFeatures| {
            let mut v: Vec<f64> = f.rows[0].iter().map(|x| x.1).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        assert_eq!(a.block_sizes, b.block_sizes);
        assert_eq!(multiset(&a), multiset(&b));
    }

    #[test]
    fn degree_histogram_by_hand() {
        let f = degree_histogram(&example());
        // labels block (2 colours), then degrees 0..=2
        assert_eq!(f.block_sizes, vec![2, 3]);
        assert_eq!(f.rows[0], vec![(0, 2.0), (1, 1.0), (3, 2.0), (4, 1.0)]);
        assert_eq!(f.rows[1], vec![(0, 3.0), (4, 3.0)]);
        // unlabelled graphs: the degree block only
        let plain = [WlGraph {
            num_nodes: 3,
            edges: &PATH,
            colours: &[0, 0, 0],
        }];
        let f = degree_histogram(&plain);
        assert_eq!(f.block_sizes, vec![3]);
        assert_eq!(f.rows[0], vec![(1, 2.0), (2, 1.0)]);
    }
}
