#!/bin/bash
# Device call 3: (C) official AD-GCL vs magcl adgcl per epoch on one GPU, alternated;
# GraphCL/SimGRACE at batch 256 on CPU vs GPU (the auto rule's crossover).
set -u
source .devcarry/common.sh
R=/tmp/res3; mkdir -p $R; cd /tmp
$M datasets fetch MUTAG PROTEINS NCI1 IMDB-BINARY 2>&1 | tail -1
export ADGCL_BASE=$D/adgcl ADGCL_PYTHON=python3 ADGCL_SITE=/nonexistent ADGCL_TU_SOURCE=$D/tu ADGCL_DATA_ROOT=/tmp/adgcl-data
echo "round,program,dataset,device,threads,epochs_timed,sec_per_epoch_median,sec_per_epoch_all,wall_s" > $R/adgcl_gpu.csv
off() { # round ds
  local t0=$(date +%s.%N)
  timeout 90 bash $D/adgcl/run_official.sh $2 0 ${OFF_EPOCHS:-4} 2 cuda:0 > $R/off_$2_$1.out 2> $R/off_$2_$1.err
  local t1=$(date +%s.%N)
  grep '^TIMING ' $R/off_$2_$1.out | tail -1 | cut -c8- > $R/off_$2_$1.json
  python3 - $R/off_$2_$1.json $1 $2 $t0 $t1 >> $R/adgcl_gpu.csv <<'PY'
import json,sys,statistics as s
try: d=json.load(open(sys.argv[1]))
except Exception as e: print(f"{sys.argv[2]},official,{sys.argv[3]},cuda:0,2,0,,FAILED,"); sys.exit()
v=d['epoch_wall']; t=v[1:] if len(v)>1 else v
print(f"{sys.argv[2]},official,{sys.argv[3]},cuda:0,2,{len(t)},{s.median(t):.5f},{' '.join('%.5f'%x for x in v)},{float(sys.argv[5])-float(sys.argv[4]):.1f}")
PY
}
mg() { # round ds
  local t0=$(date +%s.%N)
  timeout 60 $M bench-speed adgcl:$2 --epochs 3 --warmup 1 --device cuda:0 --threads 2 --out $R/magcl_adgcl_$1.csv > /dev/null 2>&1
  local t1=$(date +%s.%N)
  python3 - $R/magcl_adgcl_$1.csv $1 $2 $t0 $t1 >> $R/adgcl_gpu.csv <<'PY'
import csv,sys
rows=[r for r in csv.DictReader(open(sys.argv[1])) if r['dataset']==sys.argv[3]]
r=rows[-1]
print(f"{sys.argv[2]},magcl {r['git_commit']},{sys.argv[3]},{r['device']},{r['threads']},{r['epochs_timed']},{float(r['sec_per_epoch_median']):.5f},{r['sec_per_epoch_min']}-{r['sec_per_epoch_max']},{float(sys.argv[5])-float(sys.argv[4]):.1f}")
PY
}
for r in 1 2; do for ds in MUTAG PROTEINS IMDB-BINARY; do
  if [ $r = 1 ]; then off $r $ds; mg $r $ds; else mg $r $ds; off $r $ds; fi
  tail -n 2 $R/adgcl_gpu.csv
done; done
for dev in cuda:0 cpu1 cpu2; do
  case $dev in cpu*) args="--device cpu --threads ${dev#cpu}";; *) args="--device $dev --threads 2";; esac
  timeout 40 $M bench-speed graphcl:NCI1 graphcl:PROTEINS simgrace:NCI1 simgrace:PROTEINS --set batch_size=256 --epochs 3 --warmup 1 $args --out $R/speed_auto_bs256.csv > /dev/null 2>&1
done
cp $R/adgcl_gpu.csv $R/speed_auto_bs256.csv $OUT/; tar czf $OUT/logs3.tgz -C $R .
cat $R/adgcl_gpu.csv; python3 -c "
import csv
for r in csv.DictReader(open('$R/speed_auto_bs256.csv')): print(r['method'],r['dataset'],r['device'],r['threads'],r['sec_per_epoch_median'])"
