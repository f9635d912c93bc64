#!/usr/bin/env bash
# Old and new binary alternated, ROUNDS rounds (the order within a round swaps each
# round), every case on the CPU with 2 threads. Usage: run.sh OLD_BIN NEW_BIN [ROUNDS]
set -euo pipefail
old=$1 new=$2 rounds=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/speed.csv
times=$here/cpu_time.tsv
export MAGCL_DATA_MIRROR=${MAGCL_DATA_MIRROR:-../shared/datasets}
[ -f "$times" ] || printf 'round\tbinary\tcase\twall_s\tuser_s\tsys_s\n' >"$times"
one() { # round, label, binary, case name, bench-speed arguments...
  local r=$1 label=$2 bin=$3 what=$4; shift 4
  /usr/bin/time -f "%e %U %S" -o /tmp/magcl-model-once-time.txt \
    "$bin" bench-speed "$@" --epochs 10 --warmup 1 --threads 2 --device cpu --out "$out" >/dev/null
  read -r wall user sys </tmp/magcl-model-once-time.txt
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$label" "$what" "$wall" "$user" "$sys" >>"$times"
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for label in $order; do
    bin=$old; [ "$label" = new ] && bin=$new
    for case in graphcl:MUTAG graphcl:PROTEINS simgrace:MUTAG adgcl:MUTAG; do
      one "$r" "$label" "$bin" "$case" "$case"
    done
    one "$r" "$label" "$bin" base:Cora base:Cora --ma --preset code
  done
done
