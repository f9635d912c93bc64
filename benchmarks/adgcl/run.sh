#!/bin/bash
# Old vs new AD-GCL binaries, alternated: per-epoch time (bench-speed) and whole runs
# (training with the per-epoch model selection and the final evaluation), CPU, 1 thread.
# usage: benchmarks/adgcl/run.sh OLD_BIN NEW_BIN OUT.csv [ROUNDS] [PROTEINS_EPOCHS]
set -euo pipefail
old=$1 new=$2 out=$3 rounds=${4:-3} pep=${5:-30}
: "${MAGCL_DATA_MIRROR:?set MAGCL_DATA_MIRROR to the dataset mirror}"
tmp=$(mktemp -d)
echo "round,binary,what,dataset,epochs,threads,wall_s,cpu_user_s,cpu_sys_s,s_per_epoch,train_s,eval_s,accuracy,selected_epoch" > "$out"
field() { python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read()); print(d.get(sys.argv[2]))" "$1" "$2"; }
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then order="old new"; else order="new old"; fi
  for which in $order; do
    bin=$old; [[ $which == new ]] && bin=$new
    # per epoch: 5 timed epochs after one warm-up, each dataset
    for ds in MUTAG PROTEINS; do
      /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" bench-speed "adgcl:$ds" --threads 1 --device cpu \
        --epochs 5 --warmup 1 --out "$tmp/speed.csv" > /dev/null 2>&1
      spe=$(python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1])))[-1]['sec_per_epoch_median'])" "$tmp/speed.csv")
      read -r w u s < "$tmp/t"
      echo "$r,$which,bench-speed,$ds,5,1,$w,$u,$s,$spe,,,," >> "$out"
    done
    # whole runs: MUTAG with the preset's 150 epochs, PROTEINS with $pep epochs
    for spec in MUTAG:150 PROTEINS:$pep; do
      ds=${spec%%:*} ep=${spec##*:}
      /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" train --method adgcl --dataset "$ds" --seed 0 \
        --epochs "$ep" --json --device cpu --threads 1 > "$tmp/j" 2>/dev/null
      python3 -c "import sys; t=open(sys.argv[1]).read(); open(sys.argv[1],'w').write(t[t.index('{'):t.rindex('}')+1])" "$tmp/j"
      read -r w u s < "$tmp/t"
      echo "$r,$which,train,$ds,$ep,1,$w,$u,$s,,$(field "$tmp/j" train_seconds),$(field "$tmp/j" eval_seconds),$(field "$tmp/j" accuracy),$(field "$tmp/j" selected_epoch)" >> "$out"
    done
  done
done
rm -rf "$tmp"
