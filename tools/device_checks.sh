#!/bin/bash
# Checks and timings on a rented GPU machine before a sweep (carried in .devcarry/ as for
# device_bench.sh). Writes $OUT/checks.tgz: env.txt, the GPU checkpoint check (a stopped
# and resumed run beside two uninterrupted ones, node and graph level) and bench-speed
# rows of every method on the larger sets (gpu_node.csv, gpu_graph.csv), and whole
# two-epoch MVGRL runs on the graph sets (mvgrl_SET.json: the diffusions, computed on the
# GPU for CUDA runs, are train_seconds minus the epochs).
#   bash tools/device_checks.sh [ckpt] [speed-node] [speed-graph] [mvgrl]
set -u
D=$PWD/.devcarry R=/tmp/checks
mkdir -p $R
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
M=$D/bin/magcl
{ date -u; nvidia-smi -L; nproc; lscpu | grep -E "Model name"; free -g | head -2
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'; } > $R/env.txt 2>&1
cat $R/env.txt
for phase in "$@"; do case $phase in
ckpt)  # GPU checkpoints: stop after N epochs, resume, compare with uninterrupted runs
  node="--method base --dataset Amazon-Photo --preset paper --epochs 40 --seed 0"
  graph="--method graphcl --dataset MUTAG --ma --epochs 20 --seed 0"
  for k in node graph; do
    a=${!k}; stop=$([ $k = node ] && echo 15 || echo 7)
    for i in 1 2; do timeout 120 $M train $a --device cuda --json > $R/ckpt_${k}_full$i.json 2>$R/ckpt_${k}_full$i.err; done
    timeout 120 $M train $a --device cuda --json --checkpoint /tmp/$k.ckpt --checkpoint-every-epochs 1 \
      --stop-after-epochs $stop > $R/ckpt_${k}_stop.json 2>$R/ckpt_${k}_stop.err; echo "$k stop rc=$? (75 expected)"
    timeout 120 $M train $a --device cuda --json --checkpoint /tmp/$k.ckpt --checkpoint-every-epochs 1 \
      > $R/ckpt_${k}_resumed.json 2>$R/ckpt_${k}_resumed.err; echo "$k resume rc=$?"
    for f in full1 full2 resumed; do python3 -c "import json,sys; r=json.load(open(sys.argv[1])); \
      print(sys.argv[2], 'accuracy', r['accuracy'], 'losses', r['epoch_losses'][-3:])" $R/ckpt_${k}_$f.json "$k $f" 2>&1 | tail -1; done
  done ;;
speed-node)  # one process per case, one after another: the GPU to itself
  for m in base grace gca bgrl; do for ds in Amazon-Photo Amazon-Computers Coauthor-CS; do
    p=$([ $m = base ] && echo "--preset paper"); for ma in "" --ma; do
    timeout 90 $M bench-speed $m:$ds $p $ma --epochs 3 --warmup 1 --device cuda --threads 1 --out $R/gpu_node.csv >/dev/null 2>>$R/speed.err
  done; done; done; tail -n +2 $R/gpu_node.csv | cut -d, -f1-7,11 ;;
speed-graph)
  for ds in DD REDDIT-BINARY COLLAB; do for m in graphcl simgrace adgcl infograph joaov2 mvgrl; do
    timeout 90 $M bench-speed $m:$ds --epochs 2 --warmup 1 --device cuda --threads 1 --out $R/gpu_graph.csv >/dev/null 2>>$R/speed.err
  done; done; tail -n +2 $R/gpu_graph.csv | cut -d, -f1-7,11 ;;
mvgrl)  # one run at a time, the machine's cores and GPU to itself
  for ds in DD COLLAB REDDIT-BINARY; do
    timeout 240 $M train --method mvgrl --dataset $ds --seed 0 --epochs 2 --device cuda \
      --json > $R/mvgrl_$ds.json 2> $R/mvgrl_$ds.err; echo "$ds rc=$?"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], 'train', \
      round(r['train_seconds'], 1), 'epochs', [round(e, 1) for e in r['epoch_seconds']], 'eval', \
      round(r['eval_seconds'], 1), 'rss GB', round(r['peak_rss_bytes'] / 1e9, 1), 'acc', r['accuracy'])" \
      $R/mvgrl_$ds.json $ds 2>&1 | tail -1
  done ;;
esac; done
tar czf "$OUT/checks.tgz" -C /tmp checks
