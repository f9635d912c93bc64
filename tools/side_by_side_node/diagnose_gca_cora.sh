#!/bin/bash
# Why the official GCA code is weak on Cora (results/side_by_side_grace_gca/README.md):
# seeds 0..7 on the GPU machine of
#   uniform  the official GCA code with --drop_scheme uniform (GRACE inside GCA's code)
#   degfix   the official GCA code, scheme degree, with the one feature column no Cora node
#            has given the smallest present weight instead of log(0) (so no NaN reaches the
#            feature-drop probabilities) — a diagnostic change, not a fix we ship
#   grace07  the official GRACE code with drop_feature_rate 0.7 in both views (what the NaN
#            makes GCA's code do), grace-eval
# Carried in .devcarry/: official/{GRACE,GCA} (unpatched), mirror/planetoid.
#   bash tools/side_by_side_node/diagnose_gca_cora.sh
set -u
D=$PWD/.devcarry; T=$PWD/tools/side_by_side_node; W=/tmp/diag; mkdir -p $W/logs
cp -r $D/official/GRACE $D/official/GCA $W/ && python3 $T/patch_official.py $W/GRACE $W/GCA > /dev/null || exit 1
cp -r $W/GCA $W/GCAfix
python3 - <<'PY'
p='/tmp/diag/GCAfix/pGRACE/functional.py'; s=open(p).read()
old="def feature_drop_weights(x, node_c):\n    x = x.to(torch.bool).to(torch.float32)\n    w = x.t() @ node_c\n    w = w.log()\n"
assert old in s
s=s.replace(old, "def feature_drop_weights(x, node_c):\n    x = x.to(torch.bool).to(torch.float32)\n    w = x.t() @ node_c\n    w = w[w > 0].min().clamp(min=1e-30) * (w <= 0) + w * (w > 0)\n    w = w.log()\n")
open(p,'w').write(s)
PY
cp -r $W/GRACE $W/GRACE07 && sed -i '0,/drop_feature_rate_1: 0.3/s//drop_feature_rate_1: 0.7/; 0,/drop_feature_rate_2: 0.4/s//drop_feature_rate_2: 0.7/' $W/GRACE07/config.yaml
export HOME=/tmp/diag-home; mkdir -p $HOME/datasets/Cora/Cora/raw $HOME/datasets/Citation/Cora/raw
cp $D/mirror/planetoid/ind.cora.* $HOME/datasets/Cora/Cora/raw/; cp $D/mirror/planetoid/ind.cora.* $HOME/datasets/Citation/Cora/raw/
python3 -c "
from torch_geometric.datasets import Planetoid
import torch_geometric.transforms as T
for r in ['$HOME/datasets/Cora','$HOME/datasets/Citation']: Planetoid(r,'Cora',transform=T.NormalizeFeatures())" > /dev/null 2>&1
A="--learning_rate 0.0005 --num_hidden 128 --num_proj_hidden 128 --activation relu --drop_edge_rate_1 0.2 --drop_edge_rate_2 0.4 --drop_feature_rate_1 0.3 --drop_feature_rate_2 0.4 --tau 0.4 --num_epochs 200 --weight_decay 0.00001"
one() { v=$1 s=$2
  case $v in
    uniform) (cd $W/GCA && python3 train.py --device cuda --dataset Cora --param default --seed $s --verbose final $A --drop_scheme uniform);;
    degfix) (cd $W/GCAfix && python3 train.py --device cuda --dataset Cora --param default --seed $s --verbose final $A --drop_scheme degree);;
    grace07) (cd $W/GRACE07 && python3 train.py --dataset Cora --seed $s | grep F1Mi);;
  esac > $W/logs/$v-$s.out 2>&1
  echo "$v $s $(tail -1 $W/logs/$v-$s.out)"
}
export -f one; export W A HOME
for v in uniform degfix grace07; do for s in 0 1 2 3 4 5 6 7; do echo "$v $s"; done; done | xargs -P 12 -L 1 bash -c 'one $0 $1' | sort
