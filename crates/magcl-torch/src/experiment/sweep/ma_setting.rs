//! One entry of a sweep's `ma` list: a string (`"none"`, `"ARS"`, `"AR gin-sum"`,
//! `"ARS code"`, `"on"`, `"-"`: the tricks, then optionally a reading and a GIN mode) or an
//! inline table of MA keys (`{ tricks = "ARS", gin_mode = "filter", view2 = [0, 8] }`,
//! `{ tricks = "ARS", reading = "code", k_branch = "negatives" }`).
use serde_json::Value as Json;
use toml::Spanned;

use super::expand::Assign;
use super::file::{self, Value};
use super::{Span, Src};
use crate::error::Result;
use crate::experiment::config::{GinMode, MaParams, Reading, READINGS};

/// One MA setting of the `ma` list.
#[derive(Clone, Debug)]
pub(super) struct MaSetting {
    pub enabled: bool,
    /// Assignments under `ma.` (paths without the `ma` prefix).
    pub assigns: Vec<Assign>,
    /// Whether the setting names a GIN mode (graph level only).
    pub gin_mode: bool,
    pub span: Span,
}

impl MaSetting {
    /// The baseline, for a section without `ma`.
    pub fn baseline(span: Span) -> MaSetting {
        MaSetting {
            enabled: false,
            assigns: Vec::new(),
            gin_mode: false,
            span,
        }
    }
}

/// `ma = SETTING` or `ma = [SETTING, …]`.
pub(super) fn read_list(src: &Src, v: &Spanned<Value>) -> Result<Vec<MaSetting>> {
    let items: Vec<&Spanned<Value>> = match v.get_ref() {
        Value::Array(a) => a.iter().collect(),
        _ => vec![v],
    };
    if items.is_empty() {
        return Err(src.err(
            v.span(),
            "`ma` lists no setting; write e.g. [\"none\", \"ARS\"]",
        ));
    }
    items.into_iter().map(|item| read(src, item)).collect()
}

