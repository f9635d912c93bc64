#!/usr/bin/env python3
"""Scores every saved embedding of the GRACE / GCA side-by-side with both official
evaluators, so official and magcl embeddings meet the same classifier:

  grace-eval  GRACE's `label_classification` (eval.py): rows L2-normalised, 10% train /
              90% test drawn at random, one-vs-rest liblinear logistic regression, C from
              2^-10..2^9 by 5-fold grid search; micro-F1 (= accuracy), mean of its 3 repeats
  gca-eval    GCA's `log_regression` (pGRACE/eval.py): random 10/10/80 split, a linear
              layer trained 3000 Adam steps (lr 0.01), the test accuracy at the best
              validation accuracy (checked every 20 steps)

Each evaluator's randomness is seeded with the run's seed (numpy for grace-eval, torch for
gca-eval), the same for both programs' embeddings of one (data set, seed).

usage: cross_eval.py GRACE_DIR GCA_DIR LIST.tsv OUT.csv [PROCESSES]
LIST.tsv rows: program  method  dataset  seed  embeddings.npy  labels.npy
"""
import csv
import io
import multiprocessing as mp
import sys
from contextlib import redirect_stdout


def score(job):
    grace_dir, gca_dir, (program, method, dataset, seed, emb, labels) = job
    import importlib.util
    import numpy as np
    import torch

    def load(name, path):
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    sys.path.insert(0, gca_dir)
    grace_eval = load("grace_eval", f"{grace_dir}/eval.py")
    from pGRACE.eval import log_regression, MulticlassEvaluator

    torch.set_num_threads(1)
    z = torch.from_numpy(np.load(emb).astype(np.float32))
    y = torch.from_numpy(np.load(labels).astype(np.int64))
    out = []
    np.random.seed(int(seed))
    with redirect_stdout(io.StringIO()):
        stats = grace_eval.label_classification(z, y, ratio=0.1)
    out.append((program, method, dataset, seed, "grace-eval", 100 * stats["F1Mi"]["mean"]))

    class One:  # what log_regression reads of a dataset: dataset[0].x, dataset[0].y
        def __getitem__(self, i):
            return type("D", (), {"x": z, "y": y})()

    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(int(seed))
    acc = log_regression(z.to(dev), One(), MulticlassEvaluator(), split="rand:0.1",
                         num_epochs=3000)["acc"]
    out.append((program, method, dataset, seed, "gca-eval", 100 * acc))
    return out


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    grace_dir, gca_dir, listing, out_csv = sys.argv[1:5]
    procs = int(sys.argv[5]) if len(sys.argv) > 5 else 4
    jobs = []
    for line in open(listing):
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 6:
            jobs.append((grace_dir, gca_dir, tuple(parts)))
    ctx = mp.get_context("spawn")
    with ctx.Pool(procs) as pool, open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["program", "method", "dataset", "seed", "evaluator", "accuracy"])
        for rows in pool.imap_unordered(score, jobs):
            for r in rows:
                w.writerow(r[:5] + (f"{r[5]:.4f}",))
            f.flush()


if __name__ == "__main__":
    main()
