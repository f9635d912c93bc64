"""Joins the device's CSVs into per_seed.csv and prints the paired MA effect per program,
data set and base model (MA on − MA off with a fixed K, same seeds; 95% t interval).

usage: python3 summarize.py OFFICIAL.csv MAGCL.csv [OFFICIAL_K.csv MAGCL_BASEK.csv] > summary.md
MA labels in per_seed.csv: on; off = fixed K = 2 (the evaluation K); off0 / off1 = fixed K = 0 / 1.
"""
import csv
import json
import math
import statistics as st
import sys

from scipy import stats

rows = []


def official(path):
    for r in csv.DictReader(open(path)):
        rows.append(dict(program='official', dataset=r['dataset'], ma=r['ma'], seed=int(r['seed']),
                         accuracy=round(100 * float(r['accuracy']), 4), device=r['device'],
                         seconds=r['seconds'], commit='c5d6b52+patches'))


def magcl(path):
    for r in csv.DictReader(open(path)):
        k = json.loads(r['config'])['node']['base_k']
        ma = 'on' if r['ma'] != 'none' else ('off' if k == 2 else f'off{k}')
        rows.append(dict(program='magcl', dataset=r['dataset'], ma=ma, seed=int(r['seed']),
                         accuracy=round(float(r['accuracy']), 4), device=r['device'],
                         seconds=round(float(r['train_seconds']) + float(r['eval_seconds']), 1),
                         commit=r['git_commit']))


official(sys.argv[1])
magcl(sys.argv[2])
if len(sys.argv) > 4:
    official(sys.argv[3])
    magcl(sys.argv[4])
order = {'on': 0, 'off': 1, 'off0': 2, 'off1': 3}
rows.sort(key=lambda r: (r['program'] != 'official', r['dataset'] != 'Cora', order[r['ma']], r['seed']))
with open('per_seed.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)

label = {'off': 'K = 2', 'off0': 'K = 0', 'off1': 'K = 1'}
print('| program | data set | base (MA off) | seeds | MA off | MA on | Δ (on − off) [95% CI] | paired t p |')
print('|---|---|---|--:|--:|--:|--:|--:|')
for prog in ['official', 'magcl']:
    for ds in ['Cora', 'CiteSeer']:
        for off in ['off', 'off0', 'off1']:
            acc = {m: {r['seed']: r['accuracy'] for r in rows
                       if r['program'] == prog and r['dataset'] == ds and r['ma'] == m} for m in ['on', off]}
            seeds = sorted(set(acc['on']) & set(acc[off]))
            if not seeds:
                continue
            d = [acc['on'][s] - acc[off][s] for s in seeds]
            n = len(d)
            md, sd = st.mean(d), st.stdev(d)
            h = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
            p = stats.ttest_rel([acc['on'][s] for s in seeds], [acc[off][s] for s in seeds]).pvalue
            fmt = lambda v: f'{st.mean(v):.2f} ± {st.stdev(v):.2f}'
            print(f"| {prog} | {ds} | fixed {label[off]} | {n} | {fmt([acc[off][s] for s in seeds])} | "
                  f"{fmt([acc['on'][s] for s in seeds])} | {md:+.2f} [{md - h:+.2f}, {md + h:+.2f}] | {p:.3f} |")
