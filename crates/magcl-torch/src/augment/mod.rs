//! Augmentations: pure functions of a graph and an RNG.
//!
//! Graph level (GraphCL's family, official `unsupervised_TU/aug.py`; docs/methods.md):
//! each augmentation is a small type implementing
//! [`Augmentor`] — [`NodeDrop`], [`EdgeDrop`], [`AttrMask`], [`Subgraph`] (and the
//! reference's 1-hop variant [`Subgraph1Hop`]), [`Identity`] — combined with [`Compose`]
//! (in order) and [`RandomChoice`] (one uniformly per graph, as GraphCL's `random2/3/4`).
//! [`from_params`] builds the augmentor a config names. [`augment_views`] applies one to
//! many graphs in parallel; graph `i` of epoch `e` always draws from the stream
//! `(seed, AUGMENT, e, i)`, so views do not depend on thread count or scheduling. Adding an
//! augmentation is one new file with its type and one name in [`from_params`].
//!
//! Node level (the MA-GCL base model): directed edge dropping and feature-column masking.
use rand::Rng as _;
use rayon::prelude::*;

use crate::graph::GraphView;
use crate::params::Checked;
use crate::rng::{self, streams, Rng};

pub mod attr_mask;
pub mod compose;
pub mod edge_drop;
pub mod node_drop;
pub mod params;
pub mod subgraph;

pub use attr_mask::{attr_mask, AttrMask};
pub use compose::{Compose, Identity, RandomChoice};
pub use edge_drop::{edge_drop, EdgeDrop};
pub use node_drop::{node_drop, NodeDrop};
pub use params::{AugKind, AugName, AugParams, AugPolicy};
pub use subgraph::{subgraph, subgraph_1hop, Subgraph, Subgraph1Hop};

/// One graph augmentation: a view of `g` drawn with `rng`.
pub trait Augmentor: Send + Sync {
    fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView;
    /// What it does, e.g. `choice(node-drop 0.1, subgraph 0.2)`.
    fn describe(&self) -> String;
}

/// The augmentor named in `p.name` with `p`'s ratios. Names: `none`, `node-drop`
/// (`dnodes`), `edge-drop` (`pedges`), `mask` (`mask_nodes`), `subgraph`,
/// `subgraph-1hop`, `random2` = a choice of {node-drop, subgraph}, `random3` = +
/// edge-drop, `random4` = + mask, `random2-1hop`, or singles joined by `+` (applied in
/// order; [`AugName`] reads them).
///
/// Takes checked parameters, like every other stage's constructor: the ratios are in
/// [0, 1] and the name is a known policy, so it cannot fail.
pub fn from_params(p: &Checked<AugParams>) -> Box<dyn Augmentor> {
    let single = |kind: AugKind| -> Box<dyn Augmentor> {
        match kind {
            AugKind::Identity => Box::new(Identity),
            AugKind::NodeDrop => Box::new(NodeDrop(p.node_drop)),
            AugKind::EdgeDrop => Box::new(EdgeDrop(p.edge_drop)),
            AugKind::Mask => Box::new(AttrMask(p.mask)),
            AugKind::Subgraph => Box::new(Subgraph(p.subgraph)),
            AugKind::Subgraph1Hop => Box::new(Subgraph1Hop(p.subgraph)),
        }
    };
    match p.name.policy() {
        AugPolicy::Choice(kinds) => {
            Box::new(RandomChoice(kinds.iter().map(|k| single(*k)).collect()))
        }
        AugPolicy::Compose(kinds) => Box::new(Compose(kinds.iter().map(|k| single(*k)).collect())),
    }
}

/// Augments `graphs[ids[k]]` for every k, in parallel; deterministic per (seed, epoch, id).
pub fn augment_views(
    graphs: &[GraphView],
    ids: &[usize],
    policy: &dyn Augmentor,
    seed: u64,
    epoch: usize,
) -> Vec<GraphView> {
    ids.par_iter()
        .map(|&i| augment_one(graphs, i, policy, seed, epoch))
        .collect()
}

