#!/bin/bash
# BGRL side by side with its official code (nerdslab/bgrl), on the GPU machine. Resumable:
# each phase skips what an earlier call left in $KEEP (carried back and forth as
# .devcarry/bgrl_prev.tgz) and stops when SECONDS_LEFT runs out.
#   phase 1: accuracy: the official code and `magcl train --method bgrl`, Cora and
#            CiteSeer, seeds 0-9, the same settings (magcl's preset `code` for these sets:
#            WikiCS's configuration with 2000 epochs, 200 warm-up), P processes at once;
#            each run's final embeddings are scored by cross_eval.py, then deleted
#   phase 2: speed: each program alone on the GPU, Cora and CiteSeer, seed 0
# Carried in .devcarry/: new/magcl-torch (stripped), mirror/planetoid, official/bgrl
# (unpatched copy of nerdslab/bgrl 60f9f19, without its weights/), official/{GRACE,GCA}
# (for GCA's evaluator, patched by tools/side_by_side_node/patch_official.py).
#   bash tools/side_by_side_bgrl/device_run.sh SECONDS_LEFT
# SMOKE=1 checks the script on a CPU machine: 3 epochs, seed 0, Cora only, nothing kept.
set -u
SMOKE=${SMOKE:-0} DEV=cuda SEEDS="0 1 2 3 4 5 6 7 8 9" SETS="Cora CiteSeer" EP=2000 WU=200
[ "$SMOKE" = 1 ] && { DEV=cpu SEEDS=0 SETS=Cora EP=3 WU=1; }
LIMIT=${1:-540}
END=$(( $(date +%s) + LIMIT )); left() { echo $(( END - $(date +%s) )); }
D=$PWD/.devcarry T=$PWD/tools/side_by_side_bgrl
KEEP=/tmp/bgrl-keep; mkdir -p $KEEP/logs $KEEP/emb
[ -f "$D/bgrl_prev.tgz" ] && tar xzf "$D/bgrl_prev.tgz" -C /
PY=${PYTHON:-python3}
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data PYTHONUNBUFFERED=1
M=$D/new/magcl-torch
W=/tmp/bgrl-official
if [ ! -d $W ]; then
  mkdir -p $W && cp -r $D/official/bgrl $D/official/GRACE $D/official/GCA $W/
  { $PY $T/patch_official.py $W/bgrl && $PY $PWD/tools/side_by_side_node/patch_official.py $W/GRACE $W/GCA; } > $KEEP/patches.log || exit 1
fi
DATA=/tmp/bgrl-data
for d in Cora CiteSeer; do
  l=$(echo $d | tr A-Z a-z); mkdir -p $DATA/$d/raw
  for f in $D/mirror/planetoid/ind.$l.*; do [ -f $DATA/$d/raw/${f##*/} ] || cp $f $DATA/$d/raw/; done
done
[ -f $KEEP/machine.txt ] || { date -u; nvidia-smi -L 2>/dev/null; lscpu | grep -E "Model name|^CPU\(s\)"; $PY -c 'import torch, torch_geometric, numpy, sklearn; print("torch", torch.__version__, "pyg", torch_geometric.__version__, "numpy", numpy.__version__, "sklearn", sklearn.__version__)'; $M --version; } > $KEEP/machine.txt 2>&1
# PyG processes the raw files once, before parallel runs; labels for the official embeddings
$PY - <<'PY'
import numpy as np
from torch_geometric.datasets import Planetoid
for d in ['Cora', 'CiteSeer']:
    np.save(f'/tmp/bgrl-keep/emb/pyg-{d}.labels.npy', Planetoid('/tmp/bgrl-data', d)[0].y.numpy())
PY
# the settings of magcl's preset `code` for Cora / CiteSeer, as the official code's flags
ARGS="--graph_encoder_layer 512 --graph_encoder_layer 256 --predictor_hidden_size 512 --drop_edge_p_1 0.2 --drop_feat_p_1 0.2 --drop_edge_p_2 0.3 --drop_feat_p_2 0.1 --lr 5e-4 --mm 0.99 --weight_decay 1e-5 --epochs $EP --lr_warmup_epochs $WU --eval_epochs $EP --num_eval_splits 1"
one() {  # program dataset seed tag
  local prog=$1 ds=$2 seed=$3 tag=$4
  local key=$tag-$prog-$ds-$seed log=$KEEP/logs/$tag-$prog-$ds-$seed
  [ -f $log.done ] && return 0
  local emb=$KEEP/emb/$prog-$ds-$seed.npy
  [ "$tag" = speed ] && emb=/tmp/bgrl-speed-$key.npy
  local t0=$(date +%s.%N) rc
  case $prog in
    official) (cd $W/bgrl && EMB_OUT=$emb $PY train_transductive.py --dataset $(echo $ds | tr A-Z a-z) --dataset_dir $DATA --model_seed $seed --data_seed $seed --logdir /tmp/bgrl-runs/$key $ARGS) > $log.out 2> $log.err; rc=$?;;
    magcl) $M train --method bgrl --dataset $ds --seed $seed --device $DEV --threads 2 --epochs $EP --set bgrl.warmup_epochs=$WU --save-embeddings $emb --json > $log.out 2> $log.err; rc=$?;;
  esac
  local t1=$(date +%s.%N)
  if [ $rc -ne 0 ]; then echo "FAILED $key rc=$rc: $(tail -n 3 $log.err)"; return 0; fi
  if [ "$tag" = acc ]; then
    local lab=$KEEP/emb/pyg-$ds.labels.npy; [ $prog = magcl ] && lab=${emb%.npy}.labels.npy
    printf '%s\tbgrl\t%s\t%s\t%s\t%s\n' $prog $ds $seed $emb $lab > $log.tsv
    $PY $T/cross_eval.py $W/bgrl $W/GCA $log.tsv $log.cross.csv 2> $log.cross.err \
      || { echo "FAILED cross-eval $key: $(tail -n 3 $log.cross.err)"; return 0; }
  fi
  rm -f $emb ${emb%.npy}.labels.npy
  echo "$(awk "BEGIN{print $t1 - $t0}")" > $log.done
}
export -f one; export KEEP W M T DEV EP WU ARGS DATA PY
# seed by seed, both programs, so a call cut short leaves paired runs
{ for s in $SEEDS; do for ds in $SETS; do for prog in official magcl; do
  echo "$prog $ds $s acc"; done; done; done; } | timeout "$(left)" xargs -P ${P:-10} -L 1 bash -c 'one $0 $1 $2 $3'
echo "phase 1: $(ls $KEEP/logs/acc-*.done 2>/dev/null | wc -l) of 40 runs done, $(left) s left"
if [ "$(left)" -gt 60 ] && [ "${SPEED:-1}" = 1 ]; then
  for ds in $SETS; do for prog in official magcl; do
    [ "$(left)" -gt 30 ] && timeout "$(left)" bash -c "one $prog $ds 0 speed"
  done; done
fi
echo "phase 2: $(ls $KEEP/logs/speed-*.done 2>/dev/null | wc -l) of 4 runs done, $(left) s left"
[ "$SMOKE" = 1 ] && { cat $KEEP/logs/*.cross.csv; ls $KEEP/logs; exit 0; }
# logs only: embeddings left by runs cut short are not needed (those runs start again)
tar czf $OUT/bgrl_prev.tgz $KEEP/logs $KEEP/machine.txt $KEEP/patches.log
ls -la $OUT
