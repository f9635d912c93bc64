//! InfoGraph (Sun et al., ICLR 2020), in the GraphCL/MA-GCL pipeline.
use crate::method::{Level, MethodDecl};

pub const DECL: MethodDecl =
    MethodDecl::new("infograph", "InfoGraph", &[Level::Graph]).features("auto", "graphcl");
