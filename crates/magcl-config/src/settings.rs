//! Settings a run's configuration holds that both sides read: the trainers build runs from
//! them, the reports read result rows through them (a row's `node.preset`, `node.split`,
//! `pretrain`), so a word a report meets is the word a trainer wrote, checked alike. The
//! loss section (`InfoNceParams`) lives here too, so its written-only-when-set field is
//! tested against the schema's table without the trainers.
//!
//! [`word_setting!`](crate::word_setting) declares a setting that takes one of a few
//! words; the trainers declare theirs with it too (`gca.scheme`, `ma.reading`, …).
use serde::{Deserialize, Serialize};

use crate::params::ParamGuard;

/// A setting with a value it cannot take: `field` as a configuration spells it
/// (`node.split`), `msg` what was wrong and what it takes. Shown as `field: msg`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingError {
    pub field: String,
    pub msg: String,
}

impl SettingError {
    pub fn new(field: &str, msg: impl std::fmt::Display) -> SettingError {
        SettingError {
            field: field.into(),
            msg: msg.to_string(),
        }
    }
}

impl std::fmt::Display for SettingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.msg)
    }
}

impl std::error::Error for SettingError {}

/// A name that is none of those known (an MA mode, reading or constraint set): `what` it
/// names, the `name` given and the names `expected`. Shown as `unknown WHAT 'NAME':
/// expected …`; the trainers' error type keeps the three fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    pub what: &'static str,
    pub name: String,
    pub expected: String,
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown {} '{}': expected {}",
            self.what, self.name, self.expected
        )
    }
}

impl std::error::Error for UnknownName {}

#[doc(hidden)]
pub use serde as __serde;

/// `Display` and serde for a setting written as text: `text_setting!(T, as_str)` writes
/// `T` as what `as_str` returns and reads it through `T`'s `FromStr`, so a bad value is
/// refused when the config is read, with that error's text. [`word_setting!`](crate::word_setting) uses it for
/// its enums; the trainers for settings that keep the text a config wrote beside what it
/// parses to (the config hash is taken over the text: `features`, `augment.name`).
#[macro_export]
macro_rules! text_setting {
    ($name:ty, $text:ident) => {
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.$text())
            }
        }

        impl $crate::settings::__serde::Serialize for $name {
            fn serialize<S: $crate::settings::__serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.$text())
            }
        }

        impl<'de> $crate::settings::__serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::settings::__serde::Deserializer<'de>>(
                d: D,
            ) -> std::result::Result<Self, D::Error> {
                let text = <String as $crate::settings::__serde::Deserialize>::deserialize(d)?;
                text.parse()
                    .map_err(<D::Error as $crate::settings::__serde::de::Error>::custom)
            }
        }
    };
}

/// Declares a setting that takes one of a few words (`gca.scheme = "degree"`) as an enum
/// with `FromStr`, `Display` and serde. It is written as its word, so a config reads and
/// hashes as it did when the setting was a string; a word that is none of them (matched
/// exactly, as the string settings were) is a [`SettingError`](crate::settings::SettingError)
/// naming the field and the words.
#[macro_export]
macro_rules! word_setting {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident in $field:literal {
            $($(#[$vmeta:meta])* $variant:ident = $word:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in the order the setting's messages list them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The word a config writes.
            pub const fn word(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::settings::SettingError;
            fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
                match s {
                    $($word => Ok($name::$variant),)+
                    _ => Err($crate::settings::SettingError::new(
                        $field,
                        format!("expected {}, got '{s}'", [$($word),+].join(", ")),
                    )),
                }
            }
        }

        $crate::text_setting!($name, word);
    };
}

word_setting! {
    /// The reading a node-level method's settings follow (`node.preset`).
    pub enum NodeReading in "node.preset" {
        /// The released code.
        Code = "code",
        /// The paper.
        Paper = "paper",
    }
}

word_setting! {
    /// The evaluation split of a node-level run (`node.split`).
    pub enum NodeSplit in "node.split" {
        /// The Planetoid public split.
        Public = "public",
        /// The public split as the released `pGRACE/eval.py` unpacks it (`train, test,
        /// val`): the 500 validation nodes are the test set and the 1000 test nodes choose
        /// the classifier's step.
        PublicSwapped = "public-swapped",
        /// 10/10/80 from the seed.
        Random = "random",
    }
}

/// The pre-training subset of a graph-level run (a config's `pretrain` section, written —
/// and so hashed — only when set; docs/methods.md, "Pre-training subsets"): the encoder
/// trains on `graphs` graphs drawn at random from the dataset and is evaluated on every
/// graph, with the folds of a whole-set run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pretrain {
    /// How many graphs the encoder trains on; unset: every graph of the dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graphs: Option<usize>,
    /// Train for as many gradient steps as the whole-set run makes (its epochs × its
    /// batches per epoch) instead of for the preset's epochs over the subset; the last
    /// epoch stops when the count is reached.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub match_steps: bool,
}

