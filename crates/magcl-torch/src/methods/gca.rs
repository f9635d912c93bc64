//! GCA (Zhu et al. 2021, "Graph Contrastive Learning with Adaptive Augmentation") and
//! GCA+MA: GRACE with adaptive augmentation. An edge is dropped with a probability that
//! grows as the centrality of the node it points to falls, a feature column is masked
//! with a probability that grows as the total centrality of the nodes having it falls:
//! important structure and features are kept more often.
//!
//! As the released code (CRIPAC-DIG/GCA, `pGRACE/functional.py`) computes them, for a
//! node centrality `c` (`gca.scheme`):
//! - `degree`: the node's degree; `pr`: PageRank as the code iterates it (damping 0.85,
//!   `x ← 0.15 x + 0.85 Σ_{u→v} x_u / deg⁺(u)` from all ones, 200 iterations for the edge
//!   weights, 10 for the feature weights, not normalised); `evc`: eigenvector centrality
//!   (unit length, non-negative; `+1e-8` before the logarithm for edges);
//! - edge `u → v`: `s = log c(v)`, weight `(max s − s) / (max s − mean s)` over the edges;
//! - feature column `f`: `w = log Σ_{v: x_vf ≠ 0} c(v)`, weight `(max w − w) / (max w −
//!   mean w)`;
//! - drop probability of view i: `min(weight / mean weight · p_i, threshold)` (thresholds
//!   0.7 for both, `gca.edge_threshold`, `gca.feature_threshold`), `p_i` the view's
//!   `node.edge_drop` / `node.feature_drop`.
//!
//! A feature column no node has gets weight −∞ in the code, which turns every column's
//! probability into NaN and so into the threshold: on Cora (one such column) the released
//! code masks each column with probability 0.7 in both views, whatever the configured
//! rates. `gca.absent_columns = "skip"` (the default) leaves such columns out of the means
//! and never masks them (masking them changes nothing), which is what the paper
//! describes; `"threshold"` reproduces the code. Where all weights are equal (a regular
//! graph) every probability is `p_i` (the code divides 0 by 0). `scheme = "uniform"` is
//! GRACE.
use serde::{Deserialize, Serialize};

use super::grace::{grace_row, preset_from_row, GraceRow};
use super::{MethodEntry, Preset, PresetRequest};
use crate::augment::adaptive_drop_probabilities;
use crate::data::{CsrMatrix, NodeDataset};
use crate::error::Result;
use crate::graph::DegreeOf;
use crate::nn::gcn::{ActivationKind, GcnShape};
use crate::nn::mlp::Init;
use crate::params::{check_ratio, section, ParamGuard, Section, SettingError};
use crate::train::node::{directed_edges, AdaptiveDrops, NodeParams, NodeRunner, NodeVariant};

/// GCA's own settings (a config's `gca` section).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GcaParams {
    /// The node centrality behind the drop probabilities.
    pub scheme: GcaScheme,
    /// Upper bound of an edge's drop probability.
    pub edge_threshold: f64,
    /// Upper bound of a feature column's drop probability.
    pub feature_threshold: f64,
    /// Feature columns no node has.
    pub absent_columns: AbsentColumns,
}

crate::params::word_setting! {
    /// The node centrality behind GCA's drop probabilities (`gca.scheme`).
    pub enum GcaScheme in "gca.scheme" {
        Degree = "degree",
        /// PageRank.
        Pr = "pr",
        /// Eigenvector centrality.
        Evc = "evc",
        /// GRACE's uniform dropping.
        Uniform = "uniform",
    }
}

crate::params::word_setting! {
    /// What GCA does with feature columns no node has (`gca.absent_columns`).
    pub enum AbsentColumns in "gca.absent_columns" {
        /// Left out of the means, never masked.
        Skip = "skip",
        /// As the released code computes it: every column is then masked with the
        /// threshold probability.
        Threshold = "threshold",
    }
}

impl Section for GcaParams {
    const KEY: &'static str = "gca";
}

