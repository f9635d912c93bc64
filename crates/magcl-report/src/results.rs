//! Result files: one CSV row per finished run. (The row of a run is made on the tensor
//! side, `magcl::experiment::results::FromRecord`; reading and appending rows needs no
//! tensors.)
//!
//! Rows are appended crash-safely: each row is one complete line written with a single
//! `write` on a file opened with `O_APPEND`, then `fsync`ed, so a process killed at any
//! moment leaves at most a truncated last line. [`ResultsFile::open`] detects such a line
//! and cuts it off (`--resume`), and reports which cells (by config hash) are done.
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The columns of a result file, in order.
pub const COLUMNS: &[&str] = &[
    "dataset",
    "method",
    "ma",
    "variant",
    "seed",
    "evaluator",
    "config_hash",
    "accuracy",
    "accuracy_std_folds",
    "nmi",
    "selected_epoch",
    "epochs",
    "train_seconds",
    "eval_seconds",
    "peak_memory_mb",
    "device",
    "threads",
    "git_commit",
    "magcl_version",
    "config",
    "warnings",
    "data_source",
];

/// The result-file formats before the current one, by their number of columns: each
/// format's header is the first columns of [`COLUMNS`]. Format 1 ends at `config`, format 2
/// added `warnings`, format 3 (the current one) `data_source`. Files of every format read
/// as they are (an added column absent reads as empty); a sweep resuming an older file
/// upgrades it in place (the added columns empty on every row), so one file holds one
/// format.
const OLDER_FORMATS: &[usize] = &[COLUMNS.len() - 2, COLUMNS.len() - 1];

/// The `data_source` of a row whose dataset was generated in memory (`synthetic`,
/// `synthetic-node:...`): no file was read.
pub const GENERATED: &str = "generated";

/// One row of a result file.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ResultRow {
    pub dataset: String,
    pub method: String,
    /// MA label (`none` for the baseline).
    pub ma: String,
    /// Grid-point label, empty without a grid.
    #[serde(default)]
    pub variant: String,
    pub seed: u64,
    #[serde(default)]
    pub evaluator: String,
    pub config_hash: String,
    /// Test accuracy in percent.
    pub accuracy: f64,
    pub accuracy_std_folds: Option<f64>,
    pub nmi: Option<f64>,
    pub selected_epoch: Option<usize>,
    pub epochs: usize,
    pub train_seconds: f64,
    pub eval_seconds: f64,
    pub peak_memory_mb: f64,
    pub device: String,
    pub threads: usize,
    pub git_commit: String,
    pub magcl_version: String,
    /// The resolved RunConfig as compact JSON.
    pub config: String,
    /// The run's warnings (e.g. one embedding dimension dominating), joined by "; ";
    /// empty for none and in files written before this column existed.
    #[serde(default)]
    pub warnings: String,
    /// Which copy of the dataset the run read: `PATH sha256:HEX` (a file's sha256, or a
    /// TU or Planetoid folder's digest of its files; see docs/datasets.md), [`GENERATED`]
    /// for a generated set, empty where not recorded (files written before this column
    /// existed). Not part of the config or its hash: the same configuration run on two
    /// copies of the same graphs is the same cell.
    #[serde(default)]
    pub data_source: String,
}

/// A row's `data_source` read: see [`ResultRow::data_source`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataCopy<'a> {
    /// Not recorded (a row written before the column existed, or by a caller that did
    /// not say).
    Unrecorded,
    /// Generated in memory, no file read.
    Generated,
    /// Read from files: where, and the sha256 of what was read there.
    Read { path: &'a str, sha256: &'a str },
}

impl DataCopy<'_> {
    /// Reads a `data_source` value; `Err` says what was expected.
    pub fn parse(s: &str) -> std::result::Result<DataCopy<'_>, String> {
        if s.is_empty() {
            return Ok(DataCopy::Unrecorded);
        }
        if s == GENERATED {
            return Ok(DataCopy::Generated);
        }
        let expected =
            "expected 'PATH sha256:HEX' (64 lowercase hex digits), 'generated' or nothing";
        let Some((path, sha256)) = s.rsplit_once(" sha256:") else {
            return Err(format!("data_source '{s}' is malformed: {expected}"));
        };
        let hex = sha256.len() == 64
            && sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if path.trim().is_empty() || !hex {
            return Err(format!("data_source '{s}' is malformed: {expected}"));
        }
        Ok(DataCopy::Read { path, sha256 })
    }
}

/// `s` on one line (line breaks become spaces): what every text column of a row holds.
pub fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

