#!/usr/bin/env bash
# Alpha seeding on one embedding file: the full svc-rbf protocol once per seed mode
# (cold = libsvm's path, warm, scaled), the modes alternated round by round, one CSV row
# per run (a measurement made with it:
# benchmarks-history:benchmarks/history/svm/README.md).
#
#   benchmarks/svm/seeding.sh SVM_SEEDING_BIN X.npy y.npy ROUNDS OUT.csv
#
# SVM_SEEDING_BIN is `target/release/deps/svm_seeding-HASH (built by `cargo bench -p magcl-eval --bench svm_seeding --no-run`)`; BIN.commit (a text file next
# to it) names the commit it was built from.
set -euo pipefail
bin=$1 x=$2 y=$3 rounds=$4 out=$5
[ -f "$out" ] || echo "round,seed,commit,cpu_s,wall_s,load1_before,accuracy,best_c,fold_correct" > "$out"
commit=$(cat "$bin.commit" 2>/dev/null || echo unknown)
for r in $(seq 1 "$rounds"); do
  for seed in cold warm scaled; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    "$bin" "$x" "$y" "$seed" | awk -v r="$r" -v s="$seed" -v c="$commit" -v l="$load" '
      /accuracy/ { acc = $3; cpu = $7; wall = $10 }
      /best C/ { sub(/^ *best C +/, ""); best = $0 }
      /correct  / { sub(/^ *correct +/, ""); corr = $0 }
      END { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r, s, c, cpu, wall, l, acc, best, corr }' >> "$out"
  done
done
