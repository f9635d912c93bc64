//! JOAOv2 (You et al., ICML 2021).
use crate::method::{Level, MethodDecl};

pub const DECL: MethodDecl =
    MethodDecl::new("joaov2", "JOAOv2", &[Level::Graph]).features("auto", "graphcl");
