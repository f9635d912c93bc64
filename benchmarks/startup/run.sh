#!/usr/bin/env bash
# Start-up cost of the tensor-free commands: wall time, CPU time and peak RSS of
# `magcl eval` (MUTAG-size embeddings) and `magcl report` (results/graph_ma/graph_ma.csv), an old
# and a new binary alternated, ROUNDS rounds. Writes CSV on stdout.
#
#   benchmarks/startup/run.sh OLD_MAGCL NEW_MAGCL EMB.npy LABELS.npy [ROUNDS]
#
# Make the embeddings with
#   MAGCL_DATA_MIRROR=... MAGCL_DATA_DIR=... magcl train --method graphcl --dataset MUTAG \
#     --epochs 1 --save-embeddings EMB.npy          (labels: EMB.labels.npy)
set -euo pipefail
old=$1 new=$2 emb=$3 labels=$4 rounds=${5:-5}
report=$(dirname "$0")/../../results/graph_ma/graph_ma.csv
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "round,binary,command,wall_s,user_s,sys_s,max_rss_mb"
for r in $(seq 1 "$rounds"); do
  for which in old new; do
    bin=$old; [ "$which" = new ] && bin=$new
    for cmd in eval report; do
      if [ "$cmd" = eval ]; then
        args=(eval --embeddings "$emb" --labels "$labels" --json)
      else
        args=(report "$report")
      fi
      /usr/bin/time -f "%e %U %S %M" -o "$tmp" "$bin" "${args[@]}" >/dev/null 2>/dev/null
      read -r wall user sys rss <"$tmp"
      echo "$r,$which,$cmd,$wall,$user,$sys,$(awk "BEGIN{printf \"%.1f\", $rss/1024}")"
    done
  done
done
