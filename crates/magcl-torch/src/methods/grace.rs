//! GRACE (Zhu et al. 2020, "Deep Graph Contrastive Representation Learning") and GRACE+MA.
//!
//! Per epoch: two views (directed edge dropping and feature-column masking with per-view
//! ratios), one two-layer GCN encoder (`2·hidden` then `hidden` wide, the activation after
//! both layers), the projection head (Linear → ELU → Linear) and the InfoNCE loss with
//! inter- and intra-view negatives, the positive in the denominator, averaged over both
//! directions, at temperature τ. The GCN layer is PyG's `GCNConv` (Â with self-loops, the
//! degree counted at edge targets). Trained by the node-level trainer ([`NodeModel`]) with
//! GRACE's encoder shape; evaluated like every node-level method (logistic-regression
//! probe on the run's split).
//!
//! With MA the two views' encoder passes follow the schedules MA draws under the node-level
//! code reading (K = 0 is one plain GCN hop, K ≥ 1 that many filter steps; K ∈ [0, 1] for
//! view 1, K′ ∈ [0, 7] for view 2); the evaluation encoder is GRACE's own (one plain hop per
//! layer). docs/ma.md.
//!
//! [`NodeModel`]: super::base::NodeModel
use super::{MethodEntry, Preset, PresetRequest};
use crate::error::Result;
use crate::graph::DegreeOf;
use crate::loss::InfoNceParams;
use crate::nn::gcn::{ActivationKind, GcnShape};
use crate::nn::mlp::Init;
use crate::params::{section, MethodTable};
use crate::train::node::{code_ma_ranges, NodeParams, NodePreset, NodeRunner, NodeVariant};

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::grace::DECL,
    "GRACE (Zhu et al. 2020): two-view node contrast, inter- and intra-view negatives",
    preset,
    |p, data, device, progress| {
        let ds = data.nodes("grace")?;
        NodeRunner::build(p, ds, device, progress, variant())
    },
)
.sections(&[section::<NodeParams>()])
.preset_names(&["code"])
// The loss compares every node with every other, twice (both directions, both views).
.cost(|p, size| {
    let epochs = p.epochs.max(1) as f64;
    4.0e-9 * epochs * size.nodes * size.nodes + 1e-6 * epochs * size.edges
});

/// GRACE's encoder shape, uniform augmentation.
pub fn variant() -> NodeVariant {
    NodeVariant {
        shape: GcnShape::grace,
        degree_of: DegreeOf::Targets,
        projector_init: Init::TorchDefault,
        adaptive: None,
    }
}

/// One dataset's settings in GRACE's released `config.yaml`.
pub(crate) struct GraceRow {
    pub epochs: usize,
    pub lr: f64,
    pub wd: f64,
    pub act: ActivationKind,
    pub hidden: usize,
    pub proj: usize,
    pub edge_drop: [f64; 2],
    pub feature_drop: [f64; 2],
    pub tau: f64,
}

/// GRACE's `config.yaml` (CRIPAC-DIG/GRACE): Cora, CiteSeer and PubMed. It has no row for
/// Amazon-Computers, Amazon-Photo or Coauthor-CS; there GRACE takes GCA's released row
/// ([`super::gca::released_row`]): the same authors' code base, in which `drop_scheme:
/// uniform` trains GRACE itself, tuned on these sets. Any other node set gets Cora's row
/// (GRACE's fourth set, DBLP, is not among magcl's).
pub(crate) fn grace_row(dataset: &str) -> GraceRow {
    if let Some(row) = super::gca::released_row(dataset) {
        return row;
    }
    #[rustfmt::skip]
    let row = match dataset.to_ascii_lowercase().as_str() {
        "citeseer" => GraceRow { epochs: 200, lr: 1e-3, wd: 1e-5, act: ActivationKind::Prelu, hidden: 256, proj: 256, edge_drop: [0.2, 0.0], feature_drop: [0.3, 0.2], tau: 0.9 },
        "pubmed" => GraceRow { epochs: 1500, lr: 1e-3, wd: 1e-5, act: ActivationKind::Relu, hidden: 256, proj: 256, edge_drop: [0.4, 0.1], feature_drop: [0.0, 0.2], tau: 0.7 },
        _ => GraceRow { epochs: 200, lr: 5e-4, wd: 1e-5, act: ActivationKind::Relu, hidden: 128, proj: 128, edge_drop: [0.2, 0.4], feature_drop: [0.3, 0.4], tau: 0.4 },
    };
    row
}

