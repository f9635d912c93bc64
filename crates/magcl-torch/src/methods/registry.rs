//! The methods magcl knows, by name.
//!
//! Each method is one [`MethodEntry`]: its name (and aliases), its levels, its own
//! configuration sections, presets and cost hint, and how to build it for a dataset. The built-in entries
//! are listed in [`BUILTIN`]; [`register`] adds one at run time (a plugin, or a test's toy
//! method). Adding a method to magcl is one new file under `methods/` that defines the
//! method and its `ENTRY`, plus its line in [`BUILTIN`].
use std::sync::RwLock;

pub use super::{BuildFn, MethodEntry};
use crate::error::{Error, Result};

/// The built-in methods.
pub static BUILTIN: &[&MethodEntry] = &[
    &super::graphcl::ENTRY,
    &super::simgrace::ENTRY,
    &super::adgcl::ENTRY,
    &super::infograph::ENTRY,
    &super::joaov2::ENTRY,
    &super::mvgrl::ENTRY,
    &super::base::ENTRY,
    &super::grace::ENTRY,
    &super::gca::ENTRY,
    &super::bgrl::ENTRY,
    &super::untrained::ENTRY,
    &super::wl::ENTRY,
    &super::degree::ENTRY,
    &super::features::ENTRY,
];

static REGISTERED: RwLock<Vec<&'static MethodEntry>> = RwLock::new(Vec::new());

/// Adds a method for the rest of the process. A name (or alias) already taken is refused.
pub fn register(entry: &'static MethodEntry) -> Result<()> {
    for word in std::iter::once(entry.name).chain(entry.aliases.iter().copied()) {
        if let Ok(e) = find(word) {
            return Err(Error::Config(format!(
                "method name '{word}' is already taken by {}",
                e.name
            )));
        }
    }
    REGISTERED
        .write()
        .map_err(|_| Error::Config("the method registry is unusable".into()))?
        .push(entry);
    // The reports find it by its declaration.
    magcl_config::registry::register(entry.decl);
    Ok(())
}

/// Every method: the built-in ones, then those registered.
pub fn all() -> Vec<&'static MethodEntry> {
    let mut v: Vec<&'static MethodEntry> = BUILTIN.to_vec();
    if let Ok(r) = REGISTERED.read() {
        v.extend(r.iter().copied());
    }
    v
}

/// The method named `name` (or one of its aliases), case-insensitively.
pub fn find(name: &str) -> Result<&'static MethodEntry> {
    let wanted = name.trim().to_ascii_lowercase();
    all()
        .into_iter()
        .find(|e| e.name == wanted || e.aliases.iter().any(|a| *a == wanted))
        .ok_or_else(|| {
            let names: Vec<&str> = all().iter().map(|e| e.name).collect();
            Error::from(magcl_config::settings::UnknownName {
                what: "method",
                name: name.into(),
                expected: format!("one of {} (base is the node-level model)", names.join(", ")),
            })
        })
}

/// The section `key` as the method that declares it reads it (the first such method).
pub fn section_spec(key: &str) -> Option<crate::params::SectionSpec> {
    all()
        .into_iter()
        .flat_map(|e| e.sections.iter())
        .find(|s| s.key == key)
        .copied()
}

/// The method a run at level `task` uses when none is named: the first built-in method
/// (not a baseline) of that level.
pub fn default_for(task: crate::params::Task) -> Result<&'static MethodEntry> {
    all()
        .into_iter()
        .find(|e| !e.baseline && e.supports(task))
        .ok_or_else(|| Error::Config(format!("no method runs at the {task:?} level")))
}

#[cfg(test)]
mod tests {
    /// Reports name, order and pair methods through magcl-config's declarations: every
    /// built-in method's declaration is listed there, and every declaration has a method.
    #[test]
    fn the_methods_and_the_declarations_are_the_same_list() {
        let mut methods: Vec<&str> = super::BUILTIN.iter().map(|e| e.name).collect();
        let mut declared: Vec<&str> = magcl_config::registry::BUILTIN
            .iter()
            .map(|d| d.name)
            .collect();
        for e in super::BUILTIN {
            assert!(
                magcl_config::registry::BUILTIN.contains(&e.decl),
                "{}: list its declaration in crates/magcl-config/src/registry.rs",
                e.name
            );
        }
        methods.sort();
        declared.sort();
        assert_eq!(methods, declared);
        assert_eq!(
            magcl_report::format::method_name("untrained-mvgrl"),
            "MVGRL, untrained"
        );
    }
}
