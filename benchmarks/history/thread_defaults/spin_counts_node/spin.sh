#!/bin/bash
# usage: spin.sh MAGCL ROUNDS OUT_DIR   (SPIN_VALS="0 3000 ..." to choose the counts)
# The base model on Cora (bench-speed base:Cora, 10 epochs after 2 warm-up) at the
# defaults (every core) under several GOMP_SPINCOUNT values, alone and beside a
# busy-looping process pinned to the last core; counts alternate in an order that rotates
# from round to round. Data: $MAGCL_DATA_MIRROR.
B=$1; R=$2; OUT=$3; mkdir -p $OUT
LAST=$(( $(nproc) - 1 ))
VALS=(${SPIN_VALS:-0 1000 3000 10000 30000 300000})
for r in $(seq $R); do
  for i in $(seq 0 $(( ${#VALS[@]} - 1 ))); do
    v=${VALS[$(( (i + r) % ${#VALS[@]} ))]}
    GOMP_SPINCOUNT=$v $B bench-speed base:Cora --epochs 10 --warmup 2 --out $OUT/quiet_$v.csv >/dev/null
    taskset -c $LAST python3 -c 'while True: pass' & HOG=$!
    GOMP_SPINCOUNT=$v $B bench-speed base:Cora --epochs 10 --warmup 2 --out $OUT/busy_$v.csv >/dev/null
    kill $HOG; wait $HOG 2>/dev/null
  done
done
