#!/usr/bin/env python3
"""Generate the evaluator fixtures and the reference values the Rust tests compare with.

Run once (needs numpy, scipy, scikit-learn in a throwaway virtualenv outside the repo):

    python3 -m venv /tmp/pyenv-eval && /tmp/pyenv-eval/bin/pip install numpy scipy scikit-learn
    /tmp/pyenv-eval/bin/python tools/gen_eval_fixtures.py tests/fixtures/eval

It writes, under the output folder:

* one folder per fixture with `x.npy` (float32 embeddings, n x 96), `y.npy` (int32 labels),
  `folds.npy` (int64 outer fold index per sample, StratifiedKFold(10, shuffle=True,
  random_state=0)) and, for the smaller fixtures, `roles.npy` (int8, 10 x n: 0 = train,
  1 = validation, 2 = test for each outer fold; the AD-GCL protocol's 80/20 split);
* `expected.json`: for every fixture and evaluator the per-fold best C, number of correct
  test predictions and the inner-CV mean accuracies, as scikit-learn's
  `GridSearchCV(..., cv=5)` gives them; unshuffled StratifiedKFold assignments for a few
  label vectors; NMI values for a few labelings.

The embeddings imitate sum-pooled GNN graph embeddings: a class-dependent mixture of
latent clusters pushed through a random ReLU layer and scaled by a per-graph "size", with
enough class overlap that accuracies land around 70-90 %.
"""
import json
import os
import sys
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import normalized_mutual_info_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

C_GRID = [0.001, 0.01, 0.1, 1, 10, 100, 1000]
D = 96


def make_embeddings(rng, n, class_probs, sep, latent=6, sub=3):
    """Sum-pool-like embeddings with class overlap controlled by `sep`."""
    n_classes = len(class_probs)
    y = rng.choice(n_classes, size=n, p=class_probs)
    centers = rng.normal(0.0, sep, size=(n_classes, sub, latent))
    w = rng.normal(0.0, 1.0, size=(latent, D)) / np.sqrt(latent)
    b = rng.normal(0.0, 0.3, size=D)
    which = rng.integers(0, sub, size=n)
    z = centers[y, which] + rng.normal(0.0, 1.0, size=(n, latent))
    h = np.maximum(z @ w + b, 0.0)
    # graph size: log-normal, mildly class dependent (as in real datasets)
    size = np.exp(rng.normal(3.0 + 0.1 * y, 0.35))
    x = h * size[:, None] + rng.normal(0.0, 0.5, size=(n, D)) * np.sqrt(size)[:, None]
    # a few dead (all-zero) dimensions, as ReLU encoders produce
    x[:, rng.choice(D, size=4, replace=False)] = 0.0
    return x.astype(np.float32), y.astype(np.int32)


def outer_folds(y):
    folds = np.empty(len(y), dtype=np.int64)
    skf = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
    for k, (_, test) in enumerate(skf.split(np.zeros(len(y)), y)):
        folds[test] = k
    return folds


def grid(estimator, xtr, ytr):
    gs = GridSearchCV(estimator, {"C": C_GRID}, cv=5, scoring="accuracy", n_jobs=2)
    gs.fit(xtr, ytr)
    return gs


def protocol(x, y, folds, make_estimator, scale):
    """Outer folds given; train = all other folds in index order; refit-and-score."""
    out = []
    x64 = x.astype(np.float64)
    for k in range(int(folds.max()) + 1):
        tr = np.flatnonzero(folds != k)
        te = np.flatnonzero(folds == k)
        xtr, xte = x64[tr], x64[te]
        if scale:
            sc = StandardScaler().fit(xtr)
            xtr, xte = sc.transform(xtr), sc.transform(xte)
        gs = grid(make_estimator(), xtr, y[tr])
        pred = gs.predict(xte)
        out.append(
            {
                "best_c": float(gs.best_params_["C"]),
                "correct": int((pred == y[te]).sum()),
                "n_test": int(len(te)),
                "inner_mean": [float(v) for v in gs.cv_results_["mean_test_score"]],
            }
        )
    return out


def roles_for(folds, seed):
    """AD-GCL split: the 9 training folds split 80/20 into train/validation."""
    n = len(folds)
    k_max = int(folds.max()) + 1
    roles = np.zeros((k_max, n), dtype=np.int8)
    for k in range(k_max):
        tv = np.flatnonzero(folds != k)
        _, val = train_test_split(tv, test_size=0.2, random_state=seed + k)
        roles[k, val] = 1
        roles[k, folds == k] = 2
    return roles


