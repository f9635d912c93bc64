"""Tables of oldnew.sh's and seeds.sh's CSVs (standard library only).

usage: python3 benchmarks/adgcl/oldnew_summary.py oldnew.csv [seeds.csv]
"""
import csv
import statistics
import sys
from collections import defaultdict


def stat(v, f="{:.3f}"):
    return (f + " [" + f + ", " + f + "]").format(statistics.median(v), min(v), max(v)) if v else "-"


runs = defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    runs[(r["dataset"], r["threads"], r["binary"], r["round"])][int(r["epochs"])] = r
per = defaultdict(lambda: defaultdict(list))
for (ds, th, b, _), d in runs.items():
    if len(d) == 2:
        (e1, r1), (e2, r2) = sorted(d.items())
        per[(ds, th, b)]["cpu"].append((float(r2["cpu_s"]) - float(r1["cpu_s"])) / (e2 - e1))
        per[(ds, th, b)]["wall"].append(float(r2["epoch_wall_med"]))
        per[(ds, th, b)]["loss"].append(r2["last_loss"])
print("| dataset | threads | binary | rounds | CPU s/epoch | wall s/epoch | loss of epoch 6 |")
print("|---|---|---|---|---|---|---|")
for k in sorted(per, key=lambda k: (k[0], k[1], k[2] != "old")):
    v = per[k]
    print(f"| {k[0]} | {k[1]} | {k[2]} | {len(v['cpu'])} | {stat(v['cpu'])} | {stat(v['wall'])} | "
          f"{', '.join(sorted(set(v['loss'])))} |")
for ds, th in sorted({(k[0], k[1]) for k in per}):
    o, n = per.get((ds, th, "old")), per.get((ds, th, "new"))
    if o and n:
        print(f"\n{ds}, {th} thread(s): median CPU per epoch old/new = "
              f"{statistics.median(o['cpu']) / statistics.median(n['cpu']):.2f}x")
if len(sys.argv) > 2:
    acc = defaultdict(list)
    rows = defaultdict(list)
    for r in csv.DictReader(open(sys.argv[2])):
        rows[(r["dataset"], r["epochs"], r["threads"], r["binary"])].append(r)
    print()
    print("| dataset | epochs | threads | binary | seeds | accuracy % per seed | mean ± sd | CPU s per run |")
    print("|---|---|---|---|---|---|---|---|")
    for k in sorted(rows, key=lambda k: (k[0], k[3] != "old")):
        rs = rows[k]
        a = [float(r["accuracy"]) for r in rs]
        sd = statistics.stdev(a) if len(a) > 1 else 0.0
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {', '.join(r['seed'] for r in rs)} | "
              f"{', '.join(f'{x:.2f}' for x in a)} | {statistics.mean(a):.2f} ± {sd:.2f} | "
              f"{stat([float(r['cpu_s']) for r in rs], '{:.1f}')} |")
