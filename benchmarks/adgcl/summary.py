"""Median and range of old vs new per measurement in a run.sh CSV (standard library only).

usage: python3 benchmarks/adgcl/summary.py OUT.csv   (the CSV run.sh wrote)
"""
import csv
import statistics
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
groups = defaultdict(list)
for r in rows:
    groups[(r["what"], r["dataset"], r["epochs"], r["binary"])].append(r)


def stat(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    return f"{statistics.median(vals):.3f} [{min(vals):.3f}, {max(vals):.3f}]"


def num(r, k):
    return float(r[k]) if r[k] not in ("", "None") else None


print("| measurement | binary | n | CPU s (user+sys) | wall s | s/epoch (bench-speed, wall) | accuracy |")
print("|---|---|---|---|---|---|---|")
for key in sorted(groups, key=lambda k: (k[0], k[1], k[3] != "old")):
    what, ds, ep, b = key
    g = groups[key]
    cpu = [num(r, "cpu_user_s") + num(r, "cpu_sys_s") for r in g]
    acc = sorted({r["accuracy"] for r in g if r["accuracy"]})
    print(
        f"| {what} {ds} ({ep} epochs) | {b} | {len(g)} | {stat(cpu)} | "
        f"{stat([num(r, 'wall_s') for r in g])} | {stat([num(r, 's_per_epoch') for r in g])} | "
        f"{', '.join(f'{float(a):.2f}' for a in acc) or '-'} |"
    )
for what, ds, ep in sorted({k[:3] for k in groups}):
    o = groups.get((what, ds, ep, "old"), [])
    n = groups.get((what, ds, ep, "new"), [])
    if o and n:
        co = statistics.median(num(r, "cpu_user_s") + num(r, "cpu_sys_s") for r in o)
        cn = statistics.median(num(r, "cpu_user_s") + num(r, "cpu_sys_s") for r in n)
        print(f"\n{what} {ds} ({ep} epochs): median CPU old/new = {co / cn:.2f}x")
