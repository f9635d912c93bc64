#!/usr/bin/env python3
"""magcl.evaluate_embedding against scikit-learn's nested CV and against `magcl eval`.

A benchmark, not a test: it prints a table and writes one CSV row per run. The command,
the set-up and a measurement made with it: benchmarks-history:benchmarks/history/python/README.md.

Contenders, on the same embeddings and the same outer folds (scikit-learn's
StratifiedKFold(10, shuffle=True, random_state=0), given to magcl as `folds`):

  sklearn        the GraphCL / InfoGraph / SimGRACE `svc_classify`: per outer fold
                 GridSearchCV(SVC(), {"C": 1e-3..1e3}, cv=5, scoring="accuracy") (n_jobs
                 left at its default, as in those repositories), refit, score
  sklearn-2jobs  the same with GridSearchCV(n_jobs=2) (both cores; only with --sklearn-jobs)
  magcl-python   magcl.evaluate_embedding(X, y, folds=folds) in this process
  magcl-cli      the `magcl eval --embeddings X.npy --labels y.npy --folds folds.npy
                 --json` process on the same arrays saved as .npy

Each round runs every contender once, in an order rotated from round to round
(alternated), so a change in the machine's load hits all of them alike. Reported: wall
seconds (median [min-max]) and CPU seconds of the process (user + sys, all threads).

Embeddings: random, imitating sum-pooled GNN embeddings (class-dependent latent clusters
through a random ReLU layer, scaled by a log-normal graph size), 96 dims, with the sizes
and class balance of MUTAG (188: 125/63), PROTEINS (1113: 663/450) and NCI1 (4110:
2053/2057). svc-rbf accuracies land around 75-80 %, as for real embeddings.
"""
import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

SIZES = {
    "MUTAG": (125, 63),
    "PROTEINS": (663, 450),
    "NCI1": (2053, 2057),
}
DIMS = 96
C_GRID = [0.001, 0.01, 0.1, 1, 10, 100, 1000]


def embeddings(counts, seed, latent=8, sep=0.6):
    """Class-structured random embeddings (n x 96 float32) and labels (int64)."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.full(c, k) for k, c in enumerate(counts)])
    rng.shuffle(y)
    n, k = len(y), len(counts)
    centres = rng.normal(0.0, sep, size=(k, 2, latent))
    mode = rng.integers(0, 2, size=n)
    z = centres[y, mode] + rng.normal(size=(n, latent))
    w = rng.normal(size=(latent, DIMS)) / np.sqrt(latent)
    h = np.maximum(z @ w + rng.normal(0.0, 0.3, size=DIMS), 0.0)
    size = np.exp(rng.normal(3.0, 0.35, size=n))
    x = h * size[:, None] + rng.normal(size=(n, DIMS)) * np.sqrt(size)[:, None]
    return x.astype(np.float32), y.astype(np.int64)


def sklearn_folds(x, y, seed):
    from sklearn.model_selection import StratifiedKFold

    folds = np.empty(len(y), dtype=np.int64)
    skf = StratifiedKFold(n_splits=10, shuffle=True, random_state=seed)
    for k, (_, test) in enumerate(skf.split(x, y)):
        folds[test] = k
    return folds


def run_sklearn(x, y, seed, n_jobs):
    """The reference repositories' svc_classify with seeded folds; (correct, best C) per fold."""
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    kf = StratifiedKFold(n_splits=10, shuffle=True, random_state=seed)
    correct, best_c = [], []
    for train, test in kf.split(x, y):
        clf = GridSearchCV(SVC(), {"C": C_GRID}, cv=5, scoring="accuracy", n_jobs=n_jobs, verbose=0)
        clf.fit(x[train], y[train])
        correct.append(int(round(accuracy_score(y[test], clf.predict(x[test])) * len(test))))
        best_c.append(float(clf.best_params_["C"]))
    return correct, best_c


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(contender, x, y, folds, files, magcl_bin):
    """One run; returns (wall s, CPU s, correct per fold, best C per fold, inner s)."""
    import magcl

    if contender.startswith("magcl-cli"):
        c0, t0 = cpu_children(), time.perf_counter()
        p = subprocess.run(
            [magcl_bin, "eval", "--embeddings", files["x"], "--labels", files["y"],
             "--folds", files["folds"], "--evaluator", "svc-rbf", "--json"],
            capture_output=True, text=True, check=True,
        )
        wall, cpu = time.perf_counter() - t0, cpu_children() - c0
        r = json.loads(p.stdout)
        return wall, cpu, r["fold_correct"], r["best_c"], r["seconds"]
    c0, t0 = cpu_self(), time.perf_counter()
    if contender == "magcl-python":
        r = magcl.evaluate_embedding(x, y, evaluator="svc-rbf", folds=folds)
        wall, cpu = time.perf_counter() - t0, cpu_self() - c0
        return wall, cpu, r["fold_correct"], r["best_c"], r["seconds"]
    n_jobs = 2 if contender == "sklearn-2jobs" else None
    correct, best_c = run_sklearn(x, y, 0, n_jobs)
    wall = time.perf_counter() - t0
    cpu = cpu_self() - c0
    if n_jobs:
        cpu = float("nan")  # the joblib workers' CPU time is not counted here
    return wall, cpu, correct, best_c, wall