impl ResultRow {
    /// The row's `data_source` read; [`DataCopy::Unrecorded`] for a malformed value
    /// (which [`check_values`] refuses when a file is read).
    pub fn data_copy(&self) -> DataCopy<'_> {
        DataCopy::parse(&self.data_source).unwrap_or(DataCopy::Unrecorded)
    }

    /// The row as one CSV line, newline included.
    pub fn to_line(&self) -> Result<Vec<u8>> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.serialize(self)
            .map_err(|e| Error::Config(format!("cannot write a result row: {e}")))?;
        w.into_inner()
            .map_err(|e| Error::Config(format!("cannot write a result row: {e}")))
    }
}

/// The header line, newline included.
pub fn header_line() -> String {
    format!("{}\n", COLUMNS.join(","))
}

/// A result file open for appending.
pub struct ResultsFile {
    path: PathBuf,
    file: File,
}

/// What [`ResultsFile::open`] found in an existing file.
#[derive(Debug, Default)]
pub struct ExistingRows {
    /// Config hashes of the rows already there.
    pub done: HashSet<String>,
    pub rows: usize,
    /// Bytes of a truncated last line that were cut off (0 if none).
    pub repaired_bytes: usize,
}

impl ResultsFile {
    /// Opens (creating it and its folder, with a header, if needed) a result file for
    /// appending. An existing file with rows is an error unless `resume`; with `resume`, a
    /// truncated last line is cut off and the finished cells are returned. The file is
    /// locked so that two bench processes cannot write it at once.
    pub fn open(path: &Path, resume: bool) -> Result<(ResultsFile, ExistingRows)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::file(dir, format!("cannot create folder: {e}")))?;
        }
        let mut file = crate::files::open_regular(
            path,
            OpenOptions::new().read(true).append(true).create(true),
            "a results file",
        )?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::file(
                    path,
                    "another magcl bench is writing this file (it is locked)",
                ))
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Error::file(path, format!("cannot lock: {e}")))
            }
        }
        let mut bytes = crate::files::read_bounded(
            &mut file,
            path,
            crate::files::MAX_RESULTS_BYTES,
            "the results file",
        )?;
        let mut existing = ExistingRows::default();
        // Everything below only reads until the file is known to be a magcl result file:
        // a foreign file is refused with not one byte changed.
        let complete = match bytes.iter().rposition(|b| *b == b'\n') {
            Some(i) => i + 1,
            None => 0,
        };
        let header = header_line();
        let old_headers: Vec<String> = OLDER_FORMATS
            .iter()
            .map(|n| format!("{}\n", COLUMNS[..*n].join(",")))
            .collect();
        if complete == 0 {
            // No complete line: empty, or a header whose writer was killed mid-write.
            if !bytes.is_empty()
                && !header.as_bytes().starts_with(&bytes)
                && !old_headers.iter().any(|h| h.as_bytes().starts_with(&bytes))
            {
                return Err(not_ours(path));
            }
            if !bytes.is_empty() && !resume {
                // Most likely ours, killed while writing the header; but a user's file
                // could be that short too, so it is rewritten only when asked to.
                return Err(incomplete_last_line(path));
            }
        } else {
            let first_end = bytes.iter().position(|b| *b == b'\n').unwrap_or(0) + 1;
            let first = &bytes[..first_end];
            let first = first.strip_suffix(b"\r\n").map_or(first.to_vec(), |f| {
                let mut f = f.to_vec();
                f.push(b'\n');
                f
            });
            if old_headers.iter().any(|h| first == h.as_bytes()) {
                let rows = read_rows_from(path, &bytes[..complete])?;
                if !rows.is_empty() && !resume {
                    return Err(already_holds(path, rows.len()));
                }
                if complete < bytes.len() && !resume {
                    return Err(incomplete_last_line(path));
                }
                existing.repaired_bytes = bytes.len() - complete;
                upgrade(path, &rows)?;
                drop(file);
                let (rf, mut again) = ResultsFile::open(path, resume)?;
                again.repaired_bytes += existing.repaired_bytes;
                return Ok((rf, again));
            }
            if first != header.as_bytes() {
                return Err(not_ours(path));
            }
            // The complete rows must all read before anything is repaired.
            let rows = read_rows_from(path, &bytes[..complete])?;
            if !rows.is_empty() && !resume {
                return Err(already_holds(path, rows.len()));
            }
            if complete < bytes.len() && !resume {
                return Err(incomplete_last_line(path));
            }
            existing.rows = rows.len();
            existing.done = rows.into_iter().map(|r| r.config_hash).collect();
        }
        // Cut off an incomplete last line (a writer killed mid-write).
        if complete < bytes.len() {
            file.set_len(complete as u64)
                .and_then(|_| file.sync_data())
                .map_err(|e| Error::file(path, format!("cannot repair truncated line: {e}")))?;
            existing.repaired_bytes = bytes.len() - complete;
            bytes.truncate(complete);
        }
        let rf = ResultsFile {
            path: path.to_path_buf(),
            file,
        };
        if bytes.is_empty() {
            rf.append_raw(header.as_bytes())?;
        }
        Ok((rf, existing))
    }

    /// Appends one row: a single `write` of the complete line, then `fsync`.
    pub fn append(&self, row: &ResultRow) -> Result<()> {
        self.append_raw(&row.to_line()?)
    }

    fn append_raw(&self, line: &[u8]) -> Result<()> {
        let mut f = &self.file;
        let n = f
            .write(line)
            .map_err(|e| Error::file(&self.path, format!("cannot append: {e}")))?;
        if n < line.len() {
            // A short write on a regular file (disk full?): finish it so the file stays
            // line-structured, then report.
            f.write_all(&line[n..])
                .map_err(|e| Error::file(&self.path, format!("cannot append: {e}")))?;
        }
        self.file
            .sync_data()
            .map_err(|e| Error::file(&self.path, format!("cannot sync: {e}")))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn not_ours(path: &Path) -> Error {
    Error::parse(
        path,
        1,
        format!(
            "not a magcl result file of this version (header differs), left unchanged; choose another --out. Expected columns: {}",
            COLUMNS.join(",")
        ),
    )
}

fn incomplete_last_line(path: &Path) -> Error {
    Error::file(
        path,
        "the last line is incomplete (a run was killed while writing); pass --resume to repair and continue",
    )
}

fn already_holds(path: &Path, rows: usize) -> Error {
    Error::file(
        path,
        format!(
            "already holds {rows} result rows; pass --resume to continue this sweep, or choose another --out"
        ),
    )
}

/// Rewrites a result file of an earlier format ([`OLDER_FORMATS`]) in the current one,
/// the added columns empty: written to a temporary file beside it, synced, then renamed
/// over it, so a crash leaves either the old file or the new one.
fn upgrade(path: &Path, rows: &[ResultRow]) -> Result<()> {
    let mut out = header_line().into_bytes();
    for r in rows {
        out.extend(r.to_line()?);
    }
    crate::files::write_atomic(path, &out).map_err(|e| {
        Error::file(
            path,
            format!("cannot add the columns of the current format: {e}"),
        )
    })
}

/// Reads the rows of one result file. Repeated header lines (files concatenated with
/// `cat`) are skipped; an incomplete last line is ignored.
pub fn read_rows(path: &Path) -> Result<Vec<ResultRow>> {
    Ok(read_rows_located(path)?
        .into_iter()
        .map(|(r, _)| r)
        .collect())
}

/// [`read_rows`], each row with its line in the file (1 is the header).
pub fn read_rows_located(path: &Path) -> Result<Vec<(ResultRow, usize)>> {
    let mut bytes =
        crate::files::read_regular(path, crate::files::MAX_RESULTS_BYTES, "a results file")?;
    if let Some(i) = bytes.iter().rposition(|b| *b == b'\n') {
        bytes.truncate(i + 1);
    } else {
        bytes.clear();
    }
    read_located(path, bytes.as_slice())
}

fn read_rows_from(path: &Path, bytes: &[u8]) -> Result<Vec<ResultRow>> {
    Ok(read_located(path, bytes)?
        .into_iter()
        .map(|(r, _)| r)
        .collect())
}

fn read_located(path: &Path, bytes: &[u8]) -> Result<Vec<(ResultRow, usize)>> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(bytes);
    let headers = rdr
        .headers()
        .map_err(|e| Error::parse(path, 1, format!("cannot read the header: {e}")))?
        .clone();
    for col in ["dataset", "method", "ma", "seed", "config_hash", "accuracy"] {
        if !headers.iter().any(|h| h == col) {
            return Err(Error::parse(
                path,
                1,
                format!("missing column '{col}'; expected a magcl result file"),
            ));
        }
    }
    let mut rows = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map(|p| p.line() as usize).unwrap_or(0);
            Error::parse(path, line, format!("malformed CSV row: {e}"))
        })?;
        let line = rec.position().map(|p| p.line() as usize).unwrap_or(0);
        if rec.iter().zip(headers.iter()).all(|(a, b)| a == b) {
            continue; // a repeated header
        }
        let row: ResultRow = rec
            .deserialize(Some(&headers))
            .map_err(|e| Error::parse(path, line, format!("malformed result row: {e}")))?;
        check_values(&row).map_err(|msg| Error::parse(path, line, msg))?;
        rows.push((row, line));
    }
    Ok(rows)
}

