//! SimGRACE (Xia et al., WWW 2022).
use crate::method::{Level, MethodDecl, Shorthand, ShorthandValue};

/// SimGRACE's code builds its data as GraphCL's does.
pub const DECL: MethodDecl = MethodDecl::new("simgrace", "SimGRACE", &[Level::Graph])
    .features("auto", "graphcl")
    .shorthands(&[Shorthand {
        flag: "eta",
        setting: "simgrace.eta",
        value: ShorthandValue::Number,
        help: "SimGRACE's perturbation strength η (`simgrace.eta`)",
    }])
    .colour((255, 127, 14));
