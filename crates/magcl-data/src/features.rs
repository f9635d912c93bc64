//! Node features for graph-classification datasets (`--features`).
//!
//! | spec | columns | what |
//! |---|---|---|
//! | `labels` | number of distinct node labels | one-hot node labels |
//! | `attributes` | attribute width | continuous node attributes as stored |
//! | `labels+attributes` | both | one-hot labels, then attributes |
//! | `constant` | 1 | x = 1 for every node |
//! | `degree` / `degree:N` | N + 1 | one-hot degree; degrees >= N share the last column ([`DEFAULT_DEGREE_CAP`] = 64) |
//! | `labels+degree` / `labels+degree:N` | labels + N + 1 | one-hot node labels, then one-hot degree as `degree:N` |
//! | `auto` | from the data | one-hot node labels where the dataset has them, else its node attributes, else `constant` |
//! | `attributes-else-degree` | from the data | node attributes where the set has them (PROTEINS: its one attribute), else one-hot labels beside a one-hot degree, else the one-hot degree; the degree's columns run to the set's largest degree (`labels+degree:D` / `degree:D`, D = largest degree) |
//!
//! A method declares the rule it feeds its encoder (magcl-config's method declarations):
//! GraphCL, SimGRACE, InfoGraph, JOAOv2 and the graph floors `auto` (what their code does on
//! every set they were published on: one-hot node labels, since PyG's TU loader leaves
//! attributes out unless asked; x = 1 on the social sets), AD-GCL `constant` (its code gives
//! every node the feature 1), MVGRL `attributes-else-degree` (its graph-level code).
//!
//! No rule looks at the dataset's name: the same files give the same features whatever
//! they are called, so a copy of MUTAG's, PROTEINS' or IMDB-BINARY's files in
//! `tu:/data/ANYNAME` trains exactly like the set by name (for PROTEINS, which has node
//! labels and one attribute, that is its 3 one-hot labels; `labels+attributes` gives 4).
//!
//! Spec names are case-insensitive. A kind the dataset cannot provide (e.g. `labels` on
//! IMDB-BINARY, which has no node labels) is an error that lists what it can provide.
use super::GraphDataset;
use crate::error::{Error, Result};

/// Default degree cap of `degree`: columns for degrees 0..63 and one for 64 and more.
pub const DEFAULT_DEGREE_CAP: usize = 64;

/// Node features of every graph of a dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeFeatures {
    /// Columns per node.
    pub dim: usize,
    /// One row-major `num_nodes × dim` block per graph, in dataset order.
    pub x: Vec<Vec<f32>>,
}

/// A parsed feature spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureKind {
    Labels,
    Attributes,
    LabelsAndAttributes,
    Constant,
    Degree { cap: usize },
    LabelsAndDegree { cap: usize },
}

impl std::fmt::Display for FeatureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FeatureKind::Labels => write!(f, "labels"),
            FeatureKind::Attributes => write!(f, "attributes"),
            FeatureKind::LabelsAndAttributes => write!(f, "labels+attributes"),
            FeatureKind::Constant => write!(f, "constant"),
            FeatureKind::Degree { cap } => write!(f, "degree:{cap}"),
            FeatureKind::LabelsAndDegree { cap } => write!(f, "labels+degree:{cap}"),
        }
    }
}

const SPEC_HELP: &str =
    "expected one of auto, labels, attributes, labels+attributes, constant, degree, degree:N, labels+degree, labels+degree:N, attributes-else-degree";

/// What the data offers: `auto`'s choice. Labels win over attributes because that is
/// what the GCL references use by default; both together only when asked.
fn from_data(ds: &GraphDataset) -> FeatureKind {
    let (labels, attrs) = contents(ds);
    match (labels, attrs) {
        (true, _) => FeatureKind::Labels,
        (false, true) => FeatureKind::Attributes,
        (false, false) => FeatureKind::Constant,
    }
}

