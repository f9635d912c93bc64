//! `magcl eval` end to end: the binary on the committed fixtures and on small files
//! written here.
mod light_magcl;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/eval")
        .join(name)
}

fn magcl(args: &[&str]) -> std::process::Output {
    Command::new(light_magcl::path())
        .args(args)
        .output()
        .expect("run magcl")
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "magcl failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

/// A minimal .npy writer (format 1.0, little endian, C order).
fn write_npy(path: &Path, descr: &str, shape: &[usize], data: &[u8]) {
    let shape_txt = match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_txt}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    std::fs::write(path, bytes).unwrap();
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn json_on_the_mutag_fixture_matches_scikit_learn() {
    let f = fixture("mutag_like");
    let out = magcl(&[
        "eval",
        "--embeddings",
        p(&f.join("x.npy")),
        "--labels",
        p(&f.join("y.npy")),
        "--folds",
        p(&f.join("folds.npy")),
        "--evaluator",
        "svc-rbf",
        "--json",
    ]);
    let v = json_of(&out);
    for key in [
        "accuracy",
        "accuracy_std_folds",
        "fold_accuracies",
        "best_c",
        "evaluator",
        "seconds",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["evaluator"], "svc-rbf");
    assert_eq!(v["fold_accuracies"].as_array().unwrap().len(), 10);
    let text = std::fs::read_to_string(fixture("expected.json")).unwrap();
    let exp: Value = serde_json::from_str(&text).unwrap();
    let folds = exp["fixtures"]["mutag_like"]["svc-rbf"].as_array().unwrap();
    let want: f64 = folds
        .iter()
        .map(|f| f["correct"].as_f64().unwrap() / f["n_test"].as_f64().unwrap())
        .sum::<f64>()
        * 10.0;
    let got = v["accuracy"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-9, "{got} vs scikit-learn {want}");
}

#[test]
fn seeded_folds_are_reproducible_and_human_output_explains() {
    let f = fixture("mutag_like");
    let args = |json: bool| {
        let mut a = vec![
            "eval".to_string(),
            "--embeddings".into(),
            p(&f.join("x.npy")).into(),
            "--labels".into(),
            p(&f.join("y.npy")).into(),
            "--evaluator".into(),
            "linear-svc".into(),
            "--seed".into(),
            "3".into(),
        ];
        if json {
            a.push("--json".into());
        }
        a
    };
    let run = |json: bool| {
        let a = args(json);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        magcl(&refs)
    };
    let a = json_of(&run(true));
    let b = json_of(&run(true));
    assert_eq!(a["fold_accuracies"], b["fold_accuracies"]);
    assert_eq!(a["best_c"], b["best_c"]);
    let human = run(false);
    assert!(human.status.success());
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("accuracy") && text.contains("±"), "{text}");
    assert!(text.contains("best C"), "{text}");
}

#[test]
fn validation_protocol_reports_validation_accuracy() {
    let f = fixture("mutag_like");
    let v = json_of(&magcl(&[
        "eval",
        "--embeddings",
        p(&f.join("x.npy")),
        "--labels",
        p(&f.join("y.npy")),
        "--evaluator",
        "logreg",
        "--validation",
        "--nmi",
        "--json",
    ]));
    assert!(v["val_accuracy"].as_f64().unwrap() > 50.0);
    assert_eq!(v["fold_val_accuracies"].as_array().unwrap().len(), 10);
    let nmi = v["nmi_median"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&nmi));
}

#[test]
fn float64_embeddings_and_int64_labels_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    // 40 samples, 2-d, two separated blobs; labels 7 and −2 (any integers work)
    let mut x = Vec::new();
    let mut y = Vec::new();
    for i in 0..40 {
        let c = i % 2;
        let t = i as f64 * 0.1;
        x.push(c as f64 * 5.0 + t.sin());
        x.push(c as f64 * -5.0 + t.cos());
        y.push(if c == 0 { 7i64 } else { -2 });
    }
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let yb: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
    let xp = dir.path().join("x.npy");
    let yp = dir.path().join("y.npy");
    write_npy(&xp, "<f8", &[40, 2], &xb);
    write_npy(&yp, "<i8", &[40], &yb);
    let v = json_of(&magcl(&[
        "eval",
        "--embeddings",
        p(&xp),
        "--labels",
        p(&yp),
        "--json",
    ]));
    assert_eq!(v["accuracy"].as_f64().unwrap(), 100.0);

    // too few labels: the error names the file and both counts
    let yb_short: Vec<u8> = y[..39].iter().flat_map(|v| v.to_le_bytes()).collect();
    let ys = dir.path().join("short.npy");
    write_npy(&ys, "<i8", &[39], &yb_short);
    let out = magcl(&["eval", "--embeddings", p(&xp), "--labels", p(&ys)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("short.npy") && err.contains("39") && err.contains("40"),
        "{err}"
    );

    // 1-d embeddings: the error says what shape was expected
    let out = magcl(&["eval", "--embeddings", p(&yp), "--labels", p(&yp)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2-D"), "{err}");
}

#[test]
fn help_explains_the_protocol() {
    let out = magcl(&["eval", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "GridSearchCV",
        "svc-rbf",
        "linear-svc",
        "logreg",
        "--validation",
        "ddof",
    ] {
        assert!(text.contains(needle), "--help lacks {needle}");
    }
}
