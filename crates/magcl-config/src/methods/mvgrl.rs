//! MVGRL (Hassani & Khasahmadi, ICML 2020), graph level.
use crate::method::{Level, MethodDecl};

/// MVGRL's graph-level code feeds node attributes where the set has them, else one-hot
/// labels beside a one-hot degree up to the largest degree, else that degree.
pub const DECL: MethodDecl =
    MethodDecl::new("mvgrl", "MVGRL", &[Level::Graph]).features("attributes-else-degree", "mvgrl");
