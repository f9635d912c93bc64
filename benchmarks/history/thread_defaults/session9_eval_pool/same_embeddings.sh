#!/bin/bash
# Do the defaults' and `--threads 2`'s embeddings cost the same to evaluate? Trains GraphCL
# and SimGRACE on MUTAG (12 epochs, as bench-speed's 2 + 10) at the defaults and at
# `GOMP_SPINCOUNT=300000 --threads 2`, saves both embeddings, then evaluates each with the
# same `magcl eval`, alternated, and reports the evaluation's own seconds (its JSON
# `seconds`: the nested CV alone, without the process start).
#
#   MAGCL_DATA_MIRROR=../shared/datasets bash same_embeddings.sh MAGCL ROUNDS
set -eu
B=$1 R=${2:-30}
W=$(mktemp -d)
export MAGCL_DATA_DIR=${MAGCL_DATA_DIR:-$W/data}  # the datasets stay out of the project
for m in graphcl simgrace; do
  "$B" train --method $m --dataset MUTAG --epochs 12 --quiet --save-embeddings "$W/${m}_def.npy" > /dev/null
  GOMP_SPINCOUNT=300000 "$B" train --method $m --dataset MUTAG --epochs 12 --threads 2 --quiet \
    --save-embeddings "$W/${m}_t2.npy" > /dev/null
  "$B" train --method $m --dataset MUTAG --epochs 12 --threads 1 --quiet --save-embeddings "$W/${m}_t1.npy" > /dev/null
done
(cd "$W" && md5sum ./*.npy | grep -v labels)
python3 - "$B" "$W" "$R" <<'PY'
import json, statistics as st, subprocess, sys
b, w, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = ["graphcl_def", "graphcl_t2", "simgrace_def", "simgrace_t2"]
res = {k: [] for k in names}
for i in range(rounds):
    for k in (names if i % 2 == 0 else names[::-1]):
        out = subprocess.run([b, "eval", "--embeddings", f"{w}/{k}.npy", "--labels",
                              f"{w}/{k}.labels.npy", "--json"],
                             capture_output=True, check=True, text=True).stdout
        res[k].append(json.loads(out)["seconds"])
for k, v in res.items():
    q = st.quantiles(v, n=4)
    print(f"{k:13s} {len(v)} rounds: median {st.median(v):.4f} s, quartiles {q[0]:.4f}-{q[2]:.4f}, range {min(v):.4f}-{max(v):.4f}")
PY
rm -rf "$W"
