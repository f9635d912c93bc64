//! Experiments: resolved run configs and presets ([`config`], [`presets`]), running one
//! config end to end ([`run`]).
pub mod config;
pub mod presets;
pub mod run;

pub use config::{GinMode, MaConfig, MethodName, RunConfig, RunSpec, Task};
pub use run::{run, RunOptions, RunOutcome, RunRecord};
