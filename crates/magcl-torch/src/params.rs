//! Parameters and their checks.
//!
//! Each stage owns the parameters it runs on, beside its code: the loss
//! (`loss::InfoNceParams`), model augmentation (`ma::MaParams`), the GIN encoder
//! (`nn::GinParams`), the augmentations (`augment::AugParams`) and each method
//! (`methods::MethodParams` and the method-specific ones beside each method). This module
//! depends on none of them. A stage's `check` validates its values once and returns them as [`Checked`],
//! which is what the stage's constructors accept (linfa's params → checked params). The
//! experiment layer only composes stages' parameters into one run's configuration.
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Graph- or node-level task (declared in magcl-config, which the reports read too).
pub use magcl_config::Level as Task;

/// Size limits: far beyond every published setting (hidden ≤ 512, ≤ 5 layers, ≤ 2000
/// epochs), and small enough that a typo such as `--hidden 100000000` is refused up front
/// instead of failing inside an allocation.
pub const MAX_WIDTH: usize = 16_384;
/// Layers, propagations per layer (MA ranges, `base_k`, `eval_k`).
pub const MAX_DEPTH: usize = 64;
pub const MAX_EPOCHS: usize = 1_000_000;
pub const MAX_BATCH_SIZE: usize = 1 << 20;
pub const MAX_RESTARTS: usize = 10_000;

/// Parameters that can be checked into [`Checked`] parameters.
pub trait ParamGuard: Sized {
    /// Checks every value; the error names the field as a configuration spells it
    /// (e.g. `ma.pi: must lie in [0, 1], got 2`).
    fn check_ref(&self) -> Result<()>;

    /// The parameters, checked.
    fn check(self) -> Result<Checked<Self>> {
        self.check_ref()?;
        Ok(Checked(self))
    }
}

/// Parameters that passed their [`ParamGuard::check`]; read through `Deref`.
#[derive(Clone, Debug)]
pub struct Checked<T>(T);

impl<T> Checked<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
    /// A part of parameters whose own check covered this part's (a composite's
    /// `check_ref` calls its parts' checks), handed out checked without checking again.
    pub(crate) fn checked_by_parent(part: T) -> Checked<T> {
        Checked(part)
    }
}

impl<T> Deref for Checked<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A configuration error for `field`.
pub fn bad(field: &str, msg: impl std::fmt::Display) -> Error {
    Error::Setting {
        field: field.into(),
        msg: msg.to_string(),
    }
}

/// A setting's error raised while reading a section's JSON: a field's own error keeps its
/// field (`gca.scheme: expected …`, from [`word_setting`]), anything else (an unknown or
/// missing field, a wrong type) is the section's; serde's position suffix is left out.
fn section_error(key: &str, e: serde_json::Error) -> Error {
    let text = e.to_string();
    let text = match e.line() {
        0 => text.as_str(),
        _ => text
            .rsplit_once(" at line ")
            .map_or(text.as_str(), |(m, _)| m),
    };
    match text.split_once(": ") {
        Some((field, msg)) if field.starts_with(key) && field[key.len()..].starts_with('.') => {
            bad(field, msg)
        }
        _ => bad(key, text),
    }
}

/// Word settings (`gca.scheme = "degree"`) are declared with magcl-config's macro, whose
/// `FromStr` error ([`SettingError`](magcl_config::settings::SettingError)) becomes this crate's [`Error::Setting`].
pub(crate) use magcl_config::word_setting;

/// `Display` and serde for a setting kept as the text a config wrote (its `as_str`, over
/// which the config hash is taken) beside what that text parses to
/// ([`FeatureSetting`], `augment::AugName`): magcl-config's `text_setting!`.
pub(crate) use magcl_config::text_setting;

/// Checks `0 ≤ v ≤ 1` for a ratio.
pub fn check_ratio(field: &str, v: f64) -> Result<()> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(bad(field, format!("ratio must lie in [0, 1], got {v}")))
    }
}

/// Checks `v ≤ max` for a size.
pub fn check_size(field: &str, v: usize, max: usize) -> Result<()> {
    if v > max {
        Err(bad(
            field,
            format!(
                "{v} is larger than the limit of {max} (no run of this size fits in memory or finishes)"
            ),
        ))
    } else {
        Ok(())
    }
}