impl Pretrain {
    /// The config section it is written under.
    pub const SECTION: &'static str = "pretrain";

    /// Whether nothing is set (the whole set, the preset's epochs): then the config
    /// leaves the section out, and its hash is what it was before the section existed.
    pub fn is_unset(&self) -> bool {
        self.graphs.is_none() && !self.match_steps
    }
}

/// The contrastive loss family (docs/methods.md, "The engine"): a config's `loss` section.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InfoNceParams {
    pub temperature: f64,
    /// Whether the positive pair appears in the denominator.
    pub positive_in_denominator: bool,
    /// Average of both directions (view 1 → view 2 and back) instead of one way.
    pub symmetric: bool,
    /// Add intra-view negatives to the denominator.
    pub intra_view_negatives: bool,
    /// Keep the inter-view negatives (the other view's non-matching rows) in the
    /// denominator: true everywhere by default. False with `intra_view_negatives` true
    /// leaves the intra-view negatives alone (the paper's "only intra-view modeling" read
    /// literally; docs/citeseer.md). Written into the config only when false, so configs
    /// and hashes from before the switch existed stay as they were
    /// ([`schema::WRITTEN_ONLY_WHEN_SET`](crate::schema::WRITTEN_ONLY_WHEN_SET)).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub inter_view_negatives: bool,
    /// Apply the projection head before the loss.
    pub projector: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl InfoNceParams {
    /// The config section it is written under.
    pub const SECTION: &'static str = "loss";

    /// The graph-level loss of GraphCL's code, which SimGRACE and AD-GCL share: NT-Xent at
    /// T = 0.2, the positive left out of the denominator, inter-view negatives only, with
    /// the projection head; one way (anchor → candidates) unless `symmetric`.
    pub fn graph_level(symmetric: bool) -> InfoNceParams {
        InfoNceParams {
            temperature: 0.2,
            positive_in_denominator: false,
            symmetric,
            intra_view_negatives: false,
            inter_view_negatives: true,
            projector: true,
        }
    }

    /// Why the loss would have no negatives at all (neither inter- nor intra-view ones:
    /// the loss is then zero or undefined, whatever the embeddings), or `None`.
    pub fn missing_negatives(&self) -> Option<String> {
        (!self.inter_view_negatives && !self.intra_view_negatives).then(|| {
            "with neither inter- nor intra-view negatives the loss has no negatives (it is \
             constant): set loss.intra_view_negatives = true (the intra-view reading) or \
             loss.inter_view_negatives = true"
                .to_string()
        })
    }
}

/// What a result row's configuration says of its node-level evaluation (its `node`
/// section, read leniently: the section's other fields are the trainers' business, and
/// a graph-level row has none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct RowNode {
    #[serde(default)]
    pub preset: Option<NodeReading>,
    #[serde(default)]
    pub split: Option<NodeSplit>,
}

impl ParamGuard for InfoNceParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        if let Some(msg) = self.missing_negatives() {
            return Err(SettingError::new("loss.inter_view_negatives", msg));
        }
        if self.temperature.is_nan() || self.temperature <= 0.0 {
            return Err(SettingError::new(
                "loss.temperature",
                format!("must be positive, got {}", self.temperature),
            ));
        }
        Ok(())
    }
}

/// The smallest pre-training subset: one batch of two graphs (a batch of one graph has
/// no negative and is dropped, the trainers' `epoch_batches`).
pub const MIN_PRETRAIN_GRAPHS: usize = 2;

