//! Property tests of result-file parsing (`magcl report`'s reader and
//! `ResultsFile::open`, which `magcl bench --out` uses) fed random bytes, random
//! truncations and random byte damage of real result files. Never a panic; a file that is
//! not a magcl result file is never changed; a magcl result file is changed only by
//! cutting off an incomplete last line (with resume) or by writing the header into an
//! empty file.
use std::path::{Path, PathBuf};

use magcl_torch::experiment::results::{header_line, read_rows, ResultsFile};
use magcl_torch::report::{Metric, Report};
use proptest::prelude::*;

const DIR: &str = env!("CARGO_MANIFEST_DIR");

/// Real result files of the repository (small ones, so that each case stays fast).
fn real_files() -> Vec<Vec<u8>> {
    [
        "tests/fixtures/bench/report_small.csv",
        "tests/fixtures/bench/graphcl_mutag_devbox.csv",
        "results/citeseer_split/citeseer_split.csv",
    ]
    .iter()
    .map(|p| Path::new(DIR).join(p))
    // A moved file fails here instead of silently shrinking the corpus.
    .map(|p| std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
    .collect()
}

/// Checks every promise on `bytes` as the content of a result file.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let p: PathBuf = dir.path().join("r.csv");

    // The report's reader: an answer or an error, never a panic.
    std::fs::write(&p, bytes).unwrap();
    let rows = read_rows(&p);
    let _ = Report::from_files(std::slice::from_ref(&p), Metric::Accuracy);
    let _ = Report::from_files(std::slice::from_ref(&p), Metric::Nmi);
    prop_assert!(
        std::fs::read(&p).unwrap() == bytes,
        "reading changed the file"
    );

    let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let header = header_line();
    // The earlier formats' headers: without `data_source`, and without `warnings` too.
    let current = header.trim_end();
    let old_headers: Vec<String> = [",data_source", ",warnings,data_source"]
        .iter()
        .map(|added| format!("{}\n", current.strip_suffix(added).unwrap()))
        .collect();
    for resume in [false, true] {
        std::fs::write(&p, bytes).unwrap();
        let opened = ResultsFile::open(&p, resume);
        let after = std::fs::read(&p).unwrap();
        match opened {
            Err(_) => prop_assert!(after == bytes, "a refused file was changed"),
            Ok((f, existing)) => {
                drop(f);
                if after == bytes {
                    // Opened as it was: it must read as a result file.
                    prop_assert!(rows.is_ok(), "opened a file the reader refuses");
                } else if complete == 0 {
                    // Empty, or (with resume) a header cut short: now exactly the header.
                    prop_assert!(
                        bytes.is_empty() || (resume && header.as_bytes().starts_with(bytes)),
                        "a short file was rewritten without --resume"
                    );
                    prop_assert!(after == header.as_bytes());
                } else if old_headers.iter().any(|h| bytes.starts_with(h.as_bytes())) {
                    // An earlier format, upgraded in place: the same rows.
                    let before = rows
                        .as_ref()
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert!(resume || before.is_empty(), "upgraded without --resume");
                    let now = read_rows(&p).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert!(&now == before, "the upgrade changed the rows");
                    prop_assert!(after.starts_with(header.as_bytes()));
                } else {
                    // Only an incomplete last line may go, and only with resume.
                    prop_assert!(resume, "changed without --resume");
                    prop_assert!(
                        after == bytes[..complete],
                        "more than the last line changed"
                    );
                    prop_assert_eq!(existing.repaired_bytes, bytes.len() - complete);
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&bytes)?;
    }

    #[test]
    fn random_bytes_after_a_valid_header(
        tail in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        let mut bytes = header_line().into_bytes();
        bytes.extend(tail);
        check(&bytes)?;
    }

    #[test]
    fn truncated_real_files(which in 0usize..3, cut in 0.0f64..1.0) {
        let files = real_files();
        let file = &files[which % files.len()];
        let n = (file.len() as f64 * cut) as usize;
        check(&file[..n])?;
    }

    #[test]
    fn damaged_real_files(
        which in 0usize..3,
        edits in proptest::collection::vec((0.0f64..1.0, any::<u8>()), 1..6),
        cut in 0.5f64..1.0,
    ) {
        let files = real_files();
        let mut file = files[which % files.len()].clone();
        for (at, b) in edits {
            let i = ((file.len() - 1) as f64 * at) as usize;
            file[i] = b;
        }
        let n = (file.len() as f64 * cut) as usize;
        check(&file[..n])?;
    }
}
