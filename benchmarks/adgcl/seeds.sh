#!/bin/bash
# Whole AD-GCL runs (epoch selection + final evaluation) of two binaries over seeds, for
# the accuracy distribution. usage: seeds.sh OLD_BIN NEW_BIN OUT.csv DATASET EPOCHS THREADS "SEEDS"
set -euo pipefail
old=$1 new=$2 out=$3 ds=$4 ep=$5 th=$6 seeds=$7
: "${MAGCL_DATA_MIRROR:?set MAGCL_DATA_MIRROR to the dataset mirror}"
tmp=$(mktemp -d)
[ -f "$out" ] || echo "binary,dataset,epochs,threads,seed,wall_s,cpu_s,accuracy,val_accuracy,selected_epoch" > "$out"
for s in $seeds; do for which in old new; do
  bin=$old; [[ $which == new ]] && bin=$new
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$bin" train --method adgcl --dataset "$ds" --seed "$s" \
    --epochs "$ep" --json --device cpu --threads "$th" > "$tmp/j" 2>/dev/null
  read -r w u sy < "$tmp/t"
  x=$(python3 -c "import json,sys; t=open(sys.argv[1]).read(); d=json.loads(t[t.index('{'):t.rindex('}')+1]); print(d['accuracy'], d['val_accuracy'], d['selected_epoch'], sep=',')" "$tmp/j")
  echo "$which,$ds,$ep,$th,$s,$w,$(python3 -c "print($u+$sy)"),$x" >> "$out"
done; done
rm -rf "$tmp"
