//! The evaluator seam from outside the crate: a nearest-centroid classifier written here,
//! in a test, runs through the same protocols and runner as the built-in classifiers.
use magcl_eval::evaluator::{Evaluator, FitSplit, HostMatrix, PerSplit, SplitScore};
use magcl_eval::protocol::{GivenFolds, KFold, Protocol, StratifiedKFold, WithValidation};
use magcl_eval::{evaluate, run_protocol, Split};

/// Predicts the class whose training-part centroid is nearest (squared Euclidean
/// distance; the smaller label on ties). No hyper-parameters.
struct NearestCentroid;

impl NearestCentroid {
    fn fit_split(x: HostMatrix<'_>, y: &[u32], split: &Split) -> SplitScore {
        let mut classes: Vec<u32> = split.train.iter().map(|&i| y[i]).collect();
        classes.sort_unstable();
        classes.dedup();
        let centroids: Vec<Vec<f64>> = classes
            .iter()
            .map(|&c| {
                let members: Vec<usize> =
                    split.train.iter().copied().filter(|&i| y[i] == c).collect();
                (0..x.d)
                    .map(|j| {
                        members.iter().map(|&i| f64::from(x.row(i)[j])).sum::<f64>()
                            / members.len() as f64
                    })
                    .collect()
            })
            .collect();
        let predict = |i: usize| -> u32 {
            let dist = |c: &Vec<f64>| -> f64 {
                x.row(i)
                    .iter()
                    .zip(c)
                    .map(|(&v, m)| (f64::from(v) - m).powi(2))
                    .sum()
            };
            let mut best = 0;
            for k in 1..classes.len() {
                if dist(&centroids[k]) < dist(&centroids[best]) {
                    best = k;
                }
            }
            classes[best]
        };
        let correct = |idx: &[usize]| idx.iter().filter(|&&i| predict(i) == y[i]).count();
        let pct = |c: usize, n: usize| 100.0 * c as f64 / n as f64;
        let test_correct = correct(&split.test);
        SplitScore {
            test_accuracy: pct(test_correct, split.test.len()),
            test_correct,
            val_accuracy: (!split.val.is_empty())
                .then(|| pct(correct(&split.val), split.val.len())),
            best_c: None,
        }
    }
}

impl Evaluator for NearestCentroid {
    fn name(&self) -> String {
        "nearest-centroid".into()
    }
    fn prepare<'a>(
        &'a self,
        x: HostMatrix<'a>,
        y: &'a [u32],
        _splits: &[Split],
    ) -> magcl_eval::Result<Box<dyn FitSplit + 'a>> {
        Ok(Box::new(PerSplit(move |s: &Split| {
            Ok(NearestCentroid::fit_split(x, y, s))
        })))
    }
}

#[test]
fn nearest_centroid_by_hand_on_given_folds() {
    // 1-D points: class 0 at 0, 1, 2 and an outlier at 9 (sample 6); class 1 at 10, 11, 12
    let x = [0.0f32, 1.0, 2.0, 10.0, 11.0, 12.0, 9.0];
    let y = [0u32, 0, 0, 1, 1, 1, 0];
    let protocol = GivenFolds {
        folds: vec![0, 1, 0, 1, 0, 1, 0],
    };
    let r = run_protocol(
        &protocol,
        &NearestCentroid,
        HostMatrix::new(&x, 7, 1),
        &y,
        0,
    )
    .unwrap();
    // fold 0: train {1, 10, 12} → centroids 1 and 11; tests 0, 2, 11 right, the outlier 9
    //   goes to class 1: 3 of 4
    // fold 1: train {0, 2, 11, 9} → centroids 11/3 and 11; tests 1, 10, 12 right: 3 of 3
    assert_eq!(r.fold_correct, vec![3, 3]);
    assert_eq!(r.fold_sizes, vec![4, 3]);
    assert_eq!(r.fold_accuracies, vec![75.0, 100.0]);
    assert_eq!(r.accuracy, 87.5);
    assert!((r.std - 312.5f64.sqrt()).abs() < 1e-12, "{}", r.std);
    assert_eq!(r.val_accuracy, None);
    assert!(r.best_c.iter().all(|c| c.is_nan()));
}

/// Two well-separated Gaussian-like blobs in 3-D (deterministic jitter), 60 samples.
fn blobs() -> (Vec<f32>, Vec<u32>) {
    let n = 60;
    let y: Vec<u32> = (0..n as u32).map(|i| u32::from(i % 3 == 0)).collect();
    let x = (0..n)
        .flat_map(|i| {
            let c = if y[i] == 1 { 5.0 } else { -5.0 };
            (0..3).map(move |j| c + ((i * 7 + j * 13) % 11) as f32 / 11.0 - 0.5)
        })
        .collect();
    (x, y)
}

#[test]
fn a_user_evaluator_runs_through_every_fold_protocol() {
    let (x, y) = blobs();
    let m = HostMatrix::new(&x, 60, 3);
    let protocols: Vec<Box<dyn Protocol>> = vec![
        Box::new(StratifiedKFold { k: 10 }),
        Box::new(WithValidation {
            outer: KFold { k: 10 },
            fraction: 0.2,
        }),
    ];
    for p in &protocols {
        let r = run_protocol(p, &NearestCentroid, m, &y, 3).unwrap();
        let splits = p.splits(&y, 60, 3).unwrap();
        // one score per split of the protocol, each test fold scored in full
        assert_eq!(r.fold_accuracies.len(), 10, "{}", p.name());
        assert_eq!(
            r.fold_sizes,
            splits.iter().map(|s| s.test.len()).collect::<Vec<_>>()
        );
        assert_eq!(r.fold_sizes.iter().sum::<usize>(), 60);
        // the blobs are far apart: every prediction is right
        assert_eq!(r.accuracy, 100.0, "{}", p.name());
        let with_val = splits.iter().any(|s| !s.val.is_empty());
        assert_eq!(r.val_accuracy.is_some(), with_val, "{}", p.name());
        // seeded: the same seed gives the same folds (best_c is NaN here, so the result
        // is compared field by field)
        let again = run_protocol(p, &NearestCentroid, m, &y, 3).unwrap();
        assert_eq!(r.fold_sizes, again.fold_sizes);
        assert_eq!(r.fold_val_accuracies, again.fold_val_accuracies);
    }
}

#[test]
fn the_built_in_wrappers_are_the_trait_path() {
    let (x, y) = blobs();
    let m = HostMatrix::new(&x, 60, 3);
    for ev in magcl_eval::Evaluator::ALL {
        let wrapped = evaluate(ev, &x, 60, 3, &y, None, 5).unwrap();
        let direct = run_protocol(&StratifiedKFold { k: 10 }, &ev, m, &y, 5).unwrap();
        assert_eq!(wrapped, direct, "{ev}");
    }
}

#[test]
fn bad_input_is_reported_before_any_fit() {
    let (x, y) = blobs();
    let m = HostMatrix::new(&x, 60, 3);
    // a class of 2 members cannot be stratified over 10 folds
    let mut few = y.clone();
    for v in few.iter_mut() {
        *v = 0;
    }
    few[0] = 1;
    few[1] = 1;
    let e = run_protocol(&StratifiedKFold { k: 10 }, &NearestCentroid, m, &few, 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("class 1 has 2 member(s)"), "{e}");
    // a non-finite value names its row
    let mut bad = x.clone();
    bad[3 * 7 + 1] = f32::INFINITY;
    let e = run_protocol(
        &StratifiedKFold { k: 10 },
        &NearestCentroid,
        HostMatrix::new(&bad, 60, 3),
        &y,
        0,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("row 7"), "{e}");
}
