//! magcl's statistics against reference values computed once with scipy/numpy
//! (tools/gen_stats_fixtures.py → tests/fixtures/bench/stats_expected.json).
use magcl_torch::stats;
use serde_json::Value;

fn fixture() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/bench/stats_expected.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn fv(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(f).collect()
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    let scale = 1.0f64.max(b.abs());
    assert!(
        (a - b).abs() <= tol * scale,
        "{what}: got {a}, expected {b}"
    );
}

#[test]
fn summaries_match_numpy_and_scipy() {
    let fx = fixture();
    for case in fx["summaries"].as_array().unwrap() {
        let x = fv(&case["x"]);
        let s = stats::summarize(&x).unwrap();
        close(s.mean, f(&case["mean"]), 1e-12, "mean");
        close(s.std.unwrap(), f(&case["std"]), 1e-12, "std");
        let (lo, hi) = s.ci95.unwrap();
        close(lo, f(&case["ci_low"]), 1e-9, "ci low");
        close(hi, f(&case["ci_high"]), 1e-9, "ci high");
        close(s.min, f(&case["min"]), 0.0, "min");
        close(s.max, f(&case["max"]), 0.0, "max");
    }
}

#[test]
fn t_quantiles_match_scipy() {
    let fx = fixture();
    for case in fx["t_quantiles"].as_array().unwrap() {
        let q = stats::t_quantile(f(&case["p"]), f(&case["df"])).unwrap();
        close(q, f(&case["q"]), 1e-9, &format!("t quantile {case}"));
    }
}

#[test]
fn paired_tests_match_scipy() {
    let fx = fixture();
    let cases = fx["paired"].as_array().unwrap();
    let mut methods = Vec::new();
    for case in cases {
        let b = fv(&case["baseline"]);
        let t = fv(&case["treatment"]);
        let c = stats::paired_comparison(&b, &t).unwrap();
        close(c.mean_diff, f(&case["mean_diff"]), 1e-10, "mean diff");
        let tt = c.t_test.clone().unwrap();
        close(tt.t, f(&case["t"]), 1e-9, "t");
        close(tt.p.unwrap(), f(&case["p_t"]), 1e-9, "p (t-test)");
        let w = c.wilcoxon.clone().unwrap();
        close(w.statistic, f(&case["w_stat"]), 1e-12, "wilcoxon statistic");
        close(
            w.p,
            f(&case["p_w"]),
            1e-9,
            &format!("p (wilcoxon, {:?})", w.method),
        );
        close(c.cohens_dz.unwrap(), f(&case["dz"]), 1e-10, "d_z");
        methods.push(w.method);
    }
    // The fixture covers every branch of scipy's `auto` rule.
    use stats::WilcoxonMethod::*;
    assert_eq!(
        methods,
        vec![
            Exact,
            Exact,
            Permutation,
            Permutation,
            Normal,
            Exact,
            Normal
        ]
    );
}

#[test]
fn holm_matches_reference() {
    let fx = fixture();
    for case in fx["holm"].as_array().unwrap() {
        let p: Vec<Option<f64>> = fv(&case["p"]).into_iter().map(Some).collect();
        let adj = stats::holm(&p);
        for (a, e) in adj.iter().zip(fv(&case["adjusted"])) {
            close(a.unwrap(), e, 1e-12, "holm");
        }
    }
}

/// The noncentral t CDF, the paired t-test's power and the minimum detectable effect
/// against statsmodels/scipy (tools/power_fixture.py → tests/fixtures/power/ttest_power.json).
#[test]
fn power_and_mde_match_statsmodels() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/power/ttest_power.json"
    ))
    .unwrap();
    let fx: Value = serde_json::from_str(&text).unwrap();
    let cdf = fx["nct_cdf"].as_array().unwrap();
    assert!(cdf.len() > 200);
    for c in cdf {
        let (t, df, nc) = (f(&c["t"]), f(&c["df"]), f(&c["nc"]));
        let got = stats::nct_cdf(t, df, nc).unwrap();
        let want = f(&c["cdf"]);
        assert!(
            (got - want).abs() < 1e-9,
            "nct cdf t {t} df {df} nc {nc}: got {got}, expected {want}"
        );
    }
    for c in fx["power"].as_array().unwrap() {
        let n = c["n"].as_u64().unwrap() as usize;
        let (d, alpha) = (f(&c["effect_size"]), f(&c["alpha"]));
        let got = stats::paired_t_power(d, n, alpha).unwrap();
        let want = f(&c["power"]);
        assert!(
            (got - want).abs() < 1e-9,
            "power n {n} d {d} alpha {alpha}: got {got}, expected {want}"
        );
    }
    let mde = fx["mde"].as_array().unwrap();
    assert!(mde.len() > 80);
    for c in mde {
        let n = c["n"].as_u64().unwrap() as usize;
        let (sd, alpha, power) = (f(&c["sd"]), f(&c["alpha"]), f(&c["power"]));
        let got = stats::paired_t_mde(n, sd, alpha, power).unwrap();
        // The root of statsmodels' power equation, solved to full precision.
        close(got, f(&c["effect"]), 1e-8, &format!("MDE n {n} sd {sd}"));
        // statsmodels' own tt_solve_power stops early (its power is off by up to ~3e-6);
        // where it converged, it agrees to 1e-5.
        if (f(&c["power_at_tt_solve_power"]) - power).abs() < 1e-5 {
            let raw = f(&c["tt_solve_power"]) * sd;
            close(got, raw, 1e-5, &format!("tt_solve_power n {n} sd {sd}"));
        }
    }
}
