#!/usr/bin/env python3
"""Medians of benchmarks/history/thread_defaults/spin_counts: per case, seconds per epoch at
each GOMP_SPINCOUNT, quiet (q) and beside a busy core (b). usage: summarize.py DIR"""
import csv,glob,os,statistics as st,sys
d=sys.argv[1]; rows={}
for f in sorted(glob.glob(d+'/*.csv')):
    v=os.path.basename(f)[:-4]
    for r in csv.DictReader(open(f)):
        k=(r['method']+':'+r['dataset'])
        rows.setdefault(k,{}).setdefault(v,[]).append((float(r['sec_per_epoch_median']),float(r['eval_seconds'] or 0)))
vs=['q0','q3000','q30000','q300000','b0','b3000','b30000','b300000']
print('| case | '+' | '.join(vs)+' |')
for k,m in rows.items():
    print('| '+k+' | '+' | '.join(f"{st.median([a for a,_ in m.get(v,[(0,0)])]):.4f}" for v in vs)+' |')
    if k.startswith('base'):
        print('| '+k+' eval | '+' | '.join(f"{st.median([b for _,b in m.get(v,[(0,0)])]):.3f}" for v in vs)+' |')
