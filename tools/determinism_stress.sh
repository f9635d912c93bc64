#!/usr/bin/env bash
# Runs one `magcl-torch train` command in many fresh processes and counts the distinct
# epoch-loss sequences they print: a run that repeats exactly gives one line. Fresh
# processes matter: some races happen once per process (MKL's first-call kernel choice,
# docs/reliability.md "Determinism"), so a loop inside one process cannot show them.
#
#   tools/determinism_stress.sh [RUNS] [WORKERS] -- TRAIN ARGS...
#   tools/determinism_stress.sh 2000 4 -- --method simgrace --dataset synthetic \
#       --epochs 1 --seed 1 --ma --threads 2 --device cpu --no-eval
#
# RUNS (default 1000) processes in all, WORKERS (default 4) at a time; MAGCL_TORCH names
# the binary (default target/release/magcl-torch). Prints "COUNT LOSSES" per distinct
# sequence, most common first; exits 1 when there is more than one.
set -euo pipefail
runs=1000 workers=4
# RUNS and WORKERS, each optional, then `--`
[[ ${1:-} =~ ^[0-9]+$ ]] && { runs=$1; shift; }
[[ ${1:-} =~ ^[0-9]+$ ]] && { workers=$1; shift; }
[[ ${1:-} == -- ]] && shift
(($# > 0)) || { sed -n '2,13p' "$0" >&2; exit 2; }
bin=${MAGCL_TORCH:-target/release/magcl-torch}
[[ -x $bin ]] || { echo "no executable $bin (make build, or set MAGCL_TORCH)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
worker() {
  local n=$1 w=$2 i
  for ((i = 0; i < n; i++)); do
    # the record's epoch_losses, as printed (17 significant digits: the bits)
    "$bin" train "${@:3}" --json 2>/dev/null |
      grep -o '"epoch_losses":\[[^]]*\]' || echo "FAILED"
  done >"$out/w$w"
}
per=$(((runs + workers - 1) / workers))
for ((w = 0; w < workers; w++)); do
  worker "$per" "$w" "$@" &
done
wait
sort "$out"/w* | uniq -c | sort -rn
(($(sort -u "$out"/w* | wc -l) == 1))
