//! A result row's configuration made comparable across magcl versions, without the
//! config's types (they live on the tensor side, `magcl::experiment::RunConfig`).
//!
//! Rows written today carry the fully resolved config: every field, defaults included.
//! Rows written before a field existed lack it; their runs behaved as the field's default
//! says. [`normalise`] fills in those defaults and writes values whose spelling changed the
//! way they are written today, so that an old row and a new row of the same setting compare
//! equal. The table is [`ADDED_FIELDS`]; a test on the tensor side
//! (`experiment::results::tests`) checks on every committed result row, and on resolved
//! configs with each listed field removed, that [`normalise`] gives what reading the row
//! through `RunConfig` gives.
use serde_json::{json, Map, Value};

/// Fields added to the run config after result files were first written, as (section,
/// field, the default a row without it ran with); section `""` is the top level. A section
/// absent from a row (e.g. `adgcl` in a GraphCL row) gets nothing.
pub const ADDED_FIELDS: &[(&str, &str, DefaultValue)] = &[
    ("", "gin_eps", DefaultValue::Float(0.0)),
    ("", "threads", DefaultValue::Uint(0)),
    ("ma", "enabled", DefaultValue::Bool(false)),
    ("ma", "gin_mode", DefaultValue::Str("gin+filter")),
    ("ma", "view1", DefaultValue::Range([0, 2])),
    ("ma", "view2", DefaultValue::Range([0, 4])),
    ("ma", "asymmetric", DefaultValue::Bool(true)),
    ("ma", "random", DefaultValue::Bool(true)),
    ("ma", "shuffle", DefaultValue::Bool(true)),
    ("ma", "constraints", DefaultValue::Str("none")),
    ("ma", "pi", DefaultValue::Float(0.5)),
    ("ma", "reading", DefaultValue::Str("current")),
    ("ma", "zero_k", DefaultValue::Str("mlp")),
    ("ma", "ranges", DefaultValue::Str("inclusive")),
    ("ma", "k_branch", DefaultValue::Str("unaugmented")),
    ("ma", "redraw", DefaultValue::Str("step")),
    ("ma", "eval_k", DefaultValue::Uint(1)),
    ("adgcl", "augmenter", DefaultValue::Null),
];

/// Fields written only when they differ from their default, as (section, field, default):
/// a row that spells the default out compares equal to one that leaves it out.
pub const WRITTEN_ONLY_WHEN_SET: &[(&str, &str, DefaultValue)] = &[
    ("loss", "inter_view_negatives", DefaultValue::Bool(true)),
    ("node", "best_test_every", DefaultValue::Uint(0)),
    ("node", "kmeans_l2", DefaultValue::Bool(false)),
    ("pretrain", "match_steps", DefaultValue::Bool(false)),
];

/// Optional sections: written only when present (`null` means absent).
pub const OPTIONAL_SECTIONS: &[&str] = &["augment", "node", "simgrace", "adgcl"];

/// A default value in the tables above.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    Bool(bool),
    Uint(u64),
    Float(f64),
    Str(&'static str),
    Range([u64; 2]),
    Null,
}

impl DefaultValue {
    pub fn to_json(self) -> Value {
        match self {
            DefaultValue::Bool(b) => json!(b),
            DefaultValue::Uint(n) => json!(n),
            DefaultValue::Float(x) => json!(x),
            DefaultValue::Str(s) => json!(s),
            DefaultValue::Range(r) => json!(r),
            DefaultValue::Null => Value::Null,
        }
    }
}

fn section<'a>(cfg: &'a mut Map<String, Value>, name: &str) -> Option<&'a mut Map<String, Value>> {
    if name.is_empty() {
        Some(cfg)
    } else {
        cfg.get_mut(name).and_then(Value::as_object_mut)
    }
}