/// A method's own hyper-parameters: one section of a run's configuration, under `KEY`
/// (`simgrace = { eta = 1.0 }`). The method's registry entry lists its sections
/// ([`SectionSpec`]); a configuration holds them in its [`MethodTable`], and the method
/// reads them back typed and checked with [`MethodTable::get`].
pub trait Section: Serialize + serde::de::DeserializeOwned + ParamGuard + Clone {
    /// The section's name in a configuration.
    const KEY: &'static str;
}

/// A [`Section`] as the method registry knows it: its key and how to read a value of it.
#[derive(Clone, Copy)]
pub struct SectionSpec {
    pub key: &'static str,
    /// Reads the value as the section's type and checks it ([`ParamGuard`]).
    pub check: fn(&serde_json::Value) -> Result<()>,
    /// The value as the section's type writes it: its fields in declaration order,
    /// defaults of fields it lacks filled in.
    pub canonical: fn(&serde_json::Value) -> Result<String>,
}

impl std::fmt::Debug for SectionSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SectionSpec({})", self.key)
    }
}

/// The [`SectionSpec`] of `T`.
pub const fn section<T: Section>() -> SectionSpec {
    SectionSpec {
        key: T::KEY,
        check: check_section::<T>,
        canonical: canonical_section::<T>,
    }
}

fn check_section<T: Section>(v: &serde_json::Value) -> Result<()> {
    T::deserialize(v)
        .map_err(|e| section_error(T::KEY, e))?
        .check_ref()
}

fn canonical_section<T: Section>(v: &serde_json::Value) -> Result<String> {
    let t = T::deserialize(v).map_err(|e| section_error(T::KEY, e))?;
    Ok(serde_json::to_string(&t)?)
}

type Raw = Box<serde_json::value::RawValue>;

/// The method sections of a configuration, by key: the hyper-parameters that belong to
/// one method rather than to a shared stage. A configuration's JSON holds each section
/// at its top level under its key, in key order, each written as its type writes it, so
/// a method's settings read and hash the same whichever other methods exist.
#[derive(Clone, Debug, Default)]
pub struct MethodTable(std::collections::BTreeMap<String, Raw>);

impl PartialEq for MethodTable {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(other.0.iter())
                .all(|((k, a), (l, b))| k == l && a.get() == b.get())
    }
}

impl MethodTable {
    /// The section `T`, read and checked; `None` when the configuration has no such section.
    pub fn get<T: Section>(&self) -> Result<Option<Checked<T>>> {
        self.0
            .get(T::KEY)
            .map(|v| {
                serde_json::from_str::<T>(v.get())
                    .map_err(|e| section_error(T::KEY, e))?
                    .check()
            })
            .transpose()
    }
    /// The section `T`, which `method` needs: an error naming both when it is missing.
    pub fn require<T: Section>(&self, method: &str) -> Result<Checked<T>> {
        self.get::<T>()?.ok_or_else(|| {
            bad(
                T::KEY,
                format!(
                    "{method} needs its `{}` settings in the configuration",
                    T::KEY
                ),
            )
        })
    }
    /// Sets section `T` (replacing one there).
    pub fn set<T: Section>(&mut self, value: &T) -> Result<()> {
        let raw = serde_json::value::to_raw_value(value)?;
        self.0.insert(T::KEY.into(), raw);
        Ok(())
    }
    /// Removes the section `key`, if there; whether it was.
    pub fn remove(&mut self, key: &str) -> bool {
        self.0.remove(key).is_some()
    }
    /// Whether the section `key` is there.
    pub fn contains(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }
    /// The section keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
    /// The value of section `key`.
    pub fn value(&self, key: &str) -> Option<serde_json::Value> {
        self.0
            .get(key)
            .and_then(|r| serde_json::from_str(r.get()).ok())
    }
    /// Rewrites every section `spec` knows as its type writes it
    /// ([`SectionSpec::canonical`]); sections it does not know, or cannot read, stay as
    /// they are (the configuration's check reports them).
    pub fn canonicalise(&mut self, spec: impl Fn(&str) -> Option<SectionSpec>) {
        for (key, raw) in self.0.iter_mut() {
            let Some(s) = spec(key) else { continue };
            let Ok(v) = serde_json::from_str::<serde_json::Value>(raw.get()) else {
                continue;
            };
            if let Ok(text) = (s.canonical)(&v) {
                if let Ok(r) = serde_json::value::RawValue::from_string(text) {
                    *raw = r;
                }
            }
        }
    }
}

