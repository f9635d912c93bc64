#!/bin/bash
# Runs the floor and training-curve sweeps on a rented GPU machine, resumable across
# calls of at most 10 minutes. Carried in .devcarry/: bin/ (stripped magcl, magcl-torch
# built here), mirror/ (the five TU sets, Cora, CiteSeer), and prev.tgz (the rows of the
# previous call, if any). Graph-level cells run on the CPU cores (1 thread each, so rows
# are bit-reproducible on any machine at that thread count), node-level cells on the GPUs.
# Leaves results.tgz (rows, manifests, configs) in $OUT.
#   bash tools/device_sweeps.sh SECONDS
set -u
LIMIT=${1:-540}
D=$PWD/.devcarry
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
M=$D/bin/magcl
[ -f "$D/prev.tgz" ] && tar xzf "$D/prev.tgz"
CORES=$(nproc); GPUS=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "machine: $CORES cores, $GPUS GPUs; $(nvidia-smi -L 2>/dev/null | head -1)"
END=$(( $(date +%s) + LIMIT ))
left() { echo $(( END - $(date +%s) )); }
# node level on the GPUs, alongside the graph level
if [ "$GPUS" -gt 0 ]; then
  timeout "$(left)" "$M" bench configs/floor_node.toml --resume --jobs $((2*GPUS)) --threads 1 --device cuda >/tmp/node.log 2>&1 &
fi
for s in floor_graph training_curves; do
  [ "$(left)" -gt 20 ] || break
  timeout "$(left)" "$M" bench configs/$s.toml --resume --jobs $((CORES-4)) --threads 1 --device cpu 2>&1 | grep -E "finished|failed|error|cells" | tail -5
done
wait
tail -3 /tmp/node.log
for s in floor_graph floor_node training_curves; do
  [ -f results/$s/$s.csv ] && echo "$s: $(($(wc -l < results/$s/$s.csv)-1)) rows"
done
tar czf "$OUT/results.tgz" results/floor_graph results/floor_node results/training_curves 2>/dev/null
ls -la "$OUT"
