#!/bin/bash
# Epoch time and peak memory of every method on the large sets (COLLAB, DD, REDDIT-BINARY;
# Amazon-Photo, Amazon-Computers, Coauthor-CS): node level on the GPU (one case at a
# time) and on 14 CPU threads, graph level on the CPU cores (one process per case, one
# thread each, all 18 at once). Run on the GPU machine from the repository root, with
# .devcarry/bin (magcl, magcl-torch) and .devcarry/mirror (npz/*.zip, dgcnn/{COLLAB,DD,
# REDDIT-BINARY}.zip of the offline mirror); rows and logs go to /tmp/w:
#   timeout 520 bash benchmarks/large_sets/run.sh; tar czf $OUT/speed.tgz -C /tmp w
set -u
D=$PWD/.devcarry; . tools/torch_libs.sh
O=/tmp/w; mkdir -p $O
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
M=$D/bin/magcl
nvidia-smi -L; nproc
for d in COLLAB DD REDDIT-BINARY Amazon-Photo Amazon-Computers Coauthor-CS; do $M datasets info $d > $O/info_$d.txt 2>&1; done
# node level on the GPU, one case at a time
( for m in base grace gca bgrl; do for d in Amazon-Photo Amazon-Computers Coauthor-CS; do
   timeout 120 $M bench-speed $m:$d --device cuda --epochs 5 --warmup 2 --out $O/speed_gpu.csv
  done; done
  for d in Amazon-Photo Amazon-Computers Coauthor-CS; do timeout 120 $M bench-speed base:$d --ma --device cuda --epochs 5 --warmup 2 --out $O/speed_gpu.csv; done ) > $O/gpu.log 2>&1 &
# graph level on the CPU cores, one process per case, one thread each
for m in graphcl simgrace adgcl infograph joaov2 mvgrl; do for d in COLLAB DD REDDIT-BINARY; do
  timeout 350 $M bench-speed $m:$d --device cpu --threads 1 --epochs 1 --warmup 0 --out $O/cpu_$m.csv > $O/cpu_${m}_$d.log 2>&1 &
done; done
wait
# node level on 14 CPU threads (what a CPU box gives), one epoch each
for d in Amazon-Photo Amazon-Computers Coauthor-CS; do timeout 50 $M bench-speed base:$d --device cpu --threads 14 --epochs 1 --warmup 1 --out $O/speed_cpu_node.csv >> $O/cpunode.log 2>&1; done
cat $O/*.csv | cut -d, -f1-12 | head -60
