//! The MA-GCL paper's node-level base model; with MA on, MA-GCL.
use crate::method::{Level, MethodDecl};

pub const DECL: MethodDecl = MethodDecl::new("base", "Base model", &[Level::Node])
    .aliases(&["magcl", "ma-gcl", "node"])
    .keyed_by_preset()
    .node_rows_without_split()
    .colour((140, 86, 75));
