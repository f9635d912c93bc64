#!/bin/bash
# Thread defaults side by side (issue 31): each workload's seconds per epoch and one
# evaluation at the binary's defaults, at one thread, at two threads with libgomp's
# spinning (GOMP_SPINCOUNT=300000), with the defaults of a second binary (the one before),
# and at the defaults beside a busy-looping process pinned to the last core. Variants
# alternate within each round, so slow drifts of the machine hit all alike.
#
#   bash benchmarks/threads/run.sh NEW_MAGCL OLD_MAGCL ROUNDS OUT_DIR
#   python3 benchmarks/threads/summarize.py OUT_DIR
# Data: $MAGCL_DATA_MIRROR (MUTAG, PROTEINS, NCI1, Cora).
set -eu
NEW=$1 OLD=$2 ROUNDS=${3:-3} OUT=${4:-runs/threads}
mkdir -p "$OUT"
EVAL="graphcl:MUTAG simgrace:MUTAG adgcl:MUTAG graphcl:PROTEINS simgrace:PROTEINS base:Cora"
NOEVAL="graphcl:NCI1"
LAST=$(( $(nproc) - 1 ))
speed() {  # label binary [args...]
  local label=$1 bin=$2; shift 2
  "$bin" bench-speed $EVAL --eval --epochs 10 --warmup 2 "$@" --out "$OUT/$label.csv" > /dev/null
  "$bin" bench-speed $NOEVAL --epochs 10 --warmup 2 "$@" --out "$OUT/$label.csv" > /dev/null
}
for r in $(seq "$ROUNDS"); do
  echo "round $r"
  speed default "$NEW"
  speed one "$NEW" --threads 1
  GOMP_SPINCOUNT=300000 speed spin2 "$NEW" --threads 2
  speed before "$OLD"
  taskset -c "$LAST" python3 -c 'while True: pass' & HOG=$!
  speed busy "$NEW"
  kill $HOG; wait $HOG 2>/dev/null || true
done
