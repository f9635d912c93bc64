D=$PWD/.devcarry
TL=$(python3 -c 'import torch,os;print(os.path.join(os.path.dirname(torch.__file__),"lib"))' 2>/dev/null)
export LD_LIBRARY_PATH=$TL:${LD_LIBRARY_PATH:-}
export MAGCL_DATA_MIRROR=$D/mirror MAGCL_DATA_DIR=/tmp/magcl-data
M=$D/bin/magcl