/// `attributes-else-degree`, MVGRL's choice (its `graph/dataset.py`): attributes, else labels + degree, else degree,
/// the degree one-hot as wide as the set's largest degree needs.
fn mvgrl_kind(ds: &GraphDataset) -> FeatureKind {
    let cap = ds
        .graphs
        .iter()
        .flat_map(|g| g.degrees())
        .max()
        .unwrap_or(0)
        .max(1) as usize;
    match contents(ds) {
        (_, true) => FeatureKind::Attributes,
        (true, false) => FeatureKind::LabelsAndDegree { cap },
        (false, false) => FeatureKind::Degree { cap },
    }
}

/// (has node labels, has node attributes), each for every graph.
fn contents(ds: &GraphDataset) -> (bool, bool) {
    let has_labels = !ds.graphs.is_empty() && ds.graphs.iter().all(|g| g.node_labels.is_some());
    let has_attrs = ds.node_attr_dim > 0 && ds.graphs.iter().all(|g| g.node_attributes.is_some());
    (has_labels, has_attrs)
}

/// A spec resolved for one dataset: the kind, and in words why (`datasets info`'s
/// `feature_rule`, e.g. "auto: labels (from the data: node labels)").
pub fn explain(ds: &GraphDataset, spec: &str) -> Result<(FeatureKind, String)> {
    let spec: FeatureSpec = spec.parse()?;
    let kind = spec.resolve(ds)?;
    let why = match spec {
        FeatureSpec::Auto => {
            let has = match contents(ds) {
                (true, true) => "node labels and attributes; labels+attributes takes both",
                (true, false) => "node labels",
                (false, true) => "node attributes",
                (false, false) => "neither node labels nor attributes",
            };
            format!("{spec}: {kind} (from the data: {has})")
        }
        FeatureSpec::AttributesElseDegree => format!(
            "{spec}: {kind} (node attributes where the set has them, else labels beside a one-hot \
             degree up to the largest degree, else that degree)"
        ),
        _ => format!("{kind} (chosen explicitly)"),
    };
    Ok((kind, why))
}

/// Resolves a spec (a kind or a rule) for a dataset into a concrete kind.
pub fn resolve(ds: &GraphDataset, spec: &str) -> Result<FeatureKind> {
    spec.parse::<FeatureSpec>()?.resolve(ds)
}

/// A feature spec as a config or `--features` writes it, read without a dataset: a fixed
/// kind, or a rule the dataset decides. Parsing checks the spelling; whether the dataset can
/// provide the kind is checked by [`FeatureSpec::resolve`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureSpec {
    /// `auto`: one-hot node labels where the dataset has them, else its attributes, else
    /// `constant`.
    Auto,
    /// `attributes-else-degree` (MVGRL's graph-level rule; see the module's table).
    AttributesElseDegree,
    /// A kind chosen explicitly.
    Kind(FeatureKind),
    /// `row-normalised`: the node level's input, a node dataset's feature matrix with each
    /// row scaled to sum 1. No graph-level kind.
    RowNormalised,
}

