#!/bin/bash
# Does the Cora/CiteSeer preset's 2000 epochs (the shipped configs' 10000 cut five-fold)
# cost BGRL accuracy? magcl on the GPU machine, seeds 0-4, 2000 and 10000 epochs (warm-up a
# tenth), P runs at a time; the records come back as one file, $OUT/epochs_probe.tgz (the
# device returns only a few files per call). A 10000-epoch Cora run takes about 90 s alone;
# 20 at once did not finish in 215 s (first try, 2026-11-28), so at most P=8.
#   P=8 bash tools/side_by_side_bgrl/epochs_probe.sh SECONDS
set -u
LIMIT=${1:-540}
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$PWD/.devcarry/mirror MAGCL_DATA_DIR=/tmp/magcl-data
export M=$PWD/.devcarry/new/magcl-torch R=/tmp/epochs-probe
mkdir -p $R; nvidia-smi -L > $R/machine.txt; $M --version >> $R/machine.txt
one() {  # dataset seed epochs
  [ -s $R/$1-$2-$3.json ] && return 0
  $M train --method bgrl --dataset $1 --seed $2 --device cuda --threads 1 --epochs $3 \
    --set bgrl.warmup_epochs=$(( $3 / 10 )) --json --quiet > $R/$1-$2-$3.json 2> $R/$1-$2-$3.err
}
export -f one
for s in 0 1 2 3 4; do for ds in Cora CiteSeer; do for ep in 10000 2000; do
  echo "$ds $s $ep"; done; done; done | timeout "$LIMIT" xargs -P ${P:-8} -L 1 bash -c 'one $0 $1 $2'
tar czf $OUT/epochs_probe.tgz -C /tmp epochs-probe
