#!/bin/bash
# Runs one sweep config on a rented GPU machine, resumable across calls of at most 10
# minutes (a command there may run 10 minutes; the sweep may need several). Carried in
# .devcarry/: bin/magcl and bin/magcl-torch (stripped, built here), mirror/ (the offline
# data mirror) and, from the second call on, prev.tgz (the rows of the previous call:
# `bench --resume` skips every cell already in them, and continues a CPU cell the time
# limit cut off from its checkpoint, saved every 60 s in the sweep's folder: a cell may
# be longer than one call). Leaves results.tgz (the sweep's folder under results/: rows,
# manifest, checkpoints) in $OUT.
#   bash tools/device_bench.sh SECONDS CONFIG DEVICE [JOBS]
# CONFIG a file under configs/ (its rows go to results/<name>/<name>.csv, as `bench`
# does by default); DEVICE cpu or cuda; JOBS defaults to 4 per GPU for cuda and to
# every core but two for cpu. Every worker runs at one thread, so CPU rows are
# bit-reproducible on any machine at that thread count. EXTRA (environment) adds bench
# arguments, e.g. EXTRA="--only method=mvgrl,untrained-mvgrl". Two parts of one sweep can
# run at once, each into its own file in the sweep's folder (bench locks the file it
# writes, so a second bench on the same file stops at once), e.g. the CPU methods on the
# cores and MVGRL on the GPUs; `magcl report` reads both files:
#   EXTRA="--only method=infograph,joaov2 --out results/graph_methods/graph_methods.cpu.csv" \
#     bash tools/device_bench.sh 570 configs/graph_methods.toml cpu 18 &
#   EXTRA="--only method=mvgrl" bash tools/device_bench.sh 570 configs/graph_methods.toml cuda 12
#   wait; tar czf "$OUT/results.tgz" results/graph_methods   # both parts' rows
set -u
LIMIT=${1:?seconds} CONFIG=${2:?config} DEV=${3:?cpu or cuda}
D=$PWD/.devcarry
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
M=$D/bin/magcl
NAME=$(basename "$CONFIG" .toml)
for f in "$D/prev.tgz" "$D/prev_checkpoints.tgz"; do [ -f "$f" ] && tar xzf "$f"; done
CORES=$(nproc); GPUS=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "machine: $CORES cores, $GPUS GPUs; $(nvidia-smi -L 2>/dev/null | head -1)"
if [ "$DEV" = cuda ]; then JOBS=${4:-$((4 * GPUS))}; else JOBS=${4:-$((CORES - 2))}; fi
START=$(date +%s)
LOG=/tmp/$NAME.$DEV.log
# shellcheck disable=SC2086 # EXTRA is a list of arguments
timeout "$((LIMIT - 15))" "$M" bench "$CONFIG" --resume --jobs "$JOBS" --threads 1 --device "$DEV" \
  ${EXTRA:-} >"$LOG" 2>&1
echo "bench ($DEV) exit $? after $(( $(date +%s) - START )) s (124: stopped by the time limit; resume)"
grep -E "finished|failed|error|cells" "$LOG" | tail -5
[ -f "results/$NAME/$NAME.csv" ] && echo "$NAME: $(($(wc -l < "results/$NAME/$NAME.csv") - 1)) rows"
cp "$LOG" "$OUT/$NAME.$DEV.log"
# rows and manifest in one archive, the checkpoints of unfinished cells in another: a
# returned file has a size limit (16 MiB), and the rows must come back whatever the
# checkpoints weigh
tar czf "$OUT/results.tgz" --exclude="$NAME.checkpoints" "results/$NAME"
[ -d "results/$NAME/$NAME.checkpoints" ] && tar czf "$OUT/checkpoints.tgz" "results/$NAME/$NAME.checkpoints"
ls -la "$OUT"
