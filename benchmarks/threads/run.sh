#!/bin/bash
# Thread defaults side by side (issue 31): each workload's seconds per epoch and one
# evaluation at the binary's defaults, at one thread, at every core with libgomp's
# spinning (GOMP_SPINCOUNT=300000; `spin`, two threads on the 2-core machine), with the defaults of a second binary (the one before),
# and at the defaults beside a busy-looping process pinned to the last core. Variants
# alternate within each round, in an order that rotates from round to round, so slow
# drifts of the machine hit all alike.
#
#   bash benchmarks/threads/run.sh NEW_MAGCL OLD_MAGCL ROUNDS OUT_DIR
#   python3 benchmarks/threads/summarize.py OUT_DIR
# Data: $MAGCL_DATA_MIRROR (MUTAG, PROTEINS, NCI1, Cora). NODE_ONLY=1 times only the
# node-level workloads (the base model on Cora, with its evaluation, and with MA).
set -eu
NEW=$1 OLD=$2 ROUNDS=${3:-3} OUT=${4:-runs/threads}
mkdir -p "$OUT"
EVAL="graphcl:MUTAG simgrace:MUTAG adgcl:MUTAG graphcl:PROTEINS simgrace:PROTEINS base:Cora"
NOEVAL="graphcl:NCI1 simgrace:NCI1 adgcl:PROTEINS"
LAST=$(( $(nproc) - 1 ))
if [ "${NODE_ONLY:-0}" = 1 ]; then EVAL="base:Cora"; NOEVAL=""; fi
speed() {  # label binary [args...]
  local label=$1 bin=$2; shift 2
  "$bin" bench-speed $EVAL --eval --epochs 10 --warmup 2 "$@" --out "$OUT/$label.csv" > /dev/null
  [ -z "$NOEVAL" ] || "$bin" bench-speed $NOEVAL --epochs 10 --warmup 2 "$@" --out "$OUT/$label.csv" > /dev/null
  "$bin" bench-speed base:Cora --ma --epochs 10 --warmup 2 "$@" --out "$OUT/$label.csv" > /dev/null
}
variant() {
  case $1 in
    default) speed default "$NEW" ;;
    one) speed one "$NEW" --threads 1 ;;
    spin) GOMP_SPINCOUNT=300000 speed spin "$NEW" --threads "$(nproc)" ;;
    before) speed before "$OLD" ;;
    busy)
      taskset -c "$LAST" python3 -c 'while True: pass' & HOG=$!
      speed busy "$NEW"
      kill $HOG; wait $HOG 2>/dev/null || true ;;
  esac
}
# the order rotates by one variant per round, so that none always runs first (after the
# previous round's busy-looping process) or last
VARIANTS=(default one spin before busy)
for r in $(seq "$ROUNDS"); do
  echo "round $r"
  for i in $(seq 0 4); do variant "${VARIANTS[$(( (i + r - 1) % 5 ))]}"; done
done
