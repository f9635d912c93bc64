#!/bin/bash
# Packs the checkpoints a device call returned (its ckpt.tgz.NN pieces) into
# .devcarry/prev_ckpt.tgz.NN for the next call, as many as the carry has room for:
#   bash tools/carry_checkpoints.sh /work/.device/N
# A call carries at most 64 MiB in all: the tracked files, the untracked files git does
# not ignore and .devcarry/. The room left beside them (less 512 KiB, for rows committed
# before the call) takes the longest run of whole checkpoints, in the archive's order
# (device_plan.sh packs them most epochs done first), whose archive fits; the others are
# named and their cells start again at the next call.
# Old prev_ckpt pieces are replaced.
# tools/device_plan.sh extracts the pieces at the start of a call, never over a newer
# checkpoint that the machine already holds (a warm machine's own, from the call before).
set -eu
SRC=${1:?directory holding the returned ckpt.tgz.NN pieces}
LIMIT=${CARRY_LIMIT:-$((64 * 1024 * 1024))}
compgen -G "$SRC/ckpt.tgz.*" > /dev/null || { echo "no ckpt.tgz.* in $SRC" >&2; exit 1; }
D=.devcarry
[ -d "$D" ] || { echo "run from the repository root (no $D/ here)" >&2; exit 1; }
rm -f "$D"/prev_ckpt.tgz.*
tracked=$( (git ls-files -z; git ls-files -z --others --exclude-standard) \
  | xargs -0 -r stat -c %s -- 2>/dev/null | awk '{s += $1} END {print s + 0}')
carried=$(du -sb "$D" | cut -f1)
room=$((LIMIT - tracked - carried - 512 * 1024))
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# device_plan.sh packs a call's checkpoints most epochs first: keep that order (the names
# tar lists as it extracts them) and take the longest head of it whose archive fits
cat "$SRC"/ckpt.tgz.* | tar xzvf - -C "$TMP" | grep '\.checkpoints/' > "$TMP/order"
n=$(wc -l < "$TMP/order"); kept=$n; total=0
while [ "$kept" -gt 0 ]; do
  head -n "$kept" "$TMP/order" | tr '\n' '\0' > "$TMP/list"
  (cd "$TMP" && tar czf pack.tgz --null -T list)
  total=$(stat -c %s "$TMP/pack.tgz")
  [ "$total" -le "$room" ] && break
  kept=$((kept - 1))
done
[ "$kept" -gt 0 ] && split -b 15M -d "$TMP/pack.tgz" "$D/prev_ckpt.tgz."
left=$(tail -n "+$((kept + 1))" "$TMP/order" | sed 's#.*/# #' | tr -d '\n')
echo "room beside the repository ($tracked bytes) and $D ($carried): $room bytes"
echo "carried: $kept of $n checkpoint(s), $total bytes, in $(compgen -G "$D/prev_ckpt.tgz.*" | wc -l) piece(s)"
[ -z "$left" ] || echo "left out (their cells start again):$left"
