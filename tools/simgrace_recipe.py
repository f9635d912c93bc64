#!/usr/bin/env python3
"""SimGRACE's graph-classification recipe in plain PyTorch + PyG + scikit-learn.

An implementation independent of magcl (no shared code, no libtorch kernels of ours, the
real scikit-learn SVC) of the recipe of the official SimGRACE `unsupervised_TU` code
(`simgrace.py`, `gin.py`, `aug.py`, `evaluate_embedding.py`, `go.sh`): GIN encoder (Linear-ReLU-Linear inside each conv, then ReLU, then batch norm;
sum-pool of every layer, concatenated), projection head, all linear layers Xavier-uniform
with zero bias; node features one-hot labels for the chemistry sets and a constant 1
otherwise; self-loops for nodes 0..max_index-1 of every graph; the data set shuffled once
and cut into fixed batches of 128; a perturbed copy of the encoder whose every tensor P
gets eta * N(0, std(P)^2), the head copied unperturbed; NT-Xent (T = 0.2, positive left out
of the denominator, perturbed view as anchor); Adam lr 0.01, 20 epochs; then the
embeddings of the encoder in evaluation mode go to StratifiedKFold(10, shuffled) with a
GridSearchCV(SVC(), C grid, cv=5) per fold. The score of a seed is the mean fold accuracy.

It exists to measure how the recipe itself scatters over seeds on this kind of machine, so
that magcl's numbers can be compared with the recipe's rather than with a few published
seeds (results/simgrace_recipe/MANIFEST.md).

Needs torch, torch_geometric and scikit-learn (none of them are magcl dependencies):

    python3 -m venv /tmp/recipe && /tmp/recipe/bin/pip install torch torch_geometric scikit-learn
    /tmp/recipe/bin/python tools/simgrace_recipe.py --mirror ../shared/datasets \
        --dataset MUTAG --seeds 0-29 > simgrace_recipe_mutag.csv

Output: CSV with a header, one row per seed: dataset,seed,eta,accuracy,last_epoch_loss.
"""
import argparse
import os
import random
import shutil
import sys
import tempfile

import numpy as np
import torch
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import LabelEncoder
from sklearn.svm import SVC
from torch import nn
from torch_geometric.datasets import TUDataset
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GINConv, global_add_pool

LABELLED = {"MUTAG", "PTC_MR", "DD", "PROTEINS", "NCI1", "NCI109"}
C_GRID = [0.001, 0.01, 0.1, 1, 10, 100, 1000]


def seeds_arg(text):
    """`0-29` or `0,3,7`."""
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(s) for s in text.split(",")]


class Prepare:
    """Constant features for the social sets; self-loops on nodes 0..max_index-1."""

    def __init__(self, constant):
        self.constant = constant

    def __call__(self, g):
        if self.constant:
            g.x = torch.ones(g.num_nodes, 1)
        top = int(g.edge_index.max())
        loops = torch.arange(top).repeat(2, 1)
        g.edge_index = torch.cat([g.edge_index, loops], dim=1)
        return g


class Gin(nn.Module):
    def __init__(self, inp, width, layers):
        super().__init__()
        dims = [inp] + [width] * layers
        self.convs = nn.ModuleList(
            GINConv(nn.Sequential(nn.Linear(a, width), nn.ReLU(), nn.Linear(width, width)))
            for a in dims[:-1]
        )
        self.norms = nn.ModuleList(nn.BatchNorm1d(width) for _ in range(layers))

    def forward(self, g):
        h, pooled = g.x, []
        for conv, norm in zip(self.convs, self.norms):
            h = norm(torch.relu(conv(h, g.edge_index)))
            pooled.append(global_add_pool(h, g.batch))
        return torch.cat(pooled, dim=1)