impl std::str::FromStr for FeatureSpec {
    type Err = Error;
    /// Case-insensitive; surrounding blanks ignored.
    fn from_str(spec: &str) -> Result<FeatureSpec> {
        let s = spec.trim().to_ascii_lowercase();
        let kind = match s.as_str() {
            "auto" => return Ok(FeatureSpec::Auto),
            "attributes-else-degree" => return Ok(FeatureSpec::AttributesElseDegree),
            "row-normalised" => return Ok(FeatureSpec::RowNormalised),
            "labels" => FeatureKind::Labels,
            "attributes" => FeatureKind::Attributes,
            "labels+attributes" | "attributes+labels" => FeatureKind::LabelsAndAttributes,
            "constant" => FeatureKind::Constant,
            "degree" => FeatureKind::Degree {
                cap: DEFAULT_DEGREE_CAP,
            },
            "labels+degree" => FeatureKind::LabelsAndDegree {
                cap: DEFAULT_DEGREE_CAP,
            },
            other => {
                let Some((n, with_labels)) = other
                    .strip_prefix("degree:")
                    .map(|n| (n, false))
                    .or_else(|| other.strip_prefix("labels+degree:").map(|n| (n, true)))
                else {
                    return Err(Error::Config(format!(
                        "unknown feature spec {spec:?}; {SPEC_HELP}"
                    )));
                };
                let cap: usize = n.trim().parse().map_err(|_| {
                    Error::Config(format!(
                        "feature spec {spec:?}: degree cap {n:?} is not a positive integer"
                    ))
                })?;
                if cap == 0 || cap > 100_000 {
                    return Err(Error::Config(format!(
                        "feature spec {spec:?}: degree cap must be in 1..=100000"
                    )));
                }
                if with_labels {
                    FeatureKind::LabelsAndDegree { cap }
                } else {
                    FeatureKind::Degree { cap }
                }
            }
        };
        Ok(FeatureSpec::Kind(kind))
    }
}

impl std::fmt::Display for FeatureSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FeatureSpec::Auto => write!(f, "auto"),
            FeatureSpec::AttributesElseDegree => write!(f, "attributes-else-degree"),
            FeatureSpec::Kind(k) => k.fmt(f),
            FeatureSpec::RowNormalised => write!(f, "row-normalised"),
        }
    }
}

impl FeatureSpec {
    /// The concrete kind for `ds`: the rule applied to what the data holds, checked
    /// against it (a kind the dataset cannot provide is an error listing what it can).
    pub fn resolve(self, ds: &GraphDataset) -> Result<FeatureKind> {
        let kind = match self {
            FeatureSpec::Auto => from_data(ds),
            FeatureSpec::AttributesElseDegree => mvgrl_kind(ds),
            FeatureSpec::Kind(k) => k,
            FeatureSpec::RowNormalised => {
                return Err(Error::Config(format!(
                    "feature spec \"row-normalised\" is the node level's input; a graph-level \
                     run takes one of: {}",
                    SPEC_HELP.trim_start_matches("expected one of ")
                )))
            }
        };
        check_available(ds, kind, &self.to_string())?;
        Ok(kind)
    }

    /// Whether it is the node level's input ([`FeatureSpec::RowNormalised`]).
    pub fn is_node_level(self) -> bool {
        self == FeatureSpec::RowNormalised
    }
}

/// The feature kinds a dataset can provide.
pub fn available_kinds(ds: &GraphDataset) -> Vec<String> {
    let (has_labels, has_attrs) = contents(ds);
    let mut v = Vec::new();
    if has_labels {
        v.push("labels".to_string());
    }
    if has_attrs {
        v.push("attributes".to_string());
    }
    if has_labels && has_attrs {
        v.push("labels+attributes".to_string());
    }
    if has_labels {
        v.push("labels+degree[:N]".to_string());
    }
    v.push("constant".to_string());
    v.push("degree[:N]".to_string());
    v
}

fn check_available(ds: &GraphDataset, kind: FeatureKind, spec: &str) -> Result<()> {
    let (has_labels, has_attrs) = contents(ds);
    let missing = match kind {
        FeatureKind::Labels if !has_labels => Some("node labels (no NAME_node_labels.txt)"),
        FeatureKind::Attributes if !has_attrs => {
            Some("node attributes (no NAME_node_attributes.txt)")
        }
        FeatureKind::LabelsAndAttributes | FeatureKind::LabelsAndDegree { .. } if !has_labels => {
            Some("node labels (no NAME_node_labels.txt)")
        }
        FeatureKind::LabelsAndAttributes if !has_attrs => {
            Some("node attributes (no NAME_node_attributes.txt)")
        }
        _ => None,
    };
    match missing {
        Some(what) => Err(Error::Config(format!(
            "feature spec {spec:?}: dataset {} has no {what}; it can provide: {}",
            ds.name,
            available_kinds(ds).join(", ")
        ))),
        None => Ok(()),
    }
}

