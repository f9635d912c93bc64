#!/bin/bash
# InfoGraph side by side with its official code (fanyun-sun/InfoGraph, unsupervised/), on
# the CPU of this machine, one thread per process. Resumable: a (program, dataset, seed)
# whose outputs exist is skipped.
#   accuracy: both programs, SETS × SEEDS, the same settings (magcl's infograph preset =
#             the official README's command: --lr 0.001 --num-gc-layers 3, hidden 32,
#             20 epochs, batch 128); every final embedding is scored by the official
#             svc_classify (its own random folds, seeded) and by `magcl eval` (svc-rbf,
#             the folds of the seed), so each program is judged by both evaluators
#   speed:    seconds per epoch of each run (official: timed around its epoch loop by the
#             patch; magcl: its run record), median over epochs 2-20
# Needs: OFFICIAL (a copy of the code's unsupervised/ folder), the Python of a torch venv
# with torch_geometric, scikit-learn and pandas importable (PY, PYTHONPATH), MAGCL (the
# release binary), MAGCL_DATA_MIRROR (the TU files).
#   OFFICIAL=/tmp/ig-official/unsupervised PY=.venv/bin/python PYTHONPATH=/tmp/pyg \
#     MAGCL=target/release/magcl OUT=/tmp/ig-out bash tools/side_by_side_infograph/run.sh
set -u
SETS=${SETS:-"MUTAG PROTEINS"} SEEDS=${SEEDS:-"0 1 2 3 4 5 6 7 8 9"}
T=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/ig-out} WORK=${WORK:-/tmp/ig-run} DATA=${DATA:-/tmp/ig-data}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
mkdir -p "$OUT"
# shellcheck source=runs.sh
. "$T/runs.sh"
python3 "$T/patch_official.py" "$OFFICIAL" "$WORK"
for DS in $SETS; do
  # TUDataset reads ROOT/DS/DS/raw/DS_*.txt: the same files magcl reads
  # (DD, COLLAB, REDDIT-BINARY: the mirror has the DGCNN copy only, written out as TU files)
  mkdir -p "$DATA/$DS/$DS/raw"
  if [ -d "$MAGCL_DATA_MIRROR/tu/$DS" ]; then
    cp -n "$MAGCL_DATA_MIRROR/tu/$DS/${DS}"_*.txt "$DATA/$DS/$DS/raw/"
  elif [ ! -f "$DATA/$DS/$DS/raw/${DS}_A.txt" ]; then
    python3 "$T/../dgcnn_to_tu.py" "$MAGCL_DATA_MIRROR/dgcnn/$DS.zip" "$DS" "$DATA/$DS/$DS/raw"
  fi
done
for DS in $SETS; do
  for S in $SEEDS; do
    official_run "$DS" "$S" "$OUT/official-$DS-$S"
    P=$OUT/magcl-$DS-$S
    magcl_run "$DS" "$S" "$P" --save-embeddings "$P.emb.npy"
    if [ -f "$P.emb.labels.npy" ]; then mv "$P.emb.labels.npy" "$P.y.npy"; fi
    echo "$DS seed $S done"
  done
done
# cross-evaluation: every embedding by both evaluators
for f in "$OUT"/*-*-*.emb.npy; do
  P=${f%.emb.npy}
  [ -f "$P.magcl_eval.json" ] && continue
  S=${P##*-}
  "$MAGCL" eval --embeddings "$f" --labels "$P.y.npy" --evaluator svc-rbf --seed "$S" --json \
    >"$P.magcl_eval.json"
done
"$PY" "$T/official_eval.py" "$WORK" "$OUT"
