//! BGRL (Thakoor et al., ICLR 2022).
use crate::method::{Level, MethodDecl};

pub const DECL: MethodDecl = MethodDecl::new("bgrl", "BGRL", &[Level::Node]);
