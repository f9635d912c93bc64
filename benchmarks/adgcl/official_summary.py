"""Tables of official.sh's CSVs: the official AD-GCL code vs magcl (standard library only).

usage: python3 benchmarks/adgcl/official_summary.py official_epoch.csv [official_run.csv]

Per epoch (CPU): the official code's own per-epoch process CPU timer (median over epochs
2..E of a run); magcl's (CPU of an E-epoch --no-eval run - CPU of a 1-epoch run) / (E - 1),
both processes measured by /usr/bin/time in the same round. Per epoch (wall): the median
epoch wall time each program reports (epochs 2..E). Median [min, max] over rounds.
"""
import csv
import statistics
import sys
from collections import defaultdict


def stat(vals, f="{:.3f}"):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-", None
    m = statistics.median(vals)
    return (f + " [" + f + ", " + f + "]").format(m, min(vals), max(vals)), m


def fl(x):
    return float(x) if x not in ("", "None", None) else None


rows = list(csv.DictReader(open(sys.argv[1])))
per = defaultdict(lambda: defaultdict(list))  # (ds, th) -> key -> values over rounds
by_round = defaultdict(dict)
for r in rows:
    k = (r["dataset"], r["threads"])
    if r["program"] == "official":
        per[k]["off_cpu"].append(fl(r["epoch_cpu_med"]))
        per[k]["off_wall"].append(fl(r["epoch_wall_med"]))
    else:
        by_round[(k, r["round"])][int(r["epochs"])] = r
for (k, _), d in by_round.items():
    if len(d) == 2:
        (e1, r1), (e2, r2) = sorted(d.items())
        per[k]["mag_cpu"].append((fl(r2["cpu_s"]) - fl(r1["cpu_s"])) / (e2 - e1))
        per[k]["mag_wall"].append(fl(r2["epoch_wall_med"]))
print("| dataset | threads | rounds | official CPU s/epoch | magcl CPU s/epoch | CPU ratio | "
      "official wall s/epoch | magcl wall s/epoch | wall ratio |")
print("|---|---|---|---|---|---|---|---|---|")
for k in sorted(per, key=lambda k: (k[0], int(k[1]))):
    v = per[k]
    oc, ocm = stat(v["off_cpu"])
    mc, mcm = stat(v["mag_cpu"])
    ow, owm = stat(v["off_wall"])
    mw, mwm = stat(v["mag_wall"])
    rc = f"{ocm / mcm:.1f}x" if ocm and mcm else "-"
    rw = f"{owm / mwm:.1f}x" if owm and mwm else "-"
    n = max(len(v["off_cpu"]), len(v["mag_cpu"]))
    print(f"| {k[0]} | {k[1]} | {n} | {oc} | {mc} | {rc} | {ow} | {mw} | {rw} |")

if len(sys.argv) > 2:
    runs = defaultdict(list)
    for r in csv.DictReader(open(sys.argv[2])):
        runs[(r["dataset"], r["threads"], r["epochs"], r["program"])].append(r)
    print()
    print("| dataset | threads | epochs | program | rounds | CPU s | wall s | training wall s | "
          "evaluation wall s | accuracy % | selected epoch |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in sorted(runs, key=lambda k: (k[0], int(k[1]), k[3] != "official")):
        rs = runs[k]
        cells = [stat([fl(r[c]) for r in rs], "{:.1f}")[0] for c in ("cpu_s", "wall_s", "train_s", "eval_s")]
        acc = ", ".join(f"{fl(r['accuracy']):.2f}" for r in rs if fl(r["accuracy"]) is not None)
        sel = ", ".join(r["selected_epoch"] for r in rs)
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {len(rs)} | " + " | ".join(cells) + f" | {acc} | {sel} |")
