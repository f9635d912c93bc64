# One run of each program, as run.sh (accuracy) and speed.sh (seconds per epoch) make
# them: the same command for both, so the two kits time and score the same runs.
# Sourced; reads WORK, DATA, PY, MAGCL. Each skips a run whose PREFIX.json exists and
# writes PREFIX.json only once the run has finished (PREFIX.log keeps its output).

# official_run DS SEED PREFIX: the official README's command (--lr 0.001
# --num-gc-layers 3) in the patched copy WORK; the patch prints the record as `RESULT {…}`.
official_run() {
  local ds=$1 seed=$2 p=$3
  [ -f "$p.json" ] && return 0
  (cd "$WORK" && SEED=$seed DATA_ROOT=$DATA OUT_PREFIX=$p "$PY" main.py --DS "$ds" \
    --lr 0.001 --num-gc-layers 3 >"$p.log" 2>&1) &&
    grep '^RESULT ' "$p.log" | sed 's/^RESULT //' >"$p.json"
}

# magcl_run DS SEED PREFIX [magcl train arguments…]: magcl's infograph preset on one
# thread of the CPU.
magcl_run() {
  local ds=$1 seed=$2 p=$3
  shift 3
  [ -f "$p.json" ] && return 0
  "$MAGCL" train --method infograph --dataset "$ds" --seed "$seed" --threads 1 --device cpu \
    "$@" --json >"$p.json.tmp" 2>"$p.log" && mv "$p.json.tmp" "$p.json"
}
