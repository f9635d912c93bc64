"""Medians side by side from benchmarks/official/side_by_side.sh's OUT_DIR.

The official code's figure per round is the median of its epochs after the first (the
first builds caches); magcl's is bench-speed's median of its timed epochs (after two
warm-up epochs). Each side: median over rounds (min-max); ratio = official / magcl of
those medians, and the range of the per-round ratios.

    python3 benchmarks/official/summarize.py OUT_DIR
"""
import csv
import glob
import statistics as st
import sys
from collections import defaultdict

out = sys.argv[1]
off = defaultdict(lambda: defaultdict(list))
with open(f"{out}/official.csv") as f:
    for row in csv.DictReader(f):
        if int(row["epoch"]) > 1:
            off[(row["method"], row["dataset"])][row["round"]].append(float(row["seconds"]))
ours = defaultdict(dict)
for path in sorted(glob.glob(f"{out}/magcl_round*.csv")):
    rnd = path.rsplit("round", 1)[1].split(".")[0]
    with open(path) as f:
        for row in csv.DictReader(f):
            ours[(row["method"], row["dataset"])][rnd] = float(row["sec_per_epoch_median"])


def fmt(v):
    return f"{st.median(v):.4g} ({min(v):.4g}–{max(v):.4g})"


print("| case | rounds | official s/epoch | magcl s/epoch (threads: default) | official ÷ magcl | per-round ratios |")
print("|---|--:|--:|--:|--:|--:|")
for key in sorted(off):
    o = {r: st.median(v) for r, v in off[key].items()}
    m = ours.get(key, {})
    rounds = sorted(set(o) & set(m), key=int)
    if not rounds:
        continue
    ov, mv = [o[r] for r in rounds], [m[r] for r in rounds]
    ratios = [o[r] / m[r] for r in rounds]
    print(f"| {key[0]} {key[1]} | {len(rounds)} | {fmt(ov)} | {fmt(mv)} | "
          f"{st.median(ov) / st.median(mv):.1f}× | {min(ratios):.1f}–{max(ratios):.1f}× |")
