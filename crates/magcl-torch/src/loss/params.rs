//! The loss family's switches.

/// The contrastive loss family (the `loss` section), declared in the torch-free
/// magcl-config with the settings the reports read, beside its check (`ParamGuard`).
pub use magcl_config::settings::InfoNceParams;
