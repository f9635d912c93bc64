//! The layout of the committed `results/` folder, so that a reader finds every experiment
//! and what made it: one folder per experiment, each with a MANIFEST.md that names the
//! commits its rows came from and a line in `results/README.md` that says whether
//! `magcl bench` wrote its manifest; no commit hashes in file names; no scripts; speed rows
//! and A/B checks live under `benchmarks/` (benchmarks/README.md).
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const DIR: &str = env!("CARGO_MANIFEST_DIR");

fn results() -> PathBuf {
    Path::new(DIR).join("results")
}

/// The files of `results/` that git tracks, when this is a git checkout: a user's own runs
/// (untracked, e.g. `magcl bench`'s default `results/NAME/`) are not the committed layout.
/// `None` outside a git checkout (then every file counts).
fn tracked() -> Option<&'static BTreeSet<PathBuf>> {
    static TRACKED: std::sync::OnceLock<Option<BTreeSet<PathBuf>>> = std::sync::OnceLock::new();
    TRACKED.get_or_init(list_tracked).as_ref()
}

fn list_tracked() -> Option<BTreeSet<PathBuf>> {
    let out = std::process::Command::new("git")
        .args(["-C", DIR, "ls-files", "-z", "--", "results"])
        .output()
        .ok()?;
    if !out.status.success() || out.stdout.is_empty() {
        return None;
    }
    Some(
        out.stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| Path::new(DIR).join(String::from_utf8_lossy(p).as_ref()))
            .collect(),
    )
}

/// The entries of `dir` that belong to the committed layout.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let tracked = tracked();
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| match tracked {
            Some(t) => t.iter().any(|f| f == p || f.starts_with(p)),
            None => true,
        })
        .collect();
    v.sort();
    v
}

/// The experiment folders (every entry of `results/` but its README).
fn experiments() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for path in entries(&results()) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "README.md" {
            continue;
        }
        assert!(
            path.is_dir(),
            "results/{name} is not a folder: results/ holds one folder per experiment"
        );
        dirs.push(path);
    }
    dirs
}

/// A name part that looks like an abbreviated commit: 7 or more hex digits, with at
/// least one digit and one letter.
fn looks_like_a_commit(part: &str) -> bool {
    part.len() >= 7
        && part
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        && part.chars().any(|c| c.is_ascii_digit())
        && part.chars().any(|c| c.is_ascii_alphabetic())
}

#[test]
fn the_hash_detector_sees_hashes_and_only_hashes() {
    assert!(looks_like_a_commit("1b429bb"));
    assert!(looks_like_a_commit("40900ab60826"));
    assert!(!looks_like_a_commit("graphcl"));
    assert!(!looks_like_a_commit("1234567")); // digits only: a count, not a hash
    assert!(!looks_like_a_commit("facade")); // too short
}

#[test]
fn every_experiment_folder_has_a_manifest_and_no_hash_in_file_names() {
    let dirs = experiments();
    assert!(dirs.len() >= 10, "{dirs:?}");
    for dir in &dirs {
        assert!(
            dir.join("MANIFEST.md").is_file(),
            "{} has no MANIFEST.md",
            dir.display()
        );
        for path in entries(dir) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            for part in name.split(['_', '-', '.']) {
                assert!(
                    !looks_like_a_commit(part),
                    "{}/{name}: commit hashes belong in MANIFEST.md, not in file names",
                    dir.display()
                );
            }
        }
    }
}

#[test]
fn every_commit_in_the_rows_is_named_in_the_manifest() {
    let mut checked = 0;
    for dir in experiments() {
        let manifest = std::fs::read_to_string(dir.join("MANIFEST.md")).unwrap();
        for path in entries(&dir) {
            if path.extension().and_then(|x| x.to_str()) != Some("csv") {
                continue;
            }
            let mut rdr = csv::Reader::from_path(&path).unwrap();
            let Some(col) = rdr
                .headers()
                .unwrap()
                .iter()
                .position(|h| h == "git_commit")
            else {
                continue;
            };
            let commits: BTreeSet<String> = rdr
                .records()
                .map(|r| r.unwrap()[col].trim_end_matches("-dirty").to_string())
                .collect();
            for c in commits {
                let short = &c[..c.len().min(7)];
                assert!(
                    manifest.contains(short),
                    "{}: rows of commit {c} but MANIFEST.md does not name {short}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} commits checked");
}

#[test]
fn speed_rows_are_not_results() {
    for dir in experiments() {
        for path in entries(&dir) {
            if path.extension().and_then(|x| x.to_str()) != Some("csv") {
                continue;
            }
            let mut rdr = csv::Reader::from_path(&path).unwrap();
            let speed = rdr
                .headers()
                .unwrap()
                .iter()
                .any(|h| h == "sec_per_epoch_median");
            assert!(
                !speed,
                "{}: bench-speed rows go under benchmarks/ (benchmarks/README.md)",
                path.display()
            );
        }
    }
}

/// The table rows of `results/README.md`: (folder name, manifest column).
fn index_rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(results().join("README.md")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("| [`"))
        .map(|l| {
            let name = l.split('/').next().unwrap().to_string();
            let manifest = l.trim_end_matches('|').rsplit('|').next().unwrap().trim();
            (name, manifest.to_string())
        })
        .collect()
}

#[test]
fn the_index_lists_every_folder_and_says_who_wrote_its_manifest() {
    let rows = index_rows();
    let listed: BTreeSet<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(listed.len(), rows.len(), "a folder is listed twice");
    let folders: BTreeSet<String> = experiments()
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        listed,
        folders.iter().map(|s| s.as_str()).collect(),
        "results/README.md must list every folder of results/ and nothing else"
    );
    for (name, manifest) in &rows {
        let written = entries(&results().join(name))
            .iter()
            .any(|p| p.to_string_lossy().ends_with(".manifest.jsonl"));
        assert_eq!(
            manifest.starts_with("`magcl bench`"),
            written,
            "results/{name}: the index's manifest column ({manifest:?}) must say `magcl bench` \
             exactly when the folder holds a .manifest.jsonl; otherwise 'by hand' and why"
        );
        if !written {
            assert!(
                manifest.starts_with("by hand"),
                "results/{name}: {manifest:?}"
            );
        }
    }
}

#[test]
fn no_scripts_under_results() {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for path in entries(dir) {
            if path.is_dir() {
                walk(&path, found);
            } else if matches!(
                path.extension().and_then(|x| x.to_str()),
                Some("sh" | "py" | "bash" | "R" | "ipynb")
            ) {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&results(), &mut found);
    assert!(
        found.is_empty(),
        "scripts belong in tools/ or benchmarks/, not results/: {found:?}"
    );
}
