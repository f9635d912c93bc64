#!/bin/bash
# JOAOv2 side by side with its official code (Shen-Lab/GraphCL_Automated, unsupervised_TU),
# on the GPU machine's CPU cores, one thread per process, every run at once (P at a time).
#   accuracy: both programs, MUTAG and PROTEINS, seeds 0-9, the same settings (magcl's
#             joaov2 preset = the released joaov2.sh with gamma 0.1: --lr 0.001
#             --num-gc-layers 3 --aug minmax, 40 epochs, batch 128); every final embedding
#             is also scored by `magcl eval` (svc-rbf, the folds of the seed)
#   speed:    seconds per epoch of each run (official: its training loop, timed by the
#             patch; magcl: its run record), every run sharing the machine alike
# Carried in .devcarry/: bin/ (stripped magcl, magcl-torch), mirror/tu, official/joao (the
# unpatched unsupervised_TU folder of GraphCL_Automated 8f3c2ac) and, from the second call
# on, joao_prev.tgz. Leaves $OUT/joao.tgz.
#   bash tools/side_by_side_joaov2/device_run.sh SECONDS
set -u
LIMIT=${1:-540} P=${P:-40} SETS=${SETS:-"MUTAG PROTEINS"} SEEDS=${SEEDS:-"0 1 2 3 4 5 6 7 8 9"}
D=$PWD/.devcarry T=$PWD/tools/side_by_side_joaov2
W=/tmp/joao-out; mkdir -p $W
# resumable: the runs an earlier call finished (its joao.tgz, carried back as joao_prev.tgz)
[ -f $D/joao_prev.tgz ] && tar xzf $D/joao_prev.tgz -C /tmp
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data PYTHONUNBUFFERED=1
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 CUDA_VISIBLE_DEVICES=
M=$D/bin/magcl
{ date -u; lscpu | grep -E "Model name|^CPU\(s\)"; python3 -c 'import torch, torch_geometric, numpy, sklearn; print("torch", torch.__version__, "pyg", torch_geometric.__version__, "numpy", numpy.__version__, "sklearn", sklearn.__version__)'; $M --version; } > $W/machine.txt 2>&1
python3 $T/patch_official.py $D/official/joao /tmp/joao-run
for DS in $SETS; do
  mkdir -p /tmp/joao-data/$DS/$DS/raw
  cp $D/mirror/tu/$DS/${DS}_*.txt /tmp/joao-data/$DS/$DS/raw/
  # build the official dataset cache once, before the parallel runs race for it
  (cd /tmp/joao-run && python3 -c "
import sys; sys.argv=['x']; from aug import TUDataset_aug as T; T('/tmp/joao-data/$DS', name='$DS', aug='none')" >/dev/null 2>&1)
done
jobs_list() {
  for DS in $SETS; do for S in $SEEDS; do
    echo "official $DS $S"; echo "magcl $DS $S"
  done; done
}
one() {
  prog=$1 DS=$2 S=$3 P_=$W/$1-$2-$3
  [ -f $P_.json ] && return
  if [ $prog = official ]; then
    (cd /tmp/joao-run && DATA_ROOT=/tmp/joao-data OUT_PREFIX=$P_ python3 joaov2.py --DS $DS --lr 0.001 \
      --local --num-gc-layers 3 --aug minmax --gamma 0.1 --seed $S >$P_.log 2>&1) &&
      grep '^RESULT ' $P_.log | sed 's/^RESULT //' >$P_.json.tmp && mv $P_.json.tmp $P_.json
  else
    $M train --method joaov2 --dataset $DS --seed $S --threads 1 --device cpu \
      --save-embeddings $P_.emb.npy --json >$P_.json.tmp 2>$P_.log &&
      mv $P_.emb.labels.npy $P_.y.npy && mv $P_.json.tmp $P_.json
  fi
}
export -f one; export W M
jobs_list | timeout $((LIMIT - 60)) xargs -P $P -L 1 bash -c 'one $0 $1 $2'
for f in $W/*-*-*.emb.npy; do
  P_=${f%.emb.npy}; S=${P_##*-}
  [ -f $P_.json ] && [ ! -f $P_.magcl_eval.json ] &&
    $M eval --embeddings $f --labels $P_.y.npy --evaluator svc-rbf --seed $S --json >$P_.magcl_eval.json
done
ls $W | grep -c '\.json$'
tar czf $OUT/joao.tgz -C /tmp joao-out
