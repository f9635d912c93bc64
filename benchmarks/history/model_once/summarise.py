"""Medians and ranges of speed.csv (seconds per epoch) and cpu_time.tsv (per case
invocation), old binary (cfdaf6f) against new, per case."""
import csv
import statistics
import sys
from pathlib import Path

here = Path(__file__).parent
old = sys.argv[1] if len(sys.argv) > 1 else "cfdaf6f"
rows = list(csv.DictReader(open(here / "speed.csv")))
cases = []
by = {}
for r in rows:
    case = f"{r['method']}:{r['dataset']}"
    if case not in cases:
        cases.append(case)
    which = "old" if r["git_commit"].startswith(old) else "new"
    by.setdefault((case, which), []).append(float(r["sec_per_epoch_median"]))
cpu = {}
for r in csv.DictReader(open(here / "cpu_time.tsv"), delimiter="\t"):
    cpu.setdefault((r["case"], r["binary"]), []).append(float(r["user_s"]) + float(r["sys_s"]))


def show(v):
    return f"{statistics.median(v):.4g} ({min(v):.4g}–{max(v):.4g})"


print("| case | rounds | old s/epoch, median (range) | new s/epoch, median (range) | new/old | "
      "CPU s per invocation, old → new (medians) |")
print("|---|--:|--:|--:|--:|--:|")
for case in cases:
    o, n = by.get((case, "old"), []), by.get((case, "new"), [])
    if not o or not n:
        continue
    co, cn = cpu.get((case, "old"), []), cpu.get((case, "new"), [])
    ratio = statistics.median(n) / statistics.median(o)
    c = f"{statistics.median(co):.2f} → {statistics.median(cn):.2f}" if co and cn else "–"
    print(f"| {case} | {min(len(o), len(n))} | {show(o)} | {show(n)} | {ratio:.2f} | {c} |")
