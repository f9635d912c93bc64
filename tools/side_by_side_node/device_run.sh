#!/bin/bash
# GRACE and GCA side by side with their official code, on the GPU machine. Resumable: each
# phase skips what an earlier call already left in $KEEP (carried back and forth as
# .devcarry/sbs_prev.tgz), and stops when SECONDS_LEFT runs out.
#   phase 1: accuracy — official GRACE (config.yaml) and GCA (scheme degree, GRACE's
#            Cora/CiteSeer values as arguments) and magcl grace/gca, Cora and CiteSeer,
#            seeds 0..9, P processes at once
#   phase 2: speed — each program alone on the GPU, Cora and CiteSeer, seed 0
# SETS and METHODS choose other sets and methods, e.g. GCA on Amazon-Photo at the released
# code's settings for that set (its param/amazon_photo.json; magcl's preset `code`, the
# cells of configs/node_large_methods.toml):
#   SETS=Amazon-Photo METHODS=gca bash tools/side_by_side_node/device_run.sh SECONDS_LEFT
# (the official GRACE code has settings for Cora and CiteSeer only). A run that the call's
# end kills is lost (only whole runs are kept), and the official GCA on Amazon-Photo takes
# about 0.2 s an epoch with 10 runs sharing the H200: 2,000 epochs do not fit one call at
# P=10. SEEDS picks the seeds of a call, e.g. SEEDS="0 1 2 3 4" P=5 for a call's share.
# The official GCA runs print their loss every epoch (`--verbose train,final`), which
# summarize.py reads.
# Each accuracy run's final embeddings go through both official evaluators (cross_eval.py)
# and are then deleted.
# Carried in .devcarry/: new/magcl-torch (stripped), mirror/planetoid (mirror/npz for the
# Amazon sets), official/{GRACE,GCA}
# (unpatched copies of CRIPAC-DIG/GRACE b3b5ac3 and CRIPAC-DIG/GCA 0f17497).
#   bash tools/side_by_side_node/device_run.sh SECONDS_LEFT
# MAGCL_ONLY=1 runs magcl's side only (a new binary; summarize.py takes the official rows
# from the earlier per_seed.csv).
# SMOKE=1 checks the script on a CPU machine: 2 epochs, seed 0, Cora only, nothing kept.
set -u
SMOKE=${SMOKE:-0} DEV=cuda SEEDS=${SEEDS:-0 1 2 3 4 5 6 7 8 9} EP=""
SETS=${SETS:-Cora CiteSeer} METHODS=${METHODS:-grace gca}
[ "$SMOKE" = 1 ] && { DEV=cpu SEEDS=0 EP=2; [ "$SETS" = "Cora CiteSeer" ] && SETS=Cora; }
LIMIT=${1:-540}
END=$(( $(date +%s) + LIMIT )); left() { echo $(( END - $(date +%s) )); }
D=$PWD/.devcarry T=$PWD/tools/side_by_side_node
KEEP=/tmp/sbs-keep; mkdir -p $KEEP/logs $KEEP/emb
[ -f "$D/sbs_prev.tgz" ] && tar xzf "$D/sbs_prev.tgz" -C /
# RERUN_MAGCL=1: magcl's runs again (a new binary), the official ones kept
[ "${RERUN_MAGCL:-0}" = 1 ] && rm -f $KEEP/logs/*-magcl-*
. tools/torch_libs.sh
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data PYTHONUNBUFFERED=1
M=$D/new/magcl-torch
W=/tmp/sbs-official
if [ ! -d $W ]; then
  mkdir -p $W && cp -r $D/official/GRACE $D/official/GCA $W/
  python3 $T/patch_official.py $W/GRACE $W/GCA > $KEEP/patches.log || exit 1
  [ "$SMOKE" = 1 ] && sed -i 's/num_epochs: [0-9]*/num_epochs: 2/; s/    torch.cuda.set_device(args.gpu_id)/    pass/' $W/GRACE/config.yaml $W/GRACE/train.py
