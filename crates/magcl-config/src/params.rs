//! Parameters and their checks, without tensors: the pattern every stage's parameters
//! follow, and the method sections of a configuration.
//!
//! Each stage owns the parameters it runs on, beside its code (the loss, model
//! augmentation, the encoder, the augmentations, each method's own section). A stage's
//! `check` validates its values once and returns them as [`Checked`], which is what the
//! stage's constructors accept (linfa's params → checked params). A check's error is a
//! [`SettingError`] naming the field as a configuration spells it; the trainers' error type
//! converts it with the same field and text.
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::settings::SettingError;

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
    fn check_ref(&self) -> Result<(), SettingError>;

    /// The parameters, checked.
    fn check(self) -> Result<Checked<Self>, SettingError> {
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
    #[doc(hidden)]
    pub fn checked_by_parent(part: T) -> Checked<T> {
        Checked(part)
    }
}

impl<T> Deref for Checked<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A setting's error raised while reading a section's JSON: a field's own error keeps its
/// field (`gca.scheme: expected …`, from [`word_setting`]), anything else (an unknown or
/// missing field, a wrong type) is the section's; serde's position suffix is left out.
fn section_error(key: &str, e: serde_json::Error) -> SettingError {
    let text = e.to_string();
    let text = match e.line() {
        0 => text.as_str(),
        _ => text
            .rsplit_once(" at line ")
            .map_or(text.as_str(), |(m, _)| m),
    };
    match text.split_once(": ") {
        Some((field, msg)) if field.starts_with(key) && field[key.len()..].starts_with('.') => {
            SettingError::new(field, msg)
        }
        _ => SettingError::new(key, text),
    }
}

/// Checks `0 ≤ v ≤ 1` for a ratio.
pub fn check_ratio(field: &str, v: f64) -> Result<(), SettingError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(SettingError::new(
            field,
            format!("ratio must lie in [0, 1], got {v}"),
        ))
    }
}

/// Checks `v ≤ max` for a size.
pub fn check_size(field: &str, v: usize, max: usize) -> Result<(), SettingError> {
    if v > max {
        Err(SettingError::new(
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
    pub check: fn(&serde_json::Value) -> Result<(), SettingError>,
    /// The value as the section's type writes it: its fields in declaration order,
    /// defaults of fields it lacks filled in.
    pub canonical: fn(&serde_json::Value) -> Result<String, SettingError>,
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

fn check_section<T: Section>(v: &serde_json::Value) -> Result<(), SettingError> {
    T::deserialize(v)
        .map_err(|e| section_error(T::KEY, e))?
        .check_ref()
}

fn canonical_section<T: Section>(v: &serde_json::Value) -> Result<String, SettingError> {
    let t = T::deserialize(v).map_err(|e| section_error(T::KEY, e))?;
    serde_json::to_string(&t).map_err(|e| SettingError::new(T::KEY, e))
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
    pub fn get<T: Section>(&self) -> Result<Option<Checked<T>>, SettingError> {
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
    pub fn require<T: Section>(&self, method: &str) -> Result<Checked<T>, SettingError> {
        self.get::<T>()?.ok_or_else(|| {
            SettingError::new(
                T::KEY,
                format!(
                    "{method} needs its `{}` settings in the configuration",
                    T::KEY
                ),
            )
        })
    }
    /// Sets section `T` (replacing one there).
    pub fn set<T: Section>(&mut self, value: &T) -> Result<(), SettingError> {
        let raw =
            serde_json::value::to_raw_value(value).map_err(|e| SettingError::new(T::KEY, e))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Width(usize);
    impl ParamGuard for Width {
        fn check_ref(&self) -> Result<(), SettingError> {
            check_size("hidden", self.0, MAX_WIDTH)
        }
    }

    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Knob {
        rate: f64,
        #[serde(default)]
        steps: usize,
    }
    impl Section for Knob {
        const KEY: &'static str = "knob";
    }
    impl ParamGuard for Knob {
        fn check_ref(&self) -> Result<(), SettingError> {
            check_ratio("knob.rate", self.rate)
        }
    }

    #[test]
    fn checked_params_come_only_from_a_passing_check() {
        assert_eq!(Width(32).check().unwrap().0 .0, 32);
        let e = Width(MAX_WIDTH + 1).check().unwrap_err();
        assert_eq!(e.field, "hidden");
        assert!(e.msg.contains("limit"), "{e}");
        assert!(check_ratio("augment.mask", 0.5).is_ok());
        assert!(check_ratio("augment.mask", 1.0).is_ok());
        let e = check_ratio("augment.mask", 1.5).unwrap_err();
        assert_eq!(
            e.to_string(),
            "augment.mask: ratio must lie in [0, 1], got 1.5"
        );
    }

    #[test]
    fn a_method_table_reads_its_sections_typed_checked_and_canonical() {
        let mut t = MethodTable::default();
        assert!(t.get::<Knob>().unwrap().is_none());
        let e = t.require::<Knob>("toy").unwrap_err();
        assert_eq!(
            e.to_string(),
            "knob: toy needs its `knob` settings in the configuration"
        );
        t.set(&Knob {
            rate: 0.5,
            steps: 3,
        })
        .unwrap();
        assert!(t.contains("knob"));
        assert_eq!(t.require::<Knob>("toy").unwrap().steps, 3);
        assert_eq!(t.keys().collect::<Vec<_>>(), ["knob"]);

        // Read from a config: a bad value is the field's error, an unknown field the
        // section's; a missing defaulted field is filled in when written canonically.
        let read = |json: &str| -> MethodTable { serde_json::from_str(json).unwrap() };
        let e = read(r#"{"knob": {"rate": 2.0}}"#)
            .get::<Knob>()
            .unwrap_err();
        assert_eq!(e.field, "knob.rate");
        let e = read(r#"{"knob": {"rate": 0.1, "speed": 1}}"#)
            .get::<Knob>()
            .unwrap_err();
        assert_eq!(e.field, "knob");
        assert!(e.msg.contains("unknown field `speed`"), "{e}");
        let mut c = read(r#"{"knob": {"rate": 0.25}, "other": {"b": 1, "a": 2}}"#);
        c.canonicalise(|k| (k == "knob").then(section::<Knob>));
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"knob":{"rate":0.25,"steps":0},"other":{"a":2,"b":1}}"#
        );
        assert!((section::<Knob>().check)(&serde_json::json!({"rate": -1.0})).is_err());
        assert!(t.remove("knob") && !t.remove("knob"));
        assert_eq!(t, MethodTable::default());
    }
}
