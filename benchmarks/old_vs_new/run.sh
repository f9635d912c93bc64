#!/usr/bin/env bash
# Speed of a code change: an old binary (OLD) against a new one (NEW), alternated ROUNDS
# rounds (the order swapping each round, so drifts of a shared machine hit both alike),
# every workload on the CPU with THREADS threads: training epochs of every method and one
# evaluation of each evaluator, each in its own process.
# Usage: run.sh OLD_BIN NEW_BIN [ROUNDS] [THREADS]   (writes speed.csv, the bench-speed
# rows, and cpu_time.tsv, CPU time per process, into $OUT_DIR, default the current folder;
# with TAG=x set, speed_x.csv and cpu_time_x.tsv). Tables: summarise.py.
# A measurement made with it: benchmarks-history:benchmarks/history/final_speed/README.md.
set -euo pipefail
old=$1 new=$2 rounds=${3:-5} threads=${4:-2}
dir=${OUT_DIR:-.}
mkdir -p "$dir"
out=$dir/speed${TAG:+_$TAG}.csv
times=$dir/cpu_time${TAG:+_$TAG}.tsv
export MAGCL_DATA_MIRROR=${MAGCL_DATA_MIRROR:-../shared/datasets}
[ -f "$times" ] || printf 'round\tbinary\tthreads\tcase\twall_s\tuser_s\tsys_s\n' >"$times"
one() { # round, label, binary, case label, bench-speed arguments...
  local r=$1 label=$2 bin=$3 what=$4; shift 4
  /usr/bin/time -f "%e %U %S" -o /tmp/magcl-old-vs-new-time.txt \
    "$bin" bench-speed "$@" --epochs 10 --warmup 1 --threads "$threads" --device cpu --out "$out" >/dev/null
  read -r wall user sys </tmp/magcl-old-vs-new-time.txt
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$label" "$threads" "$what" "$wall" "$user" "$sys" >>"$times"
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for label in $order; do
    bin=$old; [ "$label" = new ] && bin=$new
    one "$r" "$label" "$bin" graphcl:MUTAG+eval graphcl:MUTAG --eval
    one "$r" "$label" "$bin" graphcl:PROTEINS+eval graphcl:PROTEINS --eval
    one "$r" "$label" "$bin" simgrace:MUTAG simgrace:MUTAG
    one "$r" "$label" "$bin" simgrace:PROTEINS simgrace:PROTEINS
    one "$r" "$label" "$bin" adgcl:MUTAG+eval adgcl:MUTAG --eval
    one "$r" "$label" "$bin" base:Cora+eval base:Cora --ma --preset code --eval
  done
done
