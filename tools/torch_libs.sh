# Sourced by the device scripts (from the repository root: `. tools/torch_libs.sh`):
# puts the machine's PyTorch libraries (libtorch and the CUDA libraries of its `nvidia/*`
# packages) on LD_LIBRARY_PATH, where the carried magcl binaries find them. PY names the
# Python that holds torch (default python3).
TORCH_LIB_DIR=$(${PY:-python3} -c 'import torch,os;print(os.path.dirname(torch.__file__))')
export LD_LIBRARY_PATH=$TORCH_LIB_DIR/lib:$(ls -d "$(dirname "$TORCH_LIB_DIR")"/nvidia/*/lib 2>/dev/null | tr '\n' ':')${LD_LIBRARY_PATH:-}
