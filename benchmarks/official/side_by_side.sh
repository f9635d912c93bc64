#!/bin/bash
# GraphCL's and SimGRACE's training epoch, magcl beside the official code, on the same
# machine, alternated round by round (issue 31: GraphCL >= 25x, SimGRACE >= 6x).
#
#   bash benchmarks/official/side_by_side.sh OFFICIAL_DIR MAGCL ROUNDS OUT_DIR
#   python3 benchmarks/official/summarize.py OUT_DIR
#
# OFFICIAL_DIR holds the official unsupervised_TU code, kept outside this repository and
# patched only to run (README.md here lists the patches): GraphCL/unsupervised_TU
# (gsimclr.py), SimGRACE/unsupervised_TU (simgrace.py), each printing `epoch_seconds=S`
# after its epoch's loop over the data loader, and a Python in venv/ with torch and
# torch_geometric. Both sides run at their default thread counts, unless OFFICIAL_THREADS=N
# (the official scripts' patched knob: torch.set_num_threads(N)); magcl reads
# $MAGCL_DATA_MIRROR (MUTAG, PROTEINS).
set -eu
OFF=$1 MAGCL=$2 ROUNDS=${3:-3} OUT=${4:-runs/official}
EPOCHS=${EPOCHS:-6}
mkdir -p "$OUT"
CSV=$OUT/official.csv
[ -f "$CSV" ] || echo "round,method,dataset,epoch,seconds" > "$CSV"
official() {  # round method dataset
  local r=$1 m=$2 ds=$3 log
  log=$(mktemp)
  if [ -n "${OFFICIAL_THREADS:-}" ]; then export THREADS=$OFFICIAL_THREADS; fi
  if [ "$m" = graphcl ]; then
    (cd "$OFF/GraphCL/unsupervised_TU" && SKIP_EVAL=1 EPOCHS=$EPOCHS "$OFF/venv/bin/python" \
      gsimclr.py --DS "$ds" --lr 0.01 --local --num-gc-layers 3 --aug random2 --seed 0) > "$log" 2>&1
  else
    (cd "$OFF/SimGRACE/unsupervised_TU" && SKIP_EVAL=1 "$OFF/venv/bin/python" simgrace.py \
      --DS "$ds" --lr 0.01 --local --num-gc-layers 5 --eta 1.0 --seed 0 --device cpu \
      --epochs "$EPOCHS") > "$log" 2>&1
  fi
  grep -o 'epoch_seconds=[0-9.e+-]*' "$log" | cut -d= -f2 | awk -v r="$r" -v m="$m" -v d="$ds" \
    '{ printf "%s,%s,%s,%d,%s\n", r, m, d, NR, $1 }' >> "$CSV"
  rm -f "$log"
}
ours() {  # round
  "$MAGCL" bench-speed graphcl:MUTAG graphcl:PROTEINS simgrace:MUTAG simgrace:PROTEINS \
    --epochs 10 --warmup 2 --out "$OUT/magcl_round$1.csv" > /dev/null
}
for r in $(seq "$ROUNDS"); do
  echo "round $r"
  if [ $((r % 2)) -eq 1 ]; then ours "$r"; fi
  for m in graphcl simgrace; do for ds in MUTAG PROTEINS; do official "$r" $m $ds; done; done
  if [ $((r % 2)) -eq 0 ]; then ours "$r"; fi
done
