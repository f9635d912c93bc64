//! Parameters and their checks, as the tensor side uses them.
//!
//! Each stage owns the parameters it runs on, beside its code: the loss
//! (`loss::InfoNceParams`), model augmentation (`ma::MaParams`), the GIN encoder
//! (`nn::GinParams`), the augmentations (`augment::AugParams`) and each method
//! (`methods::MethodParams` and the method-specific ones beside each method). A stage's
//! `check` validates its values once and returns them as [`Checked`], which is what the
//! stage's constructors accept (linfa's params → checked params). The experiment layer
//! only composes stages' parameters into one run's configuration.
//!
//! The pattern itself ([`ParamGuard`], [`Checked`]), the size limits, the range checks and
//! the method sections ([`Section`], [`MethodTable`]) are declared in the torch-free
//! magcl-config (`magcl_config::params`), where the reports read them too, and re-exported
//! here. A check returns a [`SettingError`] (field and message); this crate's error takes
//! it as [`Error::Setting`] with the same field and text.
use crate::error::Error;

/// Graph- or node-level task (declared in magcl-config, which the reports read too).
pub use magcl_config::Level as Task;

pub use magcl_config::params::{
    check_ratio, check_size, section, Checked, MethodTable, ParamGuard, Section, SectionSpec,
    MAX_BATCH_SIZE, MAX_DEPTH, MAX_EPOCHS, MAX_RESTARTS, MAX_WIDTH,
};
pub use magcl_config::preset::FeatureSetting;
pub use magcl_config::settings::SettingError;

/// A configuration error for `field`, as this crate's error ([`Error::Setting`]), for code
/// outside a check; a [`ParamGuard::check_ref`] returns a [`SettingError`] itself.
pub fn bad(field: &str, msg: impl std::fmt::Display) -> Error {
    SettingError::new(field, msg).into()
}

/// Word settings (`gca.scheme = "degree"`) are declared with magcl-config's macro, whose
/// `FromStr` error ([`SettingError`]) becomes this crate's [`Error::Setting`].
pub(crate) use magcl_config::word_setting;

/// `Display` and serde for a setting kept as the text a config wrote (its `as_str`, over
/// which the config hash is taken) beside what that text parses to
/// ([`FeatureSetting`], `augment::AugName`): magcl-config's `text_setting!`.
pub(crate) use magcl_config::text_setting;

// Serde helpers for settings written into a config only when they leave their default
// (so that configs and hashes from before the setting existed stay as they were).
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
pub(crate) fn is_zero(n: &usize) -> bool {
    *n == 0
}
