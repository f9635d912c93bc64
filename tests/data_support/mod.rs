//! Helpers shared by the `data_*` integration tests.
#![allow(dead_code)]
use magcl::data::DataConfig;
use std::path::{Path, PathBuf};

/// The dataset mirror: `$MAGCL_DATA_MIRROR`, else `../shared/datasets` beside the crate.
pub fn mirror() -> PathBuf {
    let p = std::env::var_os("MAGCL_DATA_MIRROR")
        .filter(|m| !m.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    assert!(
        p.join("tu/MUTAG/MUTAG_A.txt").is_file(),
        "dataset mirror not found at {}; set MAGCL_DATA_MIRROR to a folder laid out like shared/datasets",
        p.display()
    );
    p
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/data")
}

/// A fresh temporary cache with the shared mirror.
pub fn cache_with_mirror() -> (tempfile::TempDir, DataConfig) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cfg = DataConfig {
        cache_dir: tmp.path().to_path_buf(),
        mirror: Some(mirror().display().to_string()),
    };
    (tmp, cfg)
}

/// A fresh temporary cache with the given mirror (folder or URL).
pub fn cache_with(mirror: &str) -> (tempfile::TempDir, DataConfig) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cfg = DataConfig {
        cache_dir: tmp.path().to_path_buf(),
        mirror: Some(mirror.to_string()),
    };
    (tmp, cfg)
}

/// Every file below `dir`, relative, sorted (hidden temporary entries included).
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let p = e.path();
                out.push(p.strip_prefix(base).unwrap_or(&p).display().to_string());
                if p.is_dir() {
                    walk(base, &p, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}
