#!/bin/bash
# MVGRL (graph level) side by side with its official code (kavehhassani/mvgrl 628ed2b,
# graph/), on the GPU machine: every run on its one GPU, P processes at a time.
#   accuracy: MUTAG and PROTEINS, seeds 0-9; magcl's mvgrl preset (= the released train()
#             defaults: 4 GCN layers of 512, 40 epochs, batch 64, lr 0.001, heads-only
#             training, lowest-loss epoch, the code's node features) beside the official
#             code ("code" pair), and both with one-hot node labels as node features
#             ("labels" pair: magcl --features graphcl, official MVGRL_FEATURES=labels);
#             every embedding is also scored by the other side's evaluator (magcl eval
#             linear-svc; official_eval.py = the released LinearSVC search)
#   speed:    seconds per epoch and per run of each (official: its training loop, timed by
#             the patch, after a CUDA synchronise; magcl: its run record)
# Carried in .devcarry/: bin/ (stripped magcl, magcl-torch), mirror/tu, official/mvgrl
# (graph/ and utils.py of 628ed2b, unpatched) and, from the second call on,
# mvgrl_prev.tgz. Leaves $OUT/mvgrl.tgz.
#   bash tools/side_by_side_mvgrl/device_run.sh SECONDS
set -u
LIMIT=${1:-540} P=${P:-12} SETS=${SETS:-"MUTAG PROTEINS"} SEEDS=${SEEDS:-"0 1 2 3 4 5 6 7 8 9"}
D=$PWD/.devcarry T=$PWD/tools/side_by_side_mvgrl
W=/tmp/mvgrl-out; mkdir -p $W
[ -f $D/mvgrl_prev.tgz ] && tar xzf $D/mvgrl_prev.tgz -C /tmp
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data PYTHONUNBUFFERED=1
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
M=$D/bin/magcl
{ date -u; lscpu | grep -E "Model name|^CPU\(s\)"; nvidia-smi --query-gpu=name --format=csv,noheader
  python3 -c 'import torch, numpy, sklearn, scipy, networkx; print("torch", torch.__version__, "numpy", numpy.__version__, "sklearn", sklearn.__version__, "scipy", scipy.__version__, "networkx", networkx.__version__)'
  $M --version; } > $W/machine.txt 2>&1
python3 $T/patch_official.py $D/official/mvgrl /tmp/mvgrl-run
for F in code labels; do for DS in $SETS; do
  mkdir -p /tmp/mvgrl-data-$F/$DS
  cp $D/mirror/tu/$DS/${DS}_*.txt /tmp/mvgrl-data-$F/$DS/
  # build the official cache once, before the parallel runs race for it
  (cd /tmp/mvgrl-run && MVGRL_FEATURES=$F DATA_ROOT=/tmp/mvgrl-data-$F python3 -c "
from graph.dataset import load; load('$DS')" >/dev/null 2>&1) &
done; done
wait
jobs_list() {
  for S in $SEEDS; do for DS in $SETS; do
    echo "magcl-code $DS $S"; echo "official-code $DS $S"
  done; done
  for S in $SEEDS; do for DS in $SETS; do
    echo "magcl-labels $DS $S"; echo "official-labels $DS $S"
  done; done
}
# each run's embeddings under the other side's evaluator too (a program's own evaluation
# is the first), then only the scores are kept
cross() {
  P_=$1 S=$2 B=${1##*/}
  case $B in official-*) [ -f $P_.magcl_eval.json ] ||
    $M eval --embeddings $P_.emb.npy --labels $P_.y.npy --evaluator linear-svc --seed $S --json >$P_.magcl_eval.json ;; esac
  case $B in magcl-*) [ -f $P_.official_eval.json ] ||
    ${PY:-python3} $T/official_eval.py $P_.emb.npy $P_.y.npy $S >$P_.official_eval.json ;; esac
  find $W -name "${P_##*/}.*eval.json" -size 0 -delete
  rm -f $P_.pkl $P_.emb.npy $P_.y.npy
}
one() {
  prog=$1 DS=$2 S=$3 P_=$W/$1-$2-$3
  [ -f $P_.json ] && return
  case $prog in
    official-*) F=${prog#official-}
      (cd /tmp/mvgrl-run && MVGRL_FEATURES=$F DATA_ROOT=/tmp/mvgrl-data-$F OUT_PREFIX=$P_ \
        python3 -m graph.train $DS $S >$P_.log 2>&1) &&
        grep '^RESULT ' $P_.log | sed 's/^RESULT //' >$P_.json.tmp && mv $P_.json.tmp $P_.json
      rm -f $P_.pkl ;;
    magcl-*) F=${prog#magcl-}; [ $F = code ] && F=mvgrl || F=graphcl
      $M train --method mvgrl --dataset $DS --seed $S --threads 1 --device ${DEV:-cuda} --features $F \
        --save-embeddings $P_.emb.npy --json >$P_.json.tmp 2>$P_.log &&
        mv $P_.emb.labels.npy $P_.y.npy && mv $P_.json.tmp $P_.json ;;
  esac
  [ -f $P_.json ] && cross $P_ $S
}
export -f one cross; export W M T DEV PY
jobs_list | timeout $((LIMIT - 30)) xargs -P $P -L 1 bash -c 'one $0 $1 $2'
ls $W | grep -c '[0-9]\.json$'
rm -f $W/*.pkl $W/*.npy
tar czf $OUT/mvgrl.tgz -C /tmp mvgrl-out