impl ParamGuard for Pretrain {
    /// What can be checked without the dataset; the upper bound (the dataset's size) is
    /// checked by the trainers' `TrainPlan::new`.
    fn check_ref(&self) -> Result<(), SettingError> {
        match self.graphs {
            Some(n) if n < MIN_PRETRAIN_GRAPHS => Err(SettingError::new(
                "pretrain.graphs",
                format!(
                    "must be at least {MIN_PRETRAIN_GRAPHS} (a contrastive batch needs \
                     another graph as its negative), got {n}; leave it unset to train on \
                     every graph"
                ),
            )),
            None if self.match_steps => Err(SettingError::new(
                "pretrain.match_steps",
                "applies to a subset: set pretrain.graphs too (a whole-set run already makes \
                 the whole-set run's steps)",
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words round-trip through FromStr, Display and serde; a wrong word names the
    /// field and every word it takes.
    #[test]
    fn words_round_trip_and_wrong_words_name_the_field() {
        for s in NodeSplit::ALL {
            assert_eq!(s.word().parse::<NodeSplit>(), Ok(*s));
            assert_eq!(s.to_string(), s.word());
            let json = serde_json::to_string(s).unwrap();
            assert_eq!(serde_json::from_str::<NodeSplit>(&json).unwrap(), *s);
        }
        let e = "Public".parse::<NodeSplit>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "node.split: expected public, public-swapped, random, got 'Public'"
        );
        let e = serde_json::from_str::<NodeReading>("\"papers\"").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("node.preset: expected code, paper, got 'papers'"),
            "{e}"
        );
    }

    /// A row's node section: the two fields typed, the others ignored; none is the
    /// default.
    #[test]
    fn row_node_reads_preset_and_split_only() {
        let n: RowNode =
            serde_json::from_str(r#"{"preset":"paper","split":"random","eval_k":1}"#).unwrap();
        assert_eq!(n.preset, Some(NodeReading::Paper));
        assert_eq!(n.split, Some(NodeSplit::Random));
        assert_eq!(
            serde_json::from_str::<RowNode>("{}").unwrap(),
            RowNode::default()
        );
        assert!(serde_json::from_str::<RowNode>(r#"{"split":"randomly"}"#).is_err());
    }

    /// The schema's table of fields written only when they leave their default agrees
    /// with the loss section's type: a row without `inter_view_negatives` reads as true,
    /// and true is left out when written.
    #[test]
    fn loss_section_agrees_with_the_schema_table() {
        let (_, _, default) = crate::schema::WRITTEN_ONLY_WHEN_SET
            .iter()
            .find(|(section, field, _)| {
                *section == InfoNceParams::SECTION && *field == "inter_view_negatives"
            })
            .expect("listed");
        assert_eq!(*default, crate::schema::DefaultValue::Bool(true));
        let old = r#"{"temperature":0.2,"positive_in_denominator":false,"symmetric":false,"intra_view_negatives":false,"projector":true}"#;
        let p: InfoNceParams = serde_json::from_str(old).unwrap();
        assert_eq!(p, InfoNceParams::graph_level(false));
        assert_eq!(serde_json::to_string(&p).unwrap(), old);
        let off = InfoNceParams {
            inter_view_negatives: false,
            intra_view_negatives: true,
            ..p.clone()
        };
        assert!(serde_json::to_string(&off)
            .unwrap()
            .contains(r#""inter_view_negatives":false"#));
        assert!(p.missing_negatives().is_none());
        assert!(InfoNceParams {
            intra_view_negatives: false,
            ..off
        }
        .missing_negatives()
        .is_some());
    }

    /// Unset writes nothing; set fields only are written; unknown fields are refused.
    #[test]
    fn pretrain_writes_only_what_is_set() {
        assert!(Pretrain::default().is_unset());
        assert_eq!(serde_json::to_string(&Pretrain::default()).unwrap(), "{}");
        let p = Pretrain {
            graphs: Some(64),
            match_steps: false,
        };
        assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"graphs":64}"#);
        assert!(serde_json::from_str::<Pretrain>(r#"{"graph":64}"#).is_err());
    }
}