class Model(nn.Module):
    def __init__(self, inp, width, layers):
        super().__init__()
        out = width * layers
        self.encoder = Gin(inp, width, layers)
        self.proj_head = nn.Sequential(nn.Linear(out, out), nn.ReLU(), nn.Linear(out, out))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, g):
        return self.proj_head(self.encoder(g))


def nt_xent(anchor, other, temperature=0.2):
    """One direction, inter-view negatives, positive not in the denominator."""
    a = anchor / anchor.norm(dim=1, keepdim=True)
    o = other / other.norm(dim=1, keepdim=True)
    s = torch.exp(a @ o.t() / temperature)
    pos = s.diagonal()
    return -torch.log(pos / (s.sum(dim=1) - pos)).mean()


@torch.no_grad()
def load_perturbed(vice, model, eta):
    for (name, p), q in zip(model.named_parameters(), vice.parameters()):
        if name.startswith("proj_head"):
            q.copy_(p)
        else:
            q.copy_(p + eta * torch.randn_like(p) * p.std())


@torch.no_grad()
def embeddings(encoder, loader):
    xs, ys = [], []
    for g in loader:
        xs.append(encoder(g).numpy())
        ys.append(g.y.numpy())
    return np.concatenate(xs), np.concatenate(ys)


def svc_rbf_accuracy(x, y):
    y = LabelEncoder().fit_transform(y)
    scores = []
    for tr, te in StratifiedKFold(n_splits=10, shuffle=True).split(x, y):
        search = GridSearchCV(SVC(), {"C": C_GRID}, cv=5, scoring="accuracy")
        search.fit(x[tr], y[tr])
        scores.append(accuracy_score(y[te], search.predict(x[te])))
    return float(np.mean(scores))


def run_seed(root, name, seed, eta, epochs, save=None):
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
    prep = Prepare(constant=name not in LABELLED)
    train_set = TUDataset(root, name, transform=prep).shuffle()
    eval_set = TUDataset(root, name, transform=prep).shuffle()
    inp = train_set[0].x.size(1)
    train_loader = DataLoader(train_set, batch_size=128)
    eval_loader = DataLoader(eval_set, batch_size=128)
    model, vice = Model(inp, 32, 5), Model(inp, 32, 5)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    last = float("nan")
    for _ in range(epochs):
        model.train()
        losses = []
        for g in train_loader:
            opt.zero_grad()
            load_perturbed(vice, model, eta)
            with torch.no_grad():
                z_perturbed = vice(g)
            loss = nt_xent(z_perturbed, model(g))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        last = float(np.mean(losses))
    model.eval()
    x, y = embeddings(model.encoder, eval_loader)
    if save:
        np.save(f"{save}/{name}_{seed}.npy", x)
        np.save(f"{save}/{name}_{seed}.labels.npy", y)
    return 100.0 * svc_rbf_accuracy(x, y), last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", required=True, help="folder holding tu/<NAME>/<NAME>_*.txt")
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--seeds", type=seeds_arg, default=list(range(5)))
    ap.add_argument("--eta", type=float, default=1.0)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--save-embeddings",
        metavar="DIR",
        help="also write each seed's embeddings and labels to DIR/<NAME>_<SEED>[.labels].npy",
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    src = os.path.join(args.mirror, "tu", args.dataset)
    if not os.path.isdir(src):
        sys.exit(f"error: {src} does not exist (expected the TU files of {args.dataset})")
    with tempfile.TemporaryDirectory() as root:
        raw = os.path.join(root, args.dataset, "raw")
        os.makedirs(raw)
        for f in os.listdir(src):
            if f.endswith(".txt"):
                shutil.copy(os.path.join(src, f), raw)
        print("dataset,seed,eta,accuracy,last_epoch_loss", flush=True)
        for seed in args.seeds:
            acc, loss = run_seed(
                root, args.dataset, seed, args.eta, args.epochs, args.save_embeddings
            )
            print(f"{args.dataset},{seed},{args.eta},{acc:.4f},{loss:.6f}", flush=True)


if __name__ == "__main__":
    main()