/// Graph `i`'s view of `epoch`, from the stream `(seed, AUGMENT, epoch, i)`.
fn augment_one(
    graphs: &[GraphView],
    i: usize,
    policy: &dyn Augmentor,
    seed: u64,
    epoch: usize,
) -> GraphView {
    let mut r = rng::stream(seed, &[streams::AUGMENT, epoch as u64, i as u64]);
    policy.apply(&graphs[i], &mut r)
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

/// Node level, adaptive (GCA): keeps each directed edge `e` independently with
/// probability `1 − drop[e]`. Returns the kept indices.
pub fn drop_directed_edges_weighted(drop: &[f64], rng: &mut Rng) -> Vec<i64> {
    (0..drop.len() as i64)
        .filter(|&e| rng.gen::<f64>() >= drop[e as usize])
        .collect()
}

/// Node level, adaptive (GCA): a 0/1 mask over feature columns, column `f` zeroed with
/// probability `drop[f]` (the same columns for all nodes).
pub fn feature_column_mask_weighted(drop: &[f64], rng: &mut Rng) -> Vec<f32> {
    drop.iter()
        .map(|&q| if rng.gen::<f64>() < q { 0.0 } else { 1.0 })
        .collect()
}

/// GCA's drop probabilities from importance-derived weights `s` (larger = less
/// important): `min(s / mean(s) · p, threshold)`, so the mean probability is `p` where no
/// weight is cut at the threshold. Weights that are all zero give `p` everywhere.
pub fn adaptive_drop_probabilities(s: &[f64], p: f64, threshold: f64) -> Vec<f64> {
    let mean = s.iter().sum::<f64>() / s.len().max(1) as f64;
    s.iter()
        .map(|&w| {
            let q = if mean > 0.0 { w / mean * p } else { p };
            q.min(threshold)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::subgraph::adjacency;
    use super::*;
    use crate::error::Result;
    use crate::params::ParamGuard as _;
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

    /// The policy of `cfg`, checked first as every caller's parameters are.
    fn policy(cfg: &AugParams) -> Result<Box<dyn Augmentor>> {
        Ok(from_params(&cfg.clone().check()?))
    }

    #[test]
    fn views_are_deterministic_whatever_the_thread_count() {
        let graphs: Vec<GraphView> = (0..64).map(|i| grid(3 + i % 5, 4)).collect();
        let ids: Vec<usize> = (0..64).rev().collect();
        let cfg = AugParams {
            name: AugName::random(4),
            ..AugParams::default()
        };
        let policy = policy(&cfg).unwrap();
        let policy = policy.as_ref();
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| augment_views(&graphs, &ids, policy, 42, 3))
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_eq!(one, run(4));
        assert_ne!(
            one,
            augment_views(&graphs, &ids, policy, 42, 4),
            "epochs differ"
        );
    }

    #[test]
    fn policy_names() {
        let mut cfg = AugParams::default();
        assert_eq!(
            policy(&cfg).unwrap().describe(),
            "choice(node-drop 0.1, subgraph 0.2)"
        );
        cfg.name = AugName::random(4);
        assert_eq!(
            policy(&cfg).unwrap().describe(),
            "choice(node-drop 0.1, subgraph 0.2, edge-drop 0.1, mask 0.1)"
        );
        cfg.name = "node-drop+mask".parse().unwrap();
        assert_eq!(
            policy(&cfg).unwrap().describe(),
            "compose(node-drop 0.1, mask 0.1)"
        );
        // Aliases name the same policy and are kept as written (the config hash is taken
        // over the text).
        let alias: AugName = "dnodes + mask_nodes".parse().unwrap();
        assert_eq!(alias.policy(), cfg.name.policy());
        assert_eq!(alias.to_string(), "dnodes + mask_nodes");
        // An unknown name is refused when it is read, naming the field and the word.
        let e = "node-drop+shuffle"
            .parse::<AugName>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("augment.name") && e.contains("'shuffle'"), "{e}");
        // The message lists every name the parser takes: each GraphCL choice and each
        // kind's first word, and each of them parses.
        for name in [
            "random2",
            "random3",
            "random4",
            "random2-1hop",
            "none",
            "node-drop",
            "edge-drop",
            "mask",
            "subgraph",
            "subgraph-1hop",
        ] {
            assert!(e.contains(name), "{name} missing from: {e}");
            name.parse::<AugName>().unwrap();
        }
        let e = serde_json::from_str::<AugParams>(
            r#"{"name":"random5","node_drop":0.1,"edge_drop":0.1,"mask":0.1,"subgraph":0.2}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("random5"), "{e}");
    }

    /// Compose applies in order and RandomChoice draws its pick first: a choice between
    /// two augmentations equals, draw for draw, the one its first draw selects.
    #[test]
    fn compose_and_choice_follow_the_rng() {
        let g = grid(5, 5);
        let composed = Compose(vec![Box::new(NodeDrop(0.2)), Box::new(EdgeDrop(0.3))]);
        let mut r1 = rng::stream(7, &[1]);
        let mut r2 = rng::stream(7, &[1]);
        let by_hand = edge_drop(&node_drop(&g, 0.2, &mut r2), 0.3, &mut r2);
        assert_eq!(composed.apply(&g, &mut r1), by_hand);
        let choice = RandomChoice(vec![Box::new(NodeDrop(0.2)), Box::new(Subgraph(0.3))]);
        for seed in 0..20 {
            let mut r1 = rng::stream(seed, &[2]);
            let mut r2 = rng::stream(seed, &[2]);
            let pick = r2.gen_range(0..2usize);
            let expected = if pick == 0 {
                node_drop(&g, 0.2, &mut r2)
            } else {
                subgraph(&g, 0.3, &mut r2)
            };
            assert_eq!(choice.apply(&g, &mut r1), expected);
        }
        let mut r = rng::stream(0, &[3]);
        assert_eq!(RandomChoice(vec![]).apply(&g, &mut r), g);
        assert_eq!(Identity.apply(&g, &mut r), g);
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
