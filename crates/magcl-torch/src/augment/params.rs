//! Graph-level augmentation settings.
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::params::{bad, check_ratio, ParamGuard, Section, SettingError};

/// Graph-level augmentation settings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AugParams {
    /// `random2`, `random3`, `random4`, `node-drop`, `edge-drop`, `mask`, `subgraph`,
    /// `subgraph-1hop`, `none`, or a `+`-joined list of single augmentations applied in order.
    pub name: AugName,
    pub node_drop: f64,
    pub edge_drop: f64,
    pub mask: f64,
    pub subgraph: f64,
}

impl Default for AugParams {
    fn default() -> Self {
        AugParams {
            name: AugName::random(2),
            node_drop: 0.1,
            edge_drop: 0.1,
            mask: 0.1,
            subgraph: 0.2,
        }
    }
}

/// GraphCL's section (and that of any method augmenting graphs the same way).
impl Section for AugParams {
    const KEY: &'static str = "augment";
}

impl ParamGuard for AugParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        for (name, v) in [
            ("augment.node_drop", self.node_drop),
            ("augment.edge_drop", self.edge_drop),
            ("augment.mask", self.mask),
            ("augment.subgraph", self.subgraph),
        ] {
            check_ratio(name, v)?;
        }
        // The name was checked when it was read (`AugName`'s parsing).
        Ok(())
    }
}

/// One augmentation (GraphCL's names, official `unsupervised_TU/aug.py`, are accepted too:
/// `dnodes`, `pedges`, `mask_nodes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AugKind {
    Identity,
    NodeDrop,
    EdgeDrop,
    Mask,
    Subgraph,
    Subgraph1Hop,
}

impl AugKind {
    /// The words for each kind, the first the one `describe` and messages use.
    const WORDS: &'static [(AugKind, &'static [&'static str])] = &[
        (AugKind::Identity, &["none", "identity"]),
        (AugKind::NodeDrop, &["node-drop", "dnodes"]),
        (AugKind::EdgeDrop, &["edge-drop", "pedges"]),
        (AugKind::Mask, &["mask", "mask_nodes", "attr-mask"]),
        (AugKind::Subgraph, &["subgraph"]),
        (AugKind::Subgraph1Hop, &["subgraph-1hop"]),
    ];

    fn from_word(word: &str) -> Option<AugKind> {
        Self::WORDS
            .iter()
            .find(|(_, words)| words.contains(&word))
            .map(|(kind, _)| *kind)
    }
}

/// How a policy combines its augmentations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AugPolicy {
    /// One drawn uniformly for each graph (GraphCL's `random2/3/4`).
    Choice(Vec<AugKind>),
    /// All of them, in order (`node-drop+mask`; a single name is a composition of one).
    Compose(Vec<AugKind>),
}

/// The `augment.name` setting: the text a config writes (the config hash is taken over it,
/// so aliases stay as written) and the policy it names. A name that is none of the policies
/// is refused when the config is read, naming the field.
#[derive(Clone, Debug, PartialEq)]
pub struct AugName {
    written: String,
    policy: AugPolicy,
}

impl AugName {
    /// GraphCL's `randomN`: a choice of N of node dropping, subgraph, edge dropping and
    /// masking, in that order (N in 2..=4).
    pub fn random(n: usize) -> AugName {
        format!("random{n}")
            .parse()
            .unwrap_or_else(|e| panic!("random{n}: {e}"))
    }
    /// The policy it names.
    pub fn policy(&self) -> &AugPolicy {
        &self.policy
    }
    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// The names of GraphCL's choices (`aug_mode`'s `random2/3/4` in its
    /// `unsupervised_TU/aug.py`) and the kinds each draws from, in that order.
    const CHOICES: &'static [(&'static str, &'static [AugKind])] = {
        use AugKind::*;
        &[
            ("random2", &[NodeDrop, Subgraph]),
            ("random3", &[NodeDrop, Subgraph, EdgeDrop]),
            ("random4", &[NodeDrop, Subgraph, EdgeDrop, Mask]),
            ("random2-1hop", &[NodeDrop, Subgraph1Hop]),
        ]
    };

    /// Every name a config may write (each choice, each kind's first word), for messages.
    fn expected() -> String {
        let names: Vec<&str> = Self::CHOICES
            .iter()
            .map(|(name, _)| *name)
            .chain(AugKind::WORDS.iter().map(|(_, words)| words[0]))
            .collect();
        format!("{}, or kinds joined by '+'", names.join(", "))
    }
}

impl std::str::FromStr for AugName {
    type Err = Error;
    fn from_str(s: &str) -> Result<AugName> {
        let policy = match Self::CHOICES.iter().find(|(name, _)| *name == s) {
            Some((_, kinds)) => AugPolicy::Choice(kinds.to_vec()),
            None => AugPolicy::Compose(
                s.split('+')
                    .map(|word| {
                        let word = word.trim();
                        AugKind::from_word(word).ok_or_else(|| {
                            bad(
                                "augment.name",
                                magcl_config::settings::UnknownName {
                                    what: "augmentation",
                                    name: word.into(),
                                    expected: Self::expected(),
                                },
                            )
                        })
                    })
                    .collect::<Result<_>>()?,
            ),
        };
        Ok(AugName {
            written: s.to_string(),
            policy,
        })
    }
}

crate::params::text_setting!(AugName, as_str);
