set -u
TL=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))'); SP=$(dirname "$TL")
export LD_LIBRARY_PATH=$TL/lib:$(ls -d "$SP"/nvidia/*/lib 2>/dev/null | tr '\n' ':')
export MAGCL_DATA_MIRROR=$PWD/.devcarry/mirror MAGCL_DATA_DIR=/tmp/magcl-data
M=$PWD/.devcarry/new/magcl-torch
nvidia-smi -L > $OUT/machine.txt; $M --version >> $OUT/machine.txt
for ds in Cora CiteSeer; do for s in 0 1 2 3 4; do for ep in 2000 10000; do
  timeout 215 $M train --method bgrl --dataset $ds --seed $s --device cuda --threads 1 --epochs $ep --set bgrl.warmup_epochs=$((ep / 10)) --json --quiet > $OUT/$ds-$s-$ep.json 2> $OUT/$ds-$s-$ep.err &
done; done; done
wait
ls $OUT | wc -l
