//! `magcl report`'s options for the floor and for rows from several commits, run through
//! the command's own argument parsing (no libtorch needed).
use std::path::{Path, PathBuf};

use clap::Parser;
use magcl_cli::report::{run, ReportArgs};
use magcl_report::results::{ResultRow, ResultsFile};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: ReportArgs,
}

fn args(a: &[&str]) -> ReportArgs {
    Cli::try_parse_from(std::iter::once("report").chain(a.iter().copied()))
        .unwrap()
        .args
}

fn row(method: &str, seed: u64, acc: f64, commit: &str) -> ResultRow {
    ResultRow {
        dataset: "MUTAG".into(),
        method: method.into(),
        ma: "none".into(),
        variant: String::new(),
        seed,
        evaluator: "svc-rbf".into(),
        config_hash: format!("{method}-{seed}"),
        accuracy: acc,
        accuracy_std_folds: None,
        nmi: None,
        selected_epoch: None,
        epochs: 20,
        train_seconds: 0.0,
        eval_seconds: 0.0,
        peak_memory_mb: 0.0,
        device: "cpu".into(),
        threads: 1,
        git_commit: commit.into(),
        magcl_version: "0.1.0".into(),
        config: format!(r#"{{"method":"{method}","seed":{seed}}}"#),
        warnings: String::new(),
        data_source: String::new(),
    }
}

/// A fresh folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("magcl-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, rows: &[ResultRow]) {
    let (f, _) = ResultsFile::open(path, false).unwrap();
    for r in rows {
        f.append(r).unwrap();
    }
}

