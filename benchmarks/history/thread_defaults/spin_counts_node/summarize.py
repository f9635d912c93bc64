"""Medians (min-max, rounds) of spin.sh OUT_DIR: seconds per epoch per GOMP_SPINCOUNT, alone and busy."""
import csv,glob,statistics,sys,os
d=sys.argv[1]
for cond in ['quiet','busy']:
    for v in [0,1000,3000,10000,30000,300000]:
        f=f'{d}/{cond}_{v}.csv'
        if not os.path.exists(f): continue
        xs=[float(r['sec_per_epoch_median']) for r in csv.DictReader(open(f))]
        print(cond,v,f'{statistics.median(xs):.4f}',f'{min(xs):.4f}-{max(xs):.4f}',len(xs))
