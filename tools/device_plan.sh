#!/bin/bash
# Several sweeps side by side on the rented GPU machine within one call (at most 10
# minutes), stopped at a fixed second so that what finished always comes back:
#   BUDGET=540 bash tools/device_plan.sh PLAN
# PLAN: a file, one bench per line, `LANE CONFIG [bench arguments…]` (blank lines and
# `#` comments are skipped). The lines of one lane run one after the other, the lanes side
# by side; each line runs
#   magcl bench CONFIG --resume --threads 1 --device cuda [bench arguments…]
# e.g.
#   adgcl configs/graph_large.toml --only method=adgcl --jobs 5
#   node  configs/node_large.toml --only dataset=Coauthor-CS --only seed=3,4 --jobs 8
#   node  configs/positive_control_photo.toml --out results/positive_control/magcl_photo.csv --jobs 8
# BUDGET seconds after the start (default 540) every bench still running is killed with
# its workers; a cell killed mid-training continues from its checkpoint at the next call
# (`--resume`), a cell with no training (a raw-features probe) starts again. Then:
#   $OUT/rows.tgz           every file under results/ written by this call, checkpoints aside
#   $OUT/ckpt.N.tgz         the checkpoints written by this call, in archives of at most
#                           14 MiB each (a returned file may have 16)
#   $OUT/LANE.log           each lane's bench output; $OUT/plan.log what ran when
# Extract rows.tgz at the repository root here, commit, and carry the checkpoints to the
# next call as .devcarry/prev_ckpt.*.tgz (extracted first, with .devcarry/prev.tgz).
# Carried in .devcarry/: bin/ (magcl, magcl-torch; stripped, built here) and mirror/.
# (A bench started with `timeout $(seconds left)` runs without limit once that number
# reaches 0, so this script ends benches by the clock instead.)
set -u
PLAN=${1:?plan file}
D=$PWD/.devcarry
M=$D/bin/magcl
START=$(date +%s)
END=$((START + ${BUDGET:-540}))
OUT=${OUT:?the device machine sets OUT}
for f in "$D"/prev.tgz "$D"/prev_ckpt*.tgz; do [ -f "$f" ] && tar xzf "$f"; done
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
MARK=$(mktemp)
touch -d "@$START" "$MARK"
log() { echo "$(date -u +%T) +$(($(date +%s) - START))s $*" >> "$OUT/plan.log"; }
nvidia-smi -L >> "$OUT/plan.log" 2>&1
lane() {  # NAME: runs that lane's lines in order
  local name=$1 l cfg
  grep -v '^[[:space:]]*\(#\|$\)' "$PLAN" | while read -r l cfg args; do
    [ "$l" = "$name" ] || continue
    [ "$(date +%s)" -lt "$((END - 20))" ] || break
    log "$name: bench $cfg $args"
    # shellcheck disable=SC2086 # args is a list of bench arguments
    "$M" bench "$cfg" --resume --threads 1 --device cuda $args >> "$OUT/$name.log" 2>&1
    log "$name: exit $?"
  done
}
for name in $(grep -v '^[[:space:]]*\(#\|$\)' "$PLAN" | awk '{print $1}' | sort -u); do
  lane "$name" &
done
while [ "$(date +%s)" -lt "$END" ] && [ -n "$(jobs -r)" ]; do sleep 2; done
pkill -9 -f "$D/bin/magcl" 2>/dev/null
sleep 1
log "stopped; packing"
find results -type f -newer "$MARK" ! -path '*.checkpoints/*' -print0 \
  | tar czf "$OUT/rows.tgz" --null -T -
n=0 size=0 list=$(mktemp)
pack() {
  if [ -s "$list" ]; then tar czf "$OUT/ckpt.$n.tgz" -T "$list"; n=$((n + 1)); fi
  : > "$list"
  size=0
}
while IFS= read -r f; do
  s=$(stat -c %s "$f")
  [ $((size + s)) -gt $((14 << 20)) ] && pack
  echo "$f" >> "$list"
  size=$((size + s))
done < <(find results -type f -path '*.checkpoints/*' -newer "$MARK")
pack
log "packed: $(tar tzf "$OUT/rows.tgz" | wc -l) result files, $n checkpoint archive(s)"
