#!/usr/bin/env python3
"""Tables of a graph-level side-by-side (InfoGraph, JOAOv2) from the files its run
script leaves: per run `<program>-<dataset>-<seed>.json` (magcl's run record, or the
official code's RESULT line with its `svc` accuracy and `epoch_seconds`), and beside it
`.magcl_eval.json` (`magcl eval --json`) and, where run, `.official_eval.json`.

usage: side_by_side_summary.py OUT_DIR RESULTS_DIR
Writes RESULTS_DIR/per_seed.csv (one row per program, data set, seed, evaluator:
`own` = the program's own evaluation, `official-svc` = the official svc_classify,
`magcl-svc` = `magcl eval --evaluator svc-rbf`) and RESULTS_DIR/summary.md (mean ± sd,
min–max, Welch's t-test of magcl against the official code per evaluator; seconds per
epoch, median over epochs 2-20 of each run, then median and range over runs).
"""
import csv
import glob
import json
import os
import statistics as st
import sys

from scipy import stats


def main():
    out, res = sys.argv[1], sys.argv[2]
    rows, speed = [], {}
    for f in sorted(glob.glob(f"{out}/*-*-*.json")):
        name = os.path.basename(f)[: -len(".json")]
        if name.count(".") or name.count("-") < 2:
            continue  # *.magcl_eval.json, *.official_eval.json
        prog, rest = name.split("-", 1)
        ds, seed = rest.rsplit("-", 1)
        rec = json.load(open(f))
        own = rec["accuracy"] if prog == "magcl" else rec["svc"]
        rows.append((prog, ds, int(seed), "own", own))
        if os.path.exists(f"{out}/{name}.official_eval.json"):
            rows.append((prog, ds, int(seed), "official-svc",
                         json.load(open(f"{out}/{name}.official_eval.json"))["svc"]))
        rows.append((prog, ds, int(seed), "magcl-svc",
                     json.load(open(f"{out}/{name}.magcl_eval.json"))["accuracy"]))
        speed.setdefault((prog, ds), []).append(st.median(rec["epoch_seconds"][1:]))
    rows.sort()
    with open(f"{res}/per_seed.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["program", "dataset", "seed", "evaluator", "accuracy"])
        for r in rows:
            w.writerow(r[:4] + (f"{r[4]:.4f}",))

    def values(prog, ds, ev):
        return [r[4] for r in rows if r[:2] == (prog, ds) and r[3] == ev]

    def fmt(v):
        return f"{st.mean(v):.2f} ± {st.stdev(v):.2f} ({min(v):.1f}–{max(v):.1f}, n={len(v)})"

    sets = [d for d in ["MUTAG", "PROTEINS", "NCI1"] if values("official", d, "own")]
    lines = ["| data set | evaluator | official | magcl | magcl − official | Welch p |",
             "|---|---|---|---|--:|--:|"]
    for ds in sets:
        for ev in ["own", "official-svc", "magcl-svc"]:
            o, m = values("official", ds, ev), values("magcl", ds, ev)
            if len(o) < 2 or len(m) < 2:
                continue
            p = stats.ttest_ind(m, o, equal_var=False).pvalue
            lines.append(f"| {ds} | {ev} | {fmt(o)} | {fmt(m)} | "
                         f"{st.mean(m) - st.mean(o):+.2f} | {p:.3f} |")
    lines += ["", "| data set | program | s/epoch (median of runs, min–max) | runs |", "|---|---|---|--:|"]
    for ds in sets:
        for prog in ["official", "magcl"]:
            v = speed.get((prog, ds), [])
            if v:
                lines.append(f"| {ds} | {prog} | {st.median(v):.4f} ({min(v):.4f}–{max(v):.4f}) | {len(v)} |")
    for ds in sets:
        o, m = speed.get(("official", ds)), speed.get(("magcl", ds))
        if o and m:
            lines.append(f"\n{ds}: magcl's epoch is {st.median(o) / st.median(m):.1f}× faster (medians).")
    open(f"{res}/summary.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
