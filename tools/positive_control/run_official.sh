#!/bin/bash
# Runs the official MA-GCL code (patched copy in $CARRY/official, see README.md) with MA on
# (as released) and off (--ma off: K = 2 in both views and both layers), one process per
# (data set, MA, seed), P at a time, spread over the visible GPUs. MAS (default "on off")
# may add offK: MA off with another fixed K (off0: one plain GCN hop per layer). Appends
# dataset,ma,seed,accuracy,seconds,device rows to OUT_CSV; logs go to LOGDIR.
# usage: run_official.sh CARRY OUT_CSV LOGDIR P "DATASETS" "SEEDS"
set -u
DEV_OVERRIDE=${DEV_OVERRIDE:-} PARAM_OVERRIDE=${PARAM_OVERRIDE:-}
CARRY=$1 OUT_CSV=$2 LOGDIR=$3 P=$4 DATASETS=$5 SEEDS=$6
export HOME=$CARRY/home                     # the code reads ~/datasets/Citation/NAME
export PYTHONPATH=$CARRY/official/compat${PYTHONPATH:+:$PYTHONPATH}    # torch_scatter/torch_sparse/ssgc/nni/ogb shims
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
mkdir -p "$LOGDIR"
NG=$(nvidia-smi -L 2>/dev/null | wc -l); [ "$NG" -gt 0 ] || NG=1
# Planetoid processes the raw files on first use: once, before the parallel runs.
python3 -c "
from torch_geometric.datasets import Planetoid
import torch_geometric.transforms as T
for n in '$DATASETS'.split(): print(n, Planetoid('$HOME/datasets/Citation', n, transform=T.NormalizeFeatures())[0])"
[ -s "$OUT_CSV" ] || echo "dataset,ma,seed,accuracy,seconds,device" > "$OUT_CSV"
ma_args() {  # on | off (K = 2) | offK (fixed K)
  case $1 in on) echo "--ma on";; off) echo "--ma off";; off*) echo "--ma off --fixed_k ${1#off}";; esac
}
one() {  # one run: index dataset ma seed
  local i=$1 ds=$2 ma=$3 seed=$4 dev=${DEV_OVERRIDE:-cuda:$(( $1 % NG ))}
  local w=/tmp/official-work/$ds-$ma-$seed; mkdir -p "$w"; cd "$w"
  local t0=$(date +%s.%N)
  python3 "$CARRY/official/main.py" --config "${PARAM_OVERRIDE:-$CARRY/official/param.yaml}" --device "$dev" \
    --dataset "$ds" --seed "$seed" $(ma_args "$ma") --verbose final \
    > "$LOGDIR/$ds-$ma-$seed.out" 2> "$LOGDIR/$ds-$ma-$seed.err"
  local rc=$? t1=$(date +%s.%N)
  local acc=$(tail -n 1 "$LOGDIR/$ds-$ma-$seed.out")
  if [ $rc -eq 0 ]; then
    echo "$ds,$ma,$seed,$acc,$(awk "BEGIN{print $t1 - $t0}"),$dev" >> "$OUT_CSV"
  else
    echo "FAILED $ds $ma $seed rc=$rc: $(tail -n 3 "$LOGDIR/$ds-$ma-$seed.err")" >&2
  fi
}
export -f one ma_args; export CARRY OUT_CSV LOGDIR NG DEV_OVERRIDE PARAM_OVERRIDE
i=0
for ds in $DATASETS; do for seed in $SEEDS; do for ma in ${MAS:-on off}; do
  echo "$i $ds $ma $seed"; i=$((i+1))
done; done; done | xargs -P "$P" -L 1 bash -c 'one $0 $1 $2 $3'
