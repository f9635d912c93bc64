"""Makes a runnable copy of the official MA-GCL code (GXM1141/MA-GCL c5d6b52, kept outside
the project) for the positive control (README.md of results/positive_control/), without
touching the original.

    python3 patch_official.py OFFICIAL DEST

OFFICIAL is the official code as a folder (e.g. `git archive HEAD | tar x`) or as its git
directory (then HEAD is exported). DEST receives the patched copy (without `__pycache__/`,
`.DS_Store` and the 1 MB `appendix.pdf`, which the code does not read) and a `compat/`
folder of import shims, to be put on PYTHONPATH (`run_official.sh` does).

The environment has torch 2.11 and the pure-Python torch_geometric 2.8; torch_scatter,
torch_sparse, ogb and nni are not installed, and the code imports a module `ssgc` it does
not ship. Nothing in the model, the loss, the augmentations or the evaluation changes:

1. `compat/` shims (imports only):
   - `torch_scatter.scatter_add` / `scatter` in plain torch (`scatter_add_` /
     `scatter_reduce_` on the broadcast index). `scatter_add` is the only function on the
     MA-GCL path (the degree sum in `NewGConv.norm`). They do not call
     `torch_geometric.utils.scatter`: with this module importable PyG believes torch_scatter
     is installed and, for some reductions on the GPU, calls back into it.
     `scatter_max` / `segment_csr` (which PyG may then call) raise if used.
   - `torch_sparse.SparseTensor` / `set_diag`: names that raise if used. No `SparseStorage`,
     so PyG's own check still finds torch_sparse absent and keeps its own code paths.
   - `ssgc.Net`, `ogb.nodeproppred.PygNodePropPredDataset`: names that raise if used (only
     for ogbn-* data sets, never on the Cora/CiteSeer/Amazon/Coauthor path).
   - `nni`: no-op reporting (used only with `--config nni`).
2. `main.py`: `os.makedirs('embedding', exist_ok=True)` (the code saves embeddings there
   every 100 epochs and fails without the folder; repository issue #2).
3. `main.py`: `--ma on|off` (default `on`, the released behaviour) and `--fixed_k K`
   (default 2). With `--ma off`, `train()` computes both views as the encoder does, with
   K1 = K2 = K (layer 1 with K, activation, layer 2 with K), instead of the released draw
   (view 1: K from [0, 2) in each layer, view 2: K from [0, 8), numpy's generator). The
   torch random stream is the same in both modes (the draw uses numpy only), so with the
   same `--seed` the two modes share initial weights, edge drops, feature masks and the
   evaluation split. Evaluation still uses K = 2 (`final=True`), as released.
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from official_patch import fresh_copy, sub  # noqa: E402  (tools/official_patch.py)

SHIMS = {
    "torch_scatter/__init__.py": '''"""Shim (positive control): the torch_scatter functions the official MA-GCL code imports,
in plain torch. Not torch_geometric.utils.scatter: PyG sees this module as torch_scatter
and may call back into it."""
import torch


def _broadcast(index, src, dim):
    if index.dim() == 1 and src.dim() > 1:
        shape = [1] * src.dim()
        shape[dim] = -1
        index = index.view(shape)
    return index.expand_as(src)


def scatter(src, index, dim=-1, out=None, dim_size=None, reduce="sum"):
    dim = src.dim() + dim if dim < 0 else dim
    if dim_size is None:
        dim_size = int(index.max()) + 1 if index.numel() > 0 else 0
    size = list(src.size())
    size[dim] = dim_size
    idx = _broadcast(index, src, dim)
    if reduce in ("sum", "add"):
        res = src.new_zeros(size).scatter_add_(dim, idx, src)
    elif reduce == "mean":
        res = src.new_zeros(size).scatter_add_(dim, idx, src)
        count = src.new_zeros(size).scatter_add_(dim, idx, torch.ones_like(src))
        res = res / count.clamp(min=1)
    elif reduce in ("min", "max"):
        res = src.new_zeros(size).scatter_reduce_(dim, idx, src, reduce="a" + reduce, include_self=False)
    elif reduce == "mul":
        res = src.new_ones(size).scatter_reduce_(dim, idx, src, reduce="prod", include_self=True)
    else:
        raise ValueError(f"shim torch_scatter.scatter: unknown reduce {reduce!r}")
    if out is not None:
        out.copy_(res)
        return out
    return res


def scatter_add(src, index, dim=-1, out=None, dim_size=None):
    return scatter(src, index, dim, out, dim_size, reduce="sum")


def scatter_max(*args, **kwargs):
    raise NotImplementedError("shim torch_scatter: scatter_max is not provided")


def segment_csr(*args, **kwargs):
    raise NotImplementedError("shim torch_scatter: segment_csr is not provided")
''',
    "torch_sparse/__init__.py": '''"""Shim (positive control): names the official code imports; they raise if used. No
