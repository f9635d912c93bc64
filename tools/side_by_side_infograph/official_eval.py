"""Scores every saved embedding of the InfoGraph side-by-side run with the official
code's own evaluator, `svc_classify(x, y, search=True)` of its evaluate_embedding.py (RBF
SVC, C searched by 5-fold GridSearchCV inside stratified 10-fold CV, folds drawn from
numpy's global RNG, here seeded with the run's seed).

    python official_eval.py PATCHED_OFFICIAL_DIR OUT_DIR

Writes OUT_DIR/<program>-<dataset>-<seed>.official_eval.json for each
<program>-<dataset>-<seed>.emb.npy that has none yet.
"""
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
from evaluate_embedding import svc_classify  # noqa: E402  (the official evaluator)
from sklearn import preprocessing  # noqa: E402

out = sys.argv[2]
for emb_path in sorted(glob.glob(os.path.join(out, "*-*-*.emb.npy"))):
    prefix = emb_path[: -len(".emb.npy")]
    target = prefix + ".official_eval.json"
    if os.path.exists(target):
        continue
    seed = int(prefix.rsplit("-", 1)[1])
    x = np.load(emb_path).astype(np.float64)
    y = preprocessing.LabelEncoder().fit_transform(np.load(prefix + ".y.npy"))
    np.random.seed(seed)
    acc = 100 * svc_classify(x, y, True)
    with open(target, "w") as f:
        json.dump({"svc": acc}, f)
    print(os.path.basename(prefix), f"{acc:.2f}")
