"""Scores saved graph embeddings with MVGRL's released evaluation (graph/train.py): a
linear SVM (scikit-learn's `LinearSVC()` with its defaults, on the unscaled embeddings)
whose C is chosen from {1e-3, ..., 1e3} by a 5-fold grid search inside each fold of a
shuffled stratified 10-fold split. The released code leaves the outer split unseeded;
here it is seeded with the run's seed so that a score can be recomputed.

    python3 official_eval.py EMB.npy LABELS.npy SEED   # prints one JSON line
"""
import json
import sys
import warnings

import numpy as np
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import LinearSVC


def main() -> None:
    warnings.filterwarnings("ignore")
    x, y, seed = np.load(sys.argv[1]), np.load(sys.argv[2]), int(sys.argv[3])
    grid = {"C": [10.0 ** k for k in range(-3, 4)]}
    folds = StratifiedKFold(n_splits=10, shuffle=True, random_state=seed)
    scores = []
    for train, test in folds.split(x, y):
        search = GridSearchCV(LinearSVC(), grid, cv=5, scoring="accuracy")
        search.fit(x[train], y[train])
        scores.append(accuracy_score(y[test], search.predict(x[test])))
    print(json.dumps({"accuracy": 100 * float(np.mean(scores)), "std": 100 * float(np.std(scores))}))


if __name__ == "__main__":
    main()
