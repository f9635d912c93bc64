//! `magcl report --sweep`: the cells of a sweep that no result row covers. The sweep is
//! expanded by the experiment layer, so this part of `magcl report` runs in `magcl-torch`
//! (the rest of the command is [`magcl_cli::report`]).
use std::path::{Path, PathBuf};

/// A cell's or row's configuration for matching rows to cells: the normalised config
/// (through [`crate::experiment::RunConfig`]), without `threads` unless the sweep fixes it
/// (bench fills an unfixed count in per machine).
fn match_key(cfg: &crate::experiment::RunConfig, keep_threads: bool) -> String {
    let mut v = serde_json::to_value(cfg).unwrap_or_default();
    if !keep_threads {
        if let Some(o) = v.as_object_mut() {
            o.remove("threads");
        }
    }
    v.to_string()
}

/// Lists on stderr the cells of `sweep` that no row of `files` covers.
pub fn report_missing_cells(sweep: &Path, files: &[PathBuf]) -> anyhow::Result<()> {
    use std::collections::HashSet;
    let s = crate::experiment::sweep::Sweep::load(sweep)?;
    let mut with_threads = HashSet::new();
    let mut without_threads = HashSet::new();
    for f in files {
        for r in crate::experiment::results::read_rows(f)? {
            if let Ok(cfg) = serde_json::from_str::<crate::experiment::RunConfig>(&r.config) {
                with_threads.insert(match_key(&cfg, true));
                without_threads.insert(match_key(&cfg, false));
            }
        }
    }
    let missing: Vec<_> = s
        .cells
        .iter()
        .filter(|c| {
            let fixed = c.config.threads != 0;
            let set = if fixed {
                &with_threads
            } else {
                &without_threads
            };
            !set.contains(&match_key(&c.config, fixed))
        })
        .collect();
    if missing.is_empty() {
        eprintln!(
            "sweep {}: all {} cells have rows",
            sweep.display(),
            s.cells.len()
        );
        return Ok(());
    }
    eprintln!(
        "sweep {}: {} of {} cells have no row in these files:",
        sweep.display(),
        missing.len(),
        s.cells.len()
    );
    for c in &missing {
        eprintln!("  {}", c.describe());
    }
    eprintln!(
        "run them with `magcl bench {} --out FILE --resume` (FILE: one of the result files), or the missing shards again",
        sweep.display()
    );
    Ok(())
}