/// GraphCL 80, 82, 84 against its untrained encoder 79, 80, 80 (paired: Δ = 1, 2, 4)
/// and WL 85–88: `--floor-csv` writes one line per floor.
#[test]
fn floor_csv_has_a_line_per_floor() {
    let dir = scratch("floor");
    let csv = dir.join("r.csv");
    let mut rows = Vec::new();
    for (s, (m, u)) in [(80.0, 79.0), (82.0, 80.0), (84.0, 80.0)]
        .into_iter()
        .enumerate()
    {
        rows.push(row("graphcl", s as u64, m, "c1"));
        rows.push(row("untrained-graphcl", s as u64, u, "c1"));
    }
    for s in 0..4u64 {
        rows.push(row("wl", s, 85.0 + s as f64, "c1"));
    }
    write(&csv, &rows);
    let out = dir.join("floor.csv");
    run(
        args(&[csv.to_str().unwrap(), "--floor-csv", out.to_str().unwrap()]),
        None,
    )
    .unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    // No field written here holds a comma or a quote: split on commas.
    let mut lines = text.lines().map(|l| l.split(',').collect::<Vec<&str>>());
    let header = lines.next().unwrap();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let lines: Vec<Vec<&str>> = lines.collect();
    assert_eq!(lines.len(), 2, "{text}");
    let untrained = lines
        .iter()
        .find(|l| l[col("kind")] == "untrained")
        .unwrap();
    let d: f64 = untrained[col("mean_diff")].parse().unwrap();
    assert!((d - 7.0 / 3.0).abs() < 1e-12, "{d}");
    let wl = lines
        .iter()
        .find(|l| l[col("kind")] == "classical")
        .unwrap();
    assert_eq!(wl[col("floor_method")], "wl");
    let d: f64 = wl[col("mean_diff")].parse().unwrap();
    assert!((d + 4.5).abs() < 1e-12, "{d}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One configuration's seeds from two commits: refused by default, pooled with
/// `--allow-mixed-commits`.
#[test]
fn mixed_commits_are_refused_unless_allowed() {
    let dir = scratch("mixed");
    let csv = dir.join("r.csv");
    write(
        &csv,
        &[
            row("graphcl", 0, 80.0, "aaa"),
            row("graphcl", 1, 81.0, "bbb"),
        ],
    );
    let e = run(args(&[csv.to_str().unwrap()]), None).unwrap_err();
    let msg = format!("{e:#}");
    assert!(
        msg.contains("2 commits") && msg.contains("--allow-mixed-commits"),
        "{msg}"
    );
    run(
        args(&[csv.to_str().unwrap(), "--allow-mixed-commits"]),
        None,
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--plot` with rows of one method at two epoch counts (the `epochs` column, as the
/// config here does not record it): the training curves take FILE.svg, the bar plot
/// moves to FILE-bars.svg, each with its PNG.
#[test]
fn plot_draws_training_curves_when_rows_hold_several_epoch_counts() {
    let dir = scratch("curves");
    let csv = dir.join("r.csv");
    let mut rows = Vec::new();
    for s in 0..3u64 {
        rows.push(row("graphcl", s, 80.0 + s as f64, "c1"));
        let mut r = row("graphcl", s, 75.0 + s as f64, "c1");
        r.variant = "epochs=5".into();
        r.epochs = 5;
        r.config_hash = format!("graphcl-5-{s}");
        rows.push(r);
        rows.push(row("wl", s, 85.0 + s as f64, "c1"));
    }
    write(&csv, &rows);
    let svg = dir.join("p.svg");
    run(
        args(&[csv.to_str().unwrap(), "--plot", svg.to_str().unwrap()]),
        None,
    )
    .unwrap();
    let curves = std::fs::read_to_string(&svg).unwrap();
    assert!(curves.contains("training epochs (0 = untrained encoder"));
    assert!(curves.contains("WL subtree kernel (floor"));
    let bars = std::fs::read_to_string(dir.join("p-bars.svg")).unwrap();
    assert!(bars.contains("one seed") && !bars.contains("training epochs"));
    for png in ["p.png", "p-bars.png"] {
        assert!(dir.join(png).exists(), "{png}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--plot` with rows pre-trained on subsets of the graphs (`pretrain.graphs`): the
/// pre-training size plot takes FILE.svg, the training curves (the method and its untrained
/// encoder at two epoch counts) FILE-curves.svg and the bar plot FILE-bars.svg; the
/// markdown has the crossover table.
#[test]
fn plot_draws_pretraining_sizes_when_rows_hold_subsets() {
    let dir = scratch("pretrain");
    let csv = dir.join("r.csv");
    // A method no table names: found by its rows and `untrained-<method>` alone.
    let method = "toy";
    let untrained = magcl_report::floor::untrained_of(method).unwrap();
    let wl = magcl_report::floor::classical_names(false)[0];
    let mut rows = Vec::new();
    for s in 0..5u64 {
        let x = s as f64 * 0.5;
        for (graphs, acc) in [(Some(64), 70.0), (Some(128), 75.0), (None, 80.0)] {
            let mut r = row(method, s, acc + x, "c1");
            if let Some(g) = graphs {
                r.variant = format!("pretrain.graphs={g}");
                r.config_hash = format!("{method}-{g}-{s}");
                r.config =
                    format!(r#"{{"method":"{method}","seed":{s},"pretrain":{{"graphs":{g}}}}}"#);
            }
            rows.push(r);
        }
        rows.push(row(
            &untrained,
            s,
            70.0 + x + [0.3, -0.2, 0.1, 0.0, -0.1][s as usize],
            "c1",
        ));
        rows.push(row(wl, s, 74.0 + x, "c1"));
        // The matched-steps curve: the same grid label, `match_steps` in the config.
        for (g, acc) in [(64, 73.0), (128, 77.0)] {
            let mut r = row(method, s, acc + x, "c1");
            r.variant = format!("pretrain.graphs={g}");
            r.config_hash = format!("{method}-{g}-matched-{s}");
            r.config = format!(
                r#"{{"method":"{method}","seed":{s},"pretrain":{{"graphs":{g},"match_steps":true}}}}"#
            );
            rows.push(r);
        }
    }
    write(&csv, &rows);
    let svg = dir.join("p.svg");
    run(
        args(&[csv.to_str().unwrap(), "--plot", svg.to_str().unwrap()]),
        None,
    )
    .unwrap();
    let sizes = std::fs::read_to_string(&svg).unwrap();
    assert!(
        sizes.contains("graphs pre-trained on (log2 axis"),
        "{sizes}"
    );
    assert!(sizes.contains("188 (all)"));
    let curves = std::fs::read_to_string(dir.join("p-curves.svg")).unwrap();
    assert!(curves.contains("training epochs (0 = untrained encoder"));
    let bars = std::fs::read_to_string(dir.join("p-bars.svg")).unwrap();
    assert!(bars.contains("one seed"));
    for png in ["p.png", "p-curves.png", "p-bars.png"] {
        assert!(dir.join(png).exists(), "{png}");
    }
    let mut report =
        magcl_report::Report::from_files(&[csv], magcl_report::Metric::Accuracy).unwrap();
    report.files.clear();
    let text = magcl_report::render::markdown(&report);
    // The section as a whole against its golden file (refresh after an intended change
    // of layout with MAGCL_UPDATE_GOLDEN=1, then review the diff).
    let section = text
        .split("## Pre-training size")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .map(|t| format!("## Pre-training size{t}"))
        .unwrap();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/bench/report_pretrain_section.md");
    if std::env::var_os("MAGCL_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &section).unwrap();
    }
    assert_eq!(section, std::fs::read_to_string(&golden).unwrap());
    // 64 graphs: no gain over the untrained encoder; 128: +5 on every seed.
    assert!(
        text.contains(
            "| MUTAG | toy | none | preset epochs | toy, untrained | untrained | 3 | 128 |"
        ),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without curve data, `magcl report` is as before: the golden markdown of the small
/// fixture (tests/fixtures/bench, also checked by the root crate's report_golden test)
/// is unchanged and `--plot` writes the bar plot alone.
#[test]
fn reports_without_curve_data_are_unchanged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let name = "tests/fixtures/bench/report_small.csv";
    let csv = root.join(name);
    let mut report = magcl_report::Report::from_files(
        std::slice::from_ref(&csv),
        magcl_report::Metric::Accuracy,
    )
    .unwrap();
    assert!(report.curves.is_empty());
    report.files = vec![PathBuf::from(name)];
    let want = std::fs::read_to_string(root.join("tests/fixtures/bench/report_small.md")).unwrap();
    assert_eq!(magcl_report::render::markdown(&report), want);

    let dir = scratch("no-curves");
    let svg = dir.join("p.svg");
    run(
        args(&[csv.to_str().unwrap(), "--plot", svg.to_str().unwrap()]),
        None,
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(&svg).unwrap(),
        magcl_report::plot::bars(&report).unwrap()
    );
    assert!(dir.join("p.png").exists());
    assert!(!dir.join("p-bars.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--only` keeps rows before anything is built: the seed from a second commit is left
/// out (so the mixed-commit refusal above no longer applies), a value no row has is
/// named with the values present, and a filter that keeps nothing is refused.
#[test]
fn only_keeps_the_rows_it_names_before_the_report_is_built() {
    let dir = scratch("only");
    let csv = dir.join("r.csv");
    let file = csv.to_str().unwrap();
    write(
        &csv,
        &[
            row("graphcl", 0, 80.0, "aaa"),
            row("graphcl", 1, 81.0, "bbb").tap_dataset("NCI1"),
            row("graphcl", 2, 82.0, "bbb"),
        ],
    );
    assert!(run(args(&[file]), None).is_err(), "MUTAG mixes two commits");
    run(args(&[file, "--only", "seed=0,1"]), None).unwrap();
    run(
        args(&[file, "--only", "dataset=mutag", "--only", "seed=2"]),
        None,
    )
    .unwrap();
    let msg = format!(
        "{:#}",
        run(args(&[file, "--only", "dataset=Cora"]), None).unwrap_err()
    );
    assert!(
        msg.contains("dataset=Cora") && msg.contains("'NCI1'"),
        "{msg}"
    );
    let msg = format!(
        "{:#}",
        run(args(&[file, "--only", "dataset=NCI1,seed=0"]), None).unwrap_err()
    );
    assert!(msg.contains("no row passes"), "{msg}");
    let msg = format!(
        "{:#}",
        run(args(&[file, "--only", "epochs=20"]), None).unwrap_err()
    );
    assert!(msg.contains("unknown key 'epochs'"), "{msg}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A result file with a header and no rows is refused for what it is (no rows read), as
/// before `--only` existed; the filter's "keeps nothing" error is for a filter only.
#[test]
fn a_file_without_rows_is_named_as_such_without_only() {
    let dir = scratch("empty");
    let csv = dir.join("r.csv");
    write(&csv, &[]);
    let msg = format!(
        "{:#}",
        run(args(&[csv.to_str().unwrap()]), None).unwrap_err()
    );
    assert!(
        msg.contains("0 rows read") && !msg.contains("--only"),
        "{msg}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

trait TapDataset {
    fn tap_dataset(self, d: &str) -> Self;
}

impl TapDataset for ResultRow {
    fn tap_dataset(mut self, d: &str) -> Self {
        self.dataset = d.into();
        self
    }
}
