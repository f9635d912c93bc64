//! What magcl knows about each method apart from its tensor code, in one place both sides
//! read: the trainers (the root crate's `methods/`) and the reports (`magcl-report`).
//!
//! - [`MethodDecl`]: one method's declaration — its name and aliases, how reports show it,
//!   its levels, whether it is a floor and which, the input features it is fed, the row
//!   labels its variants write, its plot colour. One file per method under [`methods`].
//! - [`registry`]: the built-in declarations in report order, plus those registered at run
//!   time (a plugin's or a test's method), and lookups by name or row label.
//! - [`schema`]: how a result row's configuration is made comparable across magcl versions
//!   (fields added since rows were first written, and their defaults).
//! - [`settings`]: the settings both sides read through one type (`node.preset`,
//!   `node.split`, `pretrain`, the loss section), and [`word_setting!`] that declares a
//!   word setting.
//! - [`params`]: the checked-parameters pattern (`ParamGuard` → `Checked`), the size
//!   limits, and the method sections of a configuration (`Section`, `MethodTable`).
//! - [`preset`]: a method's settings as a configuration holds them (`Preset`, with the
//!   `features` setting).
//! - [`ma`]: model augmentation's settings (`MaParams`, the named readings of the paper).
//!
//! This crate has no tensor dependency: `magcl report` reads declarations without libtorch.
//! Adding a method is its declaration file here, its tensor file in the root crate's
//! `methods/`, and one line in each registry (docs/development.md, "Adding a method").
pub mod ma;
pub mod method;
pub mod methods;
pub mod params;
pub mod preset;
pub mod registry;
pub mod schema;
pub mod settings;

pub use method::{FeatureRule, Level, MethodDecl, Role, RowLabel, Shorthand, ShorthandValue};
