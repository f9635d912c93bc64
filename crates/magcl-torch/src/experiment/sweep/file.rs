//! The sweep file format. The document is read with serde into the types below, which keep
//! the span of every value an error may have to point at; [`read_section`] then checks one
//! section's values and turns them into the [`Section`] that expansion works on.
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value as Json};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::expand::{Assign, GridAxis, GridScope, Section};
use super::{known_dataset, ma_setting, Span, Src, MAX_CELLS};
use crate::data::registry;
use crate::error::Result;
use crate::experiment::config::MethodName;

/// The keys of a section: the top level and each `[[sweep]]` entry.
const SECTION_KEYS: &[&str] = &[
    "datasets",
    "methods",
    "seeds",
    "ma",
    "evaluators",
    "preset",
    "grid",
    "grid_scope",
    "overrides",
    "method_overrides",
    "dataset_overrides",
];

/// The keys only the top level has: [`Head`]'s.
const HEAD_KEYS: &[&str] = &["name", "description", "sweep"];

/// A sweep file as written.
pub(super) struct SweepFile {
    pub name: Option<Spanned<String>>,
    pub description: String,
    /// The top level's section keys: the defaults of every `[[sweep]]` section.
    pub top: SectionFile,
    /// The `[[sweep]]` sections, each with the span of its table.
    pub sections: Vec<Spanned<SectionFile>>,
}

/// The top level's own keys (the top level is a [`SectionFile`] too).
#[derive(Deserialize)]
struct Head {
    name: Option<Spanned<String>>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    sweep: Sections,
}

/// What a section may set; a `[[sweep]]` section takes what it leaves out from the top
/// level. Values whose form depends on their content are [`Value`]s, read by
/// [`read_section`].
#[derive(Deserialize)]
#[serde(expecting = "a table (each [[sweep]] entry is one)")]
pub(super) struct SectionFile {
    datasets: Option<Spanned<Strings>>,
    methods: Option<Spanned<Strings>>,
    seeds: Option<Spanned<Value>>,
    ma: Option<Spanned<Value>>,
    evaluators: Option<Spanned<Strings>>,
    preset: Option<Spanned<String>>,
    grid: Option<Spanned<Table>>,
    grid_scope: Option<Spanned<String>>,
    overrides: Option<Table>,
    method_overrides: Option<Table<Table>>,
    dataset_overrides: Option<Table<Table>>,
}

/// The keys of each `[[sweep]]` entry, to name an unknown one: the types above skip keys
/// they do not know. (The top level's keys are read as a `Table<IgnoredAny>`.)
#[derive(Deserialize)]
struct Keys {
    #[serde(default)]
    sweep: Vec<Table<IgnoredAny>>,
}

impl SweepFile {
    /// Parses the file: TOML syntax, the type of each key's value, and unknown keys.
    pub fn parse(src: &Src) -> Result<SweepFile> {
        let doc = DeTable::parse(src.text)
            .map_err(|e| src.err(e.span().unwrap_or(0..0), e.message().trim()))?;
        if let Some(span) = doc.get_ref().values().find_map(first_date) {
            return Err(src.err(span, "dates are not valid in a sweep file"));
        }
        let head: Head = deserialize(src, &doc)?;
        let top: SectionFile = deserialize(src, &doc)?;
        let top_keys: Table<IgnoredAny> = deserialize(src, &doc)?;
        let keys: Keys = deserialize(src, &doc)?;
        if let Some(k) = first_unknown(&top_keys, &[HEAD_KEYS, SECTION_KEYS]) {
            return Err(src.err(
                k.span(),
                format!(
                    "unknown key '{}'; expected name, description, sweep or one of {}",
                    k.get_ref(),
                    SECTION_KEYS.join(", ")
                ),
            ));
        }
        for section in &keys.sweep {
            if let Some(k) = first_unknown(section, &[SECTION_KEYS]) {
                return Err(src.err(
                    k.span(),
                    format!(
                        "unknown key '{}' in [[sweep]]; expected one of {}",
                        k.get_ref(),
                        SECTION_KEYS.join(", ")
                    ),
                ));
            }
        }
        Ok(SweepFile {
            name: head.name,
            description: head.description,
            top,
            sections: head.sweep.0,
        })
    }
}

