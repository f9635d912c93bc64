#!/bin/bash
# Issue 45's Amazon-Photo positive control and node_large cells in one device call (first
# run 2026-12-02, results/positive_control/README.md and results/node_large/MANIFEST.md):
#   BUDGET=545 SEEDS="3 4 5 6" bash tools/positive_control/photo_plan.sh
# BUDGET: the seconds the plan may take (a call may run 600). SEEDS: the official code's
# seeds. Rows of an earlier call in .devcarry/prev.tgz (that call's returned archive) are
# extracted first, so every bench resumes from them. What it leaves is packed by the
# caller: tar czf "$OUT/rows.tgz" --exclude='*.checkpoints' results/positive_control results/node_large
# Beside each other on the one GPU:
#   - the official MA-GCL code on Amazon-Photo, MA on and off, SEEDS (default 3-9; seeds
#     0-2 ran on 2026-12-01), P runs at a time (default 6; run_official.sh; rows appended
#     to results/positive_control/official_photo.csv). A run is about 480 s with 6 runs
#     beside 6 magcl cells; 8 runs beside 4 cells did not finish in 525 s: at most 3
#     seeds (6 runs) fit one call;
#   - magcl's cells, in this order, fixed before any of their numbers was seen: Amazon-Photo's
#     remaining node_large cells (its ablations' seeds 7-9), the CS and Computers ablations'
#     seeds 1-2, magcl's side of the positive control (configs/positive_control_photo.toml,
#     seeds 0-4, rows in results/positive_control/magcl_photo.csv), Table 1's seeds 5-9 on
#     CS and Computers, Coauthor-CS's raw features, the ablations' seeds 3-4, the positive
#     control's seeds 5-9. Each bench resumes from the rows already there; 4 cells at a time
#     while the official runs are going, 10 after.
# ADGCL_JOBS (default 0): that many of graph_large's learned AD-GCL COLLAB cells
# (configs/graph_large.toml, `--only method=adgcl`) on the GPU beside all this, from the
# start to the end of the budget; they checkpoint every 60 s, so the caller also packs
#   tar czf "$OUT/ckpt.tgz" results/graph_large/graph_large.checkpoints
# and the next call extracts it from .devcarry/prev_ckpt.tgz. NODE_BESIDE (default 4):
# magcl node cells at a time while the official runs are going (0: none until they end).
# Needs in .devcarry/: bin/ (magcl, magcl-torch), mirror/npz/ (mirror/dgcnn/COLLAB.zip
# for AD-GCL), official/ (the patched official code, patch_official.py) and home/.
set -u
D=$PWD/.devcarry
for f in "$D/prev.tgz" "$D/prev_ckpt.tgz"; do [ -f "$f" ] && tar xzf "$f"; done
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
M=$D/bin/magcl
START=${PLAN_START:-$(date +%s)} BUDGET=${BUDGET:-545}
left() { echo $(( START + BUDGET - $(date +%s) )); }
L=$PWD/results/positive_control/logs_photo; mkdir -p "$D/home" "$L"
nvidia-smi -L; $M --version
timeout "$(left)" bash tools/positive_control/run_official.sh "$D" \
  $PWD/results/positive_control/official_photo.csv "$L" "${P:-6}" \
  Amazon-Photo "${SEEDS:-3 4 5 6 7 8 9}" > "$L/official.stdout" 2>&1 &
OFFICIAL=$!
sleep 20   # the official code's dataset processing first, alone
if [ "${ADGCL_JOBS:-0}" -gt 0 ]; then
  timeout "$(left)" "$M" bench configs/graph_large.toml --resume --only method=adgcl \
    --jobs "$ADGCL_JOBS" --threads 1 --device cuda > "$L/adgcl.log" 2>&1 &
fi
bench() {  # CONFIG [bench arguments...]
  local jobs=10
  if kill -0 "$OFFICIAL" 2>/dev/null; then
    jobs=${NODE_BESIDE:-4}
    while [ "$jobs" -eq 0 ] && kill -0 "$OFFICIAL" 2>/dev/null; do sleep 5; done
    [ "$jobs" -gt 0 ] || jobs=10
  fi
  [ "$(left)" -gt 30 ] || return 0
  echo "$(date -u +%T) bench $* --jobs $jobs ($(left) s left)"
  timeout "$(left)" "$M" bench "$@" --resume --jobs "$jobs" --threads 1 --device cuda 2>&1 \
    | grep -E "cells|finished|failed|rror" | tail -3
}
NL=configs/node_large.toml PC=configs/positive_control_photo.toml
PCOUT="--out results/positive_control/magcl_photo.csv"
CSC="--only dataset=Coauthor-CS,Amazon-Computers"
bench $NL --only dataset=Amazon-Photo
bench $NL $CSC --only seed=1,2
# shellcheck disable=SC2086 # PCOUT is two arguments
bench $PC $PCOUT --only seed=0,1,2,3,4
bench $NL $CSC --only ma=none,ARS
bench $NL --only dataset=Coauthor-CS --only method=features
bench $NL $CSC --only seed=3,4
# shellcheck disable=SC2086
bench $PC $PCOUT
wait
echo "$(date -u +%T) plan done"
grep -c . results/positive_control/official_photo.csv
