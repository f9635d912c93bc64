#!/usr/bin/env python3
"""Patches a copy of the official BGRL code (nerdslab/bgrl) so it runs on today's torch,
torch_geometric, numpy and scikit-learn, loads Cora and CiteSeer, saves the final
embeddings and prints its epoch times. Training and evaluation are unchanged. The copy
stays outside the project (.devcarry/).

usage: patch_official.py BGRL_DIR

Every patch is (file, old text, new text, why); one that does not apply stops the script.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from official_patch import apply  # noqa: E402  (tools/official_patch.py)

PATCHES = [
    ("train_transductive.py",
     "['amazon-computers', 'amazon-photos', 'coauthor-cs', 'coauthor-physics', 'wiki-cs'],",
     "['amazon-computers', 'amazon-photos', 'coauthor-cs', 'coauthor-physics', 'wiki-cs', "
     "'cora', 'citeseer'],",
     "the code ships no Cora / CiteSeer option; the side-by-side needs them"),
    ("bgrl/data.py", "        'amazon-photos': (datasets.Amazon, 'Photo'),\n",
     "        'amazon-photos': (datasets.Amazon, 'Photo'),\n"
     "        'cora': (datasets.Planetoid, 'Cora'),\n"
     "        'citeseer': (datasets.Planetoid, 'CiteSeer'),\n",
     "Cora and CiteSeer through PyG's Planetoid, row-normalised like the other sets"),
    ("train_transductive.py", "from torch.utils.tensorboard import SummaryWriter\n",
     "try:\n    from torch.utils.tensorboard import SummaryWriter\n"
     "except ImportError:  # tensorboard is not installed: log nothing\n"
     "    class SummaryWriter:\n"
     "        def __init__(self, *a, **k): pass\n"
     "        def __getattr__(self, name): return lambda *a, **k: None\n",
     "tensorboard may not be installed; the logs are not needed"),
    ("train_transductive.py",
     "        for i, score in enumerate(scores):\n",
     "        print('EVAL', epoch, ' '.join(f'{s:.6f}' for s in scores), flush=True)\n"
     "        for i, score in enumerate(scores):\n",
     "print the evaluation (it only went to tensorboard)"),
    ("train_transductive.py",
     "    for epoch in tqdm(range(1, FLAGS.epochs + 1)):\n        train(epoch-1)\n",
     "    import time\n"
     "    for epoch in tqdm(range(1, FLAGS.epochs + 1)):\n"
     "        t0 = time.perf_counter()\n        train(epoch-1)\n"
     "        if device.type == 'cuda': torch.cuda.synchronize()\n"
     "        print('EPOCH_SECONDS', time.perf_counter() - t0, flush=True)\n",
     "epoch times for the speed comparison (synchronised, as magcl reads each loss)"),
    ("train_transductive.py",
     "    # save encoder weights\n",
     "    if os.environ.get('EMB_OUT'):\n"
     "        import numpy\n"
     "        reps, _ = compute_representations(copy.deepcopy(model.online_encoder).eval(), dataset, device)\n"
     "        numpy.save(os.environ['EMB_OUT'], reps.cpu().numpy())\n"
     "    # save encoder weights\n",
     "the final online encoder's embeddings (as its eval computes them) to $EMB_OUT"),
    ("bgrl/logistic_regression_eval.py", "sparse=False", "sparse_output=False",
     "scikit-learn renamed OneHotEncoder's `sparse` (removed in 1.4)"),
    ("bgrl/logistic_regression_eval.py", "np.bool)", "bool)", "np.bool is gone from numpy 2"),
]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    # the last two rows replace every occurrence (2 and 5 in the released file)
    apply(pathlib.Path(sys.argv[1]), PATCHES[:-2])
    apply(pathlib.Path(sys.argv[1]), PATCHES[-2:], every=True)


if __name__ == "__main__":
    main()
