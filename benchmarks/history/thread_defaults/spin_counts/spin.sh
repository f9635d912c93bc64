#!/bin/bash
# 2-thread spin counts, quiet and beside a hog; graph-level PROTEINS/NCI1-size + Cora
set -eu
B=$1 ROUNDS=$2 OUT=$3
mkdir -p $OUT
CASES="graphcl:PROTEINS simgrace:PROTEINS graphcl:MUTAG"
LAST=$(( $(nproc) - 1 ))
for r in $(seq $ROUNDS); do
  echo round $r
  for sc in 0 3000 30000 300000; do
    GOMP_SPINCOUNT=$sc $B bench-speed $CASES --epochs 10 --warmup 2 --threads 2 --out $OUT/q$sc.csv > /dev/null
    GOMP_SPINCOUNT=$sc $B bench-speed base:Cora --eval --epochs 10 --warmup 2 --threads 2 --out $OUT/q$sc.csv > /dev/null
    taskset -c $LAST python3 -c 'while True: pass' & HOG=$!
    GOMP_SPINCOUNT=$sc $B bench-speed $CASES --epochs 10 --warmup 2 --threads 2 --out $OUT/b$sc.csv > /dev/null
    GOMP_SPINCOUNT=$sc $B bench-speed base:Cora --eval --epochs 10 --warmup 2 --threads 2 --out $OUT/b$sc.csv > /dev/null
    kill $HOG; wait $HOG 2>/dev/null || true
  done
done
