"""Which SVM kernel on WL subtree counts? An independent check with scikit-learn.

Builds Weisfeiler-Lehman subtree count features (iterations 0..h, colours numbered per
iteration, initial colours = node labels, or degrees for unlabelled sets) from a TU
dataset's text files, and scores them with the nested CV magcl uses (StratifiedKFold(10,
shuffle, seed), C in {1e-3..1e3} by inner 5-fold CV) under three kernels: RBF with
gamma='scale' on the counts (magcl's `wl`), the linear WL kernel, and the
cosine-normalised linear kernel. Prints mean and std over the seeds.

    python3 tools/wl_kernel_check.py DIR NAME [--h 3] [--seeds 3]

DIR holds NAME_A.txt, NAME_graph_indicator.txt, NAME_graph_labels.txt (and
NAME_node_labels.txt where the set has labels). Needs numpy, scipy, scikit-learn.
"""
import argparse
import os

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC

C_GRID = {"C": [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3]}


def read(dir_, name):
    path = lambda part: os.path.join(dir_, f"{name}_{part}.txt")
    graph_of = np.loadtxt(path("graph_indicator"), dtype=int) - 1
    n = len(graph_of)
    adj = [set() for _ in range(n)]
    for line in open(path("A")):
        a, b = (int(x) for x in line.replace(" ", "").split(","))
        if a != b:
            adj[a - 1].add(b - 1)
            adj[b - 1].add(a - 1)
    if os.path.exists(path("node_labels")):
        colours = [line.strip() for line in open(path("node_labels"))]
    else:
        colours = [str(len(adj[v])) for v in range(n)]
    y = np.loadtxt(path("graph_labels"), dtype=int)
    return graph_of, adj, colours, y


def wl_counts(graph_of, adj, colours, h):
    ids = {}
    cur = [ids.setdefault((0, c), len(ids)) for c in colours]
    rows, cols = [], []
    for it in range(h + 1):
        rows.extend(graph_of)
        cols.extend(cur)
        if it == h:
            break
        cur = [
            ids.setdefault((it + 1, cur[v], tuple(sorted(cur[u] for u in adj[v]))), len(ids))
            for v in range(len(cur))
        ]
    shape = (graph_of.max() + 1, len(ids))
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)


def score(kind, x, gram, y, seed):
    accs = []
    for train, test in StratifiedKFold(10, shuffle=True, random_state=seed).split(gram, y):
        if kind == "rbf":
            clf = GridSearchCV(SVC(), C_GRID, cv=5).fit(x[train], y[train])
            accs.append(clf.score(x[test], y[test]))
        else:
            k = gram
            if kind == "linear-normalised":
                d = np.sqrt(np.diag(gram))
                k = gram / np.outer(d, d)
            clf = GridSearchCV(SVC(kernel="precomputed"), C_GRID, cv=5)
            clf.fit(k[np.ix_(train, train)], y[train])
            accs.append(clf.score(k[np.ix_(test, train)], y[test]))
    return 100 * np.mean(accs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("name")
    ap.add_argument("--h", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    graph_of, adj, colours, y = read(a.dir, a.name)
    x = wl_counts(graph_of, adj, colours, a.h)
    gram = (x @ x.T).toarray()
    print(f"{a.name}: {x.shape[0]} graphs, {x.shape[1]} WL columns (h = {a.h}), seeds 0..{a.seeds - 1}")
    for kind in ["rbf", "linear", "linear-normalised"]:
        s = [score(kind, x, gram, y, seed) for seed in range(a.seeds)]
        print(f"  {kind:18s} {np.mean(s):.2f} ± {np.std(s, ddof=1):.2f}")


if __name__ == "__main__":
    main()
