//! The declarations magcl knows: the built-in ones in [`BUILTIN`], in the order reports
//! list methods, then those registered at run time ([`register`]).
use std::sync::RwLock;

use crate::method::{Level, MethodDecl, Role, RowLabel, Shorthand};
use crate::methods;

/// The built-in declarations. Reports list GCL methods in this order, then the untrained
/// encoders in their method's order, then the classical floors in this order; a method
/// added later goes by its name after these (the methods after `base` are in name order,
/// so the order of every committed report stays as it was).
pub static BUILTIN: &[&MethodDecl] = &[
    &methods::graphcl::DECL,
    &methods::simgrace::DECL,
    &methods::adgcl::DECL,
    &methods::base::DECL,
    &methods::bgrl::DECL,
    &methods::gca::DECL,
    &methods::grace::DECL,
    &methods::infograph::DECL,
    &methods::joaov2::DECL,
    &methods::mvgrl::DECL,
    &methods::untrained::DECL,
    &methods::wl::DECL,
    &methods::degree::DECL,
    &methods::features::DECL,
];

static REGISTERED: RwLock<Vec<&'static MethodDecl>> = RwLock::new(Vec::new());

/// Adds a declaration for the rest of the process (the tensor side's registry calls this
/// when a method is registered). A name already declared is left as it is: registering
/// the same declaration twice is harmless, and the tensor side refuses a clash first.
pub fn register(decl: &'static MethodDecl) {
    if find(decl.name).is_some() {
        return;
    }
    if let Ok(mut r) = REGISTERED.write() {
        r.push(decl);
    }
}

/// Every declaration: the built-in ones, then those registered.
pub fn all() -> Vec<&'static MethodDecl> {
    let mut v: Vec<&'static MethodDecl> = BUILTIN.to_vec();
    if let Ok(r) = REGISTERED.read() {
        v.extend(r.iter().copied());
    }
    v
}

/// The declaration named `name` (or one of its aliases), case-insensitively.
pub fn find(name: &str) -> Option<&'static MethodDecl> {
    let wanted = name.trim().to_ascii_lowercase();
    all()
        .into_iter()
        .find(|d| d.name == wanted || d.aliases.iter().any(|a| *a == wanted))
}

/// The method and variant a row label (or a spelling of one, e.g. `ad-gcl-fixed`) names.
pub fn find_label(label: &str) -> Option<(&'static MethodDecl, &'static RowLabel)> {
    let wanted = label.trim().to_ascii_lowercase();
    label_where(|l| l.label == wanted || l.aliases.iter().any(|a| *a == wanted))
}

/// The first row label (with its method) that `matches`, in registry order.
fn label_where(
    matches: impl Fn(&RowLabel) -> bool,
) -> Option<(&'static MethodDecl, &'static RowLabel)> {
    all()
        .into_iter()
        .find_map(|d| d.labels.iter().find(|l| matches(l)).map(|l| (d, l)))
}

/// What a result row's method key names: `graphcl`, `adgcl-fixed`, `untrained-graphcl`,
/// `base:paper` (the node-level preset after the colon).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowMethod<'a> {
    /// The declaration of the method whose encoder or rows these are (for
    /// `untrained-graphcl`: GraphCL's), if declared.
    pub decl: Option<&'static MethodDecl>,
    /// The variant, for a row label such as `adgcl-fixed`.
    pub label: Option<&'static RowLabel>,
    /// The key without `untrained-` and without the preset (`graphcl`, `adgcl-fixed`).
    pub family: &'a str,
    /// The rows are the untrained encoder of [`Self::family`].
    pub untrained: bool,
    /// The node-level preset (`paper` of `base:paper`).
    pub preset: Option<&'a str>,
}

/// The prefix of the untrained encoder's row labels.
pub const UNTRAINED_PREFIX: &str = "untrained-";

/// Reads a result row's method key.
pub fn row_method(key: &str) -> RowMethod<'_> {
    let (name, preset) = match key.split_once(':') {
        Some((f, p)) => (f, Some(p)),
        None => (key, None),
    };
    let (family, untrained) = match name.strip_prefix(UNTRAINED_PREFIX) {
        Some(of) => (of, true),
        None => (name, false),
    };
    let (decl, label) = match find_exact(family) {
        Some(d) => (Some(d), None),
        // Rows carry labels as written, not their aliases.
        None => match label_where(|l| l.label == family) {
            Some((d, l)) => (Some(d), Some(l)),
            None => (None, None),
        },
    };
    RowMethod {
        decl,
        label,
        family,
        untrained,
        preset,
    }
}

/// The declaration named exactly `name` (rows carry names, not aliases).
fn find_exact(name: &str) -> Option<&'static MethodDecl> {
    all().into_iter().find(|d| d.name == name)
}

