#!/usr/bin/env python3
"""Generate the reference values that tests/stats_reference.rs checks magcl's statistics
against (tests/fixtures/bench/stats_expected.json).

Run once with scipy and numpy installed (outside the repository, e.g. a throwaway venv):
    python tools/gen_stats_fixtures.py > tests/fixtures/bench/stats_expected.json
The output is committed; the tests themselves never need Python.
"""
import json
import sys

import numpy as np
import scipy
from scipy import stats


def summary(xs):
    a = np.asarray(xs, dtype=float)
    n = len(a)
    m = float(a.mean())
    s = float(a.std(ddof=1))
    lo, hi = stats.t.interval(0.95, n - 1, loc=m, scale=s / np.sqrt(n))
    return {"x": xs, "mean": m, "std": s, "ci_low": float(lo), "ci_high": float(hi),
            "min": float(a.min()), "max": float(a.max())}


def paired(base, treat):
    b = np.asarray(base, dtype=float)
    t = np.asarray(treat, dtype=float)
    d = t - b
    tt = stats.ttest_rel(t, b)
    w = stats.wilcoxon(t, b)  # scipy defaults: zero_method='wilcox', method='auto'
    return {"baseline": base, "treatment": treat,
            "mean_diff": float(d.mean()),
            "t": float(tt.statistic), "p_t": float(tt.pvalue),
            "w_stat": float(w.statistic), "p_w": float(w.pvalue),
            "dz": float(d.mean() / d.std(ddof=1))}


def holm(ps):
    ps = np.asarray(ps, dtype=float)
    m = len(ps)
    order = np.argsort(ps, kind="stable")
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        adj[i] = running
    return {"p": ps.tolist(), "adjusted": adj.tolist()}


rng = np.random.default_rng(20230207)
out = {"scipy_version": scipy.__version__, "numpy_version": np.__version__}

out["summaries"] = [
    summary([86.2, 87.9, 85.1, 88.4, 86.8]),
    summary([1.0, 2.0]),
    summary([0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125]),
    summary([round(float(v), 3) for v in rng.normal(70, 3, 12)]),
]

out["t_quantiles"] = [
    {"p": p, "df": df, "q": float(stats.t.ppf(p, df))}
    for df in [1, 2, 4, 9, 29, 100] for p in [0.975, 0.995, 0.9]
]

cases = []
# Exact (no ties, no zeros), small n.
cases.append(paired([86.2, 87.9, 85.1, 88.4, 86.8], [87.0, 88.1, 86.9, 88.0, 88.3]))
cases.append(paired([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.5, 2.1, 2.2, 5.3, 5.4, 7.7]))
# Ties among |d| (→ exact sign-flip / permutation for n <= 13).
cases.append(paired([10.0, 10.0, 10.0, 10.0, 10.0, 10.0], [11.0, 9.0, 12.0, 11.0, 13.0, 12.0]))
# A zero difference.
cases.append(paired([70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0], [70.0, 71.5, 72.25, 74.0, 73.5, 77.0, 78.5]))
# n > 13 with ties → normal approximation.
b = [float(v) for v in np.round(rng.normal(80, 2, 20), 1)]
t = [float(v) for v in np.round(np.array(b) + rng.normal(0.5, 1.0, 20), 1)]
cases.append(paired(b, t))
# n = 30 without ties → exact.
b = [float(v) for v in rng.normal(75, 2, 30)]
t = [float(v) for v in np.array(b) + rng.normal(0.3, 1.0, 30)]
cases.append(paired(b, t))
# n = 60 → normal approximation.
b = [float(v) for v in rng.normal(75, 2, 60)]
t = [float(v) for v in np.array(b) + rng.normal(0.2, 1.0, 60)]
cases.append(paired(b, t))
out["paired"] = cases

out["holm"] = [
    holm([0.01, 0.04, 0.03, 0.2]),
    holm([0.5, 0.001, 0.02]),
    holm([0.04, 0.04, 0.04]),
]

json.dump(out, sys.stdout, indent=1)
sys.stdout.write("\n")
