#!/usr/bin/env python3
"""Tables of the GRACE / GCA side-by-side from the logs device_run.sh leaves.

usage: summarize.py LOGS_DIR OUT_DIR [EARLIER_PER_SEED.csv]
       summarize.py LOGS_DIR OUT_DIR --magcl-table BENCH.csv
With EARLIER_PER_SEED.csv (a magcl-only rerun, MAGCL_ONLY=1 in device_run.sh), the official
code's rows come from that earlier table: its runs do not depend on magcl's binary.
With --magcl-table (the logs hold official runs only), magcl's rows are the cells of a
`magcl bench` table with the same method, data set and seeds, without MA, scored by
magcl's own evaluator (evaluator "own"; the cross-evaluation of magcl's embeddings by the
official evaluators needs the runs of device_run.sh). The cells must have the settings
device_run.sh gives magcl (check with `magcl train … --print-config` against the row's
`config` column).
Writes OUT_DIR/per_seed.csv (one row per program, method, data set, seed, evaluator) and
OUT_DIR/summary.md (means, standard deviations, min–max, Welch's t-test of magcl against
the official code per evaluator; seconds per epoch and per run from the speed runs; each
run's training loss at its first and last epoch where its log has them: magcl's JSON
always, the official GCA code's with `--verbose train`, with how many epochs sat at the
first epoch's loss and the last of them: the plateau of a collapsed run).
"""
import csv
import glob
import json
import math
import os
import re
import statistics as st
import sys

from scipy import stats


def own_accuracy(prog, meth, path):
    """The accuracy a program printed itself (percent)."""
    text = open(path).read()
    if prog == "magcl":
        return json.loads(text)["accuracy"]
    if meth == "grace":
        return 100 * float(re.search(r"F1Mi=([0-9.]+)", text).group(1))
    return 100 * float(text.strip().splitlines()[-1])


def epoch_seconds(prog, meth, path):
    text = open(path).read()
    if prog == "magcl":
        return json.loads(text)["epoch_seconds"]
    if meth == "grace":
        return [float(v) for v in re.findall(r"this epoch ([0-9.]+)", text)]
    return [float(v) for v in re.findall(r"\(S\) \| epoch \d+ seconds ([0-9.]+)", text)]


def losses(prog, meth, path):
    """The training loss of every epoch a run's log holds ([] when it holds none)."""
    text = open(path).read()
    if prog == "magcl":
        return json.loads(text).get("epoch_losses") or []
    if meth == "grace":
        return []
    return [float(v) for v in re.findall(r"\(T\) \| Epoch=\d+, loss=([0-9.]+)", text)]


def split_key(key):
    """program, method, data set, seed from a log's key (data set names may hold '-')."""
    prog, meth, rest = key.split("-", 2)
    ds, seed = rest.rsplit("-", 1)
    return prog, meth, ds, seed


