"""Bad input raises a Python exception that says what was expected; nothing crashes.
The messages are those `magcl eval` gives for the same input."""
import numpy as np
import pytest

import magcl


def data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = np.arange(n) % 2
    return x, y


@pytest.mark.parametrize(
    "x,exc,msg",
    [
        (np.zeros(40, np.float32), ValueError, "expected a 2-D array (samples × dims), got shape [40]"),
        (np.zeros((40, 2, 2), np.float32), ValueError, "expected a 2-D array"),
        (np.zeros((40, 3), np.int64), ValueError, "X: expected float32 or float64 embeddings, got dtype int64 (convert with .astype(numpy.float32))"),
        (np.zeros((40, 3), np.float16), ValueError, "expected float32 or float64 embeddings"),
        (np.zeros((40, 3), ">f4"), ValueError, "expected float32 or float64 embeddings"),
        (np.full((40, 3), "a"), ValueError, "expected float32 or float64 embeddings"),
        (np.zeros((40, 3), np.complex64), ValueError, "expected float32 or float64 embeddings"),
        (np.zeros((0, 3), np.float32), ValueError, "labels, but X has 0 embeddings"),
        (np.zeros((40, 0), np.float32), ValueError, "embeddings are empty (40 × 0)"),
    ],
)
def test_bad_embeddings(x, exc, msg):
    _, y = data()
    with pytest.raises(exc) as e:
        magcl.evaluate_embedding(x, y)
    assert msg in str(e.value)


def test_ragged_lists_are_refused():
    _, y = data()
    with pytest.raises(ValueError):
        magcl.evaluate_embedding([[1.0, 2.0], [3.0]], y[:2])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_non_finite_values_name_the_row(bad, dtype):
    x, y = data()
    x = x.astype(dtype)
    x[3, 1] = bad
    with pytest.raises(ValueError) as e:
        magcl.evaluate_embedding(x, y)
    assert "embedding row 3 has a non-finite value" in str(e.value)
    assert "column 1" in str(e.value)


@pytest.mark.parametrize(
    "y,exc,msg",
    [
        (np.zeros((40, 1), np.int64), ValueError, "expected a 1-D array of labels, got shape [40, 1]"),
        (np.arange(39) % 2, ValueError, "y: 39 labels, but X has 40 embeddings"),
        (np.ones(40, np.int64), ValueError, "need at least 2 classes, the labels hold 1"),
        (np.r_[np.zeros(35), np.ones(5)].astype(int), ValueError, "class 1 has 5 member(s)"),
        (np.full(40, 0.5), ValueError, "expected integer labels, entry 0 is 0.5"),
        (np.r_[np.zeros(39), np.nan], ValueError, "expected integer labels, entry 39 is NaN"),
        (np.array(["a", "b"] * 20), ValueError, "expected an integer array of labels"),
    ],
)
def test_bad_labels(y, exc, msg):
    x, _ = data()
    with pytest.raises(exc) as e:
        magcl.evaluate_embedding(x, y)
    assert msg.lower() in str(e.value).lower()


def test_bad_arguments():
    x, y = data()
    with pytest.raises(ValueError, match="unknown evaluator \"svm\"; expected one of svc-rbf, linear-svc, logreg"):
        magcl.evaluate_embedding(x, y, evaluator="svm")
    with pytest.raises(ValueError, match="seed: expected an integer in 0..2\\^64, got -1"):
        magcl.evaluate_embedding(x, y, seed=-1)
    with pytest.raises(ValueError, match="seed: expected an integer"):
        magcl.evaluate_embedding(x, y, seed="0")
    with pytest.raises(ValueError, match="restarts: expected at least 1"):
        magcl.kmeans_nmi(x, y, restarts=0)
    with pytest.raises(ValueError, match="labels_true has 3 entries but labels_pred has 2"):
        magcl.nmi_score([0, 1, 1], [0, 1])


@pytest.mark.parametrize(
    "folds,msg",
    [
        (np.arange(39) % 2, "folds: 39 fold indices, but X has 40 embeddings"),
        (np.where(np.arange(40) < 20, 0, 2), "fold 1 is empty"),
        (np.full(40, 0), "need at least 2 folds, got 1"),
        (np.r_[-1, np.arange(39) % 2], "fold index 0 is -1; expected ≥ 0"),
        (np.full(40, 0.5), "expected integer fold indices, entry 0 is 0.5"),
        ([], "folds is empty"),
        ([(np.arange(20, 40), np.arange(20)), (np.arange(20), np.arange(19, 40))],
         "sample 19 is in the test parts of splits 0 and 1"),
        ([(np.arange(20, 40), np.arange(20)), (np.arange(20), np.arange(21, 40))],
         "sample 20 is in no test part"),
        ([(np.arange(20, 30), np.arange(20)), (np.arange(20), np.arange(20, 40))],
         "split 0: the training part is not all the other samples"),
        ([(np.arange(20, 40), np.arange(20)), (np.arange(20), np.arange(20, 41))],
         "split 1: test index 40 is not a sample"),
        ([(np.arange(20, 40),)], "folds[0]: expected a (train, test) pair"),
    ],
)
def test_bad_folds(folds, msg):
    x, y = data()
    with pytest.raises(ValueError) as e:
        magcl.evaluate_embedding(x, y, folds=folds)
    assert msg in str(e.value)


def test_kmeans_and_nmi_bad_input():
    x, y = data()
    with pytest.raises(ValueError, match="y: 39 labels, but X has 40 embeddings"):
        magcl.kmeans_nmi(x, y[:39])
    x[0, 0] = np.nan
    with pytest.raises(ValueError, match="embedding row 0 has a non-finite value"):
        magcl.kmeans_nmi(x, y)
    with pytest.raises(ValueError, match="the labelings are empty"):
        magcl.nmi_score([], [])