def protocol_val(x, y, roles, make_estimator):
    out = []
    x64 = x.astype(np.float64)
    for k in range(roles.shape[0]):
        tr = np.flatnonzero(roles[k] == 0)
        va = np.flatnonzero(roles[k] == 1)
        te = np.flatnonzero(roles[k] == 2)
        sc = StandardScaler().fit(x64[tr])
        gs = grid(make_estimator(), sc.transform(x64[tr]), y[tr])
        pv = gs.predict(sc.transform(x64[va]))
        pt = gs.predict(sc.transform(x64[te]))
        out.append(
            {
                "best_c": float(gs.best_params_["C"]),
                "val_correct": int((pv == y[va]).sum()),
                "n_val": int(len(va)),
                "correct": int((pt == y[te]).sum()),
                "n_test": int(len(te)),
            }
        )
    return out


def unshuffled_cases(rng):
    cases = []
    specs = [
        (23, [0.5, 0.5]),
        (57, [0.2, 0.5, 0.3]),
        (100, [0.1, 0.3, 0.25, 0.35]),
        (41, [0.85, 0.15]),
        (169, [0.33, 0.33, 0.34]),
    ]
    for n, p in specs:
        y = rng.choice(len(p), size=n, p=p)
        # relabel so that label values do not follow order of first appearance
        y = (len(p) - 1 - y) * 3 + 1
        for k in (5, 3):
            folds = np.empty(n, dtype=np.int64)
            for f, (_, te) in enumerate(StratifiedKFold(n_splits=k).split(np.zeros(n), y)):
                folds[te] = f
            cases.append({"y": y.tolist(), "n_splits": k, "folds": folds.tolist()})
    return cases


def nmi_cases(rng):
    cases = []
    for n, a, b in [(50, 2, 2), (80, 3, 4), (120, 5, 3), (30, 2, 6), (200, 4, 4)]:
        t = rng.integers(0, a, size=n)
        p = np.where(rng.random(n) < 0.6, t, rng.integers(0, b, size=n))
        cases.append(
            {"true": t.tolist(), "pred": p.tolist(), "nmi": float(normalized_mutual_info_score(t, p))}
        )
    return cases


def main():
    # LogisticRegression's default max_iter=100 does not always converge; that is part of
    # the reference behaviour we record, so its warnings are silenced
    warnings.filterwarnings("ignore")
    os.environ["PYTHONWARNINGS"] = "ignore"  # joblib workers
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/eval"
    rng = np.random.default_rng(20240607)
    fixtures = [
        # name, n, class probabilities, separation, evaluators to check
        ("mutag_like", 188, [0.34, 0.66], 1.0, ["svc-rbf", "linear-svc", "logreg", "val"]),
        ("imdbm_like", 1500, [1 / 3, 1 / 3, 1 / 3], 1.15, ["svc-rbf", "linear-svc", "logreg", "val"]),
        ("nci1_like", 4110, [0.5, 0.5], 1.0, ["svc-rbf"]),
    ]
    expected = {"c_grid": C_GRID, "fixtures": {}}
    for name, n, probs, sep, evals in fixtures:
        x, y = make_embeddings(rng, n, probs, sep)
        folds = outer_folds(y)
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "x.npy"), x)
        np.save(os.path.join(d, "y.npy"), y)
        np.save(os.path.join(d, "folds.npy"), folds)
        entry = {"n": n, "d": D}
        if "val" in evals:
            roles = roles_for(folds, seed=100)
            np.save(os.path.join(d, "roles.npy"), roles)
        for ev in evals:
            t0 = time.time()
            if ev == "svc-rbf":
                entry[ev] = protocol(x, y, folds, SVC, scale=False)
            elif ev == "linear-svc":
                entry[ev] = protocol(x, y, folds, lambda: LinearSVC(dual=False), scale=True)
            elif ev == "logreg":
                entry[ev] = protocol(x, y, folds, LogisticRegression, scale=True)
                entry["logreg-converged"] = protocol(
                    x, y, folds, lambda: LogisticRegression(max_iter=100000, tol=1e-10), scale=True
                )
            elif ev == "val":
                entry["linear-svc-val"] = protocol_val(x, y, roles, lambda: LinearSVC(dual=False))
            dt = time.time() - t0
            key = "linear-svc-val" if ev == "val" else ev
            acc = np.mean([f["correct"] / f["n_test"] for f in entry[key]]) * 100
            print(f"{name} {ev}: {acc:.2f}% ({dt:.1f} s)", flush=True)
        expected["fixtures"][name] = entry
    expected["stratified_kfold_unshuffled"] = unshuffled_cases(rng)
    expected["nmi"] = nmi_cases(rng)
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
