//! The Weisfeiler–Lehman subtree kernel (Shervashidze et al., JMLR 2011): a graph-level
//! floor.
use crate::method::{Level, MethodDecl, Role};

pub const DECL: MethodDecl = MethodDecl::new("wl", "WL subtree kernel", &[Level::Graph])
    .aliases(&["wl-subtree", "weisfeiler-lehman"])
    .role(Role::Classical {
        level: Level::Graph,
        dashed: false,
    })
    .features("auto", "graphcl")
    .colour((44, 160, 44));
