#!/usr/bin/env python3
"""Tables of a graph-level side-by-side (InfoGraph, JOAOv2, MVGRL) from the files its run
script leaves: per run `<program>-<dataset>-<seed>.json` (magcl's run record, or the
official code's RESULT line with its accuracy (`svc` or `accuracy`) and `epoch_seconds`),
and beside it `.magcl_eval.json` (`magcl eval --json`) and, where run,
`.official_eval.json`. Programs are `magcl` and `official`, or pairs `magcl-<variant>`
and `official-<variant>` (one row of the table per pair); a program's own evaluation
stands in for the evaluator of its own side where that was not run separately.

usage: side_by_side_summary.py OUT_DIR RESULTS_DIR [SUFFIX]
Writes RESULTS_DIR/per_seed.csv (one row per program, data set, seed, evaluator:
`own` = the program's own evaluation, `official-SUFFIX` = the official evaluator,
`magcl-SUFFIX` = `magcl eval`; SUFFIX `svc` by default) and RESULTS_DIR/summary.md (mean
± sd, min–max, Welch's t-test of magcl against each official program per evaluator;
seconds per epoch, median over epochs 2-20 of each run, then median and range over runs;
seconds of training per run; a record without `epoch_seconds` counts for accuracy only).
Unreadable files (a run cut off mid-write) are skipped.
"""
import csv
import glob
import json
import os
import re
import statistics as st
import sys

from scipy import stats


SETS = ["MUTAG", "PROTEINS", "NCI1", "IMDB-BINARY", "IMDB-MULTI", "DD", "COLLAB", "REDDIT-BINARY"]
# <program>-<data set>-<seed>, the program possibly with a variant (official-code)
NAME = re.compile(rf"^(.+)-({'|'.join(SETS)})-(\d+)$")


def load(path):
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def accuracy(rec):
    return rec["svc"] if "svc" in rec else rec["accuracy"]


def main():
    out, res = sys.argv[1], sys.argv[2]
    suffix = sys.argv[3] if len(sys.argv) > 3 else "svc"
    rows, speed, whole = [], {}, {}
    for f in sorted(glob.glob(f"{out}/*-*-*.json")):
        name = os.path.basename(f)[: -len(".json")]
        found = NAME.match(name)
        if found is None:
            continue  # *.magcl_eval.json, *.official_eval.json
        prog, ds, seed = found.groups()
        rec = load(f)
        if rec is None:
            continue
        rows.append((prog, ds, int(seed), "own", accuracy(rec)))
        for side in ["official", "magcl"]:
            ev = load(f"{out}/{name}.{side}_eval.json")
            if ev is None and prog.startswith(side):
                ev = rec
            if ev is not None:
                rows.append((prog, ds, int(seed), f"{side}-{suffix}", accuracy(ev)))
        if "epoch_seconds" not in rec:
            continue  # a run kept for its accuracy only (e.g. on another machine)
        speed.setdefault((prog, ds), []).append(st.median(rec["epoch_seconds"][1:]))
        whole.setdefault((prog, ds), []).append(
            rec["train_seconds"] if "train_seconds" in rec else sum(rec["epoch_seconds"]))
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

    officials = sorted({r[0] for r in rows if r[0].startswith("official")})

    def partner(off):
        variant = off[len("official"):]
        return "magcl" + variant if any(r[0] == "magcl" + variant for r in rows) else "magcl"

    sets = [d for d in SETS if any(values(o, d, "own") for o in officials)]
    lines = ["| data set | evaluator | official | magcl | magcl − official | Welch p |",
             "|---|---|---|---|--:|--:|"]
    if len(officials) > 1:
        lines = [lines[0].replace("| official |", "| programs | official |"),
                 "|---" + lines[1]]
    for ds in sets:
        for off in officials:
            for ev in ["own", f"official-{suffix}", f"magcl-{suffix}"]:
                o, m = values(off, ds, ev), values(partner(off), ds, ev)
                if len(o) < 2 or len(m) < 2:
                    continue
                p = stats.ttest_ind(m, o, equal_var=False).pvalue
                which = f"{off} vs {partner(off)} | " if len(officials) > 1 else ""
                lines.append(f"| {ds} | {ev} | {which}{fmt(o)} | {fmt(m)} | "
                             f"{st.mean(m) - st.mean(o):+.2f} | {p:.3f} |")
    lines += ["", "| data set | program | s/epoch (median of runs, min–max) | s/run (training, median) | runs |",
              "|---|---|---|--:|--:|"]
    for ds in sets:
        for prog in officials + sorted({partner(o) for o in officials}):
            v, w = speed.get((prog, ds), []), whole.get((prog, ds), [])
            if v:
                lines.append(f"| {ds} | {prog} | {st.median(v):.4f} ({min(v):.4f}–{max(v):.4f}) | "
                             f"{st.median(w):.1f} | {len(v)} |")
    for ds in sets:
        for off in officials:
            o, m = speed.get((off, ds)), speed.get((partner(off), ds))
            if o and m:
                than = f" than {off}'s" if len(officials) > 1 else ""
                lines.append(f"\n{ds}: {partner(off)}'s epoch is {st.median(o) / st.median(m):.1f}× "
                             f"faster{than} (medians).")
    open(f"{res}/summary.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