impl ParamGuard for GcaParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        check_ratio("gca.edge_threshold", self.edge_threshold)?;
        check_ratio("gca.feature_threshold", self.feature_threshold)
    }
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::gca::DECL,
    "GCA (Zhu et al. 2021): GRACE with centrality-adaptive edge and feature dropping",
    preset,
    |p, data, device, progress| {
        let ds = data.nodes("gca")?;
        let gca = p.sections.require::<GcaParams>("gca")?.into_inner();
        let node = p.sections.require::<NodeParams>("gca")?.into_inner();
        let variant = NodeVariant {
            shape: GcnShape::grace,
            degree_of: DegreeOf::Targets,
            projector_init: Init::TorchDefault,
            adaptive: adaptive_drops(ds, &gca, &node),
        };
        NodeRunner::build(p, ds, device, progress, variant)
    },
)
.sections(&[section::<NodeParams>(), section::<GcaParams>()])
.preset_names(&["code"])
.cost(|p, size| {
    let epochs = p.epochs.max(1) as f64;
    4.0e-9 * epochs * size.nodes * size.nodes + 1e-6 * epochs * size.edges
});

/// GCA's released settings (`param/*.json`, read by `train.py` with its defaults: weight
/// decay 1e-5) for the sets magcl loads: Amazon-Computers, Amazon-Photo, Coauthor-CS (the
/// code also ships Coauthor-Physics and WikiCS). `None` elsewhere. GRACE's preset reads
/// them too (`grace::grace_row`): GCA's code with `drop_scheme: uniform` is GRACE.
pub(crate) fn released_row(dataset: &str) -> Option<GraceRow> {
    #[rustfmt::skip]
    let row = match dataset.to_ascii_lowercase().as_str() {
        "amazon-computers" => GraceRow { epochs: 2000, lr: 1e-2, wd: 1e-5, act: ActivationKind::Rrelu, hidden: 128, proj: 128, edge_drop: [0.6, 0.3], feature_drop: [0.2, 0.3], tau: 0.2 },
        "amazon-photo" => GraceRow { epochs: 2000, lr: 0.1, wd: 1e-5, act: ActivationKind::Relu, hidden: 256, proj: 64, edge_drop: [0.3, 0.5], feature_drop: [0.1, 0.1], tau: 0.3 },
        "coauthor-cs" => GraceRow { epochs: 1000, lr: 5e-4, wd: 1e-5, act: ActivationKind::Rrelu, hidden: 256, proj: 256, edge_drop: [0.3, 0.2], feature_drop: [0.3, 0.4], tau: 0.4 },
        _ => return None,
    };
    Some(row)
}

/// GCA's settings on a dataset: `code` (the only preset): `released_row` with scheme
/// `degree` and thresholds 0.7 (`train.py`'s defaults); for every other set (Cora,
/// CiteSeer, PubMed) GCA gives no configuration, and magcl uses GRACE's released one with
/// scheme `degree`.
pub fn preset(req: &PresetRequest) -> Result<Preset> {
    if req.name.unwrap_or("code") != "code" {
        return Err(req.unknown_name(&ENTRY));
    }
    let row = grace_row(req.dataset);
    let mut p = preset_from_row(&row)?;
    p.sections.set(&GcaParams {
        scheme: GcaScheme::Degree,
        edge_threshold: 0.7,
        feature_threshold: 0.7,
        absent_columns: AbsentColumns::Skip,
    })?;
    Ok(p)
}

/// Each view's drop probabilities for `ds` (`None` for the uniform scheme).
pub fn adaptive_drops(
    ds: &NodeDataset,
    gca: &GcaParams,
    node: &NodeParams,
) -> Option<AdaptiveDrops> {
    let edges = directed_edges(ds);
    let n = ds.num_nodes;
    let (edge_score, feature_c) = match gca.scheme {
        GcaScheme::Degree => {
            let d = degrees(n, &edges);
            (d.iter().map(|v| v.ln()).collect::<Vec<f64>>(), d)
        }
        GcaScheme::Pr => (
            pagerank(n, &edges, 200).iter().map(|v| v.ln()).collect(),
            pagerank(n, &edges, 10),
        ),
        GcaScheme::Evc => {
            let c = eigenvector_centrality(n, &edges);
            (c.iter().map(|v| (v.max(0.0) + 1e-8).ln()).collect(), c)
        }
        GcaScheme::Uniform => return None,
    };
    let edge_w = edge_weights(&edge_score, &edges);
    let feature_w = feature_weights(&ds.features, &feature_c);
    let code_nan =
        gca.absent_columns == AbsentColumns::Threshold && feature_w.iter().any(Option::is_none);
    let per_view = |v: usize| {
        let features = if code_nan {
            vec![gca.feature_threshold; feature_w.len()]
        } else {
            feature_probabilities(&feature_w, node.feature_drop[v], gca.feature_threshold)
        };
        (
            adaptive_drop_probabilities(&edge_w, node.edge_drop[v], gca.edge_threshold),
            features,
        )
    };
    let ((e0, f0), (e1, f1)) = (per_view(0), per_view(1));
    Some(AdaptiveDrops {
        edge: [e0, e1],
        feature: [f0, f1],
    })
}

