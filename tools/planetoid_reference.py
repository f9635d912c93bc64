#!/usr/bin/env python3
"""Reference values for the Planetoid loader tests (tests/data_planetoid.rs).

Reads the original pickled files with numpy/scipy exactly the way PyG's
`read_planetoid_data` assembles them (vstack allx/tx, CiteSeer's missing test ids as
zero rows, `x[test_index] = x[sorted_test_index]`), and writes a few numbers per dataset to
tests/fixtures/data/planetoid_reference.json. The tests compare against that file and
never need Python.

Usage (numpy and scipy needed):
    python3 tools/planetoid_reference.py ../shared/datasets/planetoid > tests/fixtures/data/planetoid_reference.json
"""
import json
import pickle
import sys

import numpy as np
import scipy.sparse as sp


def load(folder, prefix, suffix):
    with open(f"{folder}/ind.{prefix}.{suffix}", "rb") as f:
        return pickle.load(f, encoding="latin1")


def reference(folder, prefix):
    x, tx, allx, y, ty, ally, graph = (
        load(folder, prefix, s) for s in ["x", "tx", "allx", "y", "ty", "ally", "graph"]
    )
    test_index = np.loadtxt(f"{folder}/ind.{prefix}.test.index", dtype=np.int64)
    sorted_test = np.sort(test_index)
    tx, ty = sp.csr_matrix(tx), np.asarray(ty)
    if prefix == "citeseer":
        n_ext = int(test_index.max() - test_index.min()) + 1
        tx_ext = sp.lil_matrix((n_ext, tx.shape[1]), dtype=tx.dtype)
        tx_ext[sorted_test - test_index.min(), :] = tx
        ty_ext = np.zeros((n_ext, ty.shape[1]), dtype=ty.dtype)
        ty_ext[sorted_test - test_index.min(), :] = ty
        tx, ty = sp.csr_matrix(tx_ext), ty_ext
    feats = sp.vstack([allx, tx]).tolil()
    feats[test_index, :] = feats[sorted_test, :]
    feats = sp.csr_matrix(feats)
    labels = np.vstack([ally, ty])
    labels[test_index, :] = labels[sorted_test, :]
    labels = labels.argmax(axis=1)
    n = feats.shape[0]

    edges = set()
    for k, nbrs in graph.items():
        for j in nbrs:
            if k != j:
                edges.add((min(k, j), max(k, j)))
    listed = set(int(t) for t in test_index)
    missing = [i for i in range(int(test_index.min()), int(test_index.max()) + 1) if i not in listed]
    probe = sorted(set([0, 1, len(y), len(y) + 499, int(test_index[0]), int(test_index[1]), n - 1] + missing[:3]))
    row_sums = np.asarray(feats.sum(axis=1)).ravel()
    return {
        "nodes": int(n),
        "edges": len(edges),
        "edge_digest": int(sum(u * n + v for u, v in edges)),
        "features": int(feats.shape[1]),
        "nnz": int(feats.nnz),
        "classes": int(ally.shape[1]),
        "train": int(len(y)),
        "test_min": int(test_index.min()),
        "test_max": int(test_index.max()),
        "missing_test_ids": missing,
        "label_counts": np.bincount(labels, minlength=ally.shape[1]).tolist(),
        "probe_nodes": probe,
        "probe_labels": [int(labels[i]) for i in probe],
        "probe_row_sums": [float(row_sums[i]) for i in probe],
        "probe_columns": [feats[i].indices.tolist() for i in probe],
    }


if __name__ == "__main__":
    folder = sys.argv[1]
    out = {p: reference(folder, p) for p in ["cora", "citeseer"]}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()
