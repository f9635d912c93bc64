#!/usr/bin/env python3
"""Patches copies of the official GRACE and GCA code so they run on today's torch,
torch_geometric and numpy, take a seed, and save the final embeddings. Nothing in the
training or the evaluation changes. The copies stay outside the project (.devcarry/).

usage: patch_official.py GRACE_DIR GCA_DIR

Every patch is (file, old text, new text, why); one that does not apply stops the script.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from official_patch import apply  # noqa: E402  (tools/official_patch.py)


def save(indent):
    """Lines that write z to $EMB_OUT when it is set."""
    return (f"{indent}import os, numpy\n"
            f"{indent}if os.environ.get('EMB_OUT'):\n"
            f"{indent}    numpy.save(os.environ['EMB_OUT'], z.detach().cpu().numpy())\n")


GRACE = [
    ("train.py", "from torch_geometric.utils import dropout_adj",
     "from torch_geometric.utils import dropout_edge as dropout_adj",
     "dropout_adj is gone from torch_geometric 2.8; dropout_edge drops each directed edge "
     "with probability p as dropout_adj did, and returns the kept edges first"),
    ("train.py", "    parser.add_argument('--config', type=str, default='config.yaml')\n",
     "    parser.add_argument('--config', type=str, default='config.yaml')\n"
     "    parser.add_argument('--seed', type=int, default=None)\n",
     "a seed per run (the code fixes one per data set in config.yaml)"),
    ("train.py", "    torch.manual_seed(config['seed'])",
     "    torch.manual_seed(config['seed'] if args.seed is None else args.seed)",
     "the seed from --seed"),
    ("train.py", "    z = model(x, edge_index)\n\n    label_classification(z, y, ratio=0.1)",
     "    z = model(x, edge_index)\n" + save("    ") + "\n    label_classification(z, y, ratio=0.1)",
     "the final embeddings to $EMB_OUT, for the cross-evaluation"),
    ("train.py", "            path,\n            name,\n            T.NormalizeFeatures())",
     "            path,\n            name,\n            transform=T.NormalizeFeatures())",
     "torch_geometric 2.8's Planetoid takes `split` as its third argument: the transform "
     "by name"),
    ("eval.py", "np.zeros(y_pred.shape, np.bool)", "np.zeros(y_pred.shape, bool)",
     "np.bool is gone from numpy 2"),
    ("eval.py", ".toarray().astype(np.bool)", ".toarray().astype(bool)",
     "np.bool is gone from numpy 2"),
]

GCA = [
    ("train.py", "import nni\n", "",
     "nni (hyper-parameter search service) is not installed and not used with --param local/default"),
    ("simple_param/sp.py", "import nni\n", "", "as above"),
    ("train.py", "from torch_geometric.utils import dropout_adj, degree, to_undirected",
     "from torch_geometric.utils import dropout_edge as dropout_adj, degree, to_undirected",
     "dropout_adj is gone from torch_geometric 2.8 (as for GRACE)"),
    ("pGRACE/model.py", "base_model(in_channels, 2 * out_channels).jittable()",
     "base_model(in_channels, 2 * out_channels)",
     "jittable() is gone from torch_geometric 2.8; it only prepared TorchScript"),
    ("pGRACE/utils.py", "from torch_scatter import scatter\nimport torch_sparse\n",
     "from torch_geometric.utils import scatter\n",
     "torch_scatter / torch_sparse are not installed; torch_geometric's scatter sums the same"),
    ("pGRACE/dataset.py", "from ogb.nodeproppred import PygNodePropPredDataset\n", "",
     "ogb is not installed and only serves ogbn sets"),
    ("train.py", "    z = model(data.x, data.edge_index)\n\n    evaluator = MulticlassEvaluator()",
     "    z = model(data.x, data.edge_index)\n"
     "    if final:\n" + save("        ") + "\n    evaluator = MulticlassEvaluator()",
     "the final embeddings to $EMB_OUT, for the cross-evaluation"),
    ("train.py", "    for epoch in range(1, param['num_epochs'] + 1):\n        loss = train()\n",
     "    import time\n    _t = time.perf_counter()\n"
     "    for epoch in range(1, param['num_epochs'] + 1):\n        loss = train()\n"
     "        if device.type == 'cuda':\n            torch.cuda.synchronize()\n"
     "        print(f'(S) | epoch {epoch} seconds {time.perf_counter() - _t:.5f}')\n"
     "        _t = time.perf_counter()\n",
     "seconds per training epoch (GRACE prints them; GCA does not); loss.item() in train() "
     "already waits for the GPU, the synchronize only makes that explicit"),
]


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    apply(sys.argv[1], GRACE)
    apply(sys.argv[2], GCA)
