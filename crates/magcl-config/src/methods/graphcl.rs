//! GraphCL (You et al., NeurIPS 2020).
use crate::method::{Level, MethodDecl};

pub const DECL: MethodDecl = MethodDecl::new("graphcl", "GraphCL", &[Level::Graph])
    // Its code feeds one-hot node labels where the set has them (PyG's TU loader leaves
    // attributes out unless asked), else x = 1: the `auto` rule.
    .features("auto", "graphcl")
    .colour((31, 119, 180));
