//! The untrained encoder of a method: the floor paired with it by seed. Its rows are
//! labelled `untrained-METHOD` and shown as "METHOD, untrained".
use crate::method::{Level, MethodDecl, Role};

pub const DECL: MethodDecl =
    MethodDecl::new("untrained", "untrained", &[Level::Graph, Level::Node])
        .aliases(&["random-init"])
        .role(Role::Untrained);
