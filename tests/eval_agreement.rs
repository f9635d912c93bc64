//! Agreement of magcl's evaluators with scikit-learn on committed fixtures.
//!
//! The reference values in `tests/fixtures/eval/expected.json` were produced once by
//! `tools/gen_eval_fixtures.py` (scikit-learn's `GridSearchCV(..., cv=5)` refit-and-score
//! on the same outer folds). Acceptance: every outer fold's number of correct test
//! predictions is within one sample of scikit-learn's. The chosen C per fold is compared
//! and reported (run with `--nocapture` to see the summary), and most folds must agree.
use std::path::{Path, PathBuf};

use magcl_torch::eval::{
    evaluate_splits, nmi, npy, sklearn_stratified_kfold, CvResult, Evaluator, Split,
};
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/eval")
}

fn expected() -> Value {
    let text = std::fs::read_to_string(dir().join("expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

struct Fixture {
    x: Vec<f32>,
    n: usize,
    d: usize,
    y: Vec<u32>,
    folds: Vec<usize>,
}

fn load(name: &str) -> Fixture {
    let p = dir().join(name);
    let (x, n, d) = npy::read_embeddings(&p.join("x.npy")).unwrap();
    let y = npy::read_labels(&p.join("y.npy")).unwrap();
    let folds = npy::read_folds(&p.join("folds.npy")).unwrap();
    Fixture { x, n, d, y, folds }
}

fn plain_splits(f: &Fixture) -> Vec<Split> {
    let k = f.folds.iter().max().unwrap() + 1;
    (0..k)
        .map(|fold| Split {
            train: (0..f.n).filter(|&i| f.folds[i] != fold).collect(),
            val: vec![],
            test: (0..f.n).filter(|&i| f.folds[i] == fold).collect(),
        })
        .collect()
}

fn val_splits(name: &str, n: usize) -> Vec<Split> {
    let (roles, shape) = npy::read_int_array(&dir().join(name).join("roles.npy"), "roles").unwrap();
    assert_eq!(shape[1], n);
    (0..shape[0])
        .map(|k| {
            let r = &roles[k * n..(k + 1) * n];
            let pick = |v: i64| (0..n).filter(|&i| r[i] == v).collect::<Vec<_>>();
            Split {
                train: pick(0),
                val: pick(1),
                test: pick(2),
            }
        })
        .collect()
}

/// Compare per-fold results; returns (exact folds, folds within 1, C agreements, folds).
fn compare(label: &str, res: &CvResult, reference: &Value) -> (usize, usize, usize, usize) {
    let folds = reference.as_array().unwrap();
    assert_eq!(folds.len(), res.fold_correct.len(), "{label}: fold count");
    let (mut exact, mut within1, mut c_agree) = (0, 0, 0);
    let mut sk_total = 0.0;
    for (k, f) in folds.iter().enumerate() {
        let want = f["correct"].as_u64().unwrap() as i64;
        let n_test = f["n_test"].as_u64().unwrap() as usize;
        assert_eq!(n_test, res.fold_sizes[k], "{label}: fold {k} size");
        let got = res.fold_correct[k] as i64;
        let c_sk = f["best_c"].as_f64().unwrap();
        sk_total += want as f64 / n_test as f64;
        exact += usize::from(got == want);
        within1 += usize::from((got - want).abs() <= 1);
        c_agree += usize::from(c_sk == res.best_c[k]);
        if got != want || c_sk != res.best_c[k] {
            eprintln!(
                "  {label} fold {k}: correct {got} vs sklearn {want}; C {} vs sklearn {c_sk}",
                res.best_c[k]
            );
        }
    }
    let n = folds.len();
    eprintln!(
        "{label}: accuracy {:.2} vs sklearn {:.2}; folds exact {exact}/{n}, within 1 sample {within1}/{n}; best C agrees {c_agree}/{n}",
        res.accuracy,
        100.0 * sk_total / n as f64
    );
    (exact, within1, c_agree, n)
}

fn check(label: &str, res: &CvResult, reference: &Value, min_c_agree: f64) {
    let (_, within1, c_agree, n) = compare(label, res, reference);
    assert_eq!(
        within1, n,
        "{label}: every fold within one test sample of scikit-learn"
    );
    assert!(
        c_agree as f64 >= min_c_agree * n as f64,
        "{label}: best C agrees in only {c_agree}/{n} folds"
    );
}

fn check_val(label: &str, res: &CvResult, reference: &Value) {
    check(label, res, reference, 0.7);
    let vals = res.fold_val_accuracies.as_ref().unwrap();
    for (k, f) in reference.as_array().unwrap().iter().enumerate() {
        let n_val = f["n_val"].as_u64().unwrap() as f64;
        let want = f["val_correct"].as_u64().unwrap() as f64;
        let got = (vals[k] / 100.0 * n_val).round();
        assert!(
            (got - want).abs() <= 1.0,
            "{label} fold {k}: val {got} vs {want}"
        );
    }
}

fn run_plain(name: &str, ev: Evaluator, key: &str, min_c_agree: f64) {
    let exp = expected();
    let f = load(name);
    let standardize = ev != Evaluator::SvcRbf;
    let res = evaluate_splits(ev, &f.x, f.n, f.d, &f.y, &plain_splits(&f), standardize).unwrap();
    check(
        &format!("{name} {key}"),
        &res,
        &exp["fixtures"][name][key],
        min_c_agree,
    );
}

#[test]
fn unshuffled_stratified_kfold_matches_sklearn() {
    let exp = expected();
    let cases = exp["stratified_kfold_unshuffled"].as_array().unwrap();
    assert!(cases.len() >= 5);
    for case in cases {
        let y: Vec<u32> = case["y"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        let k = case["n_splits"].as_u64().unwrap() as usize;
        let want: Vec<usize> = case["folds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(sklearn_stratified_kfold(&y, k).unwrap(), want, "y = {y:?}");
    }
}

#[test]
fn nmi_matches_sklearn() {
    let exp = expected();
    for case in exp["nmi"].as_array().unwrap() {
        let get = |k: &str| -> Vec<u32> {
            case[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u32)
                .collect()
        };
        let want = case["nmi"].as_f64().unwrap();
        let got = nmi(&get("true"), &get("pred"));
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
}

#[test]
fn svc_rbf_mutag_like() {
    run_plain("mutag_like", Evaluator::SvcRbf, "svc-rbf", 0.8);
}

#[test]
fn svc_rbf_imdbm_like() {
    run_plain("imdbm_like", Evaluator::SvcRbf, "svc-rbf", 0.8);
}

#[test]
fn svc_rbf_nci1_like() {
    run_plain("nci1_like", Evaluator::SvcRbf, "svc-rbf", 0.8);
}

#[test]
fn linear_svc_mutag_like() {
    run_plain("mutag_like", Evaluator::LinearSvc, "linear-svc", 0.7);
}

#[test]
fn linear_svc_imdbm_like() {
    run_plain("imdbm_like", Evaluator::LinearSvc, "linear-svc", 0.7);
}

#[test]
fn logreg_mutag_like() {
    run_plain("mutag_like", Evaluator::LogReg, "logreg-converged", 0.7);
    // scikit-learn's default lbfgs (max_iter = 100) stops early at large C; report only
    let exp = expected();
    let f = load("mutag_like");
    let res = evaluate_splits(
        Evaluator::LogReg,
        &f.x,
        f.n,
        f.d,
        &f.y,
        &plain_splits(&f),
        true,
    )
    .unwrap();
    compare(
        "mutag_like logreg (sklearn max_iter=100)",
        &res,
        &exp["fixtures"]["mutag_like"]["logreg"],
    );
}

#[test]
fn logreg_imdbm_like() {
    run_plain("imdbm_like", Evaluator::LogReg, "logreg-converged", 0.7);
}

#[test]
fn adgcl_validation_protocol_mutag_like() {
    let exp = expected();
    let f = load("mutag_like");
    let splits = val_splits("mutag_like", f.n);
    let res = evaluate_splits(Evaluator::LinearSvc, &f.x, f.n, f.d, &f.y, &splits, true).unwrap();
    check_val(
        "mutag_like linear-svc (validation protocol)",
        &res,
        &exp["fixtures"]["mutag_like"]["linear-svc-val"],
    );
}

#[test]
fn adgcl_validation_protocol_imdbm_like() {
    let exp = expected();
    let f = load("imdbm_like");
    let splits = val_splits("imdbm_like", f.n);
    let res = evaluate_splits(Evaluator::LinearSvc, &f.x, f.n, f.d, &f.y, &splits, true).unwrap();
    check_val(
        "imdbm_like linear-svc (validation protocol)",
        &res,
        &exp["fixtures"]["imdbm_like"]["linear-svc-val"],
    );
}