fi
export HOME=/tmp/sbs-home
for d in $SETS; do
  case $d in
    Cora|CiteSeer)
      l=$(echo $d | tr A-Z a-z)
      mkdir -p $HOME/datasets/$d/$d/raw $HOME/datasets/Citation/$d/raw
      cp -n $D/mirror/planetoid/ind.$l.* $HOME/datasets/$d/$d/raw/
      cp -n $D/mirror/planetoid/ind.$l.* $HOME/datasets/Citation/$d/raw/;;
    Amazon-Photo)  # where torch_geometric's Amazon(root, 'photo') looks for the npz
      mkdir -p $HOME/datasets/$d/Photo/raw
      python3 -c "import zipfile, sys; zipfile.ZipFile(sys.argv[1]).extract('amazon_electronics_photo.npz', sys.argv[2])" \
        $D/mirror/npz/amazon_electronics_photo.zip $HOME/datasets/$d/Photo/raw || exit 1;;
    *) echo "error: SETS: $d is not one of Cora, CiteSeer, Amazon-Photo" >&2; exit 2;;
  esac
done
[ -f $KEEP/machine.txt ] || { date -u; nvidia-smi -L; lscpu | grep -E "Model name|^CPU\(s\)"; python3 -c 'import torch, torch_geometric, numpy, sklearn; print("torch", torch.__version__, "pyg", torch_geometric.__version__, "numpy", numpy.__version__, "sklearn", sklearn.__version__)'; $M --version; } > $KEEP/machine.txt 2>&1
# PyG processes the raw files once, before parallel runs; labels for the official embeddings
SETS="$SETS" python3 - <<'PY'
import numpy as np
from torch_geometric.datasets import Amazon, Planetoid
import torch_geometric.transforms as T
import os
h = os.environ['HOME']
for d in os.environ['SETS'].split():
    if d == 'Amazon-Photo':
        y = Amazon(f'{h}/datasets/{d}', 'photo', transform=T.NormalizeFeatures())[0].y.numpy()
    else:
        for root in [f'{h}/datasets/{d}', f'{h}/datasets/Citation']:
            y = Planetoid(root, d, transform=T.NormalizeFeatures())[0].y.numpy()
    np.save(f'/tmp/sbs-keep/emb/pyg-{d}.labels.npy', y)
