//! `magcl report` on a small fixed CSV: golden markdown, values checked against scipy's
//! (tests/fixtures/bench/stats_expected.json), CSV/JSON forms, SVG plots.
//!
//! To refresh the golden file after an intended change of layout:
//! `MAGCL_UPDATE_GOLDEN=1 cargo test --release --test report_golden`, then review the diff.
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_magcl");
const DIR: &str = env!("CARGO_MANIFEST_DIR");
const CSV: &str = "tests/fixtures/bench/report_small.csv";

fn report(args: &[&str]) -> String {
    let o = Command::new(BIN)
        .arg("report")
        .args(args)
        .current_dir(DIR)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn markdown_matches_the_golden_file() {
    let md = report(&[CSV]);
    let golden = format!("{DIR}/tests/fixtures/bench/report_small.md");
    if std::env::var_os("MAGCL_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &md).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap();
    assert_eq!(md, want, "markdown report differs from {golden}");
}

#[test]
fn markdown_values_agree_with_scipy() {
    let md = report(&[CSV]);
    let fx: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{DIR}/tests/fixtures/bench/stats_expected.json"))
            .unwrap(),
    )
    .unwrap();
    // The MUTAG GraphCL pair of the CSV is the first paired case of the scipy fixture.
    let s = &fx["summaries"][0];
    let cell = format!(
        "{:.2} ± {:.2}",
        s["mean"].as_f64().unwrap(),
        s["std"].as_f64().unwrap()
    );
    assert!(md.contains(&format!("| GraphCL | {cell} |")), "{md}");
    let ci = format!(
        "[{:.2}, {:.2}]",
        s["ci_low"].as_f64().unwrap(),
        s["ci_high"].as_f64().unwrap()
    );
    assert!(md.contains(&ci), "{ci}");
    let p = &fx["paired"][0];
    let row = md
        .lines()
        .find(|l| l.starts_with("| MUTAG | GraphCL |") && l.contains("(exact)"))
        .unwrap();
    assert!(
        row.contains(&format!("{:.4}", p["p_t"].as_f64().unwrap())),
        "{row}"
    );
    assert!(
        row.contains(&format!("{:.4} (exact)", p["p_w"].as_f64().unwrap())),
        "{row}"
    );
    assert!(
        row.contains(&format!("{:.2}", p["dz"].as_f64().unwrap())),
        "{row}"
    );
    // Says what std is; flags the 3-seed PROTEINS comparison; bold best per column.
    assert!(md.contains("ddof = 1"));
    let proteins = md
        .lines()
        .find(|l| l.starts_with("| PROTEINS | GraphCL | svc-rbf | ARS") && l.contains("(exact)"))
        .unwrap();
    assert!(proteins.contains("† < 5 seeds"), "{proteins}");
    assert!(md.contains("| SimGRACE +MA (ARS gin+filter) | **89.26 ± 0.80** |"));
    assert!(md.contains("1 duplicate row(s)"));
}

#[test]
fn csv_and_json_forms() {
    let csv = report(&[CSV, "--format", "csv"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert!(header.contains(&"std_ddof1") && header.contains(&"p_wilcoxon_holm"));
    assert_eq!(lines.count(), 8, "one row per group");
    let json: serde_json::Value =
        serde_json::from_str(&report(&[CSV, "--format", "json"])).unwrap();
    assert_eq!(json["groups"].as_array().unwrap().len(), 8);
    assert_eq!(json["comparisons"].as_array().unwrap().len(), 4);
    assert_eq!(json["duplicate_rows"], 1);
    assert!(json["conventions"]["std"]
        .as_str()
        .unwrap()
        .contains("ddof = 1"));
    let nmi: serde_json::Value =
        serde_json::from_str(&report(&[CSV, "--format", "json", "--metric", "nmi"])).unwrap();
    assert_eq!(nmi["groups"].as_array().unwrap().len(), 2);
    let mean = nmi["groups"][0]["mean"].as_f64().unwrap();
    assert!((mean - (0.451 + 0.462 + 0.449 + 0.470 + 0.455) / 5.0).abs() < 1e-12);
}

#[test]
fn plots_are_svg_without_system_fonts() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("plot.svg");
    report(&[CSV, "--plot", svg.to_str().unwrap()]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    for label in [
        "GraphCL (svc-rbf)",
        "MUTAG",
        "PROTEINS",
        "baseline",
        "+MA (ARS gin+filter)",
    ] {
        assert!(text.contains(label), "missing {label}");
    }
    assert!(
        !dir.path().join("plot-heatmap.svg").exists(),
        "no two-key grid here"
    );

    // A grid over ma.view1 × ma.view2 also gets a heat map.
    let src = std::fs::read_to_string(format!("{DIR}/{CSV}")).unwrap();
    let header = src.lines().next().unwrap();
    let mut csv = format!("{header}\n");
    let mut h = 0;
    for v1 in ["[0,1]", "[0,2]"] {
        for v2 in ["[0,3]", "[0,4]", "[0,8]"] {
            for seed in 0..2 {
                h += 1;
                csv.push_str(&format!(
                    "MUTAG,graphcl,ARS gin+filter,\"ma.view1={v1} ma.view2={v2}\",{seed},svc-rbf,{h:016x},{},,,,20,1,1,100,cpu,1,x,0.1.0,{{}}\n",
                    80 + h
                ));
            }
        }
    }
    let grid = dir.path().join("grid.csv");
    std::fs::write(&grid, csv).unwrap();
    let svg = dir.path().join("g.svg");
    report(&[grid.to_str().unwrap(), "--plot", svg.to_str().unwrap()]);
    if let Some(keep) = std::env::var_os("MAGCL_KEEP_PLOTS") {
        let _ = std::fs::copy(
            dir.path().join("g-heatmap.svg"),
            std::path::Path::new(&keep).join("heatmap.svg"),
        );
    }
    let heat = std::fs::read_to_string(dir.path().join("g-heatmap.svg")).unwrap();
    for label in ["ma.view1", "ma.view2", "[0,8]", "81.50", "91.50"] {
        assert!(heat.contains(label), "heat map lacks {label}");
    }
}

/// A file with the `warnings` column: warned runs are listed in their own section, and
/// a file without warnings (the golden fixture) has none.
#[test]
fn runs_with_warnings_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{DIR}/{CSV}")).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push_str(match i {
            0 => ",warnings\n",
            2 => ",dimension 12 has 2771x the median spread\n",
            _ => ",\n",
        });
    }
    let p = dir.path().join("w.csv");
    std::fs::write(&p, out).unwrap();
    let md = report(&[p.to_str().unwrap()]);
    let section = md
        .split("## Runs with warnings")
        .nth(1)
        .unwrap_or_else(|| panic!("no warnings section:\n{md}"));
    let rows: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| MUTAG |"))
        .collect();
    assert_eq!(
        rows,
        ["| MUTAG | GraphCL | none |  | 1 | 87.90 | dimension 12 has 2771x the median spread |"]
    );
    assert!(!report(&[CSV]).contains("Runs with warnings"));
}
