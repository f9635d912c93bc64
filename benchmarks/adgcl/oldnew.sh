#!/bin/bash
# Old vs new magcl binaries, alternated (old first in odd rounds): per-epoch CPU time of
# AD-GCL training as official.sh measures magcl's ((CPU of an E-epoch --no-eval run) -
# (CPU of a 1-epoch run)) / (E - 1), at each thread count.
# usage: benchmarks/adgcl/oldnew.sh OLD_BIN NEW_BIN OUT.csv ROUNDS "DATASETS" "THREADS" [E]
set -euo pipefail
old=$1 new=$2 out=$3 rounds=$4 datasets=$5 threads=$6 e=${7:-6}
: "${MAGCL_DATA_MIRROR:?set MAGCL_DATA_MIRROR to the dataset mirror}"
tmp=$(mktemp -d)
[ -f "$out" ] || echo "round,binary,dataset,threads,epochs,wall_s,cpu_s,epoch_wall_med,last_loss" > "$out"
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then order="old new"; else order="new old"; fi
  for th in $threads; do for ds in $datasets; do for which in $order; do
    bin=$old; [[ $which == new ]] && bin=$new
    for ep in 1 "$e"; do
      /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" train --method adgcl --dataset "$ds" --seed 0 \
        --epochs "$ep" --no-eval --json --device cpu --threads "$th" > "$tmp/j" 2>/dev/null
      read -r w u s < "$tmp/t"
      x=$(python3 -c "import json,sys,statistics as st; t=open(sys.argv[1]).read(); d=json.loads(t[t.index('{'):t.rindex('}')+1]); v=d['epoch_seconds']; v=v[1:] if len(v)>1 else v; print(st.median(v), d['epoch_losses'][-1], sep=',')" "$tmp/j")
      echo "$r,$which,$ds,$th,$ep,$w,$(python3 -c "print($u+$s)"),$x" >> "$out"
    done
  done; done; done
done
rm -rf "$tmp"