/// The first key of `table` (in file order) that none of the lists `known` holds.
fn first_unknown<'t>(
    table: &'t Table<IgnoredAny>,
    known: &[&[&str]],
) -> Option<&'t Spanned<String>> {
    table.0.iter().map(|(k, _)| k).find(|k| {
        !known
            .iter()
            .any(|keys| keys.contains(&k.get_ref().as_str()))
    })
}

/// Reads the whole document as a `T`; an error names the line of the value it is about.
fn deserialize<'i, T: Deserialize<'i>>(src: &Src, doc: &Spanned<DeTable<'i>>) -> Result<T> {
    T::deserialize(doc.clone().into_deserializer())
        .map_err(|e| src.err(e.span().unwrap_or(0..0), e.message()))
}

/// The span of the first TOML date in `v`: no setting is a date, and [`Value`] cannot
/// hold one.
fn first_date(v: &Spanned<DeValue>) -> Option<Span> {
    match v.get_ref() {
        DeValue::Datetime(_) => Some(v.span()),
        DeValue::Array(a) => a.iter().find_map(first_date),
        DeValue::Table(t) => t.values().find_map(first_date),
        _ => None,
    }
}

/// `[[sweep]]`: an array of tables.
#[derive(Default)]
struct Sections(Vec<Spanned<SectionFile>>);

