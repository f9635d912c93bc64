//! Result files ([`magcl_report::results`], re-exported here: rows, reading, crash-safe
//! appending) and the one part that needs the tensor side: the row of a finished run.
pub use magcl_report::results::*;

use super::run::RunRecord;
use crate::error::Result;

/// Makes the result row of a finished run: `ResultRow::from_record(&record, variant,
/// threads)` with this trait in scope.
pub trait FromRecord: Sized {
    /// The row of a finished run. `variant` and `threads` come from the sweep, the rest
    /// from the record; the config is written fully resolved (every field, defaults
    /// included), so a report compares rows without knowing the config's types. The copy
    /// of the data read goes to `data_source`, outside the config and its hash: `PATH
    /// sha256:HEX`, or `generated` for a run without one (every set read from files has
    /// one: TU and Planetoid folders, DGCNN zips, `.npz` files; see docs/datasets.md).
    fn from_record(rec: &RunRecord, variant: &str, threads: usize) -> Result<Self>;
}

impl FromRecord for ResultRow {
    fn from_record(rec: &RunRecord, variant: &str, threads: usize) -> Result<ResultRow> {
        Ok(ResultRow {
            dataset: one_line(&rec.dataset),
            method: one_line(&rec.method),
            ma: one_line(&rec.ma),
            variant: one_line(variant),
            seed: rec.seed,
            evaluator: one_line(&rec.evaluator),
            config_hash: one_line(&rec.config_hash),
            accuracy: rec.outcome.accuracy,
            accuracy_std_folds: rec.outcome.accuracy_std_folds,
            nmi: rec.outcome.nmi,
            selected_epoch: rec.outcome.selected_epoch,
            epochs: rec.outcome.epochs,
            train_seconds: rec.outcome.train_seconds,
            eval_seconds: rec.outcome.eval_seconds,
            peak_memory_mb: rec.outcome.peak_rss_bytes as f64 / (1024.0 * 1024.0),
            device: one_line(&rec.outcome.device),
            threads,
            git_commit: one_line(&rec.git_commit),
            magcl_version: one_line(&rec.magcl_version),
            config: serde_json::to_string(&rec.config)?,
            warnings: one_line(&rec.outcome.warnings.join("; ")),
            data_source: match &rec.outcome.data_source {
                Some(s) => one_line(&s.label()),
                None => GENERATED.to_string(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::config::{MethodName, RunConfig, RunSpec};
    use crate::experiment::run::RunOutcome;

    /// The row of a run reads back as it was written.
    #[test]
    fn the_row_of_a_run_round_trips() {
        let cfg = RunConfig::resolve(&RunSpec {
            method: Some(MethodName::parse("graphcl").unwrap()),
            dataset: "MUTAG".into(),
            seed: 3,
            ..Default::default()
        })
        .unwrap();
        let rec = RunRecord::new(
            &cfg,
            RunOutcome {
                accuracy: 88.5,
                device: "cpu".into(),
                warnings: vec!["one\nline".into(), "two".into()],
                ..Default::default()
            },
        );
        let row = ResultRow::from_record(&rec, "ma.pi=0.1", 2).unwrap();
        assert_eq!(row.warnings, "one line; two");
        assert_eq!(row.threads, 2);
        assert_eq!(row.data_source, "generated");
        // The same run on a copy read from files: its path and sha256 in the row, the
        // config hash unchanged (the copy is not part of the config).
        let mut read = rec.clone();
        read.outcome.data_source = Some(crate::data::source::DataSource {
            path: "/cache/dgcnn/MUTAG.zip".into(),
            sha256: "5e".repeat(32),
        });
        let read = ResultRow::from_record(&read, "ma.pi=0.1", 2).unwrap();
        assert_eq!(
            read.data_source,
            format!("/cache/dgcnn/MUTAG.zip sha256:{}", "5e".repeat(32))
        );
        assert_eq!(read.config_hash, row.config_hash);
        assert_eq!(read.config_hash, cfg.hash());
        assert_eq!(read.config, row.config);
        assert!(!read.config.contains("sha256"));
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.csv");
        let (f, _) = ResultsFile::open(&p, false).unwrap();
        f.append(&row).unwrap();
        f.append(&read).unwrap();
        drop(f);
        assert_eq!(read_rows(&p).unwrap(), vec![row, read]);
    }

    /// Every result file committed under results/ (and the test fixtures), recursively.
    fn committed_result_files() -> Vec<std::path::PathBuf> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "csv") {
                    out.push(p);
                }
            }
        }
        // The repository root: this crate sits at crates/magcl-torch.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        walk(&root.join("results"), &mut files);
        walk(&root.join("tests/fixtures"), &mut files);
        files.sort();
        files
    }

    /// A row's config read through [`RunConfig`] and written again: what the report
    /// compared before it stopped depending on the tensor side.
    fn through_run_config(config: &str) -> Option<serde_json::Value> {
        let c: RunConfig = serde_json::from_str(config).ok()?;
        Some(serde_json::to_value(&c).unwrap())
    }

    /// magcl_report::config::normalise (the report's torch-free table of defaults) gives
    /// what reading through `RunConfig` gives, on every committed result row: the files
    /// of many versions, old formats included (no `threads`, no MA readings, boolean
    /// constraints, no `adgcl.augmenter`, no `gin_eps`).
    #[test]
    fn the_reports_defaults_table_agrees_with_run_config_on_committed_rows() {
        let mut checked = 0;
        let mut old_format = 0;
        for f in committed_result_files() {
            let Ok(rows) = read_rows(&f) else {
                continue; // not a result file (speed tables, verdicts)
            };
            for r in rows {
                let Some(expected) = through_run_config(&r.config) else {
                    continue;
                };
                let table = magcl_report::config::normalise(&r.config);
                assert_eq!(
                    table,
                    expected,
                    "{}: row seed {} config_hash {}",
                    f.display(),
                    r.seed,
                    r.config_hash
                );
                checked += 1;
                let raw: serde_json::Value = serde_json::from_str(&r.config).unwrap();
                if raw != expected {
                    old_format += 1;
                }
            }
        }
        assert!(checked > 1000, "only {checked} committed rows checked");
        assert!(
            old_format > 1000,
            "only {old_format} old-format rows checked"
        );
    }

    /// Hash version 1 holds on committed rows: every row whose config reads back through
    /// [`RunConfig`] and writes the same text again keeps its recorded config hash (the
    /// rows of the floor, curve and verdict sweeps among them), so resuming a committed
    /// sweep finds its finished cells.
    #[test]
    fn committed_rows_keep_their_config_hash() {
        let mut checked = 0;
        let mut methods = std::collections::BTreeSet::new();
        for f in committed_result_files() {
            let Ok(rows) = read_rows(&f) else {
                continue;
            };
            for r in rows {
                let Ok(c) = serde_json::from_str::<RunConfig>(&r.config) else {
                    continue;
                };
                if serde_json::to_string(&c).unwrap() != r.config {
                    continue; // written before a field existed: a different hash then
                }
                assert_eq!(
                    c.hash(),
                    r.config_hash,
                    "{}: row seed {} of {}",
                    f.display(),
                    r.seed,
                    r.method
                );
                methods.insert(c.method_label());
                checked += 1;
            }
        }
        assert!(checked > 2000, "only {checked} rows in today's format");
        for m in [
            "graphcl",
            "simgrace",
            "adgcl-fixed",
            "base",
            "untrained-graphcl",
            "wl",
        ] {
            assert!(methods.contains(m), "no committed row of {m}: {methods:?}");
        }
    }

    /// For every method, with and without MA: a resolved config with any one field of
    /// the table left out (or spelt the old way) normalises to the resolved config, as
    /// reading it through `RunConfig` does.
    #[test]
    fn the_reports_defaults_table_agrees_with_run_config_field_by_field() {
        use magcl_report::config::{normalise, ADDED_FIELDS, WRITTEN_ONLY_WHEN_SET};
        use serde_json::Value;
        let mut variants = 0;
        for method in [
            MethodName::parse("graphcl").unwrap(),
            MethodName::parse("simgrace").unwrap(),
            MethodName::parse("adgcl").unwrap(),
            MethodName::parse("base").unwrap(),
        ] {
            for ma in [false, true] {
                let mut overrides = serde_json::Map::new();
                overrides.insert("ma".into(), serde_json::json!({ "enabled": ma }));
                let cfg = RunConfig::resolve(&RunSpec {
                    method: Some(method),
                    dataset: if method == MethodName::parse("base").unwrap() {
                        "Cora".into()
                    } else {
                        "MUTAG".into()
                    },
                    overrides,
                    ..Default::default()
                })
                .unwrap();
                let full = serde_json::to_value(&cfg).unwrap();
                assert_eq!(normalise(&full.to_string()), full, "{method:?} ma={ma}");
                let mut edits: Vec<Value> = Vec::new();
                for (section, field, default) in ADDED_FIELDS {
                    let mut v = full.clone();
                    let obj = if section.is_empty() {
                        v.as_object_mut()
                    } else {
                        v.get_mut(*section).and_then(Value::as_object_mut)
                    };
                    let Some(obj) = obj else { continue };
                    obj.remove(*field);
                    // Removing the field is what an old row looks like; the table's
                    // default must be what RunConfig fills in.
                    edits.push(v.clone());
                    let o = if section.is_empty() {
                        v.as_object_mut()
                    } else {
                        v.get_mut(*section).and_then(Value::as_object_mut)
                    };
                    o.unwrap().insert(field.to_string(), default.to_json());
                    edits.push(v);
                }
                for (section, field, default) in WRITTEN_ONLY_WHEN_SET {
                    let mut v = full.clone();
                    if let Some(o) = v.get_mut(*section).and_then(Value::as_object_mut) {
                        o.insert(field.to_string(), default.to_json());
                        edits.push(v);
                    }
                }
                for b in [true, false] {
                    let mut v = full.clone();
                    v["ma"]["constraints"] = Value::Bool(b);
                    edits.push(v);
                }
                for v in edits {
                    let text = v.to_string();
                    let expected = through_run_config(&text)
                        .unwrap_or_else(|| panic!("RunConfig refuses {text}"));
                    assert_eq!(normalise(&text), expected, "{method:?} ma={ma}: {text}");
                    variants += 1;
                }
            }
        }
        assert!(variants > 100, "{variants}");
    }
}
