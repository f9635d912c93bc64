#!/bin/bash
# Device call 4: official code with MA off at K = 0 and K = 1 (Cora, seeds 0-9), and magcl's
# base model at K = 0 and 1, workers round-robin over both GPUs (--device cuda).
set -u
source .devcarry/common.sh
R=/tmp/res4; mkdir -p $R
$M datasets fetch Cora 2>&1 | tail -1
( MAS="off0 off1" timeout 230 bash $D/run_official.sh $D $R/official_k.csv $R/official_logs 20 "Cora" "0 1 2 3 4 5 6 7 8 9" > $R/official.stdout 2>&1 ) &
( cd /tmp && timeout 230 $M bench $D/magcl_basek.toml --out $R/magcl_basek.csv --jobs 8 --threads 2 --device cuda > $R/bench.log 2>&1 ) &
wait
cp $R/official_k.csv $R/magcl_basek.csv $OUT/; tar czf $OUT/logs4.tgz -C $R .
tail -2 $R/bench.log; grep FAILED $R/official.stdout | head -3
python3 - <<'PY'
import csv, statistics as st
o=list(csv.DictReader(open('/tmp/res4/official_k.csv')))
for ma in ['off0','off1']:
  a=[100*float(r['accuracy']) for r in o if r['ma']==ma]
  if a: print('official', ma, len(a), round(st.mean(a),2), round(st.stdev(a),2) if len(a)>1 else '')
m=list(csv.DictReader(open('/tmp/res4/magcl_basek.csv')))
for k in ['0','1']:
  a=[float(r['accuracy']) for r in m if ('"base_k":%s' % k) in r['config']]
  if a: print('magcl base_k', k, len(a), round(st.mean(a),2), round(st.stdev(a),2) if len(a)>1 else '', sorted(set(r['device'] for r in m)))
PY