/// `(max s − s) / (max s − mean s)`; all ones where every `s` is equal.
fn spread(s: &[f64]) -> Vec<f64> {
    let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = s.iter().sum::<f64>() / s.len().max(1) as f64;
    let den = max - mean;
    s.iter()
        .map(|&v| if den > 0.0 { (max - v) / den } else { 1.0 })
        .collect()
}

/// Each node's degree (its distinct neighbours) from the symmetric directed edge list.
pub fn degrees(n: usize, directed: &[(u32, u32)]) -> Vec<f64> {
    let mut d = vec![0.0; n];
    for &(_, v) in directed {
        d[v as usize] += 1.0;
    }
    d
}

/// PageRank as GCA's `compute_pr` iterates it: from all ones, `k` times `x ← 0.15 x +
/// 0.85 Σ_{u→v} x_u / deg⁺(u)` (not normalised).
pub fn pagerank(n: usize, directed: &[(u32, u32)], k: usize) -> Vec<f64> {
    let mut out_deg = vec![0.0f64; n];
    for &(u, _) in directed {
        out_deg[u as usize] += 1.0;
    }
    let mut x = vec![1.0f64; n];
    for _ in 0..k {
        let mut agg = vec![0.0f64; n];
        for &(u, v) in directed {
            agg[v as usize] += x[u as usize] / out_deg[u as usize];
        }
        for (xv, a) in x.iter_mut().zip(&agg) {
            *xv = 0.15 * *xv + 0.85 * a;
        }
    }
    x
}

/// Eigenvector centrality: the principal eigenvector of the adjacency matrix, unit length
/// and non-negative (power iteration on `A + I`, which has the same eigenvectors and a
/// dominant eigenvalue that is unique in magnitude, to a change below 1e-13).
pub fn eigenvector_centrality(n: usize, directed: &[(u32, u32)]) -> Vec<f64> {
    let mut x = vec![1.0 / (n.max(1) as f64).sqrt(); n];
    for _ in 0..100_000 {
        let mut y = x.clone();
        for &(u, v) in directed {
            y[v as usize] += x[u as usize];
        }
        let norm = y.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm == 0.0 {
            return y;
        }
        y.iter_mut().for_each(|v| *v /= norm);
        let change = x
            .iter()
            .zip(&y)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        x = y;
        if change < 1e-13 {
            break;
        }
    }
    x
}

/// Edge weights from a node score (the logarithm of a centrality) at each edge's target.
pub fn edge_weights(score: &[f64], directed: &[(u32, u32)]) -> Vec<f64> {
    let s: Vec<f64> = directed.iter().map(|&(_, v)| score[v as usize]).collect();
    spread(&s)
}

/// Feature-column weights: `log Σ c(v)` over the nodes having the column; `None` for a
/// column no node has.
pub fn feature_weights(x: &CsrMatrix, c: &[f64]) -> Vec<Option<f64>> {
    let mut w = vec![0.0f64; x.cols];
    let mut seen = vec![false; x.cols];
    for (r, cr) in c.iter().enumerate().take(x.rows) {
        for k in x.indptr[r]..x.indptr[r + 1] {
            if x.data[k] != 0.0 {
                let f = x.indices[k] as usize;
                w[f] += cr;
                seen[f] = true;
            }
        }
    }
    let present: Vec<f64> = (0..x.cols)
        .filter(|&f| seen[f])
        .map(|f| w[f].ln())
        .collect();
    let mut spread = spread(&present).into_iter();
    (0..x.cols)
        .map(|f| if seen[f] { spread.next() } else { None })
        .collect()
}

