"""Medians and ranges of run.sh's speed.csv (seconds per epoch, seconds per evaluation)
and cpu_time.tsv (CPU seconds per invocation), old binary against new, per case.
Usage: python3 summarise.py OLD_COMMIT_PREFIX [TAG] [DIR]   (TAG: read speed_TAG.csv,
cpu_time_TAG.tsv; DIR: where run.sh wrote them, default the current folder). Rows whose
git_commit starts with OLD_COMMIT_PREFIX are the old binary's."""
import csv
import statistics
import sys
from pathlib import Path

if len(sys.argv) < 2:
    sys.exit(__doc__)
old = sys.argv[1]
tag = f"_{sys.argv[2]}" if len(sys.argv) > 2 and sys.argv[2] else ""
here = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(".")
by, ev, cpu, cases = {}, {}, {}, []
for r in csv.DictReader(open(here / f"speed{tag}.csv")):
    case = f"{r['method']}:{r['dataset']}"
    if case not in cases:
        cases.append(case)
    which = "old" if r["git_commit"].startswith(old) else "new"
    by.setdefault((case, which), []).append(float(r["sec_per_epoch_median"]))
    if r["eval_seconds"]:
        ev.setdefault((case, which), []).append(float(r["eval_seconds"]))
for r in csv.DictReader(open(here / f"cpu_time{tag}.tsv"), delimiter="\t"):
    case = r["case"].split("+")[0]
    cpu.setdefault((case, r["binary"]), []).append(float(r["user_s"]) + float(r["sys_s"]))


def show(v):
    return f"{statistics.median(v):.4g} ({min(v):.4g}–{max(v):.4g})" if v else "–"


def ratio(o, n):
    return f"{statistics.median(n) / statistics.median(o):.2f}" if o and n else "–"


print("| case | rounds | old s/epoch | new s/epoch | new/old | old s/eval | new s/eval | "
      "new/old | CPU s per invocation old → new (medians) |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for case in cases:
    o, n = by.get((case, "old"), []), by.get((case, "new"), [])
    eo, en = ev.get((case, "old"), []), ev.get((case, "new"), [])
    co, cn = cpu.get((case, "old"), []), cpu.get((case, "new"), [])
    c = f"{statistics.median(co):.2f} → {statistics.median(cn):.2f}" if co and cn else "–"
    print(f"| {case} | {min(len(o), len(n))} | {show(o)} | {show(n)} | {ratio(o, n)} | "
          f"{show(eo)} | {show(en)} | {ratio(eo, en)} | {c} |")
