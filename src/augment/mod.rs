//! Augmentations: pure functions of a graph and an RNG.
//!
//! Graph level (GraphCL's family, SPEC §3): node dropping, edge dropping, attribute
//! masking, subgraphs by random-walk growth (and the reference's 1-hop variant), and
//! uniform choices among them (`random2/3/4`). [`augment_views`] applies a policy to many
//! graphs in parallel; graph `i` of epoch `e` always draws from the stream
//! `(seed, AUGMENT, e, i)`, so views do not depend on thread count or scheduling.
//!
//! Node level (the MA-GCL base model): directed edge dropping and feature-column masking.
use rand::seq::index::sample;
use rand::Rng as _;
use rand_distr::{Distribution, Normal};
use rayon::prelude::*;

use crate::error::{Error, Result};
pub mod params;
use crate::graph::GraphView;
use crate::rng::{self, streams, Rng};
pub use params::AugParams;

/// One graph augmentation with its strength.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GraphAug {
    Identity,
    /// Remove ⌊ratio·n⌋ nodes (at most n − 1) and their edges.
    NodeDrop(f64),
    /// Remove ⌊ratio·m⌋ undirected edges.
    EdgeDrop(f64),
    /// Replace the features of ⌊ratio·n⌋ nodes by Gaussian noise N(0.5, 0.5²).
    AttrMask(f64),
    /// Keep the subgraph induced by ⌊ratio·n⌋ + 1 nodes grown from a random seed node by
    /// repeatedly adding a uniformly chosen node of the current frontier (a random walk
    /// over the growing subgraph's neighbourhood); stops early when the component is spent.
    Subgraph(f64),
    /// The reference's variant: the frontier is never updated, so the result is the seed
    /// node plus up to ⌊ratio·n⌋ of its direct neighbours.
    Subgraph1Hop(f64),
}

/// How augmentations combine into one view.
#[derive(Clone, Debug, PartialEq)]
pub enum AugPolicy {
    /// Apply these in order.
    Sequence(Vec<GraphAug>),
    /// Pick one uniformly per graph per access.
    Choice(Vec<GraphAug>),
}

impl AugPolicy {
    /// Builds the policy named in `cfg.name` with `cfg`'s ratios. Names: `none`,
    /// `node-drop` (`dnodes`), `edge-drop` (`pedges`), `mask` (`mask_nodes`), `subgraph`,
    /// `subgraph-1hop`, `random2` = {node-drop, subgraph}, `random3` = + edge-drop,
    /// `random4` = + mask, or singles joined by `+` (applied in order).
    pub fn from_config(cfg: &AugParams) -> Result<AugPolicy> {
        let single = |name: &str| -> Result<GraphAug> {
            Ok(match name {
                "none" | "identity" => GraphAug::Identity,
                "node-drop" | "dnodes" => GraphAug::NodeDrop(cfg.node_drop),
                "edge-drop" | "pedges" => GraphAug::EdgeDrop(cfg.edge_drop),
                "mask" | "mask_nodes" | "attr-mask" => GraphAug::AttrMask(cfg.mask),
                "subgraph" => GraphAug::Subgraph(cfg.subgraph),
                "subgraph-1hop" => GraphAug::Subgraph1Hop(cfg.subgraph),
                other => {
                    return Err(Error::Config(format!(
                        "unknown augmentation '{other}': expected random2, random3, random4, \
                         node-drop, edge-drop, mask, subgraph, subgraph-1hop or none"
                    )))
                }
            })
        };
        let s = cfg.subgraph;
        Ok(match cfg.name.as_str() {
            "random2" => AugPolicy::Choice(vec![
                GraphAug::NodeDrop(cfg.node_drop),
                GraphAug::Subgraph(s),
            ]),
            "random3" => AugPolicy::Choice(vec![
                GraphAug::NodeDrop(cfg.node_drop),
                GraphAug::Subgraph(s),
                GraphAug::EdgeDrop(cfg.edge_drop),
            ]),
            "random4" => AugPolicy::Choice(vec![
                GraphAug::NodeDrop(cfg.node_drop),
                GraphAug::Subgraph(s),
                GraphAug::EdgeDrop(cfg.edge_drop),
                GraphAug::AttrMask(cfg.mask),
            ]),
            "random2-1hop" => AugPolicy::Choice(vec![
                GraphAug::NodeDrop(cfg.node_drop),
                GraphAug::Subgraph1Hop(s),
            ]),
            name => AugPolicy::Sequence(
                name.split('+')
                    .map(|n| single(n.trim()))
                    .collect::<Result<_>>()?,
            ),
        })
    }

