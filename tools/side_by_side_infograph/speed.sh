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
# shellcheck source=runs.sh
. "$(cd "$(dirname "$0")" && pwd)/runs.sh"
for DS in $SETS; do
  for R in $(seq 1 "$ROUNDS"); do
    # the round is the "seed" field of the file name; every run trains seed $SEED
    official_run "$DS" "$SEED" "$OUT/official-$DS-$R"
    magcl_run "$DS" "$SEED" "$OUT/magcl-$DS-$R"
    echo "$DS round $R done"
  done
done
