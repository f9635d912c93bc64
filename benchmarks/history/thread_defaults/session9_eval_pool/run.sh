#!/bin/bash
# GraphCL and SimGRACE MUTAG's evaluation at the defaults of NEW and OLD and at
# GOMP_SPINCOUNT=300000 --threads 2 (NEW), alternated in rotating order (the harness's
# settings: 10 epochs after 2 warm-up epochs).
#   MAGCL_DATA_MIRROR=../shared/datasets bash run.sh NEW_DIR OLD_DIR ROUNDS OUT_DIR
N=$1; O=$2; R=$3; D=$4; mkdir -p $D
C="graphcl:MUTAG simgrace:MUTAG --eval --epochs 10 --warmup 2"
for i in $(seq 1 $R); do
  a() { $N/magcl bench-speed $C --out $D/new_def.csv >/dev/null 2>&1; }
  b() { $O/magcl bench-speed $C --out $D/old_def.csv >/dev/null 2>&1; }
  c() { GOMP_SPINCOUNT=300000 $N/magcl bench-speed $C --threads 2 --out $D/new_t2spin.csv >/dev/null 2>&1; }
  case $((i % 3)) in 0) a; b; c;; 1) b; c; a;; 2) c; a; b;; esac
done
