#!/usr/bin/env python3
"""Tables of the BGRL side-by-side from the logs device_run.sh leaves.

usage: summarize.py LOGS_DIR OUT_DIR
Writes OUT_DIR/per_seed.csv (one row per program, data set, seed, evaluator) and
OUT_DIR/summary.md (mean ± sd, min–max, Welch's t-test of magcl against the official code
per evaluator; seconds per epoch and per run from the speed runs).
"""
import csv
import glob
import json
import os
import re
import statistics as st
import sys

from scipy import stats


def own_accuracy(prog, path):
    """The accuracy a program reported itself (percent)."""
    text = open(path).read()
    if prog == "magcl":
        return json.loads(text)["accuracy"]
    return 100 * float(re.findall(r"^EVAL \d+ ([0-9.]+)", text, re.M)[-1])


def epoch_seconds(prog, path):
    text = open(path).read()
    if prog == "magcl":
        return json.loads(text)["epoch_seconds"]
    return [float(v) for v in re.findall(r"^EPOCH_SECONDS ([0-9.e-]+)", text, re.M)]


def main():
    logs, out = sys.argv[1], sys.argv[2]
    rows = []
    for f in sorted(glob.glob(f"{logs}/acc-*.cross.csv")):
        key = os.path.basename(f)[len("acc-"):-len(".cross.csv")]
        prog, ds, seed = key.split("-")
        rows.append((prog, ds, int(seed), "own", own_accuracy(prog, f"{logs}/acc-{key}.out")))
        for r in csv.DictReader(open(f)):
            rows.append((prog, ds, int(seed), r["evaluator"], float(r["accuracy"])))
    rows.sort()
    with open(f"{out}/per_seed.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["program", "dataset", "seed", "evaluator", "accuracy"])
        for r in rows:
            w.writerow(r[:4] + (f"{r[4]:.4f}",))

    def values(prog, ds, ev):
        return [r[4] for r in rows if r[:2] == (prog, ds) and r[3] == ev]

    fmt = lambda v: f"{st.mean(v):.2f} ± {st.stdev(v):.2f} ({min(v):.1f}–{max(v):.1f}, n={len(v)})"
    lines = ["| data set | evaluator | official | magcl | magcl − official | Welch p |",
             "|---|---|---|---|--:|--:|"]
    for ds in ["Cora", "CiteSeer"]:
        for ev in ["own", "bgrl-eval", "gca-eval"]:
            o, m = values("official", ds, ev), values("magcl", ds, ev)
            if len(o) < 2 or len(m) < 2:
                continue
            p = stats.ttest_ind(m, o, equal_var=False).pvalue
            lines.append(f"| {ds} | {ev} | {fmt(o)} | {fmt(m)} | "
                         f"{st.mean(m) - st.mean(o):+.2f} | {p:.3f} |")
    lines += ["", "| data set | program | s/epoch (median, min–max) | whole run s |",
              "|---|---|---|--:|"]
    for ds in ["Cora", "CiteSeer"]:
        for prog in ["official", "magcl"]:
            path = f"{logs}/speed-{prog}-{ds}-0.out"
            if not os.path.exists(path):
                continue
            e = epoch_seconds(prog, path)[1:]  # the first epoch warms up
            run = float(open(f"{logs}/speed-{prog}-{ds}-0.done").read())
            lines.append(f"| {ds} | {prog} | {st.median(e):.4f} ({min(e):.4f}–{max(e):.4f}) "
                         f"| {run:.1f} |")
    open(f"{out}/summary.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
