#!/bin/bash
# Device call 1: positive control (official MA-GCL code ± MA, magcl base ± MA) on both GPUs,
# then CPU-vs-GPU epoch times for --device auto.
set -u
D=$PWD/.devcarry; R=/tmp/res; mkdir -p $R
TL=$(python3 -c 'import torch,os;print(os.path.join(os.path.dirname(torch.__file__),"lib"))' 2>/dev/null)
export LD_LIBRARY_PATH=$TL:${LD_LIBRARY_PATH:-}
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
M=$D/bin/magcl
{ date -u; nvidia-smi; nvidia-smi topo -m; python3 -c 'import torch, torch_geometric, numpy, sklearn; print("torch", torch.__version__, torch.version.cuda, "pyg", torch_geometric.__version__, "numpy", numpy.__version__, "sklearn", sklearn.__version__)'; nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread"; free -g; $M --version; } > $R/env.txt 2>&1
cat $R/env.txt | tail -12
$M datasets fetch MUTAG PROTEINS NCI1 IMDB-BINARY Cora CiteSeer 2>&1 | tail -6
T0=$(date +%s)
( timeout ${A_LIMIT:-330} bash $D/run_official.sh $D $R/official.csv $R/official_logs 12 "Cora CiteSeer" "${SEEDS:-0 1 2 3 4 5 6 7 8 9}" > $R/official.stdout 2>&1 ) &
P1=$!
cd /tmp
( timeout ${A_LIMIT:-330} $M bench $D/magcl_code.toml --out $R/magcl_pc_0.csv --jobs 4 --threads 2 --device cuda:0 --shard 0/2 > $R/bench0.log 2>&1 ) &
( timeout ${A_LIMIT:-330} $M bench $D/magcl_code.toml --out $R/magcl_pc_1.csv --jobs 4 --threads 2 --device cuda:1 --shard 1/2 > $R/bench1.log 2>&1 ) &
wait
echo "A took $(( $(date +%s) - T0 )) s"; tail -3 $R/bench0.log $R/bench1.log; grep FAILED $R/official.stdout | head; wc -l $R/official.csv
python3 - <<'PY'
import csv, statistics as st
rows=list(csv.DictReader(open('/tmp/res/official.csv')))
for ds in ['Cora','CiteSeer']:
  for ma in ['on','off']:
    a=[float(r['accuracy'])*100 for r in rows if r['dataset']==ds and r['ma']==ma]
    if a: print('official',ds,ma,len(a),round(st.mean(a),2),round(st.pstdev(a),2), 'sec', round(st.mean(float(r['seconds']) for r in rows if r['dataset']==ds and r['ma']==ma),1))
for f in ['/tmp/res/magcl_pc_0.csv','/tmp/res/magcl_pc_1.csv']:
  try: rows+= [dict(r, src='magcl') for r in csv.DictReader(open(f))]
  except Exception as e: print(e)
m=[r for r in rows if r.get('src')=='magcl']
for ds in ['Cora','CiteSeer']:
  for ma in ['none','ARS']:
    a=[float(r['accuracy']) for r in m if r['dataset']==ds and r['ma']==ma]
    if a: print('magcl',ds,ma,len(a),round(st.mean(a),2),round(st.pstdev(a),2))
PY
# --device auto: epoch times, CPU (1, 2, 8 threads) vs GPU, each case in its own process
if [ "${SKIP_SPEED:-0}" = 0 ]; then
for dev in cuda:0 cpu1 cpu2; do
  case $dev in cpu*) args="--device cpu --threads ${dev#cpu}";; *) args="--device $dev --threads 2";; esac
  timeout 60 $M bench-speed graphcl:MUTAG graphcl:PROTEINS graphcl:NCI1 graphcl:IMDB-BINARY simgrace:MUTAG simgrace:PROTEINS simgrace:NCI1 simgrace:IMDB-BINARY --epochs 5 --warmup 1 $args --out $R/speed_auto.csv 2>&1 | tail -1
  for bs in 512 2048; do
    timeout 40 $M bench-speed graphcl:NCI1 graphcl:PROTEINS simgrace:NCI1 --set batch_size=$bs --epochs 3 --warmup 1 $args --out $R/speed_auto_bs$bs.csv 2>&1 | tail -1
  done
done
fi
