//! A file that is not a magcl result file is never changed by `magcl bench --out` or
//! `ResultsFile::open`, whatever its shape, with or without `--resume`; a result file of
//! magcl's own is changed only by cutting off a last line a kill left incomplete, and only
//! with resume (docs/reliability.md, "Crash-resume and result files"). Random damage:
//! `damaged_result_files.rs`.
mod cli_support;

use magcl_torch::experiment::results::ResultsFile;

use cli_support::{assert_clean_error, magcl, row, run_for, sweep};

#[test]
fn bench_out_refuses_a_foreign_file_without_a_trailing_newline_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let s = sweep(dir.path(), "seeds = 1");
    let t = dir.path().join("t.csv");
    std::fs::write(&t, "notes").unwrap();
    for resume in [false, true] {
        let mut c = magcl(dir.path());
        c.arg("bench").arg(&s).arg("--out").arg(&t);
        if resume {
            c.arg("--resume");
        }
        let o = run_for(c, 60);
        assert_clean_error(&o, &["not a magcl result file", "left unchanged"]);
        assert_eq!(std::fs::read(&t).unwrap(), b"notes");
    }
}

#[test]
fn bench_out_resume_refuses_a_multi_line_foreign_file_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let s = sweep(dir.path(), "seeds = 1");
    let t = dir.path().join("u.csv");
    std::fs::write(&t, "alpha\nbeta\ngamma, no newline").unwrap();
    let mut c = magcl(dir.path());
    c.arg("bench").arg(&s).arg("--out").arg(&t).arg("--resume");
    let o = run_for(c, 60);
    assert_clean_error(&o, &["not a magcl result file"]);
    assert_eq!(
        std::fs::read(&t).unwrap(),
        b"alpha\nbeta\ngamma, no newline"
    );
}

/// `ResultsFile::open` itself: a foreign file is an error and unchanged, whatever its
/// shape; a file of ours with a cut-off last line is repaired only with resume.
#[test]
fn results_file_open_changes_only_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.csv");
    for foreign in [
        &b"notes"[..],
        b"a\nb\nc",
        b"a,b\n1,2\n",
        b"\n",
        b"dataset,method\nMUTAG,graphcl\npartial",
    ] {
        for resume in [false, true] {
            std::fs::write(&p, foreign).unwrap();
            assert!(ResultsFile::open(&p, resume).is_err(), "{foreign:?}");
            assert_eq!(std::fs::read(&p).unwrap(), foreign);
        }
    }
    // As short as a header cut off by a kill: rewritten only with resume.
    std::fs::write(&p, b"dataset,meth").unwrap();
    assert!(ResultsFile::open(&p, false).is_err());
    assert_eq!(std::fs::read(&p).unwrap(), b"dataset,meth");
    drop(ResultsFile::open(&p, true).unwrap());
    assert_eq!(
        std::fs::read(&p).unwrap(),
        magcl_torch::experiment::results::header_line().as_bytes()
    );
    // Ours, killed mid-row.
    let mut ours = magcl_torch::experiment::results::header_line().into_bytes();
    ours.extend(
        row("MUTAG", false, 0, serde_json::json!({}), 80.0)
            .to_line()
            .unwrap(),
    );
    let complete = ours.len();
    ours.extend_from_slice(b"MUTAG,graphcl,no");
    std::fs::write(&p, &ours).unwrap();
    assert!(ResultsFile::open(&p, false).is_err());
    assert_eq!(std::fs::read(&p).unwrap(), ours);
    let (f, ex) = ResultsFile::open(&p, true).unwrap();
    drop(f);
    assert_eq!(ex.rows, 1);
    assert_eq!(std::fs::read(&p).unwrap(), &ours[..complete]);
}
