#!/bin/bash
# SimGRACE NCI1 and AD-GCL PROTEINS epochs at the defaults, at --threads 1 and at
# GOMP_SPINCOUNT=300000 --threads 2, alternated in rotating order (the two rows of session9/
# above 1.10, with more rounds).
#   MAGCL_DATA_MIRROR=../shared/datasets bash run.sh BIN_DIR ROUNDS OUT_DIR
N=$1; R=$2; D=$3; mkdir -p $D
C="simgrace:NCI1 adgcl:PROTEINS --epochs 10 --warmup 2"
a() { $N/magcl bench-speed $C --out $D/default.csv >/dev/null 2>&1; }
b() { $N/magcl bench-speed $C --threads 1 --out $D/one.csv >/dev/null 2>&1; }
c() { GOMP_SPINCOUNT=300000 $N/magcl bench-speed $C --threads 2 --out $D/spin.csv >/dev/null 2>&1; }
for i in $(seq 1 $R); do
  case $((i % 3)) in 0) a; b; c;; 1) b; c; a;; 2) c; a; b;; esac
done
