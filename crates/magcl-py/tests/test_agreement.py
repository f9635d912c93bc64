"""magcl.evaluate_embedding agrees with scikit-learn, fold for fold, on the committed
fixtures (the acceptance of the Rust tests in tests/eval_agreement.rs: every outer fold's
number of correct test predictions within one sample of scikit-learn's, the chosen C equal
in most folds). The NCI1-sized fixture (about 40 s here) is left to the Rust test, which
runs the same library function; benchmarks/python/ times that size."""
import numpy as np
import pytest

import magcl
from conftest import load_fixture

CASES = [
    # fixture, key in expected.json, evaluator, share of folds whose C must agree
    ("mutag_like", "svc-rbf", "svc-rbf", 0.8),
    ("imdbm_like", "svc-rbf", "svc-rbf", 0.8),
    ("mutag_like", "linear-svc", "linear-svc", 0.7),
    ("imdbm_like", "linear-svc", "linear-svc", 0.7),
    ("mutag_like", "logreg-converged", "logreg", 0.7),
    ("imdbm_like", "logreg-converged", "logreg", 0.7),
]


@pytest.mark.parametrize("name,key,evaluator,min_c_agree", CASES)
def test_folds_agree_with_sklearn(expected, name, key, evaluator, min_c_agree):
    x, y, folds = load_fixture(name)
    ref = expected["fixtures"][name][key]
    r = magcl.evaluate_embedding(x, y, evaluator=evaluator, folds=folds)
    assert r["evaluator"] == evaluator and r["protocol"] == "nested-cv"
    assert r["folds"] == len(ref) == 10
    assert r["fold_sizes"] == [f["n_test"] for f in ref]
    for k, f in enumerate(ref):
        assert abs(r["fold_correct"][k] - f["correct"]) <= 1, (
            f"{name} {evaluator} fold {k}: {r['fold_correct'][k]} correct vs sklearn {f['correct']}"
        )
    c_agree = sum(r["best_c"][k] == f["best_c"] for k, f in enumerate(ref))
    assert c_agree >= min_c_agree * len(ref), f"best C agrees in {c_agree}/{len(ref)} folds"
    assert all(c in magcl.C_GRID for c in r["best_c"])
    # The summary is the mean and the sample std (ddof = 1) of the fold accuracies.
    acc = 100.0 * np.array(r["fold_correct"]) / np.array(r["fold_sizes"])
    np.testing.assert_allclose(r["fold_accuracies"], acc, rtol=0, atol=1e-9)
    assert r["accuracy"] == pytest.approx(acc.mean(), abs=1e-9)
    assert r["accuracy_std_folds"] == pytest.approx(acc.std(ddof=1), abs=1e-9)
    # ... and within one sample per fold of scikit-learn's mean accuracy
    sk = np.mean([f["correct"] / f["n_test"] for f in ref]) * 100
    assert abs(r["accuracy"] - sk) <= 100.0 / min(r["fold_sizes"])


def test_nmi_matches_sklearn(expected):
    cases = expected["nmi"]
    assert len(cases) >= 3
    for case in cases:
        got = magcl.nmi_score(np.array(case["true"]), np.array(case["pred"]))
        assert got == pytest.approx(case["nmi"], abs=1e-12)


def test_seeded_folds_have_sklearns_fold_sizes(expected):
    """With no folds given, the outer folds are drawn from the seed: stratified like
    StratifiedKFold(10, shuffle=True), with its fold sizes (the members differ)."""
    x, y, _ = load_fixture("mutag_like")
    ref = expected["fixtures"]["mutag_like"]["svc-rbf"]
    for seed in (0, 1, 7):
        r = magcl.evaluate_embedding(x, y, seed=seed)
        assert r["seed"] == seed
        assert r["fold_sizes"] == [f["n_test"] for f in ref]
    a = magcl.evaluate_embedding(x, y, seed=5)
    b = magcl.evaluate_embedding(x, y, seed=5)
    c = magcl.evaluate_embedding(x, y, seed=6)
    assert a["fold_correct"] == b["fold_correct"] and a["best_c"] == b["best_c"]
    assert (a["fold_correct"], a["best_c"]) != (c["fold_correct"], c["best_c"])


def split_pairs(folds):
    idx = np.arange(len(folds))
    return [(idx[folds != k], idx[folds == k]) for k in range(folds.max() + 1)]


def same_numbers(a, b):
    keys = set(a) - {"seconds", "zero_copy"}
    assert keys == set(b) - {"seconds", "zero_copy"}
    for k in keys:
        assert a[k] == b[k], k


def test_folds_as_train_test_pairs(expected):
    """folds may be (train, test) index pairs, e.g. StratifiedKFold(...).split(X, y): the
    same evaluation as the fold index per sample, from a list or a generator."""
    x, y, folds = load_fixture("mutag_like")
    by_index = magcl.evaluate_embedding(x, y, folds=folds)
    same_numbers(by_index, magcl.evaluate_embedding(x, y, folds=split_pairs(folds)))
    same_numbers(by_index, magcl.evaluate_embedding(x, y, folds=iter(split_pairs(folds))))
    same_numbers(by_index, magcl.evaluate_embedding(x, y, folds=folds.tolist()))


def test_float64_noncontiguous_and_lists_give_the_same_numbers():
    x, y, folds = load_fixture("mutag_like")
    assert x.dtype == np.float32 and x.flags["C_CONTIGUOUS"]
    base = magcl.evaluate_embedding(x, y, folds=folds)
    assert base["zero_copy"] is True
    wide = np.repeat(x, 2, axis=1)[:, ::2]  # a strided view with x's values
    assert not wide.flags["C_CONTIGUOUS"]
    for variant in (x.astype(np.float64), wide, np.asfortranarray(x), x.tolist()):
        r = magcl.evaluate_embedding(variant, y, folds=folds)
        assert r["zero_copy"] is False
        same_numbers(base, r)
    # labels of any integer dtype, whole floats, or any values (classes ordered by value)
    for labels in (y.astype(np.int8), y.astype(np.uint16), y.astype(np.float32), y * 7 - 3):
        same_numbers(base, magcl.evaluate_embedding(x, labels, folds=folds))


def test_validation_protocol_and_nmi():
    x, y, _ = load_fixture("mutag_like")
    r = magcl.evaluate_embedding(x, y, evaluator="linear-svc", seed=2, validation=True, nmi=True)
    assert r["protocol"] == "adgcl-validation"
    assert len(r["fold_val_accuracies"]) == 10
    assert r["val_accuracy"] == pytest.approx(np.mean(r["fold_val_accuracies"]))
    assert 0.0 <= r["nmi_median"] <= 1.0
    k = magcl.kmeans_nmi(x, y, seed=2)
    assert len(k["nmi"]) == 20 and k["k"] == 2
    assert k["nmi_median"] == pytest.approx(np.median(k["nmi"]))
    assert k["nmi_median"] == r["nmi_median"]


def test_threads_give_the_same_numbers():
    """The GIL is released while the classifiers run; concurrent calls do not interfere."""
    from concurrent.futures import ThreadPoolExecutor

    x, y, folds = load_fixture("mutag_like")
    want = magcl.evaluate_embedding(x, y, seed=4)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: magcl.evaluate_embedding(x, y, seed=4), range(4)))
    for g in got:
        same_numbers(want, g)
