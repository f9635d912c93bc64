//! SimGRACE (Xia et al., WWW 2022).
use crate::method::{Level, MethodDecl};

/// SimGRACE's code builds its data as GraphCL's does.
pub const DECL: MethodDecl = MethodDecl::new("simgrace", "SimGRACE", &[Level::Graph])
    .features("auto", "graphcl")
    .colour((255, 127, 14));
