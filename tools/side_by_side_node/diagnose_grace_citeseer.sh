#!/bin/bash
# Where GRACE's CiteSeer gap under GRACE's own evaluator comes from
# (results/side_by_side_grace_gca/README.md): official GRACE and magcl's grace, CiteSeer,
# seeds 0-5, on the GPU machine; for each embedding GRACE's label_classification on all
# nodes and on the nodes with neighbours and features, the median row norm (all, isolated
# nodes), the share of exact zeros, the effective rank of the unit rows (centred), and the
# squared norm of their mean. Carried in .devcarry/: new/magcl-torch, mirror/planetoid,
# official/GRACE, official/GCA (unpatched).
#   bash tools/side_by_side_node/diagnose_grace_citeseer.sh
set -u
D=$PWD/.devcarry; T=$PWD/tools/side_by_side_node; W=/tmp/dc; mkdir -p $W/emb
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
cp -r $D/official/GRACE $D/official/GCA $W/ && python3 $T/patch_official.py $W/GRACE $W/GCA > /dev/null || exit 1
export HOME=/tmp/dc-home; mkdir -p $HOME/datasets/CiteSeer/CiteSeer/raw; cp $D/mirror/planetoid/ind.citeseer.* $HOME/datasets/CiteSeer/CiteSeer/raw/
python3 -c "
from torch_geometric.datasets import Planetoid
import torch_geometric.transforms as T
Planetoid('$HOME/datasets/CiteSeer','CiteSeer',transform=T.NormalizeFeatures())" > /dev/null 2>&1
one() { s=$1 p=$2
  if [ $p = official ]; then (cd $W/GRACE && EMB_OUT=$W/emb/official-$s.npy python3 train.py --dataset CiteSeer --seed $s > /dev/null 2>&1)
  else $D/new/magcl-torch train --method grace --dataset CiteSeer --seed $s --device cuda --save-embeddings $W/emb/magcl-$s.npy --json > /dev/null 2>&1; fi; }
export -f one; export W D HOME
for s in 0 1 2 3 4 5; do for p in official magcl; do echo $s $p; done; done | xargs -P 12 -L 1 bash -c 'one $0 $1'
python3 - <<'PY'
import numpy as np, sys, importlib.util, io, contextlib, torch
from torch_geometric.datasets import Planetoid
from torch_geometric.utils import degree
import os
g = Planetoid(os.environ['HOME'] + '/datasets/CiteSeer', 'CiteSeer')[0]
y = g.y.numpy(); deg = degree(g.edge_index[0], g.num_nodes).numpy(); nofeat = (g.x.sum(1) == 0).numpy()
iso = deg == 0
spec = importlib.util.spec_from_file_location('ge', '/tmp/dc/GRACE/eval.py'); ge = importlib.util.module_from_spec(spec); spec.loader.exec_module(ge)
def acc(z, yy, seed):
    np.random.seed(seed)
    with contextlib.redirect_stdout(io.StringIO()):
        return 100 * ge.label_classification(torch.from_numpy(z), torch.from_numpy(yy), ratio=0.1)['F1Mi']['mean']
keep = ~iso & ~nofeat
print('isolated', iso.sum(), 'no features', nofeat.sum(), 'kept', keep.sum())
for p in ['official', 'magcl']:
    for s in range(6):
        f = f'/tmp/dc/emb/{p}-{s}.npy'
        if not os.path.exists(f): print(p, s, 'missing'); continue
        z = np.load(f).astype(np.float32)
        n = np.linalg.norm(z, axis=1)
        zs = z / np.maximum(n[:, None], 1e-12)
        nz = (np.abs(z) > 0).mean()
        sv = np.linalg.svd(zs - zs.mean(0), compute_uv=False); er = (sv.sum()**2) / (sv**2).sum()
        print(f'{p} seed {s}: all {acc(z, y, s):.2f}  non-isolated {acc(z[keep], y[keep], s):.2f}  norm med {np.median(n):.3g} iso-norm med {np.median(n[iso]):.3g} zero-frac {1-nz:.3f} eff-rank {er:.1f} mean-cos {float((zs.mean(0)**2).sum()):.3f}')
PY
