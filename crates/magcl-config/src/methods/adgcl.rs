//! AD-GCL (Suresh et al., NeurIPS 2021), with its learned augmenter or, as the MA-GCL
//! paper's COLLAB panel runs it, a fixed one.
use crate::method::{Level, MethodDecl, RowLabel, Shorthand, ShorthandValue};

pub const DECL: MethodDecl = MethodDecl::new("adgcl", "AD-GCL", &[Level::Graph])
    .aliases(&["ad-gcl"])
    // The AD-GCL code gives every node of every TU set the feature 1.
    .features("constant", "adgcl")
    .shorthands(&[Shorthand {
        flag: "augmenter",
        setting: "adgcl.augmenter",
        value: ShorthandValue::Word,
        help: "AD-GCL's augmenter: learned (AD-GCL) | fixed (edge dropping + attribute \
               masking; `adgcl.augmenter`)",
    }])
    .labels(&[RowLabel {
        label: "adgcl-fixed",
        aliases: &["ad-gcl-fixed"],
        display: "AD-GCL (fixed augmenter)",
        sets: &[("adgcl.augmenter", "fixed")],
        // The fixed augmenter changes the views, not the encoder.
        untrained: Some("untrained-adgcl"),
        colour: (148, 103, 189),
    }])
    .colour((214, 39, 40));
