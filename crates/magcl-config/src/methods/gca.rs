//! GCA (Zhu et al., WWW 2021).
use crate::method::{Level, MethodDecl};

pub const DECL: MethodDecl = MethodDecl::new("gca", "GCA", &[Level::Node]);
