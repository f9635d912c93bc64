#!/usr/bin/env bash
# The node-level epoch of an old and a new binary, alternated ROUNDS rounds (order swapped
# each round), at 2 threads and 1 thread, each run in its own process: base:Cora with MA
# (preset code), 10 epochs after 1 warm-up. Rows (bench-speed's, the binary named by git_commit) go to $OUT_DIR/cora_rounds.csv.
# Usage: cora_rounds.sh OLD_BIN NEW_BIN [ROUNDS]
set -euo pipefail
old=$1 new=$2 rounds=${3:-10}
dir=${OUT_DIR:-.}
mkdir -p "$dir"
export MAGCL_DATA_MIRROR=${MAGCL_DATA_MIRROR:-../shared/datasets}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for label in $order; do
    bin=$old; [ "$label" = new ] && bin=$new
    for t in 2 1; do
      "$bin" bench-speed base:Cora --ma --preset code --epochs 10 --warmup 1 --threads "$t" \
        --device cpu --out "$dir/cora_rounds.csv" >/dev/null
    done
  done
done
