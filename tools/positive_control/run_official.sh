#!/bin/bash
# Runs the official MA-GCL code (patched copy in $CARRY/official, see README.md) with MA on
# (as released) and off (--ma off: K = 2 in both views and both layers), one process per
# (data set, MA, seed), P at a time, spread over the visible GPUs. MAS (default "on off")
# may add offK: MA off with another fixed K (off0: one plain GCN hop per layer). Appends
# dataset,ma,seed,accuracy,seconds,device rows to OUT_CSV; logs go to LOGDIR.
# usage: run_official.sh CARRY OUT_CSV LOGDIR P "DATASETS" "SEEDS"
# DATASETS: the code's names (param.yaml blocks), e.g. Cora CiteSeer Amazon-Photo
# Amazon-Computers Coauthor-CS. $CARRY/official is the copy tools/positive_control/
# patch_official.py writes. Optional environment:
#   EPOCHS=N        every data set's num_epochs set to N (a copy of param.yaml in LOGDIR)
#   PARAM_OVERRIDE  another param.yaml (EPOCHS then applies to it)
#   DEV_OVERRIDE    one device for all runs (e.g. cpu); default cuda:(run index % GPUs)
#   OFFICIAL_HOME   the HOME the code runs with (default $CARRY/home)
#   NPZ_ZIPS        folder of amazon_electronics_{photo,computers}.zip, ms_academic_cs.zip
#                   (default $CARRY/mirror/npz, magcl's carried mirror)
set -u
DEV_OVERRIDE=${DEV_OVERRIDE:-} PARAM_OVERRIDE=${PARAM_OVERRIDE:-} EPOCHS=${EPOCHS:-}
CARRY=$1 OUT_CSV=$2 LOGDIR=$3 P=$4 DATASETS=$5 SEEDS=$6
export HOME=${OFFICIAL_HOME:-$CARRY/home}   # the code reads ~/datasets/NAME (Planetoid: ~/datasets/Citation/NAME)
NPZ_ZIPS=${NPZ_ZIPS:-$CARRY/mirror/npz}
export PYTHONPATH=$CARRY/official/compat${PYTHONPATH:+:$PYTHONPATH}    # torch_scatter/torch_sparse/ssgc/nni/ogb shims
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-1} PYTHONUNBUFFERED=1
mkdir -p "$LOGDIR"
NG=$(nvidia-smi -L 2>/dev/null | wc -l); [ "$NG" -gt 0 ] || NG=1
# The raw files where PyG's class (pGRACE/dataset.py's get_dataset) looks for them:
# Amazon(~/datasets/Amazon-Photo, 'photo') reads ~/datasets/Amazon-Photo/Photo/raw/
# amazon_electronics_photo.npz, Coauthor(~/datasets/Coauthor-CS, 'cs') reads
# ~/datasets/Coauthor-CS/CS/raw/ms_academic_cs.npz; Planetoid's are in $CARRY/home already.
for ds in $DATASETS; do
  case $ds in
    Amazon-Photo) raw=$HOME/datasets/$ds/Photo/raw f=amazon_electronics_photo;;
    Amazon-Computers) raw=$HOME/datasets/$ds/Computers/raw f=amazon_electronics_computers;;
    Coauthor-CS) raw=$HOME/datasets/$ds/CS/raw f=ms_academic_cs;;
    *) continue;;
  esac
  [ -s "$raw/$f.npz" ] || python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])" \
    "$NPZ_ZIPS/$f.zip" "$f.npz" "$raw" || { echo "no $NPZ_ZIPS/$f.zip for $ds" >&2; exit 1; }
done
# PyG processes the raw files on first use: once, through the code's own get_dataset,
# before the parallel runs.
( cd "$CARRY/official" && python3 -c "
import os.path as osp, sys
from pGRACE.dataset import get_dataset
for n in sys.argv[1:]: print(n, get_dataset(osp.join(osp.expanduser('~/datasets'), n), n)[0])" $DATASETS ) || exit 1
PARAM=${PARAM_OVERRIDE:-$CARRY/official/param.yaml}
if [ -n "$EPOCHS" ]; then  # the same blocks with num_epochs = EPOCHS
  python3 -c "
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
for b in p.values(): b['num_epochs'] = int(sys.argv[2])
yaml.safe_dump(p, open(sys.argv[3], 'w'))" "$PARAM" "$EPOCHS" "$LOGDIR/param_epochs$EPOCHS.yaml" || exit 1
  PARAM=$LOGDIR/param_epochs$EPOCHS.yaml
fi
[ -s "$OUT_CSV" ] || echo "dataset,ma,seed,accuracy,seconds,device" > "$OUT_CSV"
ma_args() {  # on | off (K = 2) | offK (fixed K)
  case $1 in on) echo "--ma on";; off) echo "--ma off";; off*) echo "--ma off --fixed_k ${1#off}";; esac
}
one() {  # one run: index dataset ma seed
  local i=$1 ds=$2 ma=$3 seed=$4 dev=${DEV_OVERRIDE:-cuda:$(( $1 % NG ))}
  local w=/tmp/official-work/$ds-$ma-$seed; mkdir -p "$w"; cd "$w"
  local t0=$(date +%s.%N)
  python3 "$CARRY/official/main.py" --config "$PARAM" --device "$dev" \
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
export -f one ma_args; export CARRY OUT_CSV LOGDIR NG DEV_OVERRIDE PARAM
i=0
for ds in $DATASETS; do for seed in $SEEDS; do for ma in ${MAS:-on off}; do
  echo "$i $ds $ma $seed"; i=$((i+1))
done; done; done | xargs -P "$P" -L 1 bash -c 'one $0 $1 $2 $3'
