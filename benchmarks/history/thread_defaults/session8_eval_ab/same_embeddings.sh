#!/bin/bash
# Do the defaults' and --threads 2's embeddings cost the same to evaluate? Trains GraphCL
# and SimGRACE on MUTAG for 12 epochs at the defaults and at `--threads 2` with libgomp's
# spinning (the `spin` column of benchmarks/threads/run.sh), saving the embeddings, then
# times `magcl eval` (svc-rbf, same settings for all four) on each, 6 alternated rounds.
#   MAGCL_DATA_MIRROR=../shared/datasets bash same_embeddings.sh target/release/magcl
set -eu
B=$1 W=$(mktemp -d)
for m in graphcl simgrace; do
  "$B" train --method $m --dataset MUTAG --epochs 12 --save-embeddings "$W/${m}_def.npy" > /dev/null
  GOMP_SPINCOUNT=300000 "$B" train --method $m --dataset MUTAG --epochs 12 --threads 2 \
    --save-embeddings "$W/${m}_t2.npy" > /dev/null
done
python3 - "$B" "$W" <<'PY'
import statistics, subprocess, sys, time
b, w = sys.argv[1:3]
res = {}
for _ in range(6):
    for m in ["graphcl", "simgrace"]:
        for v in ["def", "t2"]:
            t = time.perf_counter()
            subprocess.run([b, "eval", "--embeddings", f"{w}/{m}_{v}.npy",
                            "--labels", f"{w}/{m}_{v}.labels.npy", "--json"],
                           capture_output=True, check=True)
            res.setdefault((m, v), []).append(time.perf_counter() - t)
for (m, v), xs in res.items():
    print(m, v, f"median {statistics.median(xs):.4f} s", [round(x, 4) for x in xs])
PY
rm -rf "$W"
