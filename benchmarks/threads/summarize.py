#!/usr/bin/env python3
"""Table of benchmarks/threads/run.sh: per workload, the median over rounds of the seconds
per epoch (and of one evaluation) at each variant, the ratio of the defaults to the faster
of one thread and two spinning threads, and of busy to quiet defaults.

usage: summarize.py OUT_DIR
"""
import csv
import statistics as st
import sys

VARIANTS = ["default", "one", "spin2", "before", "busy"]


def main():
    out = sys.argv[1]
    data = {}
    for v in VARIANTS:
        try:
            rows = list(csv.DictReader(open(f"{out}/{v}.csv")))
        except FileNotFoundError:
            continue
        for r in rows:
            key = f"{r['method']}:{r['dataset']}"
            d = data.setdefault(key, {}).setdefault(v, {"epoch": [], "eval": [], "threads": set()})
            d["epoch"].append(float(r["sec_per_epoch_median"]))
            if r.get("eval_seconds"):
                d["eval"].append(float(r["eval_seconds"]))
            d["threads"].add(r["threads"])

    def cell(vals):
        if not vals:
            return "-", None
        m = st.median(vals)
        return (f"{m:.4f} ({min(vals):.4f}–{max(vals):.4f})" if len(vals) > 1 else f"{m:.4f}"), m

    for what in ["epoch", "eval"]:
        print(f"\n{'seconds per epoch' if what == 'epoch' else 'one evaluation, seconds'} "
              "(median over rounds, min–max)\n")
        print("| workload | defaults (threads) | one thread | 2 threads spinning | before | busy | "
              "defaults ÷ best of one/spin | busy ÷ defaults |")
        print("|---|---|---|---|---|---|--:|--:|")
        for key, by in data.items():
            cells, meds = [], {}
            for v in VARIANTS:
                c, m = cell(by.get(v, {}).get(what, []))
                if v == "default" and v in by:
                    c += f" ({'/'.join(sorted(by[v]['threads']))})"
                cells.append(c)
                meds[v] = m
            if meds["default"] is None:
                continue
            best = min(m for m in (meds["one"], meds["spin2"]) if m is not None)
            busy = f"{meds['busy'] / meds['default']:.2f}" if meds["busy"] else "-"
            print(f"| {key} | " + " | ".join(cells) + f" | {meds['default'] / best:.2f} | {busy} |")


if __name__ == "__main__":
    main()
