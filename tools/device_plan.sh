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
# A line whose bench arguments start with `--bin DIR` runs .devcarry/DIR/magcl instead of
# .devcarry/bin/magcl (a table still being filled by an older commit's binaries beside a
# new one), e.g.
#   new   configs/node_large_methods.toml --bin bin-new --jobs 6
# BUDGET seconds after the start (default 540) every bench still running is killed with
# its workers; a cell killed mid-training continues from its checkpoint at the next call
# (`--resume`), a cell with no training (a raw-features probe) starts again. The machine
# returns at most 8 files of $OUT, 16 MiB each and 64 MiB together, and drops the rest
# without a word (a call once lost its rows.tgz that way, behind four log files and four
# checkpoint pieces), so this writes at most five:
#   $OUT/rows.tgz           every file under results/ written by this call, checkpoints aside
#   $OUT/logs.tgz           each lane's bench output (LANE.log) and plan.log, what ran when
#   $OUT/ckpt.tgz.NN        at most 3 pieces of 15 MiB: the checkpoints written by this call,
#                           those with the most epochs done first, as many whole files as
#                           fit (a call carries at most 64 MiB in all, so more could not
#                           travel back anyway); plan.log names those left behind
# Extract rows.tgz at the repository root here and commit it before the next call (files
# that git does not track or ignore are replaced by this machine's copy there), and carry
# the checkpoints to the next call as .devcarry/prev_ckpt.tgz.NN (joined and extracted
# first, with .devcarry/prev.tgz; a call carries at most 64 MiB in all, so leave out what
# does not fit: those cells start again; `tools/carry_checkpoints.sh DIR` packs them).
# Two lanes must not write the same CSV: a bench locks its output, and the second stops
# at once.
# Calls fired back to back need no extraction in between: the machine keeps what git
# ignores while it stays warm (it is released about 30 s after a call ends), so each call
# also leaves a copy of the result files it wrote in .devstate/ (ignored), and the next
# call on that machine puts back each stashed file of which the carried one is a prefix
# (rows and manifests are only appended to; a carried file that differs otherwise wins,
# and plan.log says so). Cells finished by an earlier call are then not run again, and
# the last call's rows.tgz holds them all.
# Carried in .devcarry/: bin/ (magcl, magcl-torch; stripped, built here) and mirror/.
# (A bench started with `timeout $(seconds left)` runs without limit once that number
# reaches 0, so this script ends benches by the clock instead.)
#
# Check a plan here before spending device time on it:
#   bash tools/device_plan.sh --check PLAN
# runs each line's bench with --dry-run (no --device: this machine has no GPU) through
# MAGCL (default target/release/magcl; the cells are the same whatever the binary's
# commit, the config decides them), with MAGCL_DATA_MIRROR as set here, and prints the
# cells each line would run; a line that fails (an --only value no cell has, a config
# that does not parse) or has nothing left to run is named and the check exits 1.
set -u
CHECK=0
if [ "${1:-}" = --check ]; then CHECK=1; shift; fi
PLAN=${1:?plan file}
D=$PWD/.devcarry
M=$D/bin/magcl
START=$(date +%s)
END=$((START + ${BUDGET:-540}))
[ "$CHECK" = 1 ] || OUT=${OUT:?the device machine sets OUT}
plan_lines() { grep -v '^[[:space:]]*\(#\|$\)' "$PLAN"; }  # the plan without blank lines and comments
# A line's bench arguments: LINE_BIN is .devcarry/DIR/magcl after a leading `--bin DIR`,
# else $M; LINE_ARGS the arguments without it.
split_bin() {
  LINE_BIN=$M LINE_ARGS=$1
  if [ "${1%% *}" = --bin ]; then
    LINE_ARGS=${1#--bin }
    LINE_BIN=$D/${LINE_ARGS%% *}/magcl
    LINE_ARGS=${LINE_ARGS#* }
  fi
}
# Two lanes must not write one CSV (the second bench stops at once on its lock): refuse
# such a plan before anything runs. A line writes to its --out, else to its config's.
clash=$(plan_lines | awk '{
  out = $2; for (i = 3; i < NF; i++) if ($i == "--out") out = $(i + 1)
  if ((out in lane) && lane[out] != $1) print out; lane[out] = $1 }')
if [ -n "$clash" ]; then
  echo "error: $PLAN: lanes of different names write $clash; put those lines in one lane" >&2
  exit 2
fi
if [ "$CHECK" = 1 ]; then
  bad=0
  while read -r l cfg args; do
    split_bin "$args"
    echo "$l: $cfg $LINE_ARGS"
    # shellcheck disable=SC2086 # LINE_ARGS is a list of bench arguments
    res=$("${MAGCL:-target/release/magcl}" bench "$cfg" --resume --dry-run $LINE_ARGS 2>&1)
    rc=$? last=$(tail -n 1 <<< "$res")
    if [ $rc -ne 0 ]; then
      echo "  FAILS: $last"; bad=1
    else
      echo "  $last"
      case $last in *" 0 to run"*) echo "  (nothing to run)"; bad=1;; esac
    fi
  done < <(plan_lines)
  exit $bad
fi
[ -f "$D"/prev.tgz ] && tar xzf "$D"/prev.tgz
# (never over a newer checkpoint: on a warm machine the call before wrote its own)
if compgen -G "$D/prev_ckpt.tgz.*" > /dev/null; then
  cat "$D"/prev_ckpt.tgz.* | tar xzf - --keep-newer-files --warning=no-ignore-newer
fi
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
MARK=$(mktemp)
touch -d "@$START" "$MARK"
LOGS=$(mktemp -d)  # lane logs and plan.log, returned as one file ($OUT/logs.tgz)
log() { echo "$(date -u +%T) +$(($(date +%s) - START))s $*" >> "$LOGS/plan.log"; }
nvidia-smi -L >> "$LOGS/plan.log" 2>&1
STASH=$PWD/.devstate  # result files of the earlier calls on this machine, if it stayed warm
[ -d "$STASH" ] && while IFS= read -r -d '' f; do
  rel=${f#"$STASH"/}
  if cmp -s "$rel" "$f"; then continue; fi
  # a carried file that is a prefix of the stashed one (cmp fails on a longer one)
  if [ ! -e "$rel" ] || cmp -s -n "$(stat -c %s "$rel")" "$rel" "$f"; then
    mkdir -p "$(dirname "$rel")"; cp "$f" "$rel"; log "put back from the earlier call: $rel"
  else
    log "the carried $rel is not a prefix of the earlier call's copy: kept"
  fi
done < <(find "$STASH" -type f -print0)
lane() {  # NAME: runs that lane's lines in order
  local name=$1 l cfg
  plan_lines | while read -r l cfg args; do
    [ "$l" = "$name" ] || continue
    [ "$(date +%s)" -lt "$((END - 20))" ] || break
    split_bin "$args"
    log "$name: $LINE_BIN bench $cfg $LINE_ARGS"
    # shellcheck disable=SC2086 # LINE_ARGS is a list of bench arguments
    "$LINE_BIN" bench "$cfg" --resume --threads 1 --device cuda $LINE_ARGS >> "$LOGS/$name.log" 2>&1 &
    echo $! > "$LOGS/$name.pid"  # killed by its number at the end (its workers die with it)
    wait $!
    log "$name: exit $?"
    rm -f "$LOGS/$name.pid"
  done
}
for name in $(plan_lines | awk '{print $1}' | sort -u); do
  lane "$name" &
done
while [ "$(date +%s)" -lt "$END" ] && [ -n "$(jobs -r)" ]; do sleep 2; done
# Each running bench is killed by its process number (a bench asks the kernel to kill its
# workers when it dies), then anything else of ours by name. Kills by name alone missed
# the bench of binaries older than the fix of its name (its restart through
# /proc/self/exe named it `exe`, and its command line is `magcl bench …`): it started new
# cells after each round of kills, and once (node_large_methods call 24) went on training
# them while the wait for it ran the call into the machine's limit with nothing packed.
# Packing now starts within 20 s of the kill whatever is still running.
for i in $(seq 20); do
  cat "$LOGS"/*.pid 2>/dev/null | xargs -r kill -9 2>/dev/null
  pkill -9 -x magcl-torch 2>/dev/null
  pkill -9 -f "$D/bin" 2>/dev/null
  sleep 1
  [ -z "$(jobs -r)" ] && break
  [ "$i" -lt 20 ] || log "still running 20 s after the kill: $(jobs -r | tr '\n' ' ')"
done
log "stopped; packing"
find results -type f -newer "$MARK" ! -path '*.checkpoints/*' -print0 \
  | tar czf "$OUT/rows.tgz" --null -T -
mkdir -p "$STASH" && tar xzf "$OUT/rows.tgz" -C "$STASH"
# checkpoints, most epochs done first, whole files up to 45 MiB
: > "$MARK.ckpt"; left=""; total=0
while read -r _ size f; do
  if [ $((total + size)) -le $((45 * 1024 * 1024)) ]; then
    printf '%s\0' "$f" >> "$MARK.ckpt"; total=$((total + size))
  else
    left="$left $f"
  fi
done < <(find results -type f -path '*.checkpoints/*' -newer "$MARK" -printf '%s %p\n' |
  while read -r size f; do  # a header without the count (not a checkpoint) sorts last
    e=$(head -c 400 "$f" | grep -a -o '"epochs_done":[0-9]*' | cut -d: -f2)
    echo "${e:-0} $size $f"
  done | sort -rn)
if [ -s "$MARK.ckpt" ]; then
  tar czf - --null -T "$MARK.ckpt" | split -b 15M -d - "$OUT/ckpt.tgz."
fi
[ -n "$left" ] && log "checkpoints left behind (over 45 MiB):$left"
n=$(find "$OUT" -maxdepth 1 -name 'ckpt.tgz.*' | wc -l)
log "packed: $(tar tzf "$OUT/rows.tgz" | wc -l) result files, checkpoints in $n piece(s)"
tar czf "$OUT/logs.tgz" -C "$LOGS" .