/// Reads one setting (see the module's documentation).
fn read(src: &Src, v: &Spanned<Value>) -> Result<MaSetting> {
    let span = v.span();
    let mut assigns = Vec::new();
    let mut gin_mode = false;
    let tricks = |s: &str, assigns: &mut Vec<Assign>| -> Result<()> {
        if s != "-" && (s.is_empty() || !s.chars().all(|c| "ARSars".contains(c))) {
            return Err(src.err(
                span.clone(),
                format!("'{s}' is not a set of MA tricks: use letters of ARS (asymmetric, random, shuffle) or '-' for none"),
            ));
        }
        let up = s.to_ascii_uppercase();
        for (c, key) in [('A', "asymmetric"), ('R', "random"), ('S', "shuffle")] {
            assigns.push(Assign {
                path: vec![key.into()],
                value: Json::Bool(up.contains(c)),
                span: span.clone(),
            });
        }
        Ok(())
    };
    match v.get_ref() {
        Value::String(s) => {
            let words: Vec<&str> = s.split_whitespace().collect();
            match words.as_slice() {
                [w] if ["none", "off", "baseline"].contains(&w.to_ascii_lowercase().as_str()) => {
                    return Ok(MaSetting::baseline(span));
                }
                [] => return Err(src.err(span, "empty MA setting; use \"none\" for the baseline")),
                [first, rest @ ..] => {
                    if !["on", "ma"].contains(&first.to_ascii_lowercase().as_str()) {
                        tricks(first, &mut assigns)?;
                    }
                    // each further word is a reading (docs/ma.md) or a GIN mode, once each
                    let (mut reading, mut mode) = (false, false);
                    for word in rest {
                        let (path, value, seen) = if let Ok(r) = Reading::find(word) {
                            ("reading", r.name.to_string(), &mut reading)
                        } else if let Ok(m) = GinMode::parse(word) {
                            gin_mode = true;
                            ("gin_mode", m.as_str().to_string(), &mut mode)
                        } else {
                            return Err(src.err(
                                span,
                                format!("cannot read MA setting '{s}': '{word}' is neither a reading ({}) nor a GIN mode (gin+filter, gin-sum, filter); expected TRICKS [READING] [GIN-MODE], e.g. \"ARS code\" or \"ARS gin-sum\"", READINGS.iter().map(|r| r.name.word()).collect::<Vec<_>>().join(", ")),
                            ));
                        };
                        if std::mem::replace(seen, true) {
                            return Err(
                                src.err(span, format!("MA setting '{s}' names two {path} values"))
                            );
                        }
                        assigns.push(Assign {
                            path: vec![path.into()],
                            value: Json::String(value),
                            span: span.clone(),
                        });
                    }
                }
            }
            Ok(MaSetting {
                enabled: true,
                assigns,
                gin_mode,
                span,
            })
        }
        Value::Table(t) => {
            let mut enabled = true;
            let known: Vec<String> = serde_json::to_value(MaParams::default())
                .ok()
                .and_then(|v| v.as_object().map(|m| m.keys().cloned().collect()))
                .unwrap_or_default();
            for (k, item) in &t.0 {
                let key = k.get_ref().as_str();
                match key {
                    "tricks" => match item.get_ref() {
                        Value::String(s) => tricks(s, &mut assigns)?,
                        other => {
                            return Err(src.err(
                                item.span(),
                                format!("expected a string, found {}", other.type_str()),
                            ))
                        }
                    },
                    "enabled" => match item.get_ref() {
                        Value::Boolean(b) => enabled = *b,
                        _ => return Err(src.err(item.span(), "enabled must be true or false")),
                    },
                    _ if known.iter().any(|n| n == key) => {
                        if key == "gin_mode" {
                            gin_mode = true;
                        }
                        assigns.push(Assign {
                            path: vec![key.to_string()],
                            value: file::json(src, item)?,
                            span: k.span().start..item.span().end,
                        });
                    }
                    _ => {
                        return Err(src.err(
                            k.span(),
                            format!(
                                "unknown MA key '{key}'; expected tricks, enabled or one of {}",
                                known.join(", ")
                            ),
                        ))
                    }
                }
            }
            Ok(MaSetting {
                enabled,
                assigns,
                gin_mode,
                span,
            })
        }
        other => Err(src.err(
            span,
            format!(
                "an MA setting is a string like \"ARS\" or an inline table, found {}",
                other.type_str()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{err_line, parse};

    #[test]
    fn readings_and_the_adgcl_control() {
        let s = parse(
            r#"
datasets = ["MUTAG"]
seeds = 1
[[sweep]]
methods = ["graphcl", "simgrace"]
ma = ["none", "ARS current", "ARS code", "ARS paper gin-sum",
      { tricks = "ARS", reading = "code", k_branch = "negatives" }]
[[sweep]]
methods = ["adgcl"]
ma = ["none"]
[[sweep]]
methods = ["adgcl"]
ma = ["none", "ARS code"]
[sweep.overrides]
adgcl.augmenter = "fixed"
"#,
        )
        .unwrap();
        let got: Vec<(String, String)> = s
            .cells
            .iter()
            .map(|c| (c.config.method_label(), c.ma_label()))
            .collect();
        let want = [
            ("graphcl", "none"),
            ("graphcl", "ARS gin+filter"),
            ("graphcl", "ARS code"),
            ("graphcl", "ARS paper gin-sum"),
            ("graphcl", "ARS code k_branch=negatives"),
            ("simgrace", "none"),
            ("simgrace", "ARS gin+filter"),
            ("simgrace", "ARS code"),
            ("simgrace", "ARS paper gin-sum"),
            ("simgrace", "ARS code k_branch=negatives"),
            ("adgcl", "none"),
            ("adgcl-fixed", "none"),
            ("adgcl-fixed", "ARS code"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want);
        assert_eq!(
            s.cells[2].config.ma.redraw,
            crate::experiment::config::Redraw::Epoch
        );
        let f = |text: &str| {
            err_line(&format!(
                "datasets = [\"MUTAG\"]\nmethods = [\"graphcl\"]\nseeds = 1\nma = [{text}]\n"
            ))
        };
        let (l, m) = f("\"ARS codes\"");
        assert_eq!(l, 4);
        assert!(m.contains("'codes' is neither a reading"), "{m}");
        let (_, m) = f("\"ARS code paper\"");
        assert!(m.contains("two reading values"), "{m}");
        let (_, m) = f("{ tricks = \"ARS\", reading = \"nope\" }");
        assert!(m.contains("unknown MA reading 'nope'"), "{m}");
    }
}