impl RowMethod<'_> {
    /// How reports show the method (without the untrained mark or the preset); an
    /// undeclared method shows its key.
    pub fn display(&self) -> Option<&'static str> {
        match (self.label, self.decl) {
            (Some(l), _) => Some(l.display),
            (None, Some(d)) => Some(d.display),
            (None, None) => None,
        }
    }
    /// Whether the rows are a floor: an untrained encoder or a classical floor.
    pub fn is_floor(&self) -> bool {
        self.untrained || self.decl.is_some_and(|d| d.is_floor())
    }
    /// The classical floor's level and dash style, if the rows are one.
    pub fn classical(&self) -> Option<(Level, bool)> {
        match self.decl?.role {
            Role::Classical { level, dashed } if !self.untrained => Some((level, dashed)),
            _ => None,
        }
    }
    /// The curve colour of a method's rows (an untrained encoder's: its method's).
    pub fn colour(&self) -> Option<(u8, u8, u8)> {
        match (self.label, self.decl) {
            (Some(l), _) => Some(l.colour),
            (None, Some(d)) => d.colour,
            (None, None) => None,
        }
    }
    /// The rows of the untrained encoder this method is compared with (`None` for a floor).
    pub fn untrained_floor(&self) -> Option<String> {
        if self.is_floor() {
            return None;
        }
        Some(self.label.and_then(|l| l.untrained).map_or_else(
            || format!("{UNTRAINED_PREFIX}{}", self.family),
            str::to_string,
        ))
    }
    /// Whether the key keeps the node-level preset (`base:paper`).
    pub fn keyed_by_preset(&self) -> bool {
        self.decl.is_some_and(|d| d.keyed_by_preset)
    }
    /// Whether rows of this method may predate the node-level split column.
    pub fn node_rows_without_split(&self) -> bool {
        self.decl.is_some_and(|d| d.node_rows_without_split)
    }
}

/// Every declared `magcl train` shorthand, in registry order.
pub fn shorthands() -> Vec<&'static Shorthand> {
    all().into_iter().flat_map(|d| d.shorthands).collect()
}

/// The classical floors of `level`, in registry order.
pub fn classical_floors(level: Level) -> Vec<&'static MethodDecl> {
    all()
        .into_iter()
        .filter(|d| matches!(d.role, Role::Classical { level: l, .. } if l == level))
        .collect()
}

/// The data layer's feature spec of a config's `features` value: a method's written word
/// (`graphcl`, hash version 1) maps to the rule it stands for (`auto`); anything else is
/// already a spec.
pub fn feature_spec(written: &str) -> &str {
    let w = written.trim();
    all()
        .into_iter()
        .filter_map(|d| d.features)
        .find(|f| f.written.eq_ignore_ascii_case(w))
        .map_or(w, |f| f.spec)
}

/// The report's order of method keys: a method's position in [`all`], its row labels
/// right after it; keys of no declared method come last.
pub fn report_rank(family: &str) -> usize {
    let mut i = 0;
    for d in all() {
        if d.name == family {
            return i;
        }
        i += 1;
        for l in d.labels {
            if l.label == family {
                return i;
            }
            i += 1;
        }
    }
    usize::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_aliases_and_labels_are_unique() {
        let mut words: Vec<&str> = Vec::new();
        for d in all() {
            words.push(d.name);
            words.extend(d.aliases);
            for l in d.labels {
                words.push(l.label);
                words.extend(l.aliases);
            }
        }
        let mut sorted = words.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), words.len(), "{words:?}");
        assert!(words.iter().all(|w| *w == w.to_ascii_lowercase()));
    }

    #[test]
    fn shorthand_flags_are_unique_and_set_a_section_field() {
        let flags: Vec<&str> = shorthands().iter().map(|s| s.flag).collect();
        assert_eq!(flags, ["eta", "augmenter", "of"]);
        let mut sorted = flags.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), flags.len());
        for s in shorthands() {
            assert!(s.flag.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'));
            let (section, field) = s.setting.split_once('.').expect("section.field");
            assert!(!section.is_empty() && !field.is_empty() && !field.contains('.'));
        }
    }

    #[test]
    fn row_keys_are_read_through_the_declarations() {
        let r = row_method("untrained-base:paper");
        assert!(r.untrained && r.is_floor() && r.keyed_by_preset());
        assert_eq!(
            (r.family, r.preset, r.display()),
            ("base", Some("paper"), Some("Base model"))
        );
        let f = row_method("adgcl-fixed");
        assert_eq!(f.display(), Some("AD-GCL (fixed augmenter)"));
        assert_eq!(f.untrained_floor().as_deref(), Some("untrained-adgcl"));
        assert_eq!(
            row_method("graphcl").untrained_floor().as_deref(),
            Some("untrained-graphcl")
        );
        assert_eq!(row_method("wl").untrained_floor(), None);
        assert_eq!(row_method("wl").classical(), Some((Level::Graph, false)));
        let unknown = row_method("somenewmethod");
        assert_eq!(
            (unknown.decl, unknown.display(), unknown.is_floor()),
            (None, None, false)
        );
    }

    #[test]
    fn written_feature_words_map_to_rules() {
        assert_eq!(feature_spec("graphcl"), "auto");
        assert_eq!(feature_spec("ADGCL"), "constant");
        assert_eq!(feature_spec("mvgrl"), "attributes-else-degree");
        assert_eq!(feature_spec("labels+degree:8"), "labels+degree:8");
        // Every written word names one rule.
        for d in all() {
            if let Some(f) = d.features {
                assert!(all()
                    .iter()
                    .filter_map(|e| e.features)
                    .all(|g| g.written != f.written || g.spec == f.spec));
            }
        }
    }

    #[test]
    fn classical_floors_by_level() {
        let names = |l| {
            classical_floors(l)
                .iter()
                .map(|d| d.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(Level::Graph), ["wl", "degree"]);
        assert_eq!(names(Level::Node), ["features"]);
    }
}