def summary(v):
    v = [a for a in v if a == a]
    if not v:
        return "–"
    return f"{statistics.median(v):.3g} [{min(v):.3g}–{max(v):.3g}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--magcl-bin", required=True, help="the magcl binary (magcl eval)")
    ap.add_argument("--sizes", default="MUTAG,PROTEINS,NCI1")
    ap.add_argument("--rounds", default="MUTAG=7,PROTEINS=5,NCI1=3",
                    help="rounds per size, e.g. MUTAG=7,NCI1=3")
    ap.add_argument("--sklearn-jobs", action="store_true", help="also GridSearchCV(n_jobs=2)")
    ap.add_argument("--out", required=True, help="CSV of every run")
    args = ap.parse_args()
    rounds = {k: int(v) for k, v in (kv.split("=") for kv in args.rounds.split(","))}
    contenders = ["sklearn", "magcl-python", "magcl-cli"]
    if args.sklearn_jobs:
        contenders.insert(1, "sklearn-2jobs")
    import magcl
    import sklearn

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    out = open(args.out, "w", newline="")
    w = csv.writer(out)
    w.writerow(["size", "n", "round", "contender", "wall_s", "cpu_s", "inner_s", "load1_before",
                "accuracy", "fold_correct", "best_c", "sklearn", "magcl", "commit"])
    table = []
    tmp = tempfile.mkdtemp(prefix="magcl-bench-")
    for size in args.sizes.split(","):
        x, y = embeddings(SIZES[size], seed=list(SIZES).index(size))
        folds = sklearn_folds(x, y, 0)
        files = {k: os.path.join(tmp, f"{size}-{k}.npy") for k in ("x", "y", "folds")}
        np.save(files["x"], x)
        np.save(files["y"], y)
        np.save(files["folds"], folds)
        runs = {c: [] for c in contenders}
        outcome = {}
        for r in range(rounds.get(size, 3)):
            order = contenders[r % len(contenders):] + contenders[:r % len(contenders)]
            for c in order:
                load = os.getloadavg()[0]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    wall, cpu, correct, best_c, inner = timed(c, x, y, folds, files, args.magcl_bin)
                acc = 100.0 * np.mean(np.array(correct) / np.bincount(folds))
                runs[c].append((wall, cpu, inner))
                outcome.setdefault(c, (correct, best_c))
                w.writerow([size, len(y), r, c, f"{wall:.4f}", f"{cpu:.3f}", f"{inner:.4f}",
                            f"{load:.2f}", f"{acc:.4f}", " ".join(map(str, correct)),
                            " ".join(map(str, best_c)), sklearn.__version__, magcl.__version__, commit])
                out.flush()
                print(f"{size} round {r} {c:14s} wall {wall:8.3f} s  cpu {cpu:8.3f} s  acc {acc:.2f}  load {load:.1f}",
                      file=sys.stderr, flush=True)
        sk_correct, sk_c = outcome["sklearn"]
        mg_correct, mg_c = outcome["magcl-python"]
        assert outcome["magcl-cli"] == outcome["magcl-python"], "CLI and Python differ"
        diff = max(abs(a - b) for a, b in zip(sk_correct, mg_correct))
        c_agree = sum(a == b for a, b in zip(sk_c, mg_c))
        sk_wall = statistics.median(v[0] for v in runs["sklearn"])
        for c in contenders:
            walls = [v[0] for v in runs[c]]
            table.append((size, len(y), c, len(walls), summary(walls), summary([v[1] for v in runs[c]]),
                          f"{sk_wall / statistics.median(walls):.1f}×",
                          f"{diff}" if c.startswith("magcl") else "", f"{c_agree}/10" if c.startswith("magcl") else ""))
    print("| size | n | contender | runs | wall s, median [range] | CPU s, median [range] | speed-up vs sklearn (median wall) | max Δ correct per fold vs sklearn | same C |")
    print("|---|--:|---|--:|---|---|--:|--:|--:|")
    for row in table:
        print("| " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
