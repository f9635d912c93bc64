#!/bin/bash
# MVGRL on a graph set, two builds alternated round by round on the same machine: a
# `train` of EPOCHS epochs (default 1) each, split into its set-up (`train_seconds` less
# the epochs: the personalised-PageRank diffusion of every graph dominates it) and its
# epochs, with the run's peak resident memory. From the repository root, with
# MAGCL_DATA_MIRROR set:
#   bash benchmarks/large_sets/mvgrl_old_vs_new.sh OLD/magcl-torch NEW/magcl-torch \
#     [ROUNDS] [THREADS] [DATASET] [EPOCHS] > rows.csv
# Rows: round,build,dataset,threads,train_seconds,epoch_seconds (all epochs),setup_seconds,
# peak_rss_gb,accuracy
set -eu
OLD=$1 NEW=$2 ROUNDS=${3:-2} THREADS=${4:-2} DATASET=${5:-DD} EPOCHS=${6:-1}
. tools/torch_libs.sh
echo round,build,dataset,threads,train_seconds,epoch_seconds,setup_seconds,peak_rss_gb,accuracy
for r in $(seq 1 "$ROUNDS"); do
  for b in old new; do
    bin=$OLD; [ $b = new ] && bin=$NEW
    "$bin" train --method mvgrl --dataset "$DATASET" --seed 0 --epochs "$EPOCHS" --device cpu \
      --threads "$THREADS" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = sum(d["epoch_seconds"])
t = d["train_seconds"]
print(",".join(str(x) for x in sys.argv[1:5] + [round(t, 2), round(e, 2), round(t - e, 2),
      round(d["peak_rss_bytes"] / 1e9, 2), d["accuracy"]]))
' "$r" "$b" "$DATASET" "$THREADS"
  done
done
