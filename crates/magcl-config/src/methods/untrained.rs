//! The untrained encoder of a method: the floor paired with it by seed. Its rows are
//! labelled `untrained-METHOD` and shown as "METHOD, untrained".
use crate::method::{Level, MethodDecl, Role, Shorthand, ShorthandValue};

pub const DECL: MethodDecl =
    MethodDecl::new("untrained", "untrained", &[Level::Graph, Level::Node])
        .aliases(&["random-init"])
        .role(Role::Untrained)
        .shorthands(&[Shorthand {
            flag: "of",
            setting: "untrained.of",
            value: ShorthandValue::Word,
            help: "With --method untrained: the method whose encoder is left untrained \
                   (graphcl, simgrace, adgcl, …; base at node level); its preset and \
                   evaluation protocol apply (`untrained.of`)",
        }]);
