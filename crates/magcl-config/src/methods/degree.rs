//! The degree histogram: a graph-level floor.
use crate::method::{Level, MethodDecl, Role};

pub const DECL: MethodDecl = MethodDecl::new("degree", "Degree histogram", &[Level::Graph])
    .aliases(&["degree-histogram"])
    .role(Role::Classical {
        level: Level::Graph,
        dashed: true,
    })
    .features("auto", "graphcl")
    .colour((110, 110, 110));
