#!/bin/bash
# Device call 2: runs per hour of a fixed subset of graph_ma.toml (GraphCL + SimGRACE on
# MUTAG, PROTEINS, NCI1, IMDB-BINARY, seeds 0-4: 120 cells) with 16 workers x 1 thread on
# the CPU, on 1 GPU and on 2 GPUs.
set -u
source .devcarry/common.sh
R=/tmp/res2; mkdir -p $R; cd /tmp
$M datasets fetch MUTAG PROTEINS NCI1 IMDB-BINARY 2>&1 | tail -4
{ date -u; nvidia-smi --query-gpu=index,name,memory.total --format=csv; nproc; } > $R/env2.txt
[ -s $R/throughput.csv ] || echo "config,device,gpus,jobs,threads,cells_done,wall_s,runs_per_hour" > $R/throughput.csv
tp() {  # name env device gpus jobs threads
  local name=$1 envs=$2 dev=$3 g=$4 j=$5 t=$6
  local t0=$(date +%s.%N)
  env $envs timeout ${TP_LIMIT:-150} $M bench $D/graph_ma.toml --only dataset=MUTAG,PROTEINS,NCI1,IMDB-BINARY --only method=graphcl,simgrace \
    --out $R/tp_$name.csv --jobs $j --threads $t --device $dev > $R/tp_$name.log 2>&1
  local t1=$(date +%s.%N)
  local n=$(( $(grep -c . $R/tp_$name.csv) - 1 ))
  python3 -c "w=$t1-$t0; print('$name,$dev,$g,$j,$t,$n,%.1f,%.0f' % (w, $n/w*3600))" >> $R/throughput.csv
  tail -n 1 $R/throughput.csv; tail -n 2 $R/tp_$name.log
}
for c in ${CONFIGS:-cpu16 gpu1 gpu2}; do
  case $c in
    cpu16) tp cpu16 "X=1" cpu 0 16 1;;
    cpu32) tp cpu32 "X=1" cpu 0 32 1;;
    gpu1) tp gpu1 "CUDA_VISIBLE_DEVICES=0" cuda 1 16 1;;
    gpu2) tp gpu2 "X=1" cuda 2 16 1;;
    gpu2j32) tp gpu2j32 "X=1" cuda 2 32 1;;
  esac
done