SparseStorage, so torch_geometric still treats torch_sparse as absent."""


class SparseTensor:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("shim torch_sparse: SparseTensor is not available")


def set_diag(*args, **kwargs):
    raise NotImplementedError("shim torch_sparse: set_diag is not available")
''',
    "ssgc.py": '''"""Shim (positive control): the official code imports ssgc.Net (not shipped, not used)."""


class Net:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("shim ssgc: Net is not available")
''',
    "ogb/__init__.py": "",
    "ogb/nodeproppred/__init__.py": '''"""Shim (positive control): only the ogbn-* data sets use it."""


class PygNodePropPredDataset:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("shim ogb: PygNodePropPredDataset is not available")
''',
    "nni.py": '''"""Shim (positive control): nni's reporting as no-ops (the code uses it with --config nni)."""


def get_next_parameter():
    return {}


def report_intermediate_result(*args, **kwargs):
    pass


def report_final_result(*args, **kwargs):
    pass
''',
}


def export(src: pathlib.Path, tmp: pathlib.Path) -> pathlib.Path:
    """The official folder: `src` itself, or HEAD of `src` when it is a git directory."""
    if (src / "HEAD").is_file() and (src / "objects").is_dir():
        out = tmp / "official"
        out.mkdir()
        archive = subprocess.run(["git", "--git-dir", str(src), "archive", "HEAD"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "x", "-C", str(out)], input=archive, check=True)
        commit = subprocess.run(["git", "--git-dir", str(src), "rev-parse", "HEAD"],
                                check=True, capture_output=True, text=True).stdout.strip()
        (out / "OFFICIAL_COMMIT").write_text(commit + "\n")
        return out
    return src


def main() -> None:
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        fresh_copy(export(src, pathlib.Path(tmp)), dst)
    for junk in list(dst.rglob("__pycache__")) + list(dst.rglob(".DS_Store")) + [dst / "appendix.pdf"]:
        if junk.is_dir():
            shutil.rmtree(junk)
        elif junk.exists():
            junk.unlink()

    p = dst / "main.py"
    t = p.read_text()
    # 2. the embedding folder the code writes to every 100 epochs
    t = sub(t, "import argparse\n", "import argparse\nimport os\n", str(p))
    t = sub(t, "    args = parser.parse_args()\n",
            "    args = parser.parse_args()\n"
            "    os.makedirs('embedding', exist_ok=True)\n", str(p))
    # 3. --ma on|off, --fixed_k K
    t = sub(t, "    parser.add_argument('--load_split', type=str, nargs='?')\n",
            "    parser.add_argument('--load_split', type=str, nargs='?')\n"
            "    parser.add_argument('--ma', type=str, default='on', choices=['on', 'off'])\n"
            "    parser.add_argument('--fixed_k', type=int, default=2)\n", str(p))
    t = sub(t, "    z1 = model(x_1, edge_index_1, [2, 2])\n"
               "    z2 = model(x_2, edge_index_2, [8, 8])\n",
            "    if args.ma == 'off':  # both views with K1 = K2 = fixed_k (no draw), as NewEncoder.forward\n"
            "        enc, k = model.encoder, args.fixed_k\n"
            "        z1 = enc.conv[1](enc.activation(enc.conv[0](x_1, edge_index_1, k)), edge_index_1, k)\n"
            "        z2 = enc.conv[1](enc.activation(enc.conv[0](x_2, edge_index_2, k)), edge_index_2, k)\n"
            "    else:\n"
            "        z1 = model(x_1, edge_index_1, [2, 2])\n"
            "        z2 = model(x_2, edge_index_2, [8, 8])\n", str(p))
    p.write_text(t)

    # 1. import shims
    for rel, text in SHIMS.items():
        f = dst / "compat" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)


if __name__ == "__main__":
    main()
