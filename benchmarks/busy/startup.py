#!/usr/bin/env python3
"""Start-up cost of magcl's libgomp re-exec: the same binary with GOMP_SPINCOUNT already set
(no re-exec) and unset (one re-exec from .preinit_array), alternated, for `magcl-torch --version`
and `magcl-torch train --help`. Prints medians and ranges; with --out appends CSV rows. The
re-exec lives in `magcl-torch` (the `magcl` binary loads no libtorch and re-execs nothing),
so measure that binary:

    python3 benchmarks/busy/startup.py target/release/magcl-torch --reps 20 --cores 0,1
"""
import argparse
import csv
import os
import statistics
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("binary")
ap.add_argument("--reps", type=int, default=20)
ap.add_argument("--cores", help="pin to these cores, e.g. 0,1")
ap.add_argument("--out")
a = ap.parse_args()
cores = {int(c) for c in a.cores.split(",")} if a.cores else None
commands = {"--version": ["--version"], "train --help": ["train", "--help"]}
modes = {"re-exec": {}, "no re-exec": {"GOMP_SPINCOUNT": "0"}}
times = {}
for i in range(a.reps):
    for name, args in commands.items():
        for mode, extra in (modes.items() if i % 2 == 0 else reversed(modes.items())):
            env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
            env.update(extra)
            t = time.perf_counter()
            subprocess.run([a.binary, *args], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True,
                           preexec_fn=(lambda: os.sched_setaffinity(0, cores)) if cores else None)
            times.setdefault((name, mode), []).append(time.perf_counter() - t)
rows = []
for (name, mode), v in sorted(times.items()):
    rows.append({"command": name, "mode": mode, "n": len(v), "median_s": f"{statistics.median(v):.4f}",
                 "min_s": f"{min(v):.4f}", "max_s": f"{max(v):.4f}"})
    print(f"{name:<14} {mode:<11} median {statistics.median(v):.3f} s  ({min(v):.3f}–{max(v):.3f}, n={len(v)})")
for name in commands:
    d = statistics.median(times[(name, "re-exec")]) - statistics.median(times[(name, "no re-exec")])
    print(f"{name:<14} re-exec adds {d * 1000:.0f} ms (difference of medians)")
if a.out:
    new = not os.path.exists(a.out)
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        if new:
            w.writeheader()
        w.writerows(rows)
