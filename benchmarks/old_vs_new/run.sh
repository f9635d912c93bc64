#!/usr/bin/env bash
# Issue #18's speed check: the binary of the issue's base (OLD) against the final one (NEW),
# alternated ROUNDS rounds (the order swapping each round), every workload on the CPU with
# THREADS threads: training epochs of every method and one evaluation of each evaluator.
# Usage: run.sh OLD_BIN NEW_BIN [ROUNDS] [THREADS]   (writes speed.csv and cpu_time.tsv here;
# with TAG=x set, speed_x.csv and cpu_time_x.tsv)
set -euo pipefail
old=$1 new=$2 rounds=${3:-5} threads=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/speed${TAG:+_$TAG}.csv
times=$here/cpu_time${TAG:+_$TAG}.tsv
export MAGCL_DATA_MIRROR=${MAGCL_DATA_MIRROR:-../shared/datasets}
[ -f "$times" ] || printf 'round\tbinary\tthreads\tcase\twall_s\tuser_s\tsys_s\n' >"$times"
one() { # round, label, binary, case label, bench-speed arguments...
  local r=$1 label=$2 bin=$3 what=$4; shift 4
  /usr/bin/time -f "%e %U %S" -o /tmp/magcl-final-speed-time.txt \
    "$bin" bench-speed "$@" --epochs 10 --warmup 1 --threads "$threads" --device cpu --out "$out" >/dev/null
  read -r wall user sys </tmp/magcl-final-speed-time.txt
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