/// Builds the node features of every graph under `spec` (a kind or a rule).
pub fn graph_features(ds: &GraphDataset, spec: &str) -> Result<NodeFeatures> {
    spec_features(ds, spec.parse()?)
}

/// [`graph_features`] of a spec already read.
pub fn spec_features(ds: &GraphDataset, spec: FeatureSpec) -> Result<NodeFeatures> {
    Ok(build(ds, spec.resolve(ds)?))
}

/// Columns per node under `spec`, without building the features.
pub fn feature_dim(ds: &GraphDataset, spec: &str) -> Result<usize> {
    Ok(kind_dim(ds, resolve(ds, spec)?))
}

pub fn kind_dim(ds: &GraphDataset, kind: FeatureKind) -> usize {
    match kind {
        FeatureKind::Labels => ds.node_label_values.len(),
        FeatureKind::Attributes => ds.node_attr_dim,
        FeatureKind::LabelsAndAttributes => ds.node_label_values.len() + ds.node_attr_dim,
        FeatureKind::Constant => 1,
        FeatureKind::Degree { cap } => cap + 1,
        FeatureKind::LabelsAndDegree { cap } => ds.node_label_values.len() + cap + 1,
    }
}

/// Builds features for an already resolved and available kind.
pub fn build(ds: &GraphDataset, kind: FeatureKind) -> NodeFeatures {
    let n_labels = ds.node_label_values.len();
    let n_attr = ds.node_attr_dim;
    let dim = kind_dim(ds, kind);
    let x = ds
        .graphs
        .iter()
        .map(|g| {
            let n = g.num_nodes;
            let mut block = vec![0f32; n * dim];
            match kind {
                FeatureKind::Constant => block.fill(1.0),
                FeatureKind::Degree { cap } => {
                    for (i, d) in g.degrees().into_iter().enumerate() {
                        block[i * dim + (d as usize).min(cap)] = 1.0;
                    }
                }
                FeatureKind::LabelsAndDegree { cap } => {
                    for (i, d) in g.degrees().into_iter().enumerate() {
                        let row = &mut block[i * dim..(i + 1) * dim];
                        if let Some(&l) = g.node_labels.as_ref().and_then(|l| l.get(i)) {
                            if let Some(slot) = row.get_mut(l as usize) {
                                *slot = 1.0;
                            }
                        }
                        row[n_labels + (d as usize).min(cap)] = 1.0;
                    }
                }
                FeatureKind::Labels
                | FeatureKind::Attributes
                | FeatureKind::LabelsAndAttributes => {
                    let with_labels = kind != FeatureKind::Attributes;
                    let with_attrs = kind != FeatureKind::Labels;
                    let label_cols = if with_labels { n_labels } else { 0 };
                    for i in 0..n {
                        let row = &mut block[i * dim..(i + 1) * dim];
                        if with_labels {
                            if let Some(&l) = g.node_labels.as_ref().and_then(|l| l.get(i)) {
                                if let Some(slot) = row.get_mut(l as usize) {
                                    *slot = 1.0;
                                }
                            }
                        }
                        if with_attrs {
                            if let Some(a) = g
                                .node_attributes
                                .as_ref()
                                .and_then(|a| a.get(i * n_attr..(i + 1) * n_attr))
                            {
                                row[label_cols..label_cols + n_attr].copy_from_slice(a);
                            }
                        }
                    }
                }
            }
            block
        })
        .collect();
    NodeFeatures { dim, x }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Graph;

    fn ds() -> GraphDataset {
        GraphDataset {
            name: "MUTAG".into(),
            graphs: vec![Graph {
                num_nodes: 3,
                edges: vec![(0, 1), (0, 2)],
                node_labels: Some(vec![1, 0, 1]),
                node_attributes: Some(vec![0.5, 1.5, 2.5]),
                edge_labels: None,
                edge_attributes: None,
                label: 0,
            }],
            class_values: vec![0],
            node_label_values: vec![3, 7],
            node_attr_dim: 1,
            edge_label_values: vec![],
            edge_attr_dim: 0,
        }
    }

    /// One-hot labels beside a one-hot degree, by hand; `mvgrl` picks the attributes
    /// where the set has them, else labels + degree up to the largest degree.
    #[test]
    fn labels_and_degree_and_the_mvgrl_preset() {
        let d = ds();
        let f = graph_features(&d, "labels+degree:2").unwrap();
        assert_eq!(f.dim, 5);
        // degrees 2, 1, 1; labels (indices) 1, 0, 1
        #[rustfmt::skip]
        let want = vec![
            0.0, 1.0, 0.0, 0.0, 1.0,
            1.0, 0.0, 0.0, 1.0, 0.0,
            0.0, 1.0, 0.0, 1.0, 0.0,
        ];
        assert_eq!(f.x[0], want);
        assert_eq!(
            feature_dim(&d, "labels+degree").unwrap(),
            2 + DEFAULT_DEGREE_CAP + 1
        );
        assert_eq!(
            resolve(&d, "attributes-else-degree").unwrap(),
            FeatureKind::Attributes
        );
        let mut no_attrs = ds();
        no_attrs.node_attr_dim = 0;
        no_attrs.graphs[0].node_attributes = None;
        assert_eq!(
            resolve(&no_attrs, "attributes-else-degree").unwrap(),
            FeatureKind::LabelsAndDegree { cap: 2 }
        );
        assert_eq!(
            graph_features(&no_attrs, "attributes-else-degree")
                .unwrap()
                .x[0],
            want
        );
        let mut bare = no_attrs.clone();
        bare.graphs[0].node_labels = None;
        assert_eq!(
            resolve(&bare, "attributes-else-degree").unwrap(),
            FeatureKind::Degree { cap: 2 }
        );
        let e = resolve(&bare, "labels+degree").unwrap_err().to_string();
        assert!(e.contains("no node labels"), "{e}");
        assert!(resolve(&d, "labels+degree:0").is_err());
    }

    #[test]
    fn kinds_by_hand() {
        let d = ds();
        let f = graph_features(&d, "labels").unwrap();
        assert_eq!(f.dim, 2);
        assert_eq!(f.x[0], vec![0.0, 1.0, 1.0, 0.0, 0.0, 1.0]);
        let f = graph_features(&d, "Labels+Attributes").unwrap();
        assert_eq!(f.dim, 3);
        assert_eq!(f.x[0], vec![0.0, 1.0, 0.5, 1.0, 0.0, 1.5, 0.0, 1.0, 2.5]);
        let f = graph_features(&d, "attributes").unwrap();
        assert_eq!(f.x[0], vec![0.5, 1.5, 2.5]);
        let f = graph_features(&d, "constant").unwrap();
        assert_eq!((f.dim, f.x[0].clone()), (1, vec![1.0; 3]));
        // Degrees 2, 1, 1 with cap 1: all in the last column.
        let f = graph_features(&d, "degree:1").unwrap();
        assert_eq!(f.dim, 2);
        assert_eq!(f.x[0], vec![0.0, 1.0, 0.0, 1.0, 0.0, 1.0]);
        let f = graph_features(&d, "degree").unwrap();
        assert_eq!(f.dim, DEFAULT_DEGREE_CAP + 1);
        assert_eq!(f.x[0][2], 1.0);
        assert_eq!(f.x[0][f.dim + 1], 1.0);
    }

    #[test]
    fn auto_takes_labels_then_attributes_then_the_constant() {
        let mut d = ds();
        assert_eq!(resolve(&d, "auto").unwrap(), FeatureKind::Labels);
        for g in &mut d.graphs {
            g.node_labels = None;
        }
        assert_eq!(resolve(&d, "auto").unwrap(), FeatureKind::Attributes);
        for g in &mut d.graphs {
            g.node_attributes = None;
        }
        d.node_attr_dim = 0;
        assert_eq!(resolve(&d, "auto").unwrap(), FeatureKind::Constant);
    }

    /// The same files give the same features whatever the dataset is called: the presets
    /// of the published sets' names and of any other name agree, for every combination of
    /// node labels and attributes.
    #[test]
    fn presets_do_not_depend_on_the_name() {
        for (labels, attrs) in [(true, true), (true, false), (false, true), (false, false)] {
            let mut d = ds();
            if !labels {
                d.graphs[0].node_labels = None;
            }
            if !attrs {
                d.graphs[0].node_attributes = None;
                d.node_attr_dim = 0;
            }
            let by_name = |name: &str, spec: &str| {
                let mut d = d.clone();
                d.name = name.into();
                (
                    resolve(&d, spec).unwrap(),
                    graph_features(&d, spec).unwrap(),
                )
            };
            for spec in ["auto", "constant", "attributes-else-degree"] {
                let mutag = by_name("MUTAG", spec);
                assert_eq!(
                    by_name("IMDB-BINARY", spec),
                    mutag,
                    "{spec} {labels} {attrs}"
                );
                assert_eq!(by_name("MYSET", spec), mutag, "{spec} {labels} {attrs}");
            }
        }
    }

    #[test]
    fn explanations_say_where_the_kind_comes_from() {
        let d = ds();
        let rule = |spec| explain(&d, spec).unwrap().1;
        assert_eq!(
            rule("auto"),
            "auto: labels (from the data: node labels and attributes; labels+attributes takes both)"
        );
        assert_eq!(
            rule("attributes-else-degree"),
            "attributes-else-degree: attributes (node attributes where the set has them, else \
             labels beside a one-hot degree up to the largest degree, else that degree)"
        );
        // Method names are not feature specs: a method's config word is mapped to its
        // rule before the data layer sees it (magcl-config's registry).
        assert!(resolve(&d, "graphcl").is_err());
        assert_eq!(rule("degree:3"), "degree:3 (chosen explicitly)");
    }

    #[test]
    fn specs_read_and_write_back() {
        for text in [
            "auto",
            "attributes-else-degree",
            "row-normalised",
            "labels",
            "attributes",
            "labels+attributes",
            "constant",
            "degree:3",
            "labels+degree:7",
        ] {
            let spec: FeatureSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(
                format!(" {} ", text.to_uppercase())
                    .parse::<FeatureSpec>()
                    .unwrap(),
                spec
            );
        }
        assert_eq!(
            "degree".parse::<FeatureSpec>().unwrap(),
            FeatureSpec::Kind(FeatureKind::Degree {
                cap: DEFAULT_DEGREE_CAP
            })
        );
        assert_eq!(
            "attributes+labels".parse::<FeatureSpec>().unwrap(),
            FeatureSpec::Kind(FeatureKind::LabelsAndAttributes)
        );
        for bad in [
            "graphcl",
            "degree:0",
            "degree:x",
            "labels+degree:100001",
            "",
        ] {
            assert!(bad.parse::<FeatureSpec>().is_err(), "{bad}");
        }
        // The node level's input has no graph-level kind.
        let e = graph_features(&ds(), "row-normalised")
            .unwrap_err()
            .to_string();
        assert!(e.contains("node level") && e.contains("auto"), "{e}");
    }

    #[test]
    fn unavailable_kinds_and_bad_specs_are_errors() {
        let mut d = ds();
        d.name = "IMDB-BINARY".into();
        for g in &mut d.graphs {
            g.node_labels = None;
        }
        let e = graph_features(&d, "labels").unwrap_err().to_string();
        assert!(e.contains("IMDB-BINARY has no node labels"), "{e}");
        assert!(graph_features(&d, "degree:0").is_err());
        assert!(graph_features(&d, "degree:x").is_err());
        let e = graph_features(&d, "bogus").unwrap_err().to_string();
        assert!(e.contains("expected one of"), "{e}");
    }
}
