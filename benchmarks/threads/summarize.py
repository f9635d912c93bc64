#!/usr/bin/env python3
"""Table of benchmarks/threads/run.sh: per workload, the median over rounds of the seconds
per epoch (and of one evaluation) at each variant, the ratio of the defaults to the faster
of one thread and every core spinning, and of busy to quiet defaults. The spinning
variant's file is `spin.csv` (`spin2.csv` in the first sessions' folders).

usage: summarize.py OUT_DIR [--medians]   (--medians: one table, medians only, as in
docs/performance.md; evaluation rows marked "eval")
"""
import csv
import statistics as st
import sys

VARIANTS = ["default", "one", "spin", "before", "busy"]
FILES = {"spin": ["spin.csv", "spin2.csv"]}


def main():
    out = sys.argv[1]
    data = {}
    for v in VARIANTS:
        rows = None
        for name in FILES.get(v, [f"{v}.csv"]):
            try:
                rows = list(csv.DictReader(open(f"{out}/{name}")))
                break
            except FileNotFoundError:
                pass
        if rows is None:
            continue
        for r in rows:
            key = f"{r['method']}:{r['dataset']}" + (" +MA" if r.get("ma", "none") != "none" else "")
            d = data.setdefault(key, {}).setdefault(v, {"epoch": [], "eval": [], "threads": set()})
            d["epoch"].append(float(r["sec_per_epoch_median"]))
            if r.get("eval_seconds"):
                d["eval"].append(float(r["eval_seconds"]))
            d["threads"].add(r["threads"])

    medians_only = "--medians" in sys.argv[2:]

    def cell(vals):
        if not vals:
            return "-", None
        m = st.median(vals)
        if medians_only:
            return (f"{m:.4f}" if m < 1 else f"{m:.2f}"), m
        return (f"{m:.4f} ({min(vals):.4f}–{max(vals):.4f})" if len(vals) > 1 else f"{m:.4f}"), m

    if medians_only:
        print("| workload | defaults (threads) | one thread | spinning (threads) | before | busy "
              "| ratio | busy |")
        print("|---|--:|--:|--:|--:|--:|--:|--:|")

    for what in ["epoch", "eval"]:
        if not medians_only:
            print(f"\n{'seconds per epoch' if what == 'epoch' else 'one evaluation, seconds'} "
                  "(median over rounds, min–max)\n")
            print("| workload | defaults (threads) | one thread | all cores spinning (threads) | "
                  "before | busy | defaults ÷ best of one/spin | busy ÷ defaults |")
            print("|---|---|---|---|---|---|--:|--:|")
        for key, by in data.items():
            cells, meds = [], {}
            for v in VARIANTS:
                c, m = cell(by.get(v, {}).get(what, []))
                if v in ("default", "spin") and v in by:
                    c += f" ({'/'.join(sorted(by[v]['threads']))})"
                cells.append(c)
                meds[v] = m
            if meds["default"] is None:
                continue
            best = min(m for m in (meds["one"], meds["spin"]) if m is not None)
            busy = f"{meds['busy'] / meds['default']:.2f}" if meds["busy"] else "-"
            label = f"{key} eval" if what == "eval" else key
            print(f"| {label} | " + " | ".join(cells) + f" | {meds['default'] / best:.2f} | {busy} |")


if __name__ == "__main__":
    main()
