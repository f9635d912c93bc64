//! Experiments: resolved run configs and presets ([`config`], [`presets`]), running one
//! config end to end ([`mod@run`]).
pub mod checkpoint;
pub mod config;
pub mod device;
#[cfg(test)]
mod differential;
pub mod pool;
pub mod presets;
pub mod results;
pub mod run;
pub mod sweep;

pub use config::{FeatureSetting, GinMode, MaParams, MethodName, RunConfig, RunSpec, Task};
pub use run::{run, RunOptions, RunOutcome, RunRecord};