impl<'de> Deserialize<'de> for Sections {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Sections;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of tables: write [[sweep]] sections")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Sections, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element()? {
                    out.push(s);
                }
                Ok(Sections(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// A string or a list of strings (`datasets`, `methods`, `evaluators`).
pub(super) enum Strings {
    One(String),
    Many(Vec<Spanned<String>>),
}

impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Strings;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list of strings")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Strings, E> {
                Ok(Strings::One(s.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Strings, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element()? {
                    out.push(s);
                }
                Ok(Strings::Many(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// Any TOML value but a date, with the span of every item and key.
#[derive(Clone, Debug)]
pub(super) enum Value {
    String(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    Array(Vec<Spanned<Value>>),
    Table(Table),
}

impl Value {
    /// The TOML type's name, for messages.
    pub fn type_str(&self) -> &'static str {
        match self {
            Value::String(_) => "string",
            Value::Integer(_) => "integer",
            Value::Float(_) => "float",
            Value::Boolean(_) => "boolean",
            Value::Array(_) => "array",
            Value::Table(_) => "table",
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a TOML value")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> std::result::Result<Value, E> {
                Ok(Value::Boolean(b))
            }
            fn visit_i64<E: de::Error>(self, i: i64) -> std::result::Result<Value, E> {
                Ok(Value::Integer(i))
            }
            fn visit_u64<E: de::Error>(self, u: u64) -> std::result::Result<Value, E> {
                i64::try_from(u)
                    .map(Value::Integer)
                    .map_err(|_| E::custom("integer out of range"))
            }
            fn visit_i128<E: de::Error>(self, _: i128) -> std::result::Result<Value, E> {
                Err(E::custom("integer out of range"))
            }
            fn visit_u128<E: de::Error>(self, _: u128) -> std::result::Result<Value, E> {
                Err(E::custom("integer out of range"))
            }
            fn visit_f64<E: de::Error>(self, x: f64) -> std::result::Result<Value, E> {
                Ok(Value::Float(x))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Value, E> {
                Ok(Value::String(s.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Value, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(Value::Array(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Value, A::Error> {
                TableVisitor(PhantomData).visit_map(map).map(Value::Table)
            }
        }
        d.deserialize_any(V)
    }
}

/// A table's entries in source order, each key and value with its span.
#[derive(Clone, Debug)]
pub(super) struct Table<V = Value>(pub Vec<(Spanned<String>, Spanned<V>)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Table<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_map(TableVisitor(PhantomData))
    }
}

struct TableVisitor<V>(PhantomData<V>);

impl<'de, V: Deserialize<'de>> Visitor<'de> for TableVisitor<V> {
    type Value = Table<V>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Table<V>, A::Error> {
        let mut entries: Vec<(Spanned<String>, Spanned<V>)> = Vec::new();
        while let Some(k) = map.next_key()? {
            entries.push((k, map.next_value()?));
        }
        // The parser hands a table's keys over in name order: restore the file's order.
        entries.sort_by_key(|(k, _)| k.span().start);
        Ok(Table(entries))
    }
}

/// Checks one section's values and reads them into a [`Section`] spanning `span`.
pub(super) fn read_section(src: &Src, f: &SectionFile, span: Span) -> Result<Section> {
    let mut s = Section {
        span,
        ..Section::default()
    };
    if let Some(v) = &f.datasets {
        let list = strings(src, v)?;
        for (name, span) in &list {
            if known_dataset(name).is_none() {
                let names: Vec<&str> = registry::known_datasets().iter().map(|d| d.name).collect();
                return Err(src.err(
                    span.clone(),
                    format!(
                        "unknown dataset '{name}'; built-in datasets: {} (any name of the TU collection, tu:PATH/NAME and npz:PATH work too)",
                        names.join(", ")
                    ),
                ));
            }
        }
        s.datasets = Some(list);
    }
    if let Some(v) = &f.methods {
        let mut out = Vec::new();
        for (name, span) in strings(src, v)? {
            let m = MethodName::parse(&name).map_err(|e| src.err(span.clone(), e.to_string()))?;
            out.push((m, span));
        }
        s.methods = Some(out);
    }
    if let Some(v) = &f.seeds {
        s.seeds = Some(read_seeds(src, v)?);
    }
    if let Some(v) = &f.ma {
        s.ma = Some(ma_setting::read_list(src, v)?);
    }
    if let Some(v) = &f.evaluators {
        s.evaluators = Some(strings(src, v)?);
    }
    if let Some(p) = &f.preset {
        // The named presets the methods offer ([`crate::methods::MethodEntry::preset_names`]).
        let mut known: Vec<&str> = crate::methods::registry::all()
            .iter()
            .flat_map(|e| e.preset_names.iter().copied())
            .collect();
        known.sort_unstable();
        known.dedup();
        if !known.contains(&p.get_ref().as_str()) {
            return Err(src.err(
                p.span(),
                format!(
                    "unknown preset '{}': expected one of {}",
                    p.get_ref(),
                    known.join(", ")
                ),
            ));
        }
        s.preset = Some((p.get_ref().clone(), p.span()));
    }
    if let Some(t) = &f.grid {
        let mut axes = Vec::new();
        read_grid(src, t.get_ref(), &[], &mut axes)?;
        if axes.is_empty() {
            return Err(src.err(t.span(), "[grid] lists no key"));
        }
        s.grid = Some(axes);
    }
    if let Some(g) = &f.grid_scope {
        s.grid_scope = Some(match g.get_ref().as_str() {
            "all" => GridScope::All,
            "ma" => GridScope::Ma,
            other => {
                return Err(src.err(
                    g.span(),
                    format!("grid_scope must be \"all\" or \"ma\", got '{other}'"),
                ))
            }
        });
    }
    if let Some(t) = &f.overrides {
        assigns(src, t, &[], &mut s.overrides)?;
    }
    for (k, inner) in f.method_overrides.iter().flat_map(|t| &t.0) {
        let m = MethodName::parse(k.get_ref()).map_err(|e| src.err(k.span(), e.to_string()))?;
        let mut a = Vec::new();
        assigns(src, inner.get_ref(), &[], &mut a)?;
        s.method_overrides.push((m, a));
    }
    for (k, inner) in f.dataset_overrides.iter().flat_map(|t| &t.0) {
        let name = k.get_ref().clone();
        if known_dataset(&name).is_none() {
            return Err(src.err(
                k.span(),
                format!("unknown dataset '{name}' in [dataset_overrides]"),
            ));
        }
        let mut a = Vec::new();
        assigns(src, inner.get_ref(), &[], &mut a)?;
        s.dataset_overrides.push((name, k.span(), a));
    }
    Ok(s)
}

/// The strings of a string or list, each with its span.
fn strings(src: &Src, v: &Spanned<Strings>) -> Result<Vec<(String, Span)>> {
    match v.get_ref() {
        Strings::One(s) => Ok(vec![(s.clone(), v.span())]),
        Strings::Many(items) if items.is_empty() => Err(src.err(v.span(), "empty list")),
        Strings::Many(items) => Ok(items
            .iter()
            .map(|s| (s.get_ref().clone(), s.span()))
            .collect()),
    }
}

/// `seeds = N` (seeds 0..N-1) or `seeds = [s, …]`, each seed with its span.
fn read_seeds(src: &Src, v: &Spanned<Value>) -> Result<Vec<(u64, Span)>> {
    match v.get_ref() {
        &Value::Integer(n) => {
            if n <= 0 {
                return Err(src.err(
                    v.span(),
                    format!(
                        "seeds = {n}: at least one seed is needed (seeds = N runs seeds 0..N-1)"
                    ),
                ));
            }
            if n as u64 > MAX_CELLS as u64 {
                return Err(src.err(
                    v.span(),
                    format!("seeds = {n}: more than the {MAX_CELLS} cells a sweep may have"),
                ));
            }
            Ok((0..n as u64).map(|s| (s, v.span())).collect())
        }
        Value::Array(a) => {
            let mut out = Vec::new();
            let mut seen = HashSet::new();
            for item in a {
                let s = match item.get_ref() {
                    &Value::Integer(s) => s,
                    other => {
                        return Err(src.err(
                            item.span(),
                            format!("a seed must be an integer, found {}", other.type_str()),
                        ))
                    }
                };
                if s < 0 {
                    return Err(src.err(item.span(), "a seed must be non-negative"));
                }
                if !seen.insert(s) {
                    return Err(src.err(item.span(), format!("seed {s} is listed twice")));
                }
                out.push((s as u64, item.span()));
            }
            if out.is_empty() {
                return Err(src.err(v.span(), "seeds = []: at least one seed is needed"));
            }
            Ok(out)
        }
        other => Err(src.err(
            v.span(),
            format!(
                "seeds must be a count (seeds = 5) or a list (seeds = [0, 1]), found {}",
                other.type_str()
            ),
        )),
    }
}

/// A value as JSON, for the config's overrides.
pub(super) fn json(src: &Src, v: &Spanned<Value>) -> Result<Json> {
    Ok(match v.get_ref() {
        Value::String(s) => Json::String(s.clone()),
        &Value::Integer(i) => Json::from(i),
        &Value::Float(x) => serde_json::Number::from_f64(x)
            .map(Json::Number)
            .ok_or_else(|| src.err(v.span(), "a setting cannot be nan or infinite"))?,
        &Value::Boolean(b) => Json::Bool(b),
        Value::Array(a) => Json::Array(
            a.iter()
                .map(|item| json(src, item))
                .collect::<Result<_>>()?,
        ),
        Value::Table(t) => {
            let mut m = Map::new();
            for (k, item) in &t.0 {
                m.insert(k.get_ref().clone(), json(src, item)?);
            }
            Json::Object(m)
        }
    })
}

/// The config keys a sweep sets through its axes, never through overrides or a grid.
const AXES: &[&str] = &["task", "method", "dataset", "seed"];

/// Flattens a table of settings into leaf assignments (`a.b.c = value`).
fn assigns(src: &Src, t: &Table, prefix: &[String], out: &mut Vec<Assign>) -> Result<()> {
    for (k, v) in &t.0 {
        let mut path = prefix.to_vec();
        path.extend(k.get_ref().split('.').map(str::to_string));
        if let Value::Table(inner) = v.get_ref() {
            assigns(src, inner, &path, out)?;
            continue;
        }
        if let Some(axis) = path.first().filter(|p| AXES.contains(&p.as_str())) {
            let hint = match axis.as_str() {
                "seed" => "seeds = [...]",
                "dataset" => "datasets = [...]",
                "method" => "methods = [...]",
                _ => "the method (the task follows from it)",
            };
            return Err(src.err(
                k.span(),
                format!("'{axis}' cannot be overridden; set it with {hint}"),
            ));
        }
        out.push(Assign {
            path,
            value: json(src, v)?,
            span: k.span().start..v.span().end,
        });
    }
    Ok(())
}

/// The axes of a `[grid]` table: every leaf is a list of values.
fn read_grid(src: &Src, t: &Table, prefix: &[String], out: &mut Vec<GridAxis>) -> Result<()> {
    for (k, v) in &t.0 {
        let mut path = prefix.to_vec();
        path.extend(k.get_ref().split('.').map(str::to_string));
        match v.get_ref() {
            Value::Table(inner) => read_grid(src, inner, &path, out)?,
            Value::Array(a) => {
                if a.is_empty() {
                    return Err(src.err(
                        v.span(),
                        format!("grid axis '{}' lists no value", path.join(".")),
                    ));
                }
                if let Some(first) = path.first().filter(|p| AXES.contains(&p.as_str())) {
                    return Err(src.err(
                        k.span(),
                        format!(
                            "'{first}' is an axis of the sweep already; it cannot be a grid key"
                        ),
                    ));
                }
                let mut values = Vec::new();
                for item in a {
                    values.push((json(src, item)?, item.span()));
                }
                out.push(GridAxis { path, values });
            }
            other => {
                return Err(src.err(
                    v.span(),
                    format!(
                        "grid values must be a list, e.g. {} = [0.1, 0.5]; found {}",
                        path.join("."),
                        other.type_str()
                    ),
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::err_line;
    use super::SECTION_KEYS;

    #[test]
    fn every_section_key_is_read() {
        // A listed key that [`SectionFile`] lacked would pass unchecked: a value of the
        // wrong type is refused for each.
        for key in SECTION_KEYS {
            let (l, m) = err_line(&format!(
                "datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\n[[sweep]]\n{key} = true\n"
            ));
            assert_eq!(l, 5, "{key}: {m}");
            assert!(!m.contains("unknown key"), "{key}: {m}");
        }
    }

    #[test]
    fn errors_name_the_line() {
        let base = "methods = [\"graphcl\"]\nseeds = 2\n";
        let (l, m) = err_line(&format!("{base}datasets = [\"MUTAG\",\n  \"MUTAGG\"]\n"));
        assert_eq!(l, 4, "{m}");
        assert!(m.contains("MUTAGG"), "{m}");
        let (l, m) = err_line(&format!(
            "{base}datasets = [\"MUTAG\"]\n[overrides]\nepochs = 2\nepoch = 3\n"
        ));
        assert_eq!(l, 6, "{m}");
        assert!(m.contains("epoch"), "{m}");
        let (l, m) = err_line(&format!("{base}datasets = [\"MUTAG\"]\nma = [\"none\",\n {{ tricks = \"ARS\", view1 = [3, 1] }}]\n"));
        assert_eq!(l, 5, "{m}");
        assert!(m.contains("ma.view1"), "{m}");
        let (l, _) = err_line("methods = [\"graphcl\"]\nseeds = 0\ndatasets = [\"MUTAG\"]\n");
        assert_eq!(l, 2);
        let (l, m) = err_line("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\n[overrides]\naugment.edge_drop = 1.5\n");
        assert_eq!(l, 5, "{m}");
        let (l, m) =
            err_line("datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\nbogus = 1\n");
        assert_eq!(l, 4, "{m}");
        let (l, m) = err_line(
            "datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\n[grid]\nma.pi = []\n",
        );
        assert_eq!(l, 5, "{m}");
    }

    #[test]
    fn the_form_of_each_key_is_checked_where_it_is_written() {
        let base = "datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\n";
        let cases = [
            // (text after `base`, line, part of the message)
            (
                "preset = 3\n",
                4,
                "invalid type: integer `3`, expected a string",
            ),
            ("evaluators = [\"svc-rbf\", 2]\n", 4, "expected a string"),
            ("sweep = 3\n", 4, "write [[sweep]] sections"),
            (
                "[[sweep]]\nma = [\"none\"]\nbogus = 1\n",
                6,
                "unknown key 'bogus' in [[sweep]]",
            ),
            (
                "[[sweep]]\nname = \"x\"\n",
                5,
                "unknown key 'name' in [[sweep]]",
            ),
            (
                "[overrides]\nepochs = 1979-05-27\n",
                5,
                "dates are not valid",
            ),
            (
                "[overrides]\nepochs = 9223372036854775808\n",
                5,
                "integer out of range",
            ),
            ("[overrides]\nlr = nan\n", 5, "nan or infinite"),
            ("[method_overrides]\ngraphcl = 3\n", 5, "expected a table"),
            (
                "[dataset_overrides.MUTAGG]\nepochs = 3\n",
                4,
                "unknown dataset 'MUTAGG'",
            ),
        ];
        for (text, line, what) in cases {
            let text = format!("{base}{text}");
            let (l, m) = err_line(&text);
            assert_eq!((l, m.contains(what)), (line, true), "{text}: {m}");
        }
        let (l, m) =
            err_line("datasets = \"MUTAG\"\nmethods = \"graphcl\"\nseeds = [1,\n \"2\"]\n");
        assert_eq!(l, 4, "{m}");
        assert!(m.contains("a seed must be an integer, found string"), "{m}");
        // The name is checked at its own line.
        let (l, m) = err_line(&format!("\n\nname = \"a/b\"\n{base}"));
        assert_eq!(l, 3, "{m}");
        assert!(m.contains("plain file name"), "{m}");
    }
}