/// Values no run can produce are errors, not data: an accuracy outside [0, 100], an NMI
/// outside [0, 1], a non-finite number in any numeric column, or a `data_source` that is
/// not one of its three forms ([`DataCopy`]). Checked on every row read and, by the
/// Python module's `record`, on every row before it is appended.
pub fn check_values(r: &ResultRow) -> std::result::Result<(), String> {
    DataCopy::parse(&r.data_source)?;
    let finite = [
        ("accuracy", Some(r.accuracy)),
        ("accuracy_std_folds", r.accuracy_std_folds),
        ("nmi", r.nmi),
        ("train_seconds", Some(r.train_seconds)),
        ("eval_seconds", Some(r.eval_seconds)),
        ("peak_memory_mb", Some(r.peak_memory_mb)),
    ];
    for (name, v) in finite {
        if let Some(v) = v.filter(|v| !v.is_finite()) {
            return Err(format!(
                "{name} is {v}; a result row holds finite numbers only (a damaged or edited file?)"
            ));
        }
    }
    if !(0.0..=100.0).contains(&r.accuracy) {
        return Err(format!(
            "accuracy {} lies outside [0, 100] (percent); a damaged or edited file?",
            r.accuracy
        ));
    }
    if let Some(n) = r.nmi.filter(|n| !(0.0..=1.0).contains(n)) {
        return Err(format!(
            "nmi {n} lies outside [0, 1]; a damaged or edited file?"
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A row as a GraphCL run on MUTAG writes it (config shortened).
    pub(crate) fn row(seed: u64) -> ResultRow {
        ResultRow {
            dataset: "MUTAG".into(),
            method: "graphcl".into(),
            ma: "none".into(),
            variant: "ma.pi=0.1".into(),
            seed,
            evaluator: "svc-rbf".into(),
            config_hash: format!("{:016x}", 0x9e37_79b9_u64.wrapping_mul(seed + 1)),
            accuracy: 88.5,
            accuracy_std_folds: None,
            nmi: None,
            selected_epoch: None,
            epochs: 20,
            train_seconds: 0.0,
            eval_seconds: 0.0,
            peak_memory_mb: 0.0,
            device: "cpu".into(),
            threads: 2,
            git_commit: "unknown".into(),
            magcl_version: "0.1.0".into(),
            config: format!(r#"{{"method":"graphcl","dataset":"MUTAG","seed":{seed},"lr":0.01}}"#),
            warnings: String::new(),
            data_source: format!("/data/tu/MUTAG sha256:{}", "0123456789abcdef".repeat(4)),
        }
    }

    #[test]
    fn rows_round_trip_and_resume_repairs() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/r.csv");
        let (f, ex) = ResultsFile::open(&p, false).unwrap();
        assert_eq!(ex.rows, 0);
        f.append(&row(0)).unwrap();
        f.append(&row(1)).unwrap();
        drop(f);
        let rows = read_rows(&p).unwrap();
        assert_eq!(rows, vec![row(0), row(1)]);
        // Without --resume an existing file with rows is refused.
        assert!(ResultsFile::open(&p, false).is_err());
        // Simulate a killed writer: half a line at the end.
        let line = row(2).to_line().unwrap();
        let mut raw = std::fs::read(&p).unwrap();
        raw.extend_from_slice(&line[..line.len() / 2]);
        std::fs::write(&p, &raw).unwrap();
        assert_eq!(read_rows(&p).unwrap().len(), 2);
        let (f, ex) = ResultsFile::open(&p, true).unwrap();
        assert_eq!(ex.rows, 2);
        assert_eq!(ex.repaired_bytes, line.len() / 2);
        assert!(ex.done.contains(&row(1).config_hash));
        f.append(&row(2)).unwrap();
        drop(f);
        assert_eq!(read_rows(&p).unwrap(), vec![row(0), row(1), row(2)]);
    }

    #[test]
    fn warnings_are_kept_in_one_field() {
        let mut r = row(3);
        r.warnings = "dimension 7 dominates, \"x\"; second line\nhere".into();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.csv");
        let (f, _) = ResultsFile::open(&p, false).unwrap();
        f.append(&r).unwrap();
        f.append(&row(4)).unwrap();
        drop(f);
        let back = read_rows(&p).unwrap();
        assert_eq!(back[0].warnings, r.warnings);
        assert_eq!(back[1].warnings, "");
    }

    /// A row as a file of the first `n` columns holds it: the current line cut after its
    /// `n`-th field.
    fn line_of_format(r: &ResultRow, n: usize) -> Vec<u8> {
        let line = r.to_line().unwrap();
        let rec = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_slice())
            .records()
            .next()
            .unwrap()
            .unwrap();
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.write_record(rec.iter().take(n)).unwrap();
        w.into_inner().unwrap()
    }

    /// The row of `seed` as an older file holds it: no warnings, no data source.
    fn old_row(seed: u64) -> ResultRow {
        ResultRow {
            warnings: String::new(),
            data_source: String::new(),
            ..row(seed)
        }
    }

    /// Files of the earlier formats (format 1: no `warnings`; format 2, most committed
    /// files: no `data_source`) are read as they are, the absent columns empty; refused
    /// without --resume, and upgraded in place on resume, killed last line included; the
    /// rows appended after carry their data source.
    #[test]
    fn files_of_earlier_formats_read_and_are_upgraded_on_resume() {
        assert_eq!(OLDER_FORMATS, &[20, 21]);
        assert_eq!(COLUMNS[19], "config");
        for &n in OLDER_FORMATS {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("old.csv");
            let mut raw = format!("{}\n", COLUMNS[..n].join(",")).into_bytes();
            raw.extend(line_of_format(&row(0), n));
            raw.extend(line_of_format(&row(1), n));
            let half = line_of_format(&row(2), n);
            raw.extend_from_slice(&half[..half.len() / 2]);
            std::fs::write(&p, &raw).unwrap();
            assert_eq!(read_rows(&p).unwrap(), vec![old_row(0), old_row(1)], "{n}");
            assert_eq!(read_rows(&p).unwrap()[0].data_copy(), DataCopy::Unrecorded);
            assert!(ResultsFile::open(&p, false).is_err());
            // reading refused nothing and changed nothing
            assert_eq!(std::fs::read(&p).unwrap(), raw);
            let (f, ex) = ResultsFile::open(&p, true).unwrap();
            assert_eq!(ex.rows, 2);
            assert_eq!(ex.repaired_bytes, half.len() / 2);
            f.append(&row(2)).unwrap();
            drop(f);
            let text = std::fs::read_to_string(&p).unwrap();
            assert_eq!(text.lines().next().unwrap(), COLUMNS.join(","));
            assert_eq!(
                read_rows(&p).unwrap(),
                vec![old_row(0), old_row(1), row(2)],
                "{n}"
            );
            assert!(!dir.path().join("old.csv.upgrading").exists());
        }
    }

    /// A row written and read back keeps its data source, in each of its three forms.
    #[test]
    fn data_source_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.csv");
        let sha = "ab".repeat(32);
        let values = [
            format!("/cache/dgcnn/MUTAG.zip sha256:{sha}"),
            format!("/a path, with \"quotes\" sha256:{sha}"),
            GENERATED.to_string(),
            String::new(),
        ];
        let (f, _) = ResultsFile::open(&p, false).unwrap();
        for (i, v) in values.iter().enumerate() {
            f.append(&ResultRow {
                data_source: v.clone(),
                ..row(i as u64)
            })
            .unwrap();
        }
        drop(f);
        let back = read_rows(&p).unwrap();
        let got: Vec<&str> = back.iter().map(|r| r.data_source.as_str()).collect();
        assert_eq!(got, values.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(
            back[1].data_copy(),
            DataCopy::Read {
                path: "/a path, with \"quotes\"",
                sha256: &sha
            }
        );
        assert_eq!(back[2].data_copy(), DataCopy::Generated);
        assert_eq!(back[3].data_copy(), DataCopy::Unrecorded);
    }

    /// A malformed data source is an error naming the file and line, like any value no
    /// run writes.
    #[test]
    fn malformed_data_sources_are_refused_with_their_line() {
        let sha = "0".repeat(64);
        for bad in [
            "MUTAG".to_string(),
            format!("sha256:{sha}"),
            format!(" sha256:{sha}"),
            format!("/p sha256:{}", &sha[..63]),
            format!("/p sha256:{}", "A".repeat(64)),
            format!("/p sha256:{sha} "),
            "Generated".to_string(),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("bad.csv");
            let mut raw = header_line().into_bytes();
            raw.extend(row(0).to_line().unwrap());
            raw.extend(
                ResultRow {
                    data_source: bad.clone(),
                    ..row(1)
                }
                .to_line()
                .unwrap(),
            );
            std::fs::write(&p, &raw).unwrap();
            let e = read_rows(&p).unwrap_err().to_string();
            assert!(
                e.contains("bad.csv:3:") && e.contains("data_source"),
                "{bad}: {e}"
            );
        }
    }
}
