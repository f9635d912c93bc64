//! A method's settings as a configuration holds them: [`Preset`], everything in a run's
//! configuration but the run's identity (method, dataset, seed) and machine. Each method's
//! presets (its defaults per dataset, cited to its official code) are written beside its
//! tensor code, which builds the method from them; this is their one schema, read by the
//! trainers and, through a result row's config, by the reports.
use serde::{Deserialize, Serialize};

use crate::ma::MaParams;
use crate::params::MethodTable;
use crate::settings::{InfoNceParams, Pretrain};
use crate::Level as Task;

/// A method's settings: everything in a run's configuration but the run's identity
/// (method, dataset, seed) and machine (threads, numeric environment). The experiment
/// layer's `RunConfig` is a preset with those added.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Preset {
    pub task: Task,
    pub epochs: usize,
    pub lr: f64,
    pub weight_decay: f64,
    pub batch_size: usize,
    pub hidden: usize,
    pub layers: usize,
    /// Node features: a rule, a kind or a method's word for its rule (graph level), or
    /// `row-normalised` (node level).
    pub features: FeatureSetting,
    /// The classifier that scores the embeddings (`svc-rbf`, `linear-svc`, `logreg`).
    pub evaluator: magcl_eval::Evaluator,
    /// GIN's ε (graph level).
    pub gin_eps: f64,
    pub loss: InfoNceParams,
    pub ma: MaParams,
    /// The pre-training subset (graph level; written only when set).
    #[serde(default, skip_serializing_if = "Pretrain::is_unset")]
    pub pretrain: Pretrain,
    /// The method's own sections.
    #[serde(flatten)]
    pub sections: MethodTable,
}

/// The `features` setting: the text a config writes, and the rule it stands for
/// ([`magcl_data::features::FeatureSpec`]). The text is kept as written, because the config
/// hash is taken over it: a method's word (`graphcl`, `adgcl`, `mvgrl`, hash version 1)
/// stands for the rule the method declares (`auto`, `constant`,
/// `attributes-else-degree`), and node-level configs write `row-normalised`. Reading checks
/// the text, so a misspelt rule is refused when the config is read, before any data loads;
/// whether the dataset can provide the kind is checked when its features are built.
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureSetting {
    written: String,
    spec: magcl_data::features::FeatureSpec,
}

impl FeatureSetting {
    /// The rule a method declares ([`crate::FeatureRule`]), written in its word;
    /// `auto` where it declares none. A declaration whose spec does not parse is a bug in
    /// the declaration (every registered one is tested to parse).
    pub fn declared(rule: Option<crate::FeatureRule>) -> FeatureSetting {
        match rule {
            None => FeatureSetting {
                written: "auto".into(),
                spec: magcl_data::features::FeatureSpec::Auto,
            },
            Some(r) => FeatureSetting {
                written: r.written.into(),
                spec: r.spec.parse().unwrap_or_else(|e| {
                    panic!("declared feature rule {:?} does not parse: {e}", r.spec)
                }),
            },
        }
    }
    /// The node level's input: each node's features scaled to sum 1.
    pub fn row_normalised() -> FeatureSetting {
        let spec = magcl_data::features::FeatureSpec::RowNormalised;
        FeatureSetting {
            written: spec.to_string(),
            spec,
        }
    }
    /// The rule it stands for.
    pub fn spec(&self) -> magcl_data::features::FeatureSpec {
        self.spec
    }
    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }
}

impl std::str::FromStr for FeatureSetting {
    type Err = magcl_core::Error;
    /// A rule, a kind, or a method's word for the rule it declares (case-insensitive).
    fn from_str(s: &str) -> Result<FeatureSetting, magcl_core::Error> {
        let spec = crate::registry::feature_spec(s).parse()?;
        Ok(FeatureSetting {
            written: s.to_string(),
            spec,
        })
    }
}

crate::text_setting!(FeatureSetting, as_str);