/// The preset of a GRACE-style method from one row of settings: GRACE's loss and head,
/// the node-level code reading of MA, the random 10/10/80 split with the probe.
pub(crate) fn preset_from_row(row: &GraceRow) -> Result<Preset> {
    let mut sections = MethodTable::default();
    sections.set(&NodeParams::plain_gcn(
        row.edge_drop,
        row.feature_drop,
        row.act,
        row.proj,
    ))?;
    Ok(NodePreset {
        epochs: row.epochs,
        lr: row.lr,
        weight_decay: row.wd,
        hidden: row.hidden,
        loss: InfoNceParams {
            temperature: row.tau,
            positive_in_denominator: true,
            symmetric: true,
            intra_view_negatives: true,
            inter_view_negatives: true,
            projector: true,
        },
        ma: code_ma_ranges(),
        sections,
    }
    .into())
}

/// GRACE's settings on a dataset: `code` (the only preset; the released `config.yaml`).
pub fn preset(req: &PresetRequest) -> Result<Preset> {
    match req.name.unwrap_or("code") {
        "code" => preset_from_row(&grace_row(req.dataset)),
        _ => Err(req.unknown_name(&ENTRY)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::InfoNce;
    use crate::methods::base::NodeModel;
    use crate::methods::tests::TestConfig;
    use crate::params::ParamGuard;
    use crate::train::node::tests::toy_dataset;
    use tch::{Device, Kind, Tensor};

    /// GRACE's loss by hand on three nodes: ℓ(i) = −log(e^{θ(u_i,v_i)/τ} /
    /// (Σ_k e^{θ(u_i,v_k)/τ} + Σ_{k≠i} e^{θ(u_i,u_k)/τ})), averaged over both directions
    /// and all nodes, θ the cosine similarity.
    #[test]
    fn loss_matches_the_papers_formula_by_hand() {
        let _g = crate::rng::torch_lock();
        let u = [[1.0, 0.0], [0.6, 0.8], [-1.0, 1.0]];
        let v = [[0.8, 0.6], [0.0, 1.0], [-1.0, -1.0]];
        let tau = 0.5;
        let cos = |a: &[f64; 2], b: &[f64; 2]| {
            (a[0] * b[0] + a[1] * b[1])
                / ((a[0] * a[0] + a[1] * a[1]).sqrt() * (b[0] * b[0] + b[1] * b[1]).sqrt())
        };
        let one_way = |a: &[[f64; 2]; 3], b: &[[f64; 2]; 3]| -> f64 {
            (0..3)
                .map(|i| {
                    let pos = (cos(&a[i], &b[i]) / tau).exp();
                    let inter: f64 = (0..3).map(|k| (cos(&a[i], &b[k]) / tau).exp()).sum();
                    let intra: f64 = (0..3)
                        .filter(|&k| k != i)
                        .map(|k| (cos(&a[i], &a[k]) / tau).exp())
                        .sum();
                    -(pos / (inter + intra)).ln()
                })
                .sum::<f64>()
                / 3.0
        };
        let want = 0.5 * (one_way(&u, &v) + one_way(&v, &u));
        let mut cfg = preset_from_row(&grace_row("cora")).unwrap().loss;
        cfg.temperature = tau;
        let t = |m: &[[f64; 2]; 3]| {
            Tensor::from_slice(&m.concat())
                .view([3, 2])
                .to_kind(Kind::Double)
        };
        for block in [0, 2] {
            let loss = InfoNce::new(cfg.clone().check().unwrap(), block);
            let got = loss.loss(&t(&u), &t(&v)).double_value(&[]);
            assert!((got - want).abs() < 1e-9, "block {block}: {got} vs {want}");
        }
    }

    #[test]
    fn encoder_has_graces_shape() {
        let _g = crate::rng::torch_lock();
        let ds = toy_dataset(30);
        let o = serde_json::json!({"hidden": 8, "node": {"proj_hidden": 16}});
        let cfg = TestConfig::new("grace", "toy", None, 1, o).unwrap();
        let m = NodeModel::with_variant(&cfg.method_params().unwrap(), &ds, Device::Cpu, variant())
            .unwrap();
        let shapes: Vec<Vec<i64>> = m.encoder.layers.iter().map(|l| l.weight.size()).collect();
        assert_eq!(shapes, vec![vec![20, 16], vec![16, 8]]);
        assert!(m.encoder.activate_last);
        // the projection head as PyTorch's nn.Linear initialises it: U(±1/√fan_in)
        let head = m.projector.as_ref().unwrap();
        for (w, fan_in) in [(&head.fc1.ws, 8.0f64), (&head.fc2.ws, 16.0)] {
            let max = w.abs().max().double_value(&[]);
            let bound = 1.0 / fan_in.sqrt();
            assert!(max <= bound && max > 0.8 * bound, "{max} vs {bound}");
        }
        // the embeddings went through the last ReLU: none is negative
        let z = m.embed();
        assert!(z.min().double_value(&[]) >= 0.0);
    }

    #[test]
    fn trains_deterministically_and_learns_the_communities() {
        crate::train::node::tests::check_trains_and_learns("grace", variant);
    }

    #[test]
    fn presets_follow_the_released_config() {
        let over = serde_json::Map::new();
        let req = |d| PresetRequest {
            dataset: d,
            task: Some(crate::params::Task::Node),
            name: None,
            overrides: &over,
        };
        let cite = preset(&req("CiteSeer")).unwrap();
        assert_eq!((cite.epochs, cite.hidden, cite.lr), (200, 256, 1e-3));
        assert_eq!(cite.loss.temperature, 0.9);
        let node = cite
            .sections
            .get::<NodeParams>()
            .unwrap()
            .unwrap()
            .into_inner();
        assert_eq!(
            (node.edge_drop, node.feature_drop),
            ([0.2, 0.0], [0.3, 0.2])
        );
        assert_eq!(node.activation, ActivationKind::Prelu);
        let cora = preset(&req("Cora")).unwrap();
        assert_eq!((cora.epochs, cora.hidden, cora.lr), (200, 128, 5e-4));
        let named = PresetRequest {
            name: Some("paper"),
            ..req("Cora")
        };
        assert!(preset(&named).unwrap_err().to_string().contains("code"));
    }

    /// GRACE's config has no row for the Amazon and Coauthor sets: there it takes GCA's
    /// released row (the same numbers GCA's preset uses), without GCA's adaptive section.
    #[test]
    fn larger_sets_take_gcas_released_rows() {
        let over = serde_json::Map::new();
        for d in ["Amazon-Photo", "Amazon-Computers", "Coauthor-CS"] {
            let req = PresetRequest {
                dataset: d,
                task: Some(crate::params::Task::Node),
                name: None,
                overrides: &over,
            };
            let grace = preset(&req).unwrap();
            let gca = crate::methods::gca::preset(&req).unwrap();
            assert_eq!(
                (grace.epochs, grace.hidden, grace.lr, grace.weight_decay),
                (gca.epochs, gca.hidden, gca.lr, gca.weight_decay),
                "{d}"
            );
            assert_eq!(grace.loss.temperature, gca.loss.temperature, "{d}");
            let node = |p: &Preset| {
                p.sections
                    .get::<NodeParams>()
                    .unwrap()
                    .unwrap()
                    .into_inner()
            };
            let (a, b) = (node(&grace), node(&gca));
            assert_eq!(
                (a.edge_drop, a.feature_drop, a.activation, a.proj_hidden),
                (b.edge_drop, b.feature_drop, b.activation, b.proj_hidden),
                "{d}"
            );
            assert!(
                grace
                    .sections
                    .get::<crate::methods::gca::GcaParams>()
                    .unwrap()
                    .is_none(),
                "{d}"
            );
        }
        let over = serde_json::Map::new();
        let photo = preset(&PresetRequest {
            dataset: "Amazon-Photo",
            task: Some(crate::params::Task::Node),
            name: None,
            overrides: &over,
        })
        .unwrap();
        // GCA's param/amazon_photo.json: 2000 epochs, lr 0.1, 256 / 64, tau 0.3
        assert_eq!((photo.epochs, photo.lr, photo.hidden), (2000, 0.1, 256));
        assert_eq!(photo.loss.temperature, 0.3);
    }
}