/// Drop probabilities of the feature columns (0 for a column no node has).
fn feature_probabilities(w: &[Option<f64>], p: f64, threshold: f64) -> Vec<f64> {
    let present: Vec<f64> = w.iter().flatten().copied().collect();
    let mut q = adaptive_drop_probabilities(&present, p, threshold).into_iter();
    w.iter()
        .map(|v| {
            if v.is_some() {
                q.next().unwrap_or(0.0)
            } else {
                0.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::tests::TestConfig;
    use crate::train::node::tests::toy_dataset;

    /// The path 0 − 1 − 2 − 3 plus the edge 1 − 3 (degrees 1, 3, 2, 2), as the trainer's
    /// directed edges.
    fn kite() -> Vec<(u32, u32)> {
        let und = [(0u32, 1u32), (1, 2), (1, 3), (2, 3)];
        und.iter().flat_map(|&(u, v)| [(u, v), (v, u)]).collect()
    }

    #[test]
    fn degree_weights_by_hand() {
        let e = kite();
        let d = degrees(4, &e);
        assert_eq!(d, vec![1.0, 3.0, 2.0, 2.0]);
        // s at each edge's target: 0→1: ln3, 1→0: ln1, 1→2: ln2, 2→1: ln3, 1→3: ln2,
        // 3→1: ln3, 2→3: ln2, 3→2: ln2; max ln3, mean (3 ln3 + 4 ln2)/8
        let (l2, l3) = (2f64.ln(), 3f64.ln());
        let s = [l3, 0.0, l2, l3, l2, l3, l2, l2];
        let mean = (3.0 * l3 + 4.0 * l2) / 8.0;
        let want: Vec<f64> = s.iter().map(|v| (l3 - v) / (l3 - mean)).collect();
        let logd: Vec<f64> = d.iter().map(|v| v.ln()).collect();
        let got = edge_weights(&logd, &e);
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-12, "{got:?} {want:?}");
        }
        // the edge into the leaf is the likeliest to go, those into the hub never
        let q = adaptive_drop_probabilities(&got, 0.3, 0.7);
        assert_eq!(q[3], 0.0);
        assert!(q[1] > q[2] && q[1] <= 0.7);
        // probabilities average p where the threshold cuts none
        let q = adaptive_drop_probabilities(&got, 0.1, 0.7);
        assert!((q.iter().sum::<f64>() / 8.0 - 0.1).abs() < 1e-12);
    }

    #[test]
    fn pagerank_by_hand() {
        // one iteration from ones on the kite: node 1 gets 1/1 + 1/2 + 1/2, node 0 gets 1/3
        let e = kite();
        let x = pagerank(4, &e, 1);
        let want = [
            0.15 + 0.85 / 3.0,
            0.15 + 0.85 * 2.0,
            0.15 + 0.85 * (1.0 / 3.0 + 0.5),
            0.15 + 0.85 * (1.0 / 3.0 + 0.5),
        ];
        for (a, b) in x.iter().zip(&want) {
            assert!((a - b).abs() < 1e-12, "{x:?}");
        }
        // many iterations: the lazy walk's stationary state, n · deg / Σ deg
        let x = pagerank(4, &e, 200);
        for (a, b) in x.iter().zip([0.5, 1.5, 1.0, 1.0]) {
            assert!((a - b).abs() < 1e-9, "{x:?}");
        }
    }

    #[test]
    fn eigenvector_centrality_of_a_star_and_two_components() {
        // star with centre 0 and three leaves: eigenvector (√3, 1, 1, 1) / √6
        let und = [(0u32, 1u32), (0, 2), (0, 3)];
        let e: Vec<(u32, u32)> = und.iter().flat_map(|&(u, v)| [(u, v), (v, u)]).collect();
        let c = eigenvector_centrality(4, &e);
        let want = [3f64.sqrt(), 1.0, 1.0, 1.0].map(|v| v / 6f64.sqrt());
        for (a, b) in c.iter().zip(&want) {
            assert!((a - b).abs() < 1e-9, "{c:?}");
        }
        // plus a separate edge 4 − 5 (eigenvalue 1 < √3): its centrality vanishes
        let mut e2 = e.clone();
        e2.extend([(4, 5), (5, 4)]);
        let c = eigenvector_centrality(6, &e2);
        assert!(c[4] < 1e-9 && c[5] < 1e-9 && (c[0] - want[0]).abs() < 1e-9);
    }

    #[test]
    fn feature_weights_by_hand() {
        // three nodes (centralities 1, 2, 4), four columns; column 3 appears nowhere
        let x = CsrMatrix {
            rows: 3,
            cols: 4,
            indptr: vec![0, 2, 3, 5],
            indices: vec![0, 1, 1, 0, 2],
            data: vec![1.0, 0.5, 1.0, 2.0, 1.0],
        };
        let w = feature_weights(&x, &[1.0, 2.0, 4.0]);
        // column sums: 0 → 1 + 4 = 5, 1 → 1 + 2 = 3, 2 → 4
        let l = [5f64.ln(), 3f64.ln(), 4f64.ln()];
        let mean = l.iter().sum::<f64>() / 3.0;
        for (f, v) in l.iter().enumerate() {
            let want = (l[0] - v) / (l[0] - mean);
            assert!((w[f].unwrap() - want).abs() < 1e-12);
        }
        assert_eq!(w[3], None);
        let q = feature_probabilities(&w, 0.2, 0.7);
        assert_eq!((q[0], q[3]), (0.0, 0.0));
        assert!((q[..3].iter().sum::<f64>() / 3.0 - 0.2).abs() < 1e-12);
    }

    #[test]
    fn scheme_is_checked_and_uniform_is_grace() {
        let ds = toy_dataset(30);
        let o = serde_json::json!({"gca": {"scheme": "betweenness"}});
        let e = TestConfig::new("gca", "toy", None, 1, o)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("gca.scheme") && e.contains("degree, pr, evc"),
            "{e}"
        );
        let cfg = TestConfig::new("gca", "toy", None, 1, serde_json::json!({})).unwrap();
        let p = cfg.method_params().unwrap();
        let node = p.sections.require::<NodeParams>("t").unwrap().into_inner();
        let mut gca = p.sections.require::<GcaParams>("t").unwrap().into_inner();
        assert_eq!(gca.scheme, GcaScheme::Degree);
        for scheme in [GcaScheme::Degree, GcaScheme::Pr, GcaScheme::Evc] {
            gca.scheme = scheme;
            let a = adaptive_drops(&ds, &gca, &node).unwrap();
            assert_eq!(a.edge[0].len(), 2 * ds.edges.len());
            assert_eq!(a.feature[1].len(), ds.features.cols);
            assert!(a.edge.iter().flatten().all(|&q| (0.0..=0.7).contains(&q)));
        }
        gca.scheme = GcaScheme::Uniform;
        assert!(adaptive_drops(&ds, &gca, &node).is_none());
        // a column no node has: skipped, or (the released code) every column at the threshold
        gca.scheme = GcaScheme::Degree;
        let before = adaptive_drops(&ds, &gca, &node).unwrap();
        let mut ds = ds;
        ds.features.cols += 1;
        let skip = adaptive_drops(&ds, &gca, &node).unwrap();
        assert_eq!(skip.feature[0].last(), Some(&0.0));
        assert_eq!(
            skip.feature[0][..ds.features.cols - 1],
            before.feature[0][..]
        );
        gca.absent_columns = AbsentColumns::Threshold;
        let code = adaptive_drops(&ds, &gca, &node).unwrap();
        assert!(code.feature.iter().flatten().all(|&q| q == 0.7));
        assert_eq!(code.edge, skip.edge);
    }

    fn variant() -> NodeVariant {
        let ds = toy_dataset(120);
        let cfg = TestConfig::new("gca", "toy", None, 1, serde_json::json!({})).unwrap();
        let p = cfg.method_params().unwrap();
        let gca = p.sections.require::<GcaParams>("t").unwrap().into_inner();
        let node = p.sections.require::<NodeParams>("t").unwrap().into_inner();
        NodeVariant {
            shape: GcnShape::grace,
            degree_of: DegreeOf::Targets,
            projector_init: Init::TorchDefault,
            adaptive: adaptive_drops(&ds, &gca, &node),
        }
    }

    #[test]
    fn trains_deterministically_and_learns_the_communities() {
        crate::train::node::tests::check_trains_and_learns("gca", variant);
    }
}