    pub fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        match self {
            AugPolicy::Sequence(augs) => {
                let mut out = g.clone();
                for a in augs {
                    out = a.apply(&out, rng);
                }
                out
            }
            AugPolicy::Choice(augs) => {
                if augs.is_empty() {
                    return g.clone();
                }
                let i = rng.gen_range(0..augs.len());
                augs[i].apply(g, rng)
            }
        }
    }
}

/// Augments `graphs[ids[k]]` for every k, in parallel; deterministic per (seed, epoch, id).
pub fn augment_views(
    graphs: &[GraphView],
    ids: &[usize],
    policy: &AugPolicy,
    seed: u64,
    epoch: usize,
) -> Vec<GraphView> {
    ids.par_iter()
        .map(|&i| augment_one(graphs, i, policy, seed, epoch))
        .collect()
}

/// [`augment_views`] on the calling thread (the same views: each graph draws from its own
/// stream).
pub fn augment_views_here(
    graphs: &[GraphView],
    ids: &[usize],
    policy: &AugPolicy,
    seed: u64,
    epoch: usize,
) -> Vec<GraphView> {
    ids.iter()
        .map(|&i| augment_one(graphs, i, policy, seed, epoch))
        .collect()
}

/// Graph `i`'s view of `epoch`, from the stream `(seed, AUGMENT, epoch, i)`.
fn augment_one(
    graphs: &[GraphView],
    i: usize,
    policy: &AugPolicy,
    seed: u64,
    epoch: usize,
) -> GraphView {
    let mut r = rng::stream(seed, &[streams::AUGMENT, epoch as u64, i as u64]);
    policy.apply(&graphs[i], &mut r)
}

impl GraphAug {
    pub fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        match *self {
            GraphAug::Identity => g.clone(),
            GraphAug::NodeDrop(r) => node_drop(g, r, rng),
            GraphAug::EdgeDrop(r) => edge_drop(g, r, rng),
            GraphAug::AttrMask(r) => attr_mask(g, r, rng),
            GraphAug::Subgraph(r) => subgraph(g, r, rng),
            GraphAug::Subgraph1Hop(r) => subgraph_1hop(g, r, rng),
        }
    }
}

fn count(n: usize, ratio: f64) -> usize {
    ((n as f64) * ratio).floor() as usize
}

