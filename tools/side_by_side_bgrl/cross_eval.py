#!/usr/bin/env python3
"""Scores saved BGRL embeddings (official code's and magcl's) with two evaluators, so both
programs' embeddings meet the same classifiers:

  bgrl-eval  BGRL's `fit_logistic_regression` (bgrl/logistic_regression_eval.py): rows
             L2-normalised, a random 20% train / 80% test split (`data_random_seed` = the
             run's seed), one-vs-rest liblinear logistic regression with C from 2^-10..2^10
             chosen by 5 random halvings of the training part; test accuracy, one split
  gca-eval   GCA's `log_regression` (pGRACE/eval.py): random 10/10/80 split, a linear layer
             trained 3000 Adam steps (lr 0.01), test accuracy at the best validation
             accuracy (torch seeded with the run's seed)

usage: cross_eval.py BGRL_DIR GCA_DIR LIST.tsv OUT.csv
LIST.tsv rows: program  method  dataset  seed  embeddings.npy  labels.npy
"""
import csv
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    bgrl_dir, gca_dir, listing, out_csv = sys.argv[1:5]
    import numpy as np
    import torch
    sys.path.insert(0, bgrl_dir)
    sys.path.insert(0, gca_dir)
    from bgrl.logistic_regression_eval import fit_logistic_regression
    from pGRACE.eval import log_regression, MulticlassEvaluator

    torch.set_num_threads(1)
    rows = []
    for line in open(listing):
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 6:
            continue
        program, method, dataset, seed, emb, labels = parts
        z = np.load(emb).astype(np.float32)
        y = np.load(labels).astype(np.int64)
        np.random.seed(int(seed))  # GridSearchCV's ShuffleSplit draws from numpy's global state
        acc = fit_logistic_regression(z, y, data_random_seed=int(seed), repeat=1)[0]
        rows.append((program, method, dataset, seed, "bgrl-eval", 100 * acc))

        class One:  # what log_regression reads of a dataset: dataset[0].x, dataset[0].y
            def __getitem__(self, i):
                return type("D", (), {"x": torch.from_numpy(z), "y": torch.from_numpy(y)})()

        dev = "cuda" if torch.cuda.is_available() else "cpu"
        torch.manual_seed(int(seed))
        acc = log_regression(torch.from_numpy(z).to(dev), One(), MulticlassEvaluator(),
                             split="rand:0.1", num_epochs=3000)["acc"]
        rows.append((program, method, dataset, seed, "gca-eval", 100 * acc))
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["program", "method", "dataset", "seed", "evaluator", "accuracy"])
        for r in rows:
            w.writerow(r[:5] + (f"{r[5]:.4f}",))


if __name__ == "__main__":
    main()
