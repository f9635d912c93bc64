//! `--only KEY=V[,V…]`: keeping the runs with given datasets, methods, seeds, MA settings,
//! variants or evaluators. `magcl bench` applies it to a sweep's cells, `magcl report`
//! to result rows; both parse and match here, each supplying how to read a key's value.
use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// The keys `--only` knows (a plural, `datasets=`, is read as the key).
pub const KEYS: &[&str] = &["dataset", "method", "seed", "ma", "variant", "evaluator"];

/// One or more `--only` arguments: `key=v1,v2,key2=v3` (a bare value continues the
/// previous key). An item passes when, for every key named, its value is one of those
/// listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Only {
    pub keys: BTreeMap<String, Vec<String>>,
}

impl Only {
    /// Adds one `--only` argument.
    pub fn add(&mut self, arg: &str) -> Result<()> {
        let mut current: Option<String> = None;
        for token in arg.split(',') {
            let token = token.trim();
            if token.is_empty() {
                continue;
            }
            let value = if let Some((k, v)) = token.split_once('=') {
                let k = k.trim().to_ascii_lowercase();
                let k = k
                    .strip_suffix('s')
                    .filter(|k| KEYS.contains(k))
                    .map(str::to_string)
                    .unwrap_or(k);
                if !KEYS.contains(&k.as_str()) {
                    return Err(Error::Config(format!(
                        "--only {arg}: unknown key '{k}'; expected {}",
                        KEYS.join(", ")
                    )));
                }
                current = Some(k);
                v.trim()
            } else {
                token
            };
            let key = current.clone().ok_or_else(|| {
                Error::Config(format!(
                    "--only {arg}: expected key=value, e.g. dataset=MUTAG"
                ))
            })?;
            self.keys.entry(key).or_default().push(value.to_string());
        }
        Ok(())
    }

    /// Parses every argument of a repeated `--only`.
    pub fn parse_all<S: AsRef<str>>(args: &[S]) -> Result<Only> {
        let mut only = Only::default();
        for a in args {
            only.add(a.as_ref())?;
        }
        Ok(only)
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether `actual` (an item's value of `key`) is what `wanted` names: datasets and
    /// methods case-insensitively, `ma=ARS` also matching `ARS gin+filter` (the tricks
    /// without the GIN mode), seeds, variants and evaluators exactly. `alias` adds
    /// method names that stand for another (the registry's aliases, where known).
    pub fn matches(
        key: &str,
        wanted: &str,
        actual: &str,
        alias: &dyn Fn(&str, &str) -> bool,
    ) -> bool {
        match key {
            "method" => wanted.eq_ignore_ascii_case(actual) || alias(wanted, actual),
            "dataset" => wanted.eq_ignore_ascii_case(actual),
            "ma" => {
                wanted.eq_ignore_ascii_case(actual)
                    || actual
                        .split_whitespace()
                        .next()
                        .is_some_and(|t| t.eq_ignore_ascii_case(wanted))
            }
            _ => wanted == actual,
        }
    }

    /// The items that pass; `what` names them in errors ("cell", "row"). A listed value
    /// that matches no item at all is an error (a typo), which lists the values present.
    pub fn apply<T>(
        &self,
        items: Vec<T>,
        what: &str,
        value: impl Fn(&T, &str) -> String,
        alias: &dyn Fn(&str, &str) -> bool,
    ) -> Result<Vec<T>> {
        for (key, wanted) in &self.keys {
            let mut present: Vec<String> = items.iter().map(|c| value(c, key)).collect();
            present.sort();
            present.dedup();
            for w in wanted {
                if !present.iter().any(|p| Self::matches(key, w, p, alias)) {
                    return Err(Error::Config(format!(
                        "--only {key}={w}: no {what} has this {key}; there are {}",
                        present
                            .iter()
                            .map(|p| format!("'{p}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
        }
        Ok(items
            .into_iter()
            .filter(|c| {
                self.keys.iter().all(|(key, wanted)| {
                    let actual = value(c, key);
                    wanted.iter().any(|w| Self::matches(key, w, &actual, alias))
                })
            })
            .collect())
    }
}

impl std::fmt::Display for Only {
    /// `dataset=MUTAG,NCI1 ma=none,ARS code`, keys in order.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .keys
            .iter()
            .map(|(k, v)| format!("{k}={}", v.join(",")))
            .collect();
        f.write_str(&parts.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_alias(_: &str, _: &str) -> bool {
        false
    }

    #[test]
    fn parses_keys_plurals_and_continued_values() {
        let o = Only::parse_all(&["datasets=MUTAG,NCI1,seed=0", "ma=none,ARS code"]).unwrap();
        assert_eq!(o.keys["dataset"], ["MUTAG", "NCI1"]);
        assert_eq!(o.keys["seed"], ["0"]);
        assert_eq!(o.keys["ma"], ["none", "ARS code"]);
        assert_eq!(o.to_string(), "dataset=MUTAG,NCI1 ma=none,ARS code seed=0");
        let e = Only::parse_all(&["colour=red"]).unwrap_err().to_string();
        assert!(
            e.contains("unknown key 'colour'") && e.contains("evaluator"),
            "{e}"
        );
        let e = Only::parse_all(&["MUTAG"]).unwrap_err().to_string();
        assert!(e.contains("expected key=value"), "{e}");
    }

    #[test]
    fn keeps_what_every_key_names_and_refuses_a_value_nothing_has() {
        // (dataset, ma, seed)
        let items = vec![
            ("MUTAG", "none", 0),
            ("MUTAG", "ARS gin+filter", 0),
            ("MUTAG", "ARS code", 1),
            ("NCI1", "none", 1),
        ];
        let value = |t: &(&str, &str, u64), k: &str| match k {
            "dataset" => t.0.to_string(),
            "ma" => t.1.to_string(),
            _ => t.2.to_string(),
        };
        let o = Only::parse_all(&["dataset=mutag", "ma=ARS"]).unwrap();
        let kept = o.apply(items.clone(), "row", value, &no_alias).unwrap();
        assert_eq!(kept, [items[1], items[2]]);
        let o = Only::parse_all(&["ma=none,ARS code", "seed=1"]).unwrap();
        let kept = o.apply(items.clone(), "row", value, &no_alias).unwrap();
        assert_eq!(kept, [items[2], items[3]]);
        let e = Only::parse_all(&["dataset=Cora"])
            .unwrap()
            .apply(items.clone(), "row", value, &no_alias)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no row has this dataset") && e.contains("'NCI1'"),
            "{e}"
        );
        assert_eq!(
            Only::default()
                .apply(items.clone(), "row", value, &no_alias)
                .unwrap(),
            items
        );
    }
}