/// A row's config (its `config` column) as JSON in today's spelling: the defaults of
/// [`ADDED_FIELDS`] filled in, [`WRITTEN_ONLY_WHEN_SET`] fields at their default and
/// `null` [`OPTIONAL_SECTIONS`] left out, `ma.constraints` of old rows (`true` / `false`)
/// written as `both` / `none`. Text that is not a JSON object is returned as it is (a
/// string for text that is not JSON), so such rows compare by their text.
pub fn normalise(config: &str) -> Value {
    let mut v = match serde_json::from_str::<Value>(config) {
        Ok(v) => v,
        Err(_) => return Value::String(config.to_string()),
    };
    let Some(cfg) = v.as_object_mut() else {
        return v;
    };
    for name in OPTIONAL_SECTIONS {
        if cfg.get(*name).is_some_and(Value::is_null) {
            cfg.remove(*name);
        }
    }
    for (sec, field, default) in ADDED_FIELDS {
        if let Some(s) = section(cfg, sec) {
            s.entry(field.to_string())
                .or_insert_with(|| default.to_json());
        }
    }
    for (sec, field, default) in WRITTEN_ONLY_WHEN_SET {
        if let Some(s) = section(cfg, sec) {
            if s.get(*field) == Some(&default.to_json()) {
                s.remove(*field);
            }
        }
    }
    if let Some(ma) = section(cfg, "ma") {
        if let Some(Value::Bool(b)) = ma.get("constraints") {
            let name = if *b { "both" } else { "none" };
            ma.insert("constraints".into(), json!(name));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GraphCL row of the format before `threads`, `gin_eps`, the MA readings and the
    /// four-valued constraints existed, and the same setting as written today.
    #[test]
    fn an_old_row_compares_equal_to_todays_spelling() {
        let old = r#"{"task":"graph","method":"graphcl","dataset":"MUTAG","seed":0,"epochs":20,
            "loss":{"temperature":0.2,"positive_in_denominator":false,"symmetric":true,
                    "intra_view_negatives":false,"projector":true},
            "ma":{"enabled":true,"view1":[0,2],"view2":[0,4],"asymmetric":true,"random":true,
                  "shuffle":true,"constraints":true,"pi":0.5},
            "augment":{"name":"random2","node_drop":0.1,"edge_drop":0.1,"mask":0.1,"subgraph":0.2}}"#;
        let new = r#"{"task":"graph","method":"graphcl","dataset":"MUTAG","seed":0,"epochs":20,
            "gin_eps":0.0,"threads":0,
            "loss":{"temperature":0.2,"positive_in_denominator":false,"symmetric":true,
                    "intra_view_negatives":false,"projector":true},
            "ma":{"enabled":true,"gin_mode":"gin+filter","view1":[0,2],"view2":[0,4],
                  "asymmetric":true,"random":true,"shuffle":true,"constraints":"both","pi":0.5,
                  "reading":"current","zero_k":"mlp","ranges":"inclusive",
                  "k_branch":"unaugmented","redraw":"step","eval_k":1},
            "augment":{"name":"random2","node_drop":0.1,"edge_drop":0.1,"mask":0.1,"subgraph":0.2}}"#;
        assert_eq!(normalise(old), normalise(new));
        assert_eq!(normalise(new), serde_json::from_str::<Value>(new).unwrap());
        // A field set away from its default still differs.
        let other = new.replace(r#""eval_k":1"#, r#""eval_k":2"#);
        assert_ne!(normalise(old), normalise(&other));
        let other = old.replace(r#""constraints":true"#, r#""constraints":false"#);
        assert_ne!(normalise(&other), normalise(new));
    }

    #[test]
    fn defaults_written_out_are_left_out_and_absent_sections_get_nothing() {
        let a = normalise(
            r#"{"loss":{"inter_view_negatives":true},"node":{"best_test_every":0,"kmeans_l2":false},"adgcl":null}"#,
        );
        let b = normalise(r#"{"loss":{},"node":{}}"#);
        assert_eq!(a, b);
        assert!(b.get("adgcl").is_none() && b.get("ma").is_none());
        assert_eq!(b["gin_eps"], json!(0.0));
        let c = normalise(r#"{"loss":{"inter_view_negatives":false},"adgcl":{}}"#);
        assert_eq!(c["loss"]["inter_view_negatives"], json!(false));
        assert_eq!(c["adgcl"]["augmenter"], Value::Null);
    }

    #[test]
    fn text_that_is_not_a_config_is_kept() {
        assert_eq!(normalise("not json"), json!("not json"));
        assert_eq!(normalise("[1,2]"), json!([1, 2]));
    }
}