def main():
    logs, out = sys.argv[1], sys.argv[2]
    rows = []
    for f in sorted(glob.glob(f"{logs}/acc-*.cross.csv")):
        key = os.path.basename(f)[len("acc-"):-len(".cross.csv")]
        prog, meth, ds, seed = split_key(key)
        own = own_accuracy(prog, meth, f"{logs}/acc-{key}.out")
        rows.append((prog, meth, ds, int(seed), "own", own))
        for r in csv.DictReader(open(f)):
            rows.append((prog, meth, ds, int(seed), r["evaluator"], float(r["accuracy"])))
    if len(sys.argv) > 4 and sys.argv[3] == "--magcl-table":
        if any(r[0] == "magcl" for r in rows):
            sys.exit("the logs hold magcl runs; pass no magcl table")
        wanted = {(r[1], r[2], r[3]) for r in rows}  # official method, data set, seed
        for r in csv.DictReader(open(sys.argv[4])):
            key = (r["method"], r["dataset"], int(r["seed"]))
            if r["ma"] == "none" and not r["variant"] and key in wanted:
                rows.append(("magcl",) + key + ("own", float(r["accuracy"])))
    elif len(sys.argv) > 3:
        if any(r[0] == "official" for r in rows):
            sys.exit("the logs hold official runs; pass no earlier table")
        for r in csv.DictReader(open(sys.argv[3])):
            if r["program"] == "official":
                rows.append(("official", r["method"], r["dataset"], int(r["seed"]),
                             r["evaluator"], float(r["accuracy"])))
    rows.sort()
    with open(f"{out}/per_seed.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["program", "method", "dataset", "seed", "evaluator", "accuracy"])
        for r in rows:
            w.writerow(r[:5] + (f"{r[5]:.4f}",))

    def values(prog, meth, ds, ev):
        return [r[5] for r in rows if r[:3] == (prog, meth, ds) and r[4] == ev]

    order = ["Cora", "CiteSeer", "Amazon-Photo"]
    sets = [d for d in order if any(r[2] == d for r in rows)]
    lines = ["| method | data set | evaluator | official | magcl | magcl − official | Welch p |",
             "|---|---|---|---|---|--:|--:|"]
    # gcacode: magcl's GCA with gca.absent_columns = "threshold" (the released code's handling)
    for meth, mmeth in [("grace", "grace"), ("gca", "gca"), ("gca", "gcacode")]:
        for ds in sets:
            for ev in ["own", "grace-eval", "gca-eval"]:
                o, m = values("official", meth, ds, ev), values("magcl", mmeth, ds, ev)
                if len(o) < 2 or len(m) < 2:
                    continue
                p = stats.ttest_ind(m, o, equal_var=False).pvalue
                fmt = lambda v: (f"{st.mean(v):.2f} ± {st.stdev(v):.2f} "
                                 f"({min(v):.1f}–{max(v):.1f}, n={len(v)})")
                label = meth if mmeth == meth else f"{meth} (magcl: absent_columns = threshold)"
                lines.append(f"| {label} | {ds} | {ev} | {fmt(o)} | {fmt(m)} | "
                             f"{st.mean(m) - st.mean(o):+.2f} | {p:.3f} |")
    lines += ["", "| method | data set | program | s/epoch (median, min–max) | whole run s |",
              "|---|---|---|---|--:|"]
    for ds in sets:
        for meth in ["grace", "gca"]:
            for prog in ["official", "magcl"]:
                path = f"{logs}/speed-{prog}-{meth}-{ds}-0.out"
                if not os.path.exists(path):
                    continue
                e = epoch_seconds(prog, meth, path)[1:]  # the first epoch warms up
                run = float(open(f"{logs}/speed-{prog}-{meth}-{ds}-0.done").read())
                lines.append(f"| {meth} | {ds} | {prog} | {st.median(e):.4f} "
                             f"({min(e):.4f}–{max(e):.4f}) | {run:.1f} |")
    loss_lines = []
    for f in sorted(glob.glob(f"{logs}/acc-*.out")):
        prog, meth, ds, seed = split_key(os.path.basename(f)[len("acc-"):-len(".out")])
        ls = losses(prog, meth, f)
        if ls:
            # the plateau of a collapsed InfoNCE: epochs whose loss is the first epoch's
            # (ln(2N − 1) for GRACE/GCA) to the log's 4 decimals, and the last of them
            flat = [i + 1 for i, v in enumerate(ls) if abs(v - ls[0]) < 5e-5]
            loss_lines.append((ds, meth, prog, int(seed), ls[0], ls[-1], len(ls),
                               len(flat), flat[-1]))
    if loss_lines:
        lines += ["", "| data set | method | program | seed | loss, first epoch | loss, last epoch "
                  "| epochs | epochs at the first loss | the last of them |",
                  "|---|---|---|--:|--:|--:|--:|--:|--:|"]
        for ds, meth, prog, seed, first, last, n, nflat, lastflat in sorted(loss_lines):
            lines.append(f"| {ds} | {meth} | {prog} | {seed} | {first:.4f} | {last:.4f} | {n} "
                         f"| {nflat} | {lastflat} |")
    open(f"{out}/summary.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