impl Serialize for MethodTable {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for MethodTable {
    /// Reads every value (a flattened map hands them over buffered, where raw text is not
    /// available) and keeps it as JSON text; [`MethodTable::canonicalise`] then writes the
    /// known sections as their types do.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let values: std::collections::BTreeMap<String, serde_json::Value> =
            Deserialize::deserialize(d)?;
        values
            .into_iter()
            .map(|(k, v)| {
                serde_json::value::to_raw_value(&v)
                    .map(|r| (k, r))
                    .map_err(serde::de::Error::custom)
            })
            .collect::<std::result::Result<_, _>>()
            .map(MethodTable)
    }
}

// Serde helpers for settings written into a config only when they leave their default
// (so that configs and hashes from before the setting existed stay as they were).
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
pub(crate) fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The `features` setting: the text a config writes, and the rule it stands for
/// ([`magcl_data::features::FeatureSpec`]). The text is kept as written, because the config
/// hash is taken over it: a method's word (`graphcl`, `adgcl`, `mvgrl`, hash version 1)
/// stands for the rule the method declares (`auto`, `constant`,
/// `attributes-else-degree`), and node-level configs write `row-normalised`. Reading checks
/// the text, so a misspelt rule is refused when the config is read, before any data loads;
/// whether the dataset can provide the kind is checked when its features are built.
#[derive(Clone, Debug, PartialEq)]
pub struct FeatureSetting {
    written: String,
    spec: magcl_data::features::FeatureSpec,
}

impl FeatureSetting {
    /// The rule a method declares ([`magcl_config::FeatureRule`]), written in its word;
    /// `auto` where it declares none. A declaration whose spec does not parse is a bug in
    /// the declaration (every registered one is tested to parse).
    pub fn declared(rule: Option<magcl_config::FeatureRule>) -> FeatureSetting {
        match rule {
            None => FeatureSetting {
                written: "auto".into(),
                spec: magcl_data::features::FeatureSpec::Auto,
            },
            Some(r) => FeatureSetting {
                written: r.written.into(),
                spec: r.spec.parse().unwrap_or_else(|e| {
                    panic!("declared feature rule {:?} does not parse: {e}", r.spec)
                }),
            },
        }
    }
    /// The node level's input: each node's features scaled to sum 1.
    pub fn row_normalised() -> FeatureSetting {
        let spec = magcl_data::features::FeatureSpec::RowNormalised;
        FeatureSetting {
            written: spec.to_string(),
            spec,
        }
    }
    /// The rule it stands for.
    pub fn spec(&self) -> magcl_data::features::FeatureSpec {
        self.spec
    }
    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }
}

impl std::str::FromStr for FeatureSetting {
    type Err = Error;
    /// A rule, a kind, or a method's word for the rule it declares (case-insensitive).
    fn from_str(s: &str) -> Result<FeatureSetting> {
        let spec = magcl_config::registry::feature_spec(s).parse()?;
        Ok(FeatureSetting {
            written: s.to_string(),
            spec,
        })
    }
}

text_setting!(FeatureSetting, as_str);

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Width(usize);
    impl ParamGuard for Width {
        fn check_ref(&self) -> Result<()> {
            check_size("hidden", self.0, MAX_WIDTH)
        }
    }

    #[test]
    fn checked_params_come_only_from_a_passing_check() {
        assert_eq!(Width(32).check().unwrap().0 .0, 32);
        let e = Width(MAX_WIDTH + 1).check().unwrap_err().to_string();
        assert!(e.contains("hidden") && e.contains("limit"), "{e}");
        assert!(check_ratio("augment.mask", 0.5).is_ok());
        let e = check_ratio("augment.mask", 1.5).unwrap_err().to_string();
        assert!(
            e.starts_with("configuration") || e.contains("augment.mask"),
            "{e}"
        );
    }
}
