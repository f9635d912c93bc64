#!/bin/bash
# The same question on a 2-core machine (CI's kind, and a laptop's): one case at a time,
# both threads, one timed epoch after one warm-up epoch; node cases with one evaluation
# (logistic regression + k-means). Rows go to cpu2_node.csv and cpu2_graph.csv beside this
# script; MAGCL_DATA_MIRROR must name a mirror holding the sets. From the repository root:
#   MAGCL_DATA_MIRROR=../shared/datasets bash benchmarks/large_sets/cpu2.sh
set -u
M=${MAGCL:-target/release/magcl} H=benchmarks/large_sets
for c in base:Amazon-Photo grace:Amazon-Photo gca:Amazon-Photo bgrl:Amazon-Photo \
         base:Amazon-Computers grace:Amazon-Computers gca:Amazon-Computers bgrl:Amazon-Computers \
         base:Coauthor-CS grace:Coauthor-CS gca:Coauthor-CS bgrl:Coauthor-CS; do
  p=$([ "${c%%:*}" = base ] && echo "--preset paper")
  # shellcheck disable=SC2086 # p is empty or two words
  timeout 900 $M bench-speed "$c" $p --epochs 1 --warmup 1 --eval --device cpu --threads 2 --out $H/cpu2_node.csv
done
for d in DD REDDIT-BINARY COLLAB; do for m in graphcl simgrace adgcl infograph joaov2 mvgrl; do
  timeout 900 $M bench-speed "$m:$d" --epochs 1 --warmup 1 --device cpu --threads 2 --out $H/cpu2_graph.csv
done; done
