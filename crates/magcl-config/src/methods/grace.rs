//! GRACE (Zhu et al., 2020).
use crate::method::{Level, MethodDecl};

pub const DECL: MethodDecl = MethodDecl::new("grace", "GRACE", &[Level::Node]);
