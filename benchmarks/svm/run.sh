#!/usr/bin/env bash
# Alternate two magcl binaries on one svc-rbf evaluation, ROUNDS times each, and append
# one CSV row per run (a measurement made with it, with the commands:
# benchmarks-history:benchmarks/history/svm/README.md).
#
#   benchmarks/svm/run.sh OLD_BIN NEW_BIN X.npy y.npy ROUNDS OUT.csv
#
# BIN.commit (a text file next to each binary) names the commit it was built from;
# FIRST_ROUND=N numbers the rounds from N (to append more rounds to an existing CSV).
set -euo pipefail
old=$1 new=$2 x=$3 y=$4 rounds=$5 out=$6
[ -f "$out" ] || echo "round,binary,commit,wall_s,eval_s,user_s,sys_s,load1_before,accuracy,best_c,fold_correct" > "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
first=${FIRST_ROUND:-1}
for r in $(seq "$first" $((first + rounds - 1))); do
  for which in old new; do
    if [ "$which" = old ]; then bin=$old; else bin=$new; fi
    commit=$(cat "$bin.commit" 2>/dev/null || echo unknown)
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$bin" eval --embeddings "$x" --labels "$y" \
      --evaluator svc-rbf --seed 0 --json > "$tmp/out.json"
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    read -r user sys < "$tmp/time"
    python3 - "$tmp/out.json" "$r" "$which" "$commit" "$wall" "$user" "$sys" "$load" >> "$out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r, which, commit, wall, user, sys_, load = sys.argv[2:]
print(",".join([r, which, commit, f"{float(wall):.3f}", f"{j['seconds']:.3f}", user, sys_, load,
                f"{j['accuracy']:.4f}", " ".join(str(c) for c in j["best_c"]),
                " ".join(str(c) for c in j["fold_correct"])]))
PY
  done
done
