//! Neural building blocks (the paper's §3, "Notations and Preliminaries"; docs/methods.md,
//! "The engine").
//!
//! The paper reads a GNN encoder as a *schedule* of operators: propagation `g(Z) = F Z`
//! (no parameters) and transformation `h(Z) = σ(Z W)`. [`ops`] holds the propagation
//! operators, [`gin`] the graph-level GIN encoders whose layers follow a schedule
//! `K_1..K_N` (K = number of propagations of layer i; plain GIN is all ones), [`gcn`] the
//! node-level encoder of the MA-GCL base model, and [`mlp`] linear layers with the
//! initialisations the references use, and the projection head.
pub mod gcn;
pub mod gin;
pub mod mlp;
pub mod ops;
pub mod params;

pub use gin::{GinEncoder, GinStyle};
pub use mlp::{Init, Mlp, Projector, BN_MOMENTUM};
pub use params::{GinMode, GinParams};