/// The subgraph induced by the nodes with `keep[v]`, reindexed in node order.
pub fn induced(g: &GraphView, keep: &[bool]) -> GraphView {
    let dim = g.dim();
    let mut map = vec![u32::MAX; g.num_nodes];
    let mut x = Vec::with_capacity(g.x.len());
    let mut n = 0u32;
    for v in 0..g.num_nodes {
        if keep[v] {
            map[v] = n;
            n += 1;
            x.extend_from_slice(&g.x[v * dim..(v + 1) * dim]);
        }
    }
    let edges = g
        .edges
        .iter()
        .filter(|&&(u, v)| keep[u as usize] && keep[v as usize])
        .map(|&(u, v)| (map[u as usize], map[v as usize]))
        .collect();
    GraphView {
        num_nodes: n as usize,
        edges,
        x,
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

/// Adjacency lists of `g`.
fn adjacency(g: &GraphView) -> Vec<Vec<u32>> {
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

/// Node level: keeps each directed edge `(src[e], dst[e])` independently with probability
/// `1 − ratio` (PyG's `dropout_adj` without forcing symmetry). Returns the kept indices.
pub fn drop_directed_edges(num_edges: usize, ratio: f64, rng: &mut Rng) -> Vec<i64> {
    (0..num_edges as i64)
        .filter(|_| rng.gen::<f64>() >= ratio)
        .collect()
}

/// Node level: a 0/1 mask over feature columns, each column zeroed with probability `ratio`
/// (the same columns for all nodes).
pub fn feature_column_mask(num_features: usize, ratio: f64, rng: &mut Rng) -> Vec<f32> {
    (0..num_features)
        .map(|_| if rng.gen::<f64>() < ratio { 0.0 } else { 1.0 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn grid(w: usize, h: usize) -> GraphView {
        let mut edges = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let v = (y * w + x) as u32;
                if x + 1 < w {
                    edges.push((v, v + 1));
                }
                if y + 1 < h {
                    edges.push((v, v + w as u32));
                }
            }
        }
        let n = w * h;
        // two feature columns: the node id and its double, so reindexing can be checked
        let x = (0..n).flat_map(|v| [v as f32, 2.0 * v as f32]).collect();
        GraphView {
            num_nodes: n,
            edges,
            x,
        }
    }

    /// No dangling edges, no self-loops, no duplicate edges, feature rows intact.
    fn check_well_formed(g: &GraphView) {
        let mut seen = HashSet::new();
        for &(u, v) in &g.edges {
            assert!((u as usize) < g.num_nodes && (v as usize) < g.num_nodes);
            assert_ne!(u, v);
            assert!(seen.insert((u.min(v), u.max(v))), "duplicate edge");
        }
        assert_eq!(g.x.len(), g.num_nodes * 2);
    }

    /// The original ids of the kept nodes (from feature column 0) and the edges mapped back.
    fn original_edges(g: &GraphView) -> HashSet<(u32, u32)> {
        g.edges
            .iter()
            .map(|&(u, v)| {
                let (a, b) = (g.x[2 * u as usize] as u32, g.x[2 * v as usize] as u32);
                (a.min(b), a.max(b))
            })
            .collect()
    }

    #[test]
    fn node_drop_removes_the_right_count_and_keeps_induced_edges() {
        let g = grid(6, 5);
        let orig: HashSet<_> = g.edges.iter().copied().collect();
        for s in 0..20 {
            let mut r = rng::stream(s, &[]);
            let a = node_drop(&g, 0.1, &mut r);
            check_well_formed(&a);
            assert_eq!(a.num_nodes, 30 - 3);
            let ids: HashSet<u32> = (0..a.num_nodes).map(|v| a.x[2 * v] as u32).collect();
            for v in 0..a.num_nodes {
                assert_eq!(
                    a.x[2 * v + 1],
                    2.0 * a.x[2 * v],
                    "feature rows moved together"
                );
            }
            // exactly the induced edges survive
            let expect: HashSet<_> = orig
                .iter()
                .filter(|(u, v)| ids.contains(u) && ids.contains(v))
                .copied()
                .collect();
            assert_eq!(original_edges(&a), expect);
        }
    }

    #[test]
    fn node_drop_never_empties_a_graph() {
        let g = GraphView {
            num_nodes: 1,
            edges: vec![],
            x: vec![0.0, 0.0],
        };
        let mut r = rng::stream(0, &[]);
        assert_eq!(node_drop(&g, 1.0, &mut r).num_nodes, 1);
    }

    #[test]
    fn edge_drop_removes_floor_ratio_edges_and_keeps_nodes() {
        let g = grid(6, 5); // 49 edges
        let mut r = rng::stream(1, &[]);
        let a = edge_drop(&g, 0.1, &mut r);
        check_well_formed(&a);
        assert_eq!(a.num_nodes, 30);
        assert_eq!(a.edges.len(), 49 - 4);
        assert!(original_edges(&a).is_subset(&g.edges.iter().copied().collect()));
        assert_eq!(a.x, g.x);
    }

    #[test]
    fn attr_mask_changes_exactly_floor_ratio_rows() {
        let g = grid(6, 5);
        let mut r = rng::stream(2, &[]);
        let a = attr_mask(&g, 0.1, &mut r);
        assert_eq!(a.edges, g.edges);
        let changed = (0..30)
            .filter(|&v| a.x[2 * v..2 * v + 2] != g.x[2 * v..2 * v + 2])
            .count();
        assert_eq!(changed, 3);
        // noise ~ N(0.5, 0.5): the mean over many masked rows is near 0.5
        let big = GraphView {
            num_nodes: 20000,
            edges: vec![],
            x: vec![100.0; 40000],
        };
        let a = attr_mask(&big, 0.5, &mut r);
        let noisy: Vec<f32> = a.x.iter().copied().filter(|&v| v != 100.0).collect();
        assert_eq!(noisy.len(), 20000);
        let mean = noisy.iter().sum::<f32>() / noisy.len() as f32;
        let var = noisy.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / noisy.len() as f32;
        assert!(
            (mean - 0.5).abs() < 0.02 && (var.sqrt() - 0.5).abs() < 0.02,
            "{mean} {var}"
        );
    }

    fn is_connected(g: &GraphView) -> bool {
        if g.num_nodes == 0 {
            return true;
        }
        let adj = adjacency(g);
        let mut seen = vec![false; g.num_nodes];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(v) = stack.pop() {
            for &w in &adj[v] {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    stack.push(w as usize);
                }
            }
        }
        seen.iter().all(|&s| s)
    }

    #[test]
    fn subgraph_grows_a_connected_induced_subgraph_of_the_target_size() {
        let g = grid(10, 10);
        for s in 0..20 {
            let mut r = rng::stream(s, &[]);
            let a = subgraph(&g, 0.2, &mut r);
            check_well_formed(&a);
            assert_eq!(a.num_nodes, 21);
            assert!(is_connected(&a));
            let ids: HashSet<u32> = (0..a.num_nodes).map(|v| a.x[2 * v] as u32).collect();
            let expect: HashSet<_> = g
                .edges
                .iter()
                .filter(|(u, v)| ids.contains(u) && ids.contains(v))
                .copied()
                .collect();
            assert_eq!(original_edges(&a), expect);
        }
    }

    #[test]
    fn subgraph_stops_when_the_component_is_spent() {
        // two disjoint triangles: growth from any node reaches at most 3 nodes
        let g = GraphView {
            num_nodes: 6,
            edges: vec![(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)],
            x: (0..6).flat_map(|v| [v as f32, 2.0 * v as f32]).collect(),
        };
        let mut r = rng::stream(0, &[]);
        let a = subgraph(&g, 0.9, &mut r);
        assert_eq!(a.num_nodes, 3);
        assert_eq!(a.edges.len(), 3);
    }

    #[test]
    fn subgraph_1hop_stays_within_the_seed_neighbourhood() {
        let g = grid(10, 10);
        let mut r = rng::stream(3, &[]);
        for _ in 0..20 {
            let a = subgraph_1hop(&g, 0.2, &mut r);
            check_well_formed(&a);
            // a grid node has at most 4 neighbours: at most 5 nodes, a star around the seed
            assert!(a.num_nodes <= 5 && a.num_nodes >= 2);
            let deg = a.degrees();
            assert!(deg.iter().any(|&d| d as usize == a.num_nodes - 1));
        }
    }

    #[test]
    fn views_are_deterministic_whatever_the_thread_count() {
        let graphs: Vec<GraphView> = (0..64).map(|i| grid(3 + i % 5, 4)).collect();
        let ids: Vec<usize> = (0..64).rev().collect();
        let cfg = AugParams {
            name: "random4".into(),
            ..AugParams::default()
        };
        let policy = AugPolicy::from_config(&cfg).unwrap();
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| augment_views(&graphs, &ids, &policy, 42, 3))
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one, run(4));
        assert_eq!(one, augment_views_here(&graphs, &ids, &policy, 42, 3));
        assert_ne!(
            one,
            augment_views(&graphs, &ids, &policy, 42, 4),
            "epochs differ"
        );
    }

    #[test]
    fn policy_names() {
        let mut cfg = AugParams::default();
        assert!(
            matches!(AugPolicy::from_config(&cfg).unwrap(), AugPolicy::Choice(v) if v.len() == 2)
        );
        cfg.name = "node-drop+mask".into();
        assert_eq!(
            AugPolicy::from_config(&cfg).unwrap(),
            AugPolicy::Sequence(vec![GraphAug::NodeDrop(0.1), GraphAug::AttrMask(0.1)])
        );
        cfg.name = "shuffle".into();
        assert!(AugPolicy::from_config(&cfg)
            .unwrap_err()
            .to_string()
            .contains("shuffle"));
    }

    #[test]
    fn node_level_masks() {
        let mut r = rng::stream(5, &[]);
        let kept = drop_directed_edges(100_000, 0.3, &mut r);
        let frac = kept.len() as f64 / 100_000.0;
        assert!((frac - 0.7).abs() < 0.01);
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        let m = feature_column_mask(10_000, 0.25, &mut r);
        let zeros = m.iter().filter(|&&v| v == 0.0).count() as f64 / 10_000.0;
        assert!((zeros - 0.25).abs() < 0.02);
    }
}
