//! Raw node features with the logistic-regression probe: the node-level floor
//! (Veličković et al. 2019, Table 2, "Raw features").
use crate::method::{Level, MethodDecl, Role};

pub const DECL: MethodDecl = MethodDecl::new("features", "Raw features", &[Level::Node])
    .aliases(&["raw-features"])
    .role(Role::Classical {
        level: Level::Node,
        dashed: true,
    })
    .node_rows_without_split();