PY
# GRACE's Cora / CiteSeer values (config.yaml), passed to GCA with its degree scheme; on
# Amazon-Photo GCA's own file for the set
gca_args() {
  case $1 in
    Amazon-Photo) echo "--param local:amazon_photo.json";;
    Cora) echo "--param default --learning_rate 0.0005 --num_hidden 128 --num_proj_hidden 128 --activation relu --drop_edge_rate_1 0.2 --drop_edge_rate_2 0.4 --drop_feature_rate_1 0.3 --drop_feature_rate_2 0.4 --tau 0.4 --num_epochs 200 --weight_decay 0.00001 --drop_scheme degree";;
    CiteSeer) echo "--param default --learning_rate 0.001 --num_hidden 256 --num_proj_hidden 256 --activation prelu --drop_edge_rate_1 0.2 --drop_edge_rate_2 0.0 --drop_feature_rate_1 0.3 --drop_feature_rate_2 0.2 --tau 0.9 --num_epochs 200 --weight_decay 0.00001 --drop_scheme degree";;
  esac
}
# magcl's settings: the default preset on Cora / CiteSeer (as the official arguments above),
# preset `code` on Amazon-Photo (GCA's param/amazon_photo.json)
magcl_args() { [ "$1" = Amazon-Photo ] && echo "--preset code"; }
one() {  # program method dataset seed tag
  local prog=$1 meth=$2 ds=$3 seed=$4 tag=$5
  local key=$tag-$prog-$meth-$ds-$seed log=$KEEP/logs/$tag-$prog-$meth-$ds-$seed
  [ -f $log.done ] && return 0
  local emb=$KEEP/emb/$prog-$meth-$ds-$seed.npy
  [ "$tag" = speed ] && emb=/tmp/sbs-speed-$key.npy
  local t0=$(date +%s.%N) rc
  case $prog-$meth in
    official-grace) (cd $W/GRACE && EMB_OUT=$emb python3 train.py --dataset $ds --seed $seed) > $log.out 2> $log.err; rc=$?;;
    official-gca) (cd $W/GCA && EMB_OUT=$emb python3 train.py --device $DEV --dataset $ds --seed $seed --verbose train,final $(gca_args $ds) ${EP:+--num_epochs $EP}) > $log.out 2> $log.err; rc=$?;;
    magcl-gcacode) $M train --method gca $(magcl_args $ds) --set gca.absent_columns=threshold --dataset $ds --seed $seed --device $DEV --threads 2 ${EP:+--epochs $EP} --save-embeddings $emb --json > $log.out 2> $log.err; rc=$?;;
    magcl-*) $M train --method $meth $(magcl_args $ds) --dataset $ds --seed $seed --device $DEV --threads 2 ${EP:+--epochs $EP} --save-embeddings $emb --json > $log.out 2> $log.err; rc=$?;;
  esac
  local t1=$(date +%s.%N)
  if [ $rc -ne 0 ]; then echo "FAILED $key rc=$rc: $(tail -n 3 $log.err)"; return 0; fi
  if [ "$tag" = acc ]; then  # both official evaluators on this embedding, then drop it
    local lab=$KEEP/emb/pyg-$ds.labels.npy; [ $prog = magcl ] && lab=${emb%.npy}.labels.npy
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' $prog $meth $ds $seed $emb $lab > $log.tsv
    python3 $T/cross_eval.py $W/GRACE $W/GCA $log.tsv $log.cross.csv 1 2> $log.cross.err \
      || { echo "FAILED cross-eval $key: $(tail -n 3 $log.cross.err)"; return 0; }
  fi
  rm -f $emb ${emb%.npy}.labels.npy
  echo "$(awk "BEGIN{print $t1 - $t0}")" > $log.done
}
export -f one gca_args magcl_args; export KEEP W M HOME T DEV EP
# phase 1: accuracy, P at a time
PROGS="official magcl"; [ "${MAGCL_ONLY:-0}" = 1 ] && PROGS=magcl
runs() {  # the accuracy runs, one a line: program method dataset seed
  for prog in $PROGS; do for meth in $METHODS; do for ds in $SETS; do for s in $SEEDS; do
    echo "$prog $meth $ds $s"; done; done; done; done
  # GCA with the released code's handling of a feature column no node has (Cora has one;
  # the Amazon sets have none)
  case " $METHODS " in *" gca "*) case " $SETS " in *" Cora "*)
    for s in $SEEDS; do echo "magcl gcacode Cora $s"; done;; esac;; esac
}
runs | sed 's/$/ acc/' | timeout "$(left)" xargs -P ${P:-10} -L 1 bash -c 'one $0 $1 $2 $3 $4'
echo "phase 1: $(ls $KEEP/logs/acc-*.done 2>/dev/null | wc -l) of $(runs | wc -l) runs done, $(left) s left"
# phase 2: speed, one at a time
if [ "$(left)" -gt 60 ]; then
  for ds in $SETS; do for prog in $PROGS; do for meth in $METHODS; do
    [ "$(left)" -gt 30 ] && timeout "$(left)" bash -c "one $prog $meth $ds 0 speed"
  done; done; done
fi
echo "phase 2: $(ls $KEEP/logs/speed-*.done 2>/dev/null | wc -l) of $(( $(wc -w <<< "$SETS") * $(wc -w <<< "$PROGS") * $(wc -w <<< "$METHODS") )) runs done, $(left) s left"
[ "$SMOKE" = 1 ] && { cat $KEEP/logs/*.cross.csv; ls $KEEP/logs; exit 0; }
tar czf $OUT/sbs_prev.tgz $KEEP
ls -la $OUT
