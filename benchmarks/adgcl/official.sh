#!/bin/bash
# The official AD-GCL code vs magcl, side by side on this machine, alternated (official
# first in odd rounds), same seed and hyper-parameters (both at their AD-GCL defaults).
# usage: benchmarks/adgcl/official.sh MAGCL_BIN OFFICIAL_DIR OUT.csv ROUNDS "DATASETS" "THREADS" WHAT
#   WHAT = epoch: short runs for the per-epoch figures (official: EPOCHS_SHORT epochs, its
#          own per-epoch timers; magcl: --no-eval runs of 1 and EPOCHS_SHORT epochs, the
#          per-epoch CPU time being their difference / (EPOCHS_SHORT - 1))
#   WHAT = run:   whole runs (150 epochs, evaluation every 5 epochs, model selection and the
#          final evaluation; the official code also evaluates once before training)
# OFFICIAL_DIR holds run_official.sh (the patches: benchmarks-history:benchmarks/history/adgcl/README.md). CPU time = user + sys
# of the process and its children (/usr/bin/time).
set -euo pipefail
bin=$1 off=$2 out=$3 rounds=$4 datasets=$5 threads=$6 what=$7
short=${EPOCHS_SHORT:-6} full=${EPOCHS_FULL:-150} seed=${SEED:-0}
: "${MAGCL_DATA_MIRROR:?set MAGCL_DATA_MIRROR to the dataset mirror}"
tmp=$(mktemp -d)
[ -f "$out" ] || echo "round,program,what,dataset,threads,epochs,seed,wall_s,cpu_s,epoch_wall_med,epoch_cpu_med,train_s,eval_s,accuracy,selected_epoch" > "$out"
js() { python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read()); v=d.get(sys.argv[2]); print('' if v is None else v)" "$1" "$2"; }
med() { python3 -c "import json,sys,statistics as s; d=json.loads(open(sys.argv[1]).read()); v=d.get(sys.argv[2]) or []; v=v[1:] if len(v)>1 else v; print(s.median(v) if v else '')" "$1" "$2"; }
official() { # ds th ep -> row
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$off/run_official.sh" "$1" "$seed" "$3" "$2" cpu > "$tmp/o" 2>/dev/null
  grep '^TIMING ' "$tmp/o" | tail -1 | cut -c8- > "$tmp/j"
  read -r w u s < "$tmp/t"
  local ev; ev=$(python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read()); print(sum(d['eval_wall'])+d['pre_eval_wall'])" "$tmp/j")
  local acc; acc=$(python3 -c "import json,sys,math; d=json.loads(open(sys.argv[1]).read()); t=d['test']; print('' if t is None or math.isnan(t) else 100*t)" "$tmp/j")
  echo "$r,official,$what,$1,$2,$3,$seed,$w,$(python3 -c "print($u+$s)"),$(med "$tmp/j" epoch_wall),$(med "$tmp/j" epoch_cpu),$(python3 -c "import json; print(sum(json.load(open('$tmp/j'))['epoch_wall']))"),$ev,$acc,$(js "$tmp/j" best_epoch)" >> "$out"
}
magcl() { # ds th ep extra -> row
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" train --method adgcl --dataset "$1" --seed "$seed" \
    --epochs "$3" --json --device cpu --threads "$2" $4 > "$tmp/j" 2>/dev/null
  python3 -c "import sys; t=open(sys.argv[1]).read(); open(sys.argv[1],'w').write(t[t.index('{'):t.rindex('}')+1])" "$tmp/j"
  read -r w u s < "$tmp/t"
  local acc=""; [ -z "$4" ] && acc=$(js "$tmp/j" accuracy)
  echo "$r,magcl,$what,$1,$2,$3,$seed,$w,$(python3 -c "print($u+$s)"),$(med "$tmp/j" epoch_seconds),,$(js "$tmp/j" train_seconds),$(js "$tmp/j" eval_seconds),$acc,$(js "$tmp/j" selected_epoch)" >> "$out"
}
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then order="official magcl"; else order="magcl official"; fi
  for th in $threads; do
    for ds in $datasets; do
      for p in $order; do
        if [[ $what == epoch ]]; then
          if [[ $p == official ]]; then official "$ds" "$th" "$short"
          else magcl "$ds" "$th" 1 --no-eval; magcl "$ds" "$th" "$short" --no-eval; fi
        else
          if [[ $p == official ]]; then official "$ds" "$th" "$full"; else magcl "$ds" "$th" "$full" ""; fi
        fi
      done
    done
  done
done
rm -rf "$tmp"
