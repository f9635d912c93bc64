//! `magcl report` on a small fixed CSV: golden markdown, values checked against scipy's
//! (tests/fixtures/bench/stats_expected.json), CSV/JSON forms, SVG plots.
//!
//! To refresh the golden file after an intended change of layout:
//! `MAGCL_UPDATE_GOLDEN=1 cargo test --release --test report_golden`, then review the diff.
mod light_magcl;

use std::process::Command;

const DIR: &str = env!("CARGO_MANIFEST_DIR");
const CSV: &str = "tests/fixtures/bench/report_small.csv";

fn report(args: &[&str]) -> String {
    let o = Command::new(light_magcl::path())
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
    let png = std::fs::read(dir.path().join("plot.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // Every seed's value is a dot: 36 distinct rows in 8 groups.
    assert!(text.matches("<circle").count() >= 36);
    // Accuracies far above 0: the axis is broken and says so.
    assert!(text.contains("y axis starts at 70 (axis break), not 0"));
    for label in [
        "one seed",
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
    // The panel's colour bar: its label and its end values (lowest and highest mean).
    assert!(heat.contains("mean accuracy (%)"));
    assert!(dir.path().join("g-heatmap.png").exists());
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

const CLAIMS: &str = "tests/fixtures/bench/report_claims.toml";

/// Compares `got` with the golden file `name` under tests/fixtures/bench (rewritten with
/// MAGCL_UPDATE_GOLDEN=1).
fn golden(name: &str, got: &str) {
    let path = format!("{DIR}/tests/fixtures/bench/{name}");
    if std::env::var_os("MAGCL_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert_eq!(got, want, "output differs from {path}");
}

fn csv_records(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

/// d* of the two-sided paired t-test at α = 0.05, 80% power, n = 5, from statsmodels
/// (tests/fixtures/power/ttest_power.json).
fn statsmodels_d_star_n5() -> f64 {
    let fx: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{DIR}/tests/fixtures/power/ttest_power.json")).unwrap(),
    )
    .unwrap();
    fx["mde"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["n"] == 5 && c["alpha"] == 0.05 && c["power"] == 0.8)
        .unwrap()["effect_size"]
        .as_f64()
        .unwrap()
}

/// `--claims`: every claim of the fixture lands on the verdict it was built for; the
/// markdown and CSV verdict tables match their golden files; MDE and interval agree with
/// a hand computation and statsmodels.
#[test]
fn verdict_table_against_hand_made_claims() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("v.md");
    let csvp = dir.path().join("v.csv");
    let out = report(&[
        CSV,
        "--claims",
        CLAIMS,
        "--verdict-md",
        md.to_str().unwrap(),
        "--verdict-csv",
        csvp.to_str().unwrap(),
    ]);
    assert!(out.contains("## The paper's claims beside the measurements"));
    let md = std::fs::read_to_string(md).unwrap();
    let csv = std::fs::read_to_string(csvp).unwrap();
    // The path of the result file is in the text; it is the same relative path each run.
    golden("report_claims_verdict.md", &md);
    golden("report_claims_verdict.csv", &csv);
    assert!(md.contains("1 claim(s) on another metric are not shown"));
    // Two tables, per claim and per line, each with 7 claims (no stray '|' in a cell).
    let cells = |l: &str| l.replace("\\|", "").matches('|').count();
    let (per_claim, per_line) = md.split_once("### Per line").unwrap();
    for part in [per_claim, per_line] {
        let table: Vec<&str> = part.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(table.len(), 2 + 7, "{md}");
        assert!(table.iter().all(|l| cells(l) == cells(table[0])), "{md}");
    }
    assert!(md.contains(
        "7 claim(s): 2 confirmed, 0 opposite sign, 1 not reproduced, 2 cannot tell, 2 not measured"
    ));

    let rows = csv_records(&csv);
    let get = |id: &str| -> Vec<&std::collections::HashMap<String, String>> {
        rows.iter().filter(|r| r["claim_id"] == id).collect()
    };
    let one = |id: &str, verdict: &str, low_power: &str| {
        let r = get(id);
        assert_eq!(r.len(), 1, "{id}");
        assert_eq!(r[0]["verdict"], verdict, "{id}");
        assert_eq!(r[0]["low_power"], low_power, "{id}");
        r[0].clone()
    };
    one("mutag-graphcl", "cannot tell", "true");
    one("mutag-simgrace", "cannot tell", "false");
    let proteins = one("proteins-graphcl", "not reproduced", "false");
    assert_eq!(proteins["magnitude"], "smaller than claimed");
    one("cora-ma", "confirmed", "false");
    let small = one("cora-ma-small", "confirmed", "false");
    assert_eq!(small["magnitude"], "larger than claimed");
    one("cora-ablation-a", "not measured", "");
    one("nci1-graphcl", "not measured", "");
    assert!(
        get("cora-nmi").is_empty(),
        "NMI claims stay out of an accuracy report"
    );

    // MUTAG GraphCL by hand: Δ per seed (+MA − baseline) from report_small.csv.
    let d = [0.8, 0.2, 1.8, -0.4, 1.5];
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let sd = (d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt();
    let r = &get("mutag-graphcl")[0];
    let f = |k: &str| r[k].parse::<f64>().unwrap();
    assert!((f("measured_delta") - mean).abs() < 1e-9);
    let t975_df4 = 2.7764451051977987; // scipy.stats.t.ppf(0.975, 4)
    let half = t975_df4 * sd / n.sqrt();
    assert!((f("ci95_low") - (mean - half)).abs() < 1e-9);
    assert!((f("ci95_high") - (mean + half)).abs() < 1e-9);
    assert!((f("mde80") - sd * statsmodels_d_star_n5()).abs() < 1e-8);
}

/// With --metric nmi the NMI claim is joined (the Cora NMI gain of the fixture is clear).
#[test]
fn nmi_claims_join_on_the_nmi_report() {
    let md = report(&[CSV, "--metric", "nmi", "--claims", CLAIMS]);
    // NMI bars: the axis break is stated at the NMI's precision.
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("nmi.svg");
    report(&[CSV, "--metric", "nmi", "--plot", svg.to_str().unwrap()]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("y axis starts at 0.40 (axis break), not 0"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&report(&[
        CSV, "--metric", "nmi", "--claims", CLAIMS, "--format", "json",
    ]))
    .unwrap();
    assert_eq!(json["verdicts"]["rows"][0]["verdict"], "confirmed");
    assert_eq!(json["verdicts"]["rows"][0]["claim"]["id"], "cora-nmi");
    let line = md
        .lines()
        .find(|l| l.starts_with("| cora-nmi |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(line.contains("| confirmed"), "{line}");
    assert!(md.contains("7 claim(s) on another metric"));
}

/// `--holm table` corrects over every comparison and says so; the default family is stated.
#[test]
fn holm_over_the_whole_table() {
    let md = report(&[CSV]);
    assert!(md.contains("Holm's correction runs over the datasets of one family"));
    let json: serde_json::Value =
        serde_json::from_str(&report(&[CSV, "--format", "json", "--holm", "table"])).unwrap();
    let comps = json["comparisons"].as_array().unwrap();
    assert_eq!(json["holm_scope"], "table");
    let mut ps: Vec<f64> = comps
        .iter()
        .map(|c| c["t_test"]["p"].as_f64().unwrap())
        .collect();
    ps.sort_by(f64::total_cmp);
    // Raw p: Cora 1.1e-5 < MUTAG SimGRACE 0.059 < MUTAG GraphCL 0.127 < PROTEINS 0.133.
    let simgrace = comps.iter().find(|c| c["method"] == "simgrace").unwrap();
    let p = simgrace["t_test"]["p"].as_f64().unwrap();
    assert_eq!(p, ps[1]);
    let adj = simgrace["p_t_holm"].as_f64().unwrap();
    assert!((adj - 3.0 * p).abs() < 1e-12, "{adj} vs 3 × {p}");
    let md = report(&[CSV, "--holm", "table"]);
    assert!(md.contains("Holm's correction runs over every comparison in this report"));
    let o = Command::new(light_magcl::path())
        .args(["report", CSV, "--holm", "datasets"])
        .current_dir(DIR)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected family or table"));
}

/// Node-level runs on the public and the random split are different groups, and a claim
/// with a split joins only its own.
#[test]
fn node_splits_are_separate_groups() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(format!("{DIR}/{CSV}")).unwrap();
    let header = src.lines().next().unwrap();
    let mut csv = format!("{header}\n");
    let mut h = 0;
    for (split, base, gain) in [("public", 81.0, 2.0), ("random", 82.0, 0.1)] {
        for (ma, add) in [("none", 0.0), ("ARS", gain)] {
            for seed in 0..5u64 {
                h += 1;
                let v = base + add + 0.1 * ((seed * seed * 3 + h * h) % 7) as f64;
                csv.push_str(&format!(
                    "Cora,base,{ma},,{seed},logreg,{h:016x},{v},,,,20,1,1,100,cpu,1,x,0.1.0,\"{{\"\"node\"\":{{\"\"preset\"\":\"\"paper\"\",\"\"split\"\":\"\"{split}\"\"}}}}\"\n"
                ));
            }
        }
    }
    let data = dir.path().join("splits.csv");
    std::fs::write(&data, csv).unwrap();
    let claims = dir.path().join("c.toml");
    std::fs::write(
        &claims,
        "title = \"t\"\nsource = \"s\"\n[[claim]]\nid = \"random-only\"\nlevel = \"node\"\ndataset = \"Cora\"\nmethod = \"base\"\nma = \"ARS\"\nsplit = \"random\"\ndelta = 2.6\nsource = \"Table 2\"\n",
    )
    .unwrap();
    let md = report(&[data.to_str().unwrap(), "--claims", claims.to_str().unwrap()]);
    assert!(md.contains("| Base model (paper, public split) |"), "{md}");
    assert!(md.contains("| Base model (paper, random split) |"), "{md}");
    // One line in the per-claim table, one in the per-line table.
    let lines: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| random-only |"))
        .collect();
    assert_eq!(lines.len(), 2, "{md}");
    for l in lines {
        assert!(l.contains("random split"), "{l}");
        assert!(l.contains("not reproduced"), "{l}");
    }
}

/// The paper's claims file parses and holds what the appendix's Fig. 3 (bars read off) and
/// Tables 1–3 say.
#[test]
fn paper_claims_file_holds_the_papers_numbers() {
    use magcl_torch::report::claims::ClaimsFile;
    let f = ClaimsFile::read(std::path::Path::new(&format!(
        "{DIR}/configs/claims/ma_gcl_paper.toml"
    )))
    .unwrap();
    let by_id = |id: &str| {
        f.claims
            .iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no claim {id}"))
    };
    // Fig. 3, the bars read off (about ±0.02).
    for (m, vals) in [
        ("graphcl", [0.27, 1.30, 0.89, 0.20]),
        ("simgrace", [0.73, 0.93, 0.12, 0.40]),
        ("adgcl", [0.32, 0.22, 0.32, 0.42]),
    ] {
        for (ds, v) in ["nci1", "mutag", "imdb-binary", "collab"].iter().zip(vals) {
            let c = by_id(&format!("fig3-{m}-{ds}"));
            assert_eq!(c.delta, v, "{m} {ds}");
            assert_eq!((c.level.as_str(), c.ma.as_str()), ("graph", "*"));
            assert!(c.source.contains("Fig. 3"));
        }
    }
    let c = by_id("table1-cora");
    assert_eq!(
        (c.baseline, c.treatment, c.delta),
        (Some(81.1), Some(83.3), 2.2)
    );
    assert_eq!(c.split.as_deref(), Some("public"));
    let c = by_id("table1-coauthor-cs");
    assert_eq!(c.split.as_deref(), Some("random"));
    assert_eq!(c.delta, 1.33);
    let c = by_id("table2-citeseer");
    assert_eq!((c.baseline, c.treatment), (Some(70.7), Some(73.3)));
    let c = by_id("table3-as-pubmed"); // MA-GCL w/o R
    assert_eq!((c.ma.as_str(), c.treatment), ("AS", Some(83.1)));
    let c = by_id("nmi-citeseer");
    assert_eq!((c.metric.as_str(), c.delta), ("nmi", 0.065));
    // Every node-level claim prints both values (read() checks Δ against them).
    for c in f.claims.iter().filter(|c| c.level == "node") {
        assert!(c.baseline.is_some() && c.treatment.is_some(), "{}", c.id);
    }
    assert_eq!(f.claims.len(), 12 + 6 + 3 + 36 + 6);
    // And the CLI reads it.
    report(&[CSV, "--claims", "configs/claims/ma_gcl_paper.toml"]);
}

/// The forest plot: SVG and PNG, one line per comparison (or claim × comparison), with
/// the claimed Δ and the verdict.
#[test]
fn forest_plot_svg_and_png() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("forest.svg");
    report(&[CSV, "--forest", svg.to_str().unwrap()]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert_eq!(text.matches(", n = ").count(), 4, "one line per comparison");
    assert!(text.contains("MUTAG · GraphCL +MA (ARS gin+filter)"));
    assert!(text.contains("+0.78 [-0.35, 1.91], n = 5, MDE 1.52"));
    let png = std::fs::read(dir.path().join("forest.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    assert!(width > 1000, "{width}");

    let svg2 = dir.path().join("claims.svg");
    report(&[CSV, "--claims", CLAIMS, "--forest", svg2.to_str().unwrap()]);
    let text = std::fs::read_to_string(&svg2).unwrap();
    assert!(text.contains("claimed Δ (×)"));
    assert!(text.contains("claim +1.30, power 0.67: cannot tell"));
    assert!(text.contains("not reproduced"));
    if let Some(keep) = std::env::var_os("MAGCL_KEEP_PLOTS") {
        let _ = std::fs::copy(
            dir.path().join("claims.png"),
            std::path::Path::new(&keep).join("forest.png"),
        );
    }
}
