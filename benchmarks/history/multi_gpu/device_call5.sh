#!/bin/bash
# Device call 5: --device auto and bench placement on a GPU machine (functional check).
set -u
source .devcarry/common.sh
cd /tmp; $M datasets fetch MUTAG Cora NCI1 2>&1 | tail -1
for c in "--method graphcl --dataset MUTAG --epochs 2" "--method graphcl --dataset NCI1 --epochs 1 --batch-size 256" "--method base --dataset Cora --epochs 5"; do
  $M train $c --device auto --json --quiet 2>/dev/null | tail -1 | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print('$c ->', d['device'], 'acc %.2f' % d['accuracy'])"
done
cat > /tmp/mix.toml <<'T'
seeds = 4
ma = ["none"]
[overrides]
epochs = 2
[[sweep]]
datasets = ["MUTAG"]
methods = ["graphcl"]
[[sweep]]
datasets = ["Cora"]
methods = ["base"]
T
for dev in auto cuda; do
  $M bench /tmp/mix.toml --out /tmp/mix_$dev.csv --jobs 4 --threads 2 --device $dev 2>&1 | grep -E "workers on|finished"
  python3 -c "
import csv,collections; print('$dev', collections.Counter((r['dataset'], r['device']) for r in csv.DictReader(open('/tmp/mix_$dev.csv'))))"
done
cp /tmp/mix_auto.csv /tmp/mix_cuda.csv $OUT/
