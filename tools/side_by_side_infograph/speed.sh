#!/bin/bash
# Seconds per epoch of InfoGraph, official code and magcl alternated on one otherwise idle
# machine (a benchmark, apart from run.sh's accuracy runs, whose timings share the machine
# with whatever else ran). ROUNDS rounds of: one official run, one magcl run, same set,
# same seed, one thread each, one process at a time. Each run's record keeps its per-epoch
# seconds; side_by_side_summary.py reads this OUT like run.sh's (its s/epoch table is the
# benchmark; its accuracy table is ROUNDS repeats of one seed, not a comparison).
# Needs what run.sh needs, after run.sh has patched the code into WORK and written the data.
#   OFFICIAL=... PY=... PYTHONPATH=... MAGCL=... WORK=/tmp/ig-run DATA=/tmp/ig-data \
#     OUT=/tmp/ig-speed SETS=DD ROUNDS=3 bash tools/side_by_side_infograph/speed.sh
set -u
SETS=${SETS:-DD} ROUNDS=${ROUNDS:-3} SEED=${SEED:-0}
OUT=${OUT:-/tmp/ig-speed} WORK=${WORK:-/tmp/ig-run} DATA=${DATA:-/tmp/ig-data}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
mkdir -p "$OUT"
for DS in $SETS; do
  for R in $(seq 1 "$ROUNDS"); do
    # the round is the "seed" field of the file name; every run trains seed $SEED
    P=$OUT/official-$DS-$R
    [ -f "$P.json" ] || { (cd "$WORK" && SEED=$SEED DATA_ROOT=$DATA OUT_PREFIX=$P "$PY" main.py \
      --DS "$DS" --lr 0.001 --num-gc-layers 3 >"$P.log" 2>&1) &&
      grep '^RESULT ' "$P.log" | sed 's/^RESULT //' >"$P.json"; }
    P=$OUT/magcl-$DS-$R
    [ -f "$P.json" ] || { "$MAGCL" train --method infograph --dataset "$DS" --seed "$SEED" \
      --threads 1 --device cpu --json >"$P.json.tmp" 2>"$P.log" && mv "$P.json.tmp" "$P.json"; }
    echo "$DS round $R done"
  done
done
